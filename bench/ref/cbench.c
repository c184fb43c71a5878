/* cbench.c — the plain C CPU baseline: times the reference implementations
 * single-threaded (impl "c") on the selected cases, plus a memcpy bandwidth
 * row (workload "copy") that the report uses as the CPU's copy bandwidth.
 *   usage: cbench [-w workloads] [-s small|full|all]
 * Float results are checked by the independent double-precision checkers;
 * integer ones are the reference by definition (checked = "ref"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static char device[160];

/* Times body `reps` times (plus one warm-up), rotating over nrot inputs;
 * sets ms to the median time and cpu to the median CPU time (cpu_ms()).
 * UNTIMED(x), inside body, runs x outside both clocks (restoring inputs). */
#define TIME_REPS(ms, nrot, body)                                             \
	do {                                                                  \
		int reps_ = bench_reps(), r_;                                 \
		double t_[100], c_[100], t0_, c0_, u_, uc_;                   \
		for (r_ = -1; r_ < reps_; r_++) {                             \
			int rot = (r_ + 1) % (nrot);                          \
			t0_ = now_ms(), c0_ = cpu_ms();                       \
			(void)rot;                                            \
			body;                                                 \
			if (r_ >= 0)                                          \
				t_[r_] = now_ms() - t0_, c_[r_] = cpu_ms() - c0_; \
		}                                                             \
		(void)u_, (void)uc_;                                          \
		ms = median(t_, reps_);                                       \
		cpu = median(c_, reps_);                                      \
	} while (0)
#define UNTIMED(x) (u_ = now_ms(), uc_ = cpu_ms(), (x),                       \
		    t0_ += now_ms() - u_, c0_ += cpu_ms() - uc_)

static void emit(const BenchCase *c, double ms, double cpu, double work,
		 const char *unit, const char *err)
{
	if (err)
		printf("# FAIL %s %s: %s\n", c->workload, c->size, err);
	csv_row_cpu(c, device, "c", ms, cpu, work, unit, err ? "FAIL" : "ref");
}

static void run_copy(void)
{
	static const BenchCase copy = { "copy", "256MB", 0, 0, { 0 } };
	size_t n = 256u << 20;
	char *a = xmalloc(n), *b = xmalloc(n);
	double ms, cpu;
	memset(a, 1, n), memset(b, 2, n);
	TIME_REPS(ms, 1, memcpy(b, a, n));
	csv_row_cpu(&copy, device, "memcpy", ms, cpu, 2.0 * n / 1e9, "GB/s", "yes");
	free(a), free(b);
}

static void run_linear(const BenchCase *c)
{
	int w = (int)c->p[0], h = (int)c->p[1];
	size_t bytes = (size_t)w * h * 3;
	int nrot = bench_nrot(bytes), i;
	uint8_t *in = xmalloc(bytes * nrot), *out = xmalloc(bytes);
	const char *unit;
	double ms, cpu, work = case_work(c, &unit);
	for (i = 0; i < nrot; i++)
		gen_u8(in + bytes * i, bytes, SEED_LINEAR + i);
	TIME_REPS(ms, nrot, ref_linear(in + bytes * rot, out, w, h));
	emit(c, ms, cpu, work, unit, NULL);
	free(in), free(out);
}

static void run_sort(const BenchCase *c)
{
	size_t n = (size_t)1 << c->p[0];
	uint32_t *in = xmalloc(n * 4), *a = xmalloc(n * 4);
	const char *unit;
	double ms, cpu, work = case_work(c, &unit);
	gen_u32(in, n, SEED_SORT);
	TIME_REPS(ms, 1, (UNTIMED(memcpy(a, in, n * 4)), ref_sort_u32(a, n)));
	emit(c, ms, cpu, work, unit, check_sorted(a, in, n));
	free(in), free(a);
}

static void run_histogram(const BenchCase *c)
{
	size_t n = (size_t)c->p[0];
	uint8_t *d = xmalloc(n);
	uint32_t h[256];
	const char *unit;
	double ms, cpu, work = case_work(c, &unit);
	(c->p[1] ? gen_u8_skewed : gen_u8)(d, n, SEED_HIST);
	TIME_REPS(ms, 1, ref_histogram(d, n, h));
	emit(c, ms, cpu, work, unit, NULL);
	free(d);
}

/* Runs k-means from the first K points: one step, or until no membership
 * changes (at most 100 steps).  Returns the number of steps. */
static long km_run(const float *pts, long n, int d, int k, int conv,
		   float *cent, int *member)
{
	long i, iters = 1;
	memcpy(cent, pts, sizeof(float) * k * d);
	for (i = 0; i < n; i++)
		member[i] = -1;
	while (ref_kmeans_step(pts, n, d, k, cent, member) && conv && iters < 100)
		iters++;
	return iters;
}

static void run_kmeans(const BenchCase *c)
{
	long n = c->p[0], iters = 0;
	int d = (int)c->p[1], k = (int)c->p[2], conv = (int)c->p[3];
	float *pts = xmalloc(sizeof(float) * n * d), cent[64 * 16];
	int *member = xmalloc(sizeof(int) * n);
	const char *unit;
	double ms, cpu, work = case_work(c, &unit);
	gen_kmeans(pts, n, d, k, SEED_KMEANS);
	TIME_REPS(ms, 1, iters = km_run(pts, n, d, k, conv, cent, member));
	if (conv)
		printf("# kmeans %s: %ld iterations\n", c->size, iters);
	emit(c, ms, cpu, work * iters, unit, NULL);
	free(pts), free(member);
}

static void run_spmv(const BenchCase *c)
{
	Csr m;
	float *x, *y;
	double ms, cpu, bytes;
	spmv_gen(&m, (int)c->p[0], (int)c->p[1], SEED_SPMV);
	x = xmalloc(sizeof(float) * m.cols), y = xmalloc(sizeof(float) * m.rows);
	gen_f32(x, (size_t)m.cols, SEED_SPMV_X);
	bytes = (m.nnz * 8.0 + (m.rows + 1) * 4.0 + m.rows * 4.0 + m.cols * 4.0) / 1e9;
	printf("# spmv %s: %d rows, %ld nnz\n", c->size, m.rows, m.nnz);
	TIME_REPS(ms, 1, ref_spmv(&m, x, y));
	emit(c, ms, cpu, bytes, "GB/s", check_spmv(&m, x, y, NULL));
	free(x), free(y), csr_free(&m);
}

static void run_transpose(const BenchCase *c)
{
	int n = (int)c->p[0], nrot;
	size_t bytes = (size_t)n * n * 4;
	float *in, *out;
	const char *unit;
	double ms, cpu, work = case_work(c, &unit);
	nrot = bench_nrot(bytes);
	in = xmalloc(bytes * nrot), out = xmalloc(bytes);
	for (int i = 0; i < nrot; i++)
		gen_f32(in + (size_t)n * n * i, (size_t)n * n, SEED_TRANSPOSE + i);
	TIME_REPS(ms, nrot, ref_transpose(in + (size_t)n * n * rot, out, n));
	emit(c, ms, cpu, work, unit, NULL);
	free(in), free(out);
}

#define RUN_GEMM(T, gen, ref, check)                                          \
	{                                                                     \
		size_t nn = (size_t)n * n;                                    \
		T *a = xmalloc(nn * sizeof(T)), *b = xmalloc(nn * sizeof(T)); \
		T *c0 = xmalloc(nn * sizeof(T)), *cc = xmalloc(nn * sizeof(T)); \
		gen(a, nn, SEED_GEMM_A), gen(b, nn, SEED_GEMM_B), gen(c0, nn, SEED_GEMM_C);                \
		TIME_REPS(ms, 1, (UNTIMED(memcpy(cc, c0, nn * sizeof(T))),    \
				  ref(n, (T)1.5, a, b, (T)0.5, cc)));         \
		err = check(n, (T)1.5, a, b, (T)0.5, c0, cc);                 \
		free(a), free(b), free(c0), free(cc);                         \
	}

static void run_gemm(const BenchCase *c)
{
	int n = (int)c->p[0];
	const char *unit, *err;
	double ms, cpu, work = case_work(c, &unit);
	if (c->p[1] == 16) {
		size_t nn = (size_t)n * n;
		uint16_t *a = xmalloc(nn * 2), *b = xmalloc(nn * 2);
		float *c0 = xmalloc(nn * 4), *cc = xmalloc(nn * 4);
		gen_f16(a, nn, SEED_GEMM_A), gen_f16(b, nn, SEED_GEMM_B), gen_f32(c0, nn, SEED_GEMM_C);
		TIME_REPS(ms, 1, (UNTIMED(memcpy(cc, c0, nn * 4)), ref_hgemm(n, a, b, cc)));
		err = check_hgemm(n, a, b, c0, cc);
		free(a), free(b), free(c0), free(cc);
	} else if (c->p[1] == 32)
		RUN_GEMM(float, gen_f32, ref_sgemm, check_sgemm)
	else
		RUN_GEMM(double, gen_f64, ref_dgemm, check_dgemm)
	emit(c, ms, cpu, work, unit, err);
}

static void run_scan(const BenchCase *c)
{
	size_t n = (size_t)1 << c->p[0];
	void *in = xmalloc(n * 4), *out = xmalloc(n * 4);
	const char *unit, *err = NULL;
	double ms, cpu, work = case_work(c, &unit);
	if (c->p[1]) {
		gen_f32(in, n, SEED_SCAN);
		TIME_REPS(ms, 1, ref_scan_f32(in, out, n));
		err = check_scan_f32(in, out, n);
	} else {
		gen_i32(in, n, SEED_SCAN);
		TIME_REPS(ms, 1, ref_scan_i32(in, out, n));
	}
	emit(c, ms, cpu, work, unit, err);
	free(in), free(out);
}

static void run_case(const BenchCase *c)
{
	const char *w = c->workload;
	bench_threads = 1;
	if (!strcmp(w, "linear"))
		run_linear(c);
	else if (!strcmp(w, "bitonic"))
		run_sort(c);
	else if (!strcmp(w, "histogram"))
		run_histogram(c);
	else if (!strcmp(w, "kmeans"))
		run_kmeans(c);
	else if (!strcmp(w, "spmv"))
		run_spmv(c);
	else if (!strcmp(w, "transpose"))
		run_transpose(c);
	else if (strstr(w, "gemm"))
		run_gemm(c);
	else if (!strncmp(w, "scan", 4))
		run_scan(c);
}

int main(int argc, char **argv)
{
	const char *workloads = NULL, *size = "small";
	int i;
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-w"))
			workloads = argv[i + 1];
		else if (!strcmp(argv[i], "-s"))
			size = argv[i + 1];
		else
			bench_die("usage: cbench [-w workloads] [-s small|full|all]");
	}
	snprintf(device, sizeof device, "cpu:%s", cpu_name());
	csv_header(device, "plain C, gcc -O3 -march=native, 1 thread", NULL);
	run_copy();
	for (i = 0; i < bench_ncases; i++)
		if (bench_select(&bench_cases[i], workloads, size, 0))
			run_case(&bench_cases[i]);
	return 0;
}
