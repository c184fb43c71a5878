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
 * src1 (n = 8*tile + g), and C/D's registers 0 and 1 are elements
 * g*E + 8*tile + 2t and + 1 (registers 2 and 3: rows g + 8).  The FP64
 * shape has the same pattern on doubles: A = element g*4 + t, B = element
 * t*E + n, C/D = g*E + 8*tile + 2t (+1).
 *
 * Moving.  Operands are canonical (element i in lane i % 32, register
 * i / 32), so each fragment register is a gather: lane L wants a known
 * element, and layout.c's plan (lay_plan with a map) groups the lanes by
 * source register into shfl.sync moves, which region.c's px_emit_plan
 * prints.  Operands of 8- or 16-bit elements are gathered once per byte or
 * half of the dword and packed.  Cost, correctness first: per fragment
 * register one shuffle (plus a selp) per source register it reads, e.g.
 * HF with repeat 8 and a packed-dword src2 (2 registers): 2 fragment
 * registers x 2 shuffles; the result is the reverse plan.  A kernel that
 * keeps its tiles in fragment layout across calls would avoid both; that
 * is assign.c's business, not done here.
 */
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

/* Fragment register r (0, 1) of lane L wants element map[r*32 + L] of its
 * source: fills `regs` (class of e) from v by one plan. */
static void gather(Px *p, const Inst *v, const int32_t *map, int nregs, const char **regs)
{
	Elem e = v->ty.elem;
	const Layout *dst = lay_canonical(p->arena, 32u * (uint32_t)nregs);
	const Layout *src = lay_canonical(p->arena, v->ty.n);
	const char **s = NEWN(p->arena, const char *, src->nregs);
	for (uint32_t k = 0; k < src->nregs; k++)
		s[k] = px_reg(p, v, k);
	for (int r = 0; r < nregs; r++)
		regs[r] = px_tmp(p, px_class(e));
	LPlan *pl = lay_plan(p->arena, dst, src, map);
	p->nshfl += pl->shfl;
	px_emit_plan(p, e, regs, s, pl, false, NULL);
}

/* The b32 registers holding dword dw[r*32 + L] of v (dw < 0: don't care),
 * its elements gathered and packed little-endian. */
static void gather_dwords(Px *p, const Inst *v, const int32_t *dw, int nregs, const char **out)
{
	Elem e = v->ty.elem;
	int per = 4 / ir_elem_bytes[e];        /* elements per dword */
	int32_t *map = NEWN(p->arena, int32_t, 32 * nregs);
	const char **piece = NEWN(p->arena, const char *, nregs);
	for (int b = 0; b < per; b++) {
		for (int k = 0; k < 32 * nregs; k++)
			map[k] = dw[k] < 0 ? -1 : dw[k] * per + b;
		gather(p, v, map, nregs, piece);
		for (int r = 0; r < nregs; r++) {
			if (per == 1) {
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

static const char *zero(Elem e)
{
	return e == E_F32 ? "0f00000000" : e == E_F64 ? "0d0000000000000000" : "0";
}

/* Zeroes register r of class e in lanes whose row (lane / 4) is past the
 * repeat count. */
static void zero_rows(Px *p, Elem e, const char *r, const char *valid)
{
	px_ins(p, "selp.%s %s, %s, %s, %s", px_ty(e), r, r, zero(e), valid);
}

/* One tile (8 output columns from column 8*tile): A and the accumulator's
 * fragments gathered, B's, the mma, and d[] the result fragments. */
static void tile(Px *p, const Inst *i, const MmaForm *m, const char **afr, int tile,
                 const char *valid, const char **d)
{
	int es = ir_dpas_es(i), rc = ir_dpas_rc(i);
	bool df = ir_dpas_p1(i) == PR_DF;
	Elem ae = i->ty.elem;
	int32_t bmap[64], cmap[64];
	for (int L = 0; L < 32; L++) {
		int g = L / 4, t = L % 4, n = 8 * tile + g;
		for (int r = 0; r < m->nb; r++)
			bmap[r * 32 + L] = (t + 4 * r) * es + n;
		for (int r = 0; r < 2; r++)
			cmap[r * 32 + L] = g < rc ? g * es + 8 * tile + 2 * t + r : -1;
	}
	const char *b[2], *c[4];
	if (df)
		gather(p, i->ops[1], bmap, 1, b);
	else
		gather_dwords(p, i->ops[1], bmap, m->nb, b);
	if (ir_dpas_p1(i) == PR_TF32)           /* tf32 ignores 13 mantissa bits */
		for (int r = 0; r < m->nb; r++)
			px_ins(p, "and.b32 %s, %s, 0xffffe000", b[r], b[r]);
	gather(p, i->ops[0], cmap, 2, c);
	for (int r = 0; r < 2; r++)
		zero_rows(p, ae, c[r], valid);
	for (int r = 2; r < m->nc; r++) {
		c[r] = px_tmp(p, px_class(ae));
		px_ins(p, "mov.%s %s, %s", px_ty(ae), c[r], zero(ae));
	}
	for (int r = 0; r < m->nc; r++)
		d[r] = px_tmp(p, px_class(ae));
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
static void a_fragments(Px *p, const Inst *i, const MmaForm *m, const char *valid,
                        const char **afr)
{
	const Inst *a = i->ops[2];
	int rc = ir_dpas_rc(i);
	int32_t map[64];
	for (int L = 0; L < 32; L++) {
		int g = L / 4, t = L % 4;
		map[L] = g < rc ? (m->na == 1 ? g * 4 + t : g * 8 + t) : -1;
		map[32 + L] = g < rc ? g * 8 + 4 + t : -1;
	}
	const char *f[2];
	if (m->na == 1) {
		gather(p, a, map, 1, f);
		zero_rows(p, E_F64, f[0], valid);
		afr[0] = f[0];
		return;
	}
	gather_dwords(p, a, map, 2, f);
	for (int r = 0; r < 2; r++) {
		zero_rows(p, E_U32, f[r], valid);
		if (ir_dpas_p2(i) == PR_TF32)
			px_ins(p, "and.b32 %s, %s, 0xffffe000", f[r], f[r]);
	}
	const char *zero = px_tmp(p, RC_B32);
	px_ins(p, "mov.b32 %s, 0", zero);
	afr[0] = f[0], afr[1] = zero, afr[2] = f[1], afr[3] = zero;
}

/* The result fragments (d[tile * nc + r]) into i's canonical registers:
 * element g*E + 8*tile + 2t + r sits in register tile*2 + r, lane 4g + t. */
static void scatter_result(Px *p, const Inst *i, const MmaForm *m, const char **d, int ntiles)
{
	int es = ir_dpas_es(i);
	Layout *fl = NEW(p->arena, Layout);
	fl->n = i->ty.n;
	fl->nregs = (uint32_t)(2 * ntiles);
	fl->pos = NEWN(p->arena, uint32_t, fl->n);
	for (uint32_t e = 0; e < fl->n; e++) {
		int g = (int)e / es, col = (int)e % es, tl = col / 8, c = col % 8;
		fl->pos[e] = (uint32_t)((tl * 2 + c % 2) * 32 + g * 4 + c / 2);
	}
	const char **s = NEWN(p->arena, const char *, fl->nregs);
	for (int t = 0; t < ntiles; t++)
		for (int r = 0; r < 2; r++)
			s[t * 2 + r] = d[t * m->nc + r];
	const Layout *dst = lay_canonical(p->arena, i->ty.n);
	const char **o = NEWN(p->arena, const char *, dst->nregs);
	for (uint32_t k = 0; k < dst->nregs; k++)
		o[k] = px_own(p, i, k);
	LPlan *pl = lay_plan(p->arena, dst, fl, NULL);
	p->nshfl += pl->shfl;
	px_emit_plan(p, i->ty.elem, o, s, pl, false, NULL);
}

bool px_dpas(Px *p, Inst *i)
{
	MmaForm m = mma_form(p, i);
	int ntiles = ir_dpas_es(i) / 8;
	px_comment(p, "dpas: %d x mma.sync.%s (repeat %d)", ntiles, m.shape, ir_dpas_rc(i));
	const char *valid = px_lane_lt(p, 4u * (uint32_t)ir_dpas_rc(i));
	const char *afr[4];
	a_fragments(p, i, &m, valid, afr);
	const char **d = NEWN(p->arena, const char *, ntiles * m.nc);
	for (int t = 0; t < ntiles; t++)
		tile(p, i, &m, afr, t, valid, d + t * m.nc);
	scatter_result(p, i, &m, d, ntiles);
	return true;
}
