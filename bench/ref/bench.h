/* bench.h — the one header of the benchmark layer, shared by every harness
 * (plain C, OpenCL, CUDA, and later CM).  It holds the workload/size table,
 * the deterministic input generators, the C reference implementations (which
 * are also the "plain C" CPU baseline), the result checkers, and the timing
 * and CSV helpers.  Sections follow the file that implements them.
 *
 * Every harness prints CSV rows
 *     workload,size,device,impl,time_ms,throughput,unit,checked[,cpu_ms]
 * (cpu_ms, where measured: the process's CPU time, all its threads, of one
 * run, median; bench/README.md) and comment lines starting with '#' (device, driver, date, notes).
 * A case's (workload, size) pair is its identity across harnesses. */
#ifndef CMETAL_BENCH_H
#define CMETAL_BENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cases.c */
/* One benchmark case.  The meaning of p[] depends on the workload:
 *   linear     p0 = width, p1 = height                (RGB8 interleaved)
 *   bitonic    p0 = log2(keys)
 *   histogram  p0 = bytes, p1 = pattern (0 random, 1 one value + 1/16 noise)
 *   kmeans     p0 = points, p1 = D, p2 = K, p3 = mode (0 one iteration,
 *              1 to convergence)
 *   spmv       p0 = matrix (SPMV_PROTEIN, SPMV_ND24K, SPMV_WEBBASE),
 *              p1 = row divisor (1 = full size)
 *   transpose  p0 = n                                 (n x n fp32)
 *   gemm       p0 = n, p1 = 32 or 64                  (n^3, SGEMM or DGEMM)
 *              or 16: HGEMM, C += A B (A, B fp16, C fp32)
 *   scan       p0 = log2(n), p1 = 0 int32, 1 fp32     (inclusive) */
typedef struct BenchCase {
	const char *workload;
	const char *size;	/* label: the case's identity within a workload */
	int full;		/* 1: SIZE=full, 0: SIZE=small */
	int gpu_only;		/* too large for the CPU harnesses */
	long p[4];
} BenchCase;

extern const BenchCase bench_cases[];
extern const int bench_ncases;
/* Does case c pass the filters (NULL = any)?  workload may be a
 * comma-separated list; size is "small", "full" or "all". */
int bench_select(const BenchCase *c, const char *workloads, const char *size,
		 int on_gpu);

/* Seeds of each workload's inputs: every harness must use these so that all
 * implementations see the same data (copy i of a rotated input uses seed+i). */
enum {
	SEED_LINEAR = 100, SEED_SORT = 200, SEED_HIST = 300, SEED_KMEANS = 400,
	SEED_SPMV = 500, SEED_SPMV_X = 501, SEED_TRANSPOSE = 600,
	SEED_GEMM_A = 700, SEED_GEMM_B = 701, SEED_GEMM_C = 702, SEED_SCAN = 800,
};

/* util.c */
extern int bench_threads;	/* threads the reference may use (default nproc) */
double now_ms(void);
/* CPU time of the whole process (every thread, user + system), in ms:
 * what a run used of the cores, where now_ms() is what it took. */
double cpu_ms(void);
void *xmalloc(size_t n);	/* 64-aligned; dies on failure */
void bench_die(const char *fmt, ...);
double median(double *v, int n);	/* sorts v */
int bench_reps(void);		/* BENCH_REPS or 5 */
int bench_nrot(size_t bytes);	/* input copies to rotate through (1..8) */
const char *cpu_name(void);	/* from /proc/cpuinfo */
void csv_header(const char *device, const char *driver, const char *note);
void csv_row(const BenchCase *c, const char *device, const char *impl,
	     double ms, double work, const char *unit, const char *checked);
/* The same with the run's CPU time (cpu_ms(), median; < 0: not measured). */
void csv_row_cpu(const BenchCase *c, const char *device, const char *impl,
		 double ms, double cpu, double work, const char *unit,
		 const char *checked);
/* Throughput work units for a case: "GB/s" (bytes moved), "GFLOP/s",
 * "Mkeys/s", "Mpix/s", "Mpts/s"; returns the amount of work per run. */
double case_work(const BenchCase *c, const char **unit);
/* Runs fn(ctx, lo, hi) over [0, n) split across bench_threads threads. */
void par_for(long n, void (*fn)(void *ctx, long lo, long hi), void *ctx);

/* fp16 bit patterns <-> float (round to nearest even; util.c) */
uint16_t f32_to_f16(float f);
float f16_to_f32(uint16_t h);

/* gen.c */
/* xorshift64* seeded generators: the same seed gives the same data everywhere. */
typedef struct { uint64_t s; } Rng;
void rng_seed(Rng *r, uint64_t seed);
uint32_t rng_u32(Rng *r);
float rng_f01(Rng *r);		/* [0, 1) */
void gen_u8(uint8_t *p, size_t n, uint64_t seed);
void gen_u8_skewed(uint8_t *p, size_t n, uint64_t seed); /* 15/16 value 0x80 */
void gen_u32(uint32_t *p, size_t n, uint64_t seed);
void gen_i32(int32_t *p, size_t n, uint64_t seed);	/* [-1000, 1000] */
void gen_f32(float *p, size_t n, uint64_t seed);	/* [-1, 1) */
void gen_f64(double *p, size_t n, uint64_t seed);	/* [-1, 1) */
void gen_f16(uint16_t *p, size_t n, uint64_t seed);	/* [-1, 1) as fp16 bits */
/* k-means points clustered around K hidden centres, AoS [n][d]; initial
 * centroids are the first K points. */
void gen_kmeans(float *pts, long n, int d, int k, uint64_t seed);

/* spmv.c */
enum { SPMV_PROTEIN, SPMV_ND24K, SPMV_WEBBASE };
typedef struct Csr {
	int rows, cols;
	long nnz;
	int *rowptr;	/* rows + 1 */
	int *col;	/* nnz, sorted within a row */
	float *val;	/* nnz */
} Csr;
/* Deterministic matrices shaped like SuiteSparse Protein, nd24k and
 * webbase-1M; rows are divided by div for small runs. */
void spmv_gen(Csr *m, int kind, int div, uint64_t seed);
void csr_free(Csr *m);

/* ref.c — references, also the single-threaded plain C baseline. */
void ref_linear(const uint8_t *in, uint8_t *out, int w, int h);
void ref_sort_u32(uint32_t *a, size_t n);
void ref_histogram(const uint8_t *d, size_t n, uint32_t hist[256]);
/* One k-means step: assign every point to its nearest centroid (lowest index
 * on ties), then recompute the centroids (empty clusters keep theirs).
 * Returns how many memberships changed.  member may start as -1. */
long ref_kmeans_step(const float *pts, long n, int d, int k, float *cent,
		     int *member);
void ref_spmv(const Csr *m, const float *x, float *y);
void ref_transpose(const float *in, float *out, int n);
void ref_sgemm(int n, float alpha, const float *a, const float *b,
	       float beta, float *c);
void ref_dgemm(int n, double alpha, const double *a, const double *b,
	       double beta, double *c);
/* C += A B, A and B fp16, C float (products exact in float). */
void ref_hgemm(int n, const uint16_t *a, const uint16_t *b, float *c);
void ref_scan_i32(const int32_t *in, int32_t *out, size_t n);
void ref_scan_f32(const float *in, float *out, size_t n);

/* check.c — each returns NULL when the result is right, else a message
 * (static storage).  Tolerances are documented in bench/README.md. */
const char *check_bytes(const void *got, const void *want, size_t n);
const char *check_u8_tol(const uint8_t *got, const uint8_t *want, size_t n,
			 int tol);
const char *check_sorted(const uint32_t *got, const uint32_t *input,
			 size_t n);
const char *check_hist(const uint32_t *got, const uint32_t *want);
const char *check_kmeans(const float *pts, long n, int d, int k,
			 const float *got_cent, const int *got_member,
			 const float *want_cent, const int *want_member);
const char *check_spmv(const Csr *m, const float *x, const float *got,
		       const float *want);
const char *check_sgemm(int n, float alpha, const float *a, const float *b,
			float beta, const float *c0, const float *got);
const char *check_dgemm(int n, double alpha, const double *a,
			const double *b, double beta, const double *c0,
			const double *got);
const char *check_hgemm(int n, const uint16_t *a, const uint16_t *b,
			const float *c0, const float *got);
const char *check_scan_f32(const float *in, const float *got, size_t n);

#ifdef __cplusplus
}
#endif
#endif
