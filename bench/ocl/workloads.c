/* workloads.c — one runner per workload for the SIMT OpenCL baselines.
 * Each runner makes fresh inputs with the shared generators, runs the
 * kernels once and checks the result against the C reference, then times
 * bench_reps() runs (median) with profiling events.  Inputs smaller than
 * 128 MB are replicated (bench_nrot) and the runs rotate over the copies so
 * that no run finds its input in a cache; inputs a kernel overwrites (sort,
 * GEMM's C) are restored by an untimed copy before each run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl.h"

#define IMPL "ocl-simt"

/* Runs `body` (enqueueing into Span sp, with `rot` the input copy to use)
 * bench_reps() times; ms gets the median span. */
#define TIME_SPANS(o, ms, nrot, body)                                         \
	do {                                                                  \
		int reps_ = bench_reps(), r_;                                 \
		double t_[100];                                               \
		for (r_ = 0; r_ < reps_; r_++) {                              \
			int rot = (r_ + 1) % (nrot);                          \
			Span sp = { 0 };                                      \
			(void)rot;                                            \
			body;                                                 \
			t_[r_] = span_ms((o), &sp);                           \
		}                                                             \
		ms = median(t_, reps_);                                       \
	} while (0)

static void emit(Ocl *o, const BenchCase *c, double ms, double work,
		 const char *unit, const char *err)
{
	if (err)
		printf("# FAIL %s %s %s: %s\n", c->workload, c->size, IMPL, err);
	csv_row(c, o->device, IMPL, ms, work, unit, err ? "FAIL" : "yes");
}

/* n copies of `bytes` of data made by gen(dst, bytes, seed + copy). */
static cl_mem rotated(Ocl *o, size_t bytes, int n, void *host,
		      void (*gen)(void *, size_t, uint64_t), uint64_t seed)
{
	cl_mem b = ocl_buf(o, bytes * n, NULL);
	int i;
	for (i = 0; i < n; i++) {
		gen(host, bytes, seed + i);
		CL_CHECK(clEnqueueWriteBuffer(o->q, b, CL_TRUE, bytes * i, bytes,
					      host, 0, NULL, NULL));
	}
	gen(host, bytes, seed);	/* leave copy 0 in host memory */
	return b;
}

static void gen_bytes(void *p, size_t n, uint64_t s) { gen_u8(p, n, s); }
static void gen_skew(void *p, size_t n, uint64_t s) { gen_u8_skewed(p, n, s); }
static void gen_fl(void *p, size_t n, uint64_t s) { gen_f32(p, n / 4, s); }
static void gen_in(void *p, size_t n, uint64_t s) { gen_i32(p, n / 4, s); }

/* A sub-buffer view of copy i of a rotated buffer. */
static cl_mem part(cl_mem b, size_t bytes, int i)
{
	cl_buffer_region r = { bytes * (size_t)i, bytes };
	cl_int err;
	cl_mem s = clCreateSubBuffer(b, CL_MEM_READ_WRITE,
				     CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
	CL_CHECK(err);
	return s;
}

void ocl_run_copy(Ocl *o, int full)
{
	static const BenchCase copy = { "copy", "256MB", 0, 0, { 0 } };
	size_t bytes = (size_t)(full ? 256 : 64) << 20, g = bytes / 16;
	cl_program p = ocl_build(o, "scan.cl", "-DT=uint");
	cl_kernel k = ocl_kernel(p, "copy");
	cl_mem a = ocl_buf(o, bytes, NULL), b = ocl_buf(o, bytes, NULL);
	BenchCase c = copy;
	double ms;
	c.size = full ? "256MB" : "64MB";
	ARG(k, 0, a), ARG(k, 1, b);
	ocl_launch(o, k, 1, &g, NULL, NULL);	/* warm-up: first touch */
	TIME_SPANS(o, ms, 1, ocl_launch(o, k, 1, &g, NULL, &sp));
	csv_row(&c, o->device, "ocl-copy", ms, 2.0 * bytes / 1e9, "GB/s", "yes");
	clReleaseMemObject(a), clReleaseMemObject(b);
	clReleaseKernel(k), clReleaseProgram(p);
}

static void run_linear(Ocl *o, const BenchCase *c)
{
	int w = (int)c->p[0], h = (int)c->p[1], nrot, i;
	size_t bytes = (size_t)w * h * 3, g[2] = { (size_t)w, (size_t)h };
	size_t l[2] = { 32, 8 };
	uint8_t *in = xmalloc(bytes), *out = xmalloc(bytes), *want = xmalloc(bytes);
	cl_program p = ocl_build(o, "linear.cl", NULL);
	cl_kernel k = ocl_kernel(p, "linear");
	cl_mem din, dout = ocl_buf(o, bytes, NULL), *parts;
	const char *unit, *err;
	double ms, work = case_work(c, &unit);
	nrot = bench_nrot(bytes);
	din = rotated(o, bytes, nrot, in, gen_bytes, SEED_LINEAR);
	parts = xmalloc(sizeof(cl_mem) * nrot);
	for (i = 0; i < nrot; i++)
		parts[i] = part(din, bytes, i);
	ARG(k, 0, parts[0]), ARG(k, 1, dout), ARG(k, 2, w), ARG(k, 3, h);
	ocl_launch(o, k, 2, g, l, NULL);
	ocl_read(o, dout, out, bytes);
	ref_linear(in, want, w, h);
	err = check_bytes(out, want, bytes);
	TIME_SPANS(o, ms, nrot, (ARG(k, 0, parts[rot]), ocl_launch(o, k, 2, g, l, &sp)));
	emit(o, c, ms, work, unit, err);
	for (i = 0; i < nrot; i++)
		clReleaseMemObject(parts[i]);
	clReleaseMemObject(din), clReleaseMemObject(dout);
	clReleaseKernel(k), clReleaseProgram(p);
	free(parts), free(in), free(out), free(want);
}

/* All (stage, pass) launches of the bitonic network over n keys. */
static void bitonic_all(Ocl *o, cl_kernel k, cl_mem a, size_t n, Span *sp)
{
	size_t half = n / 2, l = 256;
	cl_uint j, kk;
	ARG(k, 0, a);
	for (kk = 2; kk <= n; kk <<= 1)
		for (j = kk >> 1; j > 0; j >>= 1) {
			ARG(k, 1, j), ARG(k, 2, kk);
			ocl_launch(o, k, 1, &half, half >= l ? &l : NULL, sp);
		}
}

static void run_bitonic(Ocl *o, const BenchCase *c)
{
	size_t n = (size_t)1 << c->p[0];
	uint32_t *in = xmalloc(n * 4), *out = xmalloc(n * 4);
	cl_program p = ocl_build(o, "bitonic.cl", NULL);
	cl_kernel k = ocl_kernel(p, "bitonic_step");
	cl_mem src, a = ocl_buf(o, n * 4, NULL);
	const char *unit, *err;
	double ms, work = case_work(c, &unit);
	gen_u32(in, n, SEED_SORT);
	src = ocl_buf(o, n * 4, in);
	ocl_copy(o, src, a, n * 4);
	bitonic_all(o, k, a, n, NULL);
	ocl_read(o, a, out, n * 4);
	err = check_sorted(out, in, n);
	TIME_SPANS(o, ms, 1, (ocl_copy(o, src, a, n * 4), bitonic_all(o, k, a, n, &sp)));
	emit(o, c, ms, work, unit, err);
	clReleaseMemObject(src), clReleaseMemObject(a);
	clReleaseKernel(k), clReleaseProgram(p);
	free(in), free(out);
}

static void run_histogram(Ocl *o, const BenchCase *c)
{
	size_t n = (size_t)c->p[0], l = 256, g;
	cl_uint n4 = (cl_uint)(n / 4), zero = 0;
	uint8_t *in = xmalloc(n);
	uint32_t got[256], want[256];
	cl_program p = ocl_build(o, "histogram.cl", NULL);
	cl_kernel k = ocl_kernel(p, "histogram");
	cl_mem d, h = ocl_buf(o, 1024, NULL);
	const char *unit, *err;
	double ms, work = case_work(c, &unit);
	int nrot = bench_nrot(n), i;
	cl_mem *parts = xmalloc(sizeof(cl_mem) * nrot);
	d = rotated(o, n, nrot, in, c->p[1] ? gen_skew : gen_bytes, SEED_HIST);
	for (i = 0; i < nrot; i++)
		parts[i] = part(d, n, i);
	g = (size_t)o->units * 8 * l;
	if (g > round_up(n4, l))
		g = round_up(n4, l);
	ARG(k, 0, parts[0]), ARG(k, 1, n4), ARG(k, 2, h);
	CL_CHECK(clSetKernelArg(k, 3, 256 * sizeof(cl_uint), NULL));
	CL_CHECK(clEnqueueFillBuffer(o->q, h, &zero, 4, 0, 1024, 0, NULL, NULL));
	ocl_launch(o, k, 1, &g, &l, NULL);
	ocl_read(o, h, got, sizeof got);
	ref_histogram(in, n, want);
	err = check_hist(got, want);
	TIME_SPANS(o, ms, nrot, (
		CL_CHECK(clEnqueueFillBuffer(o->q, h, &zero, 4, 0, 1024, 0, NULL, NULL)),
		ARG(k, 0, parts[rot]), ocl_launch(o, k, 1, &g, &l, &sp)));
	emit(o, c, ms, work, unit, err);
	for (i = 0; i < nrot; i++)
		clReleaseMemObject(parts[i]);
	clReleaseMemObject(d), clReleaseMemObject(h);
	clReleaseKernel(k), clReleaseProgram(p);
	free(parts), free(in);
}

typedef struct Km {
	cl_kernel assign, accum, update;
	cl_mem pts, cent, member, changed, psum, pcount;
	int n, d, k, ngroups;
} Km;

/* Resets centroids (first K points) and memberships, untimed. */
static void km_reset(Ocl *o, Km *m)
{
	int minus1 = -1;
	ocl_copy(o, m->pts, m->cent, sizeof(float) * m->k * m->d);
	CL_CHECK(clEnqueueFillBuffer(o->q, m->member, &minus1, 4, 0,
				     sizeof(int) * m->n, 0, NULL, NULL));
}

/* Runs one iteration, or iterations until no membership changes (at most
 * 100); returns the number of iterations. */
static int km_iterate(Ocl *o, Km *m, int conv, Span *sp)
{
	size_t n = (size_t)m->n, l = 256, ga = (size_t)m->ngroups * l;
	size_t kd = (size_t)m->k * m->d;
	int iters = 0, changed = 1, zero = 0;
	while (changed && iters < 100) {
		CL_CHECK(clEnqueueFillBuffer(o->q, m->changed, &zero, 4, 0, 4,
					     0, NULL, NULL));
		ocl_launch(o, m->assign, 1, &n, &l, sp);
		ocl_launch(o, m->accum, 1, &ga, &l, sp);
		ocl_launch(o, m->update, 1, &kd, NULL, sp);
		iters++;
		if (!conv)
			break;
		ocl_read(o, m->changed, &changed, 4);
	}
	return iters;
}

static void run_kmeans(Ocl *o, const BenchCase *c)
{
	Km m = { .n = (int)c->p[0], .d = (int)c->p[1], .k = (int)c->p[2] };
	int conv = (int)c->p[3], iters, i;
	size_t np = (size_t)m.n * m.d;
	float *pts = xmalloc(np * 4), got[64 * 16], want[64 * 16];
	int *gmem = xmalloc(sizeof(int) * m.n), *wmem = xmalloc(sizeof(int) * m.n);
	char opts[64];
	cl_program p;
	const char *unit, *err;
	double ms, work = case_work(c, &unit);
	snprintf(opts, sizeof opts, "-DD=%d -DK=%d", m.d, m.k);
	p = ocl_build(o, "kmeans.cl", opts);
	m.assign = ocl_kernel(p, "km_assign");
	m.accum = ocl_kernel(p, "km_accum");
	m.update = ocl_kernel(p, "km_update");
	m.ngroups = (m.n + 4095) / 4096;
	gen_kmeans(pts, m.n, m.d, m.k, SEED_KMEANS);
	m.pts = ocl_buf(o, np * 4, pts);
	m.cent = ocl_buf(o, sizeof(float) * m.k * m.d, NULL);
	m.member = ocl_buf(o, sizeof(int) * m.n, NULL);
	m.changed = ocl_buf(o, 4, NULL);
	m.psum = ocl_buf(o, sizeof(float) * m.ngroups * m.k * m.d, NULL);
	m.pcount = ocl_buf(o, sizeof(int) * m.ngroups * m.k, NULL);
	ARG(m.assign, 0, m.pts), ARG(m.assign, 1, m.n), ARG(m.assign, 2, m.cent);
	ARG(m.assign, 3, m.member), ARG(m.assign, 4, m.changed);
	ARG(m.accum, 0, m.pts), ARG(m.accum, 1, m.n), ARG(m.accum, 2, m.member);
	ARG(m.accum, 3, m.psum), ARG(m.accum, 4, m.pcount);
	ARG(m.update, 0, m.psum), ARG(m.update, 1, m.pcount);
	ARG(m.update, 2, m.ngroups), ARG(m.update, 3, m.cent);
	km_reset(o, &m);
	iters = km_iterate(o, &m, conv, NULL);
	ocl_read(o, m.cent, got, sizeof(float) * m.k * m.d);
	ocl_read(o, m.member, gmem, sizeof(int) * m.n);
	memcpy(want, pts, sizeof(float) * m.k * m.d);
	for (i = 0; i < m.n; i++)
		wmem[i] = -1;
	bench_threads = 0;
	for (i = 0; ref_kmeans_step(pts, m.n, m.d, m.k, want, wmem) && conv && i < 99; i++)
		;
	err = check_kmeans(pts, m.n, m.d, m.k, got, gmem, want, wmem);
	TIME_SPANS(o, ms, 1, (km_reset(o, &m), iters = km_iterate(o, &m, conv, &sp)));
	if (conv)
		printf("# kmeans %s " IMPL ": %d iterations\n", c->size, iters);
	emit(o, c, ms, work * iters, unit, err);
	clReleaseMemObject(m.pts), clReleaseMemObject(m.cent);
	clReleaseMemObject(m.member), clReleaseMemObject(m.changed);
	clReleaseMemObject(m.psum), clReleaseMemObject(m.pcount);
	clReleaseKernel(m.assign), clReleaseKernel(m.accum);
	clReleaseKernel(m.update), clReleaseProgram(p);
	free(pts), free(gmem), free(wmem);
}

static void run_spmv(Ocl *o, const BenchCase *c)
{
	Csr m;
	float *x, *y, *want;
	size_t rows, l = 256;
	double ms, bytes;
	int nrot, i;
	cl_program p = ocl_build(o, "spmv.cl", NULL);
	cl_kernel k = ocl_kernel(p, "spmv");
	cl_mem (*bufs)[3], dx, dy;
	const char *err;
	spmv_gen(&m, (int)c->p[0], (int)c->p[1], SEED_SPMV);
	rows = (size_t)m.rows;
	x = xmalloc(sizeof(float) * m.cols), y = xmalloc(sizeof(float) * rows);
	want = xmalloc(sizeof(float) * rows);
	gen_f32(x, (size_t)m.cols, SEED_SPMV_X);
	bytes = (m.nnz * 8.0 + (m.rows + 1) * 4.0 + m.rows * 4.0 + m.cols * 4.0);
	nrot = bench_nrot((size_t)bytes);
	bufs = xmalloc(sizeof *bufs * nrot);
	for (i = 0; i < nrot; i++) {
		bufs[i][0] = ocl_buf(o, sizeof(int) * (rows + 1), m.rowptr);
		bufs[i][1] = ocl_buf(o, sizeof(int) * m.nnz, m.col);
		bufs[i][2] = ocl_buf(o, sizeof(float) * m.nnz, m.val);
	}
	dx = ocl_buf(o, sizeof(float) * m.cols, x);
	dy = ocl_buf(o, sizeof(float) * rows, NULL);
	printf("# spmv %s: %d rows, %ld nnz\n", c->size, m.rows, m.nnz);
	ARG(k, 0, m.rows), ARG(k, 1, bufs[0][0]), ARG(k, 2, bufs[0][1]);
	ARG(k, 3, bufs[0][2]), ARG(k, 4, dx), ARG(k, 5, dy);
	ocl_launch(o, k, 1, &rows, &l, NULL);
	ocl_read(o, dy, y, sizeof(float) * rows);
	err = check_spmv(&m, x, y, NULL);
	TIME_SPANS(o, ms, nrot, (ARG(k, 1, bufs[rot][0]), ARG(k, 2, bufs[rot][1]),
				 ARG(k, 3, bufs[rot][2]),
				 ocl_launch(o, k, 1, &rows, &l, &sp)));
	emit(o, c, ms, bytes / 1e9, "GB/s", err);
	for (i = 0; i < nrot; i++) {
		clReleaseMemObject(bufs[i][0]);
		clReleaseMemObject(bufs[i][1]);
		clReleaseMemObject(bufs[i][2]);
	}
	clReleaseMemObject(dx), clReleaseMemObject(dy);
	clReleaseKernel(k), clReleaseProgram(p);
	free(bufs), free(x), free(y), free(want), csr_free(&m);
}

static void run_transpose(Ocl *o, const BenchCase *c)
{
	int n = (int)c->p[0], nrot, i;
	size_t bytes = (size_t)n * n * 4, g[2] = { (size_t)n, (size_t)n / 4 };
	size_t l[2] = { 32, 8 };
	float *in = xmalloc(bytes), *out = xmalloc(bytes), *want = xmalloc(bytes);
	cl_program p = ocl_build(o, "transpose.cl", NULL);
	cl_kernel k = ocl_kernel(p, "transpose");
	cl_mem din, dout = ocl_buf(o, bytes, NULL), *parts;
	const char *unit, *err;
	double ms, work = case_work(c, &unit);
	nrot = bench_nrot(bytes);
	din = rotated(o, bytes, nrot, in, gen_fl, SEED_TRANSPOSE);
	parts = xmalloc(sizeof(cl_mem) * nrot);
	for (i = 0; i < nrot; i++)
		parts[i] = part(din, bytes, i);
	ARG(k, 0, parts[0]), ARG(k, 1, dout), ARG(k, 2, n);
	ocl_launch(o, k, 2, g, l, NULL);
	ocl_read(o, dout, out, bytes);
	ref_transpose(in, want, n);
	err = check_bytes(out, want, bytes);
	TIME_SPANS(o, ms, nrot, (ARG(k, 0, parts[rot]), ocl_launch(o, k, 2, g, l, &sp)));
	emit(o, c, ms, work, unit, err);
	for (i = 0; i < nrot; i++)
		clReleaseMemObject(parts[i]);
	clReleaseMemObject(din), clReleaseMemObject(dout);
	clReleaseKernel(k), clReleaseProgram(p);
	free(parts), free(in), free(out), free(want);
}

#define GEMM_RUN(T, opts, gen, check)                                         \
	{                                                                     \
		size_t nn = (size_t)n * n, g[2] = { (size_t)n / 4, (size_t)n / 4 }; \
		size_t l[2] = { 16, 16 };                                     \
		T *a = xmalloc(nn * sizeof(T)), *b = xmalloc(nn * sizeof(T));  \
		T *c0 = xmalloc(nn * sizeof(T)), *cc = xmalloc(nn * sizeof(T)); \
		T alpha = 1.5, beta = 0.5;                                    \
		cl_program p = ocl_build(o, "gemm.cl", opts);                 \
		cl_kernel k = ocl_kernel(p, "gemm");                          \
		cl_mem da, db, dc0, dc;                                       \
		gen(a, nn, SEED_GEMM_A), gen(b, nn, SEED_GEMM_B), gen(c0, nn, SEED_GEMM_C);           \
		da = ocl_buf(o, nn * sizeof(T), a);                           \
		db = ocl_buf(o, nn * sizeof(T), b);                           \
		dc0 = ocl_buf(o, nn * sizeof(T), c0);                         \
		dc = ocl_buf(o, nn * sizeof(T), c0);                          \
		ARG(k, 0, n), ARG(k, 1, alpha), ARG(k, 2, da), ARG(k, 3, db);  \
		ARG(k, 4, beta), ARG(k, 5, dc);                               \
		ocl_launch(o, k, 2, g, l, NULL);                              \
		ocl_read(o, dc, cc, nn * sizeof(T));                          \
		err = check(n, alpha, a, b, beta, c0, cc);                    \
		TIME_SPANS(o, ms, 1, (ocl_copy(o, dc0, dc, nn * sizeof(T)),   \
				      ocl_launch(o, k, 2, g, l, &sp)));       \
		clReleaseMemObject(da), clReleaseMemObject(db);               \
		clReleaseMemObject(dc0), clReleaseMemObject(dc);              \
		clReleaseKernel(k), clReleaseProgram(p);                      \
		free(a), free(b), free(c0), free(cc);                         \
	}

static void run_gemm(Ocl *o, const BenchCase *c)
{
	int n = (int)c->p[0];
	const char *unit, *err;
	double ms, work = case_work(c, &unit);
	if (c->p[1] == 16)	/* no OpenCL HGEMM port */
		return;
	if (c->p[1] == 32)
		GEMM_RUN(float, "-DREAL=float", gen_f32, check_sgemm)
	else
		GEMM_RUN(double, "-DREAL=double -DUSE_FP64", gen_f64, check_dgemm)
	emit(o, c, ms, work, unit, err);
}

/* The scan's kernels and the block-total buffers of every level. */
typedef struct Scan {
	cl_kernel block, add;
	cl_mem sums[8];
	size_t len[8];
	int levels;
} Scan;

/* Scans in[0..n) into out, recursing on the block totals. */
static void scan_level(Ocl *o, Scan *s, int lv, cl_mem in, cl_mem out,
		       size_t n, Span *sp)
{
	size_t l = 256, blocks = (n + 511) / 512, g = blocks * l;
	cl_uint nn = (cl_uint)n;
	ARG(s->block, 0, in), ARG(s->block, 1, out);
	ARG(s->block, 2, s->sums[lv]), ARG(s->block, 3, nn);
	ocl_launch(o, s->block, 1, &g, &l, sp);
	if (blocks == 1)
		return;
	scan_level(o, s, lv + 1, s->sums[lv], s->sums[lv], blocks, sp);
	ARG(s->add, 0, out), ARG(s->add, 1, s->sums[lv]), ARG(s->add, 2, nn);
	ocl_launch(o, s->add, 1, &g, &l, sp);
}

static void run_scan(Ocl *o, const BenchCase *c)
{
	size_t n = (size_t)1 << c->p[0], bytes = n * 4, m = n;
	int fl = (int)c->p[1], nrot = bench_nrot(bytes), i;
	void *in = xmalloc(bytes), *out = xmalloc(bytes), *want = xmalloc(bytes);
	cl_program p = ocl_build(o, "scan.cl", fl ? "-DT=float" : "-DT=uint");
	Scan s = { .block = ocl_kernel(p, "scan_block"), .add = ocl_kernel(p, "scan_add") };
	cl_mem din, dout = ocl_buf(o, bytes, NULL), *parts;
	const char *unit, *err;
	double ms, work = case_work(c, &unit);
	for (s.levels = 0; ; s.levels++) {
		m = (m + 511) / 512;
		s.sums[s.levels] = ocl_buf(o, m * 4 + 4, NULL);
		if (m == 1)
			break;
	}
	s.levels++;
	din = rotated(o, bytes, nrot, in, fl ? gen_fl : gen_in, SEED_SCAN);
	parts = xmalloc(sizeof(cl_mem) * nrot);
	for (i = 0; i < nrot; i++)
		parts[i] = part(din, bytes, i);
	scan_level(o, &s, 0, parts[0], dout, n, NULL);
	ocl_read(o, dout, out, bytes);
	if (fl) {
		err = check_scan_f32(in, out, n);
	} else {
		ref_scan_i32(in, want, n);
		err = check_bytes(out, want, bytes);
	}
	TIME_SPANS(o, ms, nrot, scan_level(o, &s, 0, parts[rot], dout, n, &sp));
	emit(o, c, ms, work, unit, err);
	for (i = 0; i < nrot; i++)
		clReleaseMemObject(parts[i]);
	for (i = 0; i < s.levels; i++)
		clReleaseMemObject(s.sums[i]);
	clReleaseMemObject(din), clReleaseMemObject(dout);
	clReleaseKernel(s.block), clReleaseKernel(s.add), clReleaseProgram(p);
	free(parts), free(in), free(out), free(want);
}

void ocl_run_case(Ocl *o, const BenchCase *c)
{
	const char *w = c->workload;
	if (!strcmp(w, "linear"))
		run_linear(o, c);
	else if (!strcmp(w, "bitonic"))
		run_bitonic(o, c);
	else if (!strcmp(w, "histogram"))
		run_histogram(o, c);
	else if (!strcmp(w, "kmeans"))
		run_kmeans(o, c);
	else if (!strcmp(w, "spmv"))
		run_spmv(o, c);
	else if (!strcmp(w, "transpose"))
		run_transpose(o, c);
	else if (strstr(w, "gemm"))
		run_gemm(o, c);
	else if (!strncmp(w, "scan", 4))
		run_scan(o, c);
}
