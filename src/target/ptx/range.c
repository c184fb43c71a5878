/* range.c — value ranges of 8- and 16-bit integers, so that results known to
 * fit their type skip the re-normalization alu.c would emit.
 *
 * requires: ir_renumber'd kernel, p->val allocated (assign.c); no output.
 * changes: fills PxVal.umax and PxVal.exact; px_slm_proven fills
 * PxVal.proven.
 *
 * 8/16-bit values live normalized in 32-bit registers (ptx.h): after each
 * operation that can leave the type's range the emitter masks or
 * sign-extends the register.  Most such operations in real kernels cannot
 * leave it: the sum of three bytes held as ushort (a box filter's
 * horizontal pass) is at most 765, and ((s + 4) * 7282) >> 16 of such sums
 * stored to a uchar is at most 255.  One forward sweep computes, for each
 * integer value, an upper bound umax of its elements seen as nonnegative
 * numbers (UNKNOWN: none, or it may be negative), from the bound its type
 * gives (an unsigned type's maximum) and the bounds of its operands.  An
 * instruction whose exact mathematical result is within its type's range
 * (and nonnegative) is marked exact: its 32-bit result already is the
 * normalized value.  Phis take their type's bound (no fixpoint: loop-
 * carried values keep their normalization).
 */
#include "target/ptx/ptx.h"

#define UNKNOWN UINT64_MAX

/* The largest value of integer type e that is nonnegative: the maximum of
 * an unsigned type, of a signed type's nonnegative half. */
static uint64_t type_max(Elem e)
{
	int b = ir_elem_bytes[e] * 8;
	if (ir_is_signed(e))
		b--;
	return b >= 64 ? UINT64_MAX : (1ULL << b) - 1;
}

static bool is_int(Elem e)
{
	return e != E_VOID && e != E_I1 && !ir_is_float(e);
}

/* The bound every value of type e has without knowing more. */
static uint64_t type_bound(Elem e)
{
	return ir_is_signed(e) ? UNKNOWN : type_max(e);
}

static uint64_t bound_of(Px *p, const Inst *v)
{
	if (!v || !is_int(v->ty.elem))
		return UNKNOWN;
	return p->val[v->id].umax;
}

static uint64_t const_bound(const Inst *i)
{
	uint64_t m = 0;
	for (uint32_t k = 0; k < (i->c.n ? i->c.n : 1); k++) {
		IrScalar x = ir_const_at(i, k);
		if (ir_is_signed(i->ty.elem) && x.i < 0)
			return UNKNOWN;
		m = x.u > m ? x.u : m;
	}
	return m;
}

static uint64_t max2(uint64_t a, uint64_t b)
{
	return a == UNKNOWN || b == UNKNOWN ? UNKNOWN : a > b ? a : b;
}

/* The smallest 2^k - 1 at or above x: a bound of x | y and x ^ y. */
static uint64_t ones_above(uint64_t x)
{
	uint64_t m = 0;
	while (m < x)
		m = m << 1 | 1;
	return m;
}

/* The bound of the shift count when it is a constant (scalar or splat). */
static uint64_t shift_count(const Inst *c)
{
	if (c->op != Oconst || !ir_const_is_splat(c))
		return 0;
	return ir_const_at(c, 0).u;
}

/* The bound of i's exact result (before any wrap into its type), from
 * its operands' bounds; UNKNOWN when the rules below do not bound it. */
static uint64_t raw_bound(Px *p, const Inst *i)
{
	uint64_t a = i->nops > 0 ? bound_of(p, i->ops[0]) : UNKNOWN;
	uint64_t b = i->nops > 1 ? bound_of(p, i->ops[1]) : UNKNOWN;
	uint64_t r;
	switch (i->op) {
	case Oconst: return const_bound(i);
	case Ocopy: case Ordregion: return a;
	case Owrregion: return max2(a, b);
	case Osel: return max2(b, bound_of(p, i->ops[2]));
	case Oadd: return a == UNKNOWN || b == UNKNOWN || __builtin_add_overflow(a, b, &r) ? UNKNOWN : r;
	case Omul: return a == UNKNOWN || b == UNKNOWN || __builtin_mul_overflow(a, b, &r) ? UNKNOWN : r;
	case Omad: {
		uint64_t c = bound_of(p, i->ops[2]);
		if (a == UNKNOWN || b == UNKNOWN || c == UNKNOWN ||
		    __builtin_mul_overflow(a, b, &r) || __builtin_add_overflow(r, c, &r))
			return UNKNOWN;
		return r;
	}
	case Olshr: case Oashr:	/* the count is taken modulo the width */
		return a == UNKNOWN ? UNKNOWN : a >> shift_count(i->ops[1]) % (ir_elem_bytes[i->ty.elem] * 8);
	case Oand: return a < b ? a : b;	/* no bit that either lacks */
	case Oor: case Oxor: return a == UNKNOWN || b == UNKNOWN ? UNKNOWN : ones_above(a > b ? a : b);
	case Omin:
		if (ir_is_signed(i->ty.elem) && (a == UNKNOWN || b == UNKNOWN))
			return UNKNOWN;
		return a < b ? a : b;
	case Omax: case Oavg: return max2(a, b);
	case Orem:	/* x % 0 gives 0; unsigned x % y is below y */
		if (!ir_is_signed(i->ty.elem) && b != UNKNOWN)
			return b && b - 1 < a ? b - 1 : a;
		return ir_is_signed(i->ty.elem) && b == UNKNOWN ? UNKNOWN : a;
	case Odiv:	/* x / 0 gives 0 */
		return ir_is_signed(i->ty.elem) && b == UNKNOWN ? UNKNOWN : a;
	case Oconv:
		if (i->sat || !is_int(i->ops[0]->ty.elem))
			return UNKNOWN;
		return a;
	default: return UNKNOWN;
	}
}

/* Whether the rules of raw_bound apply to i's emission as "compute in 32
 * bits, then normalize" (alu.c arith and conversions). */
static bool normalizes(const Inst *i)
{
	if (i->sat || !is_int(i->ty.elem) || ir_elem_bytes[i->ty.elem] > 2)
		return false;
	switch (i->op) {
	case Oadd: case Omul: case Omad: case Olshr: case Oashr: case Oand:
	case Oor: case Oxor: case Omin: case Omax:
		return i->ops[0]->ty.elem == i->ty.elem;
	case Oconv:
		return is_int(i->ops[0]->ty.elem) && ir_elem_bytes[i->ops[0]->ty.elem] <= 4;
	default:
		return false;
	}
}

static void range_inst(Px *p, const Inst *i)
{
	PxVal *v = &p->val[i->id];
	Elem e = i->ty.elem;
	if (!is_int(e)) {
		v->umax = UNKNOWN;
		return;
	}
	uint64_t raw = i->op == Ophi ? UNKNOWN : raw_bound(p, i);
	bool fits = raw != UNKNOWN && raw <= type_max(e);
	v->umax = fits ? raw : type_bound(e);
	v->exact = fits && normalizes(i);
}

void px_ranges(Px *p)
{
	Func *f = p->f;
	/* reverse postorder: every operand but a phi's is seen first */
	Block **order = NEWN(p->arena, Block *, f->nblocks ? f->nblocks : 1);
	for (uint32_t b = 0; b < f->nblocks; b++) {
		Block *k = f->blocks[b];
		for (Inst *i = k->first; i; i = i->next)
			p->val[i->id].umax = UNKNOWN;
		if (k->rpo != UINT32_MAX)
			order[k->rpo] = k;
	}
	for (uint32_t b = 0; b < f->nblocks; b++)
		if (order[b])
			for (Inst *i = order[b]->first; i; i = i->next)
				range_inst(p, i);
}

/* Whether SLM block access i lies inside the kernel's SLM for every value
 * its buffer offset and its offset can take: both 32-bit with known
 * bounds, and the last byte of the largest at or below the SLM's end (so
 * neither the 32-bit sum wraps).  A double-buffered tile read at
 * (k / KT & 1) * half + c is: its k loop need not test the buffer's
 * bounds (sgemm's first and last B rows of each step). */
static bool slm_block_inside(Px *p, const Inst *i)
{
	if ((i->op != Obload && i->op != Obstore) || i->space != SP_SLM || px_cluster_on(p))
		return false;
	const Inst *b = i->ops[0], *o = i->ops[1], *val = i->op == Obstore ? i->ops[2] : i;
	if (!is_int(b->ty.elem) || !is_int(o->ty.elem) || ir_elem_bytes[b->ty.elem] > 4 ||
	    ir_elem_bytes[o->ty.elem] > 4 || b->ty.n != 1 || o->ty.n != 1)
		return false;
	uint64_t bb = bound_of(p, b), ob = bound_of(p, o);
	uint64_t bytes = (uint64_t)val->ty.n * (uint64_t)ir_elem_bytes[val->ty.elem];
	return bb != UNKNOWN && ob != UNKNOWN && bb + ob + bytes <= p->f->slm_size;
}

void px_slm_proven(Px *p)
{
	if (p->o->no_slm_ranges || px_checking(p))
		return;
	Func *f = p->f;
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next)
			p->val[i->id].proven = slm_block_inside(p, i);
}
