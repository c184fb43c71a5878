/* want.c — the layouts values are wanted in, propagated backward from the
 * operations that need a particular one (cm_dpas operands, in their mma
 * fragments), so that the values feeding them are made in that layout
 * where making them costs nothing.
 *
 * requires: use lists (assign.c); runs before assign.c's forward sweep.
 * changes: fills PxVal.want; assign.c gives a phi, a splat constant or a
 * media read its wanted layout (they cost the same in any layout), and
 * everything else follows by its own rules (a wrregion takes its
 * destination's layout, an rdregion the pullback of its source's).
 *
 * A k loop that reads its next tiles of A and B while it multiplies the
 * current ones (register double buffering) carries the tiles in phis:
 *
 *     b = phi [b0], [bn]          b.row(j) -> cm_dpas operand B (fragment)
 *     bn = wrregion(wrregion(.., ld0, row 0) .., ld3, row 3)
 *
 * A forward sweep sees the phi first and gives it the canonical layout,
 * then every row read converts.  Backward: each row read wants B's
 * fragment, so the phi wants the composite (row j's elements where the
 * fragment puts them, in registers of row j's own); the phi wants its
 * incoming values in it; a wrregion wanted in a layout wants its
 * destination in it and its written value in the pullback (row j: the
 * fragment), so the base of the chain (a phi or a splat constant) is made
 * in it and each media read of a row reads its fragment directly.
 *
 * Constraints on a value from its users, when they are known: a constant
 * rdregion of it that is wanted in some layout constrains the elements
 * it reads (they must sit as the read wants them); a wrregion of it (its
 * destination) or a phi of it that is wanted in a layout, and a cm_dpas
 * operand, constrain the whole value.  Users not yet known or of other
 * kinds do not constrain (they read a copy, as today).  Whole-value
 * constraints must agree with each other and with every region's, but
 * for regions of at most an eighth of the value's elements in all, which
 * then read a copy: an image's edge fix-up reads columns 4..6 of a block
 * to write them at 1..3, so it wants them where 1..3 sit, and the block
 * keeps the layout its filter wants.  Region constraints alone are
 * composed, each distinct region in registers of its own and elements no
 * region reads after them, in order.  Sweeps repeat until nothing changes
 * (each sets a want once).
 */
#include <string.h>

#include "target/ptx/ptx.h"

static bool is_vector(const Inst *v)
{
	return v && v->ty.elem != E_VOID && v->ty.n > 1;
}

/* The layout user u wants for its operand k (NULL: none yet, or none). */
static const Layout *whole_want(Px *p, const Inst *u, uint32_t k)
{
	const Layout *w = p->val[u->id].want;
	switch (u->op) {
	case Odpas: case Owgmma: return px_dpas_layout(p, u, k);
	case Ophi: return w;
	case Owrregion:
		if (ir_roff(u) || ir_mask(u) || !w)
			return NULL;
		if (k == 0)
			return w;
		return k == 1 ? lay_pullback(p->arena, w, u->rg, u->ops[1]->ty.n, NULL) : NULL;
	default: return NULL;
	}
}

/* The layout v's known users want it in, or NULL. */
static const Layout *wanted(Px *p, const Inst *v, const PxUse *uses)
{
	const Layout *whole = NULL;
	uint32_t m = 0;
	for (const PxUse *s = uses; s; s = s->next)
		m++;
	IrRegion *rg = NEWN(p->arena, IrRegion, m + 1);
	const Layout **part = NEWN(p->arena, const Layout *, m + 1);
	m = 0;
	for (const PxUse *s = uses; s; s = s->next) {
		const Inst *u = s->u;
		if (u->op == Ordregion && s->k == 0 && !ir_roff(u)) {
			const Layout *w = p->val[u->id].want;
			if (w && is_vector(u))
				rg[m] = u->rg, part[m++] = w;
			continue;
		}
		const Layout *w = whole_want(p, u, s->k);
		if (!w || w->canon || w->n != v->ty.n)
			continue;
		if (whole && !lay_equal(whole, w))
			return NULL;
		whole = w;
	}
	if (!whole)
		return m ? lay_compose(p->arena, v->ty.n, rg, part, m, true) : NULL;
	uint32_t off = 0;	/* elements of the regions that disagree */
	for (uint32_t k = 0; k < m; k++) {
		const Layout *pb = lay_pullback(p->arena, whole, rg[k], part[k]->n, NULL);
		if (!pb || !lay_equal(pb, part[k]))
			off += part[k]->n;
	}
	return off && off * 8 > v->ty.n ? NULL : whole;
}

void px_wants(Px *p, PxUse **uses, bool seeded)
{
	Func *f = p->f;
	bool any = seeded;	/* wants start at cm_dpas operands and seeds */
	for (uint32_t b = 0; b < f->nblocks && !any; b++)
		for (Inst *i = f->blocks[b]->first; i && !any; i = i->next)
			any = i->op == Odpas || i->op == Owgmma;
	for (int round = 0; any && round < 16; round++) {
		bool changed = false;
		for (uint32_t b = f->nblocks; b-- > 0;)
			for (Inst *i = f->blocks[b]->last; i; i = i->prev) {
				PxVal *pv = &p->val[i->id];
				if (!is_vector(i) || pv->want)
					continue;
				const Layout *w = wanted(p, i, uses[i->id]);
				if (w && !w->canon) {
					pv->want = w;
					changed = true;
				}
			}
		if (!changed)
			break;
	}
}
