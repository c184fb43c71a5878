/* ir.h — CMIR, the middle end's intermediate representation.
 *
 * CMIR is typed SSA.  Every value is the result of one instruction (Inst):
 * a vector of n elements of one element type (n = 1 is a scalar), or a mask
 * (element type i1).  Constants and kernel arguments are instructions too
 * (Oconst, Oarg), so an operand is always an Inst *.
 *
 *   Module   the kernels of one compilation (every call is inlined by the
 *            lowering: CM forbids recursion) and their metadata
 *   Func     one kernel: parameters, blocks in layout order, blocks[0] is
 *            the entry
 *   Block    a doubly linked list of instructions (phis first) and one
 *            terminator (br, cbr on a scalar i1, ret)
 *   Inst     opcode, result type, operands, and the attributes its opcode
 *            uses (region, saturation, memory space, atomic op, ...)
 *
 * Regions follow the paper (seeds/002 §V) with one change: offsets count
 * ELEMENTS of the source's element type, not bytes.  Element k of a region
 * of n elements with <vstride; width, hstride>, offset o (plus a runtime
 * offset r when present) is
 *       src[o + r + (k / width) * vstride + (k % width) * hstride].
 * rdregion(src) yields those n elements.  wrregion(old, new) yields old
 * with those n positions replaced by new's elements (only where the mask
 * is set, when a mask is given).  A splat of a scalar is rdregion <0;1,0>.
 * Constant regions must be in range (the verifier checks); runtime ones are
 * checked when they run: out-of-range elements read as 0, writes to them
 * are dropped.
 *
 * Masked (SIMD control flow) code is explicit: the lowering computes
 * execution masks as i1 vectors, and wrregion and the memory instructions
 * take an optional trailing mask operand.
 *
 * The text form (print.c writes it, parse.c reads it back exactly):
 *
 *   kernel @vadd(a: surface buffer "buffer_t", n: scalar i32) slm 0 {
 *   b0:
 *           %0:u32 = arg 0
 *           %1:i32 = const 0
 *           %2:v16f32 = bload.surf %0, %1
 *           %3:v8f32 = rdregion %2, <0;8,2>, 1
 *           ret
 *   }
 */
#ifndef CMETAL_IR_H
#define CMETAL_IR_H

#include "util/util.h"

typedef struct Node Node;   /* front/front.h: the checked AST */

/* ---- types -------------------------------------------------------------- */

/* Element types: X(name, text, bytes, flags).  i1 is a mask element. */
#define IR_ELEMS(X)                                                           \
	X(VOID, "void", 0, 0)                                                 \
	X(I1, "i1", 1, 0)                                                     \
	X(I8, "i8", 1, IRE_SIGNED) X(U8, "u8", 1, 0)                          \
	X(I16, "i16", 2, IRE_SIGNED) X(U16, "u16", 2, 0)                      \
	X(I32, "i32", 4, IRE_SIGNED) X(U32, "u32", 4, 0)                      \
	X(I64, "i64", 8, IRE_SIGNED) X(U64, "u64", 8, 0)                      \
	X(F16, "f16", 2, IRE_FLOAT) X(F32, "f32", 4, IRE_FLOAT)               \
	X(F64, "f64", 8, IRE_FLOAT)

enum { IRE_SIGNED = 1, IRE_FLOAT = 2 };

typedef enum {
#define X(n, s, b, f) E_##n,
	IR_ELEMS(X)
#undef X
	E_COUNT_
} Elem;

/* A value's type: n elements of elem.  {E_VOID, 0} for no result.
 * Text: "i32" for n = 1, "v16f32" otherwise. */
typedef struct {
	Elem elem;
	uint32_t n;
} IrType;

/* ---- opcodes ------------------------------------------------------------ */

/* Flags of an opcode. */
enum {
	IRF_PURE = 1 << 0,    /* no side effect: removable when unused */
	IRF_VOID = 1 << 1,    /* no result */
	IRF_SAT = 1 << 2,     /* takes the saturation flag */
	IRF_MASK = 1 << 3,    /* takes an optional trailing mask operand */
	IRF_ROFF = 1 << 4,    /* takes an optional runtime offset (regions) */
	IRF_MEM = 1 << 5,     /* touches memory; has a space */
	IRF_VAR = 1 << 6,     /* variable operand count beyond the fixed ones */
	IRF_COMM = 1 << 7,    /* binary and commutative */
	IRF_CMP = 1 << 8,     /* compare: result is an i1 vector */
	IRF_ELEMWISE = 1 << 9,/* element k of the result uses element k of the
	                         operands (scalars broadcast): fold/C loops */
	IRF_BARRIER = 1 << 10,/* orders memory: do not move across */
	/* short forms for the table */
	IRF_P = IRF_PURE, IRF_E = IRF_ELEMWISE, IRF_S = IRF_SAT,
};

/* X(name, text, fixed operand count, flags)
 *
 * Arithmetic (add .. mad, unary math) is element-wise.  Operands have one
 * common type S and the result type D has the same n (a scalar operand is
 * broadcast).  When S == D and there is no .sat flag the operation is C's
 * (integers wrap, shifts use the count modulo the bit width, >> is
 * arithmetic for signed types, division by zero gives 0 for integers).
 * Otherwise the result is computed exactly (in a wider type) and then
 * converted to D as Oconv does, saturating when .sat is set: this is CM's
 * cm_add<short>(a, b, SAT). */
#define IR_OPS(X)                                                             \
	/* values */                                                          \
	X(const, "const", 0, IRF_P)        /* c.v: n elements, or 1 = splat */ \
	X(arg, "arg", 0, IRF_P)            /* kernel argument imm (index) */  \
	X(phi, "phi", 0, IRF_P | IRF_VAR)  /* ops[i] comes from phiblk[i] */  \
	X(copy, "copy", 1, IRF_P | IRF_E)                                     \
	/* arithmetic */                                                      \
	X(add, "add", 2, IRF_P | IRF_E | IRF_S | IRF_COMM)                    \
	X(sub, "sub", 2, IRF_P | IRF_E | IRF_S)                               \
	X(mul, "mul", 2, IRF_P | IRF_E | IRF_S | IRF_COMM)                    \
	X(div, "div", 2, IRF_P | IRF_E | IRF_S)    /* integer: toward 0; float: IEEE */ \
	X(rem, "rem", 2, IRF_P | IRF_E)        /* C's % (sign of the dividend) */ \
	X(neg, "neg", 1, IRF_P | IRF_E | IRF_S)                               \
	X(abs, "abs", 1, IRF_P | IRF_E | IRF_S)                               \
	X(min, "min", 2, IRF_P | IRF_E | IRF_S | IRF_COMM)                    \
	X(max, "max", 2, IRF_P | IRF_E | IRF_S | IRF_COMM)                    \
	X(avg, "avg", 2, IRF_P | IRF_E | IRF_S | IRF_COMM) /* (a + b + 1) >> 1 exact */ \
	X(mad, "mad", 3, IRF_P | IRF_E | IRF_S)    /* a * b + c */            \
	X(mulhi, "mulhi", 2, IRF_P | IRF_E | IRF_COMM) /* high half of a * b */ \
	X(carry, "carry", 2, IRF_P | IRF_E | IRF_COMM) /* unsigned carry of a + b */ \
	X(borrow, "borrow", 2, IRF_P | IRF_E)  /* unsigned a < b ? 1 : 0 */   \
	/* bitwise and shifts (i1 allowed for and/or/xor/not) */              \
	X(and, "and", 2, IRF_P | IRF_E | IRF_COMM)                            \
	X(or, "or", 2, IRF_P | IRF_E | IRF_COMM)                              \
	X(xor, "xor", 2, IRF_P | IRF_E | IRF_COMM)                            \
	X(not, "not", 1, IRF_P | IRF_E)                                       \
	X(shl, "shl", 2, IRF_P | IRF_E | IRF_S)                               \
	X(ashr, "ashr", 2, IRF_P | IRF_E | IRF_S)                             \
	X(lshr, "lshr", 2, IRF_P | IRF_E | IRF_S)                             \
	X(rol, "rol", 2, IRF_P | IRF_E)                                       \
	X(ror, "ror", 2, IRF_P | IRF_E)                                       \
	/* compare: operands of one type, result v{n}i1 */                    \
	X(eq, "eq", 2, IRF_P | IRF_E | IRF_CMP | IRF_COMM)                    \
	X(ne, "ne", 2, IRF_P | IRF_E | IRF_CMP | IRF_COMM)                    \
	X(lt, "lt", 2, IRF_P | IRF_E | IRF_CMP)                               \
	X(le, "le", 2, IRF_P | IRF_E | IRF_CMP)                               \
	X(gt, "gt", 2, IRF_P | IRF_E | IRF_CMP)                               \
	X(ge, "ge", 2, IRF_P | IRF_E | IRF_CMP)                               \
	X(sel, "sel", 3, IRF_P | IRF_E)        /* mask ? a : b; scalar i1 mask ok */ \
	/* conversions */                                                     \
	X(conv, "conv", 1, IRF_P | IRF_E | IRF_S)  /* see below */            \
	X(bitcast, "bitcast", 1, IRF_P)    /* same total bytes, little-endian */ \
	/* regions and in-register gathers */                                 \
	X(rdregion, "rdregion", 1, IRF_P | IRF_ROFF)                          \
	X(wrregion, "wrregion", 2, IRF_P | IRF_ROFF | IRF_MASK)               \
	X(iselect, "iselect", 2, IRF_P)    /* out[k] = src[idx[k]]; OOB gives 0 */ \
	X(dpas, "dpas", 3, IRF_P)          /* acc, b, a #prec: see below */    \
	X(wgmma, "wgmma", 3, 0)            /* acc, slm_a, slm_b #prec: below */ \
	/* reductions and masks */                                            \
	X(any, "any", 1, IRF_P)            /* v{n}i1 -> i1 */                 \
	X(all, "all", 1, IRF_P)                                               \
	X(rsum, "rsum", 1, IRF_P | IRF_S)      /* vector -> scalar of the same elem */ \
	X(rprod, "rprod", 1, IRF_P | IRF_S)                                   \
	X(rmin, "rmin", 1, IRF_P)                                             \
	X(rmax, "rmax", 1, IRF_P)                                             \
	X(pack, "pack", 1, IRF_P)          /* v{n}i1 -> u32, bit k = element k */ \
	X(unpack, "unpack", 1, IRF_P)      /* u32 -> v{n}i1 */                \
	/* math (float unless said) */                                        \
	X(inv, "inv", 1, IRF_P | IRF_E | IRF_S)                               \
	X(log2, "log2", 1, IRF_P | IRF_E | IRF_S)                             \
	X(exp2, "exp2", 1, IRF_P | IRF_E | IRF_S)                             \
	X(sqrt, "sqrt", 1, IRF_P | IRF_E | IRF_S)                             \
	X(rsqrt, "rsqrt", 1, IRF_P | IRF_E | IRF_S)                           \
	X(sin, "sin", 1, IRF_P | IRF_E | IRF_S)                               \
	X(cos, "cos", 1, IRF_P | IRF_E | IRF_S)                               \
	X(asin, "asin", 1, IRF_P | IRF_E | IRF_S)                             \
	X(acos, "acos", 1, IRF_P | IRF_E | IRF_S)                             \
	X(atan, "atan", 1, IRF_P | IRF_E | IRF_S)                             \
	X(pow, "pow", 2, IRF_P | IRF_E | IRF_S)                               \
	X(frc, "frc", 1, IRF_P | IRF_E)        /* x - floor(x) */             \
	X(rndd, "rndd", 1, IRF_P | IRF_E)      /* floor, result float */      \
	X(rndu, "rndu", 1, IRF_P | IRF_E)      /* ceil */                     \
	X(rnde, "rnde", 1, IRF_P | IRF_E)      /* round half to even */       \
	X(rndz, "rndz", 1, IRF_P | IRF_E)      /* truncate */                 \
	X(cbit, "cbit", 1, IRF_P | IRF_E)      /* popcount, integers; result u32 */ \
	X(fbl, "fbl", 1, IRF_P | IRF_E)        /* lowest set bit; 0 -> ~0u */ \
	X(fbh, "fbh", 1, IRF_P | IRF_E)        /* see cm-language.md §7 */    \
	X(lzd, "lzd", 1, IRF_P | IRF_E)        /* leading zeros */            \
	X(bfrev, "bfrev", 1, IRF_P | IRF_E)    /* bit reversal */             \
	X(bfi, "bfi", 4, IRF_P | IRF_E)        /* width, offset, val, src */  \
	X(bfe, "bfe", 3, IRF_P | IRF_E)        /* width, offset, src (sign for iN) */ \
	/* memory: every one has a space (.surf .svm .slm); see below */      \
	X(bload, "bload", 2, IRF_MEM)                                         \
	X(bstore, "bstore", 3, IRF_MEM | IRF_VOID)                            \
	X(mload, "mload", 3, IRF_MEM)                                         \
	X(mstore, "mstore", 4, IRF_MEM | IRF_VOID)                            \
	X(gather, "gather", 3, IRF_MEM | IRF_MASK)                            \
	X(scatter, "scatter", 4, IRF_MEM | IRF_MASK | IRF_VOID)               \
	X(gather4, "gather4", 3, IRF_MEM | IRF_MASK)                          \
	X(scatter4, "scatter4", 4, IRF_MEM | IRF_MASK | IRF_VOID)             \
	X(tload, "tload", 4, IRF_MEM | IRF_MASK)                              \
	X(tstore, "tstore", 5, IRF_MEM | IRF_MASK | IRF_VOID)                 \
	X(atomic, "atomic", 3, IRF_MEM | IRF_MASK | IRF_VAR)                  \
	X(tatomic, "tatomic", 4, IRF_MEM | IRF_MASK | IRF_VAR)                \
	/* synchronisation, thread ids, misc */                               \
	X(barrier, "barrier", 0, IRF_VOID | IRF_BARRIER)                      \
	X(sbarrier, "sbarrier", 0, IRF_VOID | IRF_BARRIER) /* imm 1 signal */ \
	X(fence, "fence", 0, IRF_VOID | IRF_BARRIER)       /* imm: mask */    \
	X(wait, "wait", 1, IRF_VOID | IRF_BARRIER)         /* u32 mask */     \
	X(signal, "signal", 0, IRF_VOID | IRF_BARRIER)                        \
	X(slmcopy, "slmcopy", 3, IRF_VOID | IRF_BARRIER) /* surf, slm, offs */ \
	X(slmcommit, "slmcommit", 0, IRF_VOID | IRF_BARRIER)                  \
	X(slmwait, "slmwait", 0, IRF_VOID | IRF_BARRIER) /* imm: groups left */ \
	X(wgwait, "wgwait", 0, IRF_VOID | IRF_BARRIER)   /* imm: groups left */ \
	X(tid, "tid", 0, IRF_P)            /* imm: IrTid */                   \
	X(timer, "timer", 0, 0)        /* cm_rdtsc: v4u32 */                  \
	X(printf, "printf", 0, IRF_VOID | IRF_VAR) /* str, scalar args */     \
	X(trap, "trap", 0, IRF_VOID)   /* fault hook: str says what */

/* Oconv: element-wise conversion to the result type.
 *   int -> int    wraps (truncation / extension by the source's sign)
 *   int -> float  rounds to nearest
 *   float -> int  truncates toward 0, clamped to the destination's range,
 *                 NaN -> 0 (Gen hardware)
 *   float -> float rounds to nearest
 *   x -> i1       x != 0;  i1 -> x: 1 or 0
 * With .sat: integer destinations clamp to their range (the value computed
 * exactly first); float destinations clamp to [0.0, 1.0] with NaN -> 0
 * (cm-language.md §4.2). */

/* Odpas acc, b, a: the systolic multiply-accumulate (cm_dpas) with depth 8.
 * imm = p1 | p2 << 8 | rc << 16: the precisions of b and a (IrPrec, Intel's
 * CmPrecisionType values) and the repeat count rc (1..8).  With E the
 * execution size (8 or 16) and K the elements per row (16 for HF/BF, 32
 * for U8/S8, 8 for TF32, 4 for DF), reading b and a as little-endian bytes:
 *   a is rc x K   (row r: 8 dwords, element k at bits of dword k / (K/8))
 *   b is K x E    (element (k, n) in dword (k / (K/8)) * E + n, sub-element
 *                  k % (K/8); for DF, double (k, n) is b's element k * E + n)
 *   result[r*E + n] = acc[r*E + n] + sum over k of a[r][k] * b[k][n]
 * acc and the result are i32/u32 (integers, exact, wrapping), f32 (HF, BF,
 * TF32: each product is exact in f32 and added in order k = 0.. with
 * round-to-nearest-even; TF32 inputs drop their low 13 mantissa bits) or
 * f64 (DF: fused multiply-add per k, in order). */
/* Owgmma acc, a, b (cm_wgmma, a cmetal extension): reads SLM.  imm = the
 * precision of A and B (PR_HF or PR_BF), plus IR_WGMMA_SW128 for the
 * swizzled layout; acc and the result are 16 x N f32 (N = n / 16, 8..56 in
 * steps of 8), rows 16t..16t+15 of a warpgroup's 64 x N product, t = the
 * CM thread's linear local id % 4; a and b are u32 SLM byte offsets of A
 * (64 x 16) and B (16 x N), both K-major:
 *  - without the swizzle, in 8 x 8 core matrices of 128 bytes: A's (m, k)
 *    at a + 256 (m / 8) + 128 (k / 8) + 16 (m % 8) + 2 (k % 8), B's (k, n)
 *    at b + 256 (n / 8) + 128 (k / 8) + 16 (n % 8) + 2 (k % 8);
 *  - with IR_WGMMA_SW128, in rows of 128 bytes, Hopper's 128-byte swizzle:
 *    A's (m, k) at sw(a + 128 m + 2 k), B's (k, n) at sw(b + 128 n + 2 k),
 *    sw(x) = x ^ ((x >> 3) & 0x70) (the 16-byte chunk, bits 4..6, exchanged
 *    by the row's place in its 1024 bytes), where a % 1024 and b % 1024
 *    must be at most 96 (the operand starts in row 0 of a 1024-byte block,
 *    its 32 bytes of k inside the row).
 * result[r * N + n] = acc[r * N + n] + sum over k of A[16t + r][k] *
 * B[k][n], as Odpas HF/BF adds; an operand not so aligned (16 bytes; the
 * swizzle's rule) or not wholly inside the SLM leaves acc as it is.  Not
 * pure: it reads memory, so it stays where it is.
 * With IR_WGMMA_ASYNC (cm_wgmma_async) the multiply may still run after
 * the instruction: until an Owgwait lets it finish (imm: at most imm of
 * the thread's groups, the async calls between two Owgwaits, stay in
 * flight), the SLM it reads must not be written; the result reads as
 * computed wherever it is used (the PTX back end waits before any use
 * but another async call's accumulator). */
#define IR_WGMMA_SW128 256
#define IR_WGMMA_ASYNC 512
#define IR_WGWAIT_MAX 7
static inline bool ir_wgmma_async(int64_t imm) { return (imm & IR_WGMMA_ASYNC) != 0; }
static inline int ir_wgmma_prec(int64_t imm) { return (int)(imm & 255); }
static inline bool ir_wgmma_sw(int64_t imm) { return (imm & IR_WGMMA_SW128) != 0; }
/* The bytes A (64 x 16) and B (16 x N) span from their offsets (from the
 * 128-byte row of the offset, swizzled). */
static inline uint32_t ir_wgmma_a_bytes(bool sw) { return sw ? 8192u : 2048u; }
static inline uint32_t ir_wgmma_b_bytes(uint32_t n, bool sw) { return (sw ? 128u : 32u) * n; }
/* Oslmcopy surf, slm, offs #E (cm_slm_copy_async, a cmetal extension):
 * surf a u32 surface index (a buffer), slm a u32 SLM byte offset, offs
 * v{n}u32 byte offsets (n 1..128), imm E the element's bytes (4, 8 or
 * 16).  Element k, the E bytes of the surface at (offs[k] & -E), is
 * copied to the SLM at (slm & -E) + E k; bytes past the surface's end
 * read 0, and an element whose E bytes are not all inside the SLM is
 * dropped.  The copies may complete at any time until an
 * Oslmwait lets at most imm of this thread's groups (the copies between
 * two Oslmcommits) stay in flight.  The three order memory as barriers do,
 * so no pass moves an access over them. */
static inline bool ir_slmcopy_bytes_ok(int64_t e) { return e == 4 || e == 8 || e == 16; }
#define IR_SLMCOPY_MAX 128u
#define IR_SLMWAIT_MAX 7
typedef enum { PR_U8 = 6, PR_S8 = 7, PR_BF = 8, PR_HF = 9, PR_TF32 = 10, PR_DF = 16 } IrPrec;
#define IR_DPAS_IMM(p1, p2, rc) ((int64_t)(p1) | (int64_t)(p2) << 8 | (int64_t)(rc) << 16)

typedef enum {
#define X(n, s, c, f) O##n,
	IR_OPS(X)
#undef X
	O_COUNT_
} Op;

typedef struct {
	const char *name;
	int nops;             /* fixed operands (optional ones come after) */
	unsigned flags;       /* IRF_* */
} OpInfo;
extern const OpInfo ir_ops[O_COUNT_];

/* ---- memory ------------------------------------------------------------- */

/* Address spaces.  ptr(base) below is: for SURF the surface whose index
 * (u32) is base; for SVM the 64-bit address base; for SLM byte offset base
 * within the group's shared local memory. */
typedef enum { SP_NONE, SP_SURF, SP_SVM, SP_SLM } IrSpace;

/* Memory instructions (all offsets as said here; n = result / value
 * elements; T its element type; scale = sizeof(T), or 1 with .byte):
 *
 *   bload  base, off               n x T at ptr(base) + off bytes (oword
 *                                  block read, SVM/SLM block read); the
 *                                  address is 16-byte aligned, or .alignN
 *                                  N-byte (a T wider than N is accessed
 *                                  in N-byte pieces)
 *   bstore base, off, val
 *   mload  surf, x, y   imm=cols   2D media block: rows = n / cols; x in
 *                                  bytes, y in rows; reads clamp to edge
 *   mstore surf, x, y, val  imm=cols   writes outside are dropped
 *   gather  base, goff, offs[,mask]     out[k] = *(T *)(ptr(base) +
 *                                       (goff + offs[k]) * scale)
 *   scatter base, goff, offs, val[,mask]
 *   gather4 base, goff, offs[,mask]  ch=mask of enabled channels (bit 0 R,
 *           .. bit 3 A: never the inverted SLM encoding); lane k channel c
 *           is the dword at ptr(base) + (goff + offs[k]) * scale + 4 * c;
 *           the result is channel-major: enabled channels in R,G,B,A order,
 *           each offs.n elements
 *   scatter4 base, goff, offs, val[,mask]
 *   tload  surf, u, v, r[,mask]     typed 4-channel (pixel coordinates)
 *   tstore surf, u, v, r, val[,mask]
 *   atomic base, goff, offs, src0..[,mask]  .op (IrAtomic) decides the
 *           number of sources; returns the old value (PREDEC: the new)
 *   tatomic surf, u, v, r, src0..[,mask]  the same on the first dword of
 *           typed pixel (u, v, r); pixels outside the surface, or of
 *           fewer than 4 bytes, are dropped and read 0
 *
 * For SVM gathers with a vector of addresses, base is const 0:u64 and goff
 * const 0 with .byte.  Surface reads out of bounds give 0 and writes are
 * dropped (1D); media block reads clamp (2D).  SLM accesses outside the
 * group's SLM are dropped / read 0. */
#define IR_ATOMICS(X)                                                         \
	X(ADD, "add", 1) X(SUB, "sub", 1) X(INC, "inc", 0) X(DEC, "dec", 0)   \
	X(PREDEC, "predec", 0) X(MIN, "min", 1) X(MAX, "max", 1)              \
	X(XCHG, "xchg", 1) X(CMPXCHG, "cmpxchg", 2) X(AND, "and", 1)          \
	X(OR, "or", 1) X(XOR, "xor", 1) X(MINSINT, "minsint", 1)              \
	X(MAXSINT, "maxsint", 1) X(FMAX, "fmax", 1) X(FMIN, "fmin", 1)        \
	X(FCMPWR, "fcmpwr", 2) X(FADD, "fadd", 1) X(FSUB, "fsub", 1)

/* CMPXCHG / FCMPWR: new = (src1 == old) ? src0 : old. */
typedef enum {
#define X(n, s, k) AT_##n,
	IR_ATOMICS(X)
#undef X
	AT_COUNT_
} IrAtomic;
extern const char *const ir_atomic_name[AT_COUNT_];
extern const int ir_atomic_nsrc[AT_COUNT_];

/* Thread ids (Otid's imm). */
#define IR_TIDS(X)                                                            \
	X(ORIGIN_X, "origin.x") X(ORIGIN_Y, "origin.y") X(COLOR, "color")     \
	X(GROUP_ID_X, "group_id.x") X(GROUP_ID_Y, "group_id.y")               \
	X(GROUP_ID_Z, "group_id.z")                                           \
	X(LOCAL_ID_X, "local_id.x") X(LOCAL_ID_Y, "local_id.y")               \
	X(LOCAL_ID_Z, "local_id.z")                                           \
	X(LOCAL_SIZE_X, "local_size.x") X(LOCAL_SIZE_Y, "local_size.y")       \
	X(LOCAL_SIZE_Z, "local_size.z")                                       \
	X(GROUP_COUNT_X, "group_count.x") X(GROUP_COUNT_Y, "group_count.y")   \
	X(GROUP_COUNT_Z, "group_count.z")

typedef enum {
#define X(n, s) TID_##n,
	IR_TIDS(X)
#undef X
	TID_COUNT_
} IrTid;
extern const char *const ir_tid_name[TID_COUNT_];

/* ---- instructions, blocks, kernels --------------------------------------- */

typedef struct Inst Inst;
typedef struct Block Block;
typedef struct Func Func;
typedef struct Module Module;

/* A region: element offsets (see the top of this file). */
typedef struct {
	int32_t vstride, width, hstride, offset;
} IrRegion;

/* Constant data: n values (n == 1 is a splat of the type's n elements).
 * Integers are stored sign- or zero-extended to 64 bits by the element
 * type's signedness (i1: 0 or 1); floats as doubles holding the value
 * already rounded to the element type. */
typedef union {
	int64_t i;
	uint64_t u;
	double f;
} IrScalar;
typedef struct {
	uint32_t n;
	IrScalar *v;
} IrConst;

struct Inst {
	Op op;
	IrType ty;            /* the result; E_VOID for none */
	uint32_t id;          /* value number: %id in the text */
	Loc loc;              /* source position: #line / .loc */
	uint32_t nuse;        /* filled by ir_count_uses */
	Block *block;
	Inst *prev, *next;    /* in block order */
	Inst **ops;
	uint32_t nops;        /* fixed + runtime offset + variadic + mask */
	bool sat;             /* .sat */
	bool ieee;            /* .ieee: div/sqrt of cm_div_ieee/cm_sqrt_ieee,
	                         correctly rounded even under -ffast-math */
	bool has_roff;        /* regions: a runtime offset operand follows the
	                         fixed ones */
	bool has_mask;        /* the last operand is a mask */
	uint8_t space;        /* IrSpace, memory instructions */
	uint8_t aop;          /* IrAtomic, Oatomic */
	uint8_t chmask;       /* gather4/scatter4/tload/tstore: RGBA bits */
	bool bytes;           /* .byte: offsets scaled by 1, not sizeof(T) */
	uint8_t align;        /* bload/bstore .alignN: the address is only
	                         known to be N-byte aligned (DWALIGNED, SVM
	                         unaligned: 4); 0 = 16, an oword */
	IrRegion rg;          /* rdregion, wrregion */
	int64_t imm;          /* arg index, IrTid, fence mask, media cols,
	                         sbarrier flag */
	const char *str;      /* printf format, trap message (interned) */
	const char *name;     /* -g: the CM variable this value was assigned to
	                         (interned), printed `; name` after the
	                         instruction and named in the C back end's
	                         variables; passes ignore it */
	IrConst c;            /* Oconst */
	Block **phiblk;       /* Ophi: predecessor of each operand */
	void *aux;            /* pass-private */
	Inst *fwd;            /* replaced by this value (ir_forward) until the
	                         pass's ir_apply_forwards rewrites the uses */
};
/* A kernel holds one per instruction, and arenas round to 16 bytes: keep
 * the fields packed (no padding between them). */
_Static_assert(sizeof(Inst) == 160, "an instruction should stay 160 bytes");

/* Odpas attributes (see IR_OPS). */
static inline int ir_dpas_p1(const Inst *i) { return (int)(i->imm & 255); }
static inline int ir_dpas_p2(const Inst *i) { return (int)(i->imm >> 8 & 255); }
static inline int ir_dpas_rc(const Inst *i) { return (int)(i->imm >> 16 & 255); }
static inline int ir_dpas_es(const Inst *i) { return (int)i->ty.n / ir_dpas_rc(i); }
static inline int ir_wgmma_n(const Inst *i) { return (int)i->ty.n / 16; }
/* Elements of precision p per row of a (K); 0 for an unknown p. */
static inline int ir_dpas_k(int p)
{
	return p == PR_U8 || p == PR_S8 ? 32 : p == PR_BF || p == PR_HF ? 16 :
	       p == PR_TF32 ? 8 : p == PR_DF ? 4 : 0;
}

typedef enum { J_NONE, J_BR, J_CBR, J_RET } JumpKind;

struct Block {
	uint32_t id;          /* b<id> in the text */
	Func *func;
	Inst *first, *last;
	struct {
		JumpKind kind;
		Inst *cond;   /* J_CBR: scalar i1 */
		Block *to[2]; /* J_BR: to[0]; J_CBR: true, false */
		Loc loc;
	} jmp;
	Block **preds;        /* filled by ir_preds */
	uint32_t npreds;
	uint32_t rpo;         /* reverse postorder number (ir_preds) */
	Block *idom;          /* filled by ir_dominators */
	void *aux;            /* pass-private */
};

/* A kernel parameter, as the runtime binds it (cmk_abi.h CmkArgInfo). */
typedef struct {
	const char *name;
	uint32_t kind;        /* CMK_ARG_* */
	IrType ty;            /* value type: surfaces/samplers u32, svm u64 */
	uint32_t surf;        /* CMK_SURF_* for surfaces */
	const char *type_attr;/* [[type("...")]] or "" */
} IrParam;

struct Func {
	const char *name;     /* interned */
	Module *mod;
	Arena *arena;         /* blocks and instructions (the name and params
	                         are the module's): ir_func_release frees them */
	Loc loc;
	IrParam *params;
	uint32_t nparams;
	Block **blocks;       /* layout order; blocks[0] is the entry */
	uint32_t nblocks, capblocks;
	uint32_t nextid;      /* next value number */
	uint32_t nextblk;     /* next block number */
	uint32_t slm_size;    /* bytes (cm_slm_init) */
	uint32_t globals_size;
	uint32_t simd_width;  /* informational */
	bool uses_barrier, uses_wait;
};

struct Module {
	Arena *arena;         /* everything of the module lives here */
	Func **funcs;
	uint32_t nfuncs, capfuncs;
};

/* ---- ir.c: types, construction, editing ---------------------------------- */

extern const char *const ir_elem_name[E_COUNT_];
extern const int ir_elem_bytes[E_COUNT_];
static inline IrType ir_type(Elem e, uint32_t n) { return (IrType){e, n}; }
static inline IrType ir_scalar(Elem e) { return (IrType){e, 1}; }
bool ir_is_float(Elem e);
bool ir_is_signed(Elem e);
bool ir_is_int(Elem e);               /* i8 .. u64 (not i1) */
bool ir_type_eq(IrType a, IrType b);
char *ir_type_str(IrType t, char buf[16]);  /* "v16i32" */
Elem ir_elem_from_cmk(uint32_t cmk);  /* CMK_ELEM_* <-> Elem */
uint32_t ir_elem_to_cmk(Elem e);

Module *ir_module_new(Arena *a);
Func *ir_func_new(Module *m, const char *name, Loc loc);
IrParam *ir_param_add(Func *f, const char *name, uint32_t kind, IrType ty);
/* Frees f's body once it is emitted; its name, params and the fields the
 * targets' metadata read (slm_size, uses_barrier, ...) stay. */
void ir_func_release(Func *f);
Block *ir_block_new(Func *f);         /* appended to f's layout */
Block *ir_block_new_before(Func *f, Block *pos);  /* placed right before pos */
/* Takes b out of f's layout (its instructions and edges are the caller's). */
void ir_block_drop(Func *f, const Block *b);
/* Merges c into b, which jumps to c and is its only predecessor: c's phis
 * (one operand each) give way to that operand, c's instructions follow
 * b's, b takes c's jump (the phis of c's successors name b) and c leaves
 * the layout (opt blocks.c, PTX unroll.c and ifconv.c). */
void ir_block_merge(Func *f, Block *b, Block *c);

/* A new detached instruction with room for nops operands (all NULL). */
Inst *ir_inst_new(Func *f, Op op, IrType ty, uint32_t nops, Loc loc);
void ir_append(Block *b, Inst *i);
void ir_insert_before(Inst *pos, Inst *i);
void ir_insert_after(Inst *pos, Inst *i);
void ir_remove(Inst *i);              /* unlinks; its uses must be gone */
void ir_replace_uses(Func *f, Inst *old, Inst *with);
/* Replacing values in one sweep, not one sweep per value: a pass calls
 * ir_forward(old, with) instead of ir_replace_uses, reads operands through
 * ir_resolve_ops before looking at an instruction, and calls
 * ir_apply_forwards once at its end. */
void ir_forward(Inst *old, Inst *with);
Inst *ir_resolve(Inst *v);
void ir_resolve_ops(Inst *i);
void ir_apply_forwards(Func *f);
Inst *ir_roff(const Inst *i);         /* runtime offset or NULL */
/* Whether i may write memory (stores, atomics) or order it (barriers,
 * fences): a load may not move across it. */
bool ir_writes_memory(const Inst *i);
/* A read of global memory (a surface or SVM; not SLM). */
bool ir_global_read(const Inst *i);
/* Whether store, atomic or barrier w may change what global read r reads:
 * SLM never touches global memory (surfaces stay 4 GB apart from SVM and
 * SLM); two block accesses of one surface at offsets root * scale +
 * constant (ir_affine) whose bytes are disjoint do not touch.  Loads moved
 * past stores (opt early.c, PTX unroll.c). */
bool ir_may_touch(const Inst *w, const Inst *r);
Inst *ir_mask(const Inst *i);         /* trailing mask or NULL */
/* A 32-bit integer offset v as root * scale + c (mod 2^32), following
 * adds and subtracts of constants, multiplies and left shifts by
 * constants and conversions between 32-bit integers; |c| stays within
 * IR_AFFINE_SPAN (scale 1, c 0: v itself).  Two offsets of one root and
 * scale differ by a known constant: block accesses checked once per
 * group (PTX), loads moved past stores they cannot touch (opt early.c). */
#define IR_AFFINE_SPAN (1 << 24)
void ir_affine(const Inst *v, const Inst **root, uint32_t *scale, int64_t *c);
/* A scalar 32-bit integer constant: its value (unsigned ones zero-extended). */
bool ir_const_int32(const Inst *v, int64_t *k);

int ir_nsrc(const Inst *i);           /* Oatomic: sources of its op */
bool ir_const_is_splat(const Inst *i);
IrScalar ir_const_at(const Inst *i, uint32_t k); /* element k of a const */

/* Analyses: predecessor lists and rpo numbers (UINT32_MAX: a block the
 * entry does not reach); immediate dominators. */
int ir_nsucc(const Block *b);         /* successors: jmp.to[0 .. n-1] */
void ir_preds(Func *f);
void ir_dominators(Func *f);
bool ir_dominates(const Block *a, const Block *b);
void ir_count_uses(Func *f);
void ir_renumber(Func *f);            /* dense %ids and b ids, layout order */

/* A cursor that appends to a block with one location. */
typedef struct {
	Func *f;
	Block *b;
	Loc loc;
} IrBuilder;

Inst *irb_op(IrBuilder *B, Op op, IrType ty, Inst *a, Inst *b, Inst *c);
Inst *irb_const_int(IrBuilder *B, IrType ty, int64_t v);     /* splat */
Inst *irb_const_float(IrBuilder *B, IrType ty, double v);    /* splat */
Inst *irb_const_list(IrBuilder *B, IrType ty, const IrScalar *v);
Inst *irb_arg(IrBuilder *B, uint32_t index);
Inst *irb_rdregion(IrBuilder *B, IrType ty, Inst *src, IrRegion rg, Inst *roff);
Inst *irb_wrregion(IrBuilder *B, Inst *old, Inst *val, IrRegion rg, Inst *roff,
                   Inst *mask);
Inst *irb_conv(IrBuilder *B, IrType ty, Inst *src, bool sat);
Inst *irb_phi(IrBuilder *B, IrType ty, uint32_t n);  /* fill ops/phiblk */
void irb_br(IrBuilder *B, Block *to);
void irb_cbr(IrBuilder *B, Inst *cond, Block *t, Block *f);
void irb_ret(IrBuilder *B);

/* ---- print.c, parse.c: the text form -------------------------------------- */

void ir_print(const Module *m, Buf *out);
void ir_print_func(const Func *f, Buf *out);
void ir_print_string(Buf *out, const char *s);   /* "..." with C escapes */
void ir_print_double(Buf *out, double d);        /* shortest exact form */
/* Parses the text form; NULL (with diagnostics) on errors. */
Module *ir_parse(Arena *a, const char *path, const char *text);

/* ---- verify.c -------------------------------------------------------------- */

/* Checks types, operand counts, constant region bounds, terminators and
 * SSA dominance; reports errors (naming `after`, the last pass) and returns
 * false if any.  ir_verify_enabled(): CMETAL_VERIFY=1 or a debug build. */
bool ir_verify(Module *m, const char *after);
bool ir_verify_func(Func *f, const char *after);   /* one kernel of the module */
bool ir_verify_enabled(void);

/* ---- lower.c (the lowering engineer's) ------------------------------------ */

typedef struct {
	bool debug;           /* -g: keep precise locations */
	const char *march;
	Arena *tree;          /* ir_lower_each: the syntax tree's arena, reset
	                         once the last kernel is lowered, before it is
	                         handed to each (NULL: kept) */
} IrLowerOptions;
/* Lowers a checked translation unit to CMIR: one Func per kernel, every
 * call inlined.  NULL (with diagnostics) on errors. */
Module *ir_lower(Arena *a, Node *unit, const IrLowerOptions *o);
/* The same into m (ir_module_new), handing each kernel to each(f, ctx)
 * as soon as it is lowered (so that it can be optimized, emitted and
 * released before the next is lowered; after an error, the kernels
 * lowered to report more are released unseen); false (with diagnostics)
 * on errors, in lowering or from each. */
bool ir_lower_each(Module *m, Node *unit, const IrLowerOptions *o,
                   bool (*each)(Func *f, void *ctx), void *ctx);

#endif
