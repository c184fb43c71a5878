/* dpair.c — two cm_dpas of one B tile as one 16-row mma (FP64: m16n8k4).
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
 *
 * The 16-row shapes of the other precisions (m16n8k16 for HF and BF,
 * m16n8k8 for TF32, m16n8k32 for S8 and U8) pair the same way: a lone
 * call of repeat 8 fills rows 0..7 and multiplies zero rows 8..15, so
 * its pair does the work of two calls in one instruction (A's registers
 * a1 and a3, C's and D's c2 and c3 become the second call's).
 */
#include <string.h>

#include "target/ptx/ptx.h"

static bool is_vector(const Inst *v)
{
	return v && v->ty.elem != E_VOID && v->ty.n > 1;
}

/* Register r of v's own layout as register *rr of a value *dv defined
 * before instruction at (another block: one that dominates at's, as v
 * dominates its user in at's block); with at NULL, of the value that
 * computes it (neither a rename nor an in-place write). */
static bool ready_reg(Px *p, const Inst *at, const Inst *v, uint32_t r, const Inst **dv,
                      uint32_t *rr)
{
	for (int step = 0; step < 256; step++) {
		if (at ? v->block != at->block || v->id < at->id :
		    v->op != Ordregion && v->op != Owrregion) {
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

/* A call that can be half of a pair: repeat 8, every operand read in its
 * fragment (its own registers or a copy), the result in its fragment
 * (assign.c) with no copy. */
static bool pairable(Px *p, const Inst *i)
{
	if (i->op != Odpas || ir_dpas_rc(i) != 8)
		return false;
	const PxVal *pv = &p->val[i->id];
	if (pv->ncopies || pv->in_slm || !lay_equal(pv->lay, px_dpas_layout(p, i, 0)))
		return false;
	for (uint32_t k = 0; k < 3; k++) {
		const Layout *rd = px_read_layout(p, (Inst *)i, k), *fl = px_dpas_layout(p, i, k);
		if (!fl || !lay_equal(rd, fl))
			return false;
	}
	return true;
}

/* Register r of j's operand k where it is ready at i: its own registers
 * traced back (ready_reg), or, read from a copy in its fragment layout
 * (made right after it), the copy's when it is defined before i.  NULL
 * when not ready. */
static const char *operand_reg(Px *p, const Inst *i, const Inst *j, uint32_t k, uint32_t r)
{
	const Inst *v = j->ops[k], *dv;
	const Layout *rd = px_read_layout(p, (Inst *)j, k);
	uint32_t rr;
	if (!lay_equal(rd, p->val[v->id].lay))
		return v->block != i->block || v->id < i->id ? px_reg_in(p, v, rd, r) : NULL;
	return ready_reg(p, i, v, r, &dv, &rr) ? px_own(p, dv, rr) : NULL;
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
	for (uint32_t k = 0; k < 3; k++)
		for (uint32_t r = 0; r < px_read_layout(p, (Inst *)j, k)->nregs; r++)
			if (!operand_reg(p, i, j, k, r))
				return false;
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
				    !p->val[j->id].dpair && j->imm == i->imm && ir_type_eq(j->ty, i->ty) &&
				    px_dpas_kperm(j) == px_dpas_kperm(i) &&
				    ir_type_eq(j->ops[2]->ty, i->ops[2]->ty) &&
				    pairable(p, j) && ready(p, i, j)) {
					p->val[i->id].dpair = j;
					p->val[j->id].skip = true;
					break;
				}
		}
}

bool px_origin_reg(Px *p, const Inst *v, uint32_t r, const Inst **dv, uint32_t *rr)
{
	return ready_reg(p, NULL, v, r, dv, rr);
}

const char *px_dpair_reg(Px *p, const Inst *i, const Inst *j, uint32_t k, uint32_t r)
{
	const char *reg = operand_reg(p, i, j, k, r);
	if (!reg)
		die("dpair: operand %u of %%%u is not ready at %%%u", k, j->id, i->id);
	return reg;
}
