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
