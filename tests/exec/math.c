/* math.c — integer and float math builtins with saturation, bit
 * operations, reductions, masks, dot products. */
#include "harness.h"

#define F "math"

static int32_t sat(int64_t v, int64_t lo, int64_t hi) { return (int32_t)(v < lo ? lo : v > hi ? hi : v); }

TEST(int_math)
{
	int32_t x[16], y[16], o[128], w[128];
	h_fill_i32(h, x, 16, -40000, 40000);
	h_fill_i32(h, y, 16, -40000, 40000);
	for (int i = 0; i < 16; i++) {
		int64_t a = x[i], b = y[i];
		w[i] = sat(a + b, -32768, 32767);
		w[16 + i] = (int32_t)(uint32_t)(a * b);
		w[32 + i] = a < b ? x[i] : y[i];
		w[48 + i] = a > b ? x[i] : y[i];
		w[64 + i] = x[i] < 0 ? -x[i] : x[i];
		w[80 + i] = (int32_t)((a + b + 1) >> 1);
		w[96 + i] = (int32_t)((uint32_t)x[i] << 3);
		w[112 + i] = sat(a + b, 0, 255);
	}
	if (H_RUN(h, F, "imath", WALK(1, 1), IN(x), IN(y), OUT(o)))
		h_eq_i32(h, "out", o, w, 128);
}

TEST(float_math)
{
	float x[16], y[16], o[128], w[128];
	h_fill_f32(h, x, 16, 0.5f, 4);
	h_fill_f32(h, y, 16, -3, 3);
	for (int i = 0; i < 16; i++) {
		w[i] = sqrtf(x[i]);
		w[16 + i] = 1 / x[i];
		w[32 + i] = 1 / sqrtf(x[i]);
		w[48 + i] = log2f(x[i]);
		w[64 + i] = exp2f(y[i]);
		w[80 + i] = sinf(y[i]) + cosf(y[i]);
		w[96 + i] = powf(x[i], y[i]);
		w[112 + i] = floorf(y[i]) + ceilf(y[i]) * 10 + (y[i] - floorf(y[i]));
	}
	if (H_RUN(h, F, "fmath", WALK(1, 1), IN(x), IN(y), OUT(o)))
		h_near_f32(h, "out", o, w, 128, 1e-3f);
}

TEST(bit_math)
{
	uint32_t x[16], y[16], o[64], w[64];
	for (int i = 0; i < 16; i++)
		x[i] = h_rand(h) >> (h_rand(h) % 32), y[i] = 0;
	x[0] = 0;
	for (int i = 0; i < 16; i++) {
		uint32_t v = x[i];
		w[i] = (uint32_t)__builtin_popcount(v);
		w[16 + i] = v ? (uint32_t)__builtin_ctz(v) : 0xFFFFFFFFu;
		w[32 + i] = v ? (uint32_t)__builtin_clz(v) : 32;
		w[48 + i] = (v >> 4) & 0xFF;
	}
	if (H_RUN(h, F, "bits", WALK(1, 1), IN(x), IN(y), OUT(o)))
		h_eq_u32(h, "out", o, w, 64);
}

TEST(reductions)
{
	int32_t x[16], y[16], o[16], w[16] = {0};
	h_fill_i32(h, x, 16, -1000, 1000);
	h_fill_i32(h, y, 16, -9, 9);
	int64_t s = 0, mn = x[0], mx = x[0];
	uint32_t m = 0;
	for (int i = 0; i < 16; i++) {
		s += x[i];
		mn = x[i] < mn ? x[i] : mn;
		mx = x[i] > mx ? x[i] : mx;
		m |= (uint32_t)(x[i] > y[i]) << i;
	}
	w[0] = (int32_t)s;
	w[1] = y[0] * y[1] * y[2] * y[3];
	w[2] = (int32_t)mn;
	w[3] = (int32_t)mx;
	w[4] = (int32_t)m;
	w[5] = sat(s * 1000, -32768, 32767);
	for (int i = 0; i < 8; i++)
		w[8 + i] = (0xA5F0 >> (2 * i + 1)) & 1;
	if (H_RUN(h, F, "reduce", WALK(1, 1), IN(x), IN(y), OUT(o)))
		h_eq_i32(h, "out", o, w, 16);
}

TEST(dot_products)
{
	float x[16], y[16], o[32], w[32];
	h_fill_f32(h, x, 16, -2, 2);
	h_fill_f32(h, y, 16, -2, 2);
	for (int t = 0; t < 4; t++) {
		const float *a = x + 4 * t, *b = y + 4 * t;
		float d4 = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
		float d3 = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
		for (int k = 0; k < 4; k++) {
			int i = 4 * t + k;
			float s0 = x[i] * 0.01f;
			w[i] = d4;
			w[16 + i] = d3 + (y[i] * s0 + x[i] * (1 - s0));
		}
	}
	if (H_RUN(h, F, "dots", WALK(1, 1), IN(x), IN(y), OUT(o)))
		h_near_f32(h, "out", o, w, 32, 1e-4f);
}

TEST(div_imul)
{
	uint32_t x[16], y[16], o[64], w[64];
	for (int i = 0; i < 16; i++)
		x[i] = h_rand(h) * 7u, y[i] = h_rand(h) % 100000 + 1;
	for (int i = 0; i < 16; i++) {
		uint64_t p = (uint64_t)x[i] * y[i];
		w[i] = x[i] / y[i], w[16 + i] = x[i] % y[i];
		w[32 + i] = (uint32_t)(p >> 32), w[48 + i] = (uint32_t)p;
	}
	if (H_RUN(h, F, "divmul", WALK(1, 1), IN(x), IN(y), OUT(o)))
		h_eq_u32(h, "out", o, w, 64);
}

TEST(div_const)
{
	static const int32_t ds[12] = {3, 7, 9, 48, 64, 641, 65537, -3, -64, 1, 0x40000001,
	                               0x7fffffff};
	uint32_t x[32], o[12 * 128], w[12 * 128];
	const uint32_t edge[] = {0, 1, 2, 3, 47, 48, 49, 0x7fffffffu, 0x80000000u, 0x80000001u,
	                         0xfffffffdu, 0xfffffffeu, 0xffffffffu, 65536, 65537, 641 * 3};
	for (int i = 0; i < 32; i++)
		x[i] = i < 16 ? edge[i] : h_rand(h) * (uint32_t)(i * 2654435761u);
	for (int d = 0; d < 12; d++)
		for (int i = 0; i < 32; i++) {
			int32_t si = (int32_t)x[i], sd = ds[d];
			uint32_t ud = (uint32_t)sd;
			bool ovf = si == INT32_MIN && sd == -1;
			w[(4 * d + 0) * 32 + i] = x[i] / ud;
			w[(4 * d + 1) * 32 + i] = x[i] % ud;
			w[(4 * d + 2) * 32 + i] = ovf ? (uint32_t)si : (uint32_t)(si / sd);
			w[(4 * d + 3) * 32 + i] = ovf ? 0 : (uint32_t)(si % sd);
		}
	if (H_RUN(h, F, "divconst", WALK(1, 1), IN(x), OUT(o)))
		h_eq_u32(h, "out", o, w, 12 * 128);
}

const HTest exec_math[] = {
	T(div_const), T(div_imul), T(int_math), T(float_math), T(bit_math), T(reductions), T(dot_products), {0},
};
