/* divc.c — integer division and remainder by a constant, as shifts and a
 * multiply.
 *
 * requires: nothing but px_ins and px_tmp; no IR.
 *
 * ptxas (CUDA 13.0) expands div and rem by an immediate like a runtime
 * divisor: a float reciprocal, two multiplies and a correction, about 18
 * SASS, where nvcc's front end hands it a multiply-high and a shift.  The
 * back end divides by constants in lane tables (the row and column of a
 * lane's element), in region index arithmetic and in user code (x / 3,
 * k % 48), so it writes the short forms itself:
 *
 *   unsigned c = 2^k    q = a >> k                     r = a & (c - 1)
 *   unsigned c > 2^31   q = a >= c                     (0 or 1)
 *   other unsigned c    q = mulhi(a, M) >> s, M = ceil(2^(32+s) / c) for
 *                       the least s that keeps q exact for every 32-bit a
 *                       (Granlund and Montgomery 1994, theorem 4.2: the
 *                       error M c - 2^(32+s) at most 2^s); when M needs 33
 *                       bits, the add form t = mulhi(a, M - 2^32),
 *                       q = (t + ((a - t) >> 1)) >> (s - 1), s = ceil(log2 c)
 *   signed c            the unsigned quotient of |a| by |c|, negated when
 *                       the signs differ (C rounds toward zero); a power of
 *                       two adds 2^k - 1 to a negative a before the shift
 *   remainder           r = a - q c, one mad
 *
 * 64-bit operands: powers of two only (px_divc64); other divisors keep
 * ptxas's division.
 */
#include "target/ptx/ptx.h"

static int log2_exact(uint64_t c)
{
	if (!c || (c & (c - 1)))
		return -1;
	int k = 0;
	while ((1ull << k) != c)
		k++;
	return k;
}

PxDivPlan px_div_plan(uint32_t c)
{
	PxDivPlan m = {PXD_ONE, 0, 0};
	int k = log2_exact(c);
	if (c == 0)
		die("division by the constant 0");
	if (k > 0)
		return (PxDivPlan){PXD_SHIFT, 0, k};
	if (k == 0)
		return m;
	if (c > 0x80000000u)
		return (PxDivPlan){PXD_COMPARE, 0, 0};
	int l = 0;			/* ceil(log2 c): 2 .. 31 */
	while ((1ull << l) < c)
		l++;
	for (int s = 0; s <= l; s++) {
		uint64_t two = 1ull << (32 + s);
		uint64_t M = (two + c - 1) / c;
		if (M * c - two > (1ull << s))
			continue;
		if (M <= 0xffffffffull)
			return (PxDivPlan){PXD_MULHI, (uint32_t)M, s};
		break;
	}
	uint64_t M = ((1ull << (32 + l)) + c - 1) / c;
	return (PxDivPlan){PXD_MULHI_ADD, (uint32_t)(M - (1ull << 32)), l};
}

uint32_t px_div_apply(PxDivPlan m, uint32_t a, uint32_t c)
{
	switch (m.kind) {
	case PXD_ONE: return a;
	case PXD_SHIFT: return a >> m.shift;
	case PXD_COMPARE: return a >= c;
	case PXD_MULHI: return (uint32_t)(((uint64_t)a * m.mul) >> 32) >> m.shift;
	case PXD_MULHI_ADD: {
		uint32_t t = (uint32_t)(((uint64_t)a * m.mul) >> 32);
		return (t + ((a - t) >> 1)) >> (m.shift - 1);
	}
	}
	return 0;
}

/* q = a / c, unsigned 32-bit, by plan m. */
static void udiv(Px *p, const char *q, const char *a, uint32_t c, PxDivPlan m)
{
	const char *t, *u;
	switch (m.kind) {
	case PXD_ONE:
		px_ins(p, "mov.b32 %s, %s", q, a);
		return;
	case PXD_SHIFT:
		px_ins(p, "shr.u32 %s, %s, %d", q, a, m.shift);
		return;
	case PXD_COMPARE:
		t = px_tmp(p, RC_PRED);
		px_ins(p, "setp.ge.u32 %s, %s, %u", t, a, c);
		px_ins(p, "selp.u32 %s, 1, 0, %s", q, t);
		return;
	case PXD_MULHI:
		if (!m.shift) {
			px_ins(p, "mul.hi.u32 %s, %s, %u", q, a, m.mul);
			return;
		}
		t = px_tmp(p, RC_B32);
		px_ins(p, "mul.hi.u32 %s, %s, %u", t, a, m.mul);
		px_ins(p, "shr.u32 %s, %s, %d", q, t, m.shift);
		return;
	case PXD_MULHI_ADD:
		t = px_tmp(p, RC_B32), u = px_tmp(p, RC_B32);
		px_ins(p, "mul.hi.u32 %s, %s, %u", t, a, m.mul);
		px_ins(p, "sub.u32 %s, %s, %s", u, a, t);
		px_ins(p, "shr.u32 %s, %s, 1", u, u);
		px_ins(p, "add.u32 %s, %s, %s", u, u, t);
		px_ins(p, "shr.u32 %s, %s, %d", q, u, m.shift - 1);
		return;
	}
}

/* d = a - q * c (mod 2^32): the remainder from the quotient. */
static void rem_of(Px *p, const char *d, const char *a, const char *q, uint32_t c)
{
	px_ins(p, "mad.lo.u32 %s, %s, %u, %s", d, q, 0u - c, a);
}

/* A zero divisor keeps the instruction (its result is PTX's). */
static bool by_zero(Px *p, const char *d, const char *a, int64_t c, bool sgn, bool rem)
{
	if (c)
		return false;
	px_ins(p, "%s.%s32 %s, %s, 0", rem ? "rem" : "div", sgn ? "s" : "u", d, a);
	return true;
}

void px_udivc(Px *p, const char *d, const char *a, uint32_t c, bool rem)
{
	if (by_zero(p, d, a, c, false, rem))
		return;
	PxDivPlan m = px_div_plan(c);
	if (rem && m.kind == PXD_ONE) {
		px_ins(p, "mov.b32 %s, 0", d);
	} else if (rem && m.kind == PXD_SHIFT) {
		px_ins(p, "and.b32 %s, %s, %u", d, a, c - 1);
	} else if (rem) {
		const char *q = px_tmp(p, RC_B32);
		udiv(p, q, a, c, m);
		rem_of(p, d, a, q, c);
	} else {
		udiv(p, d, a, c, m);
	}
}

/* q = a / c, signed 32-bit, c = +-2^k (k >= 1): a negative a is biased by
 * 2^k - 1 so that the arithmetic shift rounds toward zero. */
static void sdiv_pow2(Px *p, const char *q, const char *a, int k, bool neg)
{
	const char *t = px_tmp(p, RC_B32);
	px_ins(p, "shr.s32 %s, %s, 31", t, a);
	px_ins(p, "shr.u32 %s, %s, %d", t, t, 32 - k);
	px_ins(p, "add.s32 %s, %s, %s", t, t, a);
	px_ins(p, "shr.s32 %s, %s, %d", neg ? t : q, t, k);
	if (neg)
		px_ins(p, "neg.s32 %s, %s", q, t);
}

void px_sdivc(Px *p, const char *d, const char *a, int32_t c, bool rem)
{
	if (by_zero(p, d, a, c, true, rem))
		return;
	uint32_t mag = c < 0 ? 0u - (uint32_t)c : (uint32_t)c;
	const char *q = rem ? px_tmp(p, RC_B32) : d;
	if (rem && mag == 1) {
		px_ins(p, "mov.b32 %s, 0", d);
		return;
	}
	int k = log2_exact(mag);
	if (c == 1) {
		px_ins(p, "mov.b32 %s, %s", q, a);
	} else if (c == -1) {
		px_ins(p, "neg.s32 %s, %s", q, a);
	} else if (k > 0 && k < 31) {
		sdiv_pow2(p, q, a, k, c < 0);
	} else {
		/* |a| as unsigned (|INT32_MIN| is 2^31), its quotient, and the
		 * sign: s = a >> 31 (0 or -1) flips it by (u ^ s) - s */
		const char *u = px_tmp(p, RC_B32), *s = px_tmp(p, RC_B32);
		px_ins(p, "abs.s32 %s, %s", u, a);
		udiv(p, u, u, mag, px_div_plan(mag));
		px_ins(p, "shr.s32 %s, %s, 31", s, a);
		if (c < 0)
			px_ins(p, "not.b32 %s, %s", s, s);
		px_ins(p, "xor.b32 %s, %s, %s", u, u, s);
		px_ins(p, "sub.s32 %s, %s, %s", q, u, s);
	}
	if (rem)
		rem_of(p, d, a, q, (uint32_t)c);
}

bool px_divc64(Px *p, const char *d, const char *a, int64_t c, bool sgn, bool rem)
{
	uint64_t mag = c < 0 ? 0ull - (uint64_t)c : (uint64_t)c;
	int k = log2_exact(mag);
	if (k < 1 || k > 62 || (c < 0 && !sgn))
		return false;
	if (!sgn) {
		if (rem)
			px_ins(p, "and.b64 %s, %s, %llu", d, a, (unsigned long long)mag - 1);
		else
			px_ins(p, "shr.u64 %s, %s, %d", d, a, k);
		return true;
	}
	const char *t = px_tmp(p, RC_B64);
	px_ins(p, "shr.s64 %s, %s, 63", t, a);
	px_ins(p, "shr.u64 %s, %s, %d", t, t, 64 - k);
	px_ins(p, "add.s64 %s, %s, %s", t, t, a);
	if (rem) {
		/* a - ((a + bias) & -2^k): the sign of a, as C's % keeps it */
		px_ins(p, "and.b64 %s, %s, %lld", t, t, -(long long)mag);
		px_ins(p, "sub.s64 %s, %s, %s", d, a, t);
		return true;
	}
	px_ins(p, "shr.s64 %s, %s, %d", d, t, k);
	if (c < 0)
		px_ins(p, "neg.s64 %s, %s", d, d);
	return true;
}
