/* members.c — CM members: select (nested, strided, runtime offsets, 2D),
 * row/column, format, iselect, replicate, merge, any/all, refs. */
#include "harness.h"

#define F "members"

typedef void (*Ref)(const int32_t *x, int32_t *r, int k);

static void run(H *h, const char *k, Ref ref, int kk, bool with_k)
{
	int32_t x[32], o[32], w[32] = {0};
	h_fill_i32(h, x, 32, -100, 100);
	ref(x, w, kk);
	bool ok = with_k ? H_RUN(h, F, k, WALK(1, 1), IN(x), OUT(o), I32(kk))
	                 : H_RUN(h, F, k, WALK(1, 1), IN(x), OUT(o));
	if (ok)
		h_eq_i32(h, "out", o, w, 32);
}

static void r_sel1d(const int32_t *x, int32_t *r, int k)
{
	for (int i = 0; i < 8; i++)
		r[i] = x[1 + 2 * i];
	for (int i = 0; i < 6; i++)
		r[8 + 4 * i] = x[20 + i] * 2;
	(void)k;
}
TEST(sel1d) { run(h, "sel1d", r_sel1d, 0, false); }

static void r_selnest(const int32_t *x, int32_t *r, int k)
{
	for (int i = 0; i < 4; i++)
		r[2 * (1 + 3 * i)] = x[8 + 3 + 2 * i];
	r[22] += 5;
	r[23] += 5;
	(void)k;
}
TEST(selnest) { run(h, "selnest", r_selnest, 0, false); }

static void r_selrt(const int32_t *x, int32_t *r, int k)
{
	for (int i = 0; i < 8; i++)
		r[k + i] = x[k + 2 * i];
	r[31] = x[k + 3];
}
TEST(selrt) { run(h, "selrt", r_selrt, h_range(h, 0, 8), true); }

static void r_sel2d(const int32_t *x, int32_t *r, int k)
{
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 4; j++)
			r[(1 + 2 * i) * 8 + 2 * j] = x[i * 8 + 3 + j];
	for (int j = 0; j < 8; j++)
		r[j] = x[24 + j];
	(void)k;
}
TEST(sel2d) { run(h, "sel2d", r_sel2d, 0, false); }

static void r_rowcol(const int32_t *x, int32_t *r, int k)
{
	int m[4][8];
	memcpy(m, x, sizeof m);
	for (int j = 0; j < 8; j++)
		m[1][j] = m[2][j] + 1;
	for (int i = 0; i < 4; i++)
		m[i][7] = 9;
	for (int j = 0; j < 8; j++)
		m[k][j] += 100;
	m[0][0] = m[3][3];
	for (int j = 0; j < 8; j++)
		m[2][j] *= 2;
	memcpy(r, m, sizeof m);
}
TEST(rowcol) { run(h, "rowcol", r_rowcol, h_range(h, 0, 3), true); }

static void r_fmt(const int32_t *x, int32_t *r, int k)
{
	int16_t s[64];
	memcpy(s, x, 128);
	for (int i = 0; i < 32; i++)
		s[2 * i] = 7;
	memcpy(r, s, 128);
	uint8_t *b = (uint8_t *)r;
	for (int i = 0; i < 4; i++)
		b[3 + 4 * i] = 0xAB;
	for (int i = 0; i < 4; i++)
		r[i * 8] = -1;
	(void)k;
}
TEST(format) { run(h, "fmt", r_fmt, 0, false); }

static void r_iselect(const int32_t *x, int32_t *r, int k)
{
	for (int i = 0; i < 16; i++)
		r[i] = x[(i * 7) % 32];
	for (int i = 0; i < 8; i++)
		r[16 + i] = x[(i % 4) * 8 + 7 - i];
	(void)k;
}
TEST(iselect) { run(h, "iselect", r_iselect, 0, false); }

/* Indices past the source read 0 (the checking mode reports them: tested
 * in tests/rt/test_checking.c). */
TEST(iselect_oob)
{
	int32_t x[32], o[32], w[32] = {0};
	h_fill_i32(h, x, 32, -100, 100);
	int k = h_range(h, 0, 8);
	for (int i = 0; i < 16; i++) {
		int j = i * 3 + k;
		w[i] = j < 32 ? x[j] : 0;
		w[16 + i] = j < 8 ? x[8 + j] : 0;
	}
	HShape s = WALK(1, 1);
	s.options = "-fno-bounds-check";   /* out of range on purpose */
	if (H_RUN(h, F, "iselect_oob", s, IN(x), OUT(o), I32(k)))
		h_eq_i32(h, "out", o, w, 32);
}

static void r_repl(const int32_t *x, int32_t *r, int k)
{
	for (int i = 0; i < 8; i++) {
		r[i] = x[i % 4];
		r[8 + i] = x[10 + i % 4];
		r[16 + i] = x[1 + (i / 4) * 8 + i % 4];
		r[24 + i] = x[5 + (i / 4) * 3];
	}
	(void)k;
}
TEST(replicate) { run(h, "repl", r_repl, 0, false); }

static void r_merges(const int32_t *x, int32_t *r, int k)
{
	for (int i = 0; i < 16; i++) {
		const int32_t *p = x, *q = x + 16;
		r[i] = (0x5a3c >> i) & 1 ? q[i] : p[i];
		r[16 + i] = (p[i] > q[i] ? p[i] : q[i]) + ((p[i] & 1) == 0 ? 1 : -1);
	}
	(void)k;
}
TEST(merge) { run(h, "merges", r_merges, 0, false); }

static void r_anyall(const int32_t *x, int32_t *r, int k)
{
	int any = 0, all = 1, neg = 0;
	for (int i = 0; i < 32; i++)
		any |= x[i] > 0, all &= x[i] > 0, neg |= x[i] < 0;
	r[0] = any;
	r[1] = all;
	r[2] = 1;
	r[3] = 0;
	for (int i = 0; i < 4; i++) {
		int a = 0;
		for (int j = 0; j < 8; j++)
			a |= x[i * 8 + j] > 50;
		r[4 + i] = a;
	}
	r[8] = 32;
	r[9] = 408;
	r[10] = neg;
	(void)k;
}
TEST(anyall) { run(h, "anyall", r_anyall, 0, false); }

static void r_alias(const int32_t *x, int32_t *r, int k)
{
	int32_t t[32];
	memcpy(r, x, 128);
	memcpy(t, r, 128);
	for (int i = 0; i < 16; i++)
		r[4 + i] = t[i];
	memcpy(t, r, 128);
	for (int i = 0; i < 8; i++)
		r[20 + i] = t[22 + i] + t[18 + i];
	(void)k;
}
TEST(alias) { run(h, "alias", r_alias, 0, false); }

static void r_refs(const int32_t *x, int32_t *r, int k)
{
	memcpy(r, x, 128);
	r[8] = 1;
	for (int i = 0; i < 4; i++)
		r[8 + 1 + 2 * i] = -r[8 + 1 + 2 * i];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			r[(2 * i) * 8 + 1 + 3 * j] = 77;
	for (int j = 0; j < 4; j++)
		r[24 + 4 + j] = -r[24 + 4 + j];
	(void)k;
}
TEST(refs) { run(h, "refs", r_refs, 0, false); }

const HTest exec_members[] = {
	T(sel1d), T(selnest), T(selrt), T(sel2d), T(rowcol), T(format), T(iselect), T(iselect_oob),
	T(replicate), T(merge), T(anyall), T(alias), T(refs), {0},
};
