/* compat.c — forms of kernels written for Intel's compiler (compat.cm):
 * builtins with explicit template sizes, static const locals, vectors
 * initialized from shorter const arrays, template kernel instances looked
 * up by their instance names; a long run of if/else joins; the more
 * specialized of two function templates. */
#include <stdlib.h>

#include "harness.h"

#define F "compat"

TEST(sized_builtins)
{
	float x[8], y[8], o[64], w[64];
	h_fill_f32(h, x, 8, 0.5f, 4);
	h_fill_f32(h, y, 8, -3, 3);
	int32_t xi[8], mx = INT32_MIN;
	float sum = 0;
	for (int i = 0; i < 8; i++) {
		xi[i] = (int32_t)(x[i] * 100.0f);
		sum += x[i];
		mx = xi[i] > mx ? xi[i] : mx;
	}
	for (int i = 0; i < 8; i++) {
		w[i] = sinf(y[i]) + exp2f(y[i]);
		w[8 + i] = cosf(y[i]) + sqrtf(x[i]);
		w[16 + i] = powf(x[i], 2) + 0.25f;
		w[24 + i] = (float)(int32_t)(y[i] + 1.5f);
		w[32 + i] = (float)(abs(xi[i]) + (xi[i] > 30 ? xi[i] : 30));
		w[40 + i] = floorf(y[i]) + (y[i] - floorf(y[i]));
		w[48 + i] = sum + (float)mx;
		uint32_t s = (uint32_t)xi[i] + 0xFFFFFFF0u;
		w[56 + i] = (float)s + (s < (uint32_t)xi[i]) * 1000.0f;
	}
	if (H_RUN(h, F, "sized", WALK(1, 1), IN(x), IN(y), OUT(o)))
		h_near_f32(h, "out", o, w, 64, 1e-3f);
}

TEST(static_const_locals)
{
	float o[8], w[8];
	static const int tab[4] = {10, 20, 30, 40};
	static const float grid[2][2] = {{1.5f, 2.5f}, {3.5f, 4.5f}};
	static const unsigned short seq[4] = {7, 6, 5, 4};
	int p = h_range(h, 0, 100);
	w[0] = 1.5f, w[1] = 2.5f, w[2] = 3.5f, w[3] = 4.5f;
	w[4] = (float)(tab[p & 3] * 3);
	w[5] = grid[p & 1][1];
	w[6] = (float)(seq[p & 3] + 8);
	w[7] = 4;
	if (H_RUN(h, F, "statics", WALK(1, 1), OUT(o), I32(p)))
		h_near_f32(h, "out", o, w, 8, 0);
}

TEST(partial_array_init)
{
	int32_t o[64], w[64] = {0};
	for (int i = 0; i < 8; i++) {
		w[i] = i + 1;                    /* v: 8 values, then 0 */
		w[16 + i] = i + (i + 1);         /* init_seq + c */
		w[32 + 4 + i] = 0;
	}
	for (int i = 0; i < 4; i++)
		w[32 + i] = i + 1;
	for (int i = 0; i < 6; i++)
		w[36 + i] = -(i + 1);
	for (int i = 0; i < 16; i++)
		w[48 + i] = 9;
	if (H_RUN(h, F, "partial", WALK(1, 1), OUT(o)))
		h_eq_i32(h, "out", o, w, 64);
}

TEST(template_kernels)
{
	float x[8], of[8], wf[8];
	uint32_t u[4], ou[4], wu[4];
	h_fill_f32(h, x, 8, -100, 100);
	for (int i = 0; i < 4; i++)
		u[i] = h_rand(h);
	float add = h_float(h, -5, 5);
	uint32_t addu = h_rand(h);
	for (int i = 0; i < 8; i++)
		wf[i] = x[i] + add;
	for (int i = 0; i < 4; i++)
		wu[i] = u[i] + addu;
	/* the instance names as CM_KERNEL_FUNCTION(tk<float, 8>) spells them */
	if (H_RUN(h, F, "tk<float, 8>", WALK(1, 1), IN(x), OUT(of), F32(add)))
		h_near_f32(h, "float", of, wf, 8, 0);
	if (H_RUN(h, F, "tk<unsigned int,4>", WALK(1, 1), IN(u), OUT(ou), U32(addu)))
		h_eq_u32(h, "uint", ou, wu, 4);
	if (H_RUN(h, F, "tk<uint, 4>", WALK(1, 1), IN(u), OUT(ou), U32(addu)))
		h_eq_u32(h, "uint (uint)", ou, wu, 4);
}

TEST(typed_atomics)
{
	uint32_t s[4][8], ws[4][8], o[64], w[64] = {0};
	float f[4][8], wf[4][8];
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 8; x++) {
			s[y][x] = h_rand(h) % 100000;
			f[y][x] = h_float(h, -10, 10);
		}
	memcpy(ws, s, sizeof s);
	memcpy(wf, f, sizeof f);
	for (int k = 0; k < 8; k++) {
		w[k] = ws[0][k];
		ws[0][k] += 3 * k;
		if (k & 1)
			w[8 + k] = ws[1][k]++;
		uint32_t expect = ws[2][k] + (k & 1);
		w[16 + k] = ws[2][k];
		if (ws[2][k] == expect)
			ws[2][k] = 100 + k;
		if (k + 4 < 8)
			w[24 + k] = --ws[3][k + 4];
	}
	for (int k = 0; k < 8; k++) {
		if (k == 1)
			continue;       /* lod 1: no such level, dropped */
		w[32 + k] = ws[3][k];
		ws[3][k] = ws[3][k] > 1000u * k ? ws[3][k] : 1000u * k;
	}
	for (int k = 0; k < 8; k++) {
		memcpy(&w[40 + k], &wf[0][k], 4);
		wf[0][k] += 0.5f * k;
	}
	HShape one = WALK(1, 1);
	one.options = "-fno-bounds-check";   /* lanes 4..7 of the PREDEC on purpose */
	if (H_RUN(h, F, "tatom_ret", one, SURF2D(s, 8, 4, CMETAL_FMT_R32_UINT),
	          SURF2D(f, 8, 4, CMETAL_FMT_R32F), OUT(o))) {
		h_eq_u32(h, "results", o, w, 64);
		h_eq_u32(h, "uint surface", &s[0][0], &ws[0][0], 32);
		h_near_f32(h, "float surface", &f[0][0], &wf[0][0], 32, 1e-6f);
	}
}

TEST(typed_atomics_contended)
{
	int32_t s[4][8], w[4][8];
	enum { THREADS = 16 };
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 8; x++) {
			s[y][x] = h_range(h, -100000, 100000);
			w[y][x] = s[y][x] + THREADS * (x + 1) + (y == 0 && x % 2 == 0 ? THREADS : 0);
		}
	if (H_RUN(h, F, "tatom_add", WALK(THREADS, 1), SURF2D(s, 8, 4, CMETAL_FMT_R32_SINT)))
		h_eq_i32(h, "surface", &s[0][0], &w[0][0], 32);
}

TEST(many_joins)
{
	int32_t o[8], w[8];
	int p = h_range(h, 0, 255), acc = 0;
	for (int i = 0; i < 48; i++)
		acc += (p >> (i & 7)) & 1 ? i : -1;
	for (int i = 0; i < 8; i++)
		w[i] = i < 4 ? acc : p;
	if (H_RUN(h, F, "diamonds", WALK(1, 1), OUT(o), I32(p)))
		h_eq_i32(h, "out", o, w, 8);
}

TEST(template_partial_order)
{
	int32_t a[20], o[28], w[28] = {0};
	h_fill_i32(h, a, 20, -1000, 1000);
	for (int i = 0; i < 16; i++)
		w[i] = a[i] + 1000;
	for (int i = 0; i < 4; i++)
		w[16 + i] = a[16 + i] * 2;
	w[20] = a[7];
	w[21] = a[16];
	if (H_RUN(h, F, "specialized", WALK(1, 1), IN(a), OUT(o)))
		h_eq_i32(h, "out", o, w, 28);
}

const HTest exec_compat[] = {
	T(sized_builtins), T(static_const_locals), T(partial_array_init),
	T(template_kernels), T(typed_atomics), T(typed_atomics_contended), T(many_joins),
	T(template_partial_order),
	{0},
};
