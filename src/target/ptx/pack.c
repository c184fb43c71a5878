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
 * Packing is refused (one CM thread per warp, as before) for
 * -fno-warp-packing, -fcluster-slm, cm_dpas (mma.sync is warp-wide),
 * split barriers (their thread count must be whole warps), a value wider
 * than 16 elements, or a register layout that puts an element past lane
 * W-1 or in a second register.  `-S` says what was chosen and why.
 *
 * requires: px_assign done (the layouts are checked); runs before emission.
 */
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
	px_ins(p, "vote.sync.ballot.b32 %s, %s, %s", d, pred, px_members(p));
	if (px_packed(p))
		px_ins(p, "shr.b32 %s, %s, %%segbase", d, d);
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
