/* diff_regress.c — the findings of tests/diff (the differential tester of
 * the code generators), each against a C reference. */
#include "harness.h"

#define F "diff_regress"

TEST(merge_one_element)
{
	int32_t x[4], o[4], w[4];
	h_fill_i32(h, x, 4, -1000, 1000);
	uint32_t m = h_rand(h) % 4;
	for (int k = 0; k < 4; k++)
		w[k] = (x[k] & 7) - 4;
	if (m & 1)
		w[2] = x[1];
	w[0] = (m >> 1) & 1 ? x[3] : 7;
	w[3] = (int32_t)m + 1;
	if (H_RUN(h, F, "merge1", WALK(1, 1), IN(x), OUT(o), U32(m)))
		h_eq_i32(h, "out", o, w, 4);
}

TEST(f64_halves_as_f32)
{
	double d[8];
	float o[8], w[8];
	for (int k = 0; k < 8; k++)
		d[k] = (double)h_range(h, -100000, 100000) / 7.0;
	for (int k = 0; k < 8; k++)
		memcpy(&w[k], (const char *)&d[k] + 4, 4);
	if (H_RUN(h, F, "f64_as_f32", WALK(1, 1), IN(d), OUT(o)))
		h_eq_u32(h, "out", (const uint32_t *)o, (const uint32_t *)w, 8);
}

TEST(layout_order)
{
	int32_t in[96], o[96] = {0}, w[96] = {0};
	h_fill_i32(h, in, 96, -3, 3);
	uint32_t s = h_rand(h), r = s % 4;
	int32_t m[5][16], *v2 = in + 80;
	memcpy(m, in, sizeof m);
	for (int k = 0; k < 4; k++)
		if (v2[k] > 0)
			m[k][3] = 1;
	for (int i = 0; i < 4; i++) {
		int32_t t[12];
		for (int k = 0; k < 12; k++)
			t[k] = (m[1 + k / 6][10 + k % 6] != v2[i]) + v2[k];
		memcpy(&m[2][0], t, sizeof t);
	}
	int32_t lim = (m[4][r + 5] & 3) + 1;
	memcpy(w, m, sizeof m);
	for (int k = 0; k < 32; k++)
		((uint16_t *)(w + 80))[k] = (uint16_t)lim;
	if (H_RUN(h, F, "layout_order", WALK(1, 1), IN(in), OUT(o), U32(s)))
		h_eq_i32(h, "out", o, w, 96);
}

TEST(svm_scatter_absolute)
{
	uint32_t in[32], o[36] = {0}, w[36] = {0};
	for (int k = 0; k < 32; k++)
		in[k] = h_rand(h);
	for (int k = 0; k < 32; k++)
		w[4 + (k * 5) % 32] = in[k];
	if (H_RUN(h, F, "svm_scatter_const", WALK(1, 1), SVM_IN(in), SVM_OUT(o)))
		h_eq_u32(h, "out", o, w, 36);
}

TEST(dw_aligned_f64)
{
	uint32_t in[48], sv[16], o[32], w[32];
	for (int k = 0; k < 48; k++)
		in[k] = h_rand(h);
	for (int k = 0; k < 16; k++)
		sv[k] = h_rand(h);
	memcpy(w, (const char *)in + 60, 64);
	memcpy(w + 16, (const char *)sv + 12, 32);
	memcpy(w + 24, (const char *)w + 20, 32);
	if (H_RUN(h, F, "dw_aligned_f64", WALK(1, 1), IN(in), OUT(o), SVM_IN(sv)))
		h_eq_u32(h, "out", o, w, 32);
}

TEST(sat64)
{
	uint32_t in[32], o[88], w[88] = {0};
	int32_t a[8];
	uint64_t u[8];
	uint32_t b[8];
	for (int k = 0; k < 32; k++)
		in[k] = h_rand(h);
	for (int k = 0; k < 8; k++)
		in[k] = (uint32_t)h_range(h, -1000, 1000);
	in[9] |= 0x80000000u;     /* u[1] and u[7] from 2^63 up */
	in[23] |= 0x80000000u;
	in[24] |= 0xfff00000u;    /* b[0]: a product past 2^63 */
	memcpy(a, in, 32);
	memcpy(u, in + 8, 64);
	memcpy(b, in + 24, 32);
	uint64_t r[8];
	int64_t s[8];
	for (int k = 0; k < 8; k++)
		r[k] = a[k] < 0 ? 0 : (uint64_t)a[k];
	memcpy(w, r, 64);
	memcpy(w + 16, u, 64);
	for (int k = 0; k < 8; k++)
		s[k] = u[k] > INT64_MAX ? INT64_MAX : (int64_t)u[k];
	memcpy(w + 32, s, 64);
	for (int k = 0; k < 8; k++)
		r[k] = a[k] < 0 ? 0 : 2 * (uint64_t)a[k];
	memcpy(w + 48, r, 64);
	for (int k = 0; k < 8; k++) {
		uint64_t p = (uint64_t)b[k] * b[k];
		w[64 + k] = p > UINT32_MAX ? UINT32_MAX : (uint32_t)p;
	}
	int16_t hs[8];
	for (int k = 0; k < 8; k++)
		hs[k] = u[k] > 32767 ? 32767 : (int16_t)u[k];
	memcpy(w + 72, hs, 16);
	float f[8];
	for (int k = 0; k < 8; k++)
		f[k] = (float)((uint64_t)b[k] * b[k]);
	memcpy(w + 76, f, 32);
	if (H_RUN(h, F, "sat64", WALK(1, 1), IN(in), OUT(o)))
		h_eq_u32(h, "out", o, w, 84);
}

TEST(half_splat)
{
	uint16_t in[8], o[8], w[8];
	for (int k = 0; k < 8; k++)
		in[k] = (uint16_t)h_rand(h);
	in[3] = (uint16_t)(in[3] & 0x3fff);   /* a finite half */
	for (int k = 0; k < 8; k++)
		w[k] = in[3];
	if (H_RUN(h, F, "half_splat", WALK(1, 1), IN(in), OUT(o)))
		h_eq_i16(h, "out", (const int16_t *)o, (const int16_t *)w, 8);
}

/* NaN payloads (0x7f50, 0xfdce: quiet and signaling) survive merge and
 * copies bit for bit. */
TEST(half_nan_move)
{
	uint16_t in[48], o[48], w[48];
	for (int k = 0; k < 32; k++) {
		static const uint16_t nan[] = {0x7f50, 0xfdce, 0x7c01, 0xffff};
		in[k] = h_rand(h) % 2 ? nan[h_rand(h) % 4] : (uint16_t)(h_rand(h) & 0xbfff);
	}
	for (int k = 0; k < 16; k++)
		in[32 + k] = (uint16_t)(h_rand(h) % 2);
	for (int k = 0; k < 16; k++) {
		uint16_t v = in[32 + k] & 1 ? in[16 + k] : in[k];
		w[k] = v;
		w[16 + k] = k >= 4 && k < 8 ? in[16 + 8 + k - 4] : v;
		w[32 + k] = (in[32 + k] ^ 1) & 1 ? v : in[16 + k];
	}
	if (H_RUN(h, F, "half_nan_move", WALK(1, 1), IN(in), OUT(o)))
		h_eq_i16(h, "out", (const int16_t *)o, (const int16_t *)w, 48);
}

TEST(avg64)
{
	uint64_t in[16], o[16], w[16];
	for (int k = 0; k < 16; k++)
		in[k] = (uint64_t)h_rand(h) << 32 | h_rand(h);
	for (int k = 0; k < 8; k++) {
		uint64_t a = in[k], b = in[8 + k];
		w[k] = (a >> 1) + (b >> 1) + ((a | b) & 1);
		/* floor((a + b + 1) / 2) of the signed values */
		int64_t sa = (int64_t)a, sb = (int64_t)b;
		w[8 + k] = (uint64_t)((sa >> 1) + (sb >> 1) + ((sa | sb) & 1));
	}
	if (H_RUN(h, F, "avg64", WALK(1, 1), IN(in), OUT(o)))
		h_eq_u32(h, "out", (const uint32_t *)o, (const uint32_t *)w, 32);
}

TEST(media_edge)
{
	enum { W = 16, HH = 4 };
	uint32_t img[W * HH];
	uint8_t o[64], w[64];
	for (int k = 0; k < W * HH; k++)
		img[k] = h_rand(h);
	const uint8_t *b = (const uint8_t *)img;
	for (int r = 0; r < 2; r++)
		for (int c = 0; c < 16; c++) {
			int x = 56 + c, y = r;          /* bytes 64.. repeat pixel 15 */
			int px = x / 4 > W - 1 ? W - 1 : x / 4;
			w[r * 16 + c] = b[(y * W + px) * 4 + x % 4];
			x = -8 + c, y = 1 + r;          /* bytes below 0 repeat pixel 0 */
			px = x < 0 ? 0 : x / 4;
			w[32 + r * 16 + c] = b[(y * W + px) * 4 + ((x % 4) + 4) % 4];
		}
	if (H_RUN(h, F, "media_edge", WALK(1, 1), SURF2D(img, W, HH, CMETAL_FMT_R32_UINT), OUT(o)))
		h_eq_u8(h, "out", o, w, 64);
}

/* n (exact, 128 bits) clamped to [lo, hi]. */
static __int128 clamp128(__int128 n, __int128 lo, __int128 hi)
{
	return n < lo ? lo : n > hi ? hi : n;
}

TEST(sat64_arith)
{
	static const uint64_t edge[8] = {
		UINT64_MAX, UINT64_MAX - 2, 1ull << 63, (1ull << 63) - 1, 1ull << 32, 3, 0, 0xfffffffffffffff0ull,
	};
	uint64_t in[32], o[16 * 5 + 8], w[16 * 5 + 8];
	for (int k = 0; k < 32; k++)
		in[k] = k % 4 == 3 ? (uint64_t)h_rand(h) << 32 | h_rand(h) : edge[h_rand(h) % 8];
	const __int128 U = (__int128)UINT64_MAX, SL = (__int128)INT64_MIN, SH = (__int128)INT64_MAX;
	int32_t *w5 = (int32_t *)&w[16 * 5];
	for (int k = 0; k < 16; k++) {
		__int128 a = (__int128)in[k], b = (__int128)in[16 + k];
		__int128 sa = (int64_t)in[k], sb = (int64_t)in[16 + k];
		w[k] = (uint64_t)clamp128(a + b, 0, U);
		unsigned __int128 ab = (unsigned __int128)in[k] * in[16 + k];   /* may pass 2^127 */
		w[16 + k] = ab > UINT64_MAX ? UINT64_MAX : (uint64_t)ab;
		w[32 + k] = (uint64_t)clamp128(sa + sb, SL, SH);
		w[48 + k] = (uint64_t)clamp128(sa * sb, SL, SH);
		/* the short converted to u64 first (C's conversions) */
		__int128 hs = (__int128)(uint64_t)(int64_t)(int16_t)in[k];
		w[64 + k] = (uint64_t)clamp128(hs + b, 0, U);
		w5[k] = (int32_t)clamp128(sa + sb, INT32_MIN, INT32_MAX);
	}
	memset(o, 0, sizeof o);
	if (H_RUN(h, F, "sat64_arith", WALK(1, 1), IN(in), OUT(o)))
		h_eq_u32(h, "out", (const uint32_t *)o, (const uint32_t *)w, sizeof w / 4);
}

const HTest exec_diff_regress[] = {
	T(merge_one_element), T(f64_halves_as_f32), T(layout_order), T(svm_scatter_absolute),
	T(dw_aligned_f64), T(sat64), T(half_splat), T(half_nan_move), T(avg64), T(media_edge),
	T(sat64_arith), {0},
};
