/* core.c — operators, conversions, control flow, functions, globals. */
#include "harness.h"

#define F "core"

TEST(vadd)
{
	int32_t a[64], b[64], o[64], w[64];
	h_fill_i32(h, a, 64, -100000, 100000);
	h_fill_i32(h, b, 64, -100000, 100000);
	for (int i = 0; i < 64; i++)
		w[i] = a[i] + b[i];
	if (H_RUN(h, F, "vadd", WALK(4, 1), IN(a), IN(b), OUT(o)))
		h_eq_i32(h, "out", o, w, 64);
}

TEST(arith)
{
	int32_t a[16], b[16], o[64], w[64];
	h_fill_i32(h, a, 16, -1000, 1000);
	h_fill_i32(h, b, 16, 1, 50);
	for (int i = 0; i < 16; i++) {
		if (i & 1)
			b[i] = -b[i];
		w[i] = a[i] * 3 - b[i];
		w[16 + i] = a[i] / b[i];
		w[32 + i] = a[i] % b[i];
		w[48 + i] = -a[i] + (int32_t)((uint32_t)b[i] << 2);
	}
	if (H_RUN(h, F, "arith", WALK(1, 1), IN(a), IN(b), OUT(o)))
		h_eq_i32(h, "out", o, w, 64);
}

TEST(bitops)
{
	uint32_t a[16], b[16], o[64], w[64];
	for (int i = 0; i < 16; i++)
		a[i] = h_rand(h) * 2654435761u, b[i] = h_rand(h);
	for (int i = 0; i < 16; i++) {
		w[i] = (a[i] & b[i]) | (~a[i] ^ 0x5a5a5a5au);
		w[16 + i] = a[i] >> (b[i] & 31);
		w[32 + i] = (uint32_t)((int32_t)a[i] >> (b[i] & 31));
		w[48 + i] = a[i] << (b[i] & 15);
	}
	if (H_RUN(h, F, "bitops", WALK(1, 1), IN(a), IN(b), OUT(o)))
		h_eq_u32(h, "out", o, w, 64);
}

TEST(compare)
{
	int32_t a[16], b[16], o[16], w[16];
	h_fill_i32(h, a, 16, -5, 5);
	h_fill_i32(h, b, 16, -5, 5);
	for (int i = 0; i < 16; i++)
		w[i] = (a[i] < b[i]) * 2 + (a[i] == b[i]) + (a[i] >= 0) * 4;
	if (H_RUN(h, F, "compare", WALK(1, 1), IN(a), IN(b), OUT(o)))
		h_eq_i32(h, "out", o, w, 16);
}

TEST(floats)
{
	float a[16], b[16], o[16], w[16];
	h_fill_f32(h, a, 16, -10, 10);
	h_fill_f32(h, b, 16, -10, 10);
	for (int i = 0; i < 16; i++)
		w[i] = a[i] * b[i] + 1.5f - a[i] / (b[i] + 100.0f);
	if (H_RUN(h, F, "floats", WALK(1, 1), IN(a), IN(b), OUT(o)))
		h_near_f32(h, "out", o, w, 16, 1e-5f);
}

TEST(convert)
{
	int32_t a[32];
	uint8_t o[128], w[128];
	h_fill_i32(h, a, 32, -70000, 70000);
	memset(w, 0, sizeof w);
	for (int i = 0; i < 32; i++) {
		w[i] = (uint8_t)a[i];
		w[32 + i] = a[i] < 0 ? 0 : a[i] > 255 ? 255 : (uint8_t)a[i];
	}
	for (int i = 0; i < 16; i++) {
		int32_t v = (int32_t)((float)(int16_t)a[i] * 0.5f);
		memcpy(&w[64 + 4 * i], &v, 4);
	}
	if (H_RUN(h, F, "convert", WALK(1, 1), IN(a), OUT(o)))
		h_eq_u8(h, "out", o, w, 128);
}

TEST(loops)
{
	int32_t a[16], o[4], w[4];
	h_fill_i32(h, a, 16, -100, 100);
	int n = h_range(h, 1, 16);
	w[0] = 0;
	for (int k = 0; k < n; k++)
		w[0] += a[k];
	w[1] = 0;
	for (int k = 0; k < 16; k++)
		w[1] += a[k] % 2 != 0;
	int dw = 0;
	do
		dw += 3;
	while (dw < n * 5);
	w[2] = dw;
	w[3] = 16;
	if (H_RUN(h, F, "loops", WALK(1, 1), IN(a), OUT(o), I32(n)))
		h_eq_i32(h, "out", o, w, 4);
}

TEST(switches)
{
	int32_t a[16], o[16], w[16];
	h_fill_i32(h, a, 16, 0, 1000);
	for (int i = 0; i < 16; i++) {
		int v = a[i] & 7;
		w[i] = v == 0 ? 10 : v == 1 || v == 2 ? 20 + v : v == 5 || v == 6 ? 60 : -1;
	}
	if (H_RUN(h, F, "switches", WALK(1, 1), IN(a), OUT(o)))
		h_eq_i32(h, "out", o, w, 16);
}

TEST(gotos)
{
	int32_t a[16], o[4], w[4];
	h_fill_i32(h, a, 16, -100, 90);
	int s = 0;
	for (int i = 0; i < 16; i++)
		s += a[i];
	if (s <= 0)
		s = -s;
	for (int i = 0; i < 4; i++)
		w[i] = s;
	if (H_RUN(h, F, "gotos", WALK(1, 1), IN(a), OUT(o)))
		h_eq_i32(h, "out", o, w, 4);
}

TEST(logic)
{
	int32_t a[16], o[16], w[16];
	h_fill_i32(h, a, 16, -40, 60);
	a[3] = 7;
	for (int i = 0; i < 16; i++) {
		int v = a[i], p = v > 10 && v < 50, q = v < -20 || v == 7;
		w[i] = p + 2 * q + 4 * !p;
	}
	if (H_RUN(h, F, "logic", WALK(1, 1), IN(a), OUT(o)))
		h_eq_i32(h, "out", o, w, 16);
}

static int early(int v) { return v < 0 ? -1 : v == 0 ? 0 : 1; }

TEST(funcs)
{
	int32_t a[16], o[16], w[16];
	h_fill_i32(h, a, 16, -1000, 1000);
	a[4] = 0;
	int t = 0;
	for (int i = 0; i < 16; i++) {
		w[i] = a[i] * 2 + 5 + (i % 2 ? 100 : 0);
		t += a[i];
	}
	w[0] = t;
	w[2] = early(a[2]) + early(a[4]) * 10;
	if (H_RUN(h, F, "funcs", WALK(1, 1), IN(a), OUT(o)))
		h_eq_i32(h, "out", o, w, 16);
}

TEST(globals)
{
	int32_t a[64], o[64], w[64];
	h_fill_i32(h, a, 64, -1000, 1000);
	for (int i = 0; i < 64; i++)
		w[i] = 3 * a[i] + (i % 16 == 0 ? 2 : 0);
	if (H_RUN(h, F, "globals", WALK(4, 1), IN(a), OUT(o)))
		h_eq_i32(h, "out", o, w, 64);
}

TEST(constarr)
{
	static const int16_t tbl[8] = {3, -1, 4, 1, -5, 9, 2, -6};
	int32_t o[16], w[16] = {0};
	int k = h_range(h, 0, 7);
	for (int i = 0; i < 8; i++)
		w[i] = tbl[i];
	w[8] = tbl[k];
	w[9] = tbl[3];
	if (H_RUN(h, F, "constarr", WALK(1, 1), OUT(o), I32(k)))
		h_eq_i32(h, "out", o, w, 16);
}

TEST(matrices)
{
	int32_t a[16], o[16], w[16];
	h_fill_i32(h, a, 16, -100, 100);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			w[i * 4 + j] = a[i * 4 + j] * a[j * 4 + i] + 1;
	if (H_RUN(h, F, "matrices", WALK(1, 1), IN(a), OUT(o)))
		h_eq_i32(h, "out", o, w, 16);
}

TEST(compound)
{
	int32_t a[16], o[16], w[16];
	h_fill_i32(h, a, 16, -30000, 30000);
	uint8_t u[16];
	for (int i = 0; i < 16; i++) {
		u[i] = (uint8_t)((uint8_t)a[i] + 200);
		int16_t s = (int16_t)a[i];
		s = (int16_t)(s * 3);
		s = (int16_t)(s - u[i]);
		s = (int16_t)(s >> 1);
		w[i] = s;
	}
	int k = a[0] + 1, j = k;
	k++;
	w[15] = k * 1000 + j;
	w[14] = u[3];
	if (H_RUN(h, F, "compound", WALK(1, 1), IN(a), OUT(o)))
		h_eq_i32(h, "out", o, w, 16);
}

TEST(longs)
{
	uint32_t a[16], o[24], w[24];
	for (int i = 0; i < 16; i++)
		a[i] = h_rand(h) % 1000000;
	for (int i = 0; i < 8; i++) {
		uint64_t v = ((uint64_t)a[2 * i] << 32 | a[2 * i + 1]) + 0x100000001ull;
		memcpy(&w[2 * i], &v, 8);
		w[16 + i] = (uint32_t)((double)a[i] * 0.25);
	}
	if (H_RUN(h, F, "longs", WALK(1, 1), IN(a), OUT(o)))
		h_eq_u32(h, "out", o, w, 24);
}

/* Scalar and vector C++ reference parameters write through to the caller. */
TEST(refs)
{
	int32_t a[16], o[16], w[16];
	h_fill_i32(h, a, 16, -1000, 1000);
	for (int i = 0; i < 16; i++)
		w[i] = a[i] * 9;
	w[0] = a[0] + a[1] + 7;
	w[1] = 2;
	if (H_RUN(h, F, "refs", WALK(1, 1), IN(a), OUT(o)))
		h_eq_i32(h, "out", o, w, 16);
}

const HTest exec_core[] = {
	T(vadd), T(arith), T(bitops), T(compare), T(floats), T(convert), T(loops),
	T(switches), T(gotos), T(logic), T(funcs), T(globals), T(constarr),
	T(matrices), T(compound), T(longs), T(refs), {0},
};
