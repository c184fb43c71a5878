/* unroll.c — loops the PTX back end runs several iterations a trip
 * (ptx/unroll.c) against sequential references, with every trip count
 * from 0 to 9 (none, some and all of the iterations in unrolled trips),
 * loop-carried memory and bounds near INT_MIN. */
#include "harness.h"

#define F "unroll"

static uint32_t at_u32(const uint32_t *a, size_t n, uint32_t off, int k)
{
	uint64_t b = (uint64_t)off + 4u * (uint64_t)k;
	return b + 4 <= n * 4 ? a[b / 4] : 0;
}

TEST(unroll_carried)
{
	enum { NT = 10, N = NT * 12 * 32 };
	static int32_t prm[NT][4];
	static uint32_t a[N], w[N];
	for (int i = 0; i < N; i++)
		a[i] = w[i] = h_rand(h);
	for (int t = 0; t < NT; t++) {   /* t iterations from block 12 t */
		prm[t][0] = t * 12 * 32, prm[t][1] = prm[t][0] + t * 32;
		for (int32_t i = prm[t][0]; i < prm[t][1]; i += 32)
			for (int k = 0; k < 32; k++)
				w[i + 32 + k] = w[i + k] * 3 + 1;
	}
	if (H_RUN(h, F, "carried", GROUPS(2, NT / 2), IN(prm), INOUT(a)))
		h_eq_u32(h, "a", a, w, N);
}

TEST(unroll_inplace)
{
	enum { NT = 10, N = NT * 10 * 32 };
	static int32_t prm[NT][4];
	static uint32_t a[N], w[N], sums[NT * 32], ws[NT * 32];
	for (int i = 0; i < N; i++)
		a[i] = w[i] = h_rand(h);
	memset(ws, 0, sizeof ws);
	for (int t = 0; t < NT; t++) {
		prm[t][0] = t * 10 * 32, prm[t][1] = prm[t][0] + t * 32 - (t == 7 ? 5 : 0);
		for (int32_t i = prm[t][0]; i < prm[t][1]; i += 32)
			for (int k = 0; k < 32; k++) {
				ws[t * 32 + k] += w[i + k];
				w[i + k] += ws[t * 32 + k];
			}
	}
	if (H_RUN(h, F, "inplace", GROUPS(1, NT), IN(prm), INOUT(a), OUT(sums)) &&
	    h_eq_u32(h, "sums", sums, ws, NT * 32))
		h_eq_u32(h, "a", a, w, N);
}

TEST(unroll_chain)
{
	enum { NT = 10, N = NT * 1024 };
	static uint32_t prm[NT][4], a[N], w[N];
	for (int i = 0; i < N; i++)
		a[i] = w[i] = h_rand(h);
	for (uint32_t t = 0; t < NT; t++) {   /* j from 3 to 3 + t - 1: t iterations */
		prm[t][0] = 3, prm[t][1] = 3 + t - 1;
		if (!t)
			prm[t][1] = 1;   /* 3 <= 1: none */
		for (uint32_t l = 0; l < 16; l++)
			for (uint32_t j = prm[t][0]; j <= prm[t][1]; j++) {
				uint32_t *e = &w[t * 1024 + l * 64 + j];
				e[1] = e[0] ^ (e[0] << 3) ^ j;
			}
	}
	if (H_RUN(h, F, "chain", GROUPS(1, NT), IN(prm), INOUT(a)))
		h_eq_u32(h, "a", a, w, N);
}

TEST(unroll_edges)
{
	enum { NT = 8, N = 512 };
	/* {first, bound, bias, <=?}: <= with the bound 0, 1, 20 and 40 above
	 * INT_MIN (below and past the unrolled trips' reach), and INT_MAX - 7
	 * as the last step; i + 4 < bound from 0 to 9, 10, 30 and 100 */
	static const int32_t prm[NT][4] = {
		{INT32_MIN, INT32_MIN, INT32_MIN, 1}, {INT32_MIN, INT32_MIN + 1, INT32_MIN, 1},
		{INT32_MIN, INT32_MIN + 20, INT32_MIN, 1}, {INT32_MIN, INT32_MIN + 40, INT32_MIN, 1},
		{0, 9, 0, 0}, {0, 10, 0, 0}, {1, 30, 0, 0}, {2, 100, 0, 0},
	};
	static uint32_t a[N], sums[NT * 32], ws[NT * 32];
	for (int i = 0; i < N; i++)
		a[i] = h_rand(h);
	memset(ws, 0, sizeof ws);
	for (int t = 0; t < NT; t++) {
		int64_t step = prm[t][3] ? 7 : 3, c = prm[t][3] ? 0 : 4;
		for (int64_t i = prm[t][0]; prm[t][3] ? i <= prm[t][1] : i + c < prm[t][1]; i += step)
			for (int k = 0; k < 32; k++) {
				uint32_t off = (uint32_t)(i - prm[t][2]) * 4u;
				ws[t * 32 + k] = ws[t * 32 + k] * 5 + at_u32(a, N, off, k);
			}
	}
	if (H_RUN(h, F, "edges", GROUPS(1, NT), IN(prm), IN(a), OUT(sums)))
		h_eq_u32(h, "sums", sums, ws, NT * 32);
}

TEST(unroll_slm_hist)
{
	enum { NT = 10, N = NT * 10 * 32 };
	static int32_t prm[NT][4];
	static uint32_t keys[N], out[NT * 32], want[NT * 32];
	for (int i = 0; i < N; i++)
		keys[i] = h_rand(h);
	memset(want, 0, sizeof want);
	for (int t = 0; t < NT; t++) {   /* t iterations, group of one thread */
		prm[t][0] = t * 10 * 32, prm[t][1] = prm[t][0] + t * 32;
		for (int32_t i = prm[t][0]; i < prm[t][1]; i++)
			want[t * 32 + (keys[i] & 31)]++;
	}
	if (H_RUN(h, F, "slm_hist", GROUPS(NT, 1), IN(prm), IN(keys), OUT(out)))
		h_eq_u32(h, "bins", out, want, NT * 32);
}

const HTest exec_unroll[] = {
	T(unroll_carried), T(unroll_inplace), T(unroll_chain), T(unroll_edges),
	T(unroll_slm_hist), {0},
};
