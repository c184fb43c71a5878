/* vloop.c — loops whose block accesses are checked once per loop on the
 * GPU (ptx/vloop.c), against references with CM's rules: reads outside
 * the buffer give 0, writes there are dropped. */
#include "harness.h"

#define F "vloop"

/* uint element k of a buffer of n elements at byte offset off (u32, as the
 * hardware's message offset: a negative int wraps far past the end) */
static uint32_t at_u32(const uint32_t *a, size_t n, uint32_t off, int k)
{
	uint64_t b = (uint64_t)off + 4u * (uint64_t)k;
	return b + 4 <= n * 4 ? a[b / 4] : 0;
}

TEST(vloop_rows)
{
	enum { NT = 8, N = 1024 };
	/* {start, end, -, shift}: inside, ending past the end, starting before
	 * byte 0, empty, one iteration, the whole buffer */
	static const int32_t prm[NT][4] = {
		{0, 256, 0, 0}, {0, 1024, 0, 0}, {512, 1100, 0, 5}, {-64, 64, 0, 0},
		{100, 100, 0, 0}, {992, 1000, 0, 0}, {32, 990, 0, 3}, {-1, 40, 0, 0},
	};
	static uint32_t a[N], o[N], w[N], sums[NT * 32], ws[NT * 32];
	for (int i = 0; i < N; i++)
		a[i] = h_rand(h), o[i] = w[i] = h_rand(h);
	memset(ws, 0, sizeof ws);
	/* each thread writes blocks it read; threads 1 and 6 overlap others
	 * with the same values (2 * a), so the order does not matter */
	for (int t = 0; t < NT; t++)
		for (int32_t i = prm[t][0]; i < prm[t][1]; i += 32) {
			uint32_t off = (uint32_t)(i + prm[t][3]) * 4u;
			for (int k = 0; k < 32; k++) {
				uint32_t v = at_u32(a, N, off, k);
				ws[t * 32 + k] += v;
				uint64_t b = (uint64_t)off + 4u * (uint64_t)k;
				if (b + 4 <= N * 4)
					w[b / 4] = v * 2;
			}
		}
	HShape sh = GROUPS(2, NT / 2);
	sh.options = "-fno-bounds-check"; /* outside on purpose */
	if (H_RUN(h, F, "rows", sh, IN(prm), IN(a), INOUT(o), OUT(sums)) &&
	    h_eq_u32(h, "sums", sums, ws, NT * 32))
		h_eq_u32(h, "out", o, w, N);
}

TEST(vloop_cols)
{
	enum { NT = 6, N = 40, ROWS = 30 };
	/* {first row, last row (<=), column, -} */
	static const uint32_t prm[NT][4] = {
		{0, 27, 0, 0}, {1, 29, 32, 0}, {2, 35, 8, 0}, {0, 0, 33, 0},
		{5, 4, 0, 0}, {0xfffffff0u, 0xfffffffeu, 0, 0},
	};
	static double a[ROWS * N], sums[NT * 8], ws[NT * 8];
	for (int i = 0; i < ROWS * N; i++)
		a[i] = (double)(h_rand(h) % 1000) / 8.0;
	memset(ws, 0, sizeof ws);
	for (int t = 0; t < NT; t++)
		for (uint64_t r = prm[t][0]; r <= prm[t][1]; r += 3)
			for (int k = 0; k < 8; k++) {
				uint64_t b = (uint64_t)((uint32_t)((uint32_t)r * N + prm[t][2]) * 8u) + 8u * k;
				ws[t * 8 + k] += b + 8 <= sizeof a ? a[b / 8] : 0.0;
			}
	HShape sh = GROUPS(1, NT);
	sh.options = "-fno-bounds-check -fno-warp-packing"; /* packed threads: not versioned */
	if (H_RUN(h, F, "cols", sh, IN(prm), IN(a), OUT(sums), U32(N)))
		h_eq_u8(h, "sums (exact: eighths)", (const uint8_t *)sums, (const uint8_t *)ws,
		        sizeof sums);
}

TEST(vloop_tail)
{
	enum { NT = 4, N = 2048 };
	/* {i0, end, bytes below i << 7, -} */
	static const int32_t prm[NT][4] = {
		{0, 60, 0, 0}, {1, 70, 64, 0}, {0, 9, 256, 0}, {30, 20, 4, 0},
	};
	static uint32_t a[N], sums[NT * 32], ws[NT * 32];
	for (int i = 0; i < N; i++)
		a[i] = h_rand(h);
	memset(ws, 0, sizeof ws);
	for (int t = 0; t < NT; t++) {
		int32_t i = prm[t][0];
		do {
			uint32_t off = (uint32_t)(i << 7) - (uint32_t)prm[t][2];
			for (int k = 0; k < 32; k++)
				ws[t * 32 + k] += at_u32(a, N, off, k) * (uint32_t)(i + 1);
			i += 2;
		} while (i < prm[t][1]);
	}
	HShape sh = GROUPS(1, NT);
	sh.options = "-fno-bounds-check";
	if (H_RUN(h, F, "tail_test", sh, IN(prm), IN(a), OUT(sums)))
		h_eq_u32(h, "sums", sums, ws, NT * 32);
}

TEST(vloop_ahead)
{
	enum { NT = 5, N = 1024 };
	/* {first o, end, bias}: inside; past the end; o + 128 wraps past 2^32
	 * on the first step and passes the test, then o = 0, 128, ... reads
	 * past the end (the test before the loop must see the wrap: the first
	 * offset alone is inside); empty; not a multiple of 128 */
	static const uint32_t prm[NT][4] = {
		{0, 384, 0, 0}, {384, 600, 0, 0}, {0xffffff80u, 1024, 0xffffff80u, 0},
		{64, 150, 0, 0}, {128, 500, 0, 0},
	};
	static uint32_t a[N], sums[NT * 32], ws[NT * 32];
	for (int i = 0; i < N; i++)
		a[i] = h_rand(h);
	memset(ws, 0, sizeof ws);
	for (int t = 0; t < NT; t++)
		for (uint32_t o = prm[t][0]; o + 128u <= prm[t][1]; o += 128u)
			for (int k = 0; k < 32; k++)
				ws[t * 32 + k] += at_u32(a, N, (o - prm[t][2]) * 8u, k) ^ o;
	HShape sh = GROUPS(1, NT);
	sh.options = "-fno-bounds-check";
	if (H_RUN(h, F, "ahead", sh, IN(prm), IN(a), OUT(sums)))
		h_eq_u32(h, "sums", sums, ws, NT * 32);
}

/* the SLM's second buffer: 960 uints of 3,840 bytes from byte 256 */
TEST(vloop_slm_rows)
{
	enum { NT = 7, NB = 960 };
	/* {start, end, -, shift} in elements of the buffer: inside, ending
	 * past the SLM's end, starting before the buffer (a negative offset
	 * is far past the end as a u32), empty, one iteration, the whole
	 * buffer, unaligned */
	static const int32_t prm[NT][4] = {
		{0, 256, 0, 0}, {0, 1000, 0, 0}, {512, 1100, 0, 5}, {-64, 64, 0, 0},
		{100, 100, 0, 0}, {0, 960, 0, 0}, {32, 900, 0, 3},
	};
	static uint32_t a[NT * NB], o[NT * NB], w[NT * NB], sums[NT * 32], ws[NT * 32];
	for (int i = 0; i < NT * NB; i++)
		a[i] = h_rand(h);
	memset(ws, 0, sizeof ws);
	for (int t = 0; t < NT; t++) {
		uint32_t *slm = w + t * NB;
		memcpy(slm, a + t * NB, NB * 4);
		for (int32_t i = prm[t][0]; i < prm[t][1]; i += 32) {
			uint64_t e0 = (uint32_t)(i + prm[t][3]);
			uint32_t v[32];
			for (int k = 0; k < 32; k++) {
				v[k] = e0 + k < NB ? slm[e0 + k] : 0;
				ws[t * 32 + k] += v[k];
			}
			for (int k = 0; k < 32; k++)
				if (e0 + k < NB)
					slm[e0 + k] = v[k] + 1;
		}
	}
	HShape sh = GROUPS(NT, 1);
	sh.options = "-fno-bounds-check"; /* outside on purpose */
	if (H_RUN(h, F, "slm_rows", sh, IN(prm), IN(a), OUT(o), OUT(sums)) &&
	    h_eq_u32(h, "sums", sums, ws, NT * 32))
		h_eq_u32(h, "slm", o, w, NT * NB);
}

TEST(vloop_slm_extracts)
{
	enum { NT = 6 };
	/* {first kk, end, shift}: inside and aligned; misaligned; past the
	 * table's end; before its start; empty; one step */
	static const int32_t prm[NT][4] = {
		{0, 16, 0, 0}, {0, 15, 3, 0}, {10, 17, 0, 0}, {-1, 4, 8, 0},
		{5, 5, 0, 0}, {15, 16, 0, 0},
	};
	static float a[NT * 256], sums[NT * 32], ws[NT * 32];
	for (int i = 0; i < NT * 256; i++)
		a[i] = (float)(h_rand(h) % 64) / 8.0f;
	memset(ws, 0, sizeof ws);
	for (int t = 0; t < NT; t++) {
		const float *tab = a + t * 256;
		for (int kk = prm[t][0]; kk < prm[t][1]; kk++)
			for (int r = 0; r < 16; r++) {
				int e = kk * 16 + prm[t][2] + r;
				float x = e >= 0 && e < 256 ? tab[e] : 0.0f;
				for (int k = 0; k < 32; k++)
					ws[t * 32 + k] += x * tab[k];
			}
	}
	HShape sh = GROUPS(1, NT);
	sh.options = "-fno-bounds-check"; /* outside on purpose */
	if (H_RUN(h, F, "slm_extracts", sh, IN(prm), IN(a), OUT(sums)))
		h_eq_u8(h, "sums (exact: 64ths)", (const uint8_t *)sums, (const uint8_t *)ws,
		        sizeof sums);
}

static const uint32_t odd32[32] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30,
	1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31};

TEST(vloop_gathers)
{
	enum { NT = 6, N = 1024 };
	/* {start, end, -, shift}: inside; past a's end (1024 elements); from
	 * below element 0 (i + shift + odd32[k] adds as a u32: -24 + 30 is
	 * element 6); empty; one step; unaligned.  The SLM side adds each
	 * step's values to elements 16 + odd32 (from byte 64), the same every
	 * step: inside for certain */
	static const int32_t prm[NT][4] = {
		{0, 900, 0, 0}, {0, 1000, 0, 5}, {-40, 200, 0, 0}, {7, 7, 0, 0},
		{100, 101, 0, 0}, {480, 980, 0, 2},
	};
	static uint32_t a[N], o[NT * N], w[NT * N], sums[NT * 32], ws[NT * 32];
	for (int i = 0; i < N; i++)
		a[i] = h_rand(h) % 1000000;
	memset(ws, 0, sizeof ws);
	for (int t = 0; t < NT; t++) {
		uint32_t *slm = w + t * N;
		memcpy(slm, a, sizeof a);
		for (int32_t i = prm[t][0]; i < prm[t][1]; i += 16) {
			uint32_t g = (uint32_t)(i + prm[t][3]), v[32], x[32];
			for (int k = 0; k < 32; k++) {
				uint64_t e = (uint64_t)(uint32_t)(g + odd32[k]);
				v[k] = e < N ? a[e] : 0;
				ws[t * 32 + k] += v[k];
				x[k] = slm[16 + odd32[k]];   /* SLM from byte 64 */
			}
			for (int k = 0; k < 32; k++)
				slm[16 + odd32[k]] = x[k] + v[k];
		}
	}
	HShape sh = GROUPS(NT, 1);
	sh.options = "-fno-bounds-check"; /* outside on purpose */
	if (H_RUN(h, F, "gathers", sh, IN(prm), IN(a), OUT(o), OUT(sums)) &&
	    h_eq_u32(h, "sums", sums, ws, NT * 32))
		h_eq_u32(h, "slm", o, w, NT * N);
}

const HTest exec_vloop[] = {
	T(vloop_rows), T(vloop_cols), T(vloop_tail), T(vloop_ahead), T(vloop_slm_rows),
	T(vloop_slm_extracts), T(vloop_gathers), {0},
};
