/* ptxsim_ops.c — the values of PTX's arithmetic, logic, comparison and
 * conversion instructions, lane by lane, as the PTX ISA defines them.
 *
 * Values are bit patterns in uint64_t; an instruction's type says how
 * many low bits count and whether they are signed, unsigned or IEEE
 * binary16/32/64.  Float arithmetic runs in the C type of its width (float
 * for .f32, so that results round as the GPU rounds them); the rounding
 * modifiers .rz/.rm/.rp switch the host's rounding mode around the
 * computation.  .approx results come from the C library, which is closer
 * than the hardware needs to be.  Must be compiled with
 * -ffp-contract=off: a fused multiply-add the source does not ask for
 * would round differently from the GPU.
 */
#include "ptxsim.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

typedef unsigned __int128 u128;
typedef __int128 s128;

static uint64_t mask_of(unsigned bits)
{
	return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

uint64_t ps_ext(PsType t, uint64_t v)
{
	unsigned b = t.bits;
	if (b >= 64)
		return v;
	v &= mask_of(b);
	if (t.k == TK_S && (v >> (b - 1) & 1))
		v |= ~mask_of(b);
	return v;
}

static float f32(uint64_t v)
{
	float f;
	uint32_t u = (uint32_t)v;
	memcpy(&f, &u, 4);
	return f;
}

static double f64(uint64_t v)
{
	double d;
	memcpy(&d, &v, 8);
	return d;
}

static uint64_t bits32(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static uint64_t bits64(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

float ps_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, e = h >> 10 & 31, m = h & 1023;
	if (e == 31)
		return f32(sign | 0x7f800000u | m << 13);
	if (e == 0)   /* zero or subnormal: m * 2^-24 */
		return (h >> 15 ? -1.0f : 1.0f) * (float)m * 0x1p-24f;
	return f32(sign | (e + 112) << 23 | m << 13);
}

/* Round to nearest even, as cvt.rn.f16.f32 does. */
uint16_t ps_float_to_half(float f)
{
	uint32_t u = (uint32_t)bits32(f), sign = u >> 16 & 0x8000;
	float a = fabsf(f);
	if (isnan(f))
		return (uint16_t)(sign | 0x7e00);
	if (a >= 65520.0f)            /* rounds past the largest half */
		return (uint16_t)(sign | 0x7c00);
	if (a < 0x1p-14f) {           /* subnormal half: a multiple of 2^-24 */
		float q = nearbyintf(a * 0x1p24f);   /* current mode: nearest even */
		return (uint16_t)(sign | (uint32_t)q);
	}
	uint32_t e = (u >> 23 & 255) - 112, m = u & 0x7fffff;
	uint32_t h = e << 10 | m >> 13, rest = m & 0x1fff;
	if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
		h++;                      /* may carry into the exponent: right */
	return (uint16_t)(sign | h);
}

/* bf16 with round to nearest even. */
static uint16_t float_to_bf16(float f)
{
	uint32_t u = (uint32_t)bits32(f);
	if (isnan(f))
		return (uint16_t)(u >> 16 | 0x40);
	u += 0x7fff + (u >> 16 & 1);
	return (uint16_t)(u >> 16);
}

uint64_t ps_imm_bits(PsType t, const PsOpnd *o)
{
	uint64_t v = (uint64_t)o->imm;
	if (t.k != TK_F || !o->fimm)
		return v;
	if (t.bits == 64)
		return o->fimm == 2 ? v : bits64(f32(v));
	if (t.bits == 32)
		return o->fimm == 1 ? v : bits32((float)f64(v));
	return ps_float_to_half(o->fimm == 1 ? f32(v) : (float)f64(v));
}

/* The value of float bits v of type t as a double (exact). */
static double fval(PsType t, uint64_t v)
{
	if (t.bits == 64)
		return f64(v);
	if (t.bits == 32)
		return f32(v);
	if (t.k == TK_BF16)
		return f32(v << 16);
	return ps_half_to_float((uint16_t)v);
}

static float ftz32(const PsIns *in, float f)
{
	if ((in->flags & F_FTZ) && fpclassify(f) == FP_SUBNORMAL)
		return copysignf(0.0f, f);
	return f;
}

static int fround(int rnd)
{
	switch (rnd) {
	case RND_RZ: case RND_RZI: return FE_TOWARDZERO;
	case RND_RM: case RND_RMI: return FE_DOWNWARD;
	case RND_RP: case RND_RPI: return FE_UPWARD;
	default: return FE_TONEAREST;
	}
}

/* ---- float arithmetic ---- */

/* PTX min/max: a NaN operand gives the other one, and -0 < +0. */
static double fminmax(double a, double b, bool max)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	if (a == b)
		return (signbit(a) != signbit(b)) == max ? (max ? a : b) : (max ? b : a);
	return (a < b) != max ? a : b;
}

/* One float operation of width 32 on a, b, c. */
static bool f32op(const PsIns *in, float a, float b, float c, float *d)
{
	switch (in->op) {
	case OP_add: *d = a + b; break;
	case OP_sub: *d = a - b; break;
	case OP_mul: *d = a * b; break;
	case OP_fma: case OP_mad: *d = fmaf(a, b, c); break;
	case OP_div: *d = a / b; break;
	case OP_abs: *d = fabsf(a); break;
	case OP_neg: *d = -a; break;
	case OP_min: *d = (float)fminmax(a, b, false); break;
	case OP_max: *d = (float)fminmax(a, b, true); break;
	case OP_sqrt: *d = sqrtf(a); break;
	case OP_rsqrt: *d = 1.0f / sqrtf(a); break;
	case OP_rcp: *d = 1.0f / a; break;
	case OP_ex2: *d = exp2f(a); break;
	case OP_lg2: *d = log2f(a); break;
	case OP_sin: *d = sinf(a); break;
	case OP_cos: *d = cosf(a); break;
	case OP_copysign: *d = copysignf(b, a); break;
	default: return false;
	}
	return true;
}

static bool f64op(const PsIns *in, double a, double b, double c, double *d)
{
	switch (in->op) {
	case OP_add: *d = a + b; break;
	case OP_sub: *d = a - b; break;
	case OP_mul: *d = a * b; break;
	case OP_fma: case OP_mad: *d = fma(a, b, c); break;
	case OP_div: *d = a / b; break;
	case OP_abs: *d = fabs(a); break;
	case OP_neg: *d = -a; break;
	case OP_min: *d = fminmax(a, b, false); break;
	case OP_max: *d = fminmax(a, b, true); break;
	case OP_sqrt: *d = sqrt(a); break;
	case OP_rsqrt: *d = 1.0 / sqrt(a); break;
	case OP_rcp: *d = 1.0 / a; break;
	case OP_copysign: *d = copysign(b, a); break;
	default: return false;
	}
	return true;
}

/* A double that holds an f16 sum, difference or product exactly (their
 * operands' exponents span 2^-24 .. 2^15, so 53 bits hold them all) as the
 * nearest f16 in the current rounding mode. */
static uint16_t double_to_half(double r)
{
	if (isnan(r) || fabs(r) >= 65520.0)
		return ps_float_to_half((float)r);
	int e;
	frexp(fabs(r), &e);
	int q = e - 1 < -14 ? -14 : e - 1;        /* the binade; subnormals share -14 */
	double k = nearbyint(ldexp(r, 10 - q));   /* 11 significant bits, or fewer */
	return ps_float_to_half((float)ldexp(k, q - 10));  /* now exact in a half */
}

/* An f16 operation (cmetal emits min, max, abs, neg, add, sub, mul on
 * halves): exact in a double, then rounded once. */
static bool f16op(const PsIns *in, double a, double b, uint16_t *d)
{
	double r;
	switch (in->op) {
	case OP_add: r = a + b; break;
	case OP_sub: r = a - b; break;
	case OP_mul: r = a * b; break;
	case OP_min: r = fminmax(a, b, false); break;
	case OP_max: r = fminmax(a, b, true); break;
	default: return false;
	}
	*d = double_to_half(r);
	return true;
}

static bool falu(const PsIns *in, uint64_t (*v)[PS_NLANES], uint64_t *d, uint32_t mask)
{
	PsType t = in->ty[0];
	if (t.bits == 16 && t.k == TK_F && !(in->flags & F_SAT) && in->op != OP_abs &&
	    in->op != OP_neg) {
		int old = fegetround();
		fesetround(fround(in->rnd));
		bool ok = true;
		for (int l = 0; l < PS_NLANES && ok; l++) {
			uint16_t h = 0;
			if (mask >> l & 1)
				ok = f16op(in, fval(t, v[0][l]), in->n > 2 ? fval(t, v[1][l]) : 0, &h);
			d[l] = h;
		}
		fesetround(old);
		return ok;
	}
	bool half = t.bits == 16 && t.k == TK_F;   /* left: abs and neg, on the sign bit */
	if (!half && t.bits != 32 && t.bits != 64)
		return false;
	bool abs_neg = in->op == OP_abs || in->op == OP_neg;
	int old = fegetround();
	fesetround(fround(in->rnd));
	bool ok = true;
	for (int l = 0; l < PS_NLANES && ok; l++) {
		if (!(mask >> l & 1))
			continue;
		uint64_t a = v[0][l], b = in->n > 2 ? v[1][l] : 0, c = in->n > 3 ? v[2][l] : 0;
		if (abs_neg) {   /* sign-bit operations, even on NaN */
			uint64_t s = 1ull << (t.bits - 1);
			d[l] = in->op == OP_abs ? a & ~s : a ^ s;
			if (t.bits == 32)
				d[l] = bits32(ftz32(in, f32(d[l])));
		} else if (t.bits == 32) {
			float r = 0;
			ok = f32op(in, ftz32(in, f32(a)), ftz32(in, f32(b)), ftz32(in, f32(c)), &r);
			if (in->flags & F_SAT)
				r = isnan(r) ? 0.0f : fminf(fmaxf(r, 0.0f), 1.0f);
			d[l] = bits32(ftz32(in, r));
		} else {
			double r = 0;
			ok = f64op(in, f64(a), f64(b), f64(c), &r);
			d[l] = bits64(r);
		}
	}
	fesetround(old);
	return ok;
}

/* ---- integer arithmetic ---- */

static uint64_t mulhi(PsType t, uint64_t a, uint64_t b)
{
	unsigned n = t.bits;
	if (n == 64)
		return t.k == TK_S ? (uint64_t)((s128)(int64_t)a * (int64_t)b >> 64)
		                   : (uint64_t)((u128)a * b >> 64);
	return (uint64_t)((int64_t)(a * b) >> n);  /* a, b extended: exact in 64 */
}

static uint64_t idiv(PsType t, uint64_t a, uint64_t b, bool rem)
{
	uint64_t m = mask_of(t.bits);
	if (t.k == TK_S) {
		int64_t x = (int64_t)a, y = (int64_t)b;
		if (y == 0)
			return rem ? a : ~0ull;
		if (y == -1)
			return rem ? 0 : (uint64_t)-x;  /* INT_MIN / -1 wraps */
		return rem ? (uint64_t)(x % y) : (uint64_t)(x / y);
	}
	a &= m, b &= m;
	if (b == 0)
		return rem ? a : ~0ull;
	return rem ? a % b : a / b;
}

static uint64_t bfe(PsType t, uint64_t a, uint64_t b, uint64_t c)
{
	unsigned msb = t.bits - 1, pos = b & 0xff, len = c & 0xff;
	uint64_t sbit = 0, d = 0;
	if (t.k == TK_S && len) {
		unsigned at = pos + len - 1 > msb ? msb : pos + len - 1;
		sbit = a >> at & 1;
	}
	for (unsigned i = 0; i <= msb; i++) {
		uint64_t bit = i < len && pos + i <= msb ? a >> (pos + i) & 1 : sbit;
		d |= bit << i;
	}
	return d;
}

static uint64_t bfi(PsType t, uint64_t f, uint64_t b, uint64_t c, uint64_t dd)
{
	unsigned msb = t.bits - 1, pos = c & 0xff, len = dd & 0xff;
	uint64_t d = b;
	for (unsigned i = 0; i < len && pos + i <= msb; i++)
		d = (d & ~(1ull << (pos + i))) | (f >> i & 1) << (pos + i);
	return d;
}

/* prmt.b32 in its default mode: byte i of d is selected by nibble i of c
 * from the bytes {b, a} (a is bytes 0..3); bit 3 of the nibble replicates
 * the selected byte's sign. */
static uint64_t prmt(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t x = (b & 0xffffffffu) << 32 | (a & 0xffffffffu), d = 0;
	for (int i = 0; i < 4; i++) {
		unsigned sel = c >> (4 * i) & 15;
		uint64_t byte = x >> (8 * (sel & 7)) & 0xff;
		if (sel & 8)
			byte = byte & 0x80 ? 0xff : 0;
		d |= byte << (8 * i);
	}
	return d;
}

/* shf.l / shf.r: a funnel shift of the 64 bits {b, a}. */
static uint64_t shf(const PsIns *in, uint64_t a, uint64_t b, uint64_t c)
{
	uint32_t n = (uint32_t)c;
	n = in->flags & F_CLAMP ? (n > 32 ? 32 : n) : n & 31;
	uint64_t x = (b & 0xffffffffu) << 32 | (a & 0xffffffffu);
	return in->flags & F_LEFT ? (x << n) >> 32 : x >> n;
}

static uint64_t bfind(const PsIns *in, PsType t, uint64_t a)
{
	unsigned n = t.bits;
	if (t.k == TK_S && (a >> (n - 1) & 1))
		a = ~a;
	a &= mask_of(n);
	if (!a)
		return 0xffffffffu;
	unsigned pos = 63 - (unsigned)__builtin_clzll(a);
	return in->flags & F_SHIFTAMT ? n - 1 - pos : pos;
}

static uint64_t brev(unsigned n, uint64_t a)
{
	uint64_t d = 0;
	for (unsigned i = 0; i < n; i++)
		d |= (a >> i & 1) << (n - 1 - i);
	return d;
}

static uint64_t shift(const PsIns *in, PsType t, uint64_t a, uint64_t b)
{
	unsigned n = t.bits;
	uint64_t s = b & 0xffffffffu;
	if (in->op == OP_shl)
		return s >= n ? 0 : a << s;
	if (t.k == TK_S)
		return (uint64_t)((int64_t)a >> (s >= n ? 63 : s));
	return s >= n ? 0 : (a & mask_of(n)) >> s;
}

/* An integer min/max/add/... of the extended values a, b, c. */
static bool iop(const PsIns *in, PsType t, uint64_t a, uint64_t b, uint64_t c, uint64_t *d)
{
	bool s = t.k == TK_S;
	unsigned n = t.bits;
	switch (in->op) {
	case OP_add: *d = a + b; break;
	case OP_sub: *d = a - b; break;
	case OP_mul:
		*d = in->flags & F_HI ? mulhi(t, a, b) : a * b;
		break;
	case OP_mad:
		*d = (in->flags & F_HI ? mulhi(t, a, b) : a * b) + c;
		break;
	case OP_div: *d = idiv(t, a, b, false); break;
	case OP_rem: *d = idiv(t, a, b, true); break;
	case OP_abs: *d = (int64_t)a < 0 ? -a : a; break;
	case OP_neg: *d = -a; break;
	case OP_min: *d = s ? ((int64_t)a < (int64_t)b ? a : b) : (a < b ? a : b); break;
	case OP_max: *d = s ? ((int64_t)a > (int64_t)b ? a : b) : (a > b ? a : b); break;
	case OP_and: *d = a & b; break;
	case OP_or: *d = a | b; break;
	case OP_xor: *d = a ^ b; break;
	case OP_not: *d = ~a; break;
	case OP_cnot: *d = (a & mask_of(n)) == 0; break;
	case OP_shl: case OP_shr: *d = shift(in, t, a, b); break;
	case OP_shf: *d = shf(in, a, b, c); break;
	case OP_prmt: *d = prmt(a, b, c); break;
	case OP_bfe: *d = bfe(t, a, b, c); break;
	case OP_popc: *d = (uint64_t)__builtin_popcountll(a & mask_of(n)); break;
	case OP_clz:
		*d = (a & mask_of(n)) ? (uint64_t)__builtin_clzll(a & mask_of(n)) - (64 - n) : n;
		break;
	case OP_brev: *d = brev(n, a); break;
	case OP_bfind: *d = bfind(in, t, a); break;
	default: return false;
	}
	return true;
}

/* The product of mul.wide / mad.wide: 2n bits. */
static uint64_t wide(PsType t, uint64_t a, uint64_t b, uint64_t c, bool mad)
{
	uint64_t p = t.k == TK_S ? (uint64_t)((int64_t)a * (int64_t)b) : a * b;
	return mad ? p + c : p;
}

/* .sat of add/sub/mad.hi on .s32: the exact sum, clamped. */
static uint64_t sat32(int64_t x)
{
	return (uint64_t)(x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : x);
}

static bool ialu(const PsIns *in, uint64_t (*v)[PS_NLANES], uint64_t *d, uint32_t mask)
{
	PsType t = in->ty[0];
	if (in->op == OP_bfi) {
		for (int l = 0; l < PS_NLANES; l++)
			if (mask >> l & 1)
				d[l] = bfi(t, v[0][l], v[1][l], v[2][l], v[3][l]);
		return true;
	}
	bool two = in->op == OP_shl || in->op == OP_shr;  /* b is a u32 amount */
	bool raw = in->op == OP_prmt || in->op == OP_shf || in->op == OP_bfe;
	for (int l = 0; l < PS_NLANES; l++) {
		if (!(mask >> l & 1))
			continue;
		uint64_t a = ps_ext(t, v[0][l]), b = in->n > 2 ? v[1][l] : 0;
		uint64_t c = in->n > 3 ? v[2][l] : 0;
		if (!two && !raw)
			b = ps_ext(t, b);
		if (in->flags & F_WIDE) {
			PsType wt = {t.k, (uint8_t)(2 * t.bits)};
			d[l] = wide(t, a, b, ps_ext(wt, c), in->op == OP_mad);
			continue;
		}
		if (in->op == OP_mad && !raw)
			c = ps_ext(t, c);
		if (!iop(in, t, a, b, c, &d[l]))
			return false;
		if ((in->flags & F_SAT) && t.k == TK_S && t.bits == 32)
			d[l] = sat32((int64_t)d[l]);
	}
	return true;
}

/* ---- comparisons ---- */

static bool fcmp(int cmp, double a, double b)
{
	bool un = isnan(a) || isnan(b);
	switch (cmp) {
	case CMP_EQ: return !un && a == b;
	case CMP_NE: return !un && a != b;
	case CMP_LT: return !un && a < b;
	case CMP_LE: return !un && a <= b;
	case CMP_GT: return !un && a > b;
	case CMP_GE: return !un && a >= b;
	case CMP_EQU: return un || a == b;
	case CMP_NEU: return un || a != b;
	case CMP_LTU: return un || a < b;
	case CMP_LEU: return un || a <= b;
	case CMP_GTU: return un || a > b;
	case CMP_GEU: return un || a >= b;
	case CMP_NUM: return !un;
	case CMP_NAN: return un;
	}
	return false;
}

static bool icmp(int cmp, bool s, uint64_t a, uint64_t b)
{
	int64_t x = (int64_t)a, y = (int64_t)b;
	switch (cmp) {
	case CMP_EQ: return a == b;
	case CMP_NE: return a != b;
	case CMP_LT: return s ? x < y : a < b;
	case CMP_LE: return s ? x <= y : a <= b;
	case CMP_GT: return s ? x > y : a > b;
	case CMP_GE: return s ? x >= y : a >= b;
	case CMP_LO: return a < b;
	case CMP_LS: return a <= b;
	case CMP_HI: return a > b;
	case CMP_HS: return a >= b;
	}
	return false;
}

static bool combine(int bop, bool x, bool c)
{
	return bop == BOP_AND ? x && c : bop == BOP_OR ? x || c : x != c;
}

static bool setp(const PsIns *in, uint64_t (*v)[PS_NLANES], uint64_t *d, uint64_t *d2,
                 uint32_t mask)
{
	PsType t = in->ty[0];
	if (t.k == TK_F ? in->cmp > CMP_GE && in->cmp < CMP_EQU : in->cmp > CMP_HS)
		return false;
	for (int l = 0; l < PS_NLANES; l++) {
		if (!(mask >> l & 1))
			continue;
		bool x = t.k == TK_F ? fcmp(in->cmp, fval(t, v[0][l]), fval(t, v[1][l]))
		                     : icmp(in->cmp, t.k == TK_S, ps_ext(t, v[0][l]),
		                            ps_ext(t, v[1][l]));
		bool y = !x;
		if (in->bop) {
			x = combine(in->bop, x, v[2][l] & 1);
			y = combine(in->bop, y, v[2][l] & 1);
		}
		d[l] = x;
		d2[l] = y;
	}
	return true;
}

/* ---- conversions ---- */

/* The integer range of t, for saturation. */
static void range(PsType t, double *lo, double *hi)
{
	if (t.k == TK_S) {
		*lo = -ldexp(1.0, t.bits - 1);
		*hi = ldexp(1.0, t.bits - 1) - 1;
	} else {
		*lo = 0;
		*hi = ldexp(1.0, t.bits) - 1;
	}
}

static double round_int(int rnd, double x)
{
	switch (rnd) {
	case RND_RNI: return nearbyint(x);   /* the default mode: ties to even */
	case RND_RZI: return trunc(x);
	case RND_RMI: return floor(x);
	case RND_RPI: return ceil(x);
	}
	return x;
}

static uint64_t f2i(const PsIns *in, PsType dt, double x)
{
	if (isnan(x))
		return 0;
	x = round_int(in->rnd, x);
	double lo, hi;
	range(dt, &lo, &hi);
	if (x <= lo)
		return dt.k == TK_S ? (uint64_t)(int64_t)lo : 0;
	if (x >= hi)
		return dt.bits == 64 ? (dt.k == TK_S ? (uint64_t)INT64_MAX : ~0ull) : (uint64_t)hi;
	return dt.k == TK_S ? (uint64_t)(int64_t)x : (uint64_t)x;
}

static uint64_t i2i(const PsIns *in, PsType dt, PsType st, uint64_t a)
{
	a = ps_ext(st, a);
	if (!(in->flags & F_SAT))
		return ps_ext(dt, a);
	bool neg = st.k == TK_S && (int64_t)a < 0;
	if (dt.k == TK_S && dt.bits < 64) {
		int64_t hi = (int64_t)mask_of(dt.bits - 1), lo = -hi - 1;
		if (neg)
			return (uint64_t)((int64_t)a < lo ? lo : (int64_t)a);
		return a > (uint64_t)hi ? (uint64_t)hi : a;
	}
	if (neg)
		return 0;
	return a > mask_of(dt.bits) ? mask_of(dt.bits) : a;
}

/* A float value into float type dt (rounding by the current mode). */
static uint64_t f2f(const PsIns *in, PsType dt, PsType st, double x)
{
	if (in->rnd >= RND_RNI)
		x = round_int(in->rnd, x);
	if (in->flags & F_SAT)
		x = isnan(x) ? 0.0 : fmin(fmax(x, 0.0), 1.0);
	if (dt.bits == 64)
		return bits64(x);
	if (dt.k == TK_BF16)
		return float_to_bf16((float)x);
	if (dt.bits == 16)
		return ps_float_to_half((float)x);
	float f = st.bits == 64 ? (float)x : (float)x;
	return bits32(ftz32(in, f));
}

static bool cvt_one(const PsIns *in, uint64_t a, uint64_t *d)
{
	PsType dt = in->ty[0], st = in->ty[1];
	bool df = dt.k == TK_F || dt.k == TK_BF16, sf = st.k == TK_F || st.k == TK_BF16;
	if (!df && !sf) {
		*d = i2i(in, dt, st, a);
	} else if (df && sf) {
		double x = fval(st, a);
		if (st.bits == 32)
			x = ftz32(in, (float)x);
		if (dt.bits == 16 && in->rnd != RND_RN && in->rnd != RND_NONE)
			return false;
		*d = f2f(in, dt, st, x);
	} else if (sf) {
		double x = fval(st, a);
		if (st.bits == 32)
			x = ftz32(in, (float)x);
		*d = f2i(in, dt, x);
	} else {
		a = ps_ext(st, a);
		double x = st.k == TK_S ? (double)(int64_t)a : (double)a;
		if (dt.bits == 32) {   /* round once, from the integer */
			float f = st.k == TK_S ? (float)(int64_t)a : (float)a;
			*d = bits32(f);
			return true;
		}
		if (st.bits == 64 && dt.bits == 64)
			x = st.k == TK_S ? (double)(int64_t)a : (double)a;
		*d = f2f(in, dt, st, x);
	}
	return true;
}

static bool cvt(const PsIns *in, uint64_t (*v)[PS_NLANES], uint64_t *d, uint32_t mask)
{
	if (in->nty != 2 || in->ty[0].k == TK_TF32 || in->ty[1].k == TK_TF32)
		return false;
	int old = fegetround();
	int rnd = in->rnd >= RND_RNI ? RND_RN : in->rnd;
	fesetround(fround(rnd));
	bool ok = true;
	for (int l = 0; l < PS_NLANES && ok; l++)
		if (mask >> l & 1)
			ok = cvt_one(in, v[0][l], &d[l]);
	fesetround(old);
	return ok;
}

bool ps_alu(const PsIns *in, uint64_t (*v)[PS_NLANES], uint64_t *d, uint64_t *d2,
            uint32_t mask, const char **why)
{
	*why = "unsupported form";
	if (!in->nty)
		return false;
	PsType t = in->ty[0];
	switch (in->op) {
	case OP_setp: return setp(in, v, d, d2, mask);
	case OP_cvt: return cvt(in, v, d, mask);
	case OP_selp:
		for (int l = 0; l < PS_NLANES; l++)
			if (mask >> l & 1)
				d[l] = v[2][l] & 1 ? v[0][l] : v[1][l];
		return true;
	case OP_mov:
		for (int l = 0; l < PS_NLANES; l++)
			if (mask >> l & 1)
				d[l] = v[0][l];
		return true;
	}
	if (t.k == TK_F)
		return (in->op == OP_mad && in->rnd == RND_NONE) ? false : falu(in, v, d, mask);
	if (t.k == TK_PRED) {
		if (in->op != OP_and && in->op != OP_or && in->op != OP_xor && in->op != OP_not)
			return false;
		t = (PsType){TK_B, 1};
	}
	if (t.k != TK_B && t.k != TK_U && t.k != TK_S)
		return false;
	PsIns one = *in;
	one.ty[0] = t;
	return ialu(&one, v, d, mask);
}
