/* bench_cpu.c — `make bench-cpu`: the CPU back end against plain C.
 *
 * (a) saxpy, y = a * x + y, over 16M floats (64 MB per array), as a CM
 *     kernel on the cmetal CPU device (one CM thread per 1024 elements,
 *     16384 threads) and as the same loop in C built with -O3
 *     -march=native.  Both use every online core (or $CMETAL_CPU_THREADS):
 *     the device's worker pool and, for C, as many pthreads each taking a
 *     contiguous slice.  Results are checked before anything is timed;
 *     the figures are medians of REPS runs.
 * (b) building an unchanged program a second time (the cache hit).
 *
 *   ./bench_cpu [reps] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmetal.h"

enum { LEN = 1 << 24, CHUNK = 1024, THREADS = LEN / CHUNK };

static const char *source =
	"extern \"C\" _GENX_MAIN_ void saxpy(SurfaceIndex x, SurfaceIndex y, float a)\n"
	"{\n"
	"    uint base = get_thread_origin_x() * CHUNK * 4;\n"
	"    for (int i = 0; i < CHUNK * 4; i += 128) {\n"
	"        vector<float, 32> vx, vy;\n"
	"        read(x, base + i, vx);\n"
	"        read(y, base + i, vy);\n"
	"        write(y, base + i, a * vx + vy);\n"
	"    }\n"
	"}\n";

#define TRY(call)                                                              \
	do {                                                                   \
		cm_status s_ = (call);                                         \
		if (s_ != CM_SUCCESS) {                                        \
			fprintf(stderr, "%s failed (%s):\n%s\n", #call,        \
			        cmetal_status_name(s_), cmetal_last_error());  \
			exit(1);                                               \
		}                                                              \
	} while (0)

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- the C baseline: the loop, split over nthreads pthreads ---- */

typedef struct {
	const float *x;
	float *y;
	float a;
	size_t lo, hi;
} Slice;

static void saxpy_c(const float *restrict x, float *restrict y, float a, size_t lo, size_t hi)
{
	for (size_t i = lo; i < hi; i++)
		y[i] = a * x[i] + y[i];
}

static void *slice_run(void *p)
{
	Slice *s = p;
	saxpy_c(s->x, s->y, s->a, s->lo, s->hi);
	return NULL;
}

static void saxpy_threads(const float *x, float *y, float a, int nthreads)
{
	pthread_t th[256];
	Slice sl[256];
	for (int t = 0; t < nthreads; t++) {
		sl[t] = (Slice){x, y, a, (size_t)LEN * t / nthreads, (size_t)LEN * (t + 1) / nthreads};
		if (t)
			pthread_create(&th[t], NULL, slice_run, &sl[t]);
	}
	slice_run(&sl[0]);
	for (int t = 1; t < nthreads; t++)
		pthread_join(th[t], NULL);
}

static int thread_count(void)
{
	const char *env = getenv("CMETAL_CPU_THREADS");
	int n = env && *env ? atoi(env) : (int)sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : n;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 9;
	if (reps < 1 || reps > 100)
		reps = 9;
	int nthreads = thread_count();
	cmetal_device *dev;
	TRY(cmetal_device_open("cpu", &dev));
	const char *opts = "-DCHUNK=1024 -O2";
	cmetal_program *prog;
	double t0 = now_ms();
	TRY(cmetal_program_build(dev, source, opts, &prog));
	double first = now_ms() - t0;
	cmetal_kernel *k;
	TRY(cmetal_kernel_create(prog, "saxpy", &k));

	size_t bytes = (size_t)LEN * sizeof(float);
	float *x = malloc(bytes), *y = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
	if (!x || !y || !want || !got)
		return 1;
	const float a = 1.5f;
	for (size_t i = 0; i < LEN; i++) {
		x[i] = (float)(i % 1000) * 0.25f;
		y[i] = (float)(i % 777) - 100.0f;
		want[i] = a * x[i] + y[i];
	}
	cmetal_buffer *bx, *by;
	TRY(cmetal_buffer_create(dev, bytes, &bx));
	TRY(cmetal_buffer_create(dev, bytes, &by));
	TRY(cmetal_buffer_write(bx, 0, bytes, x));
	TRY(cmetal_buffer_write(by, 0, bytes, y));
	TRY(cmetal_kernel_set_arg_buffer(k, 0, bx));
	TRY(cmetal_kernel_set_arg_buffer(k, 1, by));
	TRY(cmetal_kernel_set_arg(k, 2, sizeof a, &a));

	/* check first: one launch of each, against the reference */
	cmetal_event *ev;
	TRY(cmetal_launch_walker(k, THREADS, 1, CMETAL_DEP_NONE, &ev));
	TRY(cmetal_event_wait(ev));
	cmetal_event_release(ev);
	TRY(cmetal_buffer_read(by, 0, bytes, got));
	float *yc = malloc(bytes);
	memcpy(yc, y, bytes);
	saxpy_threads(x, yc, a, nthreads);
	for (size_t i = 0; i < LEN; i++)
		if (got[i] != want[i] || yc[i] != want[i]) {
			fprintf(stderr, "saxpy: wrong result at %zu: cm %g, c %g, expected %g\n",
			        i, got[i], yc[i], want[i]);
			return 1;
		}

	/* then time: y keeps growing, which does not change the work */
	double cm[100], c[100];
	for (int r = 0; r < reps; r++) {
		TRY(cmetal_launch_walker(k, THREADS, 1, CMETAL_DEP_NONE, &ev));
		TRY(cmetal_event_wait(ev));
		TRY(cmetal_event_elapsed_ms(ev, &cm[r]));
		cmetal_event_release(ev);
		double s = now_ms();
		saxpy_threads(x, yc, a, nthreads);
		c[r] = now_ms() - s;
	}
	double mcm = median(cm, reps), mc = median(c, reps);
	double gb = 3.0 * bytes / 1e9;
	printf("bench-cpu (a) saxpy, %d floats (%zu MB per array), %d threads each, median of %d\n",
	       LEN, bytes >> 20, nthreads, reps);
	printf("  CM kernel on cmetal cpu (%d CM threads): %8.2f ms  %6.2f GB/s\n", THREADS, mcm,
	       gb / (mcm / 1e3));
	printf("  C loop, -O3 -march=native, pthreads:     %8.2f ms  %6.2f GB/s\n", mc,
	       gb / (mc / 1e3));
	printf("  ratio CM / C: %.2fx (target <= 1.1x, issue 15): %s\n", mcm / mc,
	       mcm / mc <= 1.1 ? "met" : "MISSED");

	/* (b) the same source and options again: a cache hit */
	double hit[100];
	for (int r = 0; r < reps; r++) {
		cmetal_program *p2;
		double s = now_ms();
		TRY(cmetal_program_build(dev, source, opts, &p2));
		hit[r] = now_ms() - s;
		cmetal_program_release(p2);
	}
	double mh = median(hit, reps);
	/* and from a freshly opened device: the on-disk cache ($CMETAL_CACHE_DIR) */
	double disk[100];
	for (int r = 0; r < reps; r++) {
		cmetal_device *d2;
		cmetal_program *p2;
		TRY(cmetal_device_open("cpu", &d2));
		double s = now_ms();
		TRY(cmetal_program_build(d2, source, opts, &p2));
		disk[r] = now_ms() - s;
		cmetal_program_release(p2);
		cmetal_device_close(d2);
	}
	double md = median(disk, reps);
	printf("bench-cpu (b) building an unchanged program again (first build %.1f ms), median of %d:\n"
	       "  same device: %.3f ms; fresh device, on-disk cache: %.3f ms (target < 5 ms): %s\n",
	       first, reps, mh, md, mh < 5 && md < 5 ? "met" : "MISSED");

	cmetal_buffer_release(bx);
	cmetal_buffer_release(by);
	cmetal_kernel_release(k);
	cmetal_program_release(prog);
	cmetal_device_close(dev);
	free(x), free(y), free(yc), free(want), free(got);
	return 0;
}
