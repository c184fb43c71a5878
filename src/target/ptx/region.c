/* region.c — rdregion, wrregion and iselect, layout conversions.
 *
 * requires: layouts assigned (assign.c).  A constant rdregion in place
 * (its result takes the pullback of its source's layout) is a rename of
 * the source's registers; otherwise a region is a conversion plan
 * (layout.c) between the two layouts, emitted by px_emit_plan.  What
 * follows describes that plan for canonical layouts.
 *
 * A region moves element e of one value to element k of another.  In the
 * canonical layout that is lane e % 32 of slot e / 32 to lane k % 32 of
 * slot k / 32.  For a constant region the map is known per lane, so for
 * each output slot the lanes are grouped by the source slot they need, and
 * each group costs:
 *   nothing   when every lane reads its own lane (register renaming),
 *   1 shfl    otherwise: .down/.up when the lane distance is constant,
 *             .bfly when lane ^ source is constant, else .idx with the
 *             source lane computed (a*lane + b when affine, or the region
 *             formula evaluated per lane),
 * plus one selp per group after the first (or per group when old values
 * must be kept, in wrregion).  So there is at most one shuffle per (output
 * slot, source slot) pair.  Runtime offsets and iselect evaluate the
 * source position per lane and shuffle from every candidate source slot.
 * Every region gets a comment with its cost.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "target/ptx/ptx.h"

void px_shfl(Px *p, const char *mode, RegClass c, const char *d, const char *s,
             const char *b)
{
	const char *clamp = px_shfl_clamp(p, !strcmp(mode, "up")), *mm = px_sync_members(p);
	const char *t, *lo, *hi;
	switch (c) {
	case RC_B32:
	case RC_F32:
		px_ins(p, "shfl.sync.%s.b32 %s, %s, %s, %s, %s", mode, d, s, b, clamp, mm);
		p->nshfl++;
		return;
	case RC_B64:
	case RC_F64:
		lo = px_tmp(p, RC_B32), hi = px_tmp(p, RC_B32);
		px_ins(p, "mov.b64 {%s, %s}, %s", lo, hi, s);
		px_ins(p, "shfl.sync.%s.b32 %s, %s, %s, %s, %s", mode, lo, lo, b, clamp, mm);
		px_ins(p, "shfl.sync.%s.b32 %s, %s, %s, %s, %s", mode, hi, hi, b, clamp, mm);
		px_ins(p, "mov.b64 %s, {%s, %s}", d, lo, hi);
		p->nshfl += 2;
		return;
	case RC_B16:
		t = px_tmp(p, RC_B32);
		px_ins(p, "cvt.u32.u16 %s, %s", t, s);
		px_ins(p, "shfl.sync.%s.b32 %s, %s, %s, %s, %s", mode, t, t, b, clamp, mm);
		px_ins(p, "cvt.u16.u32 %s, %s", d, t);
		p->nshfl++;
		return;
	case RC_PRED:
		t = px_tmp(p, RC_B32);
		px_ins(p, "selp.u32 %s, 1, 0, %s", t, s);
		px_ins(p, "shfl.sync.%s.b32 %s, %s, %s, %s, %s", mode, t, t, b, clamp, mm);
		px_ins(p, "setp.ne.u32 %s, %s, 0", d, t);
		p->nshfl++;
		return;
	default:
		die("bad register class");
	}
}

static void mov(Px *p, RegClass c, Elem e, const char *d, const char *s)
{
	(void)c;
	px_ins(p, "mov.%s %s, %s", px_bits(e), d, s);
}

static void selp(Px *p, Elem e, const char *d, const char *a, const char *b, const char *q)
{
	if (e == E_I1) {
		const char *na = px_tmp(p, RC_PRED);
		/* d = q ? a : b  on predicates */
		px_ins(p, "and.pred %s, %s, %s", na, q, a);
		const char *nb = px_tmp(p, RC_PRED);
		px_ins(p, "not.pred %s, %s", nb, q);
		px_ins(p, "and.pred %s, %s, %s", nb, nb, b);
		px_ins(p, "or.pred %s, %s, %s", d, na, nb);
	} else {
		px_ins(p, "selp.%s %s, %s, %s, %s", px_bits(e), d, a, b, q);
	}
	p->nselp++;
}

/* A zero of e's class. */
static const char *zero_of(Elem e)
{
	switch (px_class(e)) {
	case RC_F32: return "0f00000000";
	case RC_F64: return "0d0000000000000000";
	case RC_B16: return "0x0000";
	default: return "0";
	}
}

/* Emits into register d (b32) the region formula for output element
 * k = base + lane, without the constant offset. */
static void rg_formula(Px *p, IrRegion rg, uint32_t base, const char *d)
{
	const char *k = px_tmp(p, RC_B32);
	px_ins(p, "add.u32 %s, %%lane, %u", k, base);
	int w = rg.width > 0 ? rg.width : 1;
	const char *q = px_tmp(p, RC_B32), *r = px_tmp(p, RC_B32);
	px_udivc(p, q, k, (uint32_t)w, false);
	px_udivc(p, r, k, (uint32_t)w, true);
	px_ins(p, "mul.lo.s32 %s, %s, %d", q, q, rg.vstride);
	px_ins(p, "mad.lo.s32 %s, %s, %d, %s", d, r, rg.hstride, q);
}

/* The source lane of move m for each lane, as a register: the shuffle's
 * own operand when it has one, else computed. */
static const char *move_srclane(Px *p, const LMove *m)
{
	const char *t = px_tmp(p, RC_B32);
	switch (m->kind) {
	case LM_FREE: return "%lane";
	case LM_DOWN: px_ins(p, "add.s32 %s, %%lane, %d", t, m->b); return t;
	case LM_UP: px_ins(p, "add.s32 %s, %%lane, %d", t, -m->b); return t;
	case LM_BFLY: px_ins(p, "xor.b32 %s, %%lane, %d", t, m->b); return t;
	default: die("move_srclane: an index move keeps its lane register");
	}
}

/* One move of a plan: register s's lanes m->src into d.  rg (canonical
 * layouts only): a general index is computed by the region's formula for
 * destination register dreg; else it is loaded from a lane table.
 * *srclane (when asked) gets the source lane of each lane. */
static void emit_move(Px *p, Elem e, const char *d, const char *s, const LMove *m,
                      const IrRegion *rg, uint32_t dreg, const char **srclane)
{
	RegClass c = px_class(e);
	const char *t;
	switch (m->kind) {
	case LM_FREE:
		mov(p, c, e, d, s);
		break;
	case LM_DOWN:
	case LM_UP:
	case LM_BFLY:
		px_shfl(p, m->kind == LM_DOWN ? "down" : m->kind == LM_UP ? "up" : "bfly", c, d, s,
		        arena_printf(p->arena, "%d", m->b));
		break;
	default:
		t = px_tmp(p, RC_B32);
		if (m->kind == LM_AFFINE) {
			px_ins(p, "mad.lo.s32 %s, %%lane, %d, %d", t, m->a, m->b);
		} else if (rg) {
			rg_formula(p, *rg, dreg * 32, t);
			px_ins(p, "add.s32 %s, %s, %d", t, t, rg->offset - (int32_t)m->sreg * 32);
			px_ins(p, "and.b32 %s, %s, 31", t, t);
		} else {
			const char *name = arena_printf(p->arena, "%s_lanes%u", p->f->name, p->ntab++);
			buf_printf(p->globals, ".global .align 4 .b8 %s[32] = {", name);
			for (int l = 0; l < 32; l++)
				buf_printf(p->globals, "%s%d", l ? ", " : "",
				           m->lanes >> l & 1 ? m->src[l] : 0);
			buf_puts(p->globals, "};\n");
			const char *a = px_tmp(p, RC_B64), *o = px_tmp(p, RC_B64);
			px_ins(p, "mov.u64 %s, %s", a, name);
			px_ins(p, "cvt.u64.u32 %s, %%lane", o);
			px_ins(p, "add.u64 %s, %s, %s", a, a, o);
			px_ins(p, "ld.global.nc.u8 %s, [%s]", t, a);
		}
		px_shfl(p, "idx", c, d, s, t);
		if (srclane)
			*srclane = t;
		return;
	}
	if (srclane)
		*srclane = move_srclane(p, m);
}

/* The predicate "lane is in the constant set bits": one compare for a
 * range that starts at lane 0 or ends at lane 31, else a bit test. */
static const char *lanes_pred(Px *p, uint32_t bits)
{
	const char *q = px_tmp(p, RC_PRED);
	if (bits && !(bits & (bits + 1))) {          /* lanes 0 .. k-1 */
		px_ins(p, "setp.lt.u32 %s, %%lane, %d", q, 32 - __builtin_clz(bits));
		return q;
	}
	if (bits && !((~bits) & ((~bits) + 1)) && (bits >> 31)) { /* lanes k .. 31 */
		px_ins(p, "setp.ge.u32 %s, %%lane, %d", q, __builtin_ctz(bits));
		return q;
	}
	const char *t = px_tmp(p, RC_B32);
	px_ins(p, "shr.b32 %s, %u, %%lane", t, bits);
	px_ins(p, "and.b32 %s, %s, 1", t, t);
	px_ins(p, "setp.ne.u32 %s, %s, 0", q, t);
	return q;
}

const char *px_lanes_pred(Px *p, uint32_t bits)
{
	return bits == 0xffffffffu ? NULL : lanes_pred(p, bits);
}

/* Lane tables (px_lane_elems), one per layout register: a media read in a
 * layout of its own finds its lane's element there. */
typedef struct PxLaneTab {
	const Layout *l;
	uint32_t s, valid;
	const char *reg;
	struct PxLaneTab *next;
} PxLaneTab;

const char *px_lane_elems(Px *p, const Layout *l, uint32_t s, uint32_t *valid)
{
	for (PxLaneTab *t = p->ltabs; t; t = t->next)
		if (t->s == s && lay_equal(t->l, l)) {
			*valid = t->valid;
			return t->reg;
		}
	const int32_t *el = lay_elems(p->arena, l);
	PxLaneTab *t = NEW(p->arena, PxLaneTab);
	*t = (PxLaneTab){l, s, 0, px_tmp(p, RC_B32), p->ltabs};
	p->ltabs = t;
	const char *name = arena_printf(p->arena, "%s_elems%u", p->f->name, p->ntab++);
	buf_printf(p->globals, ".global .align 4 .u32 %s[32] = {", name);
	for (int L = 0; L < 32; L++) {
		int32_t e = el[s * 32 + L];
		buf_printf(p->globals, "%s%d", L ? ", " : "", e < 0 ? 0 : e);
		if (e >= 0)
			t->valid |= 1u << L;
	}
	buf_puts(p->globals, "};\n");
	px_entry_swap(p);
	const char *a = px_tmp(p, RC_B64);
	px_ins(p, "mov.u64 %s, %s", a, name);
	px_ins(p, "mad.wide.u32 %s, %%lane, 4, %s", a, a);
	px_ins(p, "ld.global.nc.u32 %s, [%s]", t->reg, a);
	px_entry_swap(p);
	*valid = t->valid;
	return t->reg;
}

/* The register of shared rotation k of plan pl (emitted on first use). */
static const char *shared(Px *p, Elem e, const char *const *s, const LPlan *pl, uint32_t k,
                          const char **done)
{
	if (!done[k]) {
		const char *t = px_tmp(p, RC_B32), *r = px_tmp(p, px_class(e));
		px_ins(p, "add.u32 %s, %%lane, %d", t, pl->shares[k].rot);
		px_shfl(p, "idx", px_class(e), r, s[pl->shares[k].sreg], t);
		done[k] = r;
	}
	return done[k];
}

void px_emit_plan(Px *p, Elem e, const char *const *d, const char *const *s,
                  const LPlan *pl, bool keep, const IrRegion *rg)
{
	const char **done = NEWN(p->arena, const char *, pl->nshares + 1);
	for (uint32_t r = 0; r < pl->nregs; r++) {
		const LRegPlan *rp = &pl->r[r];
		bool placed = keep;
		for (uint32_t k = 0; k < rp->nmoves; k++) {
			const LMove *m = &rp->m[k];
			if (m->share >= 0) {
				/* shfl.idx takes the lane modulo 32 (its low five bits) */
				const char *t = shared(p, e, s, pl, (uint32_t)m->share, done);
				if (!placed || m->lanes == rp->valid)
					mov(p, px_class(e), e, d[r], t);
				else
					selp(p, e, d[r], t, d[r], lanes_pred(p, m->lanes));
				placed = true;
				continue;
			}
			if (!placed || m->lanes == rp->valid) {
				emit_move(p, e, d[r], s[m->sreg], m, rg, r, NULL);
				placed = true;
				continue;
			}
			const char *t = px_tmp(p, px_class(e));
			emit_move(p, e, t, s[m->sreg], m, rg, r, NULL);
			selp(p, e, d[r], t, d[r], lanes_pred(p, m->lanes));
		}
		if (!placed)            /* only padding: a defined value */
			mov(p, px_class(e), e, d[r], zero_of(e));
	}
}

/* The register names of v in layout l (own or a copy). */
static const char **regs_in(Px *p, const Inst *v, const Layout *l)
{
	const char **r = NEWN(p->arena, const char *, l->nregs ? l->nregs : 1);
	for (uint32_t k = 0; k < l->nregs; k++)
		r[k] = px_reg_in(p, v, l, k);
	return r;
}

/* Whether l is lay_runs(n, cols, k) of two rows or more, for k of 2 or
 * 4; *cols, *k. */
static bool runs_of(const Layout *l, uint32_t *cols, uint32_t *k)
{
	for (*k = 2; *k <= 4; *k *= 2) {
		if (l->nregs < 2 * *k || l->nregs % *k || l->n % (l->nregs / *k))
			continue;	/* two rows at least: an mma fragment is not one */
		*cols = l->n / (l->nregs / *k);
		bool ok = *cols % *k == 0 && *cols / *k <= 32;
		for (uint32_t e = 0; ok && e < l->n; e++) {
			uint32_t r = e / *cols, c = e % *cols;
			ok = l->pos[e] == (r * *k + c % *k) * 32 + c / *k;
		}
		if (ok)
			return true;
	}
	return false;
}

/* A short description of layout l for the -S notes. */
static const char *lay_text(Px *p, const Layout *l)
{
	uint32_t cols, k;
	if (l->canon)
		return "canonical";
	if (runs_of(l, &cols, &k))
		return arena_printf(p->arena, "%u regs, runs of %u of rows of %u", l->nregs, k, cols);
	int64_t a = l->n > 1 ? (int64_t)l->pos[1] - l->pos[0] : 1, b = l->pos[0];
	for (uint32_t e = 0; e < l->n; e++)
		if ((int64_t)l->pos[e] != a * e + b)
			return arena_printf(p->arena, "%u regs, by table", l->nregs);
	return arena_printf(p->arena, "%u regs, element e at %lld*e%+lld", l->nregs,
	                    (long long)a, (long long)b);
}

/* Copy k of v: its registers in layout copy[k], from its own. */
static void emit_copy(Px *p, const Inst *v, uint32_t k)
{
	const PxVal *pv = &p->val[v->id];
	const Layout *l = pv->copy[k];
	const char **d = regs_in(p, v, l);
	if (v->op == Oconst && ir_const_is_splat(v)) {
		for (uint32_t r = 0; r < l->nregs; r++)
			mov(p, px_class(v->ty.elem), v->ty.elem, d[r], px_own(p, v, 0));
		return;
	}
	uint32_t s0 = p->nshfl, l0 = p->nselp;
	LPlan *pl = lay_plan(p->tmp, l, pv->lay, NULL);
	px_emit_plan(p, v->ty.elem, d, regs_in(p, v, pv->lay), pl, false, NULL);
	px_comment(p, "layout: %%%u (%s) as %s: %u shfl + %u selp%s", v->id,
	           lay_text(p, pv->lay), lay_text(p, l), p->nshfl - s0, p->nselp - l0,
	           pv->copy_at && pv->copy_at[k] ? " (sunk to its readers' block)" : "");
}

void px_emit_copies(Px *p, const Inst *v)
{
	const PxVal *pv = v->ty.n > 1 && p->val ? &p->val[v->id] : NULL;
	if (pv && pv->lay && !pv->lay->canon)
		px_comment(p, "layout: %%%u in %s%s", v->id, lay_text(p, pv->lay),
		           pv->srcregs ? " (the source's registers)" : "");
	for (uint32_t k = 0; pv && k < pv->ncopies; k++)
		if (!pv->copy_at || !pv->copy_at[k])
			emit_copy(p, v, k);
	if (pv && pv->in_slm && pv->store_after)
		px_slm_store(p, v);
}

void px_emit_sunk_copies(Px *p, const Block *b)
{
	for (PxSunk *s = p->sunk ? p->sunk[b->id] : NULL; s; s = s->next)
		emit_copy(p, s->v, s->k);
}

static void annotate(Px *p, const Inst *i, uint32_t shfl0, uint32_t selp0, uint32_t lds0)
{
	uint32_t ns = p->nshfl - shfl0, nl = p->nselp - selp0, nd = p->nlds - lds0;
	const char *what = i->op == Ordregion ? "rdregion" : i->op == Owrregion ? "wrregion"
	                 : "iselect";
	char rg[64] = "";
	if (i->op != Oiselect)
		snprintf(rg, sizeof rg, " <%d;%d,%d>,%d%s", i->rg.vstride, i->rg.width,
		         i->rg.hstride, i->rg.offset, i->has_roff ? "+r" : "");
	if (nd)
		px_comment(p, "%s%s: %u ld.shared (SLM copy)", what, rg, nd);
	else if (!ns && !nl)
		px_comment(p, "%s%s: free", what, rg);
	else if (!nl)
		px_comment(p, "%s%s: %u shfl", what, rg, ns);
	else if (!ns)
		px_comment(p, "%s%s: %u selp", what, rg, nl);
	else
		px_comment(p, "%s%s: %u shfl + %u selp", what, rg, ns, nl);
}

/* The layout a vector value lives in (assign.c). */
static const Layout *lay_of(Px *p, const Inst *v)
{
	return p->val[v->id].lay;
}

/* A constant rdregion: in place (assign.c gave the result the pullback of
 * its source's layout: each register is a source register, renamed), or
 * moved by a plan from the source's layout into the result's. */
static void rd_const(Px *p, Inst *i)
{
	Inst *src = i->ops[0];
	const PxVal *pv = &p->val[i->id];
	const Layout *sl = lay_of(p, src), *dl = lay_of(p, i);
	const char **s = regs_in(p, src, sl);
	if (pv->srcregs) {
		for (uint32_t r = 0; r < dl->nregs; r++)
			mov(p, px_class(i->ty.elem), i->ty.elem, px_own(p, i, r), s[pv->srcregs[r]]);
		return;
	}
	int32_t *map = NEWN(p->tmp, int32_t, i->ty.n);
	for (uint32_t k = 0; k < i->ty.n; k++)
		map[k] = (int32_t)lay_region_index(i->rg, k);
	px_emit_plan(p, i->ty.elem, regs_in(p, i, dl), s, lay_plan(p->tmp, dl, sl, map), false,
	             sl->canon && dl->canon ? &i->rg : NULL);
}

/* Element e (register pos, per lane) of src into d: one shuffle per source
 * slot, selected by pos / 32; positions outside src give 0. */
static void gather_lanes(Px *p, const Inst *src, Elem e, const char *d, const char *pos)
{
	uint32_t nss = SLOTS(src->ty.n);
	const char *ln = px_tmp(p, RC_B32), *sn = px_tmp(p, RC_B32);
	px_ins(p, "and.b32 %s, %s, 31", ln, pos);
	px_ins(p, "shr.u32 %s, %s, 5", sn, pos);
	for (uint32_t ss = 0; ss < nss; ss++) {
		if (src->ty.n == 1) {
			mov(p, px_class(e), e, d, px_reg(p, src, 0));
			break;
		}
		if (!ss) {
			px_shfl(p, "idx", px_class(e), d, px_reg(p, src, ss), ln);
			continue;
		}
		const char *t = px_tmp(p, px_class(e)), *q = px_tmp(p, RC_PRED);
		px_shfl(p, "idx", px_class(e), t, px_reg(p, src, ss), ln);
		px_ins(p, "setp.eq.u32 %s, %s, %u", q, sn, ss);
		selp(p, e, d, t, d, q);
	}
	const char *oob = px_tmp(p, RC_PRED);
	px_ins(p, "setp.ge.u32 %s, %s, %u", oob, pos, src->ty.n);
	if (e == E_I1) {
		px_ins(p, "not.pred %s, %s", oob, oob);
		px_ins(p, "and.pred %s, %s, %s", d, d, oob);
	} else {
		px_ins(p, "selp.%s %s, %s, %s, %s", px_bits(e), d, zero_of(e), d, oob);
	}
}

/* Like gather_lanes when the source slots of all lanes lie in the uniform
 * window q0 .. q0 + nc - 1: the register of each window slot is picked
 * with selects (the index is uniform), so only nc shuffles are needed. */
static void gather_window(Px *p, const Inst *src, Elem e, const char *d, const char *pos,
                          const char *q0, uint32_t nc)
{
	RegClass c = px_class(e);
	const char *ln = px_tmp(p, RC_B32), *sn = px_tmp(p, RC_B32);
	px_ins(p, "and.b32 %s, %s, 31", ln, pos);
	px_ins(p, "shr.s32 %s, %s, 5", sn, pos);
	for (uint32_t j = 0; j < nc; j++) {
		const char *sj = px_tmp(p, RC_B32), *v = px_tmp(p, c), *q = px_tmp(p, RC_PRED);
		px_ins(p, "add.s32 %s, %s, %u", sj, q0, j);
		px_ins(p, "mov.%s %s, %s", px_bits(e), v, px_reg(p, src, 0));
		for (uint32_t s = 1; s < SLOTS(src->ty.n); s++) {
			px_ins(p, "setp.eq.s32 %s, %s, %u", q, sj, s);
			selp(p, e, v, px_reg(p, src, s), v, q);
		}
		if (!j) {
			px_shfl(p, "idx", c, d, v, ln);
			continue;
		}
		const char *t = px_tmp(p, c);
		px_shfl(p, "idx", c, t, v, ln);
		px_ins(p, "setp.eq.s32 %s, %s, %s", q, sn, sj);
		selp(p, e, d, t, d, q);
	}
	const char *oob = px_tmp(p, RC_PRED);
	px_ins(p, "setp.ge.u32 %s, %s, %u", oob, pos, src->ty.n);
	if (e == E_I1) {
		px_ins(p, "not.pred %s, %s", oob, oob);
		px_ins(p, "and.pred %s, %s, %s", d, d, oob);
	} else {
		px_ins(p, "selp.%s %s, %s, %s, %s", px_bits(e), d, zero_of(e), d, oob);
	}
}

static bool rdregion(Px *p, Inst *i)
{
	Inst *src = i->ops[0], *roff = ir_roff(i);
	Elem e = i->ty.elem;
	if (src->ty.n == 1) {
		for (uint32_t ds = 0; ds < SLOTS(i->ty.n); ds++)
			mov(p, px_class(e), e, px_reg(p, i, ds), px_reg(p, src, 0));
		return true;
	}
	if (roff && p->val[i->id].rlead) {
		px_slm_rextract(p, i, px_reg(p, i, 0));
		return true;
	}
	if (!roff && i->ty.n == 1 && p->val[src->id].in_slm) {
		px_slm_extract(p, i, src, (uint32_t)lay_region_index(i->rg, 0), px_reg(p, i, 0));
		return true;
	}
	if (!roff && i->ty.n == 1) {
		/* one element, read where the source's layout keeps it */
		uint32_t x = lay_of(p, src)->pos[lay_region_index(i->rg, 0)];
		px_shfl(p, "idx", px_class(e), px_reg(p, i, 0), px_own(p, src, x / 32),
		        arena_printf(p->arena, "%u", x % 32));
		return true;
	}
	if (!roff && p->val[i->id].slm_rd && p->val[src->id].in_slm) {
		/* a gather from many registers: one load per register from the
		 * source's SLM copy (assign.c costly_region) */
		for (uint32_t ds = 0; ds < SLOTS(i->ty.n); ds++) {
			const char *pos = px_tmp(p, RC_B32);
			rg_formula(p, i->rg, ds * 32, pos);
			px_ins(p, "add.s32 %s, %s, %d", pos, pos, i->rg.offset);
			px_slm_load(p, src, px_reg(p, i, ds), pos);
		}
		px_comment(p, "rdregion <%d;%d,%d>,%d: %u ld.shared (SLM copy)", i->rg.vstride,
		           i->rg.width, i->rg.hstride, i->rg.offset, SLOTS(i->ty.n));
		return true;
	}
	if (!roff) {
		rd_const(p, i);
		return true;
	}
	for (uint32_t ds = 0; ds < SLOTS(i->ty.n); ds++) {
		const char *pos = px_tmp(p, RC_B32);
		if (i->ty.n == 1)
			px_ins(p, "mov.u32 %s, 0", pos);
		else
			rg_formula(p, i->rg, ds * 32, pos);
		px_ins(p, "add.s32 %s, %s, %d", pos, pos, i->rg.offset);
		px_ins(p, "add.s32 %s, %s, %s", pos, pos, px_reg(p, roff, 0));
		if (p->val[src->id].in_slm) {
			px_slm_load(p, src, px_reg(p, i, ds), pos);
			continue;
		}
		/* the positions of this slot span [lo, hi] + offset: only a few
		 * source slots can be involved */
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		uint32_t cnt = i->ty.n - ds * 32 < 32 ? i->ty.n - ds * 32 : 32;
		for (uint32_t l = 0; l < cnt; l++) {
			int64_t x = lay_region_index(i->rg, ds * 32 + l) - i->rg.offset;
			lo = x < lo ? x : lo, hi = x > hi ? x : hi;
		}
		uint32_t nc = (uint32_t)((hi - lo) / 32) + 2;
		if (i->ty.n == 1)
			nc = 1;
		if (nc >= SLOTS(src->ty.n)) {
			gather_lanes(p, src, e, px_reg(p, i, ds), pos);
			continue;
		}
		const char *q0 = px_tmp(p, RC_B32);
		px_ins(p, "add.s32 %s, %s, %d", q0, px_reg(p, roff, 0), (int)lo + i->rg.offset);
		px_ins(p, "shr.s32 %s, %s, 5", q0, q0);
		gather_window(p, src, e, px_reg(p, i, ds), pos, q0, nc);
	}
	return true;
}

/* The write predicate of mask element k (lane kl of mask slot ks), as a
 * predicate register; ballots hold each mask slot's bits. */
static const char *mask_bit(Px *p, const char *const *ballot, uint32_t ks, const char *kl)
{
	const char *t = px_tmp(p, RC_B32), *q = px_tmp(p, RC_PRED);
	px_ins(p, "shr.b32 %s, %s, %s", t, ballot[ks], kl);
	px_ins(p, "and.b32 %s, %s, 1", t, t);
	px_ins(p, "setp.ne.u32 %s, %s, 0", q, t);
	return q;
}

static const char **ballots(Px *p, Inst *mask)
{
	if (!mask || mask->ty.n == 1)
		return NULL;
	uint32_t n = SLOTS(mask->ty.n);
	const char **b = NEWN(p->arena, const char *, n);
	for (uint32_t s = 0; s < n; s++) {
		b[s] = px_tmp(p, RC_B32);
		px_ballot(p, b[s], px_reg(p, mask, s));
	}
	return b;
}

/* Register r of a constant wrregion (in its destination's layout): lanes
 * written by new's elements take them by the moves of rp (new's registers
 * ns), the rest keep old.  A scalar new (ns[0]) is one move of the lanes
 * in rp->m[0].lanes.  A per-element mask is read with new in the
 * canonical layout (assign.c), so a move's source register and lane are
 * the mask element's ballot word and bit.  pl: the plan rp is part of,
 * whose shared rotations are in done (NULL for a scalar new). */
static void wr_reg(Px *p, Inst *i, uint32_t r, const LRegPlan *rp, const char *const *ns,
                   const char **bal, const LPlan *pl, const char **done)
{
	Inst *nw = i->ops[1], *mask = ir_mask(i);
	Elem e = i->ty.elem;
	const char *d = px_own(p, i, r);
	mov(p, px_class(e), e, d, px_own(p, i->ops[0], r));
	for (uint32_t k = 0; k < rp->nmoves; k++) {
		const LMove *m = &rp->m[k];
		const char *t = ns[0], *sl = "0";
		if (nw->ty.n > 1 && m->share >= 0) {
			t = shared(p, e, ns, pl, (uint32_t)m->share, done);
			if (mask && mask->ty.n > 1)
				sl = move_srclane(p, m);
		} else if (nw->ty.n > 1) {
			t = px_tmp(p, px_class(e));
			emit_move(p, e, t, ns[m->sreg], m, NULL, r, mask && mask->ty.n > 1 ? &sl : NULL);
		}
		const char *q = m->lanes == rp->valid ? NULL : lanes_pred(p, m->lanes);
		const char *mq = !mask ? NULL : mask->ty.n == 1 ? px_reg(p, mask, 0)
		               : mask_bit(p, bal, nw->ty.n > 1 ? m->sreg : 0, sl);
		if (q && mq)
			px_ins(p, "and.pred %s, %s, %s", q, q, mq);
		else if (mq)
			q = mq;
		if (q)
			selp(p, e, d, t, d, q);
		else
			mov(p, px_class(e), e, d, t);
	}
}

/* The moves of a constant wrregion: per register of the destination's
 * layout, new element inv[x] into the lane of destination element x. */
static void wr_const(Px *p, Inst *i, const int32_t *inv, const char **bal)
{
	Inst *nw = i->ops[1];
	const Layout *dl = lay_of(p, i);
	if (nw->ty.n > 1) {
		const Layout *rl = px_read_layout(p, i, 1);
		const char **ns = regs_in(p, nw, rl);
		LPlan *pl = lay_plan(p->tmp, dl, rl, inv);
		const char **done = NEWN(p->arena, const char *, pl->nshares + 1);
		for (uint32_t r = 0; r < dl->nregs; r++)
			wr_reg(p, i, r, &pl->r[r], ns, bal, pl, done);
		return;
	}
	const int32_t *de = lay_elems(p->arena, dl);
	const char *ns[1] = {px_reg(p, nw, 0)};
	for (uint32_t r = 0; r < dl->nregs; r++) {
		LMove m = {.kind = LM_FREE};
		LRegPlan rp = {.nmoves = 1, .m = &m};
		for (uint32_t l = 0; l < 32; l++) {
			int32_t x = de[r * 32 + l];
			if (x < 0)
				continue;
			rp.valid |= 1u << l;
			if (inv[x] >= 0)
				m.lanes |= 1u << l;
		}
		if (!m.lanes)
			rp.nmoves = 0;
		wr_reg(p, i, r, &rp, ns, bal, NULL, NULL);
	}
}

/* wrregion with a runtime offset: each output lane finds the element k of
 * new that lands on it by inverting the region (rows must not overlap). */
static bool wr_runtime(Px *p, Inst *i, const char **bal)
{
	Inst *old = i->ops[0], *nw = i->ops[1], *mask = ir_mask(i), *roff = ir_roff(i);
	Elem e = i->ty.elem;
	IrRegion rg = i->rg;
	int w = rg.width > 0 ? rg.width : 1, h = (int)(nw->ty.n / (uint32_t)w);
	int hs = rg.hstride > 0 ? rg.hstride : 1;
	if (h > 1 && (rg.vstride <= 0 || (w - 1) * rg.hstride >= rg.vstride))
		return px_unsupported(p, i, "a runtime-offset wrregion whose rows overlap");
	if (w > 1 && rg.hstride <= 0)
		return px_unsupported(p, i, "a runtime-offset wrregion with a zero stride");
	/* one row, unit stride, new in one slot: the source lane is
	 * (lane - offset) % 32 for every output slot, so one shuffle serves
	 * them all */
	const char *shared = NULL;
	if (h == 1 && hs == 1 && SLOTS(nw->ty.n) == 1 && nw->ty.n > 1) {
		const char *ln = px_tmp(p, RC_B32);
		px_ins(p, "sub.s32 %s, %%lane, %s", ln, px_reg(p, roff, 0));
		px_ins(p, "sub.s32 %s, %s, %d", ln, ln, rg.offset);
		px_ins(p, "and.b32 %s, %s, 31", ln, ln);
		shared = px_tmp(p, px_class(e));
		px_shfl(p, "idx", px_class(e), shared, px_reg(p, nw, 0), ln);
	}
	for (uint32_t ds = 0; ds < SLOTS(i->ty.n); ds++) {
		const char *d = px_reg(p, i, ds);
		const char *x = px_tmp(p, RC_B32), *r = px_tmp(p, RC_B32), *j = px_tmp(p, RC_B32);
		const char *row = px_tmp(p, RC_B32), *k = px_tmp(p, RC_B32), *ok = px_tmp(p, RC_PRED);
		const char *q = px_tmp(p, RC_PRED);
		px_ins(p, "add.s32 %s, %%lane, %d", x, (int)(ds * 32) - rg.offset);
		px_ins(p, "sub.s32 %s, %s, %s", x, x, px_reg(p, roff, 0));
		px_ins(p, "setp.ge.s32 %s, %s, 0", ok, x);
		if (h > 1) {
			px_sdivc(p, row, x, rg.vstride, false);
			px_ins(p, "mul.lo.s32 %s, %s, %d", r, row, rg.vstride);
			px_ins(p, "sub.s32 %s, %s, %s", r, x, r);
			px_ins(p, "setp.lt.s32 %s, %s, %d", q, row, h);
			px_ins(p, "and.pred %s, %s, %s", ok, ok, q);
		} else {
			px_ins(p, "mov.u32 %s, 0", row);
			px_ins(p, "mov.u32 %s, %s", r, x);
		}
		px_sdivc(p, j, r, hs, true);
		px_ins(p, "setp.eq.s32 %s, %s, 0", q, j);
		px_ins(p, "and.pred %s, %s, %s", ok, ok, q);
		px_sdivc(p, j, r, hs, false);
		px_ins(p, "setp.lt.s32 %s, %s, %d", q, j, w);
		px_ins(p, "and.pred %s, %s, %s", ok, ok, q);
		px_ins(p, "setp.lt.u32 %s, %s, %u", q, px_lane(p), i->ty.n - ds * 32 < 32 ?
		       i->ty.n - ds * 32 : 32);
		px_ins(p, "and.pred %s, %s, %s", ok, ok, q);
		px_ins(p, "mad.lo.s32 %s, %s, %d, %s", k, row, w, j);
		const char *v = shared;
		if (!v) {
			v = px_tmp(p, px_class(e));
			gather_lanes(p, nw, e, v, k);
		}
		if (mask && mask->ty.n == 1) {
			px_ins(p, "and.pred %s, %s, %s", ok, ok, px_reg(p, mask, 0));
		} else if (mask) {
			const char *ln = px_tmp(p, RC_B32), *sn = px_tmp(p, RC_B32);
			const char *bits = px_tmp(p, RC_B32);
			px_ins(p, "and.b32 %s, %s, 31", ln, k);
			px_ins(p, "shr.u32 %s, %s, 5", sn, k);
			px_ins(p, "mov.b32 %s, %s", bits, bal[0]);
			for (uint32_t s = 1; s < SLOTS(mask->ty.n); s++) {
				px_ins(p, "setp.eq.u32 %s, %s, %u", q, sn, s);
				px_ins(p, "selp.b32 %s, %s, %s, %s", bits, bal[s], bits, q);
			}
			px_ins(p, "shr.b32 %s, %s, %s", bits, bits, ln);
			px_ins(p, "and.b32 %s, %s, 1", bits, bits);
			px_ins(p, "setp.ne.u32 %s, %s, 0", q, bits);
			px_ins(p, "and.pred %s, %s, %s", ok, ok, q);
		}
		selp(p, e, d, v, px_reg(p, old, ds), ok);
	}
	return true;
}

static bool wrregion(Px *p, Inst *i)
{
	Inst *nw = i->ops[1];
	const char **bal = ballots(p, ir_mask(i));
	if (ir_roff(i))
		return wr_runtime(p, i, bal);
	if (i->ty.n == 1) {
		/* a scalar destination: the region is element 0 */
		const char *v = nw->ty.n == 1 ? px_reg(p, nw, 0) : px_extract(p, nw, 0);
		Inst *mask = ir_mask(i);
		if (mask)
			selp(p, i->ty.elem, px_reg(p, i, 0), v, px_reg(p, i->ops[0], 0),
			     mask->ty.n == 1 ? px_reg(p, mask, 0) : px_extract(p, mask, 0));
		else
			mov(p, px_class(i->ty.elem), i->ty.elem, px_reg(p, i, 0), v);
		return true;
	}
	int32_t *inv = NEWN(p->arena, int32_t, i->ty.n);
	for (uint32_t x = 0; x < i->ty.n; x++)
		inv[x] = -1;
	uint32_t m = nw->ty.n == 1 && i->rg.width > 0 ? (uint32_t)i->rg.width : nw->ty.n;
	/* a scalar new value is splat over the region's width (one row) */
	for (uint32_t k = 0; k < m; k++) {
		int64_t x = lay_region_index(i->rg, k);
		if (x >= 0 && x < (int64_t)i->ty.n)
			inv[x] = (int32_t)k;
	}
	wr_const(p, i, inv, bal);
	return true;
}

const char *px_extract(Px *p, const Inst *v, uint32_t k)
{
	if (v->ty.n == 1)
		return px_reg(p, v, 0);
	const char *d = px_tmp(p, px_class(v->ty.elem));
	px_shfl(p, "idx", px_class(v->ty.elem), d, px_reg(p, v, k / 32),
	        arena_printf(p->arena, "%u", k % 32));
	return d;
}

static bool iselect(Px *p, Inst *i)
{
	Inst *src = i->ops[0], *idx = i->ops[1];
	for (uint32_t ds = 0; ds < SLOTS(i->ty.n); ds++) {
		const char *pos = px_reg(p, idx, ds);
		if (px_class(idx->ty.elem) == RC_B64) {
			const char *t = px_tmp(p, RC_B32);
			px_ins(p, "cvt.u32.u64 %s, %s", t, pos);
			pos = t;
		}
		if (p->val[src->id].in_slm)
			px_slm_load(p, src, px_reg(p, i, ds), pos);
		else
			gather_lanes(p, src, i->ty.elem, px_reg(p, i, ds), pos);
	}
	return true;
}

bool px_region(Px *p, Inst *i)
{
	uint32_t s0 = p->nshfl, l0 = p->nselp, d0 = p->nlds;
	bool ok = i->op == Ordregion ? rdregion(p, i) : i->op == Owrregion ? wrregion(p, i)
	        : iselect(p, i);
	if (ok)
		annotate(p, i, s0, l0, d0);
	return ok;
}

/* ---- bitcast ------------------------------------------------------------------ */

/* The raw bits of register r (type e) in a b32 or b64 register,
 * zero-extended. */
static const char *to_bits(Px *p, Elem e, const char *r, bool w64)
{
	const char *t = px_tmp(p, w64 ? RC_B64 : RC_B32);
	int b = ir_elem_bytes[e];
	switch (px_class(e)) {
	case RC_B16:
		if (w64) {
			const char *u = px_tmp(p, RC_B32);
			px_ins(p, "cvt.u32.u16 %s, %s", u, r);
			px_ins(p, "cvt.u64.u32 %s, %s", t, u);
		} else {
			px_ins(p, "cvt.u32.u16 %s, %s", t, r);
		}
		return t;
	case RC_B64:
	case RC_F64:
		px_ins(p, "mov.b64 %s, %s", t, r);
		return t;
	default:
		if (w64) {
			const char *u = px_tmp(p, RC_B32);
			px_ins(p, "mov.b32 %s, %s", u, r);
			if (b < 4)
				px_ins(p, "and.b32 %s, %s, %d", u, u, b == 1 ? 0xff : 0xffff);
			px_ins(p, "cvt.u64.u32 %s, %s", t, u);
		} else {
			px_ins(p, "mov.b32 %s, %s", t, r);
			if (b < 4)
				px_ins(p, "and.b32 %s, %s, %d", t, t, b == 1 ? 0xff : 0xffff);
		}
		return t;
	}
}

/* Register d of type e from the low bits of bits (b32 or b64). */
static void from_bits(Px *p, Elem e, const char *d, const char *bits, bool w64)
{
	switch (px_class(e)) {
	case RC_B16:
		if (w64) {
			const char *u = px_tmp(p, RC_B32);
			px_ins(p, "cvt.u32.u64 %s, %s", u, bits);
			bits = u;
		}
		px_ins(p, "cvt.u16.u32 %s, %s", d, bits);
		return;
	case RC_B64:
	case RC_F64:
		px_ins(p, "mov.b64 %s, %s", d, bits);
		return;
	default:
		if (w64 && px_class(e) == RC_F32) {
			/* cvt cannot write an f32 register */
			const char *u = px_tmp(p, RC_B32);
			px_ins(p, "cvt.u32.u64 %s, %s", u, bits);
			px_ins(p, "mov.b32 %s, %s", d, u);
		} else if (w64) {
			px_ins(p, "cvt.u32.u64 %s, %s", d, bits);
		} else {
			px_ins(p, "mov.b32 %s, %s", d, bits);
		}
		px_normalize(p, e, d);
	}
}

/* Same bytes, other element type: element k of the result takes bytes
 * [k * bd, (k + 1) * bd) of the source, gathered across lanes. */
static bool bitcast(Px *p, Inst *i)
{
	Inst *src = i->ops[0];
	Elem se = src->ty.elem, de = i->ty.elem;
	int bs = ir_elem_bytes[se], bd = ir_elem_bytes[de];
	if (se == E_I1 || de == E_I1)
		return px_unsupported(p, i, "bitcasts of masks");
	bool w64 = bs == 8 || bd == 8;
	for (uint32_t ds = 0; ds < SLOTS(i->ty.n); ds++) {
		const char *d = px_reg(p, i, ds);
		if (bs == bd) {
			from_bits(p, de, d, to_bits(p, se, px_reg(p, src, ds), w64), w64);
			continue;
		}
		const char *k = px_tmp(p, RC_B32);
		if (i->ty.n == 1)
			px_ins(p, "mov.u32 %s, 0", k);
		else
			px_ins(p, "add.u32 %s, %%lane, %u", k, ds * 32);
		if (bd < bs) {
			const char *pos = px_tmp(p, RC_B32), *sh = px_tmp(p, RC_B32);
			const char *v = px_tmp(p, px_class(se));
			px_ins(p, "mul.lo.u32 %s, %s, %d", sh, k, bd);
			px_udivc(p, pos, sh, (uint32_t)bs, false);
			px_udivc(p, sh, sh, (uint32_t)bs, true);
			px_ins(p, "shl.b32 %s, %s, 3", sh, sh);
			gather_lanes(p, src, se, v, pos);
			const char *b = to_bits(p, se, v, w64);
			px_ins(p, "shr.b%d %s, %s, %s", w64 ? 64 : 32, b, b, sh);
			from_bits(p, de, d, b, w64);
			continue;
		}
		const char *acc = px_tmp(p, w64 ? RC_B64 : RC_B32);
		px_ins(p, "mov.b%d %s, 0", w64 ? 64 : 32, acc);
		for (int j = 0; j < bd / bs; j++) {
			const char *pos = px_tmp(p, RC_B32), *v = px_tmp(p, px_class(se));
			px_ins(p, "mad.lo.u32 %s, %s, %d, %d", pos, k, bd / bs, j);
			gather_lanes(p, src, se, v, pos);
			const char *b = to_bits(p, se, v, w64);
			px_ins(p, "shl.b%d %s, %s, %d", w64 ? 64 : 32, b, b, j * bs * 8);
			px_ins(p, "or.b%d %s, %s, %s", w64 ? 64 : 32, acc, acc, b);
		}
		from_bits(p, de, d, acc, w64);
	}
	return true;
}

bool px_bitcast(Px *p, Inst *i)
{
	uint32_t s0 = p->nshfl;
	if (!bitcast(p, i))
		return false;
	px_comment(p, "bitcast %s -> %s: %u shfl", ir_elem_name[i->ops[0]->ty.elem],
	           ir_elem_name[i->ty.elem], p->nshfl - s0);
	return true;
}
