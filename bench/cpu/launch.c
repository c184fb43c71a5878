/* launch.c — the CPU device's fixed costs: launches of an empty kernel per
 * second (1 group of 1 thread, and 1024 groups of 1 thread), and the time of
 * one group of T threads (T = 1..64) running a kernel with N barriers, beside
 * the same kernel without barriers (so the difference is the barrier and fiber
 * cost).  Prints "what,threads,ns" rows; the lower the better.
 * Build: make -C bench cpu-launch (links ../build/libcmetal.a).
 * Usage: launch [seconds per row, default 0.3] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cmetal.h"

static const char src[] =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void empty(SurfaceIndex o [[type(\"buffer_t\")]]) {}\n"
	"extern \"C\" _GENX_MAIN_ void bar(SurfaceIndex o [[type(\"buffer_t\")]], int n)\n"
	"{ for (int i = 0; i < n; i++) cm_barrier(); }\n"
	"extern \"C\" _GENX_MAIN_ void nobar(SurfaceIndex o [[type(\"buffer_t\")]], int n)\n"
	"{ vector<int, 8> x = n; if (n < 0) write(o, 0, x); }\n";

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, cm_status s)
{
	fprintf(stderr, "launch: %s: %s: %s\n", what, cmetal_status_name(s), cmetal_last_error());
	exit(1);
}

/* Nanoseconds per launch of k with g groups of t threads, best of 3. */
static double time_launch(cmetal_kernel *k, uint32_t g, uint32_t t, double secs)
{
	const uint32_t groups[3] = {g, 1, 1}, threads[3] = {t, 1, 1};
	double best = 1e30;
	for (int rep = 0; rep < 3; rep++) {
		long n = 0;
		double t0 = now(), t1;
		do {
			for (int i = 0; i < 16; i++, n++) {
				cm_status s = cmetal_launch_groups(k, groups, threads, NULL);
				if (s)
					die("launch", s);
			}
			t1 = now();
		} while (t1 - t0 < secs / 3);
		double ns = (t1 - t0) * 1e9 / n;
		best = ns < best ? ns : best;
	}
	return best;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.3;
	cmetal_device *dev;
	cmetal_program *p;
	cmetal_kernel *ke, *kb, *kn;
	cmetal_buffer *b;
	cm_status s;
	if ((s = cmetal_device_open("cpu", &dev)))
		die("device", s);
	if ((s = cmetal_program_build(dev, src, "", &p)))
		die("build", s);
	if ((s = cmetal_buffer_create(dev, 64, &b)))
		die("buffer", s);
	if ((s = cmetal_kernel_create(p, "empty", &ke)) || (s = cmetal_kernel_create(p, "bar", &kb)) ||
	    (s = cmetal_kernel_create(p, "nobar", &kn)))
		die("kernel", s);
	cmetal_kernel_set_arg_buffer(ke, 0, b);
	cmetal_kernel_set_arg_buffer(kb, 0, b);
	cmetal_kernel_set_arg_buffer(kn, 0, b);
	printf("what,threads,ns\n");
	printf("empty 1 group,1,%.0f\n", time_launch(ke, 1, 1, secs));
	printf("empty 1024 groups,1,%.0f\n", time_launch(ke, 1024, 1, secs));
	for (uint32_t t = 1; t <= 64; t *= 2) {
		for (int n = 0; n <= 16; n += 16) {
			cmetal_kernel_set_arg(kb, 1, sizeof n, &n);
			cmetal_kernel_set_arg(kn, 1, sizeof n, &n);
			/* 64 groups, so both workers have work */
			double nb = time_launch(kn, 64, t, secs), br = time_launch(kb, 64, t, secs);
			printf("64 groups no barrier n=%d,%u,%.0f\n", n, t, nb);
			printf("64 groups %d barriers,%u,%.0f\n", n, t, br);
		}
	}
	cmetal_kernel_release(ke);
	cmetal_kernel_release(kb);
	cmetal_kernel_release(kn);
	cmetal_buffer_release(b);
	cmetal_program_release(p);
	cmetal_device_close(dev);
	return 0;
}
