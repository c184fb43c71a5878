/* arith.c — the math forms math.c leaves out: cm_addc/cm_subb, cm_quot/
 * cm_mod, cm_shr/lsr/asr/rol/ror, cm_fbh, cm_bf_reverse/insert, IEEE sqrt
 * and division, sincos, asin/acos/atan, rnde/rndz, the legacy half
 * conversions, dp2/dph/line/pln/sad2/sada2 and the cmtl helpers. */
#include <stdlib.h>

#include "harness.h"

#define F "arith"

static uint32_t rol32(uint32_t v, uint32_t s) { s &= 31; return s ? v << s | v >> (32 - s) : v; }
static uint32_t ror32(uint32_t v, uint32_t s) { s &= 31; return s ? v >> s | v << (32 - s) : v; }

/* Index of the first set bit from the MSB; signed: the first bit that
 * differs from the sign bit.  ~0u when there is none. */
static uint32_t fbh_u(uint32_t v) { return v ? (uint32_t)__builtin_clz(v) : ~0u; }
static uint32_t fbh_s(int32_t v) { return fbh_u(v < 0 ? ~(uint32_t)v : (uint32_t)v); }

static uint32_t bfrev(uint32_t v)
{
	uint32_t r = 0;
	for (int i = 0; i < 32; i++)
		r |= ((v >> i) & 1u) << (31 - i);
	return r;
}

static uint32_t bfi(uint32_t w, uint32_t off, uint32_t val, uint32_t src)
{
	uint32_t m = (w >= 32 ? ~0u : ((1u << w) - 1)) << off;
	return (src & ~m) | ((val << off) & m);
}

TEST(int_forms)
{
	uint32_t x[16], y[16], s[16], o[256], w[256];
	for (int i = 0; i < 16; i++) {
		x[i] = h_rand(h);
		y[i] = h_rand(h) >> (h_rand(h) % 31);
		s[i] = h_rand(h) % 32;
	}
	y[0] = x[0], y[1] = ~x[1] + 5;   /* equal operands, a carry */
	x[2] = 0, x[3] = 0xFFFFFFFFu;    /* fbh of 0 and -1 */
	for (int i = 0; i < 16; i++) {
		if (y[i] == 0)
			y[i] = 3;
		int32_t xi = (int32_t)x[i], yi = (int32_t)y[i];
		if (yi == -1)
			yi = -3, y[i] = (uint32_t)yi;
		uint64_t sum = (uint64_t)x[i] + y[i];
		w[i] = (uint32_t)sum;
		w[16 + i] = (uint32_t)(sum >> 32);
		w[32 + i] = x[i] - y[i];
		w[48 + i] = x[i] < y[i];
		w[64 + i] = (uint32_t)(xi / yi);
		w[80 + i] = (uint32_t)(xi % yi);
		w[96 + i] = (uint32_t)(xi >> s[i]);
		w[112 + i] = x[i] >> s[i];
		w[128 + i] = (uint32_t)(xi >> s[i]);
		w[144 + i] = rol32(x[i], s[i]);
		w[160 + i] = ror32(x[i], s[i]);
		w[176 + i] = fbh_u(x[i] >> (s[i] & 7));
		w[192 + i] = fbh_s(xi >> (s[i] & 7));
		w[208 + i] = bfrev(x[i]);
		w[224 + i] = bfi(s[i] & 15, (s[i] >> 1) & 15, y[i], x[i]);
		int32_t q = xi >> 4;
		w[240 + i] = q < 0 ? 0 : q > 255 ? 255 : (uint32_t)q;
	}
	if (H_RUN(h, F, "iforms", WALK(1, 1), IN(x), IN(y), IN(s), OUT(o)))
		h_eq_u32(h, "out", o, w, 256);
}

TEST(float_forms)
{
	float x[16], y[16], z[16], o[256], w[256];
	h_fill_f32(h, x, 16, 0.25f, 4);
	h_fill_f32(h, y, 16, -3, 3);
	h_fill_f32(h, z, 16, -1, 1);
	y[0] = 0.25f, y[1] = -1.25f, y[2] = 2.5f / 2;   /* rnde ties: 0.5, -2.5, 2.5 */
	y[3] = 5;                                       /* tanh(60) saturates */
	for (int i = 0; i < 16; i++) {
		w[i] = sqrtf(x[i]);
		w[16 + i] = y[i] / x[i];
		w[32 + i] = sinf(y[i]);
		w[48 + i] = cosf(y[i]);
		w[64 + i] = asinf(z[i]);
		w[80 + i] = acosf(z[i]);
		w[96 + i] = atanf(y[i]);
		w[112 + i] = nearbyintf(y[i] * 2);
		w[128 + i] = truncf(y[i] * 2);
		w[144 + i] = atan2f(y[i], z[i]);
		w[160 + i] = atan2f(z[i], y[i]);
		w[176 + i] = fmodf(y[i] * 7, x[i]);
		w[192 + i] = floorf(y[i] * 3) + ceilf(y[i] * 3) * 100;
		w[208 + i] = tanhf(y[i] * 12);
		w[224 + i] = tanhf(y[i]);
		float q = sqrtf(x[i] * 4);
		w[240 + i] = q > 1 ? 1 : q;
	}
	if (H_RUN(h, F, "fforms", WALK(1, 1), IN(x), IN(y), IN(z), OUT(o))) {
		/* fmod near a multiple of x differs by x when rounding differs */
		for (int i = 0; i < 16; i++)
			if (fabsf(o[176 + i] - w[176 + i]) > 1e-3f &&
			    fabsf(fabsf(o[176 + i] - w[176 + i]) - x[i]) < 1e-3f)
				o[176 + i] = w[176 + i];
		h_near_f32(h, "out", o, w, 256, 2e-3f);
	}
}

/* IEEE binary16 bits of a float (round to nearest even), normal range. */
static uint16_t f2h(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	uint32_t sign = (u >> 16) & 0x8000u;
	int32_t e = (int32_t)((u >> 23) & 0xFF) - 127 + 15;
	uint32_t m = u & 0x7FFFFFu;
	if (e <= 0)
		return (uint16_t)sign;
	uint32_t r = ((uint32_t)e << 10) | (m >> 13);
	uint32_t rest = m & 0x1FFFu;
	if (rest > 0x1000u || (rest == 0x1000u && (r & 1)))
		r++;
	return (uint16_t)(sign | r);
}

static float h2f(uint16_t b)
{
	int e = (b >> 10) & 0x1F;
	float v = ldexpf((float)((b & 0x3FF) | 0x400), e - 25);
	return b & 0x8000 ? -v : v;
}

TEST(half_bits)
{
	float x[16], o[16], wo[16];
	uint16_t hb[16], wh[16];
	h_fill_f32(h, x, 16, -1000, 1000);
	x[0] = 1, x[1] = -2.5f;
	for (int i = 0; i < 16; i++)
		wh[i] = f2h(x[i]), wo[i] = h2f(wh[i]);
	if (H_RUN(h, F, "halfbits", WALK(1, 1), IN(x), OUT(o), OUT(hb))) {
		h_eq_i16(h, "bits", (int16_t *)hb, (int16_t *)wh, 16);
		h_near_f32(h, "back", o, wo, 16, 0);
	}
}

TEST(tuple_forms)
{
	float x[16], y[16], p[4], o[96], w[96];
	uint8_t u[64];
	uint16_t os[64], ws[64];
	h_fill_f32(h, x, 16, -2, 2);
	h_fill_f32(h, y, 16, -2, 2);
	h_fill_f32(h, p, 4, -2, 2);
	h_fill_u8(h, u, 64);
	for (int t = 0; t < 4; t++) {
		const float *a = x + 4 * t, *b = y + 4 * t;
		for (int k = 0; k < 4; k++) {
			int i = 4 * t + k;
			w[i] = a[0] * b[0] + a[1] * b[1];
			w[16 + i] = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + b[3];
			w[32 + i] = p[0] * x[i] + p[3];
			w[48 + i] = p[1] * y[i] + p[2];
			w[64 + i] = p[0] * x[i] + p[1] * y[i] + p[3];
			w[80 + i] = (a[0] + a[1]) * 2;
		}
	}
	for (int i = 0; i < 32; i += 2) {
		int d = abs(u[i] - u[32 + i]) + abs(u[i + 1] - u[33 + i]);
		ws[i] = (uint16_t)d, ws[32 + i] = (uint16_t)(d + 5);
	}
	if (H_RUN(h, F, "tuples", WALK(1, 1), IN(x), IN(y), IN(p), IN(u), OUT(o), OUT(os))) {
		h_near_f32(h, "out", o, w, 96, 1e-5f);
		for (int i = 0; i < 64; i += 2)   /* the first lane of each pair */
			if (os[i] != ws[i])
				h_fail(h, "sad[%d] = %u, want %u", i, os[i], ws[i]);
	}
}

TEST(vector_assign)
{
	int32_t o[16], w[16];
	int32_t init = h_range(h, -100, 100), step = h_range(h, -9, 9);
	for (int i = 0; i < 16; i++)
		w[i] = init + i * step + (i >= 8);
	if (H_RUN(h, F, "assign", WALK(1, 1), OUT(o), I32(init), I32(step)))
		h_eq_i32(h, "out", o, w, 16);
}

const HTest exec_arith[] = {
	T(int_forms), T(float_forms), T(half_bits), T(tuple_forms), T(vector_assign),
	{0},
};
