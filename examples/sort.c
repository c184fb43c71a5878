/* sort.c — sorts 1024 runs of 32 keys with sort.cm, in place, and checks
 * each run against qsort.
 *   ./sort [cpu|cuda|auto] [examples-dir] */
#include "example.h"

enum { RUN = 32, RUNS = 1024, N = RUN * RUNS };

static int cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	cmetal_device *dev;
	cmetal_program *p = ex_build(argc, argv, "sort.cm", "", &dev);
	cmetal_kernel *k;
	TRY(cmetal_kernel_create(p, "sort32", &k));
	static uint32_t keys[N], want[N];
	uint32_t s = 12345;
	for (int i = 0; i < N; i++) {
		s = s * 1664525u + 1013904223u;
		keys[i] = want[i] = s >> (i % 7 ? 0 : 24);   /* some small, repeated keys */
	}
	for (int r = 0; r < RUNS; r++)
		qsort(want + r * RUN, RUN, sizeof want[0], cmp);
	cmetal_buffer *b;
	TRY(cmetal_buffer_create(dev, sizeof keys, &b));
	TRY(cmetal_buffer_write(b, 0, sizeof keys, keys));
	TRY(cmetal_kernel_set_arg_buffer(k, 0, b));
	cmetal_event *ev;
	TRY(cmetal_launch_walker(k, RUNS, 1, CMETAL_DEP_NONE, &ev));
	TRY(cmetal_event_wait(ev));
	TRY(cmetal_buffer_read(b, 0, sizeof keys, keys));
	int bad = memcmp(keys, want, sizeof keys) != 0;
	printf("sort on %s: %d runs of %d keys, %s\n", ex_device(dev), RUNS, RUN,
	       bad ? "WRONG" : "matches qsort");
	cmetal_event_release(ev);
	cmetal_buffer_release(b);
	cmetal_kernel_release(k);
	cmetal_program_release(p);
	cmetal_device_close(dev);
	return bad;
}
