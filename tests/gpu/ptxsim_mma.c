/* ptxsim_mma.c — mma.sync.aligned, the warp-wide matrix multiply-add
 * D = A * B + C, for the shapes and types cmetal's dpas lowering emits:
 *   m16n8k16 .row.col f32 = f16 x f16 + f32, and bf16 x bf16
 *   m16n8k8  .row.col f32 = tf32 x tf32 + f32
 *   m16n8k32 .row.col s32 = s8/u8 x s8/u8 + s32
 *   m8n8k4   .row.col f64 = f64 x f64 + f64
 *   m16n8k4  .row.col f64 = f64 x f64 + f64 (two m8n8k4 of one B, dpair.c)
 * The fragments are spread over the lanes as the PTX ISA's "Matrix
 * Fragments for mma.mMnNkK" figures say, with groupID = laneid / 4 and
 * threadID_in_group t = laneid % 4.  For the m16 shapes with E elements
 * of A or B in a 32-bit register (E = 2 for 16-bit types, 1 for tf32, 4
 * for bytes, so K = 8E):
 *   A element j of register r: row groupID + 8 * (r & 1),
 *                              column t * E + j + 4E * (r >= 2)
 *   B element j of register r: row (k) t * E + j + 4E * r, column groupID
 *   C/D register i:            row groupID + 8 * (i >= 2), column 2t + (i & 1)
 * and for m8n8k4 .f64: A (groupID, t), B (t, groupID), C/D register i
 * (groupID, 2t + i); m16n8k4 .f64 adds rows groupID + 8: A register 1,
 * C/D registers 2 and 3.  Products are summed exactly enough (doubles, or
 * 64-bit integers) and rounded once; the tensor cores' own order and
 * rounding of partial sums may differ in the last bits, and tf32 operands
 * keep only their 10 mantissa bits as the hardware reads them.
 */
#include "ptxsim.h"

#include <string.h>

enum { MAXM = 16, MAXN = 8, MAXK = 32 };

/* The value of element j of a 32- or 64-bit register of type t. */
static double elem(PsType t, uint64_t v, int j)
{
	float f;
	uint32_t u;
	switch (t.k) {
	case TK_F:
		if (t.bits == 64) {
			double d;
			memcpy(&d, &v, 8);
			return d;
		}
		return ps_half_to_float((uint16_t)(v >> (16 * j)));
	case TK_BF16:
		u = (uint32_t)(v >> (16 * j) & 0xffff) << 16;
		memcpy(&f, &u, 4);
		return f;
	case TK_TF32:
		u = (uint32_t)v & 0xffffe000u;
		memcpy(&f, &u, 4);
		return f;
	case TK_S:
		return (int8_t)(v >> (8 * j));
	case TK_U:
		return (uint8_t)(v >> (8 * j));
	}
	return 0;
}

/* The value of an accumulator register (s32, f32 or f64). */
static double acc(PsType t, uint64_t v)
{
	if (t.k == TK_S)
		return (int32_t)v;
	if (t.bits == 64)
		return elem(t, v, 0);
	float f;
	uint32_t u = (uint32_t)v;
	memcpy(&f, &u, 4);
	return f;
}

/* Elements of type t in one register. */
static int per_reg(PsType t)
{
	return t.bits == 64 ? 1 : 32 / t.bits;
}

bool ps_mma(const PsIns *in, uint64_t (*a)[PS_NLANES], int na, uint64_t (*b)[PS_NLANES], int nb,
            uint64_t (*c)[PS_NLANES], int nc, uint64_t (*d)[PS_NLANES], const char **why)
{
	int m = in->shape[0], n = in->shape[1], k = in->shape[2];
	PsType td = in->ty[0], ta = in->ty[1], tb = in->ty[2], tc = in->ty[3];
	bool dbl = n == 8 && k == 4 && ta.k == TK_F && ta.bits == 64;
	bool f64 = dbl && m == 8, f64w = dbl && m == 16;   /* m8n8k4, m16n8k4 */
	int e = per_reg(ta), rows = f64w ? 2 : 1;
	*why = "an mma shape or type it does not simulate";
	if (in->nty != 4 || in->n != 4 || td.k != tc.k || td.bits != tc.bits || ta.k == TK_NONE)
		return false;
	if (!dbl && (m != 16 || n != 8 || k != 8 * e || per_reg(tb) != e))
		return false;
	if (na != (dbl ? rows : 4) || nb != (dbl ? 1 : 2) || nc != (f64 ? 2 : 4))
		return false;
	double A[MAXM][MAXK], B[MAXK][MAXN], C[MAXM][MAXN];
	for (int l = 0; l < PS_NLANES; l++) {
		int g = l / 4, t = l % 4;
		if (dbl) {
			B[t][g] = elem(tb, b[0][l], 0);
			for (int h = 0; h < rows; h++) {
				A[g + 8 * h][t] = elem(ta, a[h][l], 0);
				for (int i = 0; i < 2; i++)
					C[g + 8 * h][2 * t + i] = acc(tc, c[2 * h + i][l]);
			}
			continue;
		}
		for (int r = 0; r < 4; r++)
			for (int j = 0; j < e; j++)
				A[g + 8 * (r & 1)][t * e + j + 4 * e * (r >= 2)] = elem(ta, a[r][l], j);
		for (int r = 0; r < 2; r++)
			for (int j = 0; j < e; j++)
				B[t * e + j + 4 * e * r][g] = elem(tb, b[r][l], j);
		for (int i = 0; i < 4; i++)
			C[g + 8 * (i >= 2)][2 * t + (i & 1)] = acc(tc, c[i][l]);
	}
	for (int l = 0; l < PS_NLANES; l++) {
		int g = l / 4, t = l % 4;
		for (int i = 0; i < (f64 ? 2 : 4); i++) {
			int row = f64 ? g : g + 8 * (i >= 2), col = f64 ? 2 * t + i : 2 * t + (i & 1);
			double sum = C[row][col];
			int64_t isum = (int64_t)C[row][col];
			for (int x = 0; x < k; x++) {
				sum += A[row][x] * B[x][col];
				isum += (int64_t)A[row][x] * (int64_t)B[x][col];
			}
			if (td.k == TK_S) {
				d[i][l] = (uint32_t)isum;
			} else if (td.bits == 64) {
				memcpy(&d[i][l], &sum, 8);
			} else {
				float f = (float)sum;
				uint32_t u;
				memcpy(&u, &f, 4);
				d[i][l] = u;
			}
		}
	}
	return true;
}

double ps_half_value(PsType t, uint16_t h)
{
	return elem(t, h, 0);
}
