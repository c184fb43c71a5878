/* sr.c — strength reduction of integer division and remainder by a
 * constant power of two (seeds/003).
 *
 * requires: SSA.  preserves: CFG; leaves the old instructions for dce.
 *   unsigned:  x / 2^k -> x lshr k          x % 2^k -> x and (2^k - 1)
 *   signed:    bias = (x ashr (B-1)) lshr (B-k)   (2^k - 1 when x < 0)
 *              x / 2^k -> (x + bias) ashr k
 *              x % 2^k -> x - ((x + bias) and -2^k)
 * so signed results round toward zero like C's.  Only plain forms (no
 * .sat, operands of the result's type) are rewritten. */
#include "opt/opt.h"

static int log2_exact(int64_t v)
{
	if (v <= 0 || (v & (v - 1)))
		return -1;
	int k = 0;
	while ((1ll << k) != v)
		k++;
	return k;
}

static Inst *konst(Func *f, Inst *at, IrType ty, int64_t v)
{
	Inst *c = ir_inst_new(f, Oconst, ty, 0, at->loc);
	c->c.n = 1;
	c->c.v = NEWN(f->arena, IrScalar, 1);
	c->c.v[0].i = v;
	ir_insert_before(at, c);
	return c;
}

static Inst *op2(Func *f, Inst *at, Op op, Inst *a, Inst *b)
{
	Inst *i = ir_inst_new(f, op, a->ty, 2, at->loc);
	i->ops[0] = a;
	i->ops[1] = b;
	ir_insert_before(at, i);
	return i;
}

static Inst *reduce(Func *f, Inst *i)
{
	Inst *x = i->ops[0];
	int64_t d;
	if (i->sat || !ir_is_int(i->ty.elem) || !ir_type_eq(x->ty, i->ty) ||
	    i->ops[1]->ty.elem != i->ty.elem || !opt_const_int(i->ops[1], &d))
		return NULL;
	int k = log2_exact(d);
	int bits = ir_elem_bytes[i->ty.elem] * 8;
	if (k < 0 || k >= bits - 1)
		return NULL;
	IrType t = x->ty;
	if (!ir_is_signed(i->ty.elem)) {
		if (i->op == Odiv)
			return k ? op2(f, i, Olshr, x, konst(f, i, t, k)) : x;
		return op2(f, i, Oand, x, konst(f, i, t, d - 1));
	}
	if (!k)
		return i->op == Odiv ? x : konst(f, i, t, 0);
	Inst *sign = op2(f, i, Oashr, x, konst(f, i, t, bits - 1));
	Inst *bias = op2(f, i, Olshr, sign, konst(f, i, t, bits - k));
	Inst *sum = op2(f, i, Oadd, x, bias);
	if (i->op == Odiv)
		return op2(f, i, Oashr, sum, konst(f, i, t, k));
	return op2(f, i, Osub, x, op2(f, i, Oand, sum, konst(f, i, t, -d)));
}

bool opt_sr(Func *f)
{
	bool any = false;
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i; i = i->next) {
			ir_resolve_ops(i);
			if (i->op != Odiv && i->op != Orem)
				continue;
			Inst *r = reduce(f, i);
			if (r) {
				ir_forward(i, r);
				any = true;
			}
		}
	ir_apply_forwards(f);
	return any;
}
