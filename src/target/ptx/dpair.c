/* dpair.c — two FP64 cm_dpas of one B tile as one m16n8k4.
 *
 * requires: layouts assigned (assign.c).
 * changes: sets PxVal.dpair on the first call of each pair (its partner)
 * and PxVal.skip on the partner; dpas.c emits both at the first.
 *
 * On sm_90 the 8-row FP64 shape runs at half the FP64 tensor rate: four
 * independent chains a warp, 528 warps, reached 33.0 TFLOP/s with
 * m8n8k4 and 65.8, 66.2, 66.4 with m16n8k4, m16n8k8, m16n8k16 (H200,
 * 2026-11-27).  A GEMM's k step multiplies each B tile by several A tiles
 * (bench/cm/hgemm.cm dgemm_dpas: four), and two calls of repeat 8 with
 * the same B value are one m16n8k4 with no data moved: its A rows 0..7
 * are the first call's fragment and rows 8..15 the second's, and so are
 * C's and D's.  The pair is emitted at the first call, so every register
 * the second reads must be written by then: each is traced back through
 * renames (in-place rdregions) and in-place wrregions (a matrix of tiles
 * updated one tile at a time) to a value defined before the first call.
 * The second's result registers are then written early, which nothing in
 * between reads (its users come after it).
 */
#include <string.h>

#include "target/ptx/ptx.h"

static bool is_vector(const Inst *v)
{
	return v && v->ty.elem != E_VOID && v->ty.n > 1;
}

/* Register r of v's own layout as register *rr of a value *dv defined
 * before instruction at (another block: one that dominates at's, as v
 * dominates its user in at's block). */
static bool ready_reg(Px *p, const Inst *at, const Inst *v, uint32_t r, const Inst **dv,
                      uint32_t *rr)
{
	for (int step = 0; step < 256; step++) {
		if (v->block != at->block || v->id < at->id) {
			*dv = v, *rr = r;
			return true;
		}
		const PxVal *pv = &p->val[v->id];
		if (v->op == Ordregion && pv->srcregs) {
			r = pv->srcregs[r];
			v = v->ops[0];
			continue;
		}
		if (v->op != Owrregion || ir_roff(v) || ir_mask(v) || !is_vector(v) ||
		    !lay_equal(pv->lay, p->val[v->ops[0]->id].lay))
			return false;
		/* in place: register r is the destination's unless written */
		const Layout *l = pv->lay;
		const Inst *w = v->ops[1];
		const int32_t *el = lay_elems(p->arena, l);
		uint32_t hit = 0, valid = 0;
		for (int lane = 0; lane < 32; lane++)
			if (el[r * 32 + lane] >= 0)
				valid |= 1u << lane;
		for (uint32_t k = 0; k < w->ty.n; k++) {
			uint32_t pos = l->pos[lay_region_index(v->rg, k)];
			if (pos / 32 == r)
				hit |= 1u << (pos % 32);
		}
		if (!hit) {
			v = v->ops[0];
			continue;
		}
		uint32_t *regs;
		const Layout *pb = lay_pullback(p->arena, l, v->rg, w->ty.n, &regs);
		if (hit != valid || !is_vector(w) || !pb || !lay_equal(pb, p->val[w->id].lay))
			return false;
		uint32_t k = 0;
		while (k < pb->nregs && regs[k] != r)
			k++;
		if (k == pb->nregs)
			return false;
		r = k;
		v = w;
	}
	return false;
}

/* A call that can be half of a pair: FP64, repeat 8, every operand and
 * the result in its fragment (assign.c), no copy of the result. */
static bool pairable(Px *p, const Inst *i)
{
	if (i->op != Odpas || ir_dpas_p1(i) != PR_DF || ir_dpas_p2(i) != PR_DF ||
	    ir_dpas_rc(i) != 8)
		return false;
	const PxVal *pv = &p->val[i->id];
	if (pv->ncopies || pv->in_slm || !lay_equal(pv->lay, px_dpas_layout(p, i, 0)))
		return false;
	for (uint32_t k = 0; k < 3; k++) {
		const Layout *rd = px_read_layout(p, (Inst *)i, k), *fl = px_dpas_layout(p, i, k);
		if (!fl || !lay_equal(rd, fl) || !lay_equal(rd, p->val[i->ops[k]->id].lay))
			return false;
	}
	return true;
}

/* Whether x and y are one value: themselves, or the same constant region
 * of one value (each b.row(j) of a kernel is an rdregion of its own). */
static bool same_value(const Inst *x, const Inst *y)
{
	return x == y || (x->op == Ordregion && y->op == Ordregion && !ir_roff(x) && !ir_roff(y) &&
	                  x->ops[0] == y->ops[0] && !memcmp(&x->rg, &y->rg, sizeof x->rg) &&
	                  ir_type_eq(x->ty, y->ty));
}

/* Whether every register j reads is ready at i. */
static bool ready(Px *p, const Inst *i, const Inst *j)
{
	for (uint32_t k = 0; k < 3; k++) {
		const Inst *v = j->ops[k], *dv;
		uint32_t rr;
		for (uint32_t r = 0; r < p->val[v->id].lay->nregs; r++)
			if (!ready_reg(p, i, v, r, &dv, &rr))
				return false;
	}
	return true;
}

void px_dpas_pairs(Px *p)
{
	if (p->o->ptx_canonical)
		return;
	for (uint32_t b = 0; b < p->f->nblocks; b++)
		for (Inst *i = p->f->blocks[b]->first; i; i = i->next) {
			if (!pairable(p, i) || p->val[i->id].skip || p->val[i->id].dpair)
				continue;
			for (Inst *j = i->next; j; j = j->next)
				if (j->op == Odpas && same_value(j->ops[1], i->ops[1]) && !p->val[j->id].skip &&
				    !p->val[j->id].dpair && ir_dpas_es(j) == ir_dpas_es(i) &&
				    pairable(p, j) && ready(p, i, j)) {
					p->val[i->id].dpair = j;
					p->val[j->id].skip = true;
					break;
				}
		}
}

/* Register r of operand k of j where it is ready at i (ready_reg). */
const char *px_dpair_reg(Px *p, const Inst *i, const Inst *j, uint32_t k, uint32_t r)
{
	const Inst *dv;
	uint32_t rr;
	if (!ready_reg(p, i, j->ops[k], r, &dv, &rr))
		die("dpair: operand %u of %%%u is not ready at %%%u", k, j->id, i->id);
	return px_own(p, dv, rr);
}
