/* bench.c — GPU microbenchmarks of the CUDA device (run by run_all.sh):
 *   1. copy bandwidth: a CM copy kernel (OWord block reads/writes of 128 B
 *      per CM thread per step) vs. device-to-device cuMemcpyDtoD;
 *   2. a CM vector add (c = a + b, float);
 *   3. launch overhead: cmetal_task_run of a prepared one-entry task and
 *      cmetal_launch_groups vs. a bare cuLaunchKernel + cuStreamSynchronize
 *      of the same CUfunction with the same parameters (medians);
 *   4. the strided-select kernel: its "shuffles" annotation vs. shfl.sync
 *      counted in its PTX (and SASS, counted by run_all.sh with cuobjdump);
 *   5. warp packing: a SIMD8 and a SIMD16 kernel (pack.cm) built packed
 *      (default) and with -fno-warp-packing, the same outputs, and the
 *      speedup (targets: 3x for SIMD8, 1.7x for SIMD16);
 *   6. SLM access vectorization (slm.cm, ptx/slmvec.c): a GEMM-style tile
 *      read built by default (ld.shared.v4) and with -fno-slm-vectorize
 *      (target 1.15x), and a stencil read whose lanes overlap, merged by
 *      default, against the same built with -fno-slm-vectorize-overlap
 *      (seed 001's refusal; merging is right when it is faster);
 *   7. the group-size sweep (issue 11: auto-mapped launches within 10% of
 *      the best group size; bench/cm/sweep.c is the same for the bench
 *      workloads): every kernel of bench.cm, pack.cm and slm.cm that the
 *      runtime may regroup (copy, vadd, work8, work16) launched with
 *      threads {0, 0, 0} ("auto") and in groups of G = 1..32 CM threads
 *      along x (and work8/16 as the walker part 5 launches), each setting
 *      checked, then the median of event-timed runs: auto's group and time,
 *      the best G and its time, auto / best against 1.10; slm_tile and
 *      slm_stencil (SLM, barrier) must be refused, noop is launched as one
 *      CM thread (strided.cm too, not listed).  Sizes: 2^18 CM threads of
 *      1 KB for copy and vadd (256 MB a buffer), 2^20 and 2^19 for work8
 *      and work16 (32 MB), 32 steps; about 10-15 s, mostly the host's
 *      checks, so it is part of the default run.
 * The kernels are tests/gpu/bench.cm, pack.cm, slm.cm and strided.cm.
 * Results are checked before they are timed.  Output: "key: value" lines
 * (a wrong result of part 7: a "FAIL sweep_..." line).  $BENCH_MB sets the
 * copy size (default 1024 MB); BENCH_ONLY=slm runs only 6 (BENCH_SLM_GROUPS
 * and BENCH_SLM_ITERS shrink it, e.g. for the simulator), BENCH_ONLY=pack
 * only 5 (BENCH_PACK_N, SIMD8 threads, a multiple of 2048, default 2^20,
 * and BENCH_PACK_ITERS, default 64, shrink it), BENCH_ONLY=sweep only 7
 * (BENCH_SWEEP_N sets the CM threads of every swept launch, a test size
 * whose auto / best is not judged; BENCH_SWEEP_ITERS the steps of work8/16,
 * default 32, at most about 150 (their values grow 1.5x a step);
 * BENCH_SWEEP_REPS the timed runs, default 20; tests/gpu/run.sh runs it in
 * the simulator with BENCH_SWEEP_N=100).
 * Usage: bench SRC_DIR [WORK_DIR]   (WORK_DIR receives strided.ptx) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt/cuda/cuda.h"

#define MUSTB(call)                                                                  \
	do {                                                                         \
		cm_status s_ = (call);                                               \
		if (s_) {                                                            \
			printf("error: %s:%d %s: %s\n", __FILE__, __LINE__, #call,   \
			       cmetal_last_error());                                 \
			exit(1);                                                     \
		}                                                                    \
	} while (0)

#define STEPS 8            /* 128-byte blocks per CM thread in copy */
#define WARPS 8            /* CM threads per group */

/* Builds SRC_DIR/name into a program. */
static cmetal_program *build(cmetal_device *dev, const char *dir, const char *name,
                             const char *opts)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	char *src = read_file(path, NULL);
	if (!src) {
		printf("error: cannot read %s\n", path);
		exit(1);
	}
	cmetal_program *p;
	MUSTB(cmetal_program_build(dev, src, opts, &p));
	free(src);
	return p;
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[n / 2];
}

/* Median microseconds of task runs (each one synchronizes). */
static double time_task(cmetal_task *t, int reps)
{
	double *v = malloc(sizeof *v * (size_t)reps);
	for (int i = 0; i < reps; i++) {
		double t0 = now_us();
		MUSTB(cmetal_task_run(t, NULL));
		v[i] = now_us() - t0;
	}
	double m = median(v, reps);
	free(v);
	return m;
}

static CudaKernel *internals(cmetal_kernel *k)
{
	cmetal_kernel *ko = rt_object_of(k);    /* handles are not pointers */
	CudaProgram *cp = ko->prog->priv;
	return &cp->ks[ko->index];
}

/* 1 + 2: bandwidth of the CM copy and vector add vs. cuMemcpyDtoD. */
static void bandwidth(cmetal_device *dev, cmetal_program *p, size_t bytes)
{
	CudaDevice *c = ((cmetal_device *)rt_object_of(dev))->priv;
	const CuDriver *cu = c->cu;
	cmetal_buffer *a, *b, *out;
	MUSTB(cmetal_buffer_create(dev, bytes, &a));
	MUSTB(cmetal_buffer_create(dev, bytes, &b));
	MUSTB(cmetal_buffer_create(dev, bytes, &out));
	float *h = malloc(bytes);
	for (size_t i = 0; i < bytes / 4; i++)
		h[i] = (float)(i % 1000);
	MUSTB(cmetal_buffer_write(a, 0, bytes, h));
	MUSTB(cmetal_buffer_write(b, 0, bytes, h));

	cmetal_kernel *copy, *vadd;
	MUSTB(cmetal_kernel_create(p, "copy", &copy));
	MUSTB(cmetal_kernel_create(p, "vadd", &vadd));
	MUSTB(cmetal_kernel_set_arg_buffer(copy, 0, a));
	MUSTB(cmetal_kernel_set_arg_buffer(copy, 1, out));
	uint32_t threads = (uint32_t)(bytes / (128 * STEPS));
	uint32_t groups[3] = {threads / WARPS, 1, 1}, local[3] = {WARPS, 1, 1};
	cmetal_task *t;
	MUSTB(cmetal_task_create(dev, &t));
	MUSTB(cmetal_task_add_groups(t, copy, groups, local));
	MUSTB(cmetal_task_run(t, NULL));
	float *back = malloc(bytes);
	MUSTB(cmetal_buffer_read(out, 0, bytes, back));
	printf("copy_correct: %s\n", memcmp(back, h, bytes) ? "NO" : "yes");
	double us = time_task(t, 20);
	printf("cm_copy_GBps: %.1f\n", 2.0 * (double)bytes / us / 1e3);
	cmetal_task_release(t);

	double *v = malloc(sizeof *v * 20);
	for (int i = 0; i < 20; i++) {
		double t0 = now_us();
		cu->MemcpyDtoD(((RtMem *)rt_object_of(out))->addr, ((RtMem *)rt_object_of(a))->addr,
		               bytes);
		cu->CtxSynchronize();
		v[i] = now_us() - t0;
	}
	double dtod = median(v, 20);
	printf("cuMemcpyDtoD_GBps: %.1f\n", 2.0 * (double)bytes / dtod / 1e3);
	printf("cm_copy_vs_DtoD: %.2f\n", dtod / us);
	free(v);

	MUSTB(cmetal_kernel_set_arg_buffer(vadd, 0, a));
	MUSTB(cmetal_kernel_set_arg_buffer(vadd, 1, b));
	MUSTB(cmetal_kernel_set_arg_buffer(vadd, 2, out));
	groups[0] = (uint32_t)(bytes / (128 * STEPS) / WARPS);
	MUSTB(cmetal_task_create(dev, &t));
	MUSTB(cmetal_task_add_groups(t, vadd, groups, local));
	MUSTB(cmetal_task_run(t, NULL));
	MUSTB(cmetal_buffer_read(out, 0, bytes, back));
	size_t bad = 0;
	for (size_t i = 0; i < bytes / 4; i++)
		bad += back[i] != 2 * h[i];
	printf("vadd_correct: %s\n", bad ? "NO" : "yes");
	us = time_task(t, 20);
	printf("cm_vadd_GBps: %.1f\n", 3.0 * (double)bytes / us / 1e3);
	printf("cm_vadd_vs_DtoD: %.2f\n", (3.0 / 2.0) * dtod / us);
	cmetal_task_release(t);
	free(back);
	free(h);
	cmetal_kernel_release(copy);
	cmetal_kernel_release(vadd);
	cmetal_buffer_release(a);
	cmetal_buffer_release(b);
	cmetal_buffer_release(out);
}

/* 3: launch overhead, cmetal vs. a bare cuLaunchKernel of the same code. */
static void overhead(cmetal_device *dev, cmetal_program *p, int reps)
{
	CudaDevice *c = ((cmetal_device *)rt_object_of(dev))->priv;
	const CuDriver *cu = c->cu;
	cmetal_kernel *k;
	cmetal_buffer *b;
	int val = 1;
	MUSTB(cmetal_kernel_create(p, "noop", &k));
	MUSTB(cmetal_buffer_create(dev, 256, &b));
	MUSTB(cmetal_kernel_set_arg_buffer(k, 0, b));
	MUSTB(cmetal_kernel_set_arg(k, 1, sizeof val, &val));
	uint32_t one[3] = {1, 1, 1};
	cmetal_task *t;
	MUSTB(cmetal_task_create(dev, &t));
	MUSTB(cmetal_task_add_groups(t, k, one, one));
	time_task(t, 200);  /* warm up; uploads the launch block */
	double task_us = time_task(t, reps);

	double *v = malloc(sizeof *v * (size_t)reps);
	for (int i = 0; i < reps; i++) {
		double t0 = now_us();
		MUSTB(cmetal_launch_groups(k, one, one, NULL));
		v[i] = now_us() - t0;
	}
	double launch_us = median(v, reps);

	CudaKernel *ck = internals(k);
	/* the parameters the last launch passed (rt/cuda_abi.h "Kernel entry") */
	CudaLaunchParam lp = ck->lparam;
	CudaSurfaceParam sp = ck->sparams[0];
	void *params[] = {&lp, &sp, &val};
	for (int i = 0; i < reps + 200; i++) {
		double t0 = now_us();
		if (cu->LaunchKernel(ck->fn, 1, 1, 1, 32, 1, 1, 0, c->stream, params, NULL)) {
			fprintf(stderr, "bench: the bare cuLaunchKernel of noop failed\n");
			exit(1);
		}
		cu->StreamSynchronize(c->stream);
		if (i >= 200)
			v[i - 200] = now_us() - t0;
	}
	double bare_us = median(v, reps);
	printf("bare_launch_sync_us: %.2f\n", bare_us);
	printf("cmetal_task_run_us: %.2f\n", task_us);
	printf("cmetal_launch_groups_us: %.2f\n", launch_us);
	printf("overhead_task_run_us: %.2f (limit 2.00: %s)\n", task_us - bare_us,
	       task_us - bare_us <= 2.0 ? "ok" : "OVER");
	printf("overhead_launch_groups_us: %.2f\n", launch_us - bare_us);
	free(v);
	cmetal_task_release(t);
	cmetal_buffer_release(b);
	cmetal_kernel_release(k);
}

/* 4: the strided select: result, annotation, PTX shuffle count. */
static void strided(cmetal_device *dev, const char *dir, const char *work)
{
	cmetal_program *p = build(dev, dir, "strided.cm", "");
	cmetal_kernel *k;
	cmetal_buffer *in, *out;
	uint32_t h[64], back[32];
	for (int i = 0; i < 64; i++)
		h[i] = 100u + (uint32_t)i;
	MUSTB(cmetal_kernel_create(p, "strided", &k));
	MUSTB(cmetal_buffer_create(dev, sizeof h, &in));
	MUSTB(cmetal_buffer_create(dev, sizeof back, &out));
	MUSTB(cmetal_buffer_write(in, 0, sizeof h, h));
	MUSTB(cmetal_kernel_set_arg_buffer(k, 0, in));
	MUSTB(cmetal_kernel_set_arg_buffer(k, 1, out));
	MUSTB(cmetal_launch_groups(k, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){1, 1, 1}, NULL));
	MUSTB(cmetal_buffer_read(out, 0, sizeof back, back));
	int bad = 0;
	for (int i = 0; i < 32; i++)
		bad += back[i] != h[2 * i];
	printf("strided_correct: %s\n", bad ? "NO" : "yes");
	const char *ptx = ((CudaProgram *)((cmetal_program *)rt_object_of(p))->priv)->ptx;
	int annotated = -1, counted = 0;
	const char *m = strstr(ptx, " shuffles ");
	if (m)
		annotated = atoi(m + 10);
	for (const char *s = ptx; (s = strstr(s, "shfl.sync")); s++)
		counted++;
	printf("strided_shuffles_annotated: %d\n", annotated);
	printf("strided_shuffles_in_ptx: %d (%s)\n", counted,
	       counted == annotated ? "matches" : "DIFFERS");
	if (work) {
		char path[1024];
		snprintf(path, sizeof path, "%s/strided.ptx", work);
		FILE *f = fopen(path, "w");
		if (f) {
			fputs(ptx, f);
			fclose(f);
		}
	}
	cmetal_buffer_release(in);
	cmetal_buffer_release(out);
	cmetal_kernel_release(k);
	cmetal_program_release(p);
}

/* Median microseconds of kernel name of program p (arguments: an input
 * buffer of bytes from in, an output buffer as large, iters), launched as a
 * walker of walk[0] x walk[1] threads or, with walk NULL, as groups[0]
 * groups of threads[0] CM threads; its output into back. */
static double time_kernel(cmetal_device *dev, cmetal_program *p, const char *name,
                          size_t bytes, int iters, const float *in, float *back,
                          const uint32_t *walk, uint32_t groups, uint32_t threads)
{
	cmetal_kernel *k;
	cmetal_buffer *a, *o;
	MUSTB(cmetal_kernel_create(p, name, &k));
	MUSTB(cmetal_buffer_create(dev, bytes, &a));
	MUSTB(cmetal_buffer_create(dev, bytes, &o));
	MUSTB(cmetal_buffer_write(a, 0, bytes, in));
	MUSTB(cmetal_kernel_set_arg_buffer(k, 0, a));
	MUSTB(cmetal_kernel_set_arg_buffer(k, 1, o));
	MUSTB(cmetal_kernel_set_arg(k, 2, sizeof iters, &iters));
	cmetal_task *t;
	MUSTB(cmetal_task_create(dev, &t));
	if (walk)
		MUSTB(cmetal_task_add_walker(t, k, walk[0], walk[1], CMETAL_DEP_NONE));
	else
		MUSTB(cmetal_task_add_groups(t, k, (uint32_t[3]){groups, 1, 1},
		                             (uint32_t[3]){threads, 1, 1}));
	MUSTB(cmetal_task_run(t, NULL));
	MUSTB(cmetal_buffer_read(o, 0, bytes, back));
	double us = time_task(t, 20);
	cmetal_task_release(t);
	cmetal_buffer_release(a);
	cmetal_buffer_release(o);
	cmetal_kernel_release(k);
	return us;
}

/* time_kernel over n CM threads of w floats each (a thread space of 1024 x
 * n / 1024). */
static double time_work(cmetal_device *dev, cmetal_program *p, const char *name, int w,
                        uint32_t n, int iters, const float *in, float *back)
{
	return time_kernel(dev, p, name, (size_t)n * (size_t)w * 4, iters, in, back,
	                   (uint32_t[2]){1024, n / 1024}, 0, 0);
}

/* 5: packed vs one CM thread per warp, SIMD8 and SIMD16. */
static void packing(cmetal_device *dev, const char *dir)
{
	const char *ne = getenv("BENCH_PACK_N"), *ie = getenv("BENCH_PACK_ITERS");
	uint32_t N = ne ? (uint32_t)atoi(ne) / 2048 * 2048 : 1u << 20;
	int ITERS = ie ? atoi(ie) : 64;
	if (!N)
		N = 2048;
	cmetal_program *pk = build(dev, dir, "pack.cm", "");
	cmetal_program *un = build(dev, dir, "pack.cm", "-fno-warp-packing");
	float *in = malloc(sizeof(float) * N * 16), *x = malloc(sizeof(float) * N * 16);
	float *y = malloc(sizeof(float) * N * 16);
	for (size_t i = 0; i < (size_t)N * 16; i++)
		in[i] = (float)(i % 1000) * 0.001f;
	static const struct { const char *name; int w; double target; } ks[] = {
		{"work8", 8, 3.0}, {"work16", 16, 1.7}};
	for (int k = 0; k < 2; k++) {
		int w = ks[k].w;
		uint32_t n = (uint32_t)(N * 8 / w);   /* the same floats for both */
		double tp = time_work(dev, pk, ks[k].name, w, n, ITERS, in, x);
		double tu = time_work(dev, un, ks[k].name, w, n, ITERS, in, y);
		bool same = !memcmp(x, y, sizeof(float) * (size_t)n * (size_t)w);
		printf("pack_simd%d_correct: %s\n", w, same ? "yes (packed == unpacked)" : "NO");
		printf("pack_simd%d_us: packed %.1f, one per warp %.1f\n", w, tp, tu);
		printf("pack_simd%d_speedup: %.2f (target %.1f: %s)\n", w, tu / tp, ks[k].target,
		       tu / tp >= ks[k].target ? "ok" : "BELOW");
	}
	free(in);
	free(x);
	free(y);
	cmetal_program_release(pk);
	cmetal_program_release(un);
}

/* time_kernel over groups x 4 CM threads, 4096 floats of in per group. */
static double time_slm(cmetal_device *dev, cmetal_program *p, const char *name,
                       uint32_t groups, int iters, const float *in, float *back)
{
	return time_kernel(dev, p, name, (size_t)groups * 4096 * 4, iters, in, back, NULL,
	                   groups, 4);
}

/* 6: SLM reads merged into ld.shared.v4, and an overlapping read merged
 * against seed 001's refusal. */
static void slm_vectorize(cmetal_device *dev, const char *dir)
{
	const char *ge = getenv("BENCH_SLM_GROUPS"), *ie = getenv("BENCH_SLM_ITERS");
	uint32_t groups = ge ? (uint32_t)atoi(ge) : 2048;
	int iters = ie ? atoi(ie) : 512;
	cmetal_program *vec = build(dev, dir, "slm.cm", "");
	cmetal_program *sca = build(dev, dir, "slm.cm", "-fno-slm-vectorize");
	cmetal_program *ovl = build(dev, dir, "slm.cm", "-fno-slm-vectorize-overlap");
	size_t n = (size_t)groups * 4096;
	float *in = malloc(sizeof(float) * n), *x = malloc(sizeof(float) * n);
	float *y = malloc(sizeof(float) * n), *z = malloc(sizeof(float) * n);
	for (size_t i = 0; i < n; i++)
		in[i] = (float)(i % 997) * 0.001f;
	/* the tile: vectorized against scalar */
	double tv = time_slm(dev, vec, "slm_tile", groups, iters, in, x);
	double ts = time_slm(dev, sca, "slm_tile", groups, iters, in, y);
	bool same = !memcmp(x, y, sizeof(float) * n);
	printf("slm_tile_correct: %s\n", same ? "yes (v4 == scalar)" : "NO");
	printf("slm_tile_us: v4 %.1f, scalar %.1f\n", tv, ts);
	printf("slm_tile_speedup: %.2f (target 1.15: %s)\n", ts / tv,
	       same && ts / tv >= 1.15 ? "ok" : "BELOW");
	/* the stencil: merged (the default) against refused (seed 001's rule)
	 * and scalar */
	double rf = time_slm(dev, vec, "slm_stencil", groups, iters, in, x);
	double rr = time_slm(dev, ovl, "slm_stencil", groups, iters, in, y);
	time_slm(dev, sca, "slm_stencil", groups, 1, in, z);   /* warm the scalar build */
	double rs = time_slm(dev, sca, "slm_stencil", groups, iters, in, z);
	same = !memcmp(x, y, sizeof(float) * n) && !memcmp(x, z, sizeof(float) * n);
	printf("slm_stencil_correct: %s\n", same ? "yes (merged v2 == refused == scalar)" : "NO");
	printf("slm_stencil_us: merged v2 %.1f, refused %.1f, -fno-slm-vectorize %.1f\n", rf, rr,
	       rs);
	printf("slm_stencil_speedup: %.2f (merging the overlap is right when > 1.00: %s)\n",
	       rr / rf, rr / rf > 1.0 ? "yes" : "NO");
	free(in);
	free(x);
	free(y);
	free(z);
	cmetal_program_release(vec);
	cmetal_program_release(sca);
	cmetal_program_release(ovl);
}

/* 7: the group-size sweep (issue 11: auto-mapped launches within 10% of
 * the best group size).  Each kernel of bench.cm, pack.cm and slm.cm that
 * the runtime may regroup (no SLM, no barrier: probed as
 * bench/cm/common.c's cmb_regroupable does) runs over n CM threads along x
 * with threads {0, 0, 0} ("auto": rows of cmetal_kernel_occupancy's
 * auto_group), in groups of G = 1..32 CM threads, and as it is launched
 * today where that is a walker; auto runs first (printed as auto0, the
 * warm-up) and last (the one compared), as in bench/cm/sweep.c.  Each
 * setting's output buffer is filled with 0xff, the setting runs once and
 * is checked (a wrong result is a FAIL line and leaves the setting out of
 * the best), then timed: the median of reps event-timed runs. */

#define SWEEP_G 32         /* groups of 1..SWEEP_G CM threads */

typedef struct {
	const char *name;      /* the kernel */
	cmetal_kernel *k;      /* its arguments set */
	uint32_t n;            /* CM threads of a launch, along x */
	uint32_t walk;         /* launched today as a walker of walk x n / walk; 0: in
	                          groups of today CM threads */
	uint32_t today;        /* (walk 0) today's group, one of the G swept */
	cmetal_buffer *out;    /* the output, bytes long, filled before each check */
	size_t bytes;
	const float *want;
	float tol;             /* relative; 0: want's bytes exactly */
	float *back;
	int wrong;             /* settings with a wrong result */
} Sweep;

/* Whether sw's output in back is want's (tol 0: the same bytes; else
 * each float within tol of it, relative); a FAIL line for setting what
 * otherwise. */
static bool sweep_check(const Sweep *sw, const char *what)
{
	size_t n = sw->bytes / 4, bad = 0, first = 0;
	if (!sw->tol && !memcmp(sw->back, sw->want, sw->bytes))
		return true;
	for (size_t i = 0; i < n; i++) {
		float w = sw->want[i], g = sw->back[i];
		bool ok = sw->tol ? g == w || fabsf(g - w) <= sw->tol * fabsf(w) + 1e-30f
		                  : !memcmp(&g, &w, 4);
		if (!ok && !bad++)
			first = i;
	}
	if (!bad)
		return true;
	printf("FAIL sweep_%s %s: %zu of %zu floats wrong (float %zu: %g, expected %g)\n",
	       sw->name, what, bad, n, first, (double)sw->back[first], (double)sw->want[first]);
	return false;
}

/* Median milliseconds of reps event-timed runs of t. */
static double time_events(cmetal_task *t, int reps)
{
	double *v = malloc(sizeof *v * (size_t)reps);
	for (int i = 0; i < reps; i++) {
		cmetal_event *ev;
		MUSTB(cmetal_task_run(t, &ev));
		MUSTB(cmetal_event_wait(ev));
		MUSTB(cmetal_event_elapsed_ms(ev, &v[i]));
		cmetal_event_release(ev);
	}
	double m = median(v, reps);
	free(v);
	return m;
}

/* One setting of sw: g 0 auto, 1..SWEEP_G groups of g, -1 the walker;
 * checked, then timed: milliseconds, or -1 (a FAIL line printed). */
static double sweep_setting(cmetal_device *dev, Sweep *sw, int g, int reps)
{
	char what[32];
	if (g > 0)
		snprintf(what, sizeof what, "G %d", g);
	else
		snprintf(what, sizeof what, "%s", g ? "walker" : "auto");
	cmetal_task *t;
	MUSTB(cmetal_task_create(dev, &t));
	cm_status s;
	if (g < 0)
		s = cmetal_task_add_walker(t, sw->k, sw->walk, sw->n / sw->walk, CMETAL_DEP_NONE);
	else if (g == 0)
		s = cmetal_task_add_groups(t, sw->k, (uint32_t[3]){sw->n, 1, 1},
		                           (uint32_t[3]){0, 0, 0});
	else
		s = cmetal_task_add_groups(t, sw->k, (uint32_t[3]){(sw->n + g - 1) / g, 1, 1},
		                           (uint32_t[3]){(uint32_t)g, 1, 1});
	CudaDevice *c = ((cmetal_device *)rt_object_of(dev))->priv;
	if (c->cu->MemsetD8(((RtMem *)rt_object_of(sw->out))->addr, 0xff, sw->bytes) ||
	    c->cu->CtxSynchronize()) {
		printf("error: cuMemsetD8 of %s's output failed\n", sw->name);
		exit(1);
	}
	if (!s)
		s = cmetal_task_run(t, NULL);
	if (!s)
		s = cmetal_buffer_read(sw->out, 0, sw->bytes, sw->back);
	double ms = -1;
	if (s)
		printf("FAIL sweep_%s %s: %s\n", sw->name, what, cmetal_last_error());
	else if (sweep_check(sw, what))
		ms = time_events(t, reps);
	sw->wrong += ms < 0;
	cmetal_task_release(t);
	return ms;
}

/* Warps per SM of sw's kernel in groups of g CM threads. */
static uint32_t sweep_warps(const Sweep *sw, uint32_t g)
{
	cmetal_occupancy oc;
	MUSTB(cmetal_kernel_occupancy(sw->k, g, &oc));
	return oc.warps_per_sm;
}

/* ms as printed: "%.4f" with unit after it, or "FAIL" for a setting that
 * failed. */
static const char *ms_text(double ms, const char *unit, char buf[24])
{
	if (ms < 0)
		return "FAIL";
	snprintf(buf, 24, "%.4f%s", ms, unit);
	return buf;
}

/* Sweeps sw and prints its lines; 1 if auto is within 1.10 of the best
 * G, else 0. */
static int sweep_kernel(cmetal_device *dev, Sweep *sw, int reps, bool judged)
{
	double ms[SWEEP_G + 1], first, walker = -1;
	first = sweep_setting(dev, sw, 0, reps);
	for (int g = 1; g <= SWEEP_G; g++)
		ms[g] = sweep_setting(dev, sw, g, reps);
	if (sw->walk)
		walker = sweep_setting(dev, sw, -1, reps);
	ms[0] = sweep_setting(dev, sw, 0, reps);
	cmetal_occupancy oc;
	MUSTB(cmetal_kernel_occupancy(sw->k, 1, &oc));
	uint32_t ag = oc.auto_group < sw->n ? oc.auto_group : sw->n;
	int best = 0;
	for (int g = 1; g <= SWEEP_G; g++)
		if (ms[g] > 0 && (!best || ms[g] < ms[best]))
			best = g;
	double ratio = best && ms[0] > 0 ? ms[0] / ms[best] : -1;
	bool ok = ratio > 0 && ratio <= 1.10;
	char b1[24], b2[24];
	printf("sweep_%s: n %u, auto G %u (%u warps/SM) %s, ", sw->name, sw->n, ag,
	       sweep_warps(sw, ag), ms_text(ms[0], " ms", b1));
	if (best)
		printf("best G %d (%u warps/SM) %s, ", best, sweep_warps(sw, (uint32_t)best),
		       ms_text(ms[best], " ms", b2));
	else
		printf("best G none, ");
	if (ratio > 0)
		printf("auto/best %.3f", ratio);
	else
		printf("auto/best -");
	printf(" (target 1.10: %s)", ratio < 0 ? "FAIL" : !judged ? "not judged at a test size"
	                                                  : ok ? "ok" : "OVER");
	if (sw->walk)
		printf(", today (walker) %s", ms_text(walker, " ms", b1));
	else if (sw->today)
		printf(", today (G %u) %s", sw->today, ms_text(ms[sw->today], " ms", b1));
	printf("\n");
	if (judged && ms[0] > 0 && ms[0] < 0.05)
		printf("sweep_%s_note: auto took under 50 us: launch overhead may decide\n",
		       sw->name);
	printf("sweep_%s_ms: auto0:%s", sw->name, ms_text(first, "", b1));
	for (int g = 1; g <= SWEEP_G; g++)
		printf(" %d:%s", g, ms_text(ms[g], "", b1));
	printf(" auto:%s\n", ms_text(ms[0], "", b1));
	return ok;
}

/* Whether the runtime lets k's launches be grouped by it: a probe launch
 * with threads {0, 0, 0} in a task of its own (bench/cm/common.c's
 * cmb_regroupable); refused: 0 and its message in why, any other error
 * exits. */
static bool regroupable(cmetal_device *dev, cmetal_kernel *k, char *why, size_t len)
{
	cmetal_task *t;
	MUSTB(cmetal_task_create(dev, &t));
	cm_status s = cmetal_task_add_groups(t, k, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){0, 0, 0});
	if (s && s != CM_INVALID_THREAD_SPACE) {
		printf("error: the probe launch of a kernel failed: %s\n", cmetal_last_error());
		exit(1);
	}
	if (s)
		snprintf(why, len, "%s", cmetal_last_error());
	cmetal_task_release(t);
	return !s;
}

typedef struct {
	int swept, within, failed;  /* kernels; within 1.10; FAIL lines */
	char refused[128], single[64];
} SweepTally;

/* Sweeps sw if its kernel may be regrouped, else reports the refusal. */
static void sweep_one(cmetal_device *dev, Sweep *sw, int reps, bool judged, SweepTally *st)
{
	char why[512];
	if (!regroupable(dev, sw->k, why, sizeof why)) {
		printf("FAIL sweep_%s: the runtime refuses threads {0, 0, 0}: %s\n", sw->name, why);
		st->failed++;
		return;
	}
	st->swept++;
	st->within += sweep_kernel(dev, sw, reps, judged);
	st->failed += sw->wrong;
}

/* A kernel the runtime must refuse to regroup (it uses SLM or a barrier). */
static void sweep_refused(cmetal_device *dev, cmetal_program *p, const char *name,
                          SweepTally *st)
{
	char why[512];
	cmetal_kernel *k;
	MUSTB(cmetal_kernel_create(p, name, &k));
	if (regroupable(dev, k, why, sizeof why)) {
		printf("FAIL sweep_%s: it uses SLM or a barrier, but the runtime accepts threads "
		       "{0, 0, 0}\n", name);
		st->failed++;
	} else {
		printf("sweep_%s: refused by the runtime, as it must be (%s)\n", name, why);
		snprintf(st->refused + strlen(st->refused), sizeof st->refused - strlen(st->refused),
		         " %s", name);
	}
	cmetal_kernel_release(k);
}

/* pack.cm's WORK(w) on the host: iters steps of v = v * 0.999 + s * 0.5,
 * s the odd elements of v then its even ones, for n CM threads of w floats. */
static void work_ref(const float *in, float *out, uint32_t n, int w, int iters)
{
	for (size_t t = 0; t < n; t++) {
		float v[16], s[16];
		memcpy(v, in + t * (size_t)w, sizeof(float) * (size_t)w);
		for (int it = 0; it < iters; it++) {
			for (int i = 0; i < w / 2; i++) {
				s[i] = v[2 * i + 1];
				s[w / 2 + i] = v[2 * i];
			}
			for (int i = 0; i < w; i++)
				v[i] = v[i] * 0.999f + s[i] * 0.5f;
		}
		memcpy(out + t * (size_t)w, v, sizeof(float) * (size_t)w);
	}
}

/* copy and vadd (bench.cm) over n CM threads of STEPS x 32 floats, launched
 * today in groups of WARPS. */
static void sweep_bench_cm(cmetal_device *dev, const char *dir, uint32_t n, int reps,
                           bool judged, SweepTally *st)
{
	char opts[64];
	snprintf(opts, sizeof opts, "-DSTEPS=%d", STEPS);
	cmetal_program *p = build(dev, dir, "bench.cm", opts);
	size_t bytes = (size_t)n * 128 * STEPS, nf = bytes / 4;
	float *a = malloc(bytes), *b = malloc(bytes), *sum = malloc(bytes), *back = malloc(bytes);
	for (size_t i = 0; i < nf; i++) {
		a[i] = (float)(i % 1000);
		b[i] = (float)(i % 777) * 0.5f;
		sum[i] = a[i] + b[i];
	}
	cmetal_buffer *ba, *bb, *bo;
	MUSTB(cmetal_buffer_create(dev, bytes, &ba));
	MUSTB(cmetal_buffer_create(dev, bytes, &bb));
	MUSTB(cmetal_buffer_create(dev, bytes, &bo));
	MUSTB(cmetal_buffer_write(ba, 0, bytes, a));
	MUSTB(cmetal_buffer_write(bb, 0, bytes, b));
	cmetal_kernel *copy, *vadd;
	MUSTB(cmetal_kernel_create(p, "copy", &copy));
	MUSTB(cmetal_kernel_set_arg_buffer(copy, 0, ba));
	MUSTB(cmetal_kernel_set_arg_buffer(copy, 1, bo));
	Sweep sw = {"copy", copy, n, 0, WARPS, bo, bytes, a, 0, back, 0};
	sweep_one(dev, &sw, reps, judged, st);
	MUSTB(cmetal_kernel_create(p, "vadd", &vadd));
	MUSTB(cmetal_kernel_set_arg_buffer(vadd, 0, ba));
	MUSTB(cmetal_kernel_set_arg_buffer(vadd, 1, bb));
	MUSTB(cmetal_kernel_set_arg_buffer(vadd, 2, bo));
	sw = (Sweep){"vadd", vadd, n, 0, WARPS, bo, bytes, sum, 0, back, 0};
	sweep_one(dev, &sw, reps, judged, st);
	/* noop is launched as one CM thread (part 3): nothing to group */
	cmetal_kernel *noop;
	char why[512];
	MUSTB(cmetal_kernel_create(p, "noop", &noop));
	MUSTB(cmetal_kernel_set_arg_buffer(noop, 0, bo));
	MUSTB(cmetal_kernel_set_arg(noop, 1, sizeof(int), &(int){1}));
	bool rg = regroupable(dev, noop, why, sizeof why);
	printf("sweep_noop: not swept: launched as one CM thread (part 3, launch overhead), "
	       "whose only group is 1 (regroupable: %s)\n", rg ? "yes" : why);
	snprintf(st->single, sizeof st->single, " noop");
	cmetal_kernel_release(noop);
	cmetal_kernel_release(copy);
	cmetal_kernel_release(vadd);
	cmetal_buffer_release(ba);
	cmetal_buffer_release(bb);
	cmetal_buffer_release(bo);
	free(a);
	free(b);
	free(sum);
	free(back);
	cmetal_program_release(p);
}

/* work8 and work16 (pack.cm, packed as built by default) over n8 and n16
 * CM threads, launched today as walkers 1024 wide. */
static void sweep_pack_cm(cmetal_device *dev, const char *dir, uint32_t n8, uint32_t n16,
                          int iters, int reps, bool judged, SweepTally *st)
{
	cmetal_program *p = build(dev, dir, "pack.cm", "");
	static const struct { const char *name; int w; } ks[] = {{"work8", 8}, {"work16", 16}};
	for (int i = 0; i < 2; i++) {
		uint32_t n = ks[i].w == 8 ? n8 : n16;
		size_t nf = (size_t)n * (size_t)ks[i].w, bytes = nf * 4;
		float *in = malloc(bytes), *want = malloc(bytes), *back = malloc(bytes);
		for (size_t j = 0; j < nf; j++)
			in[j] = (float)(j % 1000) * 0.001f;
		work_ref(in, want, n, ks[i].w, iters);
		cmetal_buffer *a, *o;
		cmetal_kernel *k;
		MUSTB(cmetal_buffer_create(dev, bytes, &a));
		MUSTB(cmetal_buffer_create(dev, bytes, &o));
		MUSTB(cmetal_buffer_write(a, 0, bytes, in));
		MUSTB(cmetal_kernel_create(p, ks[i].name, &k));
		MUSTB(cmetal_kernel_set_arg_buffer(k, 0, a));
		MUSTB(cmetal_kernel_set_arg_buffer(k, 1, o));
		MUSTB(cmetal_kernel_set_arg(k, 2, sizeof iters, &iters));
		/* today's walker: 1024 x n / 1024 (one row where n is not a multiple) */
		uint32_t walk = n % 1024 == 0 ? 1024 : n <= 65535 ? n : 0;
		Sweep sw = {ks[i].name, k, n, walk, 0, o, bytes, want, 1e-4f, back, 0};
		sweep_one(dev, &sw, reps, judged, st);
		cmetal_kernel_release(k);
		cmetal_buffer_release(a);
		cmetal_buffer_release(o);
		free(in);
		free(want);
		free(back);
	}
	cmetal_program_release(p);
}

/* 7 itself: bench.cm's kernels, pack.cm's, then slm.cm's refusals, and the
 * summary line. */
static void group_sweep(cmetal_device *dev, const char *dir)
{
	const char *ne = getenv("BENCH_SWEEP_N"), *ie = getenv("BENCH_SWEEP_ITERS");
	const char *re = getenv("BENCH_SWEEP_REPS");
	uint32_t n = ne ? (uint32_t)atoi(ne) : 0;
	int iters = ie ? atoi(ie) : 32, reps = re ? atoi(re) : 20;
	bool judged = !n;
	if (reps < 1)
		reps = 1;
	printf("sweep: threads {0, 0, 0} (auto) against groups of G = 1..%d CM threads along x; "
	       "each setting checked, then the median of %d event-timed runs%s\n", SWEEP_G, reps,
	       judged ? "" : " (BENCH_SWEEP_N: a test size, auto/best not judged)");
	SweepTally st = {0};
	sweep_bench_cm(dev, dir, n ? n : 1u << 18, reps, judged, &st);
	sweep_pack_cm(dev, dir, n ? n : 1u << 20, n ? n : 1u << 19, iters, reps, judged, &st);
	cmetal_program *p = build(dev, dir, "slm.cm", "");
	sweep_refused(dev, p, "slm_tile", &st);
	sweep_refused(dev, p, "slm_stencil", &st);
	cmetal_program_release(p);
	if (judged)
		printf("sweep_summary: %d swept, %d within 1.10 of the best G (%s), ", st.swept,
		       st.within, st.failed ? "FAIL" : st.within == st.swept ? "ok" : "OVER");
	else
		printf("sweep_summary: %d swept (auto/best not judged at a test size), ", st.swept);
	printf("%d failed; refused (SLM or a barrier):%s; one CM thread:%s\n", st.failed,
	       st.refused, st.single);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/gpu";
	cmetal_device *dev;
	MUSTB(cmetal_device_open("cuda", &dev));
	const char *name;
	MUSTB(cmetal_device_name(dev, &name));
	CudaDevice *c = ((cmetal_device *)rt_object_of(dev))->priv;
	time_t now = time(NULL);
	printf("device: %s\n", name);
	printf("driver_version: %d.%d\n", c->cu->version / 1000, c->cu->version % 1000 / 10);
	printf("date: %s", ctime(&now));
	const char *only = getenv("BENCH_ONLY");
	if (only && (!strcmp(only, "slm") || !strcmp(only, "pack") || !strcmp(only, "sweep"))) {
		if (!strcmp(only, "slm"))
			slm_vectorize(dev, dir);
		else if (!strcmp(only, "pack"))
			packing(dev, dir);
		else
			group_sweep(dev, dir);
		cmetal_device_close(dev);
		return 0;
	}
	char opts[64];
	snprintf(opts, sizeof opts, "-DSTEPS=%d", STEPS);
	double t0 = now_us();
	cmetal_program *p = build(dev, dir, "bench.cm", opts);
	printf("build_ms: %.1f\n", (now_us() - t0) / 1e3);
	const char *size = getenv("BENCH_MB");
	size_t mb = size ? (size_t)atoi(size) : 1024;
	bandwidth(dev, p, mb << 20);
	overhead(dev, p, 2000);
	cmetal_program_release(p);
	strided(dev, dir, argc > 2 ? argv[2] : NULL);
	packing(dev, dir);
	slm_vectorize(dev, dir);
	group_sweep(dev, dir);
	cmetal_device_close(dev);
	return 0;
}
