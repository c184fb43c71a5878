/* simd.c — SIMD control flow: if/elseif/else, nesting, do-while, break,
 * continue, reductions on active channels, unmask, masked scatter. */
#include "harness.h"

#define F "simd"

typedef void (*Ref)(const int32_t *x, int32_t *r);

static void run(H *h, const char *k, Ref ref, int32_t lo, int32_t hi)
{
	int32_t x[16], o[16], w[16];
	h_fill_i32(h, x, 16, lo, hi);
	memcpy(o, x, sizeof o);
	memcpy(w, x, sizeof w);
	ref(x, w);
	if (H_RUN(h, F, k, WALK(1, 1), IN(x), INOUT(o)))
		h_eq_i32(h, "out", o, w, 16);
}

static void r_sif(const int32_t *x, int32_t *r)
{
	for (int i = 0; i < 16; i++)
		r[i] = x[i] > 0 ? x[i] * 2 : x[i];
}
TEST(simd_if) { run(h, "sif", r_sif, -50, 50); }

static void r_sifelse(const int32_t *x, int32_t *r)
{
	for (int i = 0; i < 16; i++)
		r[i] = x[i] > 10 ? 1 : x[i] < -10 ? 2 : x[i] + 100;
}
TEST(simd_else) { run(h, "sifelse", r_sifelse, -30, 30); }

static void r_snested(const int32_t *x, int32_t *r)
{
	int flag = 0;
	for (int i = 0; i < 16; i++) {
		if (x[i] > 0) {
			r[i] = x[i] + 1000;
			if ((x[i] & 1) == 0)
				r[i] = -r[i], flag = 1;
			else
				r[i] += 1;
		}
	}
	r[15] = flag;
}
TEST(simd_nested) { run(h, "snested", r_snested, -50, 50); }

static void r_sdo(const int32_t *x, int32_t *r)
{
	for (int i = 0; i < 16; i++) {
		int v = x[i], n = 0;
		do
			v /= 2, n++;
		while (v != 0);
		r[i] = n;
	}
}
TEST(simd_do) { run(h, "sdo", r_sdo, -100000, 100000); }

static void r_sbreak(const int32_t *x, int32_t *r)
{
	for (int i = 0; i < 16; i++) {
		int n = 0;
		do {
			n++;
			if (n * 7 > x[i])
				break;
			n++;
		} while (n < 40);
		r[i] = n;
	}
}
TEST(simd_break) { run(h, "sbreak", r_sbreak, -10, 400); }

static void r_scont(const int32_t *x, int32_t *r)
{
	for (int i = 0; i < 16; i++) {
		int n = 0, s = 0;
		do {
			n++;
			if ((n & 1) == (x[i] & 1))
				continue;
			s += n;
		} while (n < 10);
		r[i] = s;
	}
}
TEST(simd_continue) { run(h, "scont", r_scont, 0, 100); }

static void r_sreduce(const int32_t *x, int32_t *r)
{
	int sum = 0, mn = 0x7fffffff, big = 0, anyp = 0;
	for (int i = 0; i < 16; i++)
		if (x[i] > 0) {
			sum += x[i];
			mn = x[i] < mn ? x[i] : mn;
			big |= x[i] > 50;
			anyp = 1;
		}
	int v[16];
	for (int i = 0; i < 16; i++) {
		v[i] = x[i] > 0 ? sum + (big ? 1000 : 0) : 0;
		r[i] = x[i] > 0 ? mn : x[i];
	}
	(void)anyp;
	for (int i = 0; i < 8; i++)
		r[i] = v[i];
}
TEST(simd_reduce) { run(h, "sreduce", r_sreduce, -60, 60); }

static void r_sunmask(const int32_t *x, int32_t *r)
{
	int anyp = 0;
	for (int i = 0; i < 16; i++)
		anyp |= x[i] > 0;
	for (int i = 0; i < 16; i++)
		r[i] = anyp ? (x[i] > 0 ? 8 : 7) : x[i];
}
TEST(simd_unmask) { run(h, "sunmask", r_sunmask, -50, 50); }

static void r_sscatter(const int32_t *x, int32_t *r)
{
	for (int i = 0; i < 16; i++)
		if (x[i] >= 0)
			r[15 - i] = x[i] + 1;
}
TEST(simd_scatter) { run(h, "sscatter", r_sscatter, -50, 50); }

const HTest exec_simd[] = {
	T(simd_if), T(simd_else), T(simd_nested), T(simd_do), T(simd_break),
	T(simd_continue), T(simd_reduce), T(simd_unmask), T(simd_scatter), {0},
};
