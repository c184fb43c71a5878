/* runs.c — run layouts for values whose users shift windows along rows.
 *
 * requires: use lists (assign.c); runs before want.c's propagation.
 * changes: PxVal.want of the values it picks; want.c carries it back to
 * the media reads and the constant that make them, assign.c gives it.
 *
 * An image filter reads its input block as windows shifted along the rows
 * (bench/cm/linear.cm: in.select<10,1,48,1>(0, 1), (0, 4) and (0, 7), the
 * pixels left of, at and right of each output pixel) and adds them.  In
 * the canonical layout a row of 64 bytes is two registers, column c in
 * lane c % 32, so moving one window onto another crosses the register
 * boundary: a shuffle of each register and a select per row.  In a run
 * layout (layout.c lay_runs) a lane holds k consecutive columns of a row,
 * one per register: a row of 64 is 32 lanes of two, and a shift by d
 * columns takes each register from the same lane d / k further, or from
 * its neighbour register, with no select.  Rows keep registers of their
 * own, so moving between rows (the vertical neighbours) stays a rename.
 * A media read fills the layout directly and a media write of a region of
 * it writes from it (layout.c lay_rows, columns k apart), k accesses from
 * one pointer per row.
 *
 * The choice, per value read by two or more constant regions of one row
 * pitch C and rows count at different column offsets: the canonical
 * layout or runs of k = 2 or 4 (C a multiple of k, C / k <= 32), the one
 * in which moving every region onto the first costs least (lay_cost:
 * what the element-wise operations that combine them pay).  A tie keeps
 * the canonical layout.
 *
 * Off unless -frun-layouts: measured slower.  bench/cm/linear.cm on an
 * H200 (2026-11-27, same machine, medians of 21): 0.186 ms at 7680x4320
 * against 0.180 canonical, 0.022 against 0.018 at 1920x1080, with 8% fewer
 * instructions (2.516 SASS per pixel against 2.742) but 40% more load
 * sectors (byte loads k bytes apart: 18.2M against 13.0M) and 33% more
 * store sectors.  Loading a run as one ld.v2.u8 (LDG.U16 and two PRMT,
 * when the block's x and pitch are even) cut the sectors to 10.4M and
 * made it slower still (0.202 ms): the unpacking costs more issue slots
 * than the sectors saved.  A run layout pays when its registers stay
 * packed (4 bytes or 2 shorts per register, arithmetic on the packed
 * words), which the back end does not do yet.
 */
#include "target/ptx/ptx.h"

static bool is_vector(const Inst *v)
{
	return v && v->ty.elem != E_VOID && v->ty.n > 1;
}

/* A constant 2D window of its operand: rows of width elements, vstride
 * apart, consecutive in the row. */
static bool window(const PxUse *s)
{
	const Inst *u = s->u;
	return u->op == Ordregion && s->k == 0 && !ir_roff(u) && is_vector(u) &&
	       u->rg.width > 1 && u->rg.hstride == 1 && u->rg.vstride > u->rg.width &&
	       u->ty.n % (uint32_t)u->rg.width == 0;
}

/* The cost of moving each window of v (ws[0..n)) onto the first, with v
 * in layout l; UINT32_MAX when a window is not a rename of l. */
static uint32_t shift_cost(Px *p, const Inst *v, const Layout *l, const Inst **ws, uint32_t n)
{
	const Layout *first = NULL;
	uint32_t c = 0;
	for (uint32_t k = 0; k < n; k++) {
		const Inst *w = ws[k];
		Layout *pb = lay_pullback(p->tmp, l, w->rg, w->ty.n, NULL);
		if (!pb || pb->nregs > 2 * SLOTS(w->ty.n))
			return UINT32_MAX;   /* assign.c would not keep it in place */
		if (!first)
			first = pb;
		else
			c += lay_cost(lay_plan(p->tmp, first, pb, NULL), ir_elem_bytes[v->ty.elem]);
	}
	return c;
}

/* The run layout v is wanted in, or NULL for the canonical one. */
static const Layout *choose(Px *p, const Inst *v, const PxUse *uses)
{
	const Inst *ws[16];
	uint32_t n = 0;
	int32_t pitch = 0, width = 0;
	bool shifted = false;
	for (const PxUse *s = uses; s; s = s->next) {
		if (!window(s))
			continue;
		const Inst *u = s->u;
		if (n && (u->rg.vstride != pitch || u->rg.width != width))
			return NULL;
		if (n == 16)
			return NULL;
		pitch = u->rg.vstride, width = u->rg.width;
		if (n && u->rg.offset % pitch != ws[0]->rg.offset % pitch)
			shifted = true;
		ws[n++] = u;
	}
	uint32_t C = (uint32_t)pitch;
	if (n < 2 || !shifted || v->ty.n % C)
		return NULL;
	const Layout *best = NULL;
	uint32_t bc = shift_cost(p, v, p->canon[v->ty.n] ? p->canon[v->ty.n] :
	                         lay_canonical(p->tmp, v->ty.n), ws, n);
	for (uint32_t k = 2; k <= 4; k *= 2) {
		if (C % k || C / k > 32)
			continue;
		Layout *l = lay_runs(p->arena, v->ty.n, C, k);
		uint32_t c = shift_cost(p, v, l, ws, n);
		if (c < bc)
			best = l, bc = c;
	}
	arena_reset(p->tmp);
	return best;
}

bool px_seed_runs(Px *p, PxUse **uses)
{
	Func *f = p->f;
	bool any = false;
	if (!p->o->run_layouts)
		return false;
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next) {
			if (!is_vector(i) || p->val[i->id].want)
				continue;
			const Layout *l = choose(p, i, uses[i->id]);
			if (l) {
				p->val[i->id].want = l;
				any = true;
			}
		}
	return any;
}
