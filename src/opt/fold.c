/* fold.c — constant folding, through regions too.
 *
 * requires: SSA.  preserves: CFG; leaves the folded instructions for dce.
 * An element-wise instruction whose operands are all constants becomes a
 * constant (integer arithmetic wraps at the element width, as C's would;
 * .sat and mixed-type forms are left alone), and so do rdregion of a
 * constant and wrregion of constants into a constant, when their regions
 * are constant and unmasked: the paper's constant folding through
 * rdregion and wrregion (seeds/002 §V).  Conversions of constants fold,
 * and a constant runtime region offset (an unrolled loop's counter, say)
 * moves into the region's offset. */
#include <string.h>

#include "opt/opt.h"

/* v cut to the width of e and extended by its signedness. */
static int64_t norm(Elem e, int64_t v)
{
	int b = ir_elem_bytes[e] * 8;
	if (e == E_I1)
		return v != 0;
	if (b >= 64)
		return v;
	uint64_t m = (1ull << b) - 1, u = (uint64_t)v & m;
	if (ir_is_signed(e) && (u >> (b - 1)))
		u |= ~m;
	return (int64_t)u;
}

static double fnorm(Elem e, double v)
{
	return e == E_F32 ? (double)(float)v : v;
}

bool opt_const_int(const Inst *i, int64_t *v)
{
	if (!ir_const_is_splat(i) || ir_is_float(i->ty.elem))
		return false;
	*v = i->c.v[0].i;
	return true;
}

/* One element of an integer op; false if it does not fold. */
static bool fold_int(Op op, Elem e, int64_t a, int64_t b, int64_t *r)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
	int bits = ir_elem_bytes[e] * 8;
	bool s = ir_is_signed(e);
	switch (op) {
	case Ocopy: *r = a; break;
	case Oadd: *r = (int64_t)(ua + ub); break;
	case Osub: *r = (int64_t)(ua - ub); break;
	case Omul: *r = (int64_t)(ua * ub); break;
	case Oneg: *r = (int64_t)(0 - ua); break;
	case Oand: *r = a & b; break;
	case Oor: *r = a | b; break;
	case Oxor: *r = a ^ b; break;
	case Onot: *r = e == E_I1 ? !a : ~a; break;
	case Oshl: *r = (int64_t)(ua << (b & (bits > 32 ? 63 : 31))); break;
	case Olshr: *r = (int64_t)((ua & (bits >= 64 ? ~0ull : (1ull << bits) - 1)) >> (b & (bits > 32 ? 63 : 31))); break;
	case Oashr: *r = a >> (b & (bits > 32 ? 63 : 31)); break;
	case Omin: *r = s ? (a < b ? a : b) : (ua < ub ? a : b); break;
	case Omax: *r = s ? (a > b ? a : b) : (ua > ub ? a : b); break;
	case Oeq: *r = a == b; break;
	case One: *r = a != b; break;
	case Olt: *r = s ? a < b : ua < ub; break;
	case Ole: *r = s ? a <= b : ua <= ub; break;
	case Ogt: *r = s ? a > b : ua > ub; break;
	case Oge: *r = s ? a >= b : ua >= ub; break;
	default: return false;
	}
	return true;
}

static bool fold_float(Op op, double a, double b, double *r, int64_t *c)
{
	switch (op) {
	case Ocopy: *r = a; break;
	case Oadd: *r = a + b; break;
	case Osub: *r = a - b; break;
	case Omul: *r = a * b; break;
	case Odiv: *r = a / b; break;
	case Oneg: *r = -a; break;
	case Oeq: *c = a == b; break;
	case One: *c = a != b; break;
	case Olt: *c = a < b; break;
	case Ole: *c = a <= b; break;
	case Ogt: *c = a > b; break;
	case Oge: *c = a >= b; break;
	default: return false;
	}
	return true;
}

static Inst *new_const(Func *f, Inst *at, IrType ty, IrScalar *v)
{
	Inst *c = ir_inst_new(f, Oconst, ty, 0, at->loc);
	c->c.n = ty.n;
	c->c.v = v;
	ir_insert_before(at, c);
	return c;
}

static bool fold_elementwise(Func *f, Inst *i)
{
	const OpInfo *oi = &ir_ops[i->op];
	if (i->sat || oi->nops < 1 || oi->nops > 2 || i->op == Oconv)
		return false;
	for (int k = 0; k < oi->nops; k++)
		if (i->ops[k]->op != Oconst)
			return false;
	Elem e = i->ops[0]->ty.elem;
	bool cmp = oi->flags & IRF_CMP;
	if (!cmp && e != i->ty.elem)
		return false;
	IrScalar *v = NEWN(f->arena, IrScalar, i->ty.n);
	for (uint32_t k = 0; k < i->ty.n; k++) {
		IrScalar a = ir_const_at(i->ops[0], i->ops[0]->ty.n == 1 ? 0 : k), b = {0};
		if (oi->nops == 2)
			b = ir_const_at(i->ops[1], i->ops[1]->ty.n == 1 ? 0 : k);
		if (ir_is_float(e)) {
			int64_t c = 0;
			if (!fold_float(i->op, a.f, b.f, &v[k].f, &c))
				return false;
			if (cmp)
				v[k].i = c;
			else
				v[k].f = fnorm(e, v[k].f);
		} else {
			if (!fold_int(i->op, e, a.i, b.i, &v[k].i))
				return false;
			v[k].i = norm(i->ty.elem, v[k].i);
		}
	}
	ir_forward(i, new_const(f, i, i->ty, v));
	return true;
}

static bool fold_region(Func *f, Inst *i)
{
	if (i->has_roff || i->has_mask || i->ops[0]->op != Oconst)
		return false;
	if (i->op == Owrregion && i->ops[1]->op != Oconst)
		return false;
	Inst *src = i->ops[0];
	uint32_t n = i->op == Ordregion ? i->ty.n : i->ops[1]->ty.n;
	IrScalar *v = NEWN(f->arena, IrScalar, i->ty.n);
	if (i->op == Owrregion)
		for (uint32_t k = 0; k < i->ty.n; k++)
			v[k] = ir_const_at(src, k);
	for (uint32_t k = 0; k < n; k++) {
		int64_t x = i->rg.offset + (int64_t)(k / (uint32_t)i->rg.width) * i->rg.vstride +
		            (int64_t)(k % (uint32_t)i->rg.width) * i->rg.hstride;
		if (i->op == Ordregion) {
			if (x >= src->ty.n && src->ty.n != 1)
				return false;
			v[k] = ir_const_at(src, src->ty.n == 1 ? 0 : (uint32_t)x);
		} else {
			if (x >= i->ty.n)
				return false;
			v[x] = ir_const_at(i->ops[1], i->ops[1]->ty.n == 1 ? 0 : k);
		}
	}
	ir_forward(i, new_const(f, i, i->ty, v));
	return true;
}

/* conv of a constant (no .sat): integers wrap to the destination, int to
 * float rounds, float to float rounds, anything to i1 is x != 0 and i1 to
 * an integer 0 or 1; float to int is left alone (its clamping and NaN
 * rules live in the back ends). */
static bool fold_conv(Func *f, Inst *i)
{
	Inst *a = i->ops[0];
	Elem from = a->ty.elem, to = i->ty.elem;
	if (i->sat || a->op != Oconst || (from == E_I1 && to != E_I1 && !ir_is_int(to)) ||
	    to == E_F16 || from == E_F16 || (ir_is_float(from) && !ir_is_float(to) && to != E_I1))
		return false;
	IrScalar *v = NEWN(f->arena, IrScalar, i->ty.n);
	for (uint32_t k = 0; k < i->ty.n; k++) {
		IrScalar x = ir_const_at(a, a->ty.n == 1 ? 0 : k);
		if (to == E_I1)   /* x != 0, as the back ends test it (NaN: true) */
			v[k].i = ir_is_float(from) ? !(x.f == 0) : x.i != 0;
		else if (ir_is_float(to))
			v[k].f = fnorm(to, ir_is_float(from) ? x.f :
			               ir_is_signed(from) ? (double)x.i : (double)x.u);
		else
			v[k].i = norm(to, x.i);
	}
	ir_forward(i, new_const(f, i, i->ty, v));
	return true;
}

/* A region whose runtime offset is a constant becomes a constant region
 * when every element it touches is in range (out-of-range elements keep
 * the runtime form, which reads 0 and drops writes). */
static bool fold_roff(Inst *i)
{
	Inst *r = ir_roff(i);
	int64_t c;
	if (!r || !opt_const_int(r, &c))
		return false;
	uint32_t n = i->op == Ordregion ? i->ty.n : i->ops[1]->ty.n;
	int64_t lim = i->op == Ordregion ? i->ops[0]->ty.n : i->ty.n;
	if (n == 0 || i->rg.width <= 0)
		return false;
	for (uint32_t k = 0; k < n; k++) {
		int64_t x = i->rg.offset + c + (int64_t)(k / (uint32_t)i->rg.width) * i->rg.vstride +
		            (int64_t)(k % (uint32_t)i->rg.width) * i->rg.hstride;
		if (x < 0 || x >= lim)
			return false;
	}
	if (i->rg.offset + c > INT32_MAX)
		return false;
	i->rg.offset += (int32_t)c;
	uint32_t at = (uint32_t)ir_ops[i->op].nops;
	for (uint32_t k = at; k + 1 < i->nops; k++)
		i->ops[k] = i->ops[k + 1];
	i->nops--;
	i->has_roff = false;
	return true;
}

/* A runtime offset x + c or x - c (32-bit, not saturating) gives its
 * constant to the region: offset + c with runtime offset x reads the same
 * positions, and regions whose offsets differ only by constants now share
 * one runtime value (after cse, k-means' c * D + d for every d is c * D).
 * Narrower offsets keep their form (x + c wraps at 2^16 there), and so
 * does a negative result (regions have offsets of at least 0). */
static bool fold_roff_add(Inst *i)
{
	Inst *r = ir_roff(i);
	if (!r || (r->op != Oadd && r->op != Osub) || r->sat || r->ty.n != 1 ||
	    (r->ty.elem != E_I32 && r->ty.elem != E_U32))
		return false;
	int64_t c;
	Inst *x;
	if (opt_const_int(r->ops[1], &c))
		x = r->ops[0];
	else if (r->op == Oadd && opt_const_int(r->ops[0], &c))
		x = r->ops[1];
	else
		return false;
	if (r->op == Osub)
		c = -c;
	c = (int32_t)(uint32_t)c;	/* the add wraps at 2^32 */
	int64_t off = (int64_t)i->rg.offset + c;
	if (off < 0 || off > INT32_MAX || x->ty.n != 1)
		return false;
	i->rg.offset = (int32_t)off;
	i->ops[ir_ops[i->op].nops] = x;
	return true;
}

bool opt_fold(Func *f)
{
	bool any = false;
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i; i = i->next) {
			ir_resolve_ops(i);
			if (i->op == Ordregion || i->op == Owrregion) {
				any |= fold_roff_add(i);
				any |= fold_roff(i);
				any |= fold_region(f, i);
			} else if (i->op == Oconv) {
				any |= fold_conv(f, i);
			}
			else if (ir_ops[i->op].flags & IRF_ELEMWISE)
				any |= fold_elementwise(f, i);
		}
	ir_apply_forwards(f);
	return any;
}
