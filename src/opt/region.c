/* region.c — region collapsing and copy propagation.
 *
 * requires: SSA.  preserves: CFG; leaves replaced instructions for dce.
 *   copy x                         -> x
 *   rdregion x, whole x            -> x       (identity region)
 *   wrregion old, new, whole old   -> new     (unmasked, same type)
 *   rdregion (rdregion x, R1), R2  -> rdregion x, R1∘R2
 * The last one when neither has a runtime offset and R1 is one linear
 * run (its rows follow each other: vstride = width * hstride, or one
 * row): element j of R1 is x[o1 + j*h1], so R2 over it is the region
 * <v2*h1; w2, h2*h1>, o1 + o2*h1 of x. */
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
