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
 *      (seed 001's refusal; merging is right when it is faster).
 * The kernels are tests/gpu/bench.cm and strided.cm.  Results are checked
 * before they are timed.  Output: "key: value" lines.  $BENCH_MB sets the
 * copy size (default 1024 MB); BENCH_ONLY=slm runs only 6 (BENCH_SLM_GROUPS
 * and BENCH_SLM_ITERS shrink it, e.g. for the simulator), BENCH_ONLY=pack
 * only 5 (BENCH_PACK_N, SIMD8 threads, a multiple of 2048, default 2^20,
 * and BENCH_PACK_ITERS, default 64, shrink it).
 * Usage: bench SRC_DIR [WORK_DIR]   (WORK_DIR receives strided.ptx) */
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
	if (only && (!strcmp(only, "slm") || !strcmp(only, "pack"))) {
		if (!strcmp(only, "slm"))
			slm_vectorize(dev, dir);
		else
			packing(dev, dir);
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
	cmetal_device_close(dev);
	return 0;
}
