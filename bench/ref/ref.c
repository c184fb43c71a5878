/* ref.c — the C reference implementations.  They define each workload's
 * exact semantics and are timed, single-threaded (bench_threads = 1), as the
 * "plain C" CPU baseline; the checkers call them with all cores.
 *   linear     3x3 box filter per RGB channel, edges clamped (CM 2D surface
 *              semantics), out = (sum + 4) / 9 in integers
 *   sort       ascending u32 (LSD radix sort, 4 passes of 8 bits)
 *   kmeans     Lloyd step, nearest centroid by squared distance, lowest index
 *              wins ties; sums in double; empty clusters keep their centroid
 *   gemm       row-major C = alpha*A*B + beta*C (n x n)
 *   scan       inclusive; int32 wraps (computed in uint32); fp32 sums in
 *              double and rounds each output once */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void ref_linear(const uint8_t *in, uint8_t *out, int w, int h)
{
	int x, y, c, dx, dy;
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			for (c = 0; c < 3; c++) {
				int s = 0;
				for (dy = -1; dy <= 1; dy++)
					for (dx = -1; dx <= 1; dx++) {
						int yy = clampi(y + dy, 0, h - 1);
						int xx = clampi(x + dx, 0, w - 1);
						s += in[((size_t)yy * w + xx) * 3 + c];
					}
				out[((size_t)y * w + x) * 3 + c] = (uint8_t)((s + 4) / 9);
			}
}

void ref_sort_u32(uint32_t *a, size_t n)
{
	uint32_t *tmp = xmalloc(n * sizeof *tmp), *src = a, *dst = tmp, *t;
	size_t i, count[256];
	int shift;
	for (shift = 0; shift < 32; shift += 8) {
		size_t sum = 0;
		memset(count, 0, sizeof count);
		for (i = 0; i < n; i++)
			count[(src[i] >> shift) & 255]++;
		for (i = 0; i < 256; i++) {
			size_t c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 255]++] = src[i];
		t = src, src = dst, dst = t;
	}
	free(tmp);	/* four passes: the result is back in a */
}

void ref_histogram(const uint8_t *d, size_t n, uint32_t hist[256])
{
	uint32_t h[4][256];
	size_t i;
	int b;
	memset(h, 0, sizeof h);
	for (i = 0; i + 4 <= n; i += 4) {
		h[0][d[i]]++;
		h[1][d[i + 1]]++;
		h[2][d[i + 2]]++;
		h[3][d[i + 3]]++;
	}
	for (; i < n; i++)
		h[0][d[i]]++;
	for (b = 0; b < 256; b++)
		hist[b] = h[0][b] + h[1][b] + h[2][b] + h[3][b];
}

typedef struct {
	const float *pts, *cent;
	int d, k;
	int *member;
	long changed[64];
} KmAssign;

static void km_assign(void *p, long lo, long hi)
{
	KmAssign *a = p;
	long i, changed = 0;
	for (i = lo; i < hi; i++) {
		const float *x = a->pts + i * a->d;
		float best = 0;
		int c, j, arg = 0;
		for (c = 0; c < a->k; c++) {
			float dist = 0;
			for (j = 0; j < a->d; j++) {
				float t = x[j] - a->cent[c * a->d + j];
				dist += t * t;
			}
			if (c == 0 || dist < best)
				best = dist, arg = c;
		}
		changed += a->member[i] != arg;
		a->member[i] = arg;
	}
	__atomic_fetch_add(&a->changed[0], changed, __ATOMIC_RELAXED);
}

long ref_kmeans_step(const float *pts, long n, int d, int k, float *cent,
		     int *member)
{
	KmAssign a = { pts, cent, d, k, member, { 0 } };
	double *sum = calloc((size_t)k * d, sizeof *sum);
	long *cnt = calloc((size_t)k, sizeof *cnt), i;
	int c, j;
	if (!sum || !cnt)
		bench_die("out of memory");
	par_for(n, km_assign, &a);
	for (i = 0; i < n; i++) {
		cnt[member[i]]++;
		for (j = 0; j < d; j++)
			sum[member[i] * d + j] += pts[i * d + j];
	}
	for (c = 0; c < k; c++)
		for (j = 0; cnt[c] && j < d; j++)
			cent[c * d + j] = (float)(sum[c * d + j] / cnt[c]);
	free(sum);
	free(cnt);
	return a.changed[0];
}

typedef struct {
	const Csr *m;
	const float *x;
	float *y;
} SpmvArgs;

static void spmv_rows(void *p, long lo, long hi)
{
	SpmvArgs *a = p;
	long i;
	int j;
	for (i = lo; i < hi; i++) {
		float s = 0;
		for (j = a->m->rowptr[i]; j < a->m->rowptr[i + 1]; j++)
			s += a->m->val[j] * a->x[a->m->col[j]];
		a->y[i] = s;
	}
}

void ref_spmv(const Csr *m, const float *x, float *y)
{
	SpmvArgs a = { m, x, y };
	par_for(m->rows, spmv_rows, &a);
}

void ref_transpose(const float *in, float *out, int n)
{
	int bi, bj, i, j;
	for (bi = 0; bi < n; bi += 32)
		for (bj = 0; bj < n; bj += 32)
			for (i = bi; i < bi + 32 && i < n; i++)
				for (j = bj; j < bj + 32 && j < n; j++)
					out[(size_t)j * n + i] = in[(size_t)i * n + j];
}

/* GEMM: rows of C split across threads; each row block runs k-blocked
 * i-k-j loops that the compiler vectorizes along j. */
#define GEMM_BODY(T)                                                          \
	typedef struct {                                                      \
		int n;                                                        \
		T alpha, beta;                                                \
		const T *a, *b;                                               \
		T *c;                                                         \
	} Gemm_##T;                                                           \
	static void gemm_rows_##T(void *p, long lo, long hi)                  \
	{                                                                     \
		Gemm_##T *g = p;                                              \
		int n = g->n, k0, k, j;                                       \
		long i;                                                       \
		for (i = lo; i < hi; i++)                                     \
			for (j = 0; j < n; j++)                               \
				g->c[i * n + j] *= g->beta;                   \
		for (k0 = 0; k0 < n; k0 += 256)                               \
			for (i = lo; i < hi; i++) {                           \
				T *restrict cr = g->c + i * n;                \
				for (k = k0; k < k0 + 256 && k < n; k++) {    \
					T av = g->alpha * g->a[i * n + k];    \
					const T *restrict br = g->b + (long)k * n; \
					for (j = 0; j < n; j++)               \
						cr[j] += av * br[j];          \
				}                                             \
			}                                                     \
	}
GEMM_BODY(float)
GEMM_BODY(double)

void ref_sgemm(int n, float alpha, const float *a, const float *b,
	       float beta, float *c)
{
	Gemm_float g = { n, alpha, beta, a, b, c };
	par_for(n, gemm_rows_float, &g);
}

void ref_dgemm(int n, double alpha, const double *a, const double *b,
	       double beta, double *c)
{
	Gemm_double g = { n, alpha, beta, a, b, c };
	par_for(n, gemm_rows_double, &g);
}

/* fp16 products are exact in float, so this is SGEMM on the widened
 * inputs with alpha = beta = 1. */
void ref_hgemm(int n, const uint16_t *a, const uint16_t *b, float *c)
{
	size_t nn = (size_t)n * n;
	float *fa = xmalloc(nn * 4), *fb = xmalloc(nn * 4);
	for (size_t i = 0; i < nn; i++)
		fa[i] = f16_to_f32(a[i]), fb[i] = f16_to_f32(b[i]);
	ref_sgemm(n, 1, fa, fb, 1, c);
	free(fa), free(fb);
}

void ref_scan_i32(const int32_t *in, int32_t *out, size_t n)
{
	uint32_t s = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		s += (uint32_t)in[i];
		out[i] = (int32_t)s;
	}
}

void ref_scan_f32(const float *in, float *out, size_t n)
{
	double s = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		s += in[i];
		out[i] = (float)s;
	}
}
