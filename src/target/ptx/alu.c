/* alu.c — element-wise instructions: arithmetic, bitwise, compares,
 * select, conversions and math, one PTX instruction (or a few) per
 * register slot.
 *
 * requires: layouts assigned (assign.c): the result is computed register by
 * register in its own layout, each vector operand read in that layout (a
 * scalar operand is uniform, so its one register serves every register).
 *
 * Integer semantics follow ir.h: 8/16-bit values live normalized in b32
 * registers and are re-normalized after each operation that can leave the
 * range; shift counts are taken modulo the bit width; integer division by
 * zero gives 0.  With .sat, or when the result type differs from the
 * operands' (exact computation), integers are computed in s64 and clamped
 * (or wrapped) into the result type; floats saturate to [0, 1] with NaN -> 0.
 * Floats follow docs/floating-point.md: by default add, sub and mul carry
 * .rn (ptxas does not contract an instruction with an explicit rounding
 * mode into an fma), '/' is div.rn, cm_sqrt is sqrt.rn, and nothing has
 * .ftz (IEEE denormals).  -ffp-contract=fast drops the .rn; -ffast-math
 * also adds .ftz to f32 and makes '/' div.full and cm_sqrt sqrt.approx
 * (never cm_div_ieee and cm_sqrt_ieee, marked .ieee).  The builtins CM
 * defines as approximate (cm_inv, cm_log, cm_exp, cm_rsqrt, cm_sin,
 * cm_cos, cm_pow, cm_asin/acos/atan) use the .approx instructions.
 */
#include <string.h>

#include "target/ptx/ptx.h"

/* Register s of operand v in the layout of the instruction being emitted. */
static const char *opnd(Px *p, const Inst *i, const Inst *v, uint32_t s)
{
	return px_reg_in(p, v, p->val[i->id].lay, s);
}

static int bits_of(Elem e)
{
	return ir_elem_bytes[e] * 8;
}

/* Range of an integer element type, as s64 text. */
static void int_range(Elem e, long long *lo, long long *hi)
{
	int b = bits_of(e);
	if (ir_is_signed(e)) {
		*hi = b >= 64 ? 0x7fffffffffffffffLL : (1LL << (b - 1)) - 1;
		*lo = -*hi - 1;
	} else {
		*lo = 0;
		*hi = b >= 64 ? 0x7fffffffffffffffLL : (long long)((1ULL << b) - 1);
	}
}

/* Clamps a float register to [0, 1] (NaN -> 0). */
static void float_sat(Px *p, Elem e, const char *d)
{
	if (e == E_F16) {
		const char *t = px_tmp(p, RC_F32);
		px_ins(p, "cvt.f32.f16 %s, %s", t, d);
		px_ins(p, "cvt.sat.f32.f32 %s, %s", t, t);
		px_ins(p, "cvt.rn.f16.f32 %s, %s", d, t);
		return;
	}
	px_ins(p, "cvt.sat.%s.%s %s, %s", px_ty(e), px_ty(e), d, d);
}

/* s64 register w into d of type de (clamping when sat).  uns: w holds
 * an unsigned value (a u64 source, or a product of u32 values, may be
 * 2^63 or more), so it clamps from above only. */
static void from_s64(Px *p, Elem de, const char *d, const char *w, bool sat, bool uns)
{
	if (ir_is_float(de)) {
		px_ins(p, "cvt.rn.%s.%s64 %s, %s", px_ty(de), uns ? "u" : "s", d, w);
		if (sat)
			float_sat(p, de, d);
		return;
	}
	long long lo, hi;
	int_range(de, &lo, &hi);
	if (sat && uns && de != E_U64)
		px_ins(p, "min.u64 %s, %s, %lld", w, w, hi);
	if (sat && !uns && de != E_I64) {
		/* u64's range, capped at 2^63 - 1 by int_range, holds every
		 * nonnegative s64: only its lower bound applies */
		px_ins(p, "max.s64 %s, %s, %lld", w, w, lo);
		if (de != E_U64)
			px_ins(p, "min.s64 %s, %s, %lld", w, w, hi);
	}
	if (px_class(de) == RC_B64) {
		px_ins(p, "mov.b64 %s, %s", d, w);
	} else {
		px_ins(p, "cvt.u32.u64 %s, %s", d, w);
		px_normalize(p, de, d);
	}
}

void px_conv_slot(Px *p, Elem de, const char *d, Elem se, const char *s, bool sat)
{
	RegClass dc = px_class(de), sc = px_class(se);
	if (se == E_I1) {
		if (de == E_I1)
			px_ins(p, "mov.pred %s, %s", d, s);
		else if (ir_is_float(de))
			px_ins(p, "selp.%s %s, %s, %s, %s", px_bits(de), d,
			       de == E_F32 ? "0f3F800000" : de == E_F64 ? "0d3FF0000000000000" : "0x3c00",
			       de == E_F32 ? "0f00000000" : de == E_F64 ? "0d0000000000000000" : "0x0000",
			       s);
		else
			px_ins(p, "selp.%s %s, 1, 0, %s", px_bits(de), d, s);
		return;
	}
	if (de == E_I1) {
		if (ir_is_float(se))
			px_ins(p, "setp.neu.%s %s, %s, %s", px_ty(se), d, s,
			       se == E_F32 ? "0f00000000" : se == E_F64 ? "0d0000000000000000" : "0x0000");
		else
			px_ins(p, "setp.ne.%s %s, %s, 0", px_ty(se), d, s);
		return;
	}
	if (ir_is_float(se) && ir_is_float(de)) {
		if (se == de)
			px_ins(p, "mov.%s %s, %s", px_bits(de), d, s);
		else if (ir_elem_bytes[de] < ir_elem_bytes[se])
			px_ins(p, "cvt.rn%s.%s.%s %s, %s", px_ftz(p, de), px_ty(de),
			       px_ty(se), d, s);
		else
			px_ins(p, "cvt%s.%s.%s %s, %s", px_ftz(p, se), px_ty(de), px_ty(se),
			       d, s);
		if (sat)
			float_sat(p, de, d);
		return;
	}
	if (ir_is_float(se)) {
		static const char *const t[E_COUNT_] = {
			[E_I8] = "s8", [E_U8] = "u8", [E_I16] = "s16", [E_U16] = "u16",
			[E_I32] = "s32", [E_U32] = "u32", [E_I64] = "s64", [E_U64] = "u64"};
		px_ins(p, "cvt.rzi%s.%s.%s %s, %s", px_ftz(p, se), t[de], px_ty(se), d, s);
		px_normalize(p, de, d);
		return;
	}
	if (ir_is_float(de)) {
		px_ins(p, "cvt.rn.%s.%s %s, %s", px_ty(de), px_ty(se), d, s);
		if (sat)
			float_sat(p, de, d);
		return;
	}
	/* integer -> integer: CM saturates to the destination's range (a
	 * negative value to 0 for u64, a u64 from 2^63 up stays) */
	if (sat) {
		const char *w = px_tmp(p, RC_B64);
		if (sc == RC_B64)
			px_ins(p, "mov.b64 %s, %s", w, s);
		else
			px_ins(p, "cvt.%s64.%s32 %s, %s", ir_is_signed(se) ? "s" : "u",
			       ir_is_signed(se) ? "s" : "u", w, s);
		from_s64(p, de, d, w, true, se == E_U64);
		return;
	}
	if (sc == RC_B64 && dc == RC_B64) {
		px_ins(p, "mov.b64 %s, %s", d, s);
	} else if (sc == RC_B64) {
		px_ins(p, "cvt.u32.u64 %s, %s", d, s);
		px_normalize(p, de, d);
	} else if (dc == RC_B64) {
		px_ins(p, "cvt.%s64.%s32 %s, %s", ir_is_signed(se) ? "s" : "u",
		       ir_is_signed(se) ? "s" : "u", d, s);
	} else {
		px_ins(p, "mov.b32 %s, %s", d, s);
		px_normalize(p, de, d);
	}
}

/* ---- integer and float arithmetic ------------------------------------------- */

const char *px_ftz(Px *p, Elem e)
{
	return e == E_F32 && p->o->fp.fast ? ".ftz" : "";
}

/* The rounding modifier of float add, sub and mul: ".rn" keeps ptxas from
 * fusing them unless contraction was asked for; then ".ftz" when wanted. */
static const char *rnd(Px *p, Elem e)
{
	bool rn = !p->o->fp.contract;
	bool z = e == E_F32 && p->o->fp.fast;
	return rn ? (z ? ".rn.ftz" : ".rn") : (z ? ".ftz" : "");
}

/* '/' and cm_sqrt may be approximate under -ffast-math; the _ieee forms
 * and doubles never are. */
static bool approx(Px *p, const Inst *i, Elem e)
{
	return p->o->fp.fast && !i->ieee && e == E_F32;
}

/* d = (a + b + 1) >> 1 of 64-bit a and b without the 65-bit sum:
 * (a >> 1) + (b >> 1) + ((a | b) & 1), shifts signed or unsigned as the
 * type is (exact for both). */
static void avg64(Px *p, bool sgn, const char *d, const char *a, const char *b)
{
	const char *x = px_tmp(p, RC_B64), *y = px_tmp(p, RC_B64);
	px_ins(p, "or.b64 %s, %s, %s", y, a, b);
	px_ins(p, "and.b64 %s, %s, 1", y, y);
	px_ins(p, "shr.%s64 %s, %s, 1", sgn ? "s" : "u", x, a);
	px_ins(p, "add.s64 %s, %s, %s", y, y, x);
	px_ins(p, "shr.%s64 %s, %s, 1", sgn ? "s" : "u", x, b);
	px_ins(p, "add.s64 %s, %s, %s", d, y, x);
}

/* A splat integer constant's value (unsigned 32-bit ones zero-extended). */
static bool int_const(const Inst *v, int64_t *k)
{
	if (!v || v->op != Oconst || !ir_is_int(v->ty.elem) || !ir_const_is_splat(v))
		return false;
	*k = ir_const_at(v, 0).i;
	if (!ir_is_signed(v->ty.elem) && ir_elem_bytes[v->ty.elem] <= 4)
		*k = (int64_t)(uint32_t)*k;
	return true;
}

/* d = a / c or a % c for a nonzero constant divisor c (divc.c), without
 * the division instruction ptxas expands like a runtime divisor's. */
static bool div_const(Px *p, const Inst *i, Elem e, const char *d, const char *a)
{
	int64_t c;
	bool rem = i->op == Orem, sgn = ir_is_signed(e);
	if (!int_const(i->ops[1], &c) || c == 0)
		return false;
	if (bits_of(e) == 64)
		return px_divc64(p, d, a, c, sgn, rem);
	if (sgn)
		px_sdivc(p, d, a, (int32_t)c, rem);
	else
		px_udivc(p, d, a, (uint32_t)c, rem);
	return true;
}

/* d = a OP b for one slot in the operands' own type S (no .sat, S == D). */
static bool arith(Px *p, Inst *i, Elem e, const char *d, const char **a)
{
	const char *ty = px_ty(e), *bt = px_bits(e);
	bool fl = ir_is_float(e), i1 = e == E_I1;
	int bits = bits_of(e);
	const char *t;
	switch (i->op) {
	case Ocopy: px_ins(p, "mov.%s %s, %s", bt, d, a[0]); return true;
	case Oadd: px_ins(p, "add%s.%s %s, %s, %s", fl ? rnd(p, e) : "", ty, d, a[0], a[1]); break;
	case Osub: px_ins(p, "sub%s.%s %s, %s, %s", fl ? rnd(p, e) : "", ty, d, a[0], a[1]); break;
	case Omul:
		if (fl)
			px_ins(p, "mul%s.%s %s, %s, %s", rnd(p, e), ty, d, a[0], a[1]);
		else
			px_ins(p, "mul.lo.%s %s, %s, %s", ty, d, a[0], a[1]);
		break;
	case Omad:
		if (fl)
			px_ins(p, "fma.rn%s.%s %s, %s, %s, %s", px_ftz(p, e), ty, d, a[0], a[1], a[2]);
		else
			px_ins(p, "mad.lo.%s %s, %s, %s, %s", ty, d, a[0], a[1], a[2]);
		break;
	case Odiv:
	case Orem:
		if (fl && i->op == Odiv) {
			px_ins(p, "div%s.%s %s, %s, %s", approx(p, i, e) ? ".full.ftz" : ".rn" , ty, d,
			       a[0], a[1]);
			break;
		}
		if (fl)
			return px_unsupported(p, i, "float remainder");
		if (div_const(p, i, e, d, a[0]))
			break;
		t = px_tmp(p, RC_PRED);
		px_ins(p, "setp.eq.%s %s, %s, 0", ty, t, a[1]);
		px_ins(p, "%s.%s %s, %s, %s", i->op == Odiv ? "div" : "rem", ty, d, a[0], a[1]);
		px_ins(p, "selp.%s %s, 0, %s, %s", bt, d, d, t);
		break;
	case Oneg: px_ins(p, "neg%s.%s %s, %s", fl ? px_ftz(p, e) : "", fl || ir_is_signed(e) ? ty :
	                  (bits == 64 ? "s64" : "s32"), d, a[0]); break;
	case Oabs:
		if (!fl && !ir_is_signed(e))
			px_ins(p, "mov.%s %s, %s", bt, d, a[0]);
		else
			px_ins(p, "abs%s.%s %s, %s", fl ? px_ftz(p, e) : "", ty, d, a[0]);
		break;
	case Omin: case Omax:
		px_ins(p, "%s%s.%s %s, %s, %s", i->op == Omin ? "min" : "max", fl ? px_ftz(p, e) : "", ty,
		       d, a[0], a[1]);
		break;
	case Oavg:
		if (fl)
			return px_unsupported(p, i, "float avg");
		if (bits == 64) {
			avg64(p, ir_is_signed(e), d, a[0], a[1]);
		} else if (bits == 32) {
			const char *x = px_tmp(p, RC_B64), *y = px_tmp(p, RC_B64);
			const char *w = ir_is_signed(e) ? "s" : "u";
			px_ins(p, "cvt.%s64.%s32 %s, %s", w, w, x, a[0]);
			px_ins(p, "cvt.%s64.%s32 %s, %s", w, w, y, a[1]);
			px_ins(p, "add.s64 %s, %s, %s", x, x, y);
			px_ins(p, "add.s64 %s, %s, 1", x, x);
			px_ins(p, "shr.%s64 %s, %s, 1", w, x, x);
			px_ins(p, "cvt.u32.u64 %s, %s", d, x);
		} else {
			px_ins(p, "add.s32 %s, %s, %s", d, a[0], a[1]);
			px_ins(p, "add.s32 %s, %s, 1", d, d);
			px_ins(p, "shr.s32 %s, %s, 1", d, d);
		}
		break;
	case Omulhi:
		if (bits >= 32) {
			px_ins(p, "mul.hi.%s %s, %s, %s", ty, d, a[0], a[1]);
		} else {
			px_ins(p, "mul.lo.s32 %s, %s, %s", d, a[0], a[1]);
			px_ins(p, "shr.%s %s, %s, %d", ty, d, d, bits);
		}
		break;
	case Ocarry:
		t = px_tmp(p, RC_PRED);
		if (bits == 32) {
			const char *s = px_tmp(p, RC_B32);
			px_ins(p, "add.u32 %s, %s, %s", s, a[0], a[1]);
			px_ins(p, "setp.lt.u32 %s, %s, %s", t, s, a[0]);
		} else {
			return px_unsupported(p, i, "carry on this type");
		}
		px_ins(p, "selp.u32 %s, 1, 0, %s", d, t);
		break;
	case Oborrow:
		t = px_tmp(p, RC_PRED);
		px_ins(p, "setp.lt.u%d %s, %s, %s", bits == 64 ? 64 : 32, t, a[0], a[1]);
		px_ins(p, "selp.%s %s, 1, 0, %s", bt, d, t);
		break;
	case Oand: case Oor: case Oxor:
		px_ins(p, "%s.%s %s, %s, %s", i->op == Oand ? "and" : i->op == Oor ? "or" : "xor",
		       i1 ? "pred" : bt, d, a[0], a[1]);
		break;
	case Onot: px_ins(p, "not.%s %s, %s", i1 ? "pred" : bt, d, a[0]); break;
	case Oshl: case Oashr: case Olshr: case Orol: case Oror: {
		const char *c = px_tmp(p, RC_B32), *src = a[0];
		const char *cnt = a[1];
		if (bits == 64) {
			px_ins(p, "cvt.u32.u64 %s, %s", c, cnt);
			px_ins(p, "and.b32 %s, %s, 63", c, c);
		} else {
			px_ins(p, "and.b32 %s, %s, %d", c, cnt, bits - 1);
		}
		if (i->op == Olshr && ir_is_signed(e) && bits < 32) {
			t = px_tmp(p, RC_B32);
			px_ins(p, "and.b32 %s, %s, %d", t, src, (1 << bits) - 1);
			src = t;
		}
		if (i->op == Orol || i->op == Oror) {
			if (bits != 32)
				return px_unsupported(p, i, "rotates of non-32-bit values");
			px_ins(p, "shf.%s.wrap.b32 %s, %s, %s, %s", i->op == Orol ? "l" : "r", d, src,
			       src, c);
			break;
		}
		const char *op = i->op == Oshl ? "shl.b" : i->op == Oashr ? "shr.s" : "shr.u";
		px_ins(p, "%s%d %s, %s, %s", op, bits == 64 ? 64 : 32, d, src, c);
		break;
	}
	default:
		return false;
	}
	if (!fl && !i1 && !p->val[i->id].exact)
		px_normalize(p, e, d);
	return true;
}

/* A saturating add, sub or mul of 64-bit values (S = i64 or u64): the
 * exact result as 128 bits hi:lo (each operand extended by its sign or
 * with zeros; the carry or borrow of the low halves by compare), clamped
 * into D.  The differential tester found u64 sums that wrapped: 2^64 - 1 +
 * 3 gave 2 where CM (and the CPU device) saturate to 2^64 - 1. */
static void sat64(Px *p, Inst *i, Elem se, Elem de, const char *d, const char **a)
{
	bool sg = ir_is_signed(se);
	const char *lo = px_tmp(p, RC_B64), *hi = px_tmp(p, RC_B64), *c = px_tmp(p, RC_PRED);
	const char *ha = px_tmp(p, RC_B64), *hb = px_tmp(p, RC_B64), *t = px_tmp(p, RC_B64);
	if (i->op == Omul) {
		px_ins(p, "mul.lo.s64 %s, %s, %s", lo, a[0], a[1]);
		px_ins(p, "mul.hi.%s64 %s, %s, %s", sg ? "s" : "u", hi, a[0], a[1]);
	} else {
		bool add = i->op == Oadd;
		if (sg) {
			px_ins(p, "shr.s64 %s, %s, 63", ha, a[0]);
			px_ins(p, "shr.s64 %s, %s, 63", hb, a[1]);
		} else {
			px_ins(p, "mov.b64 %s, 0", ha);
			px_ins(p, "mov.b64 %s, 0", hb);
		}
		px_ins(p, "%s.s64 %s, %s, %s", add ? "add" : "sub", lo, a[0], a[1]);
		/* carry: the sum below an addend; borrow: a below b */
		if (add)
			px_ins(p, "setp.lt.u64 %s, %s, %s", c, lo, a[0]);
		else
			px_ins(p, "setp.lt.u64 %s, %s, %s", c, a[0], a[1]);
		px_ins(p, "selp.b64 %s, 1, 0, %s", t, c);
		px_ins(p, "%s.s64 %s, %s, %s", add ? "add" : "sub", hi, ha, hb);
		px_ins(p, "%s.s64 %s, %s, %s", add ? "add" : "sub", hi, hi, t);
	}
	/* past the range: below it when hi is negative (never for a product
	 * of u64s, whose hi is unsigned), else above */
	const char *fits = px_tmp(p, RC_PRED), *neg = NULL;
	if (sg || i->op != Omul) {
		neg = px_tmp(p, RC_PRED);
		px_ins(p, "setp.lt.s64 %s, %s, 0", neg, hi);
	}
	long long below = de == E_U64 ? 0 : (long long)INT64_MIN;
	long long above = de == E_U64 ? -1 : (long long)INT64_MAX;
	if (de == E_U64)	/* 0 <= hi:lo < 2^64: hi is 0 */
		px_ins(p, "setp.eq.s64 %s, %s, 0", fits, hi);
	else {			/* an s64: hi is lo's sign */
		px_ins(p, "shr.s64 %s, %s, 63", t, lo);
		px_ins(p, "setp.eq.s64 %s, %s, %s", fits, hi, t);
	}
	if (neg)
		px_ins(p, "selp.b64 %s, %lld, %lld, %s", t, below, above, neg);
	else
		px_ins(p, "mov.b64 %s, %lld", t, above);
	px_ins(p, "selp.b64 %s, %s, %s, %s", lo, lo, t, fits);
	from_s64(p, de, d, lo, true, de == E_U64);
}

/* Exact integer computation in s64, then into D (clamped when sat).  A
 * product of unsigned 32-bit values (below 2^64) is exact as a u64, and a
 * u64 source is taken as unsigned; a saturating sum, difference or product
 * of 64-bit values takes sat64; a saturating mad of them is not exact (it
 * wraps first). */
static bool arith_wide(Px *p, Inst *i, Elem se, Elem de, const char *d, const char **a)
{
	if (i->sat && px_class(se) == RC_B64 && !ir_is_float(se) &&
	    (i->op == Oadd || i->op == Osub || i->op == Omul)) {
		sat64(p, i, se, de, d, a);
		return true;
	}
	bool uns = se == E_U64 ||
	           (!ir_is_signed(se) && (i->op == Omul || i->op == Omad));
	const char *w[3] = {0};
	for (int k = 0; k < ir_ops[i->op].nops && k < 3; k++) {
		w[k] = px_tmp(p, RC_B64);
		if (px_class(se) == RC_B64)
			px_ins(p, "mov.b64 %s, %s", w[k], a[k]);
		else
			px_ins(p, "cvt.%s64.%s32 %s, %s", ir_is_signed(se) ? "s" : "u",
			       ir_is_signed(se) ? "s" : "u", w[k], a[k]);
	}
	const char *r = px_tmp(p, RC_B64);
	switch (i->op) {
	case Oadd: px_ins(p, "add.s64 %s, %s, %s", r, w[0], w[1]); break;
	case Osub: px_ins(p, "sub.s64 %s, %s, %s", r, w[0], w[1]); break;
	case Omul: px_ins(p, "mul.lo.s64 %s, %s, %s", r, w[0], w[1]); break;
	case Omad: px_ins(p, "mad.lo.s64 %s, %s, %s, %s", r, w[0], w[1], w[2]); break;
	case Oneg: px_ins(p, "neg.s64 %s, %s", r, w[0]); break;
	case Oabs: px_ins(p, "abs.s64 %s, %s", r, w[0]); break;
	case Omin: px_ins(p, "min.s64 %s, %s, %s", r, w[0], w[1]); break;
	case Omax: px_ins(p, "max.s64 %s, %s, %s", r, w[0], w[1]); break;
	case Oavg:
		avg64(p, ir_is_signed(se), r, w[0], w[1]);
		break;
	case Odiv: case Orem: {
		const char *z = px_tmp(p, RC_PRED);
		px_ins(p, "setp.eq.s64 %s, %s, 0", z, w[1]);
		px_ins(p, "%s.s64 %s, %s, %s", i->op == Odiv ? "div" : "rem", r, w[0], w[1]);
		px_ins(p, "selp.b64 %s, 0, %s, %s", r, r, z);
		break;
	}
	case Oshl: case Oashr: case Olshr: {
		const char *c = px_tmp(p, RC_B32);
		px_ins(p, "cvt.u32.u64 %s, %s", c, w[1]);
		px_ins(p, "and.b32 %s, %s, %d", c, c, bits_of(se) - 1);
		px_ins(p, "%s %s, %s, %s", i->op == Oshl ? "shl.b64" : "shr.s64", r, w[0], c);
		break;
	}
	default: {
		/* the rest: compute in S, then convert */
		const char *t = px_tmp(p, px_class(se));
		if (!arith(p, i, se, t, a))
			return false;
		px_conv_slot(p, de, d, se, t, i->sat);
		return true;
	}
	}
	from_s64(p, de, d, r, i->sat, uns);
	return true;
}

/* ---- math ---------------------------------------------------------------------- */

/* atan of an f32 register: |x| > 1 uses pi/2 - atan(1/|x|); then the
 * half-angle identity atan(y) = 2 atan(y / (1 + sqrt(1 + y*y))) brings the
 * argument under tan(pi/8), where the odd Taylor series to y^11 is good to
 * about 1e-6. */
static void atan_f32(Px *p, const char *d, const char *x)
{
	const char *z = px_ftz(p, E_F32);
	const char *ax = px_tmp(p, RC_F32), *y = px_tmp(p, RC_F32), *t = px_tmp(p, RC_F32);
	const char *y2 = px_tmp(p, RC_F32), *s = px_tmp(p, RC_F32), *big = px_tmp(p, RC_PRED);
	px_ins(p, "abs%s.f32 %s, %s", z, ax, x);
	px_ins(p, "setp.gt%s.f32 %s, %s, 0f3F800000", z, big, ax);
	px_ins(p, "rcp.approx%s.f32 %s, %s", z, t, ax);
	px_ins(p, "selp.f32 %s, %s, %s, %s", y, t, ax, big);
	px_ins(p, "fma.rn%s.f32 %s, %s, %s, 0f3F800000", z, t, y, y);
	px_ins(p, "sqrt.approx%s.f32 %s, %s", z, t, t);
	px_ins(p, "add%s.f32 %s, %s, 0f3F800000", z, t, t);
	px_ins(p, "div.approx%s.f32 %s, %s, %s", z, y, y, t);
	px_ins(p, "mul%s.f32 %s, %s, %s", z, y2, y, y);
	/* series in y2: 1 - y2/3 + y2^2/5 - y2^3/7 + y2^4/9 - y2^5/11 */
	static const float c[] = {-1.0f / 11, 1.0f / 9, -1.0f / 7, 1.0f / 5, -1.0f / 3, 1.0f};
	for (int k = 0; k < 6; k++) {
		uint32_t bits;
		memcpy(&bits, &c[k], 4);
		if (!k)
			px_ins(p, "mov.b32 %s, 0f%08X", s, bits);
		else
			px_ins(p, "fma.rn%s.f32 %s, %s, %s, 0f%08X", z, s, s, y2, bits);
	}
	px_ins(p, "mul%s.f32 %s, %s, %s", z, s, s, y);
	px_ins(p, "add%s.f32 %s, %s, %s", z, s, s, s);
	px_ins(p, "sub%s.f32 %s, 0f3FC90FDB, %s", z, t, s);
	px_ins(p, "selp.f32 %s, %s, %s, %s", s, t, s, big);
	px_ins(p, "copysign.f32 %s, %s, %s", d, x, s);
}

static bool math(Px *p, Inst *i, Elem e, const char *d, const char **a)
{
	if (e == E_F16) {
		/* through f32 */
		const char *x = px_tmp(p, RC_F32), *y = px_tmp(p, RC_F32), *r = px_tmp(p, RC_F32);
		const char *b[2] = {x, y};
		px_ins(p, "cvt.f32.f16 %s, %s", x, a[0]);
		if (ir_ops[i->op].nops > 1)
			px_ins(p, "cvt.f32.f16 %s, %s", y, a[1]);
		if (!math(p, i, E_F32, r, b))
			return false;
		px_ins(p, "cvt.rn.f16.f32 %s, %s", d, r);
		return true;
	}
	bool f64 = e == E_F64;
	const char *t, *z = px_ftz(p, e);
	switch (i->op) {
	case Oinv:
		if (f64)
			px_ins(p, "rcp.rn.f64 %s, %s", d, a[0]);
		else
			px_ins(p, "rcp.approx%s.f32 %s, %s", z, d, a[0]);
		break;
	case Osqrt:
		px_ins(p, "sqrt%s.%s %s, %s", approx(p, i, e) ? ".approx.ftz" : ".rn", px_ty(e), d, a[0]);
		break;
	case Orsqrt:
		px_ins(p, "rsqrt.approx%s.%s %s, %s", z, px_ty(e), d, a[0]);
		break;
	case Olog2: case Oexp2: case Osin: case Ocos: case Opow:
		if (f64)
			return px_unsupported(p, i, "double-precision transcendental math");
		if (i->op == Opow) {
			t = px_tmp(p, RC_F32);
			px_ins(p, "lg2.approx%s.f32 %s, %s", z, t, a[0]);
			px_ins(p, "mul%s.f32 %s, %s, %s", z, t, t, a[1]);
			px_ins(p, "ex2.approx%s.f32 %s, %s", z, d, t);
		} else {
			const char *n = i->op == Olog2 ? "lg2" : i->op == Oexp2 ? "ex2" :
			                i->op == Osin ? "sin" : "cos";
			px_ins(p, "%s.approx%s.f32 %s, %s", n, z, d, a[0]);
		}
		break;
	case Oatan: case Oasin: case Oacos:
		if (f64)
			return px_unsupported(p, i, "double-precision transcendental math");
		if (i->op == Oatan) {
			atan_f32(p, d, a[0]);
			break;
		}
		/* asin x = atan(x / sqrt(1 - x^2)); acos x = pi/2 - asin x */
		t = px_tmp(p, RC_F32);
		px_ins(p, "neg%s.f32 %s, %s", z, t, a[0]);
		px_ins(p, "fma.rn%s.f32 %s, %s, %s, 0f3F800000", z, t, t, a[0]);
		px_ins(p, "rsqrt.approx%s.f32 %s, %s", z, t, t);
		px_ins(p, "mul%s.f32 %s, %s, %s", z, t, t, a[0]);
		atan_f32(p, d, t);
		if (i->op == Oacos)
			px_ins(p, "sub%s.f32 %s, 0f3FC90FDB, %s", z, d, d);
		break;
	case Ofrc:
		t = px_tmp(p, px_class(e));
		px_ins(p, "cvt.rmi%s.%s.%s %s, %s", px_ftz(p, e), px_ty(e), px_ty(e), t, a[0]);
		px_ins(p, "sub%s.%s %s, %s, %s", px_ftz(p, e), px_ty(e), d, a[0], t);
		break;
	case Orndd: case Orndu: case Ornde: case Orndz: {
		const char *m = i->op == Orndd ? "rmi" : i->op == Orndu ? "rpi" : i->op == Ornde ? "rni" : "rzi";
		px_ins(p, "cvt.%s%s.%s.%s %s, %s", m, px_ftz(p, e), px_ty(e), px_ty(e), d, a[0]);
		break;
	}
	default:
		return px_unsupported(p, i, arena_printf(p->arena, "'%s'", ir_ops[i->op].name));
	}
	if (i->sat)
		float_sat(p, e, d);
	return true;
}

/* Bit instructions: the result is u32 (cbit, fbl, fbh, lzd) or the
 * operand's type. */
static bool bitops(Px *p, Inst *i, Elem se, const char *d, const char **a)
{
	bool w64 = px_class(se) == RC_B64;
	const char *t;
	switch (i->op) {
	case Ocbit: px_ins(p, "popc.b%d %s, %s", w64 ? 64 : 32, d, a[0]); break;
	case Olzd: px_ins(p, "clz.b%d %s, %s", w64 ? 64 : 32, d, a[0]); break;
	case Ofbl:
		t = px_tmp(p, w64 ? RC_B64 : RC_B32);
		px_ins(p, "brev.b%d %s, %s", w64 ? 64 : 32, t, a[0]);
		px_ins(p, "bfind.shiftamt.u%d %s, %s", w64 ? 64 : 32, d, t);
		break;
	case Ofbh: px_ins(p, "bfind.shiftamt.%s %s, %s", px_ty(se), d, a[0]); break;
	case Obfrev: px_ins(p, "brev.b%d %s, %s", w64 ? 64 : 32, d, a[0]); break;
	case Obfe:
		px_ins(p, "bfe.%s %s, %s, %s, %s", px_ty(i->ty.elem), d, a[2], a[1], a[0]);
		break;
	case Obfi:
		px_ins(p, "bfi.b%d %s, %s, %s, %s, %s", w64 ? 64 : 32, d, a[2], a[3], a[1], a[0]);
		break;
	default:
		return false;
	}
	px_normalize(p, i->ty.elem, d);
	return true;
}

static const char *cmp_name(Op op, bool fl)
{
	switch (op) {
	case Oeq: return "eq";
	case One: return fl ? "neu" : "ne";
	case Olt: return "lt";
	case Ole: return "le";
	case Ogt: return "gt";
	default: return "ge";
	}
}

/* One slot of an element-wise instruction. */
static bool alu_slot(Px *p, Inst *i, uint32_t s)
{
	const char *a[4] = {0};
	uint32_t nops = ir_ops[i->op].nops;
	for (uint32_t k = 0; k < nops && k < 4; k++)
		a[k] = opnd(p, i, i->ops[k], s);
	const char *d = px_own(p, i, s);
	Elem de = i->ty.elem, se = nops ? i->ops[nops - 1]->ty.elem : de;
	if (ir_ops[i->op].flags & IRF_CMP) {
		se = i->ops[0]->ty.elem;
		if (se == E_I1) {
			/* compares of masks: eq = xnor, ne = xor */
			if (i->op != Oeq && i->op != One)
				return px_unsupported(p, i, "ordered compares of masks");
			px_ins(p, "xor.pred %s, %s, %s", d, a[0], a[1]);
			if (i->op == Oeq)
				px_ins(p, "not.pred %s, %s", d, d);
			return true;
		}
		px_ins(p, "setp.%s%s.%s %s, %s, %s", cmp_name(i->op, ir_is_float(se)),
		       px_ftz(p, se), px_ty(se), d, a[0], a[1]);
		return true;
	}
	switch (i->op) {
	case Osel:
		if (de == E_I1) {
			const char *x = px_tmp(p, RC_PRED), *y = px_tmp(p, RC_PRED);
			px_ins(p, "and.pred %s, %s, %s", x, a[0], a[1]);
			px_ins(p, "not.pred %s, %s", y, a[0]);
			px_ins(p, "and.pred %s, %s, %s", y, y, a[2]);
			px_ins(p, "or.pred %s, %s, %s", d, x, y);
		} else {
			px_ins(p, "selp.%s %s, %s, %s, %s", px_bits(de), d, a[1], a[2], a[0]);
		}
		return true;
	case Oconv:
		if (p->val[i->id].exact)	/* range.c: the value fits de */
			px_ins(p, "mov.b32 %s, %s", d, a[0]);
		else
			px_conv_slot(p, de, d, i->ops[0]->ty.elem, a[0], i->sat);
		return true;
	case Ocbit: case Ofbl: case Ofbh: case Olzd: case Obfrev: case Obfe: case Obfi:
		return bitops(p, i, i->ops[nops - 1]->ty.elem, d, a);
	default:
		break;
	}
	se = i->ops[0]->ty.elem;
	if (i->op >= Oinv && i->op <= Orndz)
		return math(p, i, se, d, a);
	if (ir_is_float(se)) {
		if (de != se) {
			const char *t = px_tmp(p, px_class(se));
			if (!arith(p, i, se, t, a))
				return px_unsupported(p, i, ir_ops[i->op].name);
			px_conv_slot(p, de, d, se, t, i->sat);
			return true;
		}
		if (!arith(p, i, se, d, a))
			return px_unsupported(p, i, ir_ops[i->op].name);
		if (i->sat)
			float_sat(p, de, d);
		return true;
	}
	if ((i->sat || de != se) && se != E_I1)
		return arith_wide(p, i, se, de, d, a);
	if (!arith(p, i, se, d, a))
		return px_unsupported(p, i, ir_ops[i->op].name);
	return true;
}

bool px_alu(Px *p, Inst *i)
{
	for (uint32_t s = 0; s < px_nregs(p, i); s++)
		if (!alu_slot(p, i, s))
			return false;
	return true;
}
