/* cse.c — common scalar subexpressions within a block.
 *
 * requires: SSA.  preserves: CFG.
 * Lowering computes the address arithmetic of every region access anew:
 * k-means' cen(c, d) in a loop over d is c * D + d, with its own multiply
 * for each d, so the offsets of sixteen reads of one row share nothing the
 * back ends can see.  This pass gives each block's identical scalar
 * constants and pure element-wise scalar instructions (same opcode, type,
 * saturation and operands; commutative operands in either order) one
 * value: the first, which dominates the others.  fold then moves the
 * constant part of a runtime region offset into the region
 * (fold_roff_add), so those reads share one offset value.  Vectors are left
 * alone (their layouts and copies are the back ends' business).
 */
#include "opt/opt.h"

static bool candidate(const Inst *i)
{
	if (i->ty.n != 1 || i->ty.elem == E_VOID)
		return false;
	if (i->op == Oconst)
		return ir_const_is_splat(i);
	uint32_t f = ir_ops[i->op].flags;
	return (f & IRF_PURE) && (f & IRF_ELEMWISE) && !(f & IRF_MEM) && !(f & IRF_VAR) &&
	       !i->has_mask && !i->has_roff && i->nops == (uint32_t)ir_ops[i->op].nops;
}

/* Operand j of i in a canonical order (commutative operands by id). */
static const Inst *operand(const Inst *i, uint32_t j)
{
	if ((ir_ops[i->op].flags & IRF_COMM) && i->nops == 2 && i->ops[1]->id < i->ops[0]->id)
		j = 1 - j;
	return i->ops[j];
}

static uint64_t hash_of(const Inst *i)
{
	uint64_t h = (uint64_t)i->op * 31 + (uint64_t)i->ty.elem * 7 + i->sat;
	if (i->op == Oconst)
		return h ^ (i->c.v[0].u * 0x9E3779B97F4A7C15ull);
	for (uint32_t j = 0; j < i->nops; j++)
		h = (h ^ operand(i, j)->id) * 0x100000001B3ull;
	return h;
}

static bool same(const Inst *a, const Inst *b)
{
	if (a->op != b->op || a->ty.elem != b->ty.elem || a->sat != b->sat || a->nops != b->nops)
		return false;
	if (a->op == Oconst)
		return a->c.v[0].u == b->c.v[0].u;
	for (uint32_t j = 0; j < a->nops; j++)
		if (operand(a, j) != operand(b, j))
			return false;
	return true;
}

/* One block: an open-addressing table of the first instance of each value. */
static bool cse_block(Block *b, Arena *ar)
{
	uint32_t n = 0;
	for (Inst *i = b->first; i; i = i->next)
		n++;
	uint32_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	Inst **tab = NEWN(ar, Inst *, cap);
	bool any = false;
	for (Inst *i = b->first; i; i = i->next) {
		ir_resolve_ops(i);
		/* a value an earlier run forwarded stays in the block until dce:
		 * it is no instance (taking it as one made a cycle of forwards
		 * with its replacement, and ir_resolve looped for ever) */
		if (i->fwd || !candidate(i))
			continue;
		uint32_t k = (uint32_t)hash_of(i) & (cap - 1);
		while (tab[k] && !same(tab[k], i))
			k = (k + 1) & (cap - 1);
		if (tab[k]) {
			ir_forward(i, tab[k]);
			any = true;
		} else {
			tab[k] = i;
		}
	}
	return any;
}

bool opt_cse(Func *f)
{
	Arena *ar = arena_new();
	bool any = false;
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		any |= cse_block(f->blocks[bi], ar);
	arena_free(ar);
	ir_apply_forwards(f);
	return any;
}
