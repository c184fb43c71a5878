/* branch.c — branches on constants taken.
 *
 * requires: SSA.  changes: the CFG (a cbr on a constant becomes a br;
 * blocks no longer reachable from the entry leave the layout, and so do
 * their operands of the phis of the blocks they jumped to; a phi left
 * with one operand gives way to it).
 *
 * Constant conditions come from unrolled loops and template arguments:
 * in a `#pragma unroll` loop, `uint cur = p % 2 ? b1 : b0;` is a cbr on
 * `conv 1` around a phi of b1 and b0 (the front end lowers ?: and if to
 * branches), so `cur` is no constant offset from b0 for the passes after
 * this one and for the back ends, though ptxas would fold the branch much
 * later: written that way, hgemm.cm's hgemm_slm lost its loop versioning
 * (ptx/vloop.c could not evaluate the SLM buffer offset) and every SLM
 * access of its k loop was checked lane by lane.  With the dead arm gone,
 * blocks.c closes the seams that are left. */
#include "opt/opt.h"

/* The value of a scalar i1 constant c. */
static bool const_cond(const Inst *c, bool *v)
{
	if (c->op != Oconst || c->ty.n != 1)
		return false;
	*v = ir_const_at(c, 0).i != 0;
	return true;
}

/* Drops from t's phis their operands that come from b. */
static void drop_phi_operands(Block *t, const Block *b)
{
	for (Inst *i = t->first; i && i->op == Ophi; i = i->next) {
		uint32_t j = 0;
		for (uint32_t k = 0; k < i->nops; k++)
			if (i->phiblk[k] != b) {
				i->ops[j] = i->ops[k];
				i->phiblk[j++] = i->phiblk[k];
			}
		i->nops = j;
	}
}

/* Takes the blocks the entry no longer reaches (ir_preds numbers them
 * UINT32_MAX) out of the layout, with their operands of the phis of the
 * blocks they jumped to. */
static void drop_unreachable(Func *f)
{
	ir_preds(f);
	for (uint32_t bi = f->nblocks; bi-- > 1;) {
		Block *b = f->blocks[bi];
		if (b->rpo != UINT32_MAX)
			continue;
		for (int s = 0; s < ir_nsucc(b); s++)
			if (b->jmp.to[s]->rpo != UINT32_MAX)
				drop_phi_operands(b->jmp.to[s], b);
		ir_block_drop(f, b);
	}
}

/* Phis of one operand give way to it (its block is the one predecessor). */
static void forward_single_phis(Func *f)
{
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first, *next; i && i->op == Ophi; i = next) {
			next = i->next;
			if (i->nops != 1)
				continue;
			ir_replace_uses(f, i, i->ops[0]);
			ir_remove(i);
		}
}

bool opt_branch(Func *f)
{
	bool any = false;
	for (uint32_t bi = 0; bi < f->nblocks; bi++) {
		Block *b = f->blocks[bi];
		bool v;
		if (b->jmp.kind != J_CBR || !const_cond(b->jmp.cond, &v))
			continue;
		Block *live = b->jmp.to[v ? 0 : 1], *dead = b->jmp.to[v ? 1 : 0];
		if (dead == live)   /* its phis name b twice: left as it is */
			continue;
		drop_phi_operands(dead, b);
		b->jmp.kind = J_BR;
		b->jmp.cond = NULL;
		b->jmp.to[0] = live;
		b->jmp.to[1] = NULL;
		any = true;
	}
	if (!any)
		return false;
	drop_unreachable(f);
	forward_single_phis(f);
	ir_preds(f);
	return true;
}
