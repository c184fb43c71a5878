/* launch_overhead.c — the C side of test_overhead.py: the median time of
 * one launch of a one-thread kernel through the C API, in microseconds,
 * the arguments set before each launch as a caller would.
 *   launch_overhead DEVICE LAUNCHES   prints "us_per_launch N" */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cmetal.h"

static const char src[] =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void touch(SurfaceIndex b [[type(\"buffer_t\")]], int v)\n"
	"{\n"
	"	vector<int, 8> x = v;\n"
	"	write(b, 0, x);\n"
	"}\n";

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

#define TRY(call)                                                              \
	do {                                                                   \
		if ((call) != CM_SUCCESS) {                                    \
			fprintf(stderr, "%s: %s\n", #call, cmetal_last_error()); \
			return 1;                                              \
		}                                                              \
	} while (0)

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "cpu";
	int n = argc > 2 ? atoi(argv[2]) : 2000;
	cmetal_device *dev;
	cmetal_program *prog;
	cmetal_kernel *k;
	cmetal_buffer *buf;
	TRY(cmetal_device_open(name, &dev));
	TRY(cmetal_program_build(dev, src, "", &prog));
	TRY(cmetal_kernel_create(prog, "touch", &k));
	TRY(cmetal_buffer_create(dev, 64, &buf));
	/* batches of 100 launches; the median batch, per launch */
	enum { BATCH = 100 };
	int nb = n / BATCH < 5 ? 5 : n / BATCH;
	double *t = malloc(nb * sizeof *t);
	for (int b = -1; b < nb; b++) {  /* batch -1 warms up */
		double t0 = now_us();
		for (int i = 0; i < BATCH; i++) {
			TRY(cmetal_kernel_set_arg_buffer(k, 0, buf));
			TRY(cmetal_kernel_set_arg(k, 1, sizeof i, &i));
			TRY(cmetal_launch_walker(k, 1, 1, CMETAL_DEP_NONE, NULL));
		}
		if (b >= 0)
			t[b] = (now_us() - t0) / BATCH;
	}
	qsort(t, nb, sizeof *t, cmp);
	printf("us_per_launch %.3f\n", t[nb / 2]);
	cmetal_buffer_release(buf);
	cmetal_kernel_release(k);
	cmetal_program_release(prog);
	cmetal_device_close(dev);
	free(t);
	return 0;
}
