/* pack.c — narrow CM threads packed into warps.
 *
 * A CM thread whose widest value has W <= 16 elements uses lanes 0..W-1 of
 * its warp only (one register slot, ptx.h); the others idle.  When every
 * value of a kernel fits W lanes, 32/W CM threads share one warp instead,
 * each on its own W-lane segment: segment s of warp w is CM thread
 * w * (32/W) + s of the CTA (the CTA is W lanes per CM thread in x:
 * ntid.x = W * threads[0], rt/cuda_abi.h "Metadata" `lanes W`).  What
 * changes for the rest of the back end:
 *   - %lane is the lane within the segment (laneid mod W), so element e
 *     still lives in %lane == e, and every per-lane computation (memory
 *     addresses, lane tables, lane < n masks) is unchanged;
 *   - a CM scalar is the same in the W lanes of a segment but differs
 *     between segments: branches on scalars are plain `bra` (px_uni),
 *     and every warp-synchronous instruction (shfl, vote, redux,
 *     bar.warp) names the segment's lanes as its member mask
 *     (px_members), so segments that diverge never wait for each other;
 *   - shuffles carry the segment width in their c operand (px_shfl_clamp):
 *     a lane reads within its own segment, exactly as a 32-lane CM thread
 *     reads within its warp (up/down past the segment keep the own value);
 *   - a ballot is shifted down by the segment's first lane (px_ballot), so
 *     bit e is element e as before;
 *   - thread ids, the walker's linear id and the SLM scratch slice divide
 *     the thread index by W, not 32 (px_lane_shift).
 *
 * Segments that run together.  A membermask that is a register (%segmask)
 * makes ptxas check convergence at every warp-synchronous instruction
 * (MATCH.ANY + REDUX.OR + VOTEU.ANY + a BRA.DIV to a WARPSYNC fallback:
 * five more SASS per shuffle site, MATCH.ANY slow, slower the more
 * segments), which cost the SIMD8 and SIMD16 loops of tests/gpu/pack.cm
 * their speedup.  px_pack_converge finds the blocks that every live
 * segment of the warp runs together: the entry, and a block all of whose
 * predecessors are such blocks and branch to it unconditionally or on a
 * warp-uniform condition (the same in every segment: built from constants
 * and kernel arguments by pure instructions, through phis of such blocks;
 * greatest fixpoint, so a loop counted by an argument qualifies).  There
 *   - shfl.sync names the whole warp (-1): every non-exited lane executes
 *     the same instruction (segments past the thread space or the CTA
 *     have exited, and shfl.sync waits for "all non-exited threads" of its
 *     membermask), and the clamp still keeps each lane in its segment
 *     (px_sync_members);
 *   - a ballot, any or all votes over the warp and keeps the segment's
 *     bits (px_ballot, px_vote);
 * and a CFG branch on a warp-uniform condition is bra.uni anywhere
 * (px_uni_cond).  Out-of-line paths (px_cold_begin), which a segment
 * enters on its own, keep %segmask; so do redux.sync, whose mask is what
 * it reduces over, and bar.warp.sync, which the PTX ISA lets wait for
 * exited lanes.  Divergence is never undone: a block after a
 * segment-varying branch is not converged, even where the paths join, and
 * neither is a block holding a cm_wait (each segment spins in it on its
 * own dependencies) or any block after it.
 *
 * Packing is refused (one CM thread per warp, as before) for
 * -fno-warp-packing, -fcluster-slm, cm_dpas (mma.sync is warp-wide),
 * split barriers (their thread count must be whole warps), a value wider
 * than 16 elements, or a register layout that puts an element past lane
 * W-1 or in a second register.  `-S` says what was chosen and why.
 *
 * requires: px_assign done (the layouts are checked), ir_preds; runs before
 * emission.
 */
#include <string.h>

#include "target/ptx/ptx.h"

/* Lanes per CM thread (a power of two) for a widest value of n elements. */
static uint32_t lanes_for(uint32_t n)
{
	uint32_t w = 1;
	while (w < n)
		w *= 2;
	return w;
}

/* Whether layout l (NULL: canonical) keeps n elements in lanes < w of one
 * register. */
static bool fits(const Layout *l, uint32_t w)
{
	if (!l)
		return true;
	if (l->nregs > 1)
		return false;
	for (uint32_t e = 0; e < l->n; e++)
		if (l->pos[e] % 32 >= w)
			return false;
	return true;
}

static bool layouts_fit(const Px *p, uint32_t w)
{
	for (uint32_t b = 0; b < p->f->nblocks; b++)
		for (const Inst *i = p->f->blocks[b]->first; i; i = i->next) {
			if (i->ty.elem == E_VOID || i->ty.n <= 1)
				continue;
			const PxVal *pv = &p->val[i->id];
			if (!fits(pv->lay, w))
				return false;
			for (uint32_t k = 0; k < pv->ncopies; k++)
				if (!fits(pv->copy[k], w))
					return false;
		}
	return true;
}

/* Why f's CM threads cannot share warps, or NULL; *maxn: its widest value. */
static const char *refusal(Px *p, uint32_t *maxn)
{
	*maxn = 1;
	const char *why = NULL;
	for (uint32_t b = 0; b < p->f->nblocks; b++)
		for (const Inst *i = p->f->blocks[b]->first; i; i = i->next) {
			if (i->ty.elem != E_VOID && i->ty.n > *maxn)
				*maxn = i->ty.n;
			if (i->op == Odpas)
				why = "cm_dpas is a warp-wide mma.sync";
			else if (i->op == Owgmma)
				why = "cm_wgmma is a warpgroup-wide wgmma";
			else if (i->op == Oslmcopy)
				why = "cm_slm_copy_async puts element k in lane k % 32";
			else if (i->op == Osbarrier && !why)
				why = "a split barrier counts whole warps";
		}
	if (p->o->no_pack)
		return "-fno-warp-packing";
	if (px_cluster_on(p))
		return "-fcluster-slm";
	if (why)
		return why;
	if (*maxn > 16)
		return arena_printf(p->arena, "its widest value has %u elements", *maxn);
	if (!layouts_fit(p, lanes_for(*maxn)))
		return arena_printf(p->arena, "a register layout spreads a value past %u lanes",
		                    lanes_for(*maxn));
	return NULL;
}

void px_pack_decide(Px *p)
{
	uint32_t maxn;
	const char *why = refusal(p, &maxn);
	p->lanes = why ? 32 : lanes_for(maxn);
	if (why)
		p->pack_note = arena_printf(p->arena, "packing: one CM thread per warp (%s)", why);
	else
		p->pack_note = arena_printf(p->arena, "packing: %u CM threads per warp, %u lanes "
		                            "each (widest value: %u element%s)", 32 / p->lanes,
		                            p->lanes, maxn, maxn > 1 ? "s" : "");
}

bool px_packed(const Px *p)
{
	return p->lanes && p->lanes < 32;
}

uint32_t px_lane_shift(const Px *p)
{
	return (uint32_t)__builtin_ctz(p->lanes ? p->lanes : 32);
}

const char *px_members(const Px *p)
{
	return px_packed(p) ? "%segmask" : "-1";
}

const char *px_uni(const Px *p)
{
	return px_packed(p) ? "" : ".uni";
}

/* Whether i, by its operands, is the same in every segment (phis also need
 * their block converged: which edge came in must not differ). */
static bool warp_uniform(const Px *p, const Inst *i)
{
	if (!(ir_ops[i->op].flags & IRF_PURE) || i->op == Otid)
		return false;
	if (i->op == Ophi && !p->conv[i->block->id])
		return false;
	for (uint32_t k = 0; k < i->nops; k++)
		if (!p->wuni[i->ops[k]->id])
			return false;
	return true;
}

/* Whether b is entered only from converged blocks, on edges every segment
 * takes alike. */
static bool converged(const Px *p, const Block *b)
{
	if (b == p->f->blocks[0])
		return true;
	for (uint32_t k = 0; k < b->npreds; k++) {
		const Block *q = b->preds[k];
		if (!p->conv[q->id])
			return false;
		if (q->jmp.kind == J_CBR && !p->wuni[q->jmp.cond->id])
			return false;
	}
	return true;
}

/* Whether b holds a cm_wait: each segment spins in it until its own
 * dependencies have signalled, so the segments leave it one by one. */
static bool waits(const Block *b)
{
	for (const Inst *i = b->first; i; i = i->next)
		if (i->op == Owait)
			return true;
	return false;
}

void px_pack_converge(Px *p)
{
	if (!px_packed(p))
		return;
	Func *f = p->f;
	p->conv = NEWN(p->arena, bool, f->nextblk);
	p->wuni = NEWN(p->arena, bool, f->nextid);
	memset(p->conv, 1, f->nextblk);
	memset(p->wuni, 1, f->nextid);
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t b = 0; b < f->nblocks; b++) {
			Block *bl = f->blocks[b];
			if (p->conv[bl->id] && (!converged(p, bl) || waits(bl)))
				p->conv[bl->id] = false, changed = true;
			for (Inst *i = bl->first; i; i = i->next)
				if (p->wuni[i->id] && !warp_uniform(p, i))
					p->wuni[i->id] = false, changed = true;
		}
	}
}

/* Whether the instruction being emitted runs in all segments together. */
static bool together(const Px *p)
{
	return p->blk && p->conv && p->conv[p->blk->id] && !p->in_cold;
}

const char *px_sync_members(const Px *p)
{
	return !px_packed(p) || together(p) ? "-1" : "%segmask";
}

const char *px_uni_cond(const Px *p, const Inst *cond)
{
	return !px_packed(p) || p->wuni[cond->id] ? ".uni" : "";
}

/* shfl.sync's c: the segment mask (32 - W) in bits 8..12, and the clamp
 * (0 for up: the segment's first lane; else its last). */
const char *px_shfl_clamp(Px *p, bool up)
{
	if (!px_packed(p))
		return up ? "0" : "31";
	return arena_printf(p->arena, "%u", (32 - p->lanes) << 8 | (up ? 0 : 31));
}

void px_ballot(Px *p, const char *d, const char *pred)
{
	px_ins(p, "vote.sync.ballot.b32 %s, %s, %s", d, pred, px_sync_members(p));
	if (!px_packed(p))
		return;
	px_ins(p, "shr.b32 %s, %s, %%segbase", d, d);
	if (together(p))   /* the later segments' bits */
		px_ins(p, "and.b32 %s, %s, %u", d, d, (uint32_t)((1ull << p->lanes) - 1));
}

/* Where the segments run together, the segment's bits of a warp ballot:
 * any is some bit set, all every bit (every lane of a live segment is
 * active there). */
void px_vote(Px *p, bool any, const char *r, const char *pred)
{
	if (!px_packed(p) || !together(p)) {
		px_ins(p, "vote.sync.%s.pred %s, %s, %s", any ? "any" : "all", r, pred,
		       px_members(p));
		return;
	}
	const char *t = px_tmp(p, RC_B32);
	px_ins(p, "vote.sync.ballot.b32 %s, %s, -1", t, pred);
	px_ins(p, "and.b32 %s, %s, %%segmask", t, t);
	if (any)
		px_ins(p, "setp.ne.u32 %s, %s, 0", r, t);
	else
		px_ins(p, "setp.eq.u32 %s, %s, %%segmask", r, t);
}

void px_pack_decls(const Px *p, Buf *out)
{
	if (px_packed(p))
		buf_puts(out, "\t.reg .b32 %segbase, %segmask;\n");
}

/* After %lane = %laneid: the segment's first lane and member mask, and
 * %lane within the segment. */
void px_pack_prologue(Px *p)
{
	if (!px_packed(p))
		return;
	px_ins(p, "and.b32 %%segbase, %%lane, %u", ~(p->lanes - 1));
	px_ins(p, "and.b32 %%lane, %%lane, %u", p->lanes - 1);
	px_ins(p, "mov.u32 %%segmask, %u", (uint32_t)((1ull << p->lanes) - 1));
	px_ins(p, "shl.b32 %%segmask, %%segmask, %%segbase");
}
