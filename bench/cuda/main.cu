/* main.cu — cudabench: drivers for the vendor baselines and the CUDA SIMT
 * ports.  usage: cudabench [-w workloads] [-s small|full|all]
 * [-m all|vendor|simt].  See cubench.h for the driver contract. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubench.h"

static char device[320];
static const char *mode = "all";

void cuda_check(cudaError_t e, const char *file, int line, const char *what)
{
	if (e != cudaSuccess)
		bench_die("%s:%d: %s: %s", file, line, what, cudaGetErrorString(e));
}

/* Median over bench_reps() runs of body(rot), timed with events; prep(rot)
 * runs untimed before each. */
template <class Prep, class Body>
static double time_runs(int nrot, Prep prep, Body body)
{
	cudaEvent_t a, b;
	double t[100];
	int reps = bench_reps();
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int r = 0; r < reps; r++) {
		int rot = (r + 1) % nrot;
		float ms;
		prep(rot);
		CK(cudaEventRecord(a));
		body(rot);
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		t[r] = ms;
	}
	CK(cudaGetLastError());
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	return median(t, reps);
}

static void no_prep(int) {}

/* The implementations of workload w that the mode selects. */
static int impls_for(const char *w, const Impl **out)
{
	int n = 0;
	const Impl *tables[2] = { strcmp(mode, "simt") ? vendor_impls : NULL,
				  strcmp(mode, "vendor") ? simt_impls : NULL };
	for (int t = 0; t < 2; t++)
		for (const Impl *im = tables[t]; im && im->name; im++)
			if (!strcmp(im->workload, w))
				out[n++] = im;
	return n;
}

static void emit(const BenchCase *c, const Impl *im, double ms, double work,
		 const char *unit, const char *err)
{
	if (err)
		printf("# FAIL %s %s %s: %s\n", c->workload, c->size, im->name, err);
	csv_row(c, device, im->name, ms, work, unit, err ? "FAIL" : "yes");
}

template <class T> static T *dalloc(size_t n)
{
	T *p;
	CK(cudaMalloc(&p, n * sizeof(T) + 16));
	return p;
}

/* nrot device copies of n elements made by gen(host, n, seed + i); host is
 * left holding copy 0. */
template <class T>
static T *upload_rot(T *host, size_t n, int nrot,
		     void (*gen)(T *, size_t, uint64_t), uint64_t seed)
{
	T *d = dalloc<T>(n * nrot);
	for (int i = 0; i < nrot; i++) {
		gen(host, n, seed + i);
		CK(cudaMemcpy(d + n * i, host, n * sizeof(T), cudaMemcpyHostToDevice));
	}
	gen(host, n, seed);
	return d;
}

template <class T> static T *upload(const T *host, size_t n)
{
	T *d = dalloc<T>(n);
	CK(cudaMemcpy(d, host, n * sizeof(T), cudaMemcpyHostToDevice));
	return d;
}

template <class T> static void download(T *host, const T *d, size_t n)
{
	CK(cudaDeviceSynchronize());
	CK(cudaGetLastError());
	CK(cudaMemcpy(host, d, n * sizeof(T), cudaMemcpyDeviceToHost));
}

static void gen_skew(uint8_t *p, size_t n, uint64_t s) { gen_u8_skewed(p, n, s); }

/* Interior pixels of two RGB8 images agree within tol. */
static const char *check_interior(const uint8_t *got, const uint8_t *want,
				  int w, int h, int tol)
{
	for (int y = 1; y + 1 < h; y++) {
		size_t o = ((size_t)y * w + 1) * 3;
		const char *e = check_u8_tol(got + o, want + o, (size_t)(w - 2) * 3, tol);
		if (e)
			return e;
	}
	return NULL;
}

static void run_linear(const BenchCase *c, const Impl **im, int ni)
{
	int w = (int)c->p[0], h = (int)c->p[1];
	size_t bytes = (size_t)w * h * 3;
	int nrot = bench_nrot(bytes);
	uint8_t *in = (uint8_t *)xmalloc(bytes), *out = (uint8_t *)xmalloc(bytes);
	uint8_t *want = (uint8_t *)xmalloc(bytes);
	uint8_t *din = upload_rot(in, bytes, nrot, gen_u8, SEED_LINEAR);
	uint8_t *dout = dalloc<uint8_t>(bytes);
	const char *unit;
	double work = case_work(c, &unit);
	ref_linear(in, want, w, h);
	for (int i = 0; i < ni; i++) {
		LinearFn *fn = (LinearFn *)im[i]->fn;
		Scratch s = {};
		CK(cudaMemset(dout, 0, bytes));
		fn(din, dout, w, h, &s);
		download(out, dout, bytes);
		const char *err = im[i]->interior
			? check_interior(out, want, w, h, im[i]->tol)
			: check_bytes(out, want, bytes);
		double ms = time_runs(nrot, no_prep, [&](int r) {
			fn(din + bytes * r, dout, w, h, &s);
		});
		emit(c, im[i], ms, work, unit, err);
	}
	cudaFree(din), cudaFree(dout);
	free(in), free(out), free(want);
}

static void run_sort(const BenchCase *c, const Impl **im, int ni)
{
	size_t n = (size_t)1 << c->p[0];
	uint32_t *in = (uint32_t *)xmalloc(n * 4), *out = (uint32_t *)xmalloc(n * 4);
	uint32_t *src, *keys = dalloc<uint32_t>(n), *alt = dalloc<uint32_t>(n);
	const char *unit;
	double work = case_work(c, &unit);
	gen_u32(in, n, SEED_SORT);
	src = upload(in, n);
	for (int i = 0; i < ni; i++) {
		SortFn *fn = (SortFn *)im[i]->fn;
		Scratch s = {};
		CK(cudaMemcpy(keys, src, n * 4, cudaMemcpyDeviceToDevice));
		uint32_t *res = fn(keys, alt, n, &s);
		download(out, res, n);
		const char *err = check_sorted(out, in, n);
		double ms = time_runs(1, [&](int) {
			CK(cudaMemcpy(keys, src, n * 4, cudaMemcpyDeviceToDevice));
		}, [&](int) { fn(keys, alt, n, &s); });
		emit(c, im[i], ms, work, unit, err);
	}
	cudaFree(src), cudaFree(keys), cudaFree(alt);
	free(in), free(out);
}

static void run_histogram(const BenchCase *c, const Impl **im, int ni)
{
	size_t n = (size_t)c->p[0];
	int nrot = bench_nrot(n);
	uint8_t *in = (uint8_t *)xmalloc(n);
	uint8_t *din = upload_rot(in, n, nrot, c->p[1] ? gen_skew : gen_u8, SEED_HIST);
	uint32_t got[256], want[256], *dh = dalloc<uint32_t>(256);
	const char *unit;
	double work = case_work(c, &unit);
	ref_histogram(in, n, want);
	for (int i = 0; i < ni; i++) {
		HistFn *fn = (HistFn *)im[i]->fn;
		Scratch s = {};
		fn(din, n, dh, &s);
		download(got, dh, 256);
		const char *err = check_hist(got, want);
		double ms = time_runs(nrot, no_prep, [&](int r) {
			fn(din + n * r, n, dh, &s);
		});
		emit(c, im[i], ms, work, unit, err);
	}
	cudaFree(din), cudaFree(dh), free(in);
}

static void run_kmeans(const BenchCase *c, const Impl **im, int ni)
{
	int n = (int)c->p[0], d = (int)c->p[1], k = (int)c->p[2], conv = (int)c->p[3];
	size_t np = (size_t)n * d;
	float *pts = (float *)xmalloc(np * 4), got[64 * 16], want[64 * 16];
	int *gmem = (int *)xmalloc(sizeof(int) * n), *wmem = (int *)xmalloc(sizeof(int) * n);
	const char *unit;
	double work = case_work(c, &unit);
	gen_kmeans(pts, n, d, k, SEED_KMEANS);
	float *dpts = upload(pts, np), *dcent = dalloc<float>((size_t)k * d);
	int *dmem = dalloc<int>(n);
	memcpy(want, pts, sizeof(float) * k * d);
	for (int i = 0; i < n; i++)
		wmem[i] = -1;
	bench_threads = 0;
	for (int i = 0; ref_kmeans_step(pts, n, d, k, want, wmem) && conv && i < 99; i++)
		;
	auto reset = [&](int) {
		CK(cudaMemcpy(dcent, dpts, sizeof(float) * k * d, cudaMemcpyDeviceToDevice));
		CK(cudaMemset(dmem, 0xff, sizeof(int) * n));
	};
	for (int i = 0; i < ni; i++) {
		KmeansFn *fn = (KmeansFn *)im[i]->fn;
		Scratch s = {};
		int iters = 1;
		reset(0);
		fn(dpts, n, d, k, dcent, dmem, conv, &s);
		download(got, dcent, (size_t)k * d);
		download(gmem, dmem, (size_t)n);
		const char *err = check_kmeans(pts, n, d, k, got, gmem, want, wmem);
		double ms = time_runs(1, reset, [&](int) {
			iters = fn(dpts, n, d, k, dcent, dmem, conv, &s);
		});
		if (conv)
			printf("# kmeans %s %s: %d iterations\n", c->size, im[i]->name, iters);
		emit(c, im[i], ms, work * iters, unit, err);
	}
	cudaFree(dpts), cudaFree(dcent), cudaFree(dmem);
	free(pts), free(gmem), free(wmem);
}

static void run_spmv(const BenchCase *c, const Impl **im, int ni)
{
	Csr m;
	spmv_gen(&m, (int)c->p[0], (int)c->p[1], SEED_SPMV);
	float *x = (float *)xmalloc(sizeof(float) * m.cols);
	float *y = (float *)xmalloc(sizeof(float) * m.rows);
	gen_f32(x, (size_t)m.cols, SEED_SPMV_X);
	double bytes = m.nnz * 8.0 + (m.rows + 1) * 4.0 + m.rows * 4.0 + m.cols * 4.0;
	int nrot = bench_nrot((size_t)bytes);
	int **rp = (int **)xmalloc(sizeof(int *) * nrot), **cl = (int **)xmalloc(sizeof(int *) * nrot);
	float **va = (float **)xmalloc(sizeof(float *) * nrot);
	for (int r = 0; r < nrot; r++) {
		rp[r] = upload(m.rowptr, (size_t)m.rows + 1);
		cl[r] = upload(m.col, (size_t)m.nnz);
		va[r] = upload(m.val, (size_t)m.nnz);
	}
	float *dx = upload(x, (size_t)m.cols), *dy = dalloc<float>((size_t)m.rows);
	printf("# spmv %s: %d rows, %ld nnz\n", c->size, m.rows, m.nnz);
	for (int i = 0; i < ni; i++) {
		SpmvFn *fn = (SpmvFn *)im[i]->fn;
		Scratch s = {};
		fn(m.rows, m.cols, m.nnz, rp[0], cl[0], va[0], dx, dy, &s);
		download(y, dy, (size_t)m.rows);
		const char *err = check_spmv(&m, x, y, NULL);
		double ms = time_runs(nrot, no_prep, [&](int r) {
			fn(m.rows, m.cols, m.nnz, rp[r], cl[r], va[r], dx, dy, &s);
		});
		emit(c, im[i], ms, bytes / 1e9, "GB/s", err);
	}
	for (int r = 0; r < nrot; r++)
		cudaFree(rp[r]), cudaFree(cl[r]), cudaFree(va[r]);
	cudaFree(dx), cudaFree(dy);
	free(rp), free(cl), free(va), free(x), free(y), csr_free(&m);
}

static void run_transpose(const BenchCase *c, const Impl **im, int ni)
{
	int n = (int)c->p[0];
	size_t nn = (size_t)n * n;
	int nrot = bench_nrot(nn * 4);
	float *in = (float *)xmalloc(nn * 4), *out = (float *)xmalloc(nn * 4);
	float *want = (float *)xmalloc(nn * 4);
	float *din = upload_rot(in, nn, nrot, gen_f32, SEED_TRANSPOSE);
	float *dout = dalloc<float>(nn);
	const char *unit;
	double work = case_work(c, &unit);
	ref_transpose(in, want, n);
	for (int i = 0; i < ni; i++) {
		TransposeFn *fn = (TransposeFn *)im[i]->fn;
		Scratch s = {};
		fn(din, dout, n, &s);
		download(out, dout, nn);
		const char *err = check_bytes(out, want, nn * 4);
		double ms = time_runs(nrot, no_prep, [&](int r) {
			fn(din + nn * r, dout, n, &s);
		});
		emit(c, im[i], ms, work, unit, err);
	}
	cudaFree(din), cudaFree(dout);
	free(in), free(out), free(want);
}

template <class T, class Fn>
static void gemm_case(const BenchCase *c, const Impl **im, int ni,
		      void (*gen)(T *, size_t, uint64_t),
		      const char *(*check)(int, T, const T *, const T *, T,
					   const T *, const T *))
{
	int n = (int)c->p[0];
	size_t nn = (size_t)n * n;
	T *a = (T *)xmalloc(nn * sizeof(T)), *b = (T *)xmalloc(nn * sizeof(T));
	T *c0 = (T *)xmalloc(nn * sizeof(T)), *cc = (T *)xmalloc(nn * sizeof(T));
	T alpha = 1.5, beta = 0.5;
	const char *unit;
	double work = case_work(c, &unit);
	gen(a, nn, SEED_GEMM_A), gen(b, nn, SEED_GEMM_B), gen(c0, nn, SEED_GEMM_C);
	T *da = upload(a, nn), *db = upload(b, nn), *dc0 = upload(c0, nn);
	T *dc = dalloc<T>(nn);
	for (int i = 0; i < ni; i++) {
		Fn *fn = (Fn *)im[i]->fn;
		Scratch s = {};
		auto reset = [&](int) {
			CK(cudaMemcpy(dc, dc0, nn * sizeof(T), cudaMemcpyDeviceToDevice));
		};
		reset(0);
		fn(n, alpha, da, db, beta, dc, &s);
		download(cc, dc, nn);
		const char *err = check(n, alpha, a, b, beta, c0, cc);
		double ms = time_runs(1, reset, [&](int) { fn(n, alpha, da, db, beta, dc, &s); });
		emit(c, im[i], ms, work, unit, err);
	}
	cudaFree(da), cudaFree(db), cudaFree(dc0), cudaFree(dc);
	free(a), free(b), free(c0), free(cc);
}

/* C += A B, fp16 A and B, fp32 C (alpha = beta = 1). */
static void hgemm_case(const BenchCase *c, const Impl **im, int ni)
{
	int n = (int)c->p[0];
	size_t nn = (size_t)n * n;
	uint16_t *a = (uint16_t *)xmalloc(nn * 2), *b = (uint16_t *)xmalloc(nn * 2);
	float *c0 = (float *)xmalloc(nn * 4), *cc = (float *)xmalloc(nn * 4);
	const char *unit;
	double work = case_work(c, &unit);
	gen_f16(a, nn, SEED_GEMM_A), gen_f16(b, nn, SEED_GEMM_B), gen_f32(c0, nn, SEED_GEMM_C);
	uint16_t *da = upload(a, nn), *db = upload(b, nn);
	float *dc0 = upload(c0, nn), *dc = dalloc<float>(nn);
	for (int i = 0; i < ni; i++) {
		HgemmFn *fn = (HgemmFn *)im[i]->fn;
		Scratch s = {};
		auto reset = [&](int) {
			CK(cudaMemcpy(dc, dc0, nn * 4, cudaMemcpyDeviceToDevice));
		};
		reset(0);
		fn(n, da, db, dc, &s);
		download(cc, dc, nn);
		const char *err = check_hgemm(n, a, b, c0, cc);
		double ms = time_runs(1, reset, [&](int) { fn(n, da, db, dc, &s); });
		emit(c, im[i], ms, work, unit, err);
	}
	cudaFree(da), cudaFree(db), cudaFree(dc0), cudaFree(dc);
	free(a), free(b), free(c0), free(cc);
}

template <class T, class Fn>
static void scan_case(const BenchCase *c, const Impl **im, int ni,
		      void (*gen)(T *, size_t, uint64_t))
{
	size_t n = (size_t)1 << c->p[0];
	int nrot = bench_nrot(n * 4);
	T *in = (T *)xmalloc(n * 4), *out = (T *)xmalloc(n * 4), *want = (T *)xmalloc(n * 4);
	T *din = upload_rot(in, n, nrot, gen, SEED_SCAN), *dout = dalloc<T>(n);
	const char *unit;
	double work = case_work(c, &unit);
	if (c->p[1] == 0)
		ref_scan_i32((const int32_t *)in, (int32_t *)want, n);
	for (int i = 0; i < ni; i++) {
		Fn *fn = (Fn *)im[i]->fn;
		Scratch s = {};
		fn(din, dout, n, &s);
		download(out, dout, n);
		const char *err = c->p[1] ? check_scan_f32((const float *)in, (const float *)out, n)
					  : check_bytes(out, want, n * 4);
		double ms = time_runs(nrot, no_prep, [&](int r) { fn(din + n * r, dout, n, &s); });
		emit(c, im[i], ms, work, unit, err);
	}
	cudaFree(din), cudaFree(dout);
	free(in), free(out), free(want);
}

static void gen_i32_(int32_t *p, size_t n, uint64_t s) { gen_i32(p, n, s); }

static void run_case(const BenchCase *c)
{
	const Impl *im[16];
	int ni = impls_for(c->workload, im);
	const char *w = c->workload;
	if (!ni)
		return;
	if (!strcmp(w, "linear"))
		run_linear(c, im, ni);
	else if (!strcmp(w, "bitonic"))
		run_sort(c, im, ni);
	else if (!strcmp(w, "histogram"))
		run_histogram(c, im, ni);
	else if (!strcmp(w, "kmeans"))
		run_kmeans(c, im, ni);
	else if (!strcmp(w, "spmv"))
		run_spmv(c, im, ni);
	else if (!strcmp(w, "transpose"))
		run_transpose(c, im, ni);
	else if (!strcmp(w, "sgemm"))
		gemm_case<float, SgemmFn>(c, im, ni, gen_f32, check_sgemm);
	else if (!strcmp(w, "dgemm"))
		gemm_case<double, DgemmFn>(c, im, ni, gen_f64, check_dgemm);
	else if (!strcmp(w, "hgemm"))
		hgemm_case(c, im, ni);
	else if (!strcmp(w, "scan-i32"))
		scan_case<int32_t, ScanIFn>(c, im, ni, gen_i32_);
	else if (!strcmp(w, "scan-f32"))
		scan_case<float, ScanFFn>(c, im, ni, gen_f32);
}

int main(int argc, char **argv)
{
	const char *workloads = NULL, *size = "small";
	cudaDeviceProp prop;
	int drv = 0, rt = 0;
	char driver[200];
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-w"))
			workloads = argv[i + 1];
		else if (!strcmp(argv[i], "-s"))
			size = argv[i + 1];
		else if (!strcmp(argv[i], "-m"))
			mode = argv[i + 1];
		else
			bench_die("usage: cudabench [-w workloads] [-s small|full|all] [-m all|vendor|simt]");
	}
	CK(cudaGetDeviceProperties(&prop, 0));
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rt);
	snprintf(device, sizeof device, "gpu:%s", prop.name);
	snprintf(driver, sizeof driver, "CUDA driver API %d.%d, runtime %d.%d, sm_%d%d, %d SMs",
		 drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10,
		 prop.major, prop.minor, prop.multiProcessorCount);
	csv_header(device, driver, vendor_notes());
	if (strcmp(mode, "simt"))
		vendor_copy_peak(device, strcmp(size, "small") != 0);
	for (int i = 0; i < bench_ncases; i++)
		if (bench_select(&bench_cases[i], workloads, size, 1))
			run_case(&bench_cases[i]);
	return 0;
}
