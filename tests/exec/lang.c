/* lang.c — struct locals and fields, multi-dimensional const arrays and
 * vector selects of strided matrix views (lang.cm). */
#include "harness.h"

#define F "lang"

TEST(struct_fields)
{
	int32_t x[8], o[16], w[16];
	h_fill_i32(h, x, 8, -1000, 1000);
	float sa = 0.5f;
	int32_t va = 1;
	for (int i = 0; i < 4; i++)
		sa += (float)x[i], va += x[i];
	float sb = sa + (float)x[4];
	int32_t vb = va + x[4];
	w[0] = 4, w[1] = (int32_t)(sa * 2);
	for (int i = 0; i < 4; i++)
		w[2 + i] = va, w[8 + i] = vb;
	w[6] = 5, w[7] = (int32_t)(sb * 2);
	w[12] = 500 + (int32_t)sb;
	w[13] = 5;
	w[14] = x[5] + 2 + x[3];
	w[15] = x[7];
	if (H_RUN(h, F, "structs", WALK(1, 1), IN(x), OUT(o)))
		h_eq_i32(h, "out", o, w, 16);
}

static const int tab[3][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
static const short cube[2][2][3] = {{{1, -2, 3}, {4, 5, -6}}, {{7, 8, 9}, {-10, 11, 12}}};

TEST(const_arrays)
{
	int32_t o[8], w[8];
	int i = h_range(h, 0, 2), j = h_range(h, 0, 3), k = h_range(h, 0, 2);
	w[0] = 7;
	w[1] = tab[i][j];
	w[2] = tab[2][j] + tab[i][0];
	w[3] = 9 + cube[i & 1][j & 1][k];
	w[4] = cube[k & 1][1][k];
	w[5] = tab[i][3 - j];
	w[6] = 3;
	w[7] = 20;
	if (H_RUN(h, F, "arrays", WALK(1, 1), OUT(o), I32(i), I32(j), I32(k)))
		h_eq_i32(h, "out", o, w, 8);
}

TEST(strided_views)
{
	int32_t a[32], o[32], m[4][8];
	h_fill_i32(h, a, 32, -1000, 1000);
	memcpy(m, a, sizeof a);
	int32_t *v[8];
	for (int k = 0; k < 8; k++)
		v[k] = &m[k < 4 ? 0 : 2][2 + k % 4];
	for (int k = 4; k < 8; k++)
		*v[k] += 100;
	for (int k = 0; k < 8; k += 2)
		*v[k] *= 2;
	int32_t t5 = *v[5] + 1, t6 = *v[6] + 1;
	*v[1] = t5, *v[2] = t6;
	if (H_RUN(h, F, "views", WALK(1, 1), IN(a), OUT(o)))
		h_eq_i32(h, "out", o, &m[0][0], 32);
}

TEST(unrolled_loops)
{
	int32_t x[32], o[32], r[32];
	h_fill_i32(h, x, 32, -1000, 1000);
	int n = h_range(h, 0, 9);
	for (int i = 0; i < 8; i++)
		for (int e = 0; e < 4; e++)
			r[i * 4 + e] = x[i + 8 * e];
	for (int j = 7; j > 0; j -= 3)
		r[j] += x[j] * j;
	int k;
	for (k = 2; k != 10; k += 2)
		r[k + 16] -= k;
	for (int m = 0; m < 3; m++)
		r[m] += 1;
	for (int b = 0; b < 8; b++) {
		if (b == n)
			break;
		r[24 + b] += 5;
	}
	for (int c = 0; c < 8; c++) {
		r[c] ^= 1;
		c += c & 1;
	}
	r[31] = k;
	if (H_RUN(h, F, "loops", WALK(1, 1), IN(x), OUT(o), I32(n)))
		h_eq_i32(h, "out", o, r, 32);
}

/* The kernel's loops lose their invariants to licm (tests/ir/licm.ir has
 * the IR): the results must stay those of the loops as written. */
TEST(loop_invariants)
{
	int32_t x[8], o[8], r[8] = {0};
	h_fill_i32(h, x, 8, -1000, 1000);
	int m = h_range(h, 0, 3), d = h_range(h, 0, 1) ? h_range(h, 1, 9) : 0;
	for (int i = 0; i < m; i++)
		r[0] += (d ? x[2] / d : 0) + i;   /* integer division by 0 gives 0 */
	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 3; j++)
			r[1] += (x[3] * 5 + x[4]) * j + i * x[5];
		r[3] += x[6] - i;
	}
	if (H_RUN(h, F, "invariants", WALK(1, 1), IN(x), OUT(o), I32(m), I32(d), I32(50)))
		h_eq_i32(h, "out", o, r, 8);
}

const HTest exec_lang[] = {
	T(struct_fields), T(const_arrays), T(strided_views), T(unrolled_loops),
	T(loop_invariants),
	{0},
};
