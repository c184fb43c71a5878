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

const HTest exec_diff_regress[] = {
	T(merge_one_element), T(f64_halves_as_f32), T(layout_order), T(svm_scatter_absolute), {0},
};
