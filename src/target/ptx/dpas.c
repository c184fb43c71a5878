/* dpas.c — Odpas (cm_dpas) as warp-wide tensor-core instructions.
 *
 * requires: assign.c's layouts (Odpas reads its operands and writes its
 * result in the canonical layout); emits into p->body.
 *
 * A CM thread is one warp, so one DPAS is one or two mma.sync.aligned per
 * 8 output columns (execution size 8 or 16):
 *   HF, BF   m16n8k16  .f32 accumulators        (K = 16 = DPAS's 8 dwords)
 *   U8, S8   m16n8k32  .s32 accumulators        (K = 32)
 *   TF32     m16n8k8   .f32 accumulators        (K = 8)
 *   DF       m8n8k4    .f64 (cmetal's FP64 form, K = 4)
 * DPAS's M is the repeat count (at most 8): A's rows 8..15 of the 16-row
 * shapes are zero and the result's rows 8..15 are dropped (half of the
 * 16-row tile is wasted; the 8-row FP64 shape has none to waste).
 *
 * Fragments.  DPAS packs each operand's elements into dwords along K, and
 * so does mma: for every 16-row shape above, with g = lane / 4 and
 * t = lane % 4, A's fragment registers 0 and 2 are dwords g*8 + t and
 * g*8 + 4 + t of src2 (rows g < repeat; registers 1 and 3 are rows g + 8:
 * zero), B's registers 0 and 1 are dwords (t)*E + n and (4 + t)*E + n of
 * src1 (n = 8*tile + g) (or dwords 2t and 2t + 1, when loaded: see
 * frag_elem), and C/D's registers 0 and 1 are elements
 * g*E + 8*tile + 2t and + 1 (registers 2 and 3: rows g + 8).  The FP64
 * shape has the same pattern on doubles: A = element g*4 + t, B = element
 * t*E + n, C/D = g*E + 8*tile + 2t (+1).
 *
 * Moving.  Each fragment is a layout (px_dpas_layout), so assign.c can
 * keep a value in it: the result always lives in the accumulator's
 * fragment, and a phi that carries it around the k loop takes the same
 * layout, so an accumulator costs no move from one call to the next (it
 * is converted once, where it is loaded or stored).  An operand read in
 * its fragment layout is used as it is; any other is gathered: lane L
 * wants a known element, and layout.c's plan (lay_plan with a map) groups
 * the lanes by source register into shfl.sync moves, which region.c's
 * px_emit_plan prints.  Operands of 8- or 16-bit elements are gathered
 * once per byte or half of the dword and packed.  A's FP64 fragment
 * (double g*4 + t in lane 4g + t) is canonical.  Before fragment layouts
 * (-fptx-layout=canonical still does this) every call gathered its
 * accumulator and scattered its result: per m8n8k4 257 SASS and 18 SHFL,
 * per m16n8k16 563 and 50 (sm_90, tests/sass).
 */
#include <string.h>

#include "target/ptx/ptx.h"

typedef struct {
	const char *shape;    /* "m16n8k16" */
	const char *types;    /* ".f32.f16.f16.f32" (D, A, B, C) */
	int na, nb, nc;       /* fragment registers */
} MmaForm;

static const char *ab_type(int prec)
{
	switch (prec) {
	case PR_U8: return "u8";
	case PR_S8: return "s8";
	case PR_BF: return "bf16";
	case PR_HF: return "f16";
	case PR_TF32: return "tf32";
	default: return "f64";
	}
}

static MmaForm mma_form(Px *p, const Inst *i)
{
	int p1 = ir_dpas_p1(i), p2 = ir_dpas_p2(i);
	MmaForm m = { "m16n8k16", NULL, 4, 2, 4 };
	const char *acc = "f32";
	if (p1 == PR_U8 || p1 == PR_S8)
		m.shape = "m16n8k32", acc = "s32";
	else if (p1 == PR_TF32)
		m.shape = "m16n8k8";
	else if (p1 == PR_DF)
		m = (MmaForm){ "m8n8k4", NULL, 1, 1, 2 }, acc = "f64";
	/* A is src2 (precision p2), B is src1 (p1) */
	m.types = arena_printf(p->arena, ".%s.%s.%s.%s", acc, ab_type(p2), ab_type(p1), acc);
	return m;
}

static const char *zero(Elem e)
{
	return e == E_F32 ? "0f00000000" : e == E_F64 ? "0d0000000000000000" : "0";
}

/* The layout of n elements whose register r, lane L holds element
 * at(r * 32 + L) (-1: padding), the canonical one when it is that. */
static const Layout *table_layout(Px *p, uint32_t n, uint32_t nregs, const int32_t *at)
{
	Layout *l = NEW(p->arena, Layout);
	l->n = n;
	l->nregs = nregs;
	l->pos = NEWN(p->arena, uint32_t, n);
	uint32_t seen = 0;
	bool canon = nregs == SLOTS(n);
	for (uint32_t k = 0; k < 32 * nregs; k++) {
		if (at[k] < 0)
			continue;
		if ((uint32_t)at[k] >= n)
			return NULL;
		l->pos[at[k]] = k;
		canon = canon && (uint32_t)at[k] == k;
		seen++;
	}
	if (seen != n)
		return NULL;
	return canon ? lay_canonical(p->arena, n) : l;
}

/* Element (or dword) of operand k of i in fragment register r, lane L of
 * tile 0 .. ntiles-1: the maps of this file's top comment, -1 where the
 * mma reads no element of the operand (rows past the repeat count; A's
 * and the accumulator's rows 8..15 of the 16-row shapes are registers of
 * their own, zero).  When both dword operands are read from memory into
 * their fragments (px_dpas_kperm) the k dwords are permuted: the ISA's
 * slot (t, r) (dword t + 4r of A's row and B's column) holds dword 2t + r
 * of both, so a lane's two registers of A (or B) are neighbours in memory
 * and one 8-byte load fills them (mem.c); the mma sums over its k slots,
 * so permuting both operands alike changes only the order of the sum.
 * Operands in CM's layout keep the ISA's order: their conversion into
 * the fragment then reads fewer registers (2 shuffles per B register
 * instead of 4 for hf_r8). */
static bool loaded(const Inst *v)
{
	while ((v->op == Ordregion && !ir_roff(v)) || v->op == Obitcast)
		v = v->ops[0];
	return v->op == Omload || v->op == Ophi;
}

bool px_dpas_kperm(const Inst *i)
{
	return ir_dpas_p1(i) != PR_DF && loaded(i->ops[1]) && loaded(i->ops[2]);
}

static int32_t frag_elem(const Inst *i, uint32_t k, int tile, int r, int L)
{
	int es = ir_dpas_es(i), rc = ir_dpas_rc(i), g = L / 4, t = L % 4;
	bool df = ir_dpas_p1(i) == PR_DF;
	int kd = px_dpas_kperm(i) ? 2 * t + r : t + 4 * r;   /* k dword of slot (t, r) */
	switch (k) {
	case 0: return g < rc ? g * es + 8 * tile + 2 * t + r : -1;
	case 1: return df ? t * es + 8 * tile + g : kd * es + 8 * tile + g;
	default: return g >= rc ? -1 : df ? g * 4 + t : g * 8 + kd;
	}
}

/* Fragment registers per tile of operand k (A: for all tiles). */
static int frag_regs(const Inst *i, uint32_t k)
{
	return ir_dpas_p1(i) == PR_DF && k ? 1 : 2;
}

/* The fragment layout of operand k, built anew (px_dpas_layout caches). */
static const Layout *frag_layout(Px *p, const Inst *i, uint32_t k)
{
	const Inst *v = k ? i->ops[k] : i;
	int eb = ir_dpas_p1(i) == PR_DF ? 8 : 4, ntiles = k == 2 ? 1 : ir_dpas_es(i) / 8;
	if (v->ty.n < 2 || ir_elem_bytes[v->ty.elem] != eb)
		return NULL;
	int per = frag_regs(i, k), nregs = ntiles * per;
	int32_t *at = NEWN(p->arena, int32_t, 32 * nregs);
	for (int tl = 0; tl < ntiles; tl++)
		for (int r = 0; r < per; r++)
			for (int L = 0; L < 32; L++)
				at[(tl * per + r) * 32 + L] = frag_elem(i, k, tl, r, L);
	return table_layout(p, v->ty.n, (uint32_t)nregs, at);
}

/* cm_wgmma's accumulator (and result) fragment: the m16n8 C/D fragment of
 * the top comment repeated N / 8 times, register 4j + q of lane L holding
 * row L / 4 + 8 (q / 2), column 8j + 2 (L % 4) + q % 2 of the CM thread's
 * 16 x N (the PTX ISA's wgmma D fragment of warp t of the warpgroup, rows
 * 16t..16t+15 of the 64 x N). */
static const Layout *wgmma_layout(Px *p, const Inst *i, uint32_t k)
{
	int n = ir_wgmma_n(i), nregs = n / 2;
	if (k)
		return NULL;   /* the SLM offsets are scalars */
	int32_t *at = NEWN(p->arena, int32_t, 32 * nregs);
	for (int r = 0; r < nregs; r++)
		for (int L = 0; L < 32; L++) {
			int q = r % 4, row = L / 4 + 8 * (q / 2), col = 8 * (r / 4) + 2 * (L % 4) + q % 2;
			at[r * 32 + L] = row * n + col;
		}
	return table_layout(p, i->ty.n, (uint32_t)nregs, at);
}

/* Layout passes ask for the same fragments many times (want.c per round
 * and per use): one per call and operand, kept while the kernel is
 * emitted. */
const Layout *px_dpas_layout(Px *p, const Inst *i, uint32_t k)
{
	if (i->op == Owgmma && !p->f)
		return wgmma_layout(p, i, k);
	if (!p->f)
		return frag_layout(p, i, k);
	if (!p->frags)
		p->frags = NEWN(p->arena, PxFrag, (size_t)p->f->nextid + 1);
	PxFrag *c = &p->frags[i->id];
	if (!(c->done >> k & 1)) {
		c->l[k] = i->op == Owgmma ? wgmma_layout(p, i, k) : frag_layout(p, i, k);
		c->done |= (uint8_t)(1u << k);
	}
	return c->l[k];
}

/* Fragment register r of lane L wants element map[r*32 + L] of operand k
 * of i: fills `regs` (class of its elements) by one plan from the layout
 * it is read in. */
static void gather(Px *p, Inst *i, uint32_t k, const int32_t *map, int nregs, const char **regs)
{
	const Inst *v = i->ops[k];
	Elem e = v->ty.elem;
	const Layout *dst = lay_canonical(p->arena, 32u * (uint32_t)nregs);
	const Layout *src = px_read_layout(p, i, k);
	const char **s = NEWN(p->arena, const char *, src->nregs);
	for (uint32_t r = 0; r < src->nregs; r++)
		s[r] = px_reg_in(p, v, src, r);
	for (int r = 0; r < nregs; r++)
		regs[r] = px_tmp(p, px_class(e));
	LPlan *pl = lay_plan(p->arena, dst, src, map);
	p->nshfl += pl->shfl;
	px_emit_plan(p, e, regs, s, pl, false, NULL);
}

/* The b32 registers holding dword dw[r*32 + L] of operand k of i (dw < 0:
 * don't care), its elements gathered and packed little-endian. */
static void gather_dwords(Px *p, Inst *i, uint32_t k, const int32_t *dw, int nregs,
                          const char **out)
{
	Elem e = i->ops[k]->ty.elem;
	int per = 4 / ir_elem_bytes[e];        /* elements per dword */
	int32_t *map = NEWN(p->arena, int32_t, 32 * nregs);
	const char **piece = NEWN(p->arena, const char *, nregs);
	for (int b = 0; b < per; b++) {
		for (int x = 0; x < 32 * nregs; x++)
			map[x] = dw[x] < 0 ? -1 : dw[x] * per + b;
		gather(p, i, k, map, nregs, piece);
		for (int r = 0; r < nregs; r++) {
			if (per == 1 && px_class(e) == RC_B32) {
				out[r] = piece[r];
				continue;
			}
			if (per == 1) {             /* tf32 from f32 registers */
				out[r] = px_tmp(p, RC_B32);
				px_ins(p, "mov.b32 %s, %s", out[r], piece[r]);
				continue;
			}
			if (e == E_F16) {           /* halves pair up in one mov */
				if (b == 0) {
					out[r] = piece[r];
				} else {
					const char *d = px_tmp(p, RC_B32);
					px_ins(p, "mov.b32 %s, {%s, %s}", d, out[r], piece[r]);
					out[r] = d;
				}
				continue;
			}
			const char *x = px_tmp(p, RC_B32);
			px_ins(p, "and.b32 %s, %s, %u", x, piece[r], per == 2 ? 0xffffu : 0xffu);
			if (b == 0) {
				out[r] = x;
				continue;
			}
			px_ins(p, "shl.b32 %s, %s, %d", x, x, b * 32 / per);
			px_ins(p, "or.b32 %s, %s, %s", x, x, out[r]);
			out[r] = x;
		}
	}
}

/* A b32 register holding r's bits (an f32 register of tf32 data is moved),
 * with tf32's ignored mantissa bits cleared when tf32. */
static const char *b32_of(Px *p, Elem e, const char *r, bool tf32)
{
	if (px_class(e) == RC_B32 && !tf32)
		return r;
	const char *t = px_tmp(p, RC_B32);
	if (tf32)
		px_ins(p, "and.b32 %s, %s, 0xffffe000", t, r);
	else
		px_ins(p, "mov.b32 %s, %s", t, r);
	return t;
}

/* Fragment registers frag[0 .. nregs-1] of operand k of i for tile tl:
 * the operand's own registers when it is read in its fragment layout (a
 * rename), else gathered (and zeroed in the rows past the repeat count,
 * valid false there, as the gather leaves them unset). */
static void fragment(Px *p, Inst *i, uint32_t k, int tl, const char *valid, const char **frag)
{
	const Inst *v = i->ops[k];
	int nregs = frag_regs(i, k);
	const Layout *rd = px_read_layout(p, i, k), *fl = px_dpas_layout(p, i, k);
	if (fl && lay_equal(rd, fl)) {
		for (int r = 0; r < nregs; r++) {
			frag[r] = px_reg_in(p, v, rd, (uint32_t)(tl * nregs + r));
			if (k && px_class(v->ty.elem) == RC_F32)	/* tf32 data */
				frag[r] = b32_of(p, v->ty.elem, frag[r], false);
		}
		return;
	}
	int32_t map[64];
	for (int r = 0; r < nregs; r++)
		for (int L = 0; L < 32; L++)
			map[r * 32 + L] = frag_elem(i, k, tl, r, L);
	if (ir_elem_bytes[v->ty.elem] == 8 || k == 0)
		gather(p, i, k, map, nregs, frag);
	else
		gather_dwords(p, i, k, map, nregs, frag);
	if (k == 1)
		return;
	Elem e = k == 0 ? i->ty.elem : ir_elem_bytes[v->ty.elem] == 8 ? E_F64 : E_U32;
	for (int r = 0; r < nregs; r++)
		px_ins(p, "selp.%s %s, %s, %s, %s", px_ty(e), frag[r], frag[r], zero(e), valid);
}

/* tf32 ignores 13 mantissa bits: masked in temporaries (the fragment may
 * be the operand's own registers). */
static void tf32_mask(Px *p, const char **frag, int nregs)
{
	for (int r = 0; r < nregs; r++) {
		const char *t = px_tmp(p, RC_B32);
		px_ins(p, "and.b32 %s, %s, 0xffffe000", t, frag[r]);
		frag[r] = t;
	}
}

/* One tile (8 output columns from column 8*tile): B's and the
 * accumulator's fragments, the mma, its results in d[] (nc registers; the
 * first two are the result's fragment registers of this tile when the
 * result lives in its fragment layout). */
static void tile(Px *p, Inst *i, const MmaForm *m, const char **afr, int tile,
                 const char *valid, const char **d, bool direct)
{
	Elem ae = i->ty.elem;
	const char *b[2], *c[4];
	fragment(p, i, 1, tile, valid, b);
	if (ir_dpas_p1(i) == PR_TF32)
		tf32_mask(p, b, m->nb);
	fragment(p, i, 0, tile, valid, c);
	for (int r = 2; r < m->nc; r++) {
		c[r] = px_tmp(p, px_class(ae));
		px_ins(p, "mov.%s %s, %s", px_ty(ae), c[r], zero(ae));
	}
	for (int r = 0; r < m->nc; r++)
		d[r] = direct && r < 2 ? px_own(p, i, (uint32_t)(tile * 2 + r)) : px_tmp(p, px_class(ae));
	Buf s = { 0 };
	buf_printf(&s, "mma.sync.aligned.%s.row.col%s {", m->shape, m->types);
	for (int r = 0; r < m->nc; r++)
		buf_printf(&s, "%s%s", r ? ", " : "", d[r]);
	buf_puts(&s, "}, {");
	for (int r = 0; r < m->na; r++)
		buf_printf(&s, "%s%s", r ? ", " : "", afr[r]);
	buf_puts(&s, "}, {");
	for (int r = 0; r < m->nb; r++)
		buf_printf(&s, "%s%s", r ? ", " : "", b[r]);
	buf_puts(&s, "}, {");
	for (int r = 0; r < m->nc; r++)
		buf_printf(&s, "%s%s", r ? ", " : "", c[r]);
	buf_puts(&s, "}");
	px_ins(p, "%s", buf_cstr(&s));
	buf_free(&s);
}

/* A's fragments (shared by the tiles): dwords g*8 + t and g*8 + 4 + t of
 * src2 (DF: double g*4 + t), rows g + 8 zero. */
static void a_fragments(Px *p, Inst *i, const MmaForm *m, const char *valid, const char **afr)
{
	const char *f[2];
	fragment(p, i, 2, 0, valid, f);
	if (m->na == 1) {
		afr[0] = f[0];
		return;
	}
	if (ir_dpas_p2(i) == PR_TF32)
		tf32_mask(p, f, 2);
	const char *zero = px_tmp(p, RC_B32);
	px_ins(p, "mov.b32 %s, 0", zero);
	afr[0] = f[0], afr[1] = zero, afr[2] = f[1], afr[3] = zero;
}

/* The result fragments (d[tile * nc + r]) into i's own registers, when its
 * layout is not the fragment's (-fptx-layout=canonical). */
static void scatter_result(Px *p, const Inst *i, const MmaForm *m, const char **d, int ntiles)
{
	const Layout *fl = px_dpas_layout(p, i, 0), *dst = p->val[i->id].lay;
	const char **s = NEWN(p->arena, const char *, fl->nregs);
	for (int t = 0; t < ntiles; t++)
		for (int r = 0; r < 2; r++)
			s[t * 2 + r] = d[t * m->nc + r];
	const char **o = NEWN(p->arena, const char *, dst->nregs);
	for (uint32_t k = 0; k < dst->nregs; k++)
		o[k] = px_own(p, i, k);
	LPlan *pl = lay_plan(p->arena, dst, fl, NULL);
	p->nshfl += pl->shfl;
	px_emit_plan(p, i->ty.elem, o, s, pl, false, NULL);
}

/* Odpas i and its partner j (dpair.c) as one 16-row mma per tile: A, C
 * and D rows 0..7 are i's fragments, rows 8..15 j's (read where they are
 * ready at i); B is their common operand. */
static void pair(Px *p, Inst *i, const Inst *j)
{
	MmaForm m = mma_form(p, i);
	bool df = ir_dpas_p1(i) == PR_DF, tf32 = ir_dpas_p1(i) == PR_TF32;
	int ntiles = ir_dpas_es(i) / 8, na = df ? 1 : 2;
	const char *shape = df ? "m16n8k4" : m.shape;
	px_comment(p, "dpas: %d x mma.sync.%s (%%%u with %%%u: one B tile)", ntiles, shape, i->id,
	           j->id);
	const Inst *a = i->ops[2], *b = i->ops[1], *c = i->ops[0];
	const Layout *al = px_read_layout(p, i, 2), *bl = px_read_layout(p, i, 1);
	const Layout *cl = px_read_layout(p, i, 0);
	const char *afr[4];
	for (int r = 0; r < na; r++) {	/* mma's a0, a2 are i's; a1, a3 j's */
		afr[2 * r] = px_reg_in(p, a, al, (uint32_t)r);
		afr[2 * r + 1] = px_dpair_reg(p, i, j, 2, (uint32_t)r);
		if (!df)
			for (int h = 0; h < 2; h++)
				afr[2 * r + h] = b32_of(p, a->ty.elem, afr[2 * r + h], tf32);
	}
	for (int t = 0; t < ntiles; t++) {
		uint32_t r0 = (uint32_t)(2 * t), r1 = r0 + 1;
		Buf s = { 0 };
		buf_printf(&s, "mma.sync.aligned.%s.row.col%s {%s, %s, %s, %s}, {", shape, m.types,
		           px_own(p, i, r0), px_own(p, i, r1), px_own(p, j, r0), px_own(p, j, r1));
		for (int r = 0; r < 2 * na; r++)
			buf_printf(&s, "%s%s", r ? ", " : "", afr[r]);
		buf_puts(&s, "}, {");
		for (int r = 0; r < m.nb; r++) {
			const char *br = px_reg_in(p, b, bl, (uint32_t)(t * m.nb + r));
			buf_printf(&s, "%s%s", r ? ", " : "", df ? br : b32_of(p, b->ty.elem, br, tf32));
		}
		buf_printf(&s, "}, {%s, %s, %s, %s}", px_reg_in(p, c, cl, r0), px_reg_in(p, c, cl, r1),
		           px_dpair_reg(p, i, j, 0, r0), px_dpair_reg(p, i, j, 0, r1));
		px_ins(p, "%s", buf_cstr(&s));
		buf_free(&s);
	}
}

bool px_dpas(Px *p, Inst *i)
{
	if (p->val[i->id].dpair) {
		pair(p, i, p->val[i->id].dpair);
		return true;
	}
	MmaForm m = mma_form(p, i);
	int ntiles = ir_dpas_es(i) / 8;
	px_comment(p, "dpas: %d x mma.sync.%s (repeat %d)", ntiles, m.shape, ir_dpas_rc(i));
	const char *valid = px_lane_lt(p, 4u * (uint32_t)ir_dpas_rc(i));
	const char *afr[4];
	a_fragments(p, i, &m, valid, afr);
	bool direct = lay_equal(p->val[i->id].lay, px_dpas_layout(p, i, 0));
	const char **d = NEWN(p->arena, const char *, ntiles * m.nc);
	for (int t = 0; t < ntiles; t++)
		tile(p, i, &m, afr, t, valid, d + t * m.nc, direct);
	if (!direct)
		scatter_result(p, i, &m, d, ntiles);
	return true;
}

/* ---- cm_wgmma (cmetal) ---------------------------------------------------- */

bool px_uses_wgmma(const Func *f)
{
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (const Inst *i = f->blocks[b]->first; i; i = i->next)
			if (i->op == Owgmma)
				return true;
	return false;
}

/* The 64-bit matrix descriptor of the SLM operand at byte offset off (a
 * u32 register) into d: its shared-window address / 16 in bits 0..13,
 * then the layout of ir.h's Owgmma.  Without the swizzle: K-major core
 * matrices, LBO, the bytes between the two core matrices along K, 128, in
 * bits 16..29 (/ 16), and SBO, between core matrices along M or N, 256, in
 * bits 32..45 (/ 16).  With it (sw): the 128-byte swizzle in bits 62..63
 * (1), SBO 1024 (8 rows of 128 bytes), LBO unused (1); the operand starts
 * in row 0 of a 1024-byte block of a 1024-aligned SLM (emit.c), so the
 * base offset (bits 49..51) is 0. */
static void descriptor(Px *p, const char *d, const char *off, bool sw)
{
	const char *a = px_tmp(p, RC_B32);
	px_ins(p, "mov.u32 %s, %s", a, px_slm_base(p));
	px_ins(p, "add.u32 %s, %s, %s", a, a, off);
	px_ins(p, "cvt.u64.u32 %s, %s", d, a);
	px_ins(p, "shr.u64 %s, %s, 4", d, d);
	px_ins(p, "and.b64 %s, %s, 16383", d, d);
	unsigned long long f = sw ? 1ull << 62 | 1ull << 16 | (1024ull / 16) << 32 :
	                            (128ull / 16) << 16 | (256ull / 16) << 32;
	px_ins(p, "or.b64 %s, %s, %llu", d, d, f);
}

/* Whether y is x plus exactly d bytes (u32 scalars): both constants, or
 * one affine root and scale. */
static bool byte_step(const Inst *x, const Inst *y, int64_t d)
{
	int64_t kx, ky, cx, cy;
	if (ir_const_int32(x, &kx) && ir_const_int32(y, &ky))
		return ky - kx == d;
	const Inst *rx, *ry;
	uint32_t sx, sy;
	ir_affine(x, &rx, &sx, &cx);
	ir_affine(y, &ry, &sy, &cy);
	return rx == ry && sx == sy && cy - cx == d;
}

/* Whether u reads the result of a member of the group from head to last. */
static bool reads_group(const Px *p, const Inst *u, const Inst *head, const Inst *last)
{
	for (uint32_t k = 0; k < u->nops; k++)
		for (const Inst *m = head; m; m = m == last ? NULL : p->val[m->id].wnext)
			if (u->ops[k] == m)
				return true;
	return false;
}

/* The members of the group whose last member is last, in order, into m
 * (at most 32); their count. */
static int members(const Px *p, const Inst *last, const Inst **m)
{
	const Inst *h = p->val[last->id].whead ? p->val[last->id].whead : last;
	int k = 0;
	for (const Inst *x = h; x && k < 32; x = p->val[x->id].wnext)
		m[k++] = x;
	return k;
}

/* Whether v's only use in the function is one operand of u. */
static bool only_user(const Func *f, const Inst *v, const Inst *u)
{
	int n = 0;
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (const Inst *j = f->blocks[b]->first; j; j = j->next)
			for (uint32_t k = 0; k < j->nops; k++)
				if (j->ops[k] == v && (j != u || ++n > 1))
					return false;
	return n == 1;
}

/* Whether the group ending at last continues the chain of the group
 * ending at prev: as many calls of the same precision and N, member q's
 * accumulator being prev's member q's result, used nowhere else and
 * never copied (its registers are never written: the chain's wgmmas
 * update the first group's registers in place). */
static bool chains_on(const Px *p, const Inst *prev, const Inst *last)
{
	const Inst *pm[32], *cm[32];
	int k = members(p, prev, pm);
	if (members(p, last, cm) != k || cm[0]->imm != pm[0]->imm ||
	    ir_wgmma_n(cm[0]) != ir_wgmma_n(pm[0]))
		return false;
	for (int q = 0; q < k; q++) {
		const PxVal *v = &p->val[pm[q]->id];
		if (cm[q]->ops[0] != pm[q] || v->ncopies || v->in_slm ||
		    !only_user(p->f, pm[q], cm[q]))
			return false;
	}
	return true;
}

/* Chains of groups (or lone calls) in one block, each on the last one's
 * results, with only pure register instructions between them that read
 * none of those: the chain's wgmmas update one set of accumulator
 * registers, fenced once before the first and waited for once after the
 * last (one commit_group, one wait_group), so the tensor cores run them
 * back to back.  The wait still comes before any other read of the
 * accumulators, any memory access, barrier or call, and the block's end.
 * Marks wprev and wmore on the groups' last members. */
static void wgmma_chains(Px *p)
{
	for (uint32_t b = 0; b < p->f->nblocks; b++) {
		const Inst *prev = NULL;
		for (Inst *j = p->f->blocks[b]->first; j; j = j->next) {
			/* (a call reading one, chains_on decides) */
			if (prev && j->op != Owgmma &&
			    reads_group(p, j, p->val[prev->id].whead ? p->val[prev->id].whead : prev,
			                prev))
				prev = NULL;
			if (j->op == Owgmma) {
				if (p->val[j->id].wnext)
					continue;
				if (prev && chains_on(p, prev, j)) {
					p->val[j->id].wprev = prev;
					p->val[prev->id].wmore = true;
				}
				prev = j;
				continue;
			}
			unsigned fl = ir_ops[j->op].flags;
			if (!(fl & IRF_PURE) || (fl & IRF_MEM) || j->op == Ophi)
				prev = NULL;
		}
	}
}

/* Whether phi's registers may take the chain's results from u (its first
 * group's member) on: no other use of phi reads it later, that is, none
 * but u is a phi, after u in u's block, or in a block reached from u's
 * without passing phi's own (where the loop's edge brings the chain's
 * result into the same registers: an exit from the loop's header reads
 * the result, as it should). */
static bool dead_after(Px *p, const Inst *phi, const Inst *u)
{
	Func *f = p->f;
	bool *seen = NEWN(p->tmp, bool, f->nblocks);
	Block **work = NEWN(p->tmp, Block *, f->nblocks);
	uint32_t nw = 0;
	for (const Inst *j = u->next; j; j = j->next)
		for (uint32_t k = 0; k < j->nops; k++)
			if (j->ops[k] == phi)
				return false;
	for (int s = 0; s < ir_nsucc(u->block); s++)
		if (!seen[u->block->jmp.to[s]->id])
			seen[u->block->jmp.to[s]->id] = true, work[nw++] = u->block->jmp.to[s];
	while (nw) {
		Block *b = work[--nw];
		if (b == phi->block)
			continue;
		for (const Inst *j = b->first; j; j = j->next)
			for (uint32_t k = 0; k < j->nops; k++)
				if (j->ops[k] == phi)
					return false;
		for (int s = 0; s < ir_nsucc(b); s++)
			if (!seen[b->jmp.to[s]->id])
				seen[b->jmp.to[s]->id] = true, work[nw++] = b->jmp.to[s];
	}
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (const Inst *j = f->blocks[b]->first; j && j->op == Ophi; j = j->next)
			for (uint32_t k = 0; k < j->nops; k++)
				if (j->ops[k] == phi)
					return false;
	return true;
}

/* Whether the chain of groups whose last members are g[0..ng-1] can
 * update its accumulators in the registers of their loop phis: member q
 * of the first group adds to a phi read by nothing later (dead_after), a later group's
 * result flows back into it, and every member's result is in the
 * fragment layout, with no copy in another layout or in SLM. */
static bool inplace_ok(Px *p, const Inst *const *g, int ng)
{
	const Inst *m0[32], *ml[32], *mm[32];
	int k = members(p, g[0], m0);
	if (members(p, g[ng - 1], ml) != k)
		return false;
	for (int q = 0; q < k; q++) {
		const Inst *phi = m0[q]->ops[0], *last = ml[q];
		const PxVal *v = &p->val[phi->id];
		const Layout *fl = px_dpas_layout(p, m0[q], 0);
		bool back = false;
		if (phi->op != Ophi || v->host || v->wghost || v->ncopies || v->in_slm ||
		    !v->lay || !fl || !lay_equal(v->lay, fl) || !dead_after(p, phi, m0[q]))
			return false;
		for (uint32_t e = 0; e < phi->nops; e++)
			back |= phi->ops[e] == last;
		if (!back)
			return false;
		for (int c = 0; c < ng; c++) {
			if (members(p, g[c], mm) != k)
				return false;
			const PxVal *r = &p->val[mm[q]->id];
			if (!r->lay || !lay_equal(r->lay, fl) || r->ncopies || r->in_slm)
				return false;
		}
	}
	return true;
}

/* Hosts every result of the chain g[0..ng-1] in its accumulator's phi
 * (inplace_ok) and marks the chain: its wgmmas then update the phis'
 * registers, with no copy at its start, end or loop edge, so an async
 * chain (cm_wgmma_async) may stay in flight over the loop's back edge;
 * such results and phis are wgregs (waited for before other reads). */
static void host_chain(Px *p, const Inst *const *g, int ng)
{
	if (!inplace_ok(p, g, ng))
		return;
	const Inst *m0[32], *mm[32];
	int k = members(p, g[0], m0);
	bool async = ir_wgmma_async(g[0]->imm);
	for (int q = 0; q < k; q++) {
		const Inst *phi = m0[q]->ops[0];
		p->val[phi->id].wgregs = async;
		p->val[phi->id].wghost = true;
		for (int c = 0; c < ng; c++) {
			members(p, g[c], mm);
			p->val[mm[q]->id].host = phi;
			p->val[mm[q]->id].wgregs = async;
		}
	}
	for (int c = 0; c < ng; c++)
		p->val[g[c]->id].winplace = true;
	p->wg_async |= async;
}

/* The chains (or lone groups) of each block, their groups' last members in
 * order: host_chain on each.  A chain whose calls are not all async (or
 * all not) is left as it is. */
static void wgmma_inplace(Px *p)
{
	if (p->o->ptx_canonical || p->o->no_phi_coalescing)
		return;
	for (uint32_t b = 0; b < p->f->nblocks; b++) {
		const Inst *g[256];
		int ng = 0;
		bool same = true;
		for (Inst *j = p->f->blocks[b]->first;; j = j->next) {
			bool last = j && j->op == Owgmma && !p->val[j->id].wnext;
			if (ng && (!j || (last && !p->val[j->id].wprev))) {
				if (same)
					host_chain(p, g, ng);
				ng = 0, same = true;
			}
			if (!j)
				break;
			if (last && ng < 256) {
				same &= !ng || ir_wgmma_async(j->imm) == ir_wgmma_async(g[0]->imm);
				g[ng++] = j;
			}
		}
	}
}

static void open_groups(Px *p);
static void dirty_slm(Px *p);

/* Groups of cm_wgmma calls that are one wgmma of N = the sum of theirs
 * (at most 256): calls of one precision and N, one after another in a
 * block with only pure register instructions between them (no memory
 * access, barrier or other call), on one A (the same offset) and
 * consecutive B blocks (each call's slm_b 32 N bytes after the last's),
 * none reading another's result, and nothing between them reading one
 * (nor a copy of one in another layout or in SLM, made after it):
 * a 128-column tile kept as four 16 x 32 accumulators is one m64n128k16.
 * The D fragment of m64n(kN) is the k calls' fragments one after another
 * (8 columns a 4 registers), so each call's registers are its own part.
 * Marks wnext (the next member) and whead (the first) on every member;
 * px_wgmma emits the group at its last member. */
void px_wgmma_groups(Px *p)
{
	for (uint32_t b = 0; b < p->f->nblocks; b++)
		for (Inst *i = p->f->blocks[b]->first; i; i = i->next) {
			if (i->op != Owgmma || p->val[i->id].whead)
				continue;
			Inst *last = i;
			int n = ir_wgmma_n(i), total = n;
			for (Inst *j = i->next; j; j = j->next) {
				if (reads_group(p, j, i, last))
					break;
				if (j->op == Owgmma) {
					/* last's result is made at the group's end: no copy
					 * of it may be made right after it (assign.c) */
					const PxVal *lv = &p->val[last->id];
					if (lv->ncopies || lv->in_slm || j->imm != i->imm ||
					    ir_wgmma_n(j) != n || total + n > 256 ||
					    (j->ops[1] != i->ops[1] && !byte_step(i->ops[1], j->ops[1], 0)) ||
					    !byte_step(last->ops[2], j->ops[2],
					               (int64_t)ir_wgmma_b_bytes((uint32_t)n, ir_wgmma_sw(i->imm))))
						break;
					p->val[last->id].wnext = j;
					last = j;
					total += n;
					continue;
				}
				unsigned fl = ir_ops[j->op].flags;
				if (!(fl & IRF_PURE) || (fl & IRF_MEM) || j->op == Ophi)
					break;
			}
			if (last == i)
				continue;
			for (Inst *m = i; m; m = (Inst *)p->val[m->id].wnext)
				p->val[m->id].whead = i;
		}
	if (!p->o->no_wgmma_chains)
		wgmma_chains(p);
	wgmma_inplace(p);
	if (p->wg_async)
		open_groups(p);
	if (p->wgmma)
		dirty_slm(p);
}

/* Whether block b ends with async wgmmas issued and not committed, given
 * whether it starts so (open). */
static bool open_out(const Px *p, const Block *b, bool open)
{
	for (const Inst *i = b->first; i; i = i->next)
		if (i->op == Owgwait)
			open = false;
		else if (i->op == Owgmma && p->val[i->id].winplace && ir_wgmma_async(i->imm))
			open = true;
	return open;
}

/* Px.wg_open_in: whether some path into each block leaves async wgmmas
 * uncommitted (a forward "may" problem over the CFG, to a fixed point). */
static void open_groups(Px *p)
{
	Func *f = p->f;
	p->wg_open_in = NEWN(p->arena, bool, f->nblocks + 1);
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t b = 0; b < f->nblocks; b++) {
			const Block *B = f->blocks[b];
			if (!open_out(p, B, p->wg_open_in[B->id]))
				continue;
			for (int s = 0; s < ir_nsucc(B); s++)
				if (!p->wg_open_in[B->jmp.to[s]->id])
					p->wg_open_in[B->jmp.to[s]->id] = changed = true;
		}
	}
}

/* Whether i writes the kernel's SLM (through the generic proxy, which the
 * wgmmas' reads must be fenced from: stores, scatters, atomics, copies). */
static bool writes_slm(const Inst *i)
{
	if (i->op == Oslmcopy)
		return true;
	return (ir_ops[i->op].flags & IRF_MEM) && i->space == SP_SLM && i->op != Obload &&
	       i->op != Omload && i->op != Ogather && i->op != Ogather4 && i->op != Otload;
}

/* Whether b ends with SLM written since the last fence.proxy.async (a
 * barrier's, or a wgmma chain's at its start), given whether it starts so. */
static bool dirty_out(const Px *p, const Block *b, bool dirty)
{
	for (const Inst *i = b->first; i; i = i->next)
		if (writes_slm(i))
			dirty = true;
		else if (i->op == Obarrier || (i->op == Owgmma && !p->val[i->id].wnext &&
		                                !p->val[i->id].wprev))
			dirty = false;
	return dirty;
}

/* Px.wg_dirty_in: whether some path into each block has written SLM since
 * its last fence (a forward "may" problem, to a fixed point). */
static void dirty_slm(Px *p)
{
	Func *f = p->f;
	p->wg_dirty_in = NEWN(p->arena, bool, f->nblocks + 1);
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t b = 0; b < f->nblocks; b++) {
			const Block *B = f->blocks[b];
			if (!dirty_out(p, B, p->wg_dirty_in[B->id]))
				continue;
			for (int s = 0; s < ir_nsucc(B); s++)
				if (!p->wg_dirty_in[B->jmp.to[s]->id])
					p->wg_dirty_in[B->jmp.to[s]->id] = changed = true;
		}
	}
}

void px_wgmma_block(Px *p, const Block *b)
{
	p->wg_clear = !p->wg_async;   /* a predecessor may have left one in flight */
	p->wg_open = p->wg_async && p->wg_open_in[b->id];
	p->wg_dirty = p->wgmma && p->wg_dirty_in[b->id];
}

void px_wgmma_after(Px *p, const Inst *i)
{
	if (p->wgmma && writes_slm(i))
		p->wg_dirty = true;
}

void px_wgmma_fence(Px *p)
{
	if (p->wg_dirty)
		px_ins(p, "fence.proxy.async.shared::cta");
	p->wg_dirty = false;
}

/* wgmma.commit_group for the async wgmmas not yet committed, if any. */
static void commit_open(Px *p)
{
	if (p->wg_open)
		px_ins(p, "wgmma.commit_group.sync.aligned");
	p->wg_open = false;
}

bool px_wgmma_wait(Px *p, const Inst *i)
{
	commit_open(p);
	px_ins(p, "wgmma.wait_group.sync.aligned %d", (int)i->imm);
	if (!i->imm)
		p->wg_clear = true;
	return true;
}

void px_wgmma_settle(Px *p)
{
	if (p->wg_clear)
		return;
	px_comment(p, "wgmma: waits for the async wgmmas that write what follows reads");
	commit_open(p);
	px_ins(p, "wgmma.wait_group.sync.aligned 0");
	p->wg_clear = true;
}

bool px_wgmma_reads(const Px *p, const Inst *i)
{
	for (uint32_t k = 0; k < i->nops; k++)
		if (i->ops[k] && p->val[i->ops[k]->id].wgregs)
			return true;
	return false;
}

/* Into ok (a predicate, anded): the wgmma operand at o (a u32 register)
 * spanning span bytes is aligned (16 bytes; with the swizzle sw, at most
 * 96 bytes into a 1024-byte block) and inside the kernel's SLM. */
static void operand_ok(Px *p, const char *ok, const char *o, uint32_t span, bool sw)
{
	const char *t = px_tmp(p, RC_B32);
	uint32_t slm = p->f->slm_size;
	px_ins(p, "and.b32 %s, %s, 15", t, o);
	px_ins(p, "setp.eq.and.u32 %s, %s, 0, %s", ok, t, ok);
	if (sw) {
		px_ins(p, "and.b32 %s, %s, 1023", t, o);
		px_ins(p, "setp.le.and.u32 %s, %s, 96, %s", ok, t, ok);
		px_ins(p, "and.b32 %s, %s, -128", t, o);
		o = t;
	}
	px_ins(p, "setp.le.and.u32 %s, %s, %u, %s", ok, o, slm >= span ? slm - span : 0, ok);
	if (slm < span)
		px_ins(p, "setp.ne.and.u32 %s, 0, 0, %s", ok, ok);
}

/* A predicate: the wgmma's A (at a) and its B of N = bn columns (at b)
 * are aligned and inside the kernel's SLM (operand_ok). */
static const char *operands_ok(Px *p, const char *a, const char *b, uint32_t bn, bool sw)
{
	const char *ok = px_tmp(p, RC_PRED);
	px_ins(p, "setp.eq.u32 %s, 0, 0", ok);
	operand_ok(p, ok, a, ir_wgmma_a_bytes(sw), sw);
	operand_ok(p, ok, b, ir_wgmma_b_bytes(bn, sw), sw);
	return ok;
}

/* Whether x mod m (m a power of 2, at most 2^31) is known: into *r
 * (constants, sums and values px_known_align makes multiples of m). */
static bool residue(const Inst *x, uint32_t m, uint32_t *r, int depth)
{
	int64_t c;
	uint32_t ra, rb;
	if (ir_const_int32(x, &c)) {
		*r = (uint32_t)c & (m - 1);
		return true;
	}
	if (px_known_align(x) >= m) {
		*r = 0;
		return true;
	}
	if (depth > 8 || x->op != Oadd || x->ty.n != 1 || !residue(x->ops[0], m, &ra, depth + 1) ||
	    !residue(x->ops[1], m, &rb, depth + 1))
		return false;
	*r = (ra + rb) & (m - 1);
	return true;
}

/* Whether the value ranges (range.c) and alignments keep the wgmma
 * operand x spanning span bytes aligned (operand_ok) and inside the
 * kernel's SLM. */
static bool operand_inside(const Px *p, const Inst *x, uint32_t span, bool sw)
{
	uint32_t slm = p->f->slm_size, r;
	uint64_t u = p->val[x->id].umax;
	if (!sw)
		return slm >= span && u != UINT64_MAX && u <= slm - span && px_known_align(x) >= 16;
	return residue(x, 1024, &r, 0) && r <= 96 && r % 16 == 0 && slm >= span &&
	       u != UINT64_MAX && u - r % 128 <= slm - span;
}

/* Whether both operands of a wgmma (A at a, B of N = bn columns at b) are
 * inside: then it needs no test, and a chain of such wgmmas no branch
 * between them (ptxas serializes wgmmas that a branch separates). */
static bool operands_inside(const Px *p, const Inst *a, const Inst *b, uint32_t bn, bool sw)
{
	return operand_inside(p, a, ir_wgmma_a_bytes(sw), sw) &&
	       operand_inside(p, b, ir_wgmma_b_bytes(bn, sw), sw);
}

/* One wgmma m64nNk16 on d[0 .. N/2 - 1] (read and written), A at a, B at
 * b, fenced before (fence) and waited for (wait; a chain's groups do
 * both once, px_wgmma).  fence.proxy.async makes this warp's SLM writes visible
 * to the wgmma's reads (cm_barrier does the same for the other warps'),
 * and the wait makes the result ready, and the SLM free to write, at the
 * next instruction. */
static void issue(Px *p, int prec, bool sw, int n, const char **d, const char *a,
                  const char *b, bool fence, bool wait)
{
	const char *da = px_tmp(p, RC_B64), *db = px_tmp(p, RC_B64);
	descriptor(p, da, a, sw);
	descriptor(p, db, b, sw);
	if (fence) {
		px_wgmma_fence(p);
		px_ins(p, "wgmma.fence.sync.aligned");
	}
	Buf s = {0};
	buf_printf(&s, "wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s {", n, ab_type(prec),
	           ab_type(prec));
	for (int r = 0; r < n / 2; r++)
		buf_printf(&s, "%s%s", r ? ", " : "", d[r]);
	buf_printf(&s, "}, %s, %s, 1, 1, 1, 0, 0", da, db);
	px_ins(p, "%s", buf_cstr(&s));
	buf_free(&s);
	if (wait) {
		px_ins(p, "wgmma.commit_group.sync.aligned");
		px_ins(p, "wgmma.wait_group.sync.aligned 0");
	}
}

/* Member i's accumulator moved into the registers the wgmma updates (its
 * result's own when the result lives in the fragment), those into d. */
static bool take_acc(Px *p, Inst *i, const char **d)
{
	int nregs = ir_wgmma_n(i) / 2;
	const Layout *fl = px_dpas_layout(p, i, 0), *rd = px_read_layout(p, i, 0);
	const Inst *c = i->ops[0];
	const char **cr = NEWN(p->arena, const char *, nregs);
	if (lay_equal(rd, fl)) {
		for (int r = 0; r < nregs; r++)
			cr[r] = px_reg_in(p, c, rd, (uint32_t)r);
	} else {
		const char **s = NEWN(p->arena, const char *, rd->nregs);
		for (uint32_t r = 0; r < rd->nregs; r++)
			s[r] = px_reg_in(p, c, rd, r);
		for (int r = 0; r < nregs; r++)
			cr[r] = px_tmp(p, RC_F32);
		LPlan *pl = lay_plan(p->arena, fl, rd, NULL);
		p->nshfl += pl->shfl;
		px_emit_plan(p, E_F32, cr, s, pl, false, NULL);
	}
	bool direct = lay_equal(p->val[i->id].lay, fl);
	for (int r = 0; r < nregs; r++) {
		d[r] = direct ? px_own(p, i, (uint32_t)r) : px_tmp(p, RC_F32);
		if (strcmp(d[r], cr[r]))
			px_ins(p, "mov.f32 %s, %s", d[r], cr[r]);
	}
	return direct;
}

/* The result of member i from d into its own layout (not the fragment:
 * -fptx-layout=canonical). */
static void give_result(Px *p, const Inst *i, const char **d)
{
	const Layout *dst = p->val[i->id].lay, *fl = px_dpas_layout(p, i, 0);
	const char **o = NEWN(p->arena, const char *, dst->nregs);
	for (uint32_t k = 0; k < dst->nregs; k++)
		o[k] = px_own(p, i, k);
	LPlan *pl = lay_plan(p->arena, dst, fl, NULL);
	p->nshfl += pl->shfl;
	px_emit_plan(p, E_F32, o, d, pl, false, NULL);
}

/* Owgmma as wgmma.mma_async m64nNk16 on the warpgroup (the 4 warps of 4
 * consecutive CM threads), alone or, at the last member of a group
 * (px_wgmma_groups), the group's calls as one wgmma.  An operand not
 * 16-byte aligned or not inside the SLM (the same for the 4 warps) skips
 * the call; a group whose operands are not all inside runs its calls one
 * at a time instead, each with its own test, in the cold section. */
bool px_wgmma(Px *p, Inst *i)
{
	PxVal *pv = &p->val[i->id];
	if (pv->wnext) {
		px_comment(p, "wgmma: %%%u is a part of the wgmma of its group's last call", i->id);
		return true;
	}
	Inst *m[32];
	int k = 0, n = ir_wgmma_n(i), prec = ir_wgmma_prec(i->imm);
	bool sw = ir_wgmma_sw(i->imm);
	for (Inst *x = pv->whead ? (Inst *)pv->whead : i; x && k < 32;
	     x = (Inst *)p->val[x->id].wnext)
		m[k++] = x;
	/* in a chain (px_wgmma_groups), the first group fences and takes the
	 * accumulators, the others update its registers, the last waits (an
	 * async chain in place does not: cm_wgmma_wait or a read does) */
	bool chained = pv->wprev != NULL, more = pv->wmore, chain = chained || more;
	bool stay = pv->winplace && ir_wgmma_async(i->imm);
	px_comment(p, "wgmma: m64n%dk16 from SLM (%d call%s)%s%s", n * k, k, k > 1 ? "s" : "",
	           !chain ? "" : !chained ? ", its chain's first" : more ? ", chained" :
	           stay ? ", its chain's last" : ", its chain's last: waits for the chain",
	           stay ? " (async, in place: not waited for)" : "");
	const char **d = chained ? p->wacc : NEWN(p->arena, const char *, (size_t)(n / 2 * k));
	bool *direct = NEWN(p->arena, bool, (size_t)k);
	if (!chained && !pv->winplace)   /* the accumulators may be copied */
		for (int q = 0; q < k; q++)
			if (p->val[m[q]->ops[0]->id].wgregs)
				px_wgmma_settle(p);
	for (int q = 0; q < k; q++)
		direct[q] = chained ? lay_equal(p->val[m[q]->id].lay, px_dpas_layout(p, m[q], 0))
		                    : take_acc(p, m[q], d + q * (n / 2));
	if (chain && !chained) {
		px_wgmma_fence(p);
		px_ins(p, "wgmma.fence.sync.aligned");
	}
	const char *a = px_reg(p, m[0]->ops[1], 0), *b = px_reg(p, m[0]->ops[2], 0);
	uint32_t bn = (uint32_t)(n * k);
	bool inside = operands_inside(p, m[0]->ops[1], m[0]->ops[2], bn, sw);
	const char *cold = px_label(p), *done = px_label(p);
	if (!inside)
		px_ins(p, "@!%s bra.uni %s", operands_ok(p, a, b, bn, sw), k > 1 ? cold : done);
	else
		px_comment(p, "wgmma: its operands are inside the SLM (value ranges)");
	issue(p, prec, sw, n * k, d, a, b, !chain, !chain && !stay);
	if (stay)
		p->wg_clear = false, p->wg_open = true;
	buf_printf(&p->body, "%s:\n", done);
	if (k > 1 && !inside) {
		px_cold_begin(p, cold);
		for (int q = 0; q < k; q++) {
			const char *aq = px_reg(p, m[q]->ops[1], 0), *bq = px_reg(p, m[q]->ops[2], 0);
			const char *okq = operands_ok(p, aq, bq, (uint32_t)n, sw);
			const char *skip = px_label(p);
			px_ins(p, "@!%s bra.uni %s", okq, skip);
			issue(p, prec, sw, n, d + q * (n / 2), aq, bq, true, true);
			buf_printf(&p->body, "%s:\n", skip);
		}
		px_cold_end(p, done);
	}
	if (more) {
		p->wacc = d;   /* the next group's accumulators; no result yet */
		return true;
	}
	if (stay)   /* in its phis' registers, where d is */
		return true;
	if (chained) {
		px_ins(p, "wgmma.commit_group.sync.aligned");
		px_ins(p, "wgmma.wait_group.sync.aligned 0");
	}
	for (int q = 0; q < k; q++) {
		if (!direct[q])
			give_result(p, m[q], d + q * (n / 2));
		else if (chained)
			for (int r = 0; r < n / 2; r++)
				if (strcmp(px_own(p, m[q], (uint32_t)r), d[q * (n / 2) + r]))
					px_ins(p, "mov.f32 %s, %s", px_own(p, m[q], (uint32_t)r),
					       d[q * (n / 2) + r]);
	}
	return true;
}
