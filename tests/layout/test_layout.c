/* test_layout.c — the PTX back end's layout algebra (layout.c) and its
 * conversion emitter (region.c: px_emit_plan), checked without a GPU.
 *
 *   pullback   lay_pullback against its definition: element j of the
 *              result lives where source element region(j) does, the
 *              source registers renumbered densely in order; NULL exactly
 *              when the region leaves the source or reads an element twice.
 *              Exhaustive for small sources, sampled for larger ones.
 *   compose    pullback(pullback(L, r1), r2) is the pullback of L through
 *              the composed index map r1(r2(j)), register numbers included.
 *   convert    for pairs of layouts (canonical, pullbacks, pullbacks of
 *              pullbacks, a few built by hand) under the identity map,
 *              rdregion maps (with and without the region formula) and the
 *              wrregion shape (keep, -1 entries):
 *              - lay_plan's moves: each destination lane that holds a
 *                mapped element is filled by exactly one move, from the
 *                right register and lane, with a kind whose shuffle reads
 *                that lane; the totals and lay_cost follow from the moves;
 *              - px_emit_plan's PTX, run by a warp interpreter (warp.c)
 *                for 32-, 64- and 16-bit elements and predicates: every
 *                element arrives, kept lanes keep their old values, the
 *                sources are untouched, and the shfl and selp counts are
 *                the plan's (with keep, one selp per move that does not
 *                fill its whole register).
 *
 *   fragments  dpas.c's mma fragment layouts (px_dpas_layout) against the
 *              PTX ISA's fragment tables for every cm_dpas shape, restated
 *              here as (row, column) of each fragment register's element
 *              per lane; each a permutation of its operand (a register of
 *              every lane holds one element, padding only in rows past the
 *              repeat count), and converted to and from canonical through
 *              the interpreter.
 *
 * Layouts cache their inverse (lay_elems) in whatever arena first asks,
 * so layouts shared between cases get it built in their own arena.
 *
 * Deterministic: one fixed seed.  Prints "ok layout/NAME (N cases)" or
 * "FAIL layout/NAME" with the first failures.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/ptx/ptx.h"
#include "warp.h"

/* ---- harness ------------------------------------------------------------------------ */

typedef struct {
	const char *name;
	uint64_t cases, fails;
	Buf detail;
} Test;

static void bad(Test *t, const char *fmt, ...)
{
	t->fails++;
	if (t->fails > 4)
		return;
	va_list ap;
	va_start(ap, fmt);
	buf_puts(&t->detail, "    ");
	buf_vprintf(&t->detail, fmt, ap);
	buf_putc(&t->detail, '\n');
	va_end(ap);
}

static int report(Test *t)
{
	if (!t->fails) {
		printf("ok layout/%s (%llu cases)\n", t->name, (unsigned long long)t->cases);
	} else {
		printf("FAIL layout/%s (%llu of %llu cases)\n%s", t->name,
		       (unsigned long long)t->fails, (unsigned long long)t->cases,
		       buf_cstr(&t->detail));
	}
	fflush(stdout);
	buf_free(&t->detail);
	return t->fails != 0;
}

static uint64_t seed = 0x2545F4914F6CDD1Dull;

/* Uniform in 0 .. n-1 (xorshift64*). */
static uint32_t rnd(uint32_t n)
{
	seed ^= seed >> 12, seed ^= seed << 25, seed ^= seed >> 27;
	return n ? (uint32_t)((seed * 0x2545F4914F6CDD1Dull) >> 32) % n : 0;
}

static const char *rg_text(Arena *a, IrRegion rg, uint32_t n)
{
	return arena_printf(a, "<%d;%d,%d>,%d n=%u", rg.vstride, rg.width, rg.hstride, rg.offset, n);
}

static const char *lay_desc(Arena *a, const Layout *l)
{
	Buf b = {0};
	buf_printf(&b, "n=%u nregs=%u%s pos={", l->n, l->nregs, l->canon ? " canon" : "");
	for (uint32_t e = 0; e < l->n && e < 40; e++)
		buf_printf(&b, "%s%u", e ? "," : "", l->pos[e]);
	buf_puts(&b, l->n > 40 ? ",...}" : "}");
	const char *s = arena_strdup(a, buf_cstr(&b));
	buf_free(&b);
	return s;
}

/* ---- the interpreter itself ----------------------------------------------------------- */

/* Runs text with %r0 = 10 * lane and %r2 = 31 - lane; checks register
 * out against want(lane), or that the run fails when want is NULL. */
static void check_interp(Test *t, Warp *w, const char *text, const char *out,
                         int64_t (*want)(int))
{
	uint64_t v[32];
	warp_reset(w);
	for (int l = 0; l < 32; l++)
		v[l] = 10u * (uint32_t)l;
	warp_set(w, "%r0", v);
	for (int l = 0; l < 32; l++)
		v[l] = 31u - (uint32_t)l;
	warp_set(w, "%r2", v);
	bool ran = warp_run(w, text);
	t->cases++;
	if (!want) {
		if (ran)
			bad(t, "ran what it must refuse: %s", text);
		return;
	}
	if (!ran || !warp_get(w, out, v)) {
		bad(t, "%s: %s", text, ran ? "no result" : warp_error(w));
		return;
	}
	for (int l = 0; l < 32; l++)
		if ((int64_t)v[l] != want(l)) {
			bad(t, "%s: lane %d got %lld, want %lld", text, l, (long long)v[l],
			    (long long)want(l));
			return;
		}
}

static int64_t up3(int l) { return 10 * (l >= 3 ? l - 3 : l); }
static int64_t down5(int l) { return 10 * (l + 5 <= 31 ? l + 5 : l); }
static int64_t bfly6(int l) { return 10 * (l ^ 6); }
static int64_t rev(int l) { return 10 * (31 - l); }
static int64_t same(int l) { return 10 * l; }
static int64_t evens(int l) { return l % 2 ? 10 * l : 10 * (31 - l); }

static int test_interp(void)
{
	Test t = {"interp"};
	Warp *w = warp_new();
	check_interp(&t, w, "\tshfl.sync.up.b32 %r1, %r0, 3, 0, -1;\n", "%r1", up3);
	check_interp(&t, w, "\tshfl.sync.down.b32 %r1, %r0, 5, 31, -1;\n", "%r1", down5);
	check_interp(&t, w, "\tshfl.sync.bfly.b32 %r1, %r0, 6, 31, -1;\n", "%r1", bfly6);
	check_interp(&t, w, "\tshfl.sync.idx.b32 %r1, %r0, %r2, 31, -1;\n", "%r1", rev);
	check_interp(&t, w, "\tadd.s32 %r3, %r2, 64;\n\tshfl.sync.idx.b32 %r1, %r0, %r3, 31, -1;\n",
	             "%r1", rev);
	check_interp(&t, w, "\tcvt.u64.u32 %rd1, %r0;\n\tmov.b64 {%rt0, %rt1}, %rd1;\n"
	             "\tmov.b64 %rd2, {%rt1, %rt0};\n\tmov.b64 {%rt2, %rt3}, %rd2;\n", "%rt3", same);
	check_interp(&t, w, "\tshr.b32 %rt0, 1431655765, %lane;\n\tand.b32 %rt0, %rt0, 1;\n"
	             "\tsetp.ne.u32 %p1, %rt0, 0;\n\tselp.b32 %r1, %r0, %r1, %p1;\n", "%r1", NULL);
	check_interp(&t, w, "\tmov.b32 %r1, %r0;\n\tsetp.lt.u32 %p1, %lane, 0;\n"
	             "\tnot.pred %p1, %p1;\n\tselp.b32 %r1, %r0, %r1, %p1;\n", "%r1", same);
	check_interp(&t, w, "\tmov.b32 %r1, %r0;\n\tand.b32 %rt0, %lane, 1;\n"
	             "\tsetp.eq.u32 %p1, %rt0, 0;\n\tshfl.sync.idx.b32 %rt1, %r0, %r2, 31, -1;\n"
	             "\tselp.b32 %r1, %rt1, %r1, %p1;\n", "%r1", evens);
	/* what it must refuse: unknown forms, wrong widths, undefined reads */
	const char *refuse[] = {
		"\tshfl.sync.up.b64 %rd1, %rd0, 1, 0, -1;\n",
		"\tshfl.sync.up.b32 %r1, %r0, 1, 0, 65535;\n",
		"\tbar.sync 0;\n",
		"\t@%p1 mov.b32 %r1, %r0;\n",
		"\tmov.b32 %rd1, %r0;\n",
		"\tmov.b64 %rd1, %r0;\n",
		"\tadd.s32 %r1, %r9, 1;\n",
		"\tadd.s32 %r1, %r0, 1\n",
		"\tmov.u64 %rd1, nowhere;\n",
		"\tsetp.ne.u32 %r1, %r0, 0;\n",
		"\tselp.b32 %r1, %r0, %r0, %r0;\n",
		"\tmov.b32 %lane, %r0;\n",
	};
	for (size_t k = 0; k < sizeof refuse / sizeof refuse[0]; k++)
		check_interp(&t, w, refuse[k], "%r1", NULL);
	warp_free(w);
	return report(&t);
}

/* ---- pullback: the definition ------------------------------------------------------- */

/* The region map, written out here rather than taken from layout.c. */
static int64_t ref_index(IrRegion rg, int64_t j)
{
	int64_t w = rg.width > 0 ? rg.width : 1;
	return rg.offset + (j / w) * rg.vstride + (j % w) * rg.hstride;
}

/* The pullback of src through the index map idx (n entries) by the
 * definition: false when idx leaves src or repeats an element; else
 * pos[j] and regs[k] (result register k is source register regs[k]). */
static bool ref_pullback(Arena *a, const Layout *src, const int64_t *idx, uint32_t n,
                         uint32_t *pos, uint32_t *regs, uint32_t *nregs)
{
	uint8_t *used = NEWN(a, uint8_t, src->nregs), *seen = NEWN(a, uint8_t, src->n);
	uint32_t *rank = NEWN(a, uint32_t, src->nregs);
	for (uint32_t j = 0; j < n; j++) {
		if (idx[j] < 0 || idx[j] >= (int64_t)src->n || seen[idx[j]])
			return false;
		seen[idx[j]] = 1, used[src->pos[idx[j]] / 32] = 1;
	}
	*nregs = 0;
	for (uint32_t r = 0; r < src->nregs; r++)
		if (used[r])
			regs[*nregs] = r, rank[r] = (*nregs)++;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t p = src->pos[idx[j]];
		pos[j] = rank[p / 32] * 32 + p % 32;
	}
	return true;
}

/* Compares layout l (from lay_pullback, with regs) with the definition's
 * answer for idx; "" when they agree, else why not. */
static const char *same_as_ref(Arena *a, const Layout *src, const int64_t *idx, uint32_t n,
                               const Layout *l, const uint32_t *regs)
{
	uint32_t *pos = NEWN(a, uint32_t, n), *rr = NEWN(a, uint32_t, src->nregs + 1), nr;
	bool ok = ref_pullback(a, src, idx, n, pos, rr, &nr);
	if (!ok)
		return l ? "a layout where the definition has none" : "";
	if (!l)
		return "NULL where the definition has a layout";
	if (l->n != n || l->nregs != nr)
		return arena_printf(a, "n=%u nregs=%u, want n=%u nregs=%u", l->n, l->nregs, n, nr);
	for (uint32_t j = 0; j < n; j++)
		if (l->pos[j] != pos[j])
			return arena_printf(a, "element %u at %u, want %u", j, l->pos[j], pos[j]);
	for (uint32_t k = 0; regs && k < nr; k++)
		if (regs[k] != rr[k])
			return arena_printf(a, "register %u is source %u, want %u", k, regs[k], rr[k]);
	bool canon = nr == SLOTS(n);
	for (uint32_t j = 0; j < n && canon; j++)
		canon = pos[j] == j;
	if (l->canon != canon)
		return arena_printf(a, "canon flag %d, want %d", l->canon, canon);
	const int32_t *el = lay_elems(a, l);
	for (uint32_t k = 0; k < nr * 32; k++)
		if (el[k] >= 0 && (el[k] >= (int32_t)n || l->pos[el[k]] != k))
			return arena_printf(a, "lay_elems[%u] = %d is wrong", k, el[k]);
	for (uint32_t j = 0; j < n; j++)
		if (el[l->pos[j]] != (int32_t)j)
			return arena_printf(a, "lay_elems misses element %u", j);
	if (canon && !lay_equal(l, lay_canonical(a, n)))
		return "canonical but not lay_equal to lay_canonical";
	return "";
}

static void check_pullback(Test *t, Arena *a, const Layout *src, IrRegion rg, uint32_t n)
{
	int64_t *idx = NEWN(a, int64_t, n);
	for (uint32_t j = 0; j < n; j++) {
		idx[j] = ref_index(rg, j);
		if (lay_region_index(rg, j) != idx[j]) {
			bad(t, "lay_region_index %s of %u: %lld, want %lld", rg_text(a, rg, n), j,
			    (long long)lay_region_index(rg, j), (long long)idx[j]);
			return;
		}
	}
	uint32_t *regs = NULL;
	Layout *l = lay_pullback(a, src, rg, n, &regs);
	const char *why = same_as_ref(a, src, idx, n, l, regs);
	t->cases++;
	if (*why)
		bad(t, "pullback of [%s] by %s: %s", lay_desc(a, src), rg_text(a, rg, n), why);
}

/* A random region of n elements reading inside m elements, mostly: one
 * or more rows, small strides, any offset that fits the first row. */
static IrRegion random_region(uint32_t n, uint32_t m)
{
	IrRegion rg;
	uint32_t w = rnd(3) ? n : 1 + rnd(n);
	if (rnd(2)) {        /* a width that divides n */
		uint32_t d[64], nd = 0;
		for (uint32_t k = 1; k <= n && nd < 64; k++)
			if (n % k == 0)
				d[nd++] = k;
		w = d[rnd(nd)];
	}
	uint32_t rows = (n + w - 1) / w;
	rg.width = (int32_t)w;
	rg.hstride = (int32_t)(rnd(4) ? 1 + rnd(3) : rnd(2) ? 0 : rnd(m + 1));
	uint32_t span = (w - 1) * (uint32_t)rg.hstride + 1;
	uint32_t vmax = rows > 1 && m > span ? (m - span) / (rows - 1) : 0;
	rg.vstride = (int32_t)(rnd(4) ? rnd(vmax + 1) : rnd(m + 2));
	uint32_t total = (rows - 1) * (uint32_t)rg.vstride + span;
	rg.offset = (int32_t)(total <= m ? rnd(m - total + 1) : rnd(m + 1));
	if (!rnd(20))
		rg.offset = -1;
	return rg;
}

/* Random pullbacks, to be sources themselves (pullbacks of pullbacks). */
static Layout *random_pullback(Arena *a, uint32_t n, int depth)
{
	for (int tries = 0; tries < 200; tries++) {
		uint32_t m = n + rnd(3 * n + 8);
		const Layout *src = depth > 0 && rnd(2) ? random_pullback(a, m, depth - 1)
		                  : lay_canonical(a, m);
		if (!src)
			continue;
		Layout *l = lay_pullback(a, src, random_region(n, m), n, NULL);
		if (l)
			return l;
	}
	return NULL;
}

static int test_pullback(void)
{
	Test t = {"pullback"};
	/* every region of small sources: n up to one past the source, every
	 * width, strides -1 .. 4 (vstride only matters with two rows or more),
	 * offsets -1 .. past the end */
	for (uint32_t ns = 1; ns <= 12; ns++) {
		Arena *a = arena_new();
		const Layout *srcs[2] = {lay_canonical(a, ns), random_pullback(a, ns, 2)};
		for (int s = 0; s < 2; s++)
			for (uint32_t n = 1; n <= ns + 1; n++)
				for (int32_t w = 1; w <= (int32_t)n; w++) {
					Arena *b = arena_new();
					for (int32_t hs = -1; hs <= 4; hs++)
						for (int32_t vs = w < (int32_t)n ? -1 : 0; vs <= (w < (int32_t)n ? 4 : 0); vs++)
							for (int32_t o = -1; o <= (int32_t)ns; o++)
								check_pullback(&t, b, srcs[s], (IrRegion){vs, w, hs, o}, n);
					arena_free(b);
				}
		arena_free(a);
	}
	/* larger sources, canonical (1 .. 100 elements) and pullbacks: sampled */
	for (uint32_t ns = 1; ns <= 160; ns++) {
		Arena *a = arena_new();
		const Layout *src = ns <= 100 ? lay_canonical(a, ns) : random_pullback(a, ns - 60, 2);
		for (int k = 0; src && k < 300; k++) {
			uint32_t n = 1 + rnd(src->n + 2);
			check_pullback(&t, a, src, random_region(n, src->n), n);
		}
		arena_free(a);
	}
	return report(&t);
}

/* ---- compose -------------------------------------------------------------------------- */

static void check_compose(Test *t, Arena *a, const Layout *l0, IrRegion r1, uint32_t n1,
                          IrRegion r2, uint32_t n2)
{
	uint32_t *g1 = NULL, *g2 = NULL;
	Layout *p1 = lay_pullback(a, l0, r1, n1, &g1);
	if (!p1)
		return;
	Layout *p2 = lay_pullback(a, p1, r2, n2, &g2);
	int64_t *idx = NEWN(a, int64_t, n2);
	for (uint32_t j = 0; j < n2; j++) {
		int64_t x = ref_index(r2, j);
		idx[j] = x < 0 || x >= n1 ? -1 : ref_index(r1, x);
	}
	uint32_t *g = NULL;
	if (p2) {
		g = NEWN(a, uint32_t, p2->nregs + 1);
		for (uint32_t k = 0; k < p2->nregs; k++)
			g[k] = g1[g2[k]];
	}
	const char *why = same_as_ref(a, l0, idx, n2, p2, g);
	t->cases++;
	if (*why)
		bad(t, "[%s] by %s then %s: %s", lay_desc(a, l0), rg_text(a, r1, n1),
		    rg_text(a, r2, n2), why);
}

static int test_compose(void)
{
	Test t = {"compose"};
	for (int c = 0; c < 400; c++) {
		Arena *a = arena_new();
		uint32_t n0 = 1 + rnd(c < 200 ? 24 : 200);
		const Layout *l0 = c % 3 ? lay_canonical(a, n0) : random_pullback(a, n0, 1);
		if (l0) {
			uint32_t n1 = 1 + rnd(n0);
			IrRegion r1 = random_region(n1, n0);
			for (int k = 0; k < 300; k++) {
				uint32_t n2 = 1 + rnd(n1 + 1);
				check_compose(&t, a, l0, r1, n1, random_region(n2, n1), n2);
			}
		}
		arena_free(a);
	}
	return report(&t);
}

/* ---- plan ------------------------------------------------------------------------------ */

/* The source element of destination element y (-1: none). */
static int32_t map_of(const int32_t *map, uint32_t y)
{
	return map ? map[y] : (int32_t)y;
}

/* Checks pl's structure against dl, sl and map; "" when right. */
static const char *plan_error(Arena *a, const LPlan *pl, const Layout *dl, const Layout *sl,
                              const int32_t *map)
{
	const int32_t *de = lay_elems(a, dl);
	uint32_t shfl = 0, selp = 0;
	uint32_t *uses = NEWN(a, uint32_t, pl->nshares + 1);   /* moves per shared rotation */
	if (pl->nregs != dl->nregs)
		return "plan register count is not the destination's";
	for (uint32_t r = 0; r < pl->nregs; r++) {
		const LRegPlan *rp = &pl->r[r];
		uint32_t valid = 0, want = 0, got = 0;
		for (uint32_t l = 0; l < 32; l++) {
			int32_t y = de[r * 32 + l];
			if (y < 0)
				continue;
			valid |= 1u << l;
			int32_t x = map_of(map, (uint32_t)y);
			if (x >= 0 && x < (int32_t)sl->n)
				want |= 1u << l;
		}
		if (rp->valid != valid)
			return arena_printf(a, "reg %u: valid %#x, want %#x", r, rp->valid, valid);
		for (uint32_t k = 0; k < rp->nmoves; k++) {
			const LMove *m = &rp->m[k];
			if (k && m->sreg <= rp->m[k - 1].sreg)
				return arena_printf(a, "reg %u: moves not in source register order", r);
			if (!m->lanes || (m->lanes & got))
				return arena_printf(a, "reg %u: move %u empty or overlapping", r, k);
			got |= m->lanes;
			bool free = true;
			for (int l = 0; l < 32; l++) {
				if (!(m->lanes >> l & 1))
					continue;
				uint32_t p = sl->pos[map_of(map, (uint32_t)de[r * 32 + l])];
				if (m->sreg != p / 32 || m->src[l] != p % 32)
					return arena_printf(a, "reg %u lane %d: reads %u.%u, want %u.%u", r, l,
					                    m->sreg, m->src[l], p / 32, p % 32);
				if (lay_move_source(m, l) != (int)(p % 32))
					return arena_printf(a, "reg %u lane %d: kind %d reads lane %d, want %u",
					                    r, l, m->kind, lay_move_source(m, l), p % 32);
				free = free && p % 32 == (uint32_t)l;
			}
			if ((m->kind == LM_FREE) != free)
				return arena_printf(a, "reg %u move %u: kind %d, free %d", r, k, m->kind, free);
			if (m->share >= (int32_t)pl->nshares)
				return arena_printf(a, "reg %u move %u: share %d of %u", r, k, m->share,
				                    pl->nshares);
			if (m->share >= 0) {
				/* a shared rotation: lane l reads (l + rot) % 32 of sreg */
				const LShare *sh = &pl->shares[m->share];
				if (sh->sreg != m->sreg)
					return arena_printf(a, "reg %u move %u: shares a rotation of %u", r, k,
					                    sh->sreg);
				for (int l = 0; l < 32; l++)
					if (m->lanes >> l & 1 && m->src[l] != (uint32_t)(l + sh->rot) % 32)
						return arena_printf(a, "reg %u lane %d: rotation %d reads %d", r, l,
						                    sh->rot, m->src[l]);
				shfl += !uses[m->share]++;
				continue;
			}
			shfl += !free;
		}
		if (got != want)
			return arena_printf(a, "reg %u: moves fill %#x, want %#x", r, got, want);
		selp += rp->nmoves > 1 ? rp->nmoves - 1 : 0;
	}
	for (uint32_t k = 0; k < pl->nshares; k++)
		if (uses[k] < 2)
			return arena_printf(a, "shared rotation %u has %u moves", k, uses[k]);
	if (pl->shfl != shfl || pl->selp != selp)
		return arena_printf(a, "totals %u shfl %u selp, moves say %u and %u", pl->shfl,
		                    pl->selp, shfl, selp);
	for (uint32_t bytes = 4; bytes <= 8; bytes += 4)
		if (lay_cost(pl, bytes) != (LAY_COST_SHFL * shfl + selp) * (bytes / 4))
			return "lay_cost disagrees with the totals";
	return "";
}

/* ---- convert: emission run by the interpreter ---------------------------------------------- */

static const char *const prefix[RC_COUNT_] = {"%p", "%h", "%r", "%rd", "%f", "%fd"};
static const Elem elems[] = {E_I32, E_F32, E_I64, E_F64, E_F16, E_I1};
#define NELEMS (sizeof elems / sizeof elems[0])

static int class_bits(RegClass c)
{
	return c == RC_PRED ? 1 : c == RC_B16 ? 16 : c == RC_B64 || c == RC_F64 ? 64 : 32;
}

/* The value standing for id in a register of width bits (predicates: bit
 * `run` of id, one interpreter run per bit).  Halves of 64-bit values
 * differ, so a swapped or lost half shows. */
static uint64_t enc(int bits, uint32_t id, int run)
{
	switch (bits) {
	case 1: return id >> run & 1;
	case 16: return id;
	case 32: return 0x5A000000u | id;
	default: return (uint64_t)(0xA5000000u | id) << 32 | (0x5A000000u | id);
	}
}

enum { F_IDENTITY, F_RD, F_RDRG, F_WR, F_COUNT };

typedef struct {
	Warp *w;
	Test *t;
	uint64_t fam[F_COUNT];     /* cases by family */
	uint64_t kinds[LM_IDX + 1]; /* moves planned, by kind */
	uint64_t tables, formulas;  /* lane-table loads and region formulas run */
} Conv;

static uint32_t count_lines(const char *text, const char *start)
{
	uint32_t n = 0;
	size_t len = strlen(start);
	for (const char *s = text; (s = strchr(s, '\t')); s++)
		if (!strncmp(s + 1, start, len))
			n++;
	return n;
}

/* Emits pl for element type e and runs it; "" when every element arrives. */
static const char *emit_error(Conv *cv, Arena *a, const LPlan *pl, const Layout *dl,
                              const Layout *sl, const int32_t *map, bool keep,
                              const IrRegion *rg, Elem e, const char **text)
{
	RegClass c = px_class(e);
	int bits = class_bits(c), w64 = bits == 64 ? 2 : 1;
	Func f = {.name = "t"};
	Buf globals = {0};
	Px p = {.f = &f, .arena = a, .globals = &globals};
	const char **d = NEWN(a, const char *, dl->nregs + 1);
	const char **s = NEWN(a, const char *, sl->nregs + 1);
	for (uint32_t r = 0; r < dl->nregs; r++)
		d[r] = arena_printf(a, "%s1_%u", prefix[c], r);
	for (uint32_t r = 0; r < sl->nregs; r++)
		s[r] = arena_printf(a, "%s2_%u", prefix[c], r);
	px_emit_plan(&p, e, d, s, pl, keep, rg);
	*text = arena_strdup(a, buf_cstr(&p.body));
	const char *tabs = arena_strdup(a, globals.len ? buf_cstr(&globals) : "");
	buf_free(&p.body);
	buf_free(&globals);

	/* counts: the plan's, the emitter's own and the text's agree */
	uint32_t keep_selp = 0;
	for (uint32_t r = 0; r < pl->nregs; r++)
		for (uint32_t k = 0; k < pl->r[r].nmoves; k++)
			keep_selp += pl->r[r].m[k].lanes != pl->r[r].valid;
	uint32_t want_selp = keep ? keep_selp : pl->selp;
	uint32_t tshfl = count_lines(*text, "shfl.sync.");
	uint32_t tselp = count_lines(*text, c == RC_PRED ? "or.pred" : "selp.");
	if (tshfl != p.nshfl || tshfl != pl->shfl * w64)
		return arena_printf(a, "%u shfl in the text, %u counted, plan %u", tshfl, p.nshfl, pl->shfl);
	if (tselp != p.nselp || tselp != want_selp)
		return arena_printf(a, "%u selp in the text, %u counted, want %u", tselp, p.nselp, want_selp);
	if (!keep && lay_cost(pl, (uint32_t)ir_elem_bytes[e]) !=
	             (LAY_COST_SHFL * tshfl + tselp * w64))
		return "lay_cost disagrees with the emitted counts";

	/* ids: source element x is x + 1, old destination element y is
	 * sl->n + 1 + y, padding 0 */
	uint32_t maxid = sl->n + dl->n + 1, runs = 1;
	if (c == RC_PRED)
		for (runs = 1; maxid >> runs; runs++)
			;
	const int32_t *se = lay_elems(a, sl), *de = lay_elems(a, dl);
	uint32_t *got = NEWN(a, uint32_t, (size_t)dl->nregs * 32 + 1);
	uint64_t v[32];
	for (uint32_t run = 0; run < runs; run++) {
		warp_reset(cv->w);
		if (!warp_tables(cv->w, tabs))
			return arena_printf(a, "globals: %s", warp_error(cv->w));
		for (uint32_t r = 0; r < sl->nregs; r++) {
			for (int l = 0; l < 32; l++)
				v[l] = enc(bits, (uint32_t)(se[r * 32 + l] + 1), (int)run);
			warp_set(cv->w, s[r], v);
		}
		for (uint32_t r = 0; keep && r < dl->nregs; r++) {
			for (int l = 0; l < 32; l++)
				v[l] = enc(bits, de[r * 32 + l] < 0 ? 0 : sl->n + 1 + (uint32_t)de[r * 32 + l],
				           (int)run);
			warp_set(cv->w, d[r], v);
		}
		if (!warp_run(cv->w, *text))
			return arena_printf(a, "interpreter: %s", warp_error(cv->w));
		for (uint32_t r = 0; r < sl->nregs; r++) {
			warp_get(cv->w, s[r], v);
			for (int l = 0; l < 32; l++)
				if (v[l] != enc(bits, (uint32_t)(se[r * 32 + l] + 1), (int)run))
					return arena_printf(a, "source %s lane %d was overwritten", s[r], l);
		}
		for (uint32_t r = 0; r < dl->nregs; r++) {
			if (!warp_get(cv->w, d[r], v))
				return arena_printf(a, "%s is never written", d[r]);
			for (int l = 0; l < 32; l++) {
				uint32_t *g = &got[r * 32 + l];
				if (c == RC_PRED)
					*g = run ? *g | (uint32_t)v[l] << run : (uint32_t)v[l];
				else
					*g = (uint32_t)v[l];
				if (c != RC_PRED && de[r * 32 + l] >= 0 &&
				    v[l] != enc(bits, (uint32_t)v[l] & 0xffff, 0))
					return arena_printf(a, "%s lane %d holds %#llx, no element's value", d[r],
					                    l, (unsigned long long)v[l]);
			}
		}
	}
	for (uint32_t r = 0; r < dl->nregs; r++)
		for (int l = 0; l < 32; l++) {
			int32_t y = de[r * 32 + l];
			if (y < 0)
				continue;
			int32_t x = map_of(map, (uint32_t)y);
			uint32_t want = x >= 0 ? (uint32_t)x + 1 : keep ? sl->n + 1 + (uint32_t)y : 0;
			uint32_t g = got[r * 32 + l] & (c == RC_PRED ? ~0u : 0xffff);
			if (want && g != want)
				return arena_printf(a, "%s lane %d (element %d) holds id %u, want %u%s", d[r], l,
				                    y, g, want, x < 0 ? " (kept)" : "");
		}
	return "";
}

/* One conversion dl <- sl by map: the plan, then its emission for every
 * element type.  keep: the wrregion shape; rg: the region formula path. */
static void check_conv(Conv *cv, const Layout *dl, const Layout *sl, const int32_t *map,
                       bool keep, const IrRegion *rg, const char *what)
{
	Arena *a = arena_new();
	LPlan *pl = lay_plan(a, dl, sl, map);
	const char *why = plan_error(a, pl, dl, sl, map), *text = "";
	Elem bad_e = E_VOID;
	for (size_t k = 0; !*why && k < NELEMS; k++) {
		why = emit_error(cv, a, pl, dl, sl, map, keep, rg, elems[k], &text);
		bad_e = elems[k];
	}
	for (uint32_t r = 0; r < pl->nregs; r++)
		for (uint32_t k = 0; k < pl->r[r].nmoves; k++)
			cv->kinds[pl->r[r].m[k].kind]++;
	cv->tables += count_lines(text, "ld.global.nc.u8");
	cv->formulas += count_lines(text, "div.u32");
	cv->t->cases++;
	cv->fam[!map ? F_IDENTITY : keep ? F_WR : rg ? F_RDRG : F_RD]++;
	if (*why) {
		Buf m = {0};
		buf_printf(&m, "%s, %s: %s\n      dst %s\n      src %s", what,
		           bad_e == E_VOID ? "plan" : ir_elem_name[bad_e], why, lay_desc(a, dl),
		           lay_desc(a, sl));
		if (map) {
			buf_puts(&m, "\n      map {");
			for (uint32_t y = 0; y < dl->n && y < 40; y++)
				buf_printf(&m, "%s%d", y ? "," : "", map[y]);
			buf_puts(&m, "}");
		}
		if (*text && cv->t->fails < 1) {
			buf_puts(&m, "\n      PTX:\n");
			int lines = 0;
			for (const char *s = text; *s && lines < 40; s++) {
				if (s == text || s[-1] == '\n')
					buf_puts(&m, "        "), lines++;
				buf_putc(&m, *s == '\t' ? ' ' : *s);
			}
		}
		bad(cv->t, "%s", buf_cstr(&m));
		buf_free(&m);
	}
	arena_free(a);
}

/* Layouts of each size for the conversion tests: canonical, pullbacks,
 * pullbacks of pullbacks; distinct. */
#define NSIZES 17
#define PERSIZE 8
static const uint32_t sizes[NSIZES] = {1, 2, 3, 5, 8, 13, 16, 17, 31, 32, 33, 48, 64, 65, 96, 100, 128};

typedef struct {
	Arena *a;
	const Layout *l[NSIZES][PERSIZE];
	uint32_t n[NSIZES];
} Pool;

static void pool_build(Pool *pl)
{
	pl->a = arena_new();
	for (int s = 0; s < NSIZES; s++) {
		pl->l[s][pl->n[s]++] = lay_canonical(pl->a, sizes[s]);
		for (int tries = 0; tries < 100 && pl->n[s] < PERSIZE; tries++) {
			Layout *l = random_pullback(pl->a, sizes[s], 1 + tries % 2);
			bool dup = !l;
			for (uint32_t k = 0; !dup && k < pl->n[s]; k++)
				dup = lay_equal(l, pl->l[s][k]);
			if (!dup)
				pl->l[s][pl->n[s]++] = l;
		}
		/* lay_elems caches its table in the layout: build it in the
		 * layout's own arena, not a case's */
		for (uint32_t k = 0; k < pl->n[s]; k++)
			lay_elems(pl->a, pl->l[s][k]);
	}
}

/* The rdregion map of rg (n elements from m); false when it leaves m. */
static bool region_map(IrRegion rg, uint32_t n, uint32_t m, int32_t *map)
{
	for (uint32_t k = 0; k < n; k++) {
		int64_t x = ref_index(rg, k);
		if (x < 0 || x >= m)
			return false;
		map[k] = (int32_t)x;
	}
	return true;
}

/* The wrregion map of rg (n new elements into m): inv[x] = k where
 * region(k) = x, else -1; false when it leaves m or writes x twice. */
static bool write_map(IrRegion rg, uint32_t n, uint32_t m, int32_t *inv)
{
	for (uint32_t x = 0; x < m; x++)
		inv[x] = -1;
	for (uint32_t k = 0; k < n; k++) {
		int64_t x = ref_index(rg, k);
		if (x < 0 || x >= m || inv[x] >= 0)
			return false;
		inv[x] = (int32_t)k;
	}
	return true;
}

/* Maps already checked in an exhaustive family (many regions give one):
 * a set of their hashes, open addressing. */
#define NSEEN (1u << 17)

static bool seen_before(uint64_t *seen, const int32_t *map, uint32_t n, uint32_t tag)
{
	uint64_t h = 1469598103934665603ull ^ tag;
	for (uint32_t k = 0; k < n; k++)
		h = (h ^ (uint32_t)map[k]) * 1099511628211ull;
	h = ((h ^ n) * 1099511628211ull) | 1;
	for (uint32_t k = (uint32_t)(h >> 40) % NSEEN;; k = (k + 1) % NSEEN) {
		if (seen[k] == h)
			return true;
		if (!seen[k]) {
			seen[k] = h;
			return false;
		}
	}
}

/* identity: every pair of layouts of one size */
static void convert_identity(Conv *cv, const Pool *pool)
{
	for (int s = 0; s < NSIZES; s++)
		for (uint32_t i = 0; i < pool->n[s]; i++)
			for (uint32_t j = 0; j < pool->n[s]; j++)
				check_conv(cv, pool->l[s][i], pool->l[s][j], NULL, false, NULL, "identity");
}

/* A layout of n elements in nregs registers, pos[e] = f(e, c). */
static const Layout *hand_layout(Arena *a, uint32_t n, uint32_t nregs,
                                 uint32_t (*f)(uint32_t, uint32_t), uint32_t c)
{
	Layout *l = NEW(a, Layout);
	*l = (Layout){.n = n, .nregs = nregs, .pos = NEWN(a, uint32_t, n)};
	for (uint32_t e = 0; e < n; e++)
		l->pos[e] = f ? f(e, c) : e;
	l->canon = !f;
	lay_elems(a, l);
	return l;
}

/* Lane e ^ c in the first register, e ^ 2c in the second. */
static uint32_t xor_pos(uint32_t e, uint32_t c)
{
	return (e & ~31u) | ((e ^ (c * (e / 32 + 1))) & 31);
}

/* Elements 16.. skip a register, which holds only padding. */
static uint32_t gap_pos(uint32_t e, uint32_t c)
{
	return e < 16 ? e : 64 + e;
}

/* Identity between canonical and layouts built by hand: xor-swizzled
 * ones (regions only add, so every butterfly constant comes from here)
 * and one with a register of padding (which gets a defined zero). */
static void convert_hand(Conv *cv)
{
	Arena *a = arena_new();
	for (uint32_t n = 32; n <= 64; n += 32) {
		const Layout *cl = hand_layout(a, n, n / 32, NULL, 0);
		for (uint32_t c = 1; c < 32; c++) {
			const Layout *xl = hand_layout(a, n, n / 32, xor_pos, c);
			check_conv(cv, cl, xl, NULL, false, NULL, "identity (xor)");
			check_conv(cv, xl, cl, NULL, false, NULL, "identity (xor)");
		}
	}
	const Layout *gap = hand_layout(a, 32, 3, gap_pos, 0), *cl = hand_layout(a, 32, 1, NULL, 0);
	check_conv(cv, gap, cl, NULL, false, NULL, "identity (padding register)");
	check_conv(cv, cl, gap, NULL, false, NULL, "identity (padding register)");
	arena_free(a);
}

/* rdregion of sl through rg into dl (canonical both: also by the region
 * formula, as rd_const does), and when rg writes no element twice, the
 * wrregion of dl into sl through rg. */
static void region_cases(Conv *cv, const Layout *dl, const Layout *sl, IrRegion rg,
                         bool both_ways)
{
	int32_t map[512];
	if (region_map(rg, dl->n, sl->n, map)) {
		if (dl->canon && sl->canon)
			check_conv(cv, dl, sl, map, false, &rg, "rdregion (formula)");
		if (both_ways || !dl->canon || !sl->canon)
			check_conv(cv, dl, sl, map, false, NULL, "rdregion");
	}
	if (write_map(rg, dl->n, sl->n, map))
		check_conv(cv, sl, dl, map, true, NULL, "wrregion");
}

/* Exhaustive on one-register canonical layouts: every distinct region
 * map of n <= 6 elements in m <= 12. */
static void convert_small(Conv *cv, uint64_t *seen)
{
	Arena *a = arena_new();
	const Layout *canon[13];
	int32_t map[16];
	for (uint32_t n = 1; n <= 12; n++)
		canon[n] = hand_layout(a, n, 1, NULL, 0);
	for (uint32_t m = 1; m <= 12; m++)
		for (uint32_t n = 1; n <= 6; n++)
			for (int32_t w = 1; w <= (int32_t)n; w++)
				for (int32_t hs = 0; hs <= 4; hs++)
					for (int32_t vs = 0; vs <= (w < (int32_t)n ? (int32_t)m : 0); vs++)
						for (int32_t o = 0; o < (int32_t)m; o++) {
							IrRegion rg = {vs, w, hs, o};
							for (uint32_t k = 0; k < n; k++)
								map[k] = (int32_t)ref_index(rg, k);
							if (!seen_before(seen, map, n, m))
								region_cases(cv, canon[n], canon[m], rg, true);
						}
	arena_free(a);
}

/* Power-of-two regions (matrix rows, columns, transposes) of one or two
 * registers, exhaustive, into canonical and pullback destinations. */
static void convert_pow2(Conv *cv, const Pool *pool, uint64_t *seen)
{
	Arena *a = arena_new();
	const Layout *canon[2] = {hand_layout(a, 32, 1, NULL, 0), hand_layout(a, 64, 2, NULL, 0)};
	int32_t map[64];
	for (uint32_t m = 32; m <= 64; m *= 2)
		for (uint32_t n = 8; n <= 64; n *= 2)
			for (int32_t w = 1; w <= (int32_t)n; w *= 2)
				for (int32_t hs = 0; hs <= 32; hs = hs ? 2 * hs : 1)
					for (int32_t vs = 0; vs <= 64; vs = vs ? 2 * vs : 1)
						for (int32_t o = 0; o <= 3; o += 3) {
							IrRegion rg = {vs, w, hs, o};
							if (!region_map(rg, n, m, map) || seen_before(seen, map, n, 2000 + m))
								continue;
							int si = n == 8 ? 4 : n == 16 ? 6 : n == 32 ? 9 : 12;
							region_cases(cv, pool->l[si][rnd(pool->n[si])], canon[m / 64], rg,
							             false);
						}
	arena_free(a);
}

/* Sampled: any two pool layouts, random regions between them. */
static void convert_sampled(Conv *cv, const Pool *pool)
{
	for (int c = 0; c < 3000; c++) {
		int sd = (int)rnd(NSIZES), ss = (int)rnd(NSIZES);
		const Layout *dl = pool->l[sd][rnd(pool->n[sd])], *sl = pool->l[ss][rnd(pool->n[ss])];
		region_cases(cv, dl, sl, random_region(dl->n, sl->n), false);
		/* the smaller into the larger: most such regions are writes too */
		if (dl->n > sl->n) {
			const Layout *t = dl;
			dl = sl, sl = t;
		}
		region_cases(cv, dl, sl, random_region(dl->n, sl->n), false);
	}
}

static int test_convert(void)
{
	Test t = {"convert"};
	Conv cv = {warp_new(), &t};
	Pool pool = {0};
	pool_build(&pool);
	uint64_t *seen = calloc(NSEEN, sizeof *seen);
	convert_identity(&cv, &pool);
	convert_hand(&cv);
	convert_small(&cv, seen);
	convert_pow2(&cv, &pool, seen);
	convert_sampled(&cv, &pool);
	free(seen);
	arena_free(pool.a);
	warp_free(cv.w);
	if (t.fails)
		return report(&t);
	printf("ok layout/convert (%llu cases: %llu identity, %llu rdregion, %llu rdregion by "
	       "the region formula, %llu wrregion; each for %zu element types)\n",
	       (unsigned long long)t.cases, (unsigned long long)cv.fam[F_IDENTITY],
	       (unsigned long long)cv.fam[F_RD], (unsigned long long)cv.fam[F_RDRG],
	       (unsigned long long)cv.fam[F_WR], NELEMS);
	if (getenv("LAYOUT_VERBOSE"))
		printf("    moves: %llu free, %llu down, %llu up, %llu bfly, %llu affine, %llu idx "
		       "(%llu lane tables, %llu region formulas in the last element type's PTX)\n",
		       (unsigned long long)cv.kinds[LM_FREE], (unsigned long long)cv.kinds[LM_DOWN],
		       (unsigned long long)cv.kinds[LM_UP], (unsigned long long)cv.kinds[LM_BFLY],
		       (unsigned long long)cv.kinds[LM_AFFINE], (unsigned long long)cv.kinds[LM_IDX],
		       (unsigned long long)cv.tables, (unsigned long long)cv.formulas);
	buf_free(&t.detail);
	return 0;
}

/* ---- fragments ---------------------------------------------------------------------- */

/* An mma shape as cm_dpas makes it: precisions (p1 == p2), repeat count,
 * execution size, and the element sizes of B/A and of the accumulator. */
typedef struct {
	int prec, rc, es, eb, acc_eb;
	const char *name;
} Shape;

/* Where the PTX ISA puts operand k's element (its register r of tile tl,
 * lane L): *row, *col in the operand's matrix, in its elements (dwords
 * of packed 8- and 16-bit values).  A (k == 2): a0 row g, column t; a2
 * (our register 1) row g, column t + 4 (FP64: a0 only, column t).  B: b0
 * row t, column g; b1 row t + 4.  C and D: c0, c1 row g, columns 2t, 2t + 1.
 * g = L / 4, t = L % 4; rows 8..15 of the 16-row shapes are not CM's.
 * When both operands are loaded into their fragments cmetal permutes the
 * k dwords of A and B alike (dpas.c frag_elem: dword 2t + r in the ISA's
 * slot t + 4r), which changes only the order of the mma's sum. */
static void isa_place(const Shape *sh, bool kperm, int k, int tl, int r, int L, int *row,
                      int *col)
{
	int g = L / 4, t = L % 4;
	/* the k dwords permuted alike in A and B when both are loaded
	 * (dpas.c frag_elem): slot t + 4r holds dword 2t + r; FP64 has one
	 * slot per lane */
	int kd = sh->prec == PR_DF ? t : kperm ? 2 * t + r : t + 4 * r;
	if (k == 2)
		*row = g, *col = kd;
	else if (k == 1)
		*row = kd, *col = 8 * tl + g;
	else
		*row = g, *col = 8 * tl + 2 * t + r;
}

static void check_fragment(Test *t, Conv *cv, Px *p, const Shape *sh, Inst *i, int k)
{
	const Layout *l = px_dpas_layout(p, i, (uint32_t)k);
	const Inst *v = k ? i->ops[k] : i;
	int ntiles = sh->es / 8, per = sh->prec == PR_DF && k ? 1 : 2, tiles = k == 2 ? 1 : ntiles;
	int cols = k == 2 ? (sh->prec == PR_DF ? 4 : 8) : sh->es, rows = k == 1 ? v->ty.n / cols : sh->rc;
	t->cases++;
	if (!l) {
		bad(t, "%s operand %d: no fragment layout", sh->name, k);
		return;
	}
	if (l->n != v->ty.n || l->nregs != (uint32_t)(tiles * per)) {
		bad(t, "%s operand %d: %u elements in %u registers", sh->name, k, l->n, l->nregs);
		return;
	}
	const int32_t *el = lay_elems(p->arena, l);
	for (int tl = 0; tl < tiles; tl++)
		for (int r = 0; r < per; r++)
			for (int L = 0; L < 32; L++) {
				int row, col;
				isa_place(sh, px_dpas_kperm(i), k, tl, r, L, &row, &col);
				int32_t want = row < rows ? row * cols + col : -1;
				int32_t got = el[(tl * per + r) * 32 + L];
				if (got != want) {
					bad(t, "%s operand %d, register %d, lane %d: element %d, the ISA's %d",
					    sh->name, k, tl * per + r, L, got, want);
					return;
				}
			}
	const Layout *cl = lay_canonical(p->arena, l->n);
	lay_elems(p->arena, cl);	/* in the arena that outlives both cases */
	check_conv(cv, l, cl, NULL, false, NULL, "identity (fragment)");
	check_conv(cv, cl, l, NULL, false, NULL, "identity (fragment)");
}

static int test_fragments(void)
{
	Test t = {"fragments"};
	Conv cv = {warp_new(), &t};
	static const Shape shapes[] = {
		{PR_HF, 8, 8, 4, 4, "f16 m16n8k16"}, {PR_HF, 3, 16, 4, 4, "f16 repeat 3, exec 16"},
		{PR_BF, 5, 8, 4, 4, "bf16"}, {PR_TF32, 8, 16, 4, 4, "tf32 m16n8k8"},
		{PR_S8, 8, 8, 4, 4, "s8 m16n8k32"}, {PR_U8, 1, 16, 4, 4, "u8 repeat 1"},
		{PR_DF, 8, 8, 8, 8, "f64 m8n8k4"}, {PR_DF, 2, 16, 8, 8, "f64 repeat 2, exec 16"},
	};
	for (size_t x = 0; x < 2 * sizeof shapes / sizeof *shapes; x++) {
		const Shape *sh = &shapes[x / 2];
		Op src = x % 2 ? Omload : Oconst;	/* loaded operands: k permuted */
		Arena *a = arena_new();
		Px px = {.arena = a};
		Elem acc = sh->prec == PR_DF ? E_F64 : sh->prec == PR_S8 || sh->prec == PR_U8 ? E_I32
		                                                                             : E_F32;
		Elem op = sh->prec == PR_DF ? E_F64 : E_U32;
		int kb = sh->prec == PR_DF ? 4 : 8;	/* K in operand elements */
		Inst *b = NEW(a, Inst), *am = NEW(a, Inst), *c = NEW(a, Inst), *i = NEW(a, Inst);
		*b = (Inst){.op = src, .ty = {op, (uint32_t)(kb * sh->es)}};
		*am = (Inst){.op = src, .ty = {op, (uint32_t)(kb * sh->rc)}};
		*c = (Inst){.op = Oconst, .ty = {acc, (uint32_t)(sh->rc * sh->es)}};
		Inst **ops = NEWN(a, Inst *, 3);
		ops[0] = c, ops[1] = b, ops[2] = am;
		*i = (Inst){.op = Odpas, .ty = c->ty, .ops = ops, .nops = 3,
		            .imm = sh->prec | sh->prec << 8 | sh->rc << 16};
		for (int k = 0; k < 3; k++)
			check_fragment(&t, &cv, &px, sh, i, k);
		arena_free(a);
	}
	warp_free(cv.w);
	return report(&t);
}

int test_divc(void);	/* test_divc.c */

int main(void)
{
	int fails = test_interp();
	fails += test_pullback();
	fails += test_compose();
	fails += test_convert();
	fails += test_fragments();
	fails += test_divc();
	return fails ? 1 : 0;
}
