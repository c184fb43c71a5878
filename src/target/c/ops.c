/* ops.c — C for CMIR's computing instructions: element-wise arithmetic
 * (one counted loop per instruction), conversions with CM saturation,
 * rdregion / wrregion / iselect as index loops with constant strides
 * (runtime offsets bounds-checked: out-of-range elements read 0 and
 * writes to them are dropped), reductions and mask packing.
 *
 * Integer arithmetic that may wrap is done in unsigned types of at least
 * 32 bits, so the C has no undefined behaviour; an instruction with .sat
 * or with a result type other than its operands' computes exactly in a
 * wider type (int64_t, __int128, double) and then converts (ir.h). */
#include <string.h>

#include "target/c/c.h"

#define STR(...) arena_printf(g->tmp, __VA_ARGS__)

/* Element k of v as a string (f16 as float). */
static char *rd(CGen *g, const Inst *v, const char *k)
{
	Buf tmp = {0}, *save = g->out;
	g->out = &tmp;
	c_rd(g, v, k);
	g->out = save;
	char *s = arena_strdup(g->tmp, buf_cstr(&tmp));
	buf_free(&tmp);
	return s;
}

static char *conv_str(CGen *g, Elem from, Elem to, bool sat, const char *x)
{
	Buf tmp = {0}, *save = g->out;
	g->out = &tmp;
	c_conv(g, from, to, sat, x);
	g->out = save;
	char *s = arena_strdup(g->tmp, buf_cstr(&tmp));
	buf_free(&tmp);
	return s;
}

/* `for (k...) dst[k] = expr;` (or a plain assignment for a scalar). */
static void assign(CGen *g, const Inst *i, const char *expr)
{
	Buf *o = g->out;
	if (i->ty.n != 1)
		buf_printf(o, "\tfor (int k = 0; k < %u; k++) ", i->ty.n);
	else
		buf_putc(o, '\t');
	c_lv(g, i, "k");
	buf_printf(o, " = %s;\n", expr);
}

static int bits(Elem e) { return ir_elem_bytes[e] * 8; }
static const char *uw(Elem e) { return bits(e) > 32 ? "uint64_t" : "uint32_t"; }
static const char *ut(Elem e)
{
	static const char *const u[] = {"uint8_t", "uint8_t", "uint16_t", "uint16_t",
	                                "uint32_t", "uint64_t"};
	int b = ir_elem_bytes[e];
	return b == 1 ? u[0] : b == 2 ? u[2] : b == 4 ? u[4] : u[5];
}
static const char *st(Elem e)
{
	int b = ir_elem_bytes[e];
	return b == 1 ? "int8_t" : b == 2 ? "int16_t" : b == 4 ? "int32_t" : "int64_t";
}
static const char *fsuf(Elem e) { return e == E_F64 ? "" : "f"; }

/* The compute type of an element: f16 computes as f32. */
static Elem comp(Elem e) { return e == E_F16 ? E_F32 : e; }

/* Plain arithmetic: operands and result of type e, C semantics. */
static char *plain(CGen *g, Op op, Elem e, char *a, char *b, char *c)
{
	const char *T = c_type(comp(e)), *W = uw(e);
	bool f = ir_is_float(e), s = ir_is_signed(e);
	int nb = bits(e), m = nb > 32 ? 63 : 31;
	switch (op) {
	case Ocopy: return a;
	case Oadd: return f ? STR("%s + %s", a, b) : STR("(%s)((%s)%s + (%s)%s)", T, W, a, W, b);
	case Osub: return f ? STR("%s - %s", a, b) : STR("(%s)((%s)%s - (%s)%s)", T, W, a, W, b);
	case Omul: return f ? STR("%s * %s", a, b) : STR("(%s)((%s)%s * (%s)%s)", T, W, a, W, b);
	case Omad: return f ? STR("%s * %s + %s", a, b, c)
	                    : STR("(%s)((%s)%s * (%s)%s + (%s)%s)", T, W, a, W, b, W, c);
	case Odiv:
		if (f)
			return STR("%s / %s", a, b);
		if (s)
			return STR("(%s == 0 ? (%s)0 : %s == -1 ? (%s)(0 - (%s)%s) : (%s)(%s / %s))",
			           b, T, b, T, W, a, T, a, b);
		return STR("(%s == 0 ? (%s)0 : (%s)(%s / %s))", b, T, T, a, b);
	case Orem:
		if (f)
			return STR("fmod%s(%s, %s)", fsuf(e), a, b);
		if (s)
			return STR("(%s == 0 || %s == -1 ? (%s)0 : (%s)(%s %% %s))", b, b, T, T, a, b);
		return STR("(%s == 0 ? (%s)0 : (%s)(%s %% %s))", b, T, T, a, b);
	case Oneg: return f ? STR("-%s", a) : STR("(%s)(0 - (%s)%s)", T, W, a);
	case Oabs:
		if (f)
			return STR("fabs%s(%s)", fsuf(e), a);
		return s ? STR("(%s < 0 ? (%s)(0 - (%s)%s) : %s)", a, T, W, a, a) : a;
	case Omin: return f ? STR("fmin%s(%s, %s)", fsuf(e), a, b) : STR("(%s < %s ? %s : %s)", a, b, a, b);
	case Omax: return f ? STR("fmax%s(%s, %s)", fsuf(e), a, b) : STR("(%s > %s ? %s : %s)", a, b, a, b);
	case Oavg:   /* the sum of two 64-bit values needs 65 bits */
		return STR("(%s)(((%s)%s + (%s)%s + 1) >> 1)", T, nb > 32 ? "__int128" : "int64_t", a,
		           nb > 32 ? "__int128" : "int64_t", b);
	case Omulhi:
		if (nb > 32)
			return STR("(%s)(((%s)%s * (%s)%s) >> 64)", T, s ? "__int128" : "unsigned __int128", a,
			           s ? "__int128" : "unsigned __int128", b);
		return STR("(%s)(((%s)%s * (%s)%s) >> %d)", T, s ? "int64_t" : "uint64_t", a,
		           s ? "int64_t" : "uint64_t", b, nb);
	case Ocarry: return STR("(%s)((%s)((%s)%s + (%s)%s) < (%s)%s)", T, ut(e), W, a, W, b, ut(e), a);
	case Oborrow: return STR("(%s)((%s)%s < (%s)%s)", T, ut(e), a, ut(e), b);
	case Oand: return STR("(%s)(%s & %s)", T, a, b);
	case Oor: return STR("(%s)(%s | %s)", T, a, b);
	case Oxor: return STR("(%s)(%s ^ %s)", T, a, b);
	case Onot: return e == E_I1 ? STR("!%s", a) : STR("(%s)~%s", T, a);
	case Oshl: return STR("(%s)((%s)%s << (%s & %d))", T, W, a, b, m);
	case Oashr: return STR("(%s)((int64_t)(%s)%s >> (%s & %d))", T, st(e), a, b, m);
	case Olshr: return STR("(%s)((%s)(%s)%s >> (%s & %d))", T, W, ut(e), a, b, m);
	case Orol:
		return STR("(%s)(((%s)(%s)%s << (%s & %d)) | ((%s)(%s)%s >> ((%d - (%s & %d)) & %d)))", T,
		           W, ut(e), a, b, nb - 1, W, ut(e), a, nb, b, nb - 1, nb - 1);
	case Oror:
		return STR("(%s)(((%s)(%s)%s >> (%s & %d)) | ((%s)(%s)%s << ((%d - (%s & %d)) & %d)))", T,
		           W, ut(e), a, b, nb - 1, W, ut(e), a, nb, b, nb - 1, nb - 1);
	case Oinv: return STR("1.0%s / %s", f && e != E_F64 ? "f" : "", a);
	case Olog2: return STR("log2%s(%s)", fsuf(e), a);
	case Oexp2: return STR("exp2%s(%s)", fsuf(e), a);
	case Osqrt: return STR("sqrt%s(%s)", fsuf(e), a);
	case Orsqrt: return STR("1.0%s / sqrt%s(%s)", e != E_F64 ? "f" : "", fsuf(e), a);
	case Osin: return STR("sin%s(%s)", fsuf(e), a);
	case Ocos: return STR("cos%s(%s)", fsuf(e), a);
	case Oasin: return STR("asin%s(%s)", fsuf(e), a);
	case Oacos: return STR("acos%s(%s)", fsuf(e), a);
	case Oatan: return STR("atan%s(%s)", fsuf(e), a);
	case Opow: return STR("pow%s(%s, %s)", fsuf(e), a, b);
	case Ofrc: return STR("(%s - floor%s(%s))", a, fsuf(e), a);
	case Orndd: return STR("floor%s(%s)", fsuf(e), a);
	case Orndu: return STR("ceil%s(%s)", fsuf(e), a);
	case Ornde: return STR("nearbyint%s(%s)", fsuf(e), a);
	case Orndz: return STR("trunc%s(%s)", fsuf(e), a);
	case Ocbit: return STR("(uint32_t)__builtin_popcountll((uint64_t)(%s)%s)", ut(e), a);
	case Ofbl: return STR("cmk_fbl((uint64_t)(%s)%s)", ut(e), a);
	case Ofbh: return s ? STR("cmk_fbh_s((int64_t)%s, %d)", a, nb)
	                    : STR("cmk_fbh_u((uint64_t)(%s)%s, %d)", ut(e), a, nb);
	case Olzd: return STR("cmk_lzd((uint64_t)(%s)%s, %d)", ut(e), a, nb);
	case Obfrev: return nb > 32 ? STR("cmk_bfrev64((uint64_t)%s)", a)
	                            : STR("(cmk_bfrev32((uint32_t)(%s)%s) >> %d)", ut(e), a, 32 - nb);
	default:
		return NULL;
	}
}

/* The exact value of an arithmetic op in a wide type: int64_t for
 * integers up to 32 bits (*we = E_I64), __int128 for 64-bit ones
 * (*we = E_VOID), double for floats (*we = E_F64).  A product of u64
 * values may pass 2^127: it is formed unsigned and, when sat, capped at
 * 2^64 (every destination saturates it alike). */
static char *exact(CGen *g, Op op, Elem e, char *a, char *b, char *c, bool sat, Elem *we)
{
	const char *W;
	if (e == E_U64 && (op == Omul || op == Omad)) {
		const char *U = "unsigned __int128";
		char *x = op == Omul ? STR("((%s)%s * (%s)%s)", U, a, U, b) :
		                       STR("((%s)%s * (%s)%s + (%s)%s)", U, a, U, b, U, c);
		*we = E_VOID;
		if (sat)
			return STR("((__int128)(%s > ((%s)1 << 64) ? ((%s)1 << 64) : %s))", x, U, U, x);
		return STR("((__int128)%s)", x);
	}
	if (ir_is_float(e))
		W = "double", *we = E_F64;
	else if (bits(e) > 32 || op == Oshl || op == Omul || op == Omad)
		W = "__int128", *we = E_VOID;
	else
		W = "int64_t", *we = E_I64;
	switch (op) {
	case Oadd: return STR("((%s)%s + (%s)%s)", W, a, W, b);
	case Osub: return STR("((%s)%s - (%s)%s)", W, a, W, b);
	case Omul: return STR("((%s)%s * (%s)%s)", W, a, W, b);
	case Omad: return STR("((%s)%s * (%s)%s + (%s)%s)", W, a, W, b, W, c);
	case Oneg: return STR("(-(%s)%s)", W, a);
	case Oabs: return STR("((%s)%s < 0 ? -(%s)%s : (%s)%s)", W, a, W, a, W, a);
	case Omin: return STR("((%s)%s < (%s)%s ? (%s)%s : (%s)%s)", W, a, W, b, W, a, W, b);
	case Omax: return STR("((%s)%s > (%s)%s ? (%s)%s : (%s)%s)", W, a, W, b, W, a, W, b);
	case Oavg: return STR("(((%s)%s + (%s)%s + 1) >> 1)", W, a, W, b);
	case Oshl: return STR("((%s)%s << (%s & %d))", W, a, b, bits(e) > 32 ? 63 : 31);
	case Oashr: case Olshr: case Odiv: case Orsum: default: {
		*we = comp(e);
		return plain(g, op, e, a, b, c);
	}
	}
}

/* Element kx of v as stored (f16 as its bits, not converted to float). */
static char *raw(CGen *g, const Inst *v, const char *k)
{
	Buf tmp = {0}, *save = g->out;
	g->out = &tmp;
	c_val(g, v, k);
	g->out = save;
	char *s = arena_strdup(g->tmp, buf_cstr(&tmp));
	buf_free(&tmp);
	return s;
}

/* A copy or select of halves moves bits: through float, a NaN's payload
 * would be lost (cmk_f2h gives the canonical NaN), and the GPU keeps it.
 * NULL when i is not such a move. */
static char *half_move(CGen *g, const Inst *i, const char *kx)
{
	if ((i->op != Osel && i->op != Ocopy) || i->sat || i->ty.elem != E_F16)
		return NULL;
	const Inst *v = i->ops[i->op == Osel ? 1 : 0];
	if (v->ty.elem != E_F16)
		return NULL;
	if (i->op == Ocopy)
		return raw(g, v, kx);
	return STR("(%s ? %s : %s)", raw(g, i->ops[0], kx), raw(g, v, kx), raw(g, i->ops[2], kx));
}

/* The C expression of element kx of element-wise instruction i, in its
 * storage type (f16 as bits). */
static char *elem_expr(CGen *g, const Inst *i, const char *kx)
{
	const OpInfo *oi = &ir_ops[i->op];
	char *mv = half_move(g, i, kx);
	if (mv)
		return mv;
	char *a[4] = {0};
	for (int k = 0; k < oi->nops && k < 4; k++)
		a[k] = rd(g, i->ops[k], kx);
	Elem s = i->ops[0]->ty.elem, d = i->ty.elem;
	if (oi->flags & IRF_CMP) {
		static const char *const rel[] = {"==", "!=", "<", "<=", ">", ">="};
		return STR("(%s %s %s)", a[0], rel[i->op - Oeq], a[1]);
	}
	switch (i->op) {
	case Osel:
		return conv_str(g, comp(d), d, false, STR("(%s ? %s : %s)", a[0], a[1], a[2]));
	case Oconv:
		return conv_str(g, comp(s), d, i->sat, a[0]);
	case Obfi:
		s = d;
		return STR("(%s)(((%s)%s & ~(cmk_bfmask(%s & %d) << (%s & %d))) | "
		                 "(((%s)%s & cmk_bfmask(%s & %d)) << (%s & %d)))",
		                 c_type(d), uw(d), a[3], a[0], bits(d) - 1, a[1], bits(d) - 1,
		                 uw(d), a[2], a[0], bits(d) - 1, a[1], bits(d) - 1);
	case Obfe:
		if (ir_is_signed(d))
			return STR("(%s)((%s & %d) ? (int64_t)((uint64_t)((%s)(%s)%s >> (%s & %d)) << "
			                 "(64 - (%s & %d))) >> (64 - (%s & %d)) : 0)",
			                 c_type(d), a[0], bits(d) - 1, uw(d), ut(d), a[2], a[1], bits(d) - 1,
			                 a[0], bits(d) - 1, a[0], bits(d) - 1);
		else
			return STR("(%s)(((%s)%s >> (%s & %d)) & cmk_bfmask(%s & %d))", c_type(d),
			                 uw(d), a[2], a[1], bits(d) - 1, a[0], bits(d) - 1);
	default:
		break;
	}
	bool shift = i->op >= Oshl && i->op <= Oror;
	if (!i->sat && (s == d || shift || i->op == Ocbit || i->op == Ofbl || i->op == Ofbh ||
	                i->op == Olzd)) {
		char *x = plain(g, i->op, s, a[0], a[1], a[2]);
		if (!x)
			die("C back end: no code for %s", oi->name);
		return conv_str(g, comp(s), d, false, x);
	}
	Elem we;
	char *x = exact(g, i->op, s, a[0], a[1], a[2], i->sat, &we);
	return conv_str(g, we, d, i->sat, x);
}

static uint32_t rows_width(CGen *g, const Inst *v);

/* `for (r) for (c)` over rows of width elements of e.  Rows shorter than
 * a vector have their column loop unrolled: the C compiler then
 * vectorizes the row loop at full width (left rolled, it vectorizes the
 * few columns with 8- or 16-byte vectors, or not at all). */
static void rows_loop(CGen *g, const char *ind, uint32_t rows, uint32_t width, Elem e)
{
	buf_printf(g->out, "%sfor (int r = 0; r < %u; r++)\n", ind, rows);
	if (width * ir_elem_bytes[e] < 64)
		buf_printf(g->out, "#pragma GCC unroll %u\n", width);
	buf_printf(g->out, "%sfor (int c = 0; c < %u; c++) ", ind, width);
}

/* An element-wise op whose inlined operands read a region of rows
 * (k / width * vstride + k % width) loops over rows and columns, so that
 * the reads index by r and c (region_at). */
static bool elementwise(CGen *g, const Inst *i)
{
	uint32_t w = i->ty.n > 1 ? rows_width(g, i) : 0;
	if (!w) {
		assign(g, i, elem_expr(g, i, "k"));
		return true;
	}
	g->loop_w = w;
	char *e = elem_expr(g, i, "k");
	g->loop_w = 0;
	rows_loop(g, "\t", i->ty.n / w, w, i->ty.elem);
	buf_printf(g->out, "{ int k = r * %u + c; ", w);
	c_lv(g, i, "k");
	buf_printf(g->out, " = %s; }\n", e);
	return true;
}

/* ---- regions --------------------------------------------------------------- */

/* Regions.  `o` is the region's base (offset plus runtime offset); the
 * emitted loop visits element k of the region at source index x.  A
 * region whose rows follow each other at the same stride (one row, one
 * column, or vstride == width * hstride) is one loop over k, which the C
 * compiler vectorizes when the step is 1; other regions loop over rows r
 * and columns c (rows_loop).  With a runtime offset the range check is
 * done once for the whole region (its lowest and highest index), the loop
 * inside unchecked; only a region that is partly out of range takes the
 * loop that checks each element (reads 0, drops writes). */
typedef struct {
	uint32_t n, rows;     /* elements, rows of width */
	int64_t lo, hi;       /* lowest and highest index relative to o */
	bool flat;            /* one loop: x = o + k * step */
	int step;             /* hstride, or vstride for columns of width 1 */
} RegionShape;

static RegionShape region_shape(uint32_t n, const IrRegion *rg)
{
	RegionShape r = {.n = n, .rows = n / (uint32_t)rg->width};
	int64_t dv = (int64_t)(r.rows - 1) * rg->vstride, dh = (int64_t)(rg->width - 1) * rg->hstride;
	r.lo = (dv < 0 ? dv : 0) + (dh < 0 ? dh : 0);
	r.hi = (dv > 0 ? dv : 0) + (dh > 0 ? dh : 0);
	r.flat = r.rows == 1 || rg->width == 1 ||
	         (int64_t)rg->vstride == (int64_t)rg->width * rg->hstride;
	r.step = r.rows > 1 && rg->width == 1 ? rg->vstride : rg->hstride;
	return r;
}

/* Opens the element loop: defines k (element) and x (source index). */
static void region_open(CGen *g, const RegionShape *r, const IrRegion *rg, Elem e, const char *ind)
{
	Buf *o = g->out;
	if (r->flat) {
		buf_printf(o, "%sfor (int k = 0; k < %u; k++) {\n%s\tint64_t x = o + (int64_t)k * %d;\n",
		           ind, r->n, ind, r->step);
	} else {
		rows_loop(g, ind, r->rows, (uint32_t)rg->width, e);
		buf_printf(o, "{\n%s\tint k = r * %d + c; int64_t x = o + (int64_t)r * %d + (int64_t)c * %d;\n",
		           ind, rg->width, rg->vstride, rg->hstride);
	}
}

/* `int64_t o = offset [+ roff];` */
static void region_base(CGen *g, const Inst *i)
{
	Buf *o = g->out;
	buf_printf(o, "\t{\n\t\tint64_t o = %d", i->rg.offset);
	if (i->has_roff) {
		buf_puts(o, " + (int64_t)");
		c_name(g, ir_roff(i));
	}
	buf_puts(o, ";\n");
}

/* With a runtime offset: `if (whole region in range) {` ... the caller
 * emits the unchecked loop, then region_else the checked one. */
static void region_if(CGen *g, const RegionShape *r, uint32_t srcn)
{
	buf_printf(g->out, "\t\tif (o >= %lld && o <= %lld) {\n", (long long)-r->lo,
	           (long long)srcn - 1 - r->hi);
}

static void region_else(CGen *g, const char *what)
{
	buf_puts(g->out, "\t\t} else {\n");
	if (g->o->bounds_check)
		buf_printf(g->out, "\t\t\tcmk_fault(t, 1, \"%s out of range\", %d);\n", what, g->line);
}

/* One element of a region (a scalar result or value): no loop. */
static bool rdregion_1(CGen *g, const Inst *i, const Inst *s)
{
	Buf *o = g->out;
	if (!i->has_roff) {
		buf_putc(o, '\t');
		c_lv(g, i, "0");
		buf_puts(o, " = ");
		c_lv(g, s, STR("%d", i->rg.offset));
		buf_puts(o, ";\n");
		return true;
	}
	region_base(g, i);
	buf_printf(o, "\t\tif ((uint64_t)o < %u) ", s->ty.n);
	c_lv(g, i, "0");
	buf_puts(o, " = ");
	c_lv(g, s, "o");
	buf_puts(o, ";\n\t\telse {\n\t\t\t");
	c_lv(g, i, "0");
	buf_puts(o, " = 0;\n");
	if (g->o->bounds_check)
		buf_printf(o, "\t\t\tcmk_fault(t, 1, \"rdregion out of range\", %d);\n", g->line);
	buf_puts(o, "\t\t}\n\t}\n");
	return true;
}

static void rd_body(CGen *g, const Inst *i, const Inst *s, bool checked, const char *ind)
{
	buf_printf(g->out, "%s\t", ind);
	c_lv(g, i, "k");
	buf_puts(g->out, " = ");
	if (checked)
		buf_printf(g->out, "(uint64_t)x < %u ? ", s->ty.n);
	c_lv(g, s, "x");
	buf_printf(g->out, "%s;\n%s}\n", checked ? " : 0" : "", ind);
}

static bool rdregion(CGen *g, const Inst *i)
{
	const Inst *s = i->ops[0];
	if (s->ty.n == 1) {   /* splat: a copy of the bits (f16 too) */
		Buf *o = g->out;
		buf_printf(o, "\tfor (int k = 0; k < %u; k++) ", i->ty.n);
		c_lv(g, i, "k");
		buf_puts(o, " = ");
		c_lv(g, s, "0");
		buf_puts(o, ";\n");
		return true;
	}
	if (i->ty.n == 1)
		return rdregion_1(g, i, s);
	RegionShape r = region_shape(i->ty.n, &i->rg);
	region_base(g, i);
	if (i->has_roff) {
		region_if(g, &r, s->ty.n);
		region_open(g, &r, &i->rg, i->ty.elem, "\t\t\t");
		rd_body(g, i, s, false, "\t\t\t");
		region_else(g, "rdregion");
		region_open(g, &r, &i->rg, i->ty.elem, "\t\t\t");
		rd_body(g, i, s, true, "\t\t\t");
		buf_puts(g->out, "\t\t}\n");
	} else {
		region_open(g, &r, &i->rg, i->ty.elem, "\t\t");
		rd_body(g, i, s, false, "\t\t");
	}
	buf_puts(g->out, "\t}\n");
	return true;
}

static void wr_body(CGen *g, const Inst *i, bool checked, const char *ind)
{
	const Inst *val = i->ops[1], *m = ir_mask(i);
	Buf *o = g->out;
	buf_printf(o, "%s\t", ind);
	if (checked || m) {
		buf_puts(o, "if (");
		if (checked)
			buf_printf(o, "(uint64_t)x < %u%s", i->ty.n, m ? " && " : "");
		if (m)
			c_lv(g, m, "k");
		buf_puts(o, ") ");
	}
	c_lv(g, i, "x");
	buf_puts(o, " = ");
	c_val(g, val, "k");
	buf_printf(o, ";\n%s}\n", ind);
}

static bool wrregion(CGen *g, const Inst *i)
{
	const Inst *old = i->ops[0], *val = i->ops[1], *m = ir_mask(i);
	Buf *o = g->out;
	if (g->store[i->id] != g->store[old->id]) {
		buf_puts(o, "\tmemcpy(");
		c_name(g, i);
		buf_puts(o, ", ");
		c_name(g, old);
		buf_puts(o, ", sizeof ");
		c_name(g, i);
		buf_puts(o, ");\n");
	}
	if (i->ty.n == 1) {   /* a scalar: the region is element 0 */
		buf_putc(o, '\t');
		if (m) {
			buf_puts(o, "if (");
			c_lv(g, m, "0");
			buf_puts(o, ") ");
		}
		c_lv(g, i, "0");
		buf_puts(o, " = ");
		c_lv(g, val, "0");
		buf_puts(o, ";\n");
		return true;
	}
	RegionShape r = region_shape(val->ty.n, &i->rg);
	region_base(g, i);
	if (val->ty.n == 1 && !m) {   /* one element */
		buf_puts(o, "\t\t");
		if (i->has_roff)
			buf_printf(o, "if ((uint64_t)o < %u) ", i->ty.n);
		c_lv(g, i, "o");
		buf_puts(o, " = ");
		c_lv(g, val, "0");
		buf_puts(o, ";\n");
		if (i->has_roff && g->o->bounds_check)
			buf_printf(o, "\t\telse cmk_fault(t, 1, \"wrregion out of range\", %d);\n", g->line);
	} else {
		g->loop_wr = i;
		g->loop_w = r.flat ? 0 : (uint32_t)i->rg.width;
		if (i->has_roff) {
			region_if(g, &r, i->ty.n);
			region_open(g, &r, &i->rg, i->ty.elem, "\t\t\t");
			wr_body(g, i, false, "\t\t\t");
			region_else(g, "wrregion");
			region_open(g, &r, &i->rg, i->ty.elem, "\t\t\t");
			wr_body(g, i, true, "\t\t\t");
			buf_puts(o, "\t\t}\n");
		} else {
			region_open(g, &r, &i->rg, i->ty.elem, "\t\t");
			wr_body(g, i, false, "\t\t");
		}
		g->loop_wr = NULL;
		g->loop_w = 0;
	}
	buf_puts(o, "\t}\n");
	return true;
}

static bool iselect(CGen *g, const Inst *i)
{
	const Inst *s = i->ops[0], *idx = i->ops[1];
	char *x = rd(g, idx, "k");
	Buf tmp = {0}, *save = g->out;
	g->out = &tmp;
	c_lv(g, s, STR("%s", x));
	g->out = save;
	char *src = s->ty.n == 1 ? STR("%s", buf_cstr(&tmp)) : arena_strdup(g->tmp, buf_cstr(&tmp));
	buf_free(&tmp);
	assign(g, i, STR("((uint64_t)%s < %u ? %s : 0)", x, s->ty.n, src));
	if (g->o->bounds_check) {   /* an index past the source read 0: report it */
		if (i->ty.n != 1)
			buf_printf(g->out, "	for (int k = 0; k < %u; k++) ", i->ty.n);
		else
			buf_putc(g->out, '\t');
		buf_printf(g->out, "if ((uint64_t)%s >= %u) cmk_fault(t, 1, \"iselect index out of "
		           "range\", %d);\n", x, s->ty.n, g->line);
	}
	return true;
}

/* ---- reductions and masks -------------------------------------------------- */

/* A float sum adds its lanes as a tree, the upper half onto the lower,
 * one loop per level, in float (double when the source or the result is
 * double), as the GPU adds them (docs/floating-point.md).  Summed in lane
 * order in double, as before, n dependent conversions and additions were
 * most of a short reduction's time: about 30 cycles for spmv_rows' 8-wide
 * sum on every row, whatever the row's length. */
static void fsum_tree(CGen *g, const Inst *i, const Inst *s)
{
	Buf *o = g->out;
	uint32_t n = s->ty.n;
	Elem e = s->ty.elem == E_F64 || i->ty.elem == E_F64 ? E_F64 : E_F32;
	buf_printf(o, "	{ %s a[%u]; for (int k = 0; k < %u; k++) a[k] = %s;\n", c_type(e), n, n,
	           rd(g, s, "k"));
	for (uint32_t m = n; m > 1; m -= m / 2)
		buf_printf(o, "	for (int k = 0; k < %u; k++) a[k] += a[k + %u];\n", m / 2, m - m / 2);
	buf_putc(o, '\t');
	c_lv(g, i, "0");
	buf_printf(o, " = %s; }\n", conv_str(g, e, i->ty.elem, i->sat, "a[0]"));
}

static bool reduce(CGen *g, const Inst *i)
{
	const Inst *s = i->ops[0];
	Buf *o = g->out;
	Elem e = s->ty.elem;
	if (i->op == Orsum && ir_is_float(e) && ir_is_float(i->ty.elem) && s->ty.n > 1) {
		fsum_tree(g, i, s);
		return true;
	}
	const char *acc = ir_is_float(e) ? "double" : bits(e) > 32 ? "__int128" : "int64_t";
	if (i->op == Oany || i->op == Oall) {
		buf_printf(o, "\t{ int a = %d; for (int k = 0; k < %u; k++) a %s ", i->op == Oall, s->ty.n,
		           i->op == Oall ? "&=" : "|=");
		c_lv(g, s, "k");
		buf_puts(o, " != 0; ");
		c_lv(g, i, "0");
		buf_puts(o, " = (uint8_t)a; }\n");
		return true;
	}
	if (i->op == Opack) {
		buf_puts(o, "\t{ uint32_t a = 0; for (int k = 0; k < ");
		buf_printf(o, "%u; k++) a |= (uint32_t)(", s->ty.n);
		c_lv(g, s, "k");
		buf_puts(o, " != 0) << k; ");
		c_lv(g, i, "0");
		buf_puts(o, " = a; }\n");
		return true;
	}
	if (i->op == Ounpack) {
		/* one element (a merge into a 1-element region) has no loop */
		assign(g, i, STR(i->ty.n == 1 ? "(uint8_t)(%s & 1)" : "(uint8_t)((%s >> k) & 1)",
		                 rd(g, s, "0")));
		return true;
	}
	const char *init = i->op == Orprod ? "1" : "0";
	char *x = rd(g, s, "k");
	buf_printf(o, "\t{ %s a = %s; ", acc, init);
	if (i->op == Ormin || i->op == Ormax)
		buf_printf(o, "a = %s; ", rd(g, s, "0"));
	buf_printf(o, "for (int k = 0; k < %u; k++) ", s->ty.n);
	switch (i->op) {
	case Orsum: buf_printf(o, "a += %s; ", x); break;
	case Orprod: buf_printf(o, "a *= %s; ", x); break;
	case Ormin: buf_printf(o, "a = %s < a ? %s : a; ", x, x); break;
	default: buf_printf(o, "a = %s > a ? %s : a; ", x, x); break;
	}
	c_lv(g, i, "0");
	Elem we = ir_is_float(e) ? E_F64 : bits(e) > 32 ? E_VOID : E_I64;
	buf_printf(o, " = %s; }\n", conv_str(g, we, i->ty.elem, i->sat, "a"));
	return true;
}

/* The width of the first region of rows (not one flat run) that v's
 * inlined operands read, or 0. */
static uint32_t rows_width(CGen *g, const Inst *v)
{
	for (int k = 0; k < ir_ops[v->op].nops; k++) {
		const Inst *x = v->ops[k];
		if (!x || !g->inl || !g->inl[x->id] || x->ty.n != v->ty.n)
			continue;
		if (x->op == Ordregion && x->ops[0]->ty.n > 1 && !region_shape(x->ty.n, &x->rg).flat)
			return (uint32_t)x->rg.width;
		uint32_t w = x->op == Ordregion ? 0 : rows_width(g, x);
		if (w)
			return w;
	}
	return 0;
}

/* True when rdregion v reads, element for element, what the loop's
 * wrregion writes: the same variable and region. */
static bool same_element(CGen *g, const Inst *v)
{
	const Inst *w = g->loop_wr;
	const IrRegion *a = &v->rg, *b = w ? &w->rg : NULL;
	return w && !w->has_roff && g->store[v->ops[0]->id] == g->store[w->id] &&
	       v->ty.n == w->ops[1]->ty.n && a->offset == b->offset && a->width == b->width &&
	       a->vstride == b->vstride && a->hstride == b->hstride;
}

/* The index in v's source of element kx of rdregion v (constant offset).
 * Inside an element loop (kx "k"), an element the loop's wrregion writes
 * is read at x, the write's own index: through k / width the C compiler
 * sees two accesses of the array it cannot prove equal and keeps the loop
 * scalar, branching on every element of a merge.  In a loop over rows and
 * columns, a region of the loop's width is indexed by r and c rather than
 * k / width and k % width, which it vectorizes as gathers if at all. */
static char *region_at(CGen *g, const Inst *v, const char *kx)
{
	const IrRegion *rg = &v->rg;
	bool in_loop = !strcmp(kx, "k");
	if (in_loop && same_element(g, v))
		return "x";
	RegionShape sh = region_shape(v->ty.n, rg);
	if (sh.flat)
		return STR("%d + (%s) * %d", rg->offset, kx, sh.step);
	if (in_loop && g->loop_w == (uint32_t)rg->width)
		return STR("%d + r * %d + c * %d", rg->offset, rg->vstride, rg->hstride);
	return STR("%d + (%s) / %d * %d + (%s) %% %d * %d", rg->offset, kx, rg->width, rg->vstride,
	           kx, rg->width, rg->hstride);
}

char *c_inline_expr(CGen *g, const Inst *v, const char *kx)
{
	if (v->op != Ordregion)
		return elem_expr(g, v, kx);
	const Inst *s = v->ops[0];
	Buf tmp = {0}, *save = g->out;
	g->out = &tmp;
	c_lv(g, s, s->ty.n == 1 ? "0" : region_at(g, v, kx));
	g->out = save;
	char *e = arena_strdup(g->tmp, buf_cstr(&tmp));
	buf_free(&tmp);
	return e;
}

bool c_emit_op(CGen *g, const Inst *i)
{
	switch (i->op) {
	case Ordregion: return rdregion(g, i);
	case Owrregion: return wrregion(g, i);
	case Oiselect: return iselect(g, i);
	case Obitcast:
		buf_puts(g->out, "\tmemcpy(&");
		c_name(g, i);
		buf_puts(g->out, ", &");
		c_name(g, i->ops[0]);
		buf_puts(g->out, ", sizeof(");
		c_name(g, i);
		buf_puts(g->out, "));\n");
		return true;
	case Odpas:
		buf_puts(g->out, "\tcmk_dpas(");
		for (int k = -1; k < 3; k++) {
			c_name(g, k < 0 ? i : i->ops[k]);
			buf_puts(g->out, ", ");
		}
		buf_printf(g->out, "%d, %d, %d, %d);\n", ir_dpas_p1(i), ir_dpas_p2(i), ir_dpas_rc(i),
		           ir_dpas_es(i));
		return true;
	case Owgmma:
		buf_puts(g->out, "\tcmk_wgmma(t, ");
		for (int k = -1; k < 3; k++) {
			c_name(g, k < 0 ? i : i->ops[k]);
			buf_puts(g->out, ", ");
		}
		buf_printf(g->out, "%d, %d, %d);\n", ir_wgmma_prec(i->imm), ir_wgmma_n(i),
		           ir_wgmma_sw(i->imm));
		return true;
	case Oany: case Oall: case Orsum: case Orprod: case Ormin: case Ormax:
	case Opack: case Ounpack:
		return reduce(g, i);
	default:
		if (ir_ops[i->op].flags & IRF_ELEMWISE)
			return elementwise(g, i);
		error_at(i->loc, "C back end: '%s' is not supported", ir_ops[i->op].name);
		return false;
	}
}
