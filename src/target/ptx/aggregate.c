/* aggregate.c — warp-aggregated float adds to shared memory.
 *
 * requires: mem.c (px_slm_atomic_lane), layouts (assign.c); the warp
 * converged (px_sync_members "-1").
 * changes: Px.agg, the adds deferred to the last of a run (below).
 *
 * NVIDIA GPUs have no shared-memory float atomic add: ptxas (CUDA 13.0,
 * sm_90) turns atom/red.shared.add.f32 into a loop of LDS, FADD and
 * ATOMS.CAST.SPIN in which, of the lanes on one address, one wins per
 * round.  A warp's add therefore takes as many rounds as the most lanes
 * on one address (k-means with 16 clusters: about 5 for 32 points), two
 * shared-memory operations a round, and the shared pipe is what bounds
 * such kernels (ncu on k-means: 98% busy).
 *
 * When the add's old value is not used, the order of the lanes' adds is
 * free, so the lanes on one address can add among themselves first and
 * one of them adds the sum (the reduction of Westphal, "Voting and
 * shuffling to optimize atomic operations", NVIDIA 2015):
 *
 *   peers = match.any(key) & on      lanes on my address
 *   rel   = popc(peers & lanes below me)   my rank among them
 *   hp    = peers & lanes above me
 *   while any lane has hp != 0:      ceil(log2(most lanes on an address))
 *       x += x of the lowest lane of hp  (where hp != 0)
 *       hp &= ballot(rank even)      odd ranks are summed into their left
 *       rel >>= 1                    neighbour and leave
 *   the lane of rank 0 adds x (a compare-and-swap loop, cas_adds)
 *
 * Each round pairs neighbours of the remaining ranks, so after the loop
 * the lowest lane of every address holds the address's sum, and the CAS
 * loop behind the one add meets no other lane of the warp.  Rounding
 * differs from adding one lane at a time, as it differs between any two
 * orders of atomic adds.
 *
 * Runs of adds share the work.  A CM kernel that accumulates a record
 * adds each field at base + d (k-means: a point's D coordinates at
 * cluster * D + d).  Lanes that agree on base agree on base + d, so one
 * match and one loop serve every field, with a shuffle and an add per
 * field a round.  An add is therefore emitted at the last of a run of
 * adds with nothing but pure instructions between them (moving an add
 * past those is invisible), and the adds of the run whose offsets are
 * one key plus constants (through integer conversions, which keep the
 * low bits: key_of) and whose masks agree share one loop (a loop per
 * field took k-means' D4-K16 from 40 to 67 registers, one loop to 46).
 * The leaders then add two at a time through one compare-and-swap loop
 * (cas_adds), 48-72 registers, which pays (cas_adds says how much).
 */
#include <string.h>

#include "target/ptx/ptx.h"

#define AGG_MAX 64   /* adds deferred at most */

/* Whether canonical registers of v exist (px_reg gives them). */
static bool canonical(const Px *p, const Inst *v)
{
	const PxVal *pv = &p->val[v->id];
	if (!pv->lay || pv->lay->canon)
		return true;
	for (uint32_t k = 0; k < pv->ncopies; k++)
		if (pv->copy[k]->canon)
			return true;
	return false;
}

/* An integer vector in 32- or 16-bit registers: a key match.any.b32 takes. */
static bool int32ish(const Inst *v)
{
	RegClass c = px_class(v->ty.elem);
	return ir_is_int(v->ty.elem) && (c == RC_B32 || c == RC_B16);
}

/* A float add whose old value is unused, to the CTA's shared memory, by
 * more than one lane of a converged warp, at 32- or 16-bit offsets. */
bool px_fadd_aggregates(const Px *p, const Inst *i)
{
	if (i->op != Oatomic || (i->aop != AT_FADD && i->aop != AT_FSUB) || i->nuse ||
	    i->space != SP_SLM || px_cluster_on(p) || ir_nsrc(i) < 1)
		return false;
	return i->ops[3]->ty.elem == E_F32 && i->ops[2]->ty.n > 1 && int32ish(i->ops[2]) &&
	       !px_checking(p) && !p->o->no_atomic_aggregation &&
	       !strcmp(px_sync_members(p), "-1");
}

/* The value whose lanes agree exactly where offs's do, and how many low
 * bits of it count: offs = key + constants, through integer conversions
 * (an extension keeps every bit, a truncation the low ones, and adding a
 * constant is one-to-one on the bits that count; not through saturating
 * ones).  A key finer than the offsets would only aggregate less; a
 * coarser one would sum lanes of different addresses. */
static const Inst *key_of(const Px *p, const Inst *offs, int *bits)
{
	const Inst *k = offs;
	*bits = 8 * ir_elem_bytes[offs->ty.elem];
	for (;;) {
		const Inst *x = NULL;
		if (k->op == Oconv && int32ish(k->ops[0]))
			x = k->ops[0];
		else if (k->op == Oadd && k->ops[1]->op == Oconst && ir_const_is_splat(k->ops[1]))
			x = k->ops[0];
		else if (k->op == Oadd && k->ops[0]->op == Oconst && ir_const_is_splat(k->ops[0]))
			x = k->ops[1];
		/* a saturating step maps lanes of different keys to one offset */
		if (!x || k->sat || x->ty.n != offs->ty.n || !int32ish(x) || !canonical(p, x))
			return k;
		int b = 8 * ir_elem_bytes[k->ty.elem];
		if (b < *bits)
			*bits = b;
		k = x;
	}
}

/* Whether a later add of the run follows i: one that aggregates, of as
 * many lanes, with only pure instructions between. */
static bool run_goes_on(const Px *p, const Inst *i)
{
	for (const Inst *n = i->next; n; n = n->next) {
		if (px_fadd_aggregates(p, n))
			return n->ops[2]->ty.n == i->ops[2]->ty.n;
		if (!(ir_ops[n->op].flags & IRF_PURE) || n->op == Ophi)
			return false;
	}
	return false;
}

/* The key register of slot s: the bits of key_of that count, in b32. */
static const char *key_reg(Px *p, const Inst *k, int bits, uint32_t s)
{
	const char *r = px_reg(p, k, s), *t = px_tmp(p, RC_B32);
	if (px_class(k->ty.elem) == RC_B16)
		px_ins(p, "cvt.u32.u16 %s, %s", t, r);
	else
		px_ins(p, "mov.b32 %s, %s", t, r);
	if (bits < 32)
		px_ins(p, "and.b32 %s, %s, %u", t, t, (1u << bits) - 1);
	return t;
}

/* The lanes of slot s an add enables apart from its bounds: those below
 * its n and in its mask (NULL: all). */
static const char *lanes_on(Px *p, const Inst *i, uint32_t s)
{
	uint32_t n = i->ops[2]->ty.n;
	Inst *mask = ir_mask((Inst *)i);
	const char *q = n - s * 32 < 32 ? px_lane_lt(p, n - s * 32) : NULL;
	if (!mask)
		return q;
	const char *m = px_reg(p, mask, s);
	if (!q)
		return m;
	const char *t = px_tmp(p, RC_PRED);
	px_ins(p, "and.pred %s, %s, %s", t, q, m);
	return t;
}

/* hp (peers above me) and rel (my rank among peers) of key where on
 * holds (NULL: all lanes), and the peers themselves (returned); hp is 0
 * elsewhere, so those lanes never take part. */
static const char *peers(Px *p, const char *key, const char *on, const char *hp,
                         const char *rel)
{
	const char *m = px_tmp(p, RC_B32), *lo = px_tmp(p, RC_B32);
	px_ins(p, "match.any.sync.b32 %s, %s, -1", m, key);
	if (on) {
		const char *act = px_tmp(p, RC_B32);
		px_ins(p, "vote.sync.ballot.b32 %s, %s, -1", act, on);
		px_ins(p, "and.b32 %s, %s, %s", m, m, act);
	}
	px_ins(p, "mov.b32 %s, %%lanemask_gt", hp);
	px_ins(p, "and.b32 %s, %s, %s", hp, hp, m);
	if (on)
		px_ins(p, "selp.b32 %s, %s, 0, %s", hp, hp, on);
	px_ins(p, "mov.b32 %s, %%lanemask_lt", lo);
	px_ins(p, "and.b32 %s, %s, %s", lo, lo, m);
	px_ins(p, "popc.b32 %s, %s", rel, lo);
	return m;
}

/* A value every lane adds alike and whose sums are exact in any order:
 * an integer constant of at most 2^16 (times 32 lanes, below 2^24).  Its
 * sum over an address's lanes is the constant times their count, without
 * the loop (k-means' counts add 1.0 a point). */
static bool counted(const Inst *v)
{
	if (v->op != Oconst || !ir_const_is_splat(v))
		return false;
	double c = ir_const_at(v, 0).f;
	return c >= -65536 && c <= 65536 && c == (double)(int32_t)c;
}

/* The reduction loop: each x[j] (NULL: a counted value, skipped) becomes
 * its address's sum in the lane of rank 0. */
static void reduce(Px *p, const char **x, uint32_t nx, const char *hp, const char *rel)
{
	const char *top = px_label(p), *out = px_label(p);
	const char *c = px_tmp(p, RC_PRED), *go = px_tmp(p, RC_PRED), *t = px_tmp(p, RC_B32);
	const char *even = px_tmp(p, RC_PRED), *keep = px_tmp(p, RC_B32);
	buf_printf(&p->body, "%s:\n", top);
	px_ins(p, "setp.ne.b32 %s, %s, 0", c, hp);
	px_ins(p, "vote.sync.any.pred %s, %s, -1", go, c);
	px_ins(p, "@!%s bra.uni %s", go, out);
	px_ins(p, "neg.s32 %s, %s", t, hp);
	px_ins(p, "and.b32 %s, %s, %s", t, t, hp);
	px_ins(p, "bfind.u32 %s, %s", t, t);   /* the lowest lane of hp */
	for (uint32_t j = 0; j < nx; j++) {
		if (!x[j])
			continue;
		const char *y = px_tmp(p, RC_F32);
		px_ins(p, "shfl.sync.idx.b32 %s, %s, %s, 31, -1", y, x[j], t);
		px_ins(p, "@%s add.f32 %s, %s, %s", c, x[j], x[j], y);
		p->nshfl++;
	}
	px_ins(p, "and.b32 %s, %s, 1", t, rel);
	px_ins(p, "setp.eq.b32 %s, %s, 0", even, t);
	px_ins(p, "vote.sync.ballot.b32 %s, %s, -1", keep, even);
	px_ins(p, "and.b32 %s, %s, %s", hp, hp, keep);
	px_ins(p, "shr.b32 %s, %s, 1", rel, rel);
	px_ins(p, "bra.uni %s", top);
	buf_printf(&p->body, "%s:\n", out);
}

/* x[j] *= the lanes of the leader's address (popc of its peers m) for
 * the counted adds (sum[j] NULL). */
static void scale_counted(Px *p, const char **x, const char **sum, uint32_t n, const char *m)
{
	const char *cnt = NULL;
	for (uint32_t j = 0; j < n; j++) {
		if (sum[j])
			continue;
		if (!cnt) {
			const char *t = px_tmp(p, RC_B32);
			cnt = px_tmp(p, RC_F32);
			px_ins(p, "popc.b32 %s, %s", t, m);
			px_ins(p, "cvt.rn.f32.u32 %s, %s", cnt, t);
		}
		px_ins(p, "mul.f32 %s, %s, %s", x[j], x[j], cnt);
	}
}

/* Up to CAS_MAX adds of one lane: x[j] to slot s of g[j], where lead
 * holds, by one compare-and-swap loop.  ptxas's loop for each
 * red.shared.add.f32 waits for its own ATOMS.CAS before the next add
 * starts, so a leader's D adds took D round trips to shared memory one
 * after another; here the loads and CASes of CAS_MAX adds are issued
 * together and the loop repeats only the adds another warp overtook.
 * H200, k-means' float row (bench/runs/2026-11-27-h200-session13,
 * cas-batch-ab.txt), ms, one red per add / 4 at once / 2 at once: D4-K16
 * 0.221 / 0.166 / 0.163, D16-K16 0.660 / 0.544 / 0.534, D16-K64 1.597 /
 * 0.965 / 0.955, but D4-K64 0.252 / 0.301 / 0.286: the loads held across
 * the loop take registers (kmeans_assign D4-K64 40 -> 56), which costs
 * where few lanes share an address.  Two at a time was as fast or faster
 * everywhere. */
#define CAS_MAX 2

static void cas_adds(Px *p, const Inst **g, const char **x, uint32_t n, uint32_t s,
                     const char *lead)
{
	const char *a[CAS_MAX], *q[CAS_MAX], *old[CAS_MAX], *top = px_label(p);
	const char *any = px_tmp(p, RC_PRED);
	for (uint32_t j = 0; j < n; j++) {
		const char *ok;
		a[j] = px_slm_atomic_lane(p, (Inst *)g[j], s, &ok);
		q[j] = px_tmp(p, RC_PRED), old[j] = px_tmp(p, RC_B32);
		if (ok)
			px_ins(p, "and.pred %s, %s, %s", q[j], lead, ok);
		else
			px_ins(p, "mov.pred %s, %s", q[j], lead);
		px_ins(p, "mov.b32 %s, 0", old[j]);
		px_ins(p, "@%s ld.shared.b32 %s, [%s]", q[j], old[j], a[j]);
	}
	buf_printf(&p->body, "%s:\n", top);
	for (uint32_t j = 0; j < n; j++) {
		const char *f = px_tmp(p, RC_F32), *nb = px_tmp(p, RC_B32), *got = px_tmp(p, RC_B32);
		px_ins(p, "mov.b32 %s, %s", f, old[j]);
		px_ins(p, "add.f32 %s, %s, %s", f, f, x[j]);
		px_ins(p, "mov.b32 %s, %s", nb, f);
		px_ins(p, "@%s atom.shared.cas.b32 %s, [%s], %s, %s", q[j], got, a[j], old[j], nb);
		px_ins(p, "@%s setp.ne.b32 %s, %s, %s", q[j], q[j], got, old[j]);
		px_ins(p, "@%s mov.b32 %s, %s", q[j], old[j], got);   /* overtaken: again */
		px_ins(p, j ? "or.pred %s, %s, %s" : "mov.pred %s, %s", any, j ? any : q[j], q[j]);
	}
	/* uniform, so that ptxas keeps the warp converged (a divergent
	 * branch here made it copy the later shuffles as fallback code) */
	px_ins(p, "vote.sync.any.pred %s, %s, -1", any, any);
	px_ins(p, "@%s bra.uni %s", any, top);
}

/* The leaders' adds of x[j], slot s of g[j], where lead holds. */
static void add_sums(Px *p, const Inst **g, const char **x, uint32_t n, uint32_t s,
                     const char *lead)
{
	for (uint32_t j = 0; j < n; j += CAS_MAX)
		cas_adds(p, g + j, x + j, n - j < CAS_MAX ? n - j : CAS_MAX, s, lead);
}

/* Slot s of the adds g[0..n), which share a key and a mask: the values
 * in x (negated for FSUB), summed by the loop (sum: those not counted),
 * then added by the lowest lane of each address. */
static void emit_group(Px *p, const Inst **g, uint32_t n, uint32_t s)
{
	int bits;
	const Inst *k = key_of(p, g[0]->ops[2], &bits);
	const char *on = lanes_on(p, g[0], s), *key = key_reg(p, k, bits, s);
	const char *hp = px_tmp(p, RC_B32), *rel = px_tmp(p, RC_B32), *lead = px_tmp(p, RC_PRED);
	const char **x = NEWN(p->tmp, const char *, n), **sum = NEWN(p->tmp, const char *, n);
	uint32_t nsum = 0;
	px_comment(p, "atomic: %u SLM float add%s summed over the lanes on an address first "
	           "(key %%%u, low %d bits)", n, n > 1 ? "s" : "", k->id, bits);
	const char *m = peers(p, key, on, hp, rel);
	px_ins(p, "setp.eq.b32 %s, %s, 0", lead, rel);
	if (on)
		px_ins(p, "and.pred %s, %s, %s", lead, lead, on);
	for (uint32_t j = 0; j < n; j++) {
		x[j] = px_tmp(p, RC_F32);
		px_ins(p, "%s.f32 %s, %s", g[j]->aop == AT_FSUB ? "neg" : "mov", x[j],
		       px_reg(p, g[j]->ops[3], s));
		sum[j] = counted(g[j]->ops[3]) ? NULL : x[j];
		nsum += sum[j] != NULL;
	}
	if (nsum)
		reduce(p, sum, n, hp, rel);
	scale_counted(p, x, sum, n, m);
	add_sums(p, g, x, n, s, lead);
}

/* Whether adds a and b share their lanes' peers: one key, one mask. */
static bool same_peers(const Px *p, const Inst *a, const Inst *b)
{
	int ba, bb;
	const Inst *ka = key_of(p, a->ops[2], &ba), *kb = key_of(p, b->ops[2], &bb);
	return ka == kb && ba == bb && ir_mask((Inst *)a) == ir_mask((Inst *)b);
}

/* Emits the deferred adds, a group of shared peers at a time (every add
 * of a run has as many lanes, so the same slots). */
static void flush(Px *p)
{
	uint32_t n = p->nagg, slots = SLOTS(p->agg[0]->ops[2]->ty.n);
	bool *done = NEWN(p->tmp, bool, n);
	const Inst **g = NEWN(p->tmp, const Inst *, n);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t ng = 0;
		if (done[j])
			continue;
		for (uint32_t k = j; k < n; k++)
			if (!done[k] && same_peers(p, p->agg[j], p->agg[k]))
				done[k] = true, g[ng++] = p->agg[k];
		for (uint32_t s = 0; s < slots; s++)
			emit_group(p, g, ng, s);
	}
	p->nagg = 0;
}

void px_fadd_aggregate(Px *p, const Inst *i)
{
	p->agg[p->nagg++] = i;
	if (p->nagg < AGG_MAX && run_goes_on(p, i))
		return;
	flush(p);
}

void px_fadd_init(Px *p)
{
	p->agg = NEWN(p->arena, const Inst *, AGG_MAX);
	p->nagg = 0;
}
