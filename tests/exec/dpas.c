/* dpas.c — cm_dpas against a C reference built from the logical matrices:
 * A (repeat x K) and B (K x E) are drawn, packed into src2 and src1 as
 * docs/language.md describes, and D = C + A B is computed in double (or
 * exactly in 64-bit integers).  Integer results must match exactly.
 * Floating results must be within TOL x (|c| + sum |a b|) of the exact
 * value: the inputs are exact in their precision and each product is exact
 * in the accumulator, so the only error is the rounding of the K additions
 * (at most K x 2^-24 relative to that sum for f32; the GPU's tensor cores
 * add in another order).  TF32 inputs carry random low mantissa bits,
 * which DPAS ignores (the reference truncates them). */
#include "harness.h"

#define F "dpas"

enum { U8 = 6, S8 = 7, BF = 8, HF = 9, TF32 = 10, DF = 16 };

typedef struct {
	const char *kernel;
	int p1, p2, rc, es;
	bool acc;             /* the form with src0 */
	int nout;             /* elements the kernel writes (per call) */
	bool pair;            /* two calls of one B (dpair.c: one 16-row mma) */
} Cfg;

static int kdim(int p) { return p <= S8 ? 32 : p <= HF ? 16 : p == TF32 ? 8 : 4; }
static int esize(int p) { return p <= S8 ? 1 : p <= HF ? 2 : p == TF32 ? 4 : 8; }

/* Half bits of x, which is a normal half or 0 (the tests draw only those). */
static uint16_t half_bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	if (!(u & 0x7fffffff))
		return (uint16_t)(u >> 16);
	return (uint16_t)(((u >> 16) & 0x8000) | ((((u >> 23) & 255) - 112) << 10) |
	                  ((u >> 13) & 1023));
}

/* Draws one element of precision p: its logical value, and its bytes at
 * element index idx of buf. */
static double draw(H *h, int p, unsigned char *buf, int idx)
{
	unsigned char *at = buf + (size_t)idx * esize(p);
	switch (p) {
	case U8: { uint8_t v = (uint8_t)h_rand(h); *at = v; return v; }
	case S8: { int8_t v = (int8_t)h_rand(h); memcpy(at, &v, 1); return v; }
	case HF: {
		float x = (float)h_range(h, -512, 512) / 256;
		uint16_t b = half_bits(x);
		memcpy(at, &b, 2);
		return x;
	}
	case BF: {
		float x = (float)h_range(h, -255, 255) / 64;
		uint32_t u;
		memcpy(&u, &x, 4);
		uint16_t b = (uint16_t)(u >> 16);
		memcpy(at, &b, 2);
		return x;
	}
	case TF32: {
		float x = h_float(h, -2, 2), t;
		memcpy(at, &x, 4);
		uint32_t u;
		memcpy(&u, &x, 4);
		u &= 0xffffe000u;
		memcpy(&t, &u, 4);
		return t;
	}
	default: {
		double x = h_float(h, -1, 1) + h_float(h, -1, 1) * 0x1p-24;
		memcpy(at, &x, 8);
		return x;
	}
	}
}

/* Index of B's element (k, n) in src1's element stream. */
static int b_index(int p, int k, int n, int es)
{
	int o = kdim(p) / 8;
	return o ? (k / o * es + n) * o + k % o : k * es + n;
}

static void run(H *h, const Cfg *c)
{
	enum { MAXK = 32, MAXE = 16, MAXR = 8 };
	int K = kdim(c->p1), es = c->es, rc = c->rc, n = rc * es, np = c->pair ? 2 : 1;
	bool fl = c->p1 >= BF, dbl = c->p1 == DF;
	static unsigned char a[2048], b[1024], cc[2048], o[2048];
	static double A[2][MAXR][MAXK], B[MAXK][MAXE], C[2][MAXR * MAXE];
	/* the kernels read as many bytes as their operands have (a pair: two
	 * A and two C operands, one after the other, and two results) */
	size_t ab = (size_t)32 * rc, bb = (size_t)32 * es, cb = (size_t)n * (dbl ? 8 : 4);
	size_t ob = (size_t)c->nout * (dbl ? 8 : 4);
	memset(a, 0, sizeof a), memset(b, 0, sizeof b), memset(cc, 0, sizeof cc);
	for (int q = 0; q < np; q++)
		for (int r = 0; r < rc; r++)
			for (int k = 0; k < K; k++)
				A[q][r][k] = draw(h, c->p2, a + q * ab, r * K + k);
	for (int k = 0; k < K; k++)
		for (int j = 0; j < es; j++)
			B[k][j] = draw(h, c->p1, b, b_index(c->p1, k, j, es));
	for (int q = 0; q < np; q++)
		for (int e = 0; e < n; e++) {
			unsigned char *at = cc + q * cb;
			C[q][e] = 0;
			if (!c->acc)
				continue;
			if (dbl)
				C[q][e] = h_float(h, -4, 4), memcpy(at + 8 * e, &C[q][e], 8);
			else if (fl) {
				float x = h_float(h, -4, 4);
				C[q][e] = x, memcpy(at + 4 * e, &x, 4);
			} else {
				int32_t x = h_range(h, -100000, 100000);
				C[q][e] = x, memcpy(at + 4 * e, &x, 4);
			}
		}
	memset(o, 0, sizeof o);
	HArg args[4] = {
		{HA_IN, a, ab * np}, {HA_IN, b, bb}, {HA_IN, cc, cb ? cb * np : 4}, {HA_OUT, o, ob * np},
	};
	if (!h_run_n(h, F, c->kernel, WALK(1, 1), args, 4))
		return;
	for (int q = 0; q < np; q++)
		for (int r = 0; r < rc; r++)
			for (int j = 0; j < es; j++) {
				int e = r * es + j;
				const unsigned char *at = o + q * ob;
				double want = C[q][e], mag = fabs(C[q][e]);
				for (int k = 0; k < K; k++)
					want += A[q][r][k] * B[k][j], mag += fabs(A[q][r][k] * B[k][j]);
				if (!fl) {
					int32_t got, w = (int32_t)(uint32_t)(int64_t)want;
					memcpy(&got, at + 4 * e, 4);
					if (got != w)
						h_fail(h, "%s: d%d[%d][%d] = %d, expected %d", c->kernel, q, r, j,
						       got, w);
					continue;
				}
				double got;
				if (dbl) {
					memcpy(&got, at + 8 * e, 8);
				} else {
					float g;
					memcpy(&g, at + 4 * e, 4);
					got = g;
				}
				double tol = (dbl ? 1e-13 : 1e-5) * (mag > 1e-30 ? mag : 1e-30);
				if (!(fabs(got - want) <= tol))
					h_fail(h, "%s: d%d[%d][%d] = %.17g, expected %.17g (tolerance %.3g)",
					       c->kernel, q, r, j, got, want, tol);
			}
	/* what the kernel pads its output with */
	for (int e = n * (dbl ? 8 : 4); e < (int)ob; e++)
		if (o[e])
			h_fail(h, "%s: padding byte %d is %d", c->kernel, e, o[e]);
}

static const Cfg cfgs[] = {
	{"hf_r8", HF, HF, 8, 8, true, 64},
	{"hf_r3", HF, HF, 3, 8, false, 32},
	{"hf_e16", HF, HF, 2, 16, true, 32},
	{"bf_r8", BF, BF, 8, 8, true, 64},
	{"tf32_r4", TF32, TF32, 4, 8, true, 32},
	{"s8_r8", S8, S8, 8, 8, true, 64},
	{"u8s8_r1", U8, S8, 1, 8, false, 8},
	{"u8_r5", U8, U8, 5, 8, true, 48},
	{"df_r8", DF, DF, 8, 8, true, 64},
	{"df_r1", DF, DF, 1, 8, false, 8},
	{"hf_pair", HF, HF, 8, 8, true, 64, true},
	{"tf32_pair", TF32, TF32, 8, 16, true, 128, true},
	{"s8_pair", S8, S8, 8, 8, true, 64, true},
	{"df_pair", DF, DF, 8, 16, true, 128, true},
	{"hf_slm", HF, HF, 8, 8, true, 64},
};

#define DPAS_TEST(i, name) TEST(name) { run(h, &cfgs[i]); }
DPAS_TEST(0, hf_r8)
DPAS_TEST(1, hf_r3)
DPAS_TEST(2, hf_e16)
DPAS_TEST(3, bf_r8)
DPAS_TEST(4, tf32_r4)
DPAS_TEST(5, s8_r8)
DPAS_TEST(6, u8s8_r1)
DPAS_TEST(7, u8_r5)
DPAS_TEST(8, df_r8)
DPAS_TEST(9, df_r1)
DPAS_TEST(10, hf_pair)
DPAS_TEST(11, tf32_pair)
DPAS_TEST(12, s8_pair)
DPAS_TEST(13, df_pair)
DPAS_TEST(14, hf_slm)

/* bench/cm/hgemm.cm at n = 64: C += A B with half inputs (exact in half)
 * and float C, and the double form; tolerance as above with K = n. */
enum { GN = 64 };

/* c = c0 + fa fb (GN x GN, row-major) within 1e-5 of the sum of the
 * magnitudes, as fp16 products summed in fp32 give. */
static void check_hgemm_c(H *h, int n, const float *fa, const float *fb, const float *c0,
                          const float *c)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double want = c0[i * n + j], mag = fabs(want);
			for (int k = 0; k < n; k++)
				want += (double)fa[i * n + k] * fb[k * n + j],
					mag += fabs((double)fa[i * n + k] * fb[k * n + j]);
			if (!(fabs(c[i * n + j] - want) <= 1e-5 * mag)) {
				h_fail(h, "c[%d][%d] = %.9g, expected %.9g", i, j, c[i * n + j], want);
				return;
			}
		}
}

TEST(hgemm)
{
	static uint16_t a[GN * GN], b[GN * GN];
	static float fa[GN * GN], fb[GN * GN], c[GN * GN], c0[GN * GN];
	for (int i = 0; i < GN * GN; i++) {
		fa[i] = (float)h_range(h, -512, 512) / 256, a[i] = half_bits(fa[i]);
		fb[i] = (float)h_range(h, -512, 512) / 256, b[i] = half_bits(fb[i]);
		c0[i] = c[i] = h_float(h, -4, 4);
	}
	if (!H_RUN(h, "../../bench/cm/hgemm", "hgemm", WALK(GN / 8, GN / 8), IN(a), IN(b),
	           INOUT(c), I32(GN)))
		return;
	check_hgemm_c(h, GN, fa, fb, c0, c);
}

/* hf_media: D = A B from 8 x 16 tiles of halves read at byte x of 2D
 * surfaces of 8 rows of 24 halves (B given as B^T), x = 8 (8-byte loads)
 * and x = 4 (the unaligned path). */
TEST(hf_media)
{
	enum { W = 24 };
	static uint16_t a[8 * W], bt[8 * W];
	static float fa[8 * W], fb[8 * W], o[64];
	for (int i = 0; i < 8 * W; i++) {
		fa[i] = (float)h_range(h, -512, 512) / 256, a[i] = half_bits(fa[i]);
		fb[i] = (float)h_range(h, -512, 512) / 256, bt[i] = half_bits(fb[i]);
	}
	for (int x = 8; x >= 4; x -= 4) {
		if (!H_RUN(h, F, "hf_media", WALK(1, 1), SURF2D(a, W, 8, CMETAL_FMT_R16_UINT),
		           SURF2D(bt, W, 8, CMETAL_FMT_R16_UINT), OUT(o), I32(x)))
			return;
		for (int r = 0; r < 8; r++)
			for (int n = 0; n < 8; n++) {
				double want = 0, mag = 0;
				for (int k = 0; k < 16; k++) {
					double v = (double)fa[r * W + x / 2 + k] * fb[n * W + x / 2 + k];
					want += v, mag += fabs(v);
				}
				if (!(fabs(o[r * 8 + n] - want) <= 1e-5 * (mag > 1e-30 ? mag : 1e-30))) {
					h_fail(h, "x %d: d[%d][%d] = %.9g, expected %.9g", x, r, n,
					       o[r * 8 + n], want);
					return;
				}
			}
	}
}

/* hf_c_edge: an 8 x 8 product (A 8 x 16 halves, Bt 8 x 16) added to a
 * tile of a 13 x 11 image of floats at corners inside, across each edge
 * and wholly outside: the read clamps to the edge and the write outside
 * is dropped, so a pixel inside gets its own value plus the product's
 * element and every other pixel is unchanged. */
TEST(hf_c_edge)
{
	enum { CW = 13, CH = 11 };
	static const int at[][2] = {{0, 0}, {2, 1}, {9, 0}, {0, 7}, {8, 6}, {-3, 2}, {4, -5},
	                            {12, 10}, {-8, 0}, {13, 3}};
	static uint16_t a[128], bt[128];
	static float fa[128], fb[128], c[CW * CH], c0[CW * CH];
	for (int i = 0; i < 128; i++) {
		fa[i] = (float)h_range(h, -512, 512) / 256, a[i] = half_bits(fa[i]);
		fb[i] = (float)h_range(h, -512, 512) / 256, bt[i] = half_bits(fb[i]);
	}
	for (size_t t = 0; t < sizeof at / sizeof at[0]; t++) {
		int x = at[t][0], y = at[t][1];
		for (int i = 0; i < CW * CH; i++)
			c0[i] = c[i] = h_float(h, -4, 4);
		HShape one = WALK(1, 1);
		one.options = "-fno-bounds-check";   /* the writes outside are on purpose */
		if (!H_RUN(h, F, "hf_c_edge", one, SURF2D(a, 16, 8, CMETAL_FMT_R16_UINT),
		           SURF2D(bt, 16, 8, CMETAL_FMT_R16_UINT), SURF2D(c, CW, CH, CMETAL_FMT_R32F),
		           I32(x), I32(y)))
			return;
		for (int Y = 0; Y < CH; Y++)
			for (int X = 0; X < CW; X++) {
				int r = Y - y, n = X - x;
				double want = c0[Y * CW + X], mag = fabs(want);
				if (r >= 0 && r < 8 && n >= 0 && n < 8)
					for (int k = 0; k < 16; k++) {
						double v = (double)fa[r * 16 + k] * fb[n * 16 + k];
						want += v, mag += fabs(v);
					}
				if (!(fabs(c[Y * CW + X] - want) <= 1e-5 * (mag > 1e-30 ? mag : 1e-30))) {
					h_fail(h, "tile at (%d, %d): C[%d][%d] = %.9g, expected %.9g", x, y,
					       Y, X, c[Y * CW + X], want);
					return;
				}
			}
	}
}

/* hgemm_bt: the same product with B given transposed and A, Bt and C as
 * 2D surfaces, 2 x 2 threads of 32 x 32 in one group. */
TEST(hgemm_bt)
{
	static uint16_t a[GN * GN], bt[GN * GN];
	static float fa[GN * GN], fb[GN * GN], c[GN * GN], c0[GN * GN];
	for (int i = 0; i < GN * GN; i++) {
		fa[i] = (float)h_range(h, -512, 512) / 256, a[i] = half_bits(fa[i]);
		fb[i] = (float)h_range(h, -512, 512) / 256;
		c0[i] = c[i] = h_float(h, -4, 4);
	}
	for (int k = 0; k < GN; k++)
		for (int j = 0; j < GN; j++)
			bt[j * GN + k] = half_bits(fb[k * GN + j]);
	HShape grid = {0, 0, {1, 1, 1}, {GN / 32, GN / 32, 1}, true, CMETAL_DEP_NONE, NULL};
	if (!H_RUN(h, "../../bench/cm/hgemm", "hgemm_bt", grid,
	           SURF2D(a, GN, GN, CMETAL_FMT_R16_UINT), SURF2D(bt, GN, GN, CMETAL_FMT_R16_UINT),
	           SURF2D(c, GN, GN, CMETAL_FMT_R32F), I32(GN)))
		return;
	check_hgemm_c(h, GN, fa, fb, c0, c);
}

/* An SLM-staged hgemm kernel of hgemm.cm (A, Bt half, C float, n x n
 * 2D surfaces; A and Bt buffers with bufs) on grid, checked against the
 * product in doubles. */
enum { SN = 256 };	/* the largest n of these tests */

static void staged_hgemm_in(H *h, const char *file, const char *kernel, int n, HShape grid,
                            bool bufs)
{
	static uint16_t a[SN * SN], bt[SN * SN];
	static float fa[SN * SN], fb[SN * SN], c[SN * SN], c0[SN * SN];
	for (int i = 0; i < n * n; i++) {
		fa[i] = (float)h_range(h, -512, 512) / 256, a[i] = half_bits(fa[i]);
		fb[i] = (float)h_range(h, -512, 512) / 256;
		c0[i] = c[i] = h_float(h, -4, 4);
	}
	for (int k = 0; k < n; k++)
		for (int j = 0; j < n; j++)
			bt[j * n + k] = half_bits(fb[k * n + j]);
	/* SURF2D's size would be the arrays', not the n x n used */
	size_t nn = (size_t)n * n;
	if (!H_RUN(h, file, kernel, grid,
	           ((HArg){bufs ? HA_IN : HA_SURF2D, a, nn * 2, n, n, CMETAL_FMT_R16_UINT}),
	           ((HArg){bufs ? HA_IN : HA_SURF2D, bt, nn * 2, n, n, CMETAL_FMT_R16_UINT}),
	           ((HArg){HA_SURF2D, c, nn * 4, n, n, CMETAL_FMT_R32F}), I32(n)))
		return;
	check_hgemm_c(h, n, fa, fb, c0, c);
}

static void staged_hgemm(H *h, const char *kernel, int n, HShape grid)
{
	staged_hgemm_in(h, "../../bench/cm/hgemm", kernel, n, grid, false);
}

/* hgemm_slm: hgemm_bt's product with the tiles staged in SLM by a group
 * of 4 x 4 threads (128 x 128 of C; n a multiple of 128). */
TEST(hgemm_slm)
{
	staged_hgemm(h, "hgemm_slm", 128,
	             (HShape){0, 0, {1, 1, 1}, {4, 4, 1}, true, CMETAL_DEP_NONE, NULL});
}

/* hgemm_slm64: the same with 64 x 64 of C per thread, groups of 4 x 2
 * threads (256 x 128 of C): two groups. */
TEST(hgemm_slm64)
{
	staged_hgemm(h, "hgemm_slm64", SN,
	             (HShape){0, 0, {1, 2, 1}, {4, 2, 1}, true, CMETAL_DEP_NONE, NULL});
}

/* hgemm_wg (bench/cm/hgemm_wg.cm, cm_wgmma): groups of 1 x 8 threads, 128
 * x 128 of C each, 2 x 2 groups, k in 4 stages of 64 (2 loop trips). */
TEST(hgemm_wg)
{
	staged_hgemm_in(h, "../../bench/cm/hgemm_wg", "hgemm_wg", SN,
	                (HShape){0, 0, {2, 2, 1}, {1, 8, 1}, true, CMETAL_DEP_NONE, NULL}, false);
}

/* hgemm_wga (hgemm_wg.cm, cm_wgmma on tiles staged by cm_slm_copy_async):
 * A and Bt as buffers, groups of 1 x 8 threads, 128 x 128 of C each, 2 x 2
 * groups, k in 4 stages of 64: with its ring of 4 buffers (the prologue
 * fills 3, the loop the last) and of 3 (-DWA_STAGES=3: the loop's second
 * copy goes to the first buffer). */
TEST(hgemm_wga)
{
	staged_hgemm_in(h, "../../bench/cm/hgemm_wg", "hgemm_wga", SN,
	                (HShape){0, 0, {2, 2, 1}, {1, 8, 1}, true, CMETAL_DEP_NONE, NULL}, true);
}

TEST(hgemm_wga_s3)
{
	staged_hgemm_in(h, "../../bench/cm/hgemm_wg", "hgemm_wga", SN,
	                (HShape){0, 0, {2, 2, 1}, {1, 8, 1}, true, CMETAL_DEP_NONE,
	                         "-DWA_STAGES=3"}, true);
}

/* hgemm_wga2: hgemm_wga with 128 x 256 of C a group (1 x 2 groups). */
TEST(hgemm_wga2)
{
	staged_hgemm_in(h, "../../bench/cm/hgemm_wg", "hgemm_wga2", SN,
	                (HShape){0, 0, {1, 2, 1}, {1, 8, 1}, true, CMETAL_DEP_NONE, NULL}, true);
}

/* hgemm_wgp, hgemm_wgp2: hgemm_wga, hgemm_wga2 with a producer warpgroup
 * (groups of 1 x 12 threads: 8 multiply, 4 copy). */
TEST(hgemm_wgp)
{
	staged_hgemm_in(h, "../../bench/cm/hgemm_wg", "hgemm_wgp", SN,
	                (HShape){0, 0, {2, 2, 1}, {1, 12, 1}, true, CMETAL_DEP_NONE, NULL}, true);
}

TEST(hgemm_wgp2)
{
	staged_hgemm_in(h, "../../bench/cm/hgemm_wg", "hgemm_wgp2", SN,
	                (HShape){0, 0, {1, 2, 1}, {1, 12, 1}, true, CMETAL_DEP_NONE, NULL}, true);
}

/* hgemm_wgs2: hgemm_wgp2 with cm_wgmma's 128-byte swizzle, its roles in
 * loops of their own and async wgmmas, its epilogue reading a thread's
 * tiles of C before it writes any (WG_EPI_BATCH=1, the default); and with
 * the epilogue tile by tile (-DWG_EPI_BATCH=0). */
TEST(hgemm_wgs2)
{
	staged_hgemm_in(h, "../../bench/cm/hgemm_wg", "hgemm_wgs2", SN,
	                (HShape){0, 0, {1, 2, 1}, {1, 12, 1}, true, CMETAL_DEP_NONE, NULL}, true);
}

TEST(hgemm_wgs2_epi)
{
	staged_hgemm_in(h, "../../bench/cm/hgemm_wg", "hgemm_wgs2", SN,
	                (HShape){0, 0, {1, 2, 1}, {1, 12, 1}, true, CMETAL_DEP_NONE,
	                         "-DWG_EPI_BATCH=0"}, true);
}

/* c = c0 + a b (n x n doubles, row-major) within 1e-13 of the sum of the
 * products' magnitudes. */
static void check_dgemm_in(H *h, int n, const double *a, const double *b, const double *c0,
                           const double *c)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double want = c0[i * n + j], mag = fabs(want);
			for (int k = 0; k < n; k++)
				want += a[i * n + k] * b[k * n + j], mag += fabs(a[i * n + k] * b[k * n + j]);
			if (!(fabs(c[i * n + j] - want) <= 1e-13 * mag)) {
				h_fail(h, "c[%d][%d] = %.17g, expected %.17g", i, j, c[i * n + j], want);
				return;
			}
		}
}

TEST(dgemm_dpas)
{
	static double a[GN * GN], b[GN * GN], c[GN * GN], c0[GN * GN];
	for (int i = 0; i < GN * GN; i++)
		a[i] = h_float(h, -1, 1), b[i] = h_float(h, -1, 1), c0[i] = c[i] = h_float(h, -4, 4);
	/* rows of GN doubles: 2 GN dwords of pixels */
	HShape grid = {0, 0, {1, 1, 1}, {GN / 32, GN / 32, 1}, true, CMETAL_DEP_NONE, NULL};
	if (H_RUN(h, "../../bench/cm/hgemm", "dgemm_dpas", grid,
	          SURF2D(a, 2 * GN, GN, CMETAL_FMT_R32_UINT), SURF2D(b, 2 * GN, GN, CMETAL_FMT_R32_UINT),
	          SURF2D(c, 2 * GN, GN, CMETAL_FMT_R32_UINT), I32(GN)))
		check_dgemm_in(h, GN, a, b, c0, c);
}

/* hgemm.cm's SLM-staged dgemm kernels at n = SN (2 x 2 groups of 4 x 4
 * threads, 128 x 128 of C each): dgemm_slm (A, B, C 2D surfaces of
 * 16-byte pixels, as gemm.c binds them) and dgemm_async (A and B buffers,
 * C a 2D surface; its ring of stages wraps 8 times, and with options its
 * other shapes), dgemm_async64 (groups of 4 x 2 threads, 64 x 32 of C
 * each). */
static void dgemm_staged(H *h, const char *kernel, const char *options)
{
	bool tall = !strcmp(kernel, "dgemm_async64");   /* 64 x 32 a thread */
	static double a[SN * SN], b[SN * SN], c[SN * SN], c0[SN * SN];
	for (int i = 0; i < SN * SN; i++)
		a[i] = h_float(h, -1, 1), b[i] = h_float(h, -1, 1), c0[i] = c[i] = h_float(h, -4, 4);
	HShape grid = {0, 0, {2, 2, 1}, {4, tall ? 2 : 4, 1}, true, CMETAL_DEP_NONE, options};
	HArg c2 = SURF2D(c, SN / 2, SN, CMETAL_FMT_R32G32B32A32F);
	bool ran = strcmp(kernel, "dgemm_slm")
	           ? H_RUN(h, "../../bench/cm/hgemm", kernel, grid, IN(a), IN(b), c2, I32(SN))
	           : H_RUN(h, "../../bench/cm/hgemm", kernel, grid,
	                   SURF2D(a, SN / 2, SN, CMETAL_FMT_R32G32B32A32F),
	                   SURF2D(b, SN / 2, SN, CMETAL_FMT_R32G32B32A32F), c2, I32(SN));
	if (ran)
		check_dgemm_in(h, SN, a, b, c0, c);
}

TEST(dgemm_slm) { dgemm_staged(h, "dgemm_slm", NULL); }
TEST(dgemm_async) { dgemm_staged(h, "dgemm_async", NULL); }
TEST(dgemm_async64) { dgemm_staged(h, "dgemm_async64", NULL); }
TEST(dgemm_async_shapes)
{
	dgemm_staged(h, "dgemm_async", "-DAST=2 -DAKS=1");
	dgemm_staged(h, "dgemm_async", "-DAST=4 -DAKS=2");
	dgemm_staged(h, "dgemm_async64", "-DAST=2 -DAKS=8");
	dgemm_staged(h, "dgemm_async", "-DASW=2");
}

/* bench/cm/gemm.cm's SLM-staged sgemm (C = alpha A B + beta C, float
 * buffers, n = 256: 2 x 2 groups of 8 threads, 16 k steps, both SLM
 * buffers), with B's rows staged through registers (the default) or by
 * cm_slm_copy_async (options "-DBASYNC=1"); checked against the product
 * in doubles. */
static void sgemm_slm(H *h, const char *options)
{
	enum { N = 256 };
	static float a[N * N], b[N * N], c[N * N], c0[N * N];
	const float alpha = 1.5f, beta = -0.5f;
	for (int i = 0; i < N * N; i++)
		a[i] = h_float(h, -1, 1), b[i] = h_float(h, -1, 1), c0[i] = c[i] = h_float(h, -4, 4);
	HShape grid = {0, 0, {N / 128, N / 128, 1}, {8, 1, 1}, true, CMETAL_DEP_NONE, options};
	if (!H_RUN(h, "../../bench/cm/gemm", "sgemm", grid, IN(a), IN(b), INOUT(c), I32(N),
	           F32(alpha), F32(beta)))
		return;
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			double ab = 0, mag = fabs(beta * c0[i * N + j]);
			for (int k = 0; k < N; k++)
				ab += (double)a[i * N + k] * b[k * N + j],
					mag += fabs(alpha * a[i * N + k] * b[k * N + j]);
			double want = alpha * ab + beta * c0[i * N + j];
			if (!(fabs(c[i * N + j] - want) <= 1e-5 * mag)) {
				h_fail(h, "c[%d][%d] = %.9g, expected %.9g", i, j, c[i * N + j], want);
				return;
			}
		}
}

TEST(sgemm_slm) { sgemm_slm(h, NULL); }
TEST(sgemm_slm_async) { sgemm_slm(h, "-DBASYNC=1"); }

/* cm_wgmma (cmetal): D = C + A B for a group of two warpgroups, A 128 x 32
 * and B 32 x N halves (given transposed), C and D 128 x N floats; the
 * tolerance of the cm_dpas tests (K = 32).  The kernel's extra calls with
 * an operand outside the SLM or misaligned must leave D as it is. */
static void wgmma_run(H *h, const char *kernel, int n)
{
	enum { M = 128, K = 32 };
	static uint16_t a[M * K], bt[56 * K];
	static float fa[M * K], fb[56 * K], c[M * 56], d[M * 56];
	for (int i = 0; i < M * K; i++)
		fa[i] = (float)h_range(h, -512, 512) / 256, a[i] = half_bits(fa[i]);
	for (int i = 0; i < n * K; i++)
		fb[i] = (float)h_range(h, -512, 512) / 256, bt[i] = half_bits(fb[i]);
	for (int i = 0; i < M * n; i++)
		c[i] = h_float(h, -4, 4);
	HArg args[] = {{HA_IN, a, sizeof a}, {HA_IN, bt, (size_t)n * K * 2},
	               {HA_IN, c, (size_t)M * n * 4}, {HA_OUT, d, (size_t)M * n * 4}, I32(2)};
	if (!h_run_n(h, F, kernel, GROUPS(3, 8), args, 5))
		return;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < n; j++) {
			double want = c[i * n + j], mag = fabs(want);
			for (int k = 0; k < K; k++) {
				double p = (double)fa[i * K + k] * fb[j * K + k];
				want += p, mag += fabs(p);
			}
			double got = d[i * n + j], tol = 1e-5 * (mag > 1e-30 ? mag : 1e-30);
			if (!(fabs(got - want) <= tol)) {
				h_fail(h, "%s: d[%d][%d] = %.9g, expected %.9g (tolerance %.3g)", kernel, i,
				       j, got, want, tol);
				return;
			}
		}
}

/* wg_pair: two calls as one wgmma, and a pair whose second call's B is
 * outside the SLM (only the first runs, with B's rows 16.. 31, columns
 * 8..15). */
TEST(wgmma_pair)
{
	enum { M = 128, K = 32, N = 16 };
	static uint16_t a[M * K], bt[N * K];
	static float fa[M * K], fb[N * K], c[M * N], d[M * N];
	for (int i = 0; i < M * K; i++)
		fa[i] = (float)h_range(h, -512, 512) / 256, a[i] = half_bits(fa[i]);
	for (int i = 0; i < N * K; i++)
		fb[i] = (float)h_range(h, -512, 512) / 256, bt[i] = half_bits(fb[i]);
	for (int i = 0; i < M * N; i++)
		c[i] = h_float(h, -4, 4);
	if (!H_RUN(h, F, "wg_pair", GROUPS(2, 8), IN(a), IN(bt), IN(c), OUT(d), I32(2)))
		return;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double want = c[i * N + j], mag = fabs(want);
			for (int k = 0; k < K; k++) {
				double p = (double)fa[i * K + k] * fb[j * K + k];
				want += p, mag += fabs(p);
			}
			for (int k = 0; j < 8 && k < 16; k++) {
				double p = (double)fa[i * K + k] * fb[(j + 8) * K + 16 + k];
				want += p, mag += fabs(p);
			}
			double got = d[i * N + j], tol = 1e-5 * (mag > 1e-30 ? mag : 1e-30);
			if (!(fabs(got - want) <= tol)) {
				h_fail(h, "d[%d][%d] = %.9g, expected %.9g (tolerance %.3g)", i, j, got,
				       want, tol);
				return;
			}
		}
}

/* wg_sw128: the 128-byte swizzle, A 128 x 64 and B 64 x 32 (four k slabs
 * a row), two calls as one wgmma, and calls misaligned (A in row 1 of its
 * 1024 bytes) or past the SLM (B) that change nothing; wg_async: the same
 * with cm_wgmma_async in the loop. */
static void wgmma_sw(H *h, const char *kernel)
{
	enum { M = 128, K = 64, N = 32 };
	static uint16_t a[M * K], bt[N * K];
	static float fa[M * K], fb[N * K], c[M * N], d[M * N];
	for (int i = 0; i < M * K; i++)
		fa[i] = (float)h_range(h, -512, 512) / 256, a[i] = half_bits(fa[i]);
	for (int i = 0; i < N * K; i++)
		fb[i] = (float)h_range(h, -512, 512) / 256, bt[i] = half_bits(fb[i]);
	for (int i = 0; i < M * N; i++)
		c[i] = h_float(h, -4, 4);
	HArg args[] = {{HA_IN, a, sizeof a}, {HA_IN, bt, sizeof bt}, {HA_IN, c, sizeof c},
	               {HA_OUT, d, sizeof d}, I32(4)};
	if (!h_run_n(h, F, kernel, GROUPS(2, 8), args, 5))
		return;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double want = c[i * N + j], mag = fabs(want);
			for (int k = 0; k < K; k++) {
				double p = (double)fa[i * K + k] * fb[j * K + k];
				want += p, mag += fabs(p);
			}
			double got = d[i * N + j], tol = 1e-5 * (mag > 1e-30 ? mag : 1e-30);
			if (!(fabs(got - want) <= tol)) {
				h_fail(h, "%s: d[%d][%d] = %.9g, expected %.9g (tolerance %.3g)",
				       kernel, i, j, got, want, tol);
				return;
			}
		}
}

TEST(wgmma_sw128) { wgmma_sw(h, "wg_sw128"); }
TEST(wgmma_async) { wgmma_sw(h, "wg_async"); }

TEST(wgmma_n8) { wgmma_run(h, "wg8", 8); }
TEST(wgmma_n32) { wgmma_run(h, "wg32", 32); }
TEST(wgmma_n56) { wgmma_run(h, "wg56", 56); }

const HTest exec_dpas[] = {
	T(hf_r8), T(hf_r3), T(hf_e16), T(bf_r8), T(tf32_r4), T(s8_r8), T(u8s8_r1), T(u8_r5),
	T(df_r8), T(df_r1), T(hf_pair), T(tf32_pair), T(s8_pair), T(df_pair), T(hf_slm), T(hgemm),
	T(hf_media), T(hf_c_edge), T(hgemm_bt), T(hgemm_slm), T(hgemm_slm64), T(dgemm_dpas),
	T(wgmma_n8), T(wgmma_n32), T(wgmma_n56), T(wgmma_pair), T(wgmma_sw128), T(wgmma_async),
	T(hgemm_wg),
	T(hgemm_wga),
	T(hgemm_wga_s3), T(hgemm_wga2), T(hgemm_wgp), T(hgemm_wgp2), T(hgemm_wgs2),
	T(hgemm_wgs2_epi), T(sgemm_slm), T(sgemm_slm_async),
	T(dgemm_slm), T(dgemm_async), T(dgemm_async64), T(dgemm_async_shapes),
	{0},
};
