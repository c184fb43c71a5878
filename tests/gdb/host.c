/* tests/gdb: builds dbg.cm with -g on the CPU device, runs it on one
 * thread with a = 3, b = 4, and checks the result (acc = 3 + 4 + 3 * (0 +
 * 1 + 2 + 3) = 25 in element 0, 7 in the others).  Prints the build log
 * (its note names the saved source).  Usage: host DBG.cm */
#include <stdio.h>
#include <stdlib.h>

#include "cmetal.h"

#define TRY(x)                                                                    \
	do {                                                                          \
		if ((x) != CM_SUCCESS) {                                                  \
			fprintf(stderr, "%s failed: %s\n", #x, cmetal_last_error());          \
			return 1;                                                             \
		}                                                                         \
	} while (0)

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char text[1 << 16];
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = '\0';
	return text;
}

int main(int argc, char **argv)
{
	const char *src = argc > 1 ? slurp(argv[1]) : NULL;
	if (!src) {
		fprintf(stderr, "usage: host DBG.cm\n");
		return 2;
	}
	cmetal_device *dev;
	cmetal_program *p;
	cmetal_kernel *k;
	cmetal_buffer *out;
	cmetal_event *ev;
	const char *log;
	TRY(cmetal_device_open("cpu", &dev));
	TRY(cmetal_program_build(dev, src, "-g", &p));
	TRY(cmetal_program_build_log(p, &log));
	printf("%s", log);
	TRY(cmetal_kernel_create(p, "dbg", &k));
	TRY(cmetal_buffer_create(dev, 8 * sizeof(int), &out));
	int a = 3, b = 4, r[8];
	TRY(cmetal_kernel_set_arg_buffer(k, 0, out));
	TRY(cmetal_kernel_set_arg(k, 1, sizeof a, &a));
	TRY(cmetal_kernel_set_arg(k, 2, sizeof b, &b));
	TRY(cmetal_launch_groups(k, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){1, 1, 1}, &ev));
	TRY(cmetal_event_wait(ev));
	TRY(cmetal_buffer_read(out, 0, sizeof r, r));
	int bad = r[0] != 25;
	for (int i = 1; i < 8; i++)
		bad |= r[i] != 7;
	printf("result %d %d\n", r[0], r[1]);
	cmetal_event_release(ev);
	cmetal_buffer_release(out);
	cmetal_kernel_release(k);
	cmetal_program_release(p);
	cmetal_device_close(dev);
	return bad;
}
