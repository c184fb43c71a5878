/* bpair.c — two half-register block loads that fill one register, as one
 * load.
 *
 * requires: layouts assigned (assign.c) and block groups formed (bgroup.c).
 * changes: sets PxVal.pair on the second wrregion of each pair and
 * PxVal.skip on the two loads and the first wrregion, which then emit
 * nothing (mem.c px_pair_load emits the pair at the second wrregion).
 *
 * A register of 32 elements filled by two block reads of 16 (the paper's
 * dgemm reads rows of doubles 128 bytes at a time, so do row copies of
 * 16 doubles or 16-element matrix rows):
 *
 *     W1 = wrregion D, L1, <0;16,1>, 32 s        L1 = bload S, o1
 *     W2 = wrregion W1, L2, <0;16,1>, 32 s + 16  L2 = bload S, o2
 *
 * costs two loads, two bounds checks and a select per 32-bit half of the
 * register.  Lanes 0..15 read o1 + 8 lane and lanes 16..31 read
 * o2 + 8 (lane - 16): one load whose lanes take o1 or o2 by a select of
 * the offset makes them both, with the exact semantics of each (no
 * assumption on o2 - o1; lane l reads at its offset + (l % 16) * eb,
 * checked against blimit.c's limit).  In loops only, as blimit.c's
 * checks are (outside, the two loads are cheap enough).
 * SLM block loads pair too (bench/cm/hgemm.cm dgemm_slm reads each mma
 * fragment of 32 doubles as two block reads of 16, CM's widest): when the
 * halves are contiguous lane l reads o1 + 8 lane, one ld.shared.f64
 * (mem.c slm_pair), against two half-warp loads, a select per 32-bit half
 * and a zeroed register each.
 * The two loads move down to W2: nothing between L1 and W2 may write
 * memory, and W1 and the loads must have no other user.
 */
#include "rt/cmk_abi.h"
#include "target/ptx/ptx.h"

static bool plain_half(const Inst *w, uint32_t n)
{
	return w->op == Owrregion && !ir_roff(w) && !w->has_mask && w->rg.width == (int32_t)n &&
	       w->rg.hstride == 1 && w->ops[1]->ty.n == n;
}

bool px_surface_load(const Px *p, const Inst *l)
{
	const Inst *s = l->ops[0];
	return l->op == Obload && l->space == SP_SURF && l->nuse == 1 && l->ty.n > 1 &&
	       s->op == Oarg && (uint32_t)s->imm < p->f->nparams &&
	       p->f->params[s->imm].kind == CMK_ARG_SURFACE &&
	       px_class(l->ops[1]->ty.elem) == RC_B32 && l->ty.elem != E_I1;
}

bool px_whole_write(const Inst *w)
{
	return w->op == Owrregion && !ir_roff(w) && !w->has_mask && w->ty.n > 1 &&
	       w->rg.hstride == 1 && w->rg.width == (int32_t)w->ops[1]->ty.n &&
	       w->ops[1]->ty.n > 1;
}

bool px_quiet_between(const Inst *l, const Inst *w2)
{
	if (l->block != w2->block)
		return false;
	for (const Inst *i = l; i && i != w2; i = i->next)
		if (ir_writes_memory(i))
			return false;
	return true;
}

/* A block load of SLM at a 32-bit offset (not a cluster's: mem.c's
 * pair and wide load reach the CTA's own SLM). */
bool px_slm_block_load(const Px *p, const Inst *l)
{
	return l->op == Obload && l->space == SP_SLM && l->nuse == 1 && l->ty.n > 1 &&
	       px_class(l->ops[1]->ty.elem) == RC_B32 && l->ty.elem != E_I1 &&
	       !px_cluster_on(p);
}

/* The register of layout l (NULL: canonical) whose lanes 0..31 hold
 * elements off .. off + 31 in order, else -1: the canonical one, or one
 * that orders a matrix's rows in other registers (a k loop's operand
 * tiles, as want.c may leave them). */
int px_pair_reg(const Layout *l, uint32_t off)
{
	if (!l || l->canon)
		return (int)(off / 32);
	if (off + 32 > l->n || l->pos[off] % 32)
		return -1;
	for (uint32_t j = 1; j < 32; j++)
		if (l->pos[off + j] != l->pos[off] + j)
			return -1;
	return (int)(l->pos[off] / 32);
}

static void try_pair(Px *p, Inst *w2)
{
	uint32_t n = 16;
	if (!plain_half(w2, n) || w2->rg.offset % 32 != 16 || w2->ty.n < 32)
		return;
	Inst *w1 = w2->ops[0], *l2 = w2->ops[1];
	if (!plain_half(w1, n) || w1->nuse != 1 || w1->rg.offset != w2->rg.offset - 16)
		return;
	Inst *l1 = w1->ops[1];
	bool slm = px_slm_block_load(p, l1) && px_slm_block_load(p, l2);
	if (!(slm || (px_surface_load(p, l1) && px_surface_load(p, l2))) || l1->ops[0] != l2->ops[0] ||
	    l1->ty.elem != l2->ty.elem || l1->align != l2->align)
		return;
	const PxVal *v1 = &p->val[l1->id], *v2 = &p->val[l2->id];
	const Layout *lw = p->val[w2->id].lay, *ld = px_read_layout(p, w1, 0);
	if (v1->blead || v2->blead || px_pair_reg(lw, (uint32_t)w1->rg.offset) < 0 ||
	    (lw && ld && !lay_equal(lw, ld)) || (!lw && ld && !ld->canon) || (lw && !ld && !lw->canon))
		return;
	/* both loads move down to w2 (either may come first) */
	if (!p->depth[w2->block->id] || !px_quiet_between(l1, w2) || !px_quiet_between(l2, w2))
		return;
	p->val[w2->id].pair = l1;
	p->val[w1->id].skip = p->val[l1->id].skip = p->val[l2->id].skip = true;
}

void px_block_pairs(Px *p)
{
	if (p->o->ptx_canonical || px_checking(p))
		return;
	ir_count_uses(p->f);
	for (uint32_t b = 0; b < p->f->nblocks; b++)
		for (Inst *i = p->f->blocks[b]->first; i; i = i->next)
			if (i->op == Owrregion)
				try_pair(p, i);
}
