/* slm.c — the shared-memory resident layout: a vector that is read at
 * runtime positions, or by many constant extracts inside a loop, keeps a
 * copy in its warp's SLM scratch, and those reads become loads.
 *
 * requires: layouts assigned (assign.c marks the values, PxVal.slm).
 *
 * In the register layouts an element at a runtime position can only be
 * reached by a shuffle from every register the position may fall in, each
 * followed by a select (1 shfl + 15 selp for a scalar read of a 16-register
 * vector).  A CM scalar index is the same in every lane, so from shared
 * memory the same read is one ld.shared that all lanes serve from one
 * address (a broadcast); a per-lane index (iselect, a vector read at a
 * runtime offset) is one ld.shared per register.  Constant extracts that
 * read the same 16 bytes in one block share one vector load.
 *
 * Each marked value owns a slice of the warp's scratch: register slot s of
 * its canonical layout at bytes [s * 32 * w, (s + 1) * 32 * w) of the slice,
 * lane l at l * w in it (w: the register width, so a value goes in and out
 * exactly as its register holds it: 8/16-bit integers stay normalized).
 * The copy is stored where assign.c placed it (right after the definition,
 * or before the reads when they are all in one block), between two
 * bar.warp.sync (the lanes' stores are seen by every lane; a redefinition in
 * a loop waits for the last iteration's reads).  The scratch is the
 * kernel's dynamic shared memory: rt/cuda_abi.h "Metadata" says how the
 * runtime sizes it (scratch bytes per warp) and where each warp's part is.
 */
#include "target/ptx/ptx.h"

static uint32_t ilog2(uint32_t x)
{
	uint32_t k = 0;
	while ((1u << k) < x)
		k++;
	return k;
}

/* Bytes of a register of e's class. */
uint32_t px_slm_width(Elem e)
{
	switch (px_class(e)) {
	case RC_B16: return 2;
	case RC_B64: case RC_F64: return 8;
	case RC_PRED: return 0;
	default: return 4;
	}
}

/* Elements of e a 16-byte load of an SLM copy reads at once (groups of
 * extracts, rgroup_load; vloop.c's alignment test must agree). */
uint32_t px_slm_vec(Elem e)
{
	uint32_t w = px_slm_width(e);
	return w == 4 ? 4 : w == 8 ? 2 : 1;
}

/* The scratch base of this warp, computed where a copy is stored (not at
 * the top of the kernel: a stencil's interior tiles may never store one).
 * The store dominates the copy's loads, which use the same register where
 * they come after it in the text. */
static const char *scratch_base(Px *p)
{
	const char *t = px_tmp(p, RC_B32), *u = px_tmp(p, RC_B32), *b = px_tmp(p, RC_B32);
	px_ins(p, "mov.u32 %s, %%tid.z", t);
	px_ins(p, "mov.u32 %s, %%ntid.y", u);
	px_ins(p, "mul.lo.u32 %s, %s, %s", t, t, u);
	px_ins(p, "mov.u32 %s, %%tid.y", u);
	px_ins(p, "add.u32 %s, %s, %s", t, t, u);
	px_ins(p, "mov.u32 %s, %%ntid.x", u);
	px_ins(p, "mul.lo.u32 %s, %s, %s", t, t, u);
	px_ins(p, "mov.u32 %s, %%tid.x", u);
	px_ins(p, "add.u32 %s, %s, %s", t, t, u);
	px_ins(p, "shr.u32 %s, %s, %u", t, t, px_lane_shift(p));   /* CM thread */
	px_ins(p, "mov.u32 %s, cmetal_scratch", b);
	px_ins(p, "mad.lo.u32 %s, %s, %u, %s", b, t, p->scratch, b);
	if (px_scratch_at(p->f))   /* after a dynamic SLM (px_slm_dynamic) */
		px_ins(p, "add.u32 %s, %s, %u", b, b, px_scratch_at(p->f));
	return b;
}

/* The scratch base register for a read of v's copy: the store's when it
 * comes first in the text (the store dominates every read; a loop's blocks
 * may come before it, though), else computed here. */
static const char *read_base(Px *p, const Inst *v)
{
	const PxVal *pv = &p->val[v->id];
	if (!pv->placed)
		die("%%%u is read from SLM but never stored there", v->id);
	return pv->scr ? pv->scr : scratch_base(p);
}

/* v's registers in the canonical layout: its own or its copy, or else
 * converted here (a store placed before its reader, assign.c). */
static const char **canonical_regs(Px *p, const Inst *v)
{
	const PxVal *pv = &p->val[v->id];
	uint32_t n = SLOTS(v->ty.n);
	const char **r = NEWN(p->arena, const char *, n);
	bool have = !pv->lay || pv->lay->canon;
	for (uint32_t k = 0; k < pv->ncopies && !have; k++)
		have = pv->copy[k]->canon;
	if (have) {
		for (uint32_t s = 0; s < n; s++)
			r[s] = px_reg(p, v, s);
		return r;
	}
	const char **own = NEWN(p->arena, const char *, pv->lay->nregs);
	for (uint32_t s = 0; s < pv->lay->nregs; s++)
		own[s] = px_own(p, v, s);
	for (uint32_t s = 0; s < n; s++)
		r[s] = px_tmp(p, px_class(v->ty.elem));
	const Layout *canon = p->canon[v->ty.n] ? p->canon[v->ty.n] : lay_canonical(p->tmp, v->ty.n);
	px_emit_plan(p, v->ty.elem, r, own, lay_plan(p->tmp, canon, pv->lay, NULL), false, NULL);
	arena_reset(p->tmp);
	return r;
}

void px_slm_store(Px *p, const Inst *v)
{
	PxVal *pv = &p->val[v->id];
	Elem e = v->ty.elem;
	uint32_t w = px_slm_width(e);
	const char **regs = canonical_regs(p, v);
	const char *a = px_tmp(p, RC_B32);
	pv->scr = scratch_base(p);
	uint32_t pitch = pv->slm_pitch, slot = 32 + (pitch ? 32 / pitch : 0);
	if (pitch) {	/* element e at word e + e / pitch: lane l at l + l / pitch */
		const char *t = px_tmp(p, RC_B32);
		px_ins(p, "shr.u32 %s, %%lane, %u", t, ilog2(pitch));
		px_ins(p, "add.u32 %s, %s, %%lane", t, t);
		px_ins(p, "mad.lo.u32 %s, %s, %u, %s", a, t, w, pv->scr);
	} else {
		px_ins(p, "mad.lo.u32 %s, %%lane, %u, %s", a, w, pv->scr);
	}
	px_ins(p, "bar.warp.sync %s", px_members(p));
	for (uint32_t s = 0; s < SLOTS(v->ty.n); s++)
		px_ins(p, "st.shared.b%u [%s+%u], %s", w * 8, a, pv->slm + s * slot * w,
		       regs[s]);
	px_ins(p, "bar.warp.sync %s", px_members(p));
	px_comment(p, "layout: %%%u also in SLM scratch at %u: %u st.shared", v->id, pv->slm,
	           SLOTS(v->ty.n));
}

/* A 16-byte group of a copy, loaded once per block: its elements'
 * registers. */
typedef struct PxGroup {
	const Inst *v;
	uint32_t first, per;  /* element index of regs[0]; elements loaded */
	const Block *blk;
	const char *regs[8];
	struct PxGroup *next;
} PxGroup;

void px_slm_extract(Px *p, const Inst *i, const Inst *v, uint32_t k, const char *d)
{
	if (p->val[v->id].slm_pitch)
		die("%%%u's SLM copy is padded for columns, not for extracts", v->id);
	Elem e = v->ty.elem;
	uint32_t w = px_slm_width(e), per = p->val[i->id].grouped ? 16 / w : 1;
	uint32_t first = k / per * per;
	PxGroup *g = p->groups;
	while (g && !(g->v == v && g->first == first && g->per == per && g->blk == i->block))
		g = g->next;
	if (!g) {
		g = NEW(p->arena, PxGroup);
		*g = (PxGroup){v, first, per, i->block, {0}, p->groups};
		p->groups = g;
		const PxVal *pv = &p->val[v->id];
		const char *base = read_base(p, v);
		Buf r = {0};
		for (uint32_t j = 0; j < per; j++) {
			g->regs[j] = px_tmp(p, px_class(e));
			buf_printf(&r, "%s%s", j ? ", " : "", g->regs[j]);
		}
		/* 8- and 16-bit elements: one b32 or b16 register each, 16 / w
		 * of them; ld.shared.v8 does not exist, so b16 goes as v4 twice */
		if (per == 1) {
			px_ins(p, "ld.shared.b%u %s, [%s+%u]", w * 8, g->regs[0], base,
			       pv->slm + first * w);
		} else if (per == 8) {
			px_ins(p, "ld.shared.v4.b16 {%s, %s, %s, %s}, [%s+%u]", g->regs[0], g->regs[1],
			       g->regs[2], g->regs[3], base, pv->slm + first * w);
			px_ins(p, "ld.shared.v4.b16 {%s, %s, %s, %s}, [%s+%u]", g->regs[4], g->regs[5],
			       g->regs[6], g->regs[7], base, pv->slm + first * w + 8);
		} else {
			px_ins(p, "ld.shared.v%u.b%u {%s}, [%s+%u]", per, w * 8, buf_cstr(&r), base,
			       pv->slm + first * w);
		}
		buf_free(&r);
		p->nlds++;
	}
	px_ins(p, "mov.b%u %s, %s", w * 8, d, g->regs[k - first]);
}

/* d = element pos (a b32 register, per lane) of v's scratch copy; 0 when
 * pos is outside v. */
void px_slm_load(Px *p, const Inst *v, const char *d, const char *pos)
{
	Elem e = v->ty.elem;
	uint32_t w = px_slm_width(e);
	const char *a = px_tmp(p, RC_B32), *q = px_tmp(p, RC_PRED);
	const char *base = read_base(p, v);
	uint32_t pitch = p->val[v->id].slm_pitch;
	px_ins(p, "setp.lt.u32 %s, %s, %u", q, pos, v->ty.n);
	if (pitch) {
		const char *t = px_tmp(p, RC_B32);
		px_ins(p, "shr.u32 %s, %s, %u", t, pos, ilog2(pitch));
		px_ins(p, "add.u32 %s, %s, %s", t, t, pos);
		pos = t;
	}
	px_ins(p, "mad.lo.u32 %s, %s, %u, %s", a, pos, w, base);
	px_ins(p, "mov.b%u %s, 0", w * 8, d);
	px_ins(p, "@%s ld.shared.b%u %s, [%s+%u]", q, w * 8, d, a, p->val[v->id].slm);
	p->nlds++;
}

/* The loaded elements of a group of runtime-offset extracts (rlead). */
typedef struct PxRGroup {
	const Inst *lead;
	const char *regs[64];  /* element rkmin + k of the group, NULL: not read */
	struct PxRGroup *next;
} PxRGroup;

/* The out-of-line path of group g: each element checked, 0 outside. */
static void extracts_checked(Px *p, PxRGroup *g, const char *t, const char *a,
                             const char *slow, const char *done)
{
	const Inst *v = g->lead->ops[0];
	const PxVal *pl = &p->val[g->lead->id];
	uint32_t w = px_slm_width(v->ty.elem), span = (uint32_t)(pl->rkmax - pl->rkmin);
	buf_printf(&p->body, "%s:\n", done);
	px_cold_begin(p, slow);
	for (uint32_t k = 0; k <= span; k++) {
		if (!g->regs[k])
			continue;
		const char *q = px_tmp(p, RC_PRED), *pos = px_tmp(p, RC_B32);
		px_ins(p, "add.u32 %s, %s, %u", pos, t, k);
		px_ins(p, "setp.lt.u32 %s, %s, %u", q, pos, v->ty.n);
		px_ins(p, "mov.b%u %s, 0", w * 8, g->regs[k]);
		px_ins(p, "@%s ld.shared.b%u %s, [%s+%u]", q, w * 8, g->regs[k], a,
		       p->val[v->id].slm + k * w);
	}
	px_cold_end(p, done);
}

/* Loads every element a group reads, at its lead: t = roff + rkmin and
 * element rkmin + k at t + k.  When all of them are inside the copy (one
 * unsigned compare of t) the loads need no check, and 16 bytes go at once
 * where t keeps them aligned; else (out of line) each load is checked and
 * reads 0 outside. */
static PxRGroup *rgroup_load(Px *p, const Inst *lead)
{
	const Inst *v = lead->ops[0];
	const PxVal *pl = &p->val[lead->id];
	if (p->val[v->id].slm_pitch)
		die("%%%u's SLM copy is padded for columns, not for extracts", v->id);
	Elem e = v->ty.elem;
	uint32_t w = px_slm_width(e), span = (uint32_t)(pl->rkmax - pl->rkmin), n = v->ty.n;
	PxRGroup *g = NEW(p->arena, PxRGroup);
	g->lead = lead;
	for (Inst *j = (Inst *)lead; j; j = j->next)
		if (p->val[j->id].rlead == lead && !g->regs[j->rg.offset - pl->rkmin])
			g->regs[j->rg.offset - pl->rkmin] = px_tmp(p, px_class(e));
	const char *t = px_tmp(p, RC_B32), *a = px_tmp(p, RC_B32), *in = px_tmp(p, RC_PRED);
	const char *slow = px_label(p), *done = px_label(p);
	px_ins(p, "add.s32 %s, %s, %d", t, px_reg(p, ir_roff(lead), 0), pl->rkmin);
	px_ins(p, "mad.lo.u32 %s, %s, %u, %s", a, t, w, read_base(p, v));
	uint32_t vec = px_slm_vec(e);
	bool aligned = vec > 1 && p->scratch % 16 == 0 && p->val[v->id].slm % 16 == 0;
	/* in a versioned loop's copy its test found t inside and aligned
	 * (vloop.c, which assumes the copy 16-byte aligned) */
	bool unchecked = px_unchecked(p, lead) && (aligned || vec == 1);
	if (unchecked) {
		px_comment(p, "range and alignment of the extracts below checked before the loop");
	} else if (span < n) {
		px_ins(p, "setp.lt.u32 %s, %s, %u", in, t, n - span);
		if (aligned) {
			const char *r = px_tmp(p, RC_B32);
			px_ins(p, "and.b32 %s, %s, %u", r, t, vec - 1);
			px_ins(p, "setp.eq.and.u32 %s, %s, 0, %s", in, r, in);
		}
	} else {
		px_ins(p, "setp.ne.u32 %s, 0, 0", in);
	}
	if (!unchecked)
		px_ins(p, "@!%s bra%s %s", in, px_uni(p), slow);
	for (uint32_t k = 0; k <= span; k++) {
		if (!g->regs[k])
			continue;
		uint32_t at = p->val[v->id].slm + k * w;
		if (aligned && k % vec == 0 && k + vec - 1 <= span) {
			Buf r = {0};
			for (uint32_t j = 0; j < vec; j++) {
				if (!g->regs[k + j])
					g->regs[k + j] = px_tmp(p, px_class(e));
				buf_printf(&r, "%s%s", j ? ", " : "", g->regs[k + j]);
			}
			px_ins(p, "ld.shared.v%u.b%u {%s}, [%s+%u]", vec, w * 8, buf_cstr(&r), a, at);
			buf_free(&r);
			k += vec - 1;
		} else {
			px_ins(p, "ld.shared.b%u %s, [%s+%u]", w * 8, g->regs[k], a, at);
		}
		p->nlds++;
	}
	if (!unchecked)
		extracts_checked(p, g, t, a, slow, done);
	px_comment(p, "layout: %u runtime-offset extracts of %%%u's SLM copy loaded together",
	           span + 1, v->id);
	g->next = p->rgroups;
	p->rgroups = g;
	return g;
}

void px_slm_rextract(Px *p, const Inst *i, const char *d)
{
	const Inst *lead = p->val[i->id].rlead;
	PxRGroup *g = p->rgroups;
	while (g && g->lead != lead)
		g = g->next;
	if (!g)
		g = rgroup_load(p, lead);
	Elem e = i->ty.elem;
	px_ins(p, "mov.b%u %s, %s", px_slm_width(e) * 8, d,
	       g->regs[i->rg.offset - p->val[lead->id].rkmin]);
}
