/* test_divc.c — division and remainder by a constant (ptx/divc.c).
 *
 *   plan     px_div_plan's magic numbers against C's division: every
 *            divisor 1..5000 and every power of two and its neighbours,
 *            on dividends at the edges (0, 1, c - 1, c, c + 1, multiples
 *            of c and their neighbours near 2^32) and random ones;
 *   emitted  the PTX text of px_udivc and px_sdivc (quotient and
 *            remainder) run on the warp interpreter (warp.c), 32
 *            dividends a run, against C's / and % (signed: toward zero),
 *            for a spread of positive and negative divisors.
 * Prints "ok layout/divc-plan (N cases)" lines like test_layout.c. */
#include <stdio.h>
#include <string.h>

#include "target/ptx/ptx.h"
#include "warp.h"

int test_divc(void);

static uint64_t seed = 0x9E3779B97F4A7C15ull;

static uint32_t rnd32(void)
{
	seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
	return (uint32_t)(seed >> 16);
}

typedef struct {
	const char *name;
	uint64_t cases, fails;
	char first[256];
} Check;

static void fail(Check *c, const char *what, long long a, long long d, long long got,
                 long long want)
{
	if (!c->fails++)
		snprintf(c->first, sizeof c->first, "%s: %lld by %lld gave %lld, want %lld", what,
		         a, d, got, want);
}

static int done(Check *c)
{
	if (!c->fails)
		printf("ok layout/%s (%llu cases)\n", c->name, (unsigned long long)c->cases);
	else
		printf("FAIL layout/%s (%llu of %llu cases)\n    %s\n", c->name,
		       (unsigned long long)c->fails, (unsigned long long)c->cases, c->first);
	fflush(stdout);
	return c->fails != 0;
}

/* Dividends that stress divisor d: the edges of the range and of d's
 * multiples, then random ones; *n gets how many (at most 64). */
static void dividends(uint32_t d, uint32_t *a, int *n)
{
	uint32_t top = 0xffffffffu / d * d;
	uint32_t fixed[] = {0, 1, 2, d - 1, d, d + 1, 2 * d - 1, 2 * d, top - 1, top,
	                    top - d, top - d + 1, 0x7fffffffu, 0x80000000u, 0x80000001u,
	                    0xfffffffeu, 0xffffffffu, top + (d - 1 < 0xffffffffu - top ? d - 1 : 0)};
	int k = 0;
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		a[k++] = fixed[i];
	while (k < 64)
		a[k++] = rnd32() >> (rnd32() % 32);
	*n = k;
}

static void check_plan(Check *c, uint32_t d)
{
	PxDivPlan m = px_div_plan(d);
	uint32_t a[64];
	int n;
	dividends(d, a, &n);
	for (int k = 0; k < n; k++, c->cases++) {
		uint32_t got = px_div_apply(m, a[k], d);
		if (got != a[k] / d)
			fail(c, "plan", a[k], d, got, a[k] / d);
	}
}

static int test_plan(void)
{
	Check c = {"divc-plan"};
	for (uint32_t d = 1; d <= 5000; d++)
		check_plan(&c, d);
	for (int k = 1; k < 32; k++)
		for (int e = -3; e <= 3; e++)
			if ((1u << k) + (uint32_t)e)
				check_plan(&c, (1u << k) + (uint32_t)e);
	for (int k = 0; k < 2000; k++)
		check_plan(&c, rnd32() | 1);
	check_plan(&c, 0xffffffffu);
	check_plan(&c, 0xfffffffeu);
	check_plan(&c, 0x80000001u);
	return done(&c);
}

/* The text of one division by constant d (signed or not, quotient or
 * remainder) of %r0 into %r1. */
static char *emit(Arena *a, int64_t d, bool sgn, bool rem)
{
	Func f = {.name = "t"};
	Buf globals = {0};
	Px p = {.f = &f, .arena = a, .globals = &globals};
	if (sgn)
		px_sdivc(&p, "%r1", "%r0", (int32_t)d, rem);
	else
		px_udivc(&p, "%r1", "%r0", (uint32_t)d, rem);
	char *text = arena_strdup(a, buf_cstr(&p.body));
	buf_free(&p.body);
	buf_free(&globals);
	return text;
}

static long long want_of(uint32_t x, int64_t d, bool sgn, bool rem)
{
	if (!sgn)
		return rem ? x % (uint32_t)d : x / (uint32_t)d;
	int32_t s = (int32_t)x, t = (int32_t)d;
	if (s == INT32_MIN && t == -1)
		return rem ? 0 : INT32_MIN;	/* C leaves it undefined; PTX wraps */
	return rem ? s % t : s / t;
}

static void check_emitted(Check *c, Arena *ar, Warp *w, int64_t d, bool sgn, bool rem)
{
	const char *text = emit(ar, d, sgn, rem);
	uint32_t a[64];
	int n;
	dividends(sgn ? (uint32_t)(d < 0 ? -d : d) : (uint32_t)d, a, &n);
	for (int base = 0; base < n; base += 32) {
		uint64_t v[32];
		for (int l = 0; l < 32; l++)
			v[l] = a[base + l];
		warp_reset(w);
		warp_set(w, "%r0", v);
		if (!warp_run(w, text) || !warp_get(w, "%r1", v)) {
			c->cases++;
			fail(c, warp_error(w), 0, d, 0, 0);
			return;
		}
		for (int l = 0; l < 32; l++, c->cases++) {
			long long want = want_of(a[base + l], d, sgn, rem);
			long long got = sgn ? (long long)(int32_t)(uint32_t)v[l] : (long long)(uint32_t)v[l];
			if (got != want)
				fail(c, rem ? (sgn ? "srem" : "urem") : (sgn ? "sdiv" : "udiv"),
				     sgn ? (int32_t)a[base + l] : (long long)a[base + l], d, got, want);
		}
	}
}

static int test_emitted(void)
{
	Check c = {"divc-emitted"};
	Arena *ar = arena_new();
	Warp *w = warp_new();
	int64_t ds[] = {1, 2, 3, 5, 6, 7, 9, 10, 12, 24, 25, 48, 64, 100, 125, 641, 1000, 4096,
	                65535, 65536, 65537, 0x7fffffff, 0x40000000, 0x55555555};
	for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++)
		for (int r = 0; r < 2; r++) {
			check_emitted(&c, ar, w, ds[k], false, r);
			check_emitted(&c, ar, w, ds[k], true, r);
			check_emitted(&c, ar, w, -ds[k], true, r);
		}
	int64_t big[] = {0x80000000ll, 0x80000001ll, 0xfffffffell, 0xffffffffll};
	for (size_t k = 0; k < sizeof big / sizeof big[0]; k++)
		for (int r = 0; r < 2; r++)
			check_emitted(&c, ar, w, big[k], false, r);
	for (int r = 0; r < 2; r++)
		check_emitted(&c, ar, w, INT32_MIN, true, r);
	for (int k = 0; k < 200; k++) {
		uint32_t d = rnd32() >> (rnd32() % 31);
		d = d ? d : 7;
		check_emitted(&c, ar, w, d, false, k & 1);
		check_emitted(&c, ar, w, (int32_t)(d >> 1) * (k & 2 ? -1 : 1) | 1, true, k & 1);
	}
	warp_free(w);
	arena_free(ar);
	return done(&c);
}

int test_divc(void)
{
	return test_plan() + test_emitted();
}
