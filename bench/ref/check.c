/* check.c — result checkers.  Integer results are compared bit for bit;
 * floating-point results against a double-precision recomputation with a
 * bound relative to the sum of magnitudes of the terms (so that any
 * summation order passes and a wrong algorithm fails):
 *   spmv    |y - exact| <= 1e-4 * sum_j |a_ij x_j| + 1e-6
 *   sgemm   |c - exact| <= 1e-4 * (|alpha| sum_k |a_ik b_kj| + |beta c0|) + 1e-6
 *   dgemm   the same with 1e-12; GEMM checks 4096 sampled entries
 *   hgemm   sgemm's bound on the fp16 inputs widened (check_hgemm)
 *   scan    |s_i - exact_i| <= 1e-5 * sum_{j<=i} |x_j| + 1e-6
 *   kmeans  centroids |got - want| <= 1e-3 * (1 + |want|), and at most
 *           n/10^4 + 1 memberships may differ (points at near-ties)
 *   sort    ascending, and the same multiset as the input (count plus
 *           64-bit sums of a mixing hash and of the keys) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static char msg[256];

const char *check_bytes(const void *got, const void *want, size_t n)
{
	const uint8_t *g = got, *w = want;
	size_t i;
	if (!memcmp(got, want, n))
		return NULL;
	for (i = 0; i < n && g[i] == w[i]; i++)
		;
	snprintf(msg, sizeof msg, "byte %zu differs: got 0x%02x want 0x%02x", i,
		 g[i], w[i]);
	return msg;
}

const char *check_u8_tol(const uint8_t *got, const uint8_t *want, size_t n,
			 int tol)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (abs(got[i] - want[i]) > tol) {
			snprintf(msg, sizeof msg, "byte %zu: got %d want %d (tol %d)",
				 i, got[i], want[i], tol);
			return msg;
		}
	return NULL;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

const char *check_sorted(const uint32_t *got, const uint32_t *input, size_t n)
{
	uint64_t hg = 0, hi = 0, sg = 0, si = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		if (i && got[i - 1] > got[i]) {
			snprintf(msg, sizeof msg, "not sorted at %zu: %u > %u", i,
				 got[i - 1], got[i]);
			return msg;
		}
		hg += mix(got[i]), sg += got[i];
		hi += mix(input[i]), si += input[i];
	}
	if (hg != hi || sg != si)
		return "sorted output is not a permutation of the input";
	return NULL;
}

const char *check_hist(const uint32_t *got, const uint32_t *want)
{
	int b;
	for (b = 0; b < 256; b++)
		if (got[b] != want[b]) {
			snprintf(msg, sizeof msg, "bin %d: got %u want %u", b,
				 got[b], want[b]);
			return msg;
		}
	return NULL;
}

const char *check_kmeans(const float *pts, long n, int d, int k,
			 const float *got_cent, const int *got_member,
			 const float *want_cent, const int *want_member)
{
	long i, diff = 0;
	int j;
	(void)pts;
	for (j = 0; j < k * d; j++)
		if (!(fabsf(got_cent[j] - want_cent[j]) <=
		      1e-3f * (1 + fabsf(want_cent[j])))) {
			snprintf(msg, sizeof msg, "centroid %d dim %d: got %g want %g",
				 j / d, j % d, got_cent[j], want_cent[j]);
			return msg;
		}
	for (i = 0; got_member && i < n; i++)
		diff += got_member[i] != want_member[i];
	if (diff > n / 10000 + 1) {
		snprintf(msg, sizeof msg, "%ld of %ld memberships differ", diff, n);
		return msg;
	}
	return NULL;
}

const char *check_spmv(const Csr *m, const float *x, const float *got,
		       const float *want)
{
	int i, j;
	(void)want;
	for (i = 0; i < m->rows; i++) {
		double s = 0, a = 0;
		for (j = m->rowptr[i]; j < m->rowptr[i + 1]; j++) {
			double t = (double)m->val[j] * x[m->col[j]];
			s += t, a += fabs(t);
		}
		if (!(fabs(got[i] - s) <= 1e-4 * a + 1e-6)) {
			snprintf(msg, sizeof msg, "row %d: got %g want %g", i,
				 got[i], s);
			return msg;
		}
	}
	return NULL;
}

/* Entry (i, j) of a GEMM recomputed in double: *s the value, *a the bound. */
#define GEMM_ENTRY(T)                                                         \
	static void gemm_entry_##T(int n, double alpha, const T *a,          \
				   const T *b, double beta, const T *c0,     \
				   long i, long j, double *s, double *m)     \
	{                                                                     \
		double acc = 0, mag = 0;                                      \
		long k;                                                       \
		for (k = 0; k < n; k++) {                                     \
			double t = (double)a[i * n + k] * b[k * n + j];      \
			acc += t, mag += fabs(t);                             \
		}                                                             \
		*s = alpha * acc + beta * c0[i * n + j];                      \
		*m = fabs(alpha) * mag + fabs(beta * c0[i * n + j]);          \
	}
GEMM_ENTRY(float)
GEMM_ENTRY(double)

#define GEMM_CHECK(T, TOL)                                                    \
	{                                                                     \
		Rng r;                                                        \
		long s, total = (long)n * n, samples = total < 4096 ? total : 4096; \
		rng_seed(&r, 77);                                             \
		for (s = 0; s < samples; s++) {                               \
			long e = samples == total ? s : (long)(((uint64_t)rng_u32(&r) << 32 | rng_u32(&r)) % (uint64_t)total); \
			double want, mag;                                     \
			gemm_entry_##T(n, alpha, a, b, beta, c0, e / n, e % n, &want, &mag); \
			if (!(fabs(got[e] - want) <= TOL * mag + 1e-6)) {     \
				snprintf(msg, sizeof msg, "C[%ld][%ld]: got %.9g want %.9g", \
					 e / n, e % n, (double)got[e], want); \
				return msg;                                   \
			}                                                     \
		}                                                             \
		return NULL;                                                  \
	}

const char *check_sgemm(int n, float alpha, const float *a, const float *b,
			float beta, const float *c0, const float *got)
GEMM_CHECK(float, 1e-4)

const char *check_dgemm(int n, double alpha, const double *a,
			const double *b, double beta, const double *c0,
			const double *got)
GEMM_CHECK(double, 1e-12)

/* HGEMM (C = A B + C0, fp16 in, fp32 accumulate) is checked as SGEMM on
 * the widened inputs: fp16 products are exact in fp32, so the rounding is
 * that of fp32 sums, and the same 1e-4 relative bound holds (tensor cores
 * may truncate instead of round their fp32 sums: at most once per
 * 16-deep step, 2^-23 of the running sum, well inside it at 8192). */
const char *check_hgemm(int n, const uint16_t *a, const uint16_t *b,
			const float *c0, const float *got)
{
	size_t nn = (size_t)n * n;
	float *fa = xmalloc(nn * 4), *fb = xmalloc(nn * 4);
	for (size_t i = 0; i < nn; i++)
		fa[i] = f16_to_f32(a[i]), fb[i] = f16_to_f32(b[i]);
	const char *err = check_sgemm(n, 1, fa, fb, 1, c0, got);
	free(fa), free(fb);
	return err;
}

const char *check_scan_f32(const float *in, const float *got, size_t n)
{
	double s = 0, a = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		s += in[i], a += fabs(in[i]);
		if (!(fabs(got[i] - s) <= 1e-5 * a + 1e-6)) {
			snprintf(msg, sizeof msg, "element %zu: got %.9g want %.9g",
				 i, got[i], s);
			return msg;
		}
	}
	return NULL;
}
