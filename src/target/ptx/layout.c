/* layout.c — where the elements of a vector live in a warp's registers,
 * and what moving them between two such places costs.
 *
 * requires: nothing but the region semantics of ir.h; no Func, no output.
 *
 * A layout maps element e of an n-element value to a location: register
 * slot pos[e] / 32 and lane pos[e] % 32 of the warp (one element per 32-bit
 * register and lane).  Locations not named by any element are padding.
 * The canonical layout (pos[e] == e) is the model of ptx.h; any other is
 * made by a region read in place: the result of rdregion takes the
 * *pullback* of its source's layout, each result element staying where
 * the source element it reads lives, so the region costs no instruction
 * (its registers are the source's, renamed).  Layouts are explicit tables:
 * kernels hold few values of more than a few hundred elements, and a table
 * composes exactly through any region (offsets, strides, rows of 48).
 *
 * A conversion plan fills the registers of one layout from another: for
 * each destination register, its lanes are grouped by the source register
 * their element lives in, and each group is one move: free when every
 * lane reads its own lane, else one shfl.sync (down/up for a constant
 * distance, bfly for a constant xor, idx otherwise), with a selp for every
 * group after the first.  A constant distance is a rotation of the
 * source register: moves of several destination registers that rotate
 * one source register as far share one shfl.idx (a row of 64 shifted by
 * d lanes: its second register feeds the tail of the first and the head
 * of the second).  The plan names each move's shuffle, so the emitter
 * prints it and the unit tests interpret it.
 */
#include <string.h>

#include "target/ptx/ptx.h"

Layout *lay_canonical(Arena *a, uint32_t n)
{
	Layout *l = NEW(a, Layout);
	l->n = n;
	l->nregs = SLOTS(n);
	l->pos = NEWN(a, uint32_t, n ? n : 1);
	for (uint32_t e = 0; e < n; e++)
		l->pos[e] = e;
	l->canon = true;
	return l;
}

/* The element at each location of l (-1: padding), built on first use. */
static const int32_t *elems_in(Arena *a, const Layout *l);

const int32_t *lay_elems(Arena *a, const Layout *l)
{
	Layout *m = (Layout *)l;
	if (!m->elem)
		m->elem = (int32_t *)elems_in(a, l);
	return m->elem;
}

bool lay_equal(const Layout *x, const Layout *y)
{
	if (x == y)
		return true;
	if (!x || !y || x->n != y->n || x->nregs != y->nregs)
		return false;
	if (x->canon && y->canon)
		return true;
	return !memcmp(x->pos, y->pos, x->n * sizeof *x->pos);
}

int64_t lay_region_index(IrRegion rg, int64_t k)
{
	int64_t w = rg.width > 0 ? rg.width : 1;
	return rg.offset + (k / w) * rg.vstride + (k % w) * rg.hstride;
}

/* True when pos names every location once and is canonical. */
static bool is_canonical(const uint32_t *pos, uint32_t n)
{
	for (uint32_t e = 0; e < n; e++)
		if (pos[e] != e)
			return false;
	return true;
}

Layout *lay_pullback(Arena *a, const Layout *src, IrRegion rg, uint32_t n, uint32_t **regs)
{
	if (!src || n == 0)
		return NULL;
	/* which source registers the region touches, in order */
	uint8_t *used = NEWN(a, uint8_t, src->nregs);
	for (uint32_t j = 0; j < n; j++) {
		int64_t x = lay_region_index(rg, j);
		if (x < 0 || x >= (int64_t)src->n)
			return NULL;
		used[src->pos[x] / 32] = 1;
	}
	uint32_t *map = NEWN(a, uint32_t, src->nregs), nr = 0;
	for (uint32_t r = 0; r < src->nregs; r++)
		if (used[r])
			map[r] = nr++;
	Layout *l = NEW(a, Layout);
	l->n = n;
	l->nregs = nr;
	l->pos = NEWN(a, uint32_t, n);
	uint32_t *from = NEWN(a, uint32_t, nr);
	uint8_t *taken = NEWN(a, uint8_t, (size_t)nr * 32);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t p = src->pos[lay_region_index(rg, j)];
		uint32_t q = map[p / 32] * 32 + p % 32;
		if (taken[q])
			return NULL;    /* a replicated read: not one place per element */
		taken[q] = 1;
		l->pos[j] = q;
		from[map[p / 32]] = p / 32;
	}
	l->canon = nr == SLOTS(n) && is_canonical(l->pos, n);
	if (regs)
		*regs = from;
	return l;
}

Layout *lay_compose(Arena *a, uint32_t n, const IrRegion *rg, const Layout *const *part,
                    uint32_t m, bool fill)
{
	uint32_t *pos = NEWN(a, uint32_t, n ? n : 1), nregs = 0;
	for (uint32_t e = 0; e < n; e++)
		pos[e] = UINT32_MAX;
	for (uint32_t k = 0; k < m; k++) {
		const Layout *w = part[k];
		int64_t e0 = lay_region_index(rg[k], 0);
		if (e0 < 0 || e0 >= n || (pos[e0] != UINT32_MAX && pos[e0] / 32 < w->pos[0] / 32))
			return NULL;
		/* the same region again keeps its registers */
		uint32_t base = pos[e0] == UINT32_MAX ? nregs : pos[e0] / 32 - w->pos[0] / 32;
		for (uint32_t j = 0; j < w->n; j++) {
			int64_t e = lay_region_index(rg[k], j);
			uint32_t at = (base + w->pos[j] / 32) * 32 + w->pos[j] % 32;
			if (e < 0 || e >= n || (pos[e] != UINT32_MAX && pos[e] != at))
				return NULL;
			pos[e] = at;
		}
		if (base == nregs)
			nregs += w->nregs;
	}
	uint32_t rest = 0;
	for (uint32_t e = 0; e < n; e++)
		if (pos[e] == UINT32_MAX) {
			if (!fill)
				return NULL;
			pos[e] = nregs * 32 + rest++;
		}
	nregs += SLOTS(rest);
	if (nregs > 2 * SLOTS(n))
		return NULL;
	Layout *l = NEW(a, Layout);
	*l = (Layout){.n = n, .nregs = nregs, .pos = pos};
	return l;
}

/* ---- conversion plans ----------------------------------------------------------- */

/* Classifies the move of m->lanes (m->src filled): free, a constant
 * distance, a constant xor, an affine lane map, or a general index. */
static void classify(LMove *m)
{
	bool same = true, dist = true, xr = true, aff = true;
	int first = -1, second = -1, dc = 0, xc = 0, a = 0, b = 0;
	for (int l = 0; l < 32; l++) {
		if (!(m->lanes >> l & 1))
			continue;
		int sl = m->src[l];
		if (first < 0) {
			first = l, dc = sl - l, xc = sl ^ l;
		} else {
			if (second < 0) {
				second = l;
				if ((sl - m->src[first]) % (l - first))
					aff = false;
				else
					a = (sl - m->src[first]) / (l - first);
				b = m->src[first] - a * first;
			}
			if (sl - l != dc)
				dist = false;
			if ((sl ^ l) != xc)
				xr = false;
			if (sl != a * l + b)
				aff = false;
		}
		if (sl != l)
			same = false;
	}
	if (second < 0)
		a = 0, b = m->src[first];
	if (same)
		m->kind = LM_FREE, m->a = 0, m->b = 0;
	else if (dist)
		m->kind = dc > 0 ? LM_DOWN : LM_UP, m->a = 0, m->b = dc > 0 ? dc : -dc;
	else if (xr)
		m->kind = LM_BFLY, m->a = 0, m->b = xc;
	else if (aff)
		m->kind = LM_AFFINE, m->a = a, m->b = b;
	else
		m->kind = LM_IDX, m->a = 0, m->b = 0;
}

/* The moves of destination register d: its lanes grouped by the source
 * register of their element (in source register order). */
static void plan_reg(Arena *a, LRegPlan *rp, const int32_t *delem, uint32_t d,
                     const Layout *src, const int32_t *map)
{
	LMove tmp[64];
	uint32_t nm = 0;
	rp->valid = 0;
	for (uint32_t l = 0; l < 32; l++) {
		int32_t e = delem[d * 32 + l];
		if (e < 0)
			continue;
		rp->valid |= 1u << l;
		int32_t x = map ? map[e] : e;
		if (x < 0 || (uint32_t)x >= src->n)
			continue;
		uint32_t p = src->pos[x], sr = p / 32;
		uint32_t k = 0;
		while (k < nm && tmp[k].sreg != sr)
			k++;
		if (k == nm) {
			if (nm == 64)
				die("a destination register reads more than 64 source registers");
			memset(&tmp[nm], 0, sizeof tmp[nm]);
			tmp[nm++].sreg = sr;
		}
		tmp[k].lanes |= 1u << l;
		tmp[k].src[l] = (uint8_t)(p % 32);
	}
	/* source register order: deterministic, and the order emitters use */
	for (uint32_t i = 1; i < nm; i++)
		for (uint32_t j = i; j > 0 && tmp[j].sreg < tmp[j - 1].sreg; j--) {
			LMove t = tmp[j];
			tmp[j] = tmp[j - 1], tmp[j - 1] = t;
		}
	rp->nmoves = nm;
	rp->m = NEWN(a, LMove, nm ? nm : 1);
	for (uint32_t k = 0; k < nm; k++) {
		rp->m[k] = tmp[k];
		rp->m[k].share = -1;
		classify(&rp->m[k]);
	}
}

/* The rotation of a constant-distance move: lane l reads (l + rot) % 32. */
static int32_t rotation(const LMove *m)
{
	return m->kind == LM_DOWN ? m->b : 32 - m->b;
}

static bool rotates(const LMove *m)
{
	return m->kind == LM_DOWN || m->kind == LM_UP;
}

/* Gives the constant-distance moves that rotate one source register as
 * far, in two or more destination registers, one shared shuffle. */
static void share_rotations(Arena *a, LPlan *pl)
{
	uint32_t cap = 0, smax = 0;
	for (uint32_t d = 0; d < pl->nregs; d++)
		for (uint32_t k = 0; k < pl->r[d].nmoves; k++, cap++)
			if (pl->r[d].m[k].sreg >= smax)
				smax = pl->r[d].m[k].sreg + 1;
	pl->shares = NEWN(a, LShare, cap ? cap : 1);
	/* the moves of each (source register, rotation), counted first; a
	 * destination register reads a source register in one move, so a
	 * key of two moves spans two registers */
	size_t nkeys = (size_t)smax * 32 + 1;
	uint32_t *count = NEWN(a, uint32_t, nkeys);
	int32_t *id = NEWN(a, int32_t, nkeys);
	for (size_t key = 0; key < nkeys; key++)
		id[key] = -1;
	for (uint32_t d = 0; d < pl->nregs; d++)
		for (uint32_t k = 0; k < pl->r[d].nmoves; k++) {
			const LMove *m = &pl->r[d].m[k];
			if (rotates(m))
				count[(size_t)m->sreg * 32 + (uint32_t)rotation(m) % 32]++;
		}
	for (uint32_t d = 0; d < pl->nregs; d++)
		for (uint32_t k = 0; k < pl->r[d].nmoves; k++) {
			LMove *m = &pl->r[d].m[k];
			size_t key = (size_t)m->sreg * 32 + (uint32_t)rotation(m) % 32;
			if (!rotates(m) || count[key] < 2)
				continue;
			if (id[key] < 0) {
				id[key] = (int32_t)pl->nshares;
				pl->shares[pl->nshares++] = (LShare){m->sreg, rotation(m)};
			} else {
				pl->shfl--;
			}
			m->share = id[key];
		}
}

/* The inverse of l in a, not kept on l: a plan's arena may be scratch
 * (Px.tmp) while l lives for the kernel. */
static const int32_t *elems_in(Arena *a, const Layout *l)
{
	if (l->elem)
		return l->elem;
	int32_t *el = NEWN(a, int32_t, (size_t)l->nregs * 32);
	for (uint32_t k = 0; k < l->nregs * 32; k++)
		el[k] = -1;
	for (uint32_t e = 0; e < l->n; e++)
		el[l->pos[e]] = (int32_t)e;
	return el;
}

LPlan *lay_plan(Arena *a, const Layout *dst, const Layout *src, const int32_t *map)
{
	LPlan *pl = NEW(a, LPlan);
	const int32_t *delem = elems_in(a, dst);
	pl->nregs = dst->nregs;
	pl->r = NEWN(a, LRegPlan, dst->nregs ? dst->nregs : 1);
	for (uint32_t d = 0; d < dst->nregs; d++) {
		LRegPlan *rp = &pl->r[d];
		plan_reg(a, rp, delem, d, src, map);
		for (uint32_t k = 0; k < rp->nmoves; k++)
			if (rp->m[k].kind != LM_FREE)
				pl->shfl++;
		if (rp->nmoves > 1)
			pl->selp += rp->nmoves - 1;
	}
	share_rotations(a, pl);
	return pl;
}

uint32_t lay_cost(const LPlan *pl, uint32_t elem_bytes)
{
	uint32_t w = elem_bytes == 8 ? 2 : 1;
	return (LAY_COST_SHFL * pl->shfl + pl->selp) * w;
}

int lay_move_source(const LMove *m, int lane)
{
	switch (m->kind) {
	case LM_FREE: return lane;
	case LM_DOWN: return lane + m->b <= 31 ? lane + m->b : lane;
	case LM_UP: return lane - m->b >= 0 ? lane - m->b : lane;
	case LM_BFLY: return lane ^ m->b;
	case LM_AFFINE: return (m->a * lane + m->b) & 31;
	default: return m->src[lane];
	}
}

/* ---- layouts as media rows -------------------------------------------------------- */

/* The stride of l's rows: the column distance of the first two lanes of
 * one register that hold elements of one row (1 when none do). */
static uint32_t row_stride(const int32_t *el, const Layout *l, uint32_t cols)
{
	for (uint32_t r = 0; r < l->nregs; r++)
		for (int lane = 0; lane < 31; lane++) {
			int32_t e = el[r * 32 + lane], f = el[r * 32 + lane + 1];
			if (e >= 0 && f > e && (uint32_t)e / cols == (uint32_t)f / cols)
				return (uint32_t)(f - e);
		}
	return 1;
}

/* Whether every register of l holds one row of a cols-wide block at
 * consecutive lanes lo..hi and columns stride apart (column = stride *
 * lane + col; stride 1, or a run layout's k): then a media access reads or
 * writes the register straight from the row's address, with no shuffle
 * into the canonical layout.  A register with no element gets an empty
 * lane range (lo > hi). */
bool lay_rows(Arena *a, const Layout *l, uint32_t cols, LRow *rows)
{
	if (!cols)
		return false;
	const int32_t *el = lay_elems(a, l);
	uint32_t st = row_stride(el, l, cols);
	if (st > 8)
		return false;
	for (uint32_t r = 0; r < l->nregs; r++) {
		LRow x = {0, 0, 1, 0, (uint8_t)st};
		for (int lane = 0; lane < 32; lane++) {
			int32_t e = el[r * 32 + lane];
			if (e < 0)
				continue;
			uint32_t row = (uint32_t)e / cols;
			int32_t col = (int32_t)((uint32_t)e % cols) - (int32_t)st * lane;
			if (x.lo > x.hi)
				x = (LRow){row, col, (uint8_t)lane, (uint8_t)lane, (uint8_t)st};
			else if (row != x.row || col != x.col || lane != x.hi + 1)
				return false;
			else
				x.hi = (uint8_t)lane;
		}
		rows[r] = x;
	}
	return true;
}

Layout *lay_runs(Arena *a, uint32_t n, uint32_t cols, uint32_t k)
{
	if (!k || !cols || cols % k || cols / k > 32 || n % cols)
		die("lay_runs: %u elements, rows of %u, runs of %u", n, cols, k);
	Layout *l = NEW(a, Layout);
	l->n = n;
	l->nregs = n / cols * k;
	l->pos = NEWN(a, uint32_t, n ? n : 1);
	for (uint32_t e = 0; e < n; e++) {
		uint32_t r = e / cols, c = e % cols;
		l->pos[e] = (r * k + c % k) * 32 + c / k;
	}
	l->canon = k == 1 && cols == 32;
	return l;
}
