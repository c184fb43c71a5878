/* region.c — region collapsing and copy propagation.
 *
 * requires: SSA.  preserves: CFG; leaves replaced instructions for dce.
 *   copy x                         -> x
 *   rdregion x, whole x            -> x       (identity region)
 *   wrregion old, new, whole old   -> new     (unmasked, same type)
 *   rdregion (rdregion x, R1), R2  -> rdregion x, R1∘R2
 *   rdregion (wrregion x, v, W), R -> v       (v a load; R reads what W
 *                                              wrote, in order)
 * the last also through writes W' in front of W disjoint from R.
 * The last one when neither has a runtime offset and R1 is one linear
 * run (its rows follow each other: vstride = width * hstride, or one
 * row): element j of R1 is x[o1 + j*h1], so R2 over it is the region
 * <v2*h1; w2, h2*h1>, o1 + o2*h1 of x. */
#include <stdlib.h>

#include "opt/opt.h"

/* Does region r of n elements read elements 0..n-1 in order? */
static bool identity(const IrRegion *r, uint32_t n)
{
	if (r->offset)
		return false;
	if ((uint32_t)r->width == n)
		return r->hstride == 1 || n == 1;
	return r->hstride == 1 && r->vstride == r->width;
}

static bool linear(const IrRegion *r, uint32_t n)
{
	return (uint32_t)r->width == n || r->vstride == r->width * r->hstride;
}

/* Element k of region r. */
static int64_t at(const IrRegion *r, uint32_t k)
{
	uint32_t w = r->width > 0 ? (uint32_t)r->width : 1;
	return r->offset + (int64_t)(k / w) * r->vstride + (int64_t)(k % w) * r->hstride;
}

/* The written value when rdregion i reads exactly what wrregion w wrote,
 * element for element (w's elements distinct, so no later lane of w
 * overwrote an earlier one); i's source when the two are disjoint (the
 * read goes on to w's destination); NULL otherwise.  Both constant and
 * unmasked.  Element sets are compared by a mark per element of the
 * destination: the vectors are small (a CM value is under 4 KB). */
static Inst *through_write(const Inst *i, const Inst *w)
{
	if (w->op != Owrregion || w->has_roff || w->has_mask)
		return NULL;
	uint32_t n = w->ty.n, nw = w->ops[1]->ty.n, nr = i->ty.n;
	uint8_t *mark = xcalloc(n ? n : 1, 1);
	bool distinct = true, same = nw == nr && ir_type_eq(w->ops[1]->ty, i->ty), meet = false;
	for (uint32_t k = 0; k < nw && distinct; k++) {
		int64_t e = at(&w->rg, k);
		if (e < 0 || e >= n || mark[e])
			distinct = false;
		else
			mark[e] = 1;
	}
	for (uint32_t k = 0; k < nr && distinct; k++) {
		int64_t e = at(&i->rg, k);
		if (e < 0 || e >= n) {
			distinct = false;
			break;
		}
		meet = meet || mark[e];
		same = same && e == at(&w->rg, k);
	}
	free(mark);
	if (!distinct)
		return NULL;
	if (same)
		return w->ops[1];
	return meet ? NULL : w->ops[0];
}

static Inst *collapse(Func *f, Inst *i)
{
	Inst *s = i->ops[0];
	switch (i->op) {
	case Ocopy:
		return ir_type_eq(s->ty, i->ty) ? s : NULL;
	case Ordregion:
		if (i->has_roff)
			return NULL;
		if (ir_type_eq(s->ty, i->ty) && identity(&i->rg, i->ty.n))
			return s;
		if (s->op == Ordregion && !s->has_roff && s->ty.n > 1 && linear(&s->rg, s->ty.n)) {
			IrRegion a = s->rg, b = i->rg;
			i->rg = (IrRegion){b.vstride * a.hstride, b.width, b.hstride * a.hstride,
			                   a.offset + b.offset * a.hstride};
			i->ops[0] = s->ops[0];
			return NULL;   /* changed in place */
		}
		/* back through the chain of writes in front of it to the one that
		 * wrote what it reads, when that is a load: a tile read into a
		 * matrix row and read back whole is the load itself (no copy on
		 * the CPU; on NVIDIA the load can then take the layout its user
		 * wants, a cm_dpas operand its fragment).  Not arithmetic (an
		 * accumulator row updated step by step: the C back end updates
		 * the chain in place, and a row read from an earlier value would
		 * keep that value alive beside it), and not to a value further
		 * back, for the same reason. */
		for (Inst *w = i->ops[0]; w->op == Owrregion;) {
			Inst *t = through_write(i, w);
			if (!t)
				break;
			if (t == w->ops[1])
				return (ir_ops[t->op].flags & IRF_MEM) ? t : NULL;
			w = t;
		}
		return NULL;
	case Owrregion:
		if (i->has_roff || i->has_mask || !ir_type_eq(i->ops[1]->ty, i->ty))
			return NULL;
		return identity(&i->rg, i->ty.n) ? i->ops[1] : NULL;
	default:
		return NULL;
	}
}

bool opt_region(Func *f)
{
	bool any = false;
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i; i = i->next) {
			ir_resolve_ops(i);
			if (!i->nops)
				continue;
			Inst *src = i->op == Ordregion ? i->ops[0] : NULL;
			Inst *r = collapse(f, i);
			if (r) {
				ir_forward(i, r);
				any = true;
			} else if (src && i->ops[0] != src) {
				any = true;
			}
		}
	ir_apply_forwards(f);
	return any;
}
