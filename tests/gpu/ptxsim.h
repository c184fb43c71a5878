/* ptxsim.h — a simulator of the PTX that cmetal's PTX back end emits, so
 * that the fake CUDA driver (fake_cuda.c) runs real kernels on the CPU.
 *
 * ptxsim_parse.c turns the module text into kernels of decoded
 * instructions; ptxsim.c runs a launch (CTAs one after another, the warps
 * of a CTA one after another up to each barrier, the 32 lanes of a warp in
 * lockstep); ptxsim_ops.c computes the values of the arithmetic, logic
 * and conversion instructions.  Anything outside the subset it knows fails
 * the launch with a message that names the PTX line; nothing is guessed.
 */
#ifndef PTXSIM_H
#define PTXSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the interface the fake driver uses (ptxsim.c, ptxsim_parse.c) ---- */

typedef struct PsModule PsModule;

typedef struct {
	unsigned grid[3], block[3];
	unsigned shmem;           /* dynamic shared memory bytes */
	void **params;            /* kernelParams: one pointer per .param */
} PsLaunch;

/* Parses a module; never NULL.  A construct it cannot read is recorded and
 * fails the launches of the kernel that holds it (or of every kernel, at
 * module scope). */
PsModule *ps_load(const char *ptx);
/* True when the module defines .entry name. */
bool ps_has_kernel(const PsModule *m, const char *name);
/* Runs a launch; true on success, else false with err filled in. */
bool ps_launch(PsModule *m, const char *name, const PsLaunch *l, char *err, size_t errlen);
/* Global memory that kernels may touch (device allocations, host memory
 * mapped to the device); add false removes the region starting at base.
 * Any other global address fails the launch. */
void ps_region(uint64_t base, uint64_t size, bool add);

/* ---- decoded instructions (shared by the three files) ---- */

enum { PS_MAXOPND = 8, PS_NLANES = 32 };

/* Type kinds; a type is a kind and a width in bits. */
enum { TK_NONE, TK_B, TK_U, TK_S, TK_F, TK_PRED, TK_BF16, TK_TF32 };
typedef struct { uint8_t k, bits; } PsType;

/* State spaces of ld, st, atom, red and symbols. */
enum { SP_NONE, SP_GLOBAL, SP_SHARED, SP_PARAM, SP_LOCAL, SP_CONST };

/* Operand kinds. */
enum {
	OK_NONE, OK_REG, OK_IMM, OK_SREG, OK_SYM, OK_MEM, OK_VEC, OK_LABEL, OK_SINK,
};

/* Special registers. */
#define PS_SREGS(X) \
	X(laneid) X(tid_x) X(tid_y) X(tid_z) X(ntid_x) X(ntid_y) X(ntid_z) \
	X(ctaid_x) X(ctaid_y) X(ctaid_z) X(nctaid_x) X(nctaid_y) X(nctaid_z) \
	X(warpid) X(nwarpid) X(clock) X(clock64) X(lanemask_eq) X(lanemask_lt) \
	X(lanemask_le) X(lanemask_gt) X(lanemask_ge)
#define PS_SREG_ENUM_(n) SR_##n,
enum { PS_SREGS(PS_SREG_ENUM_) SR_COUNT_ };
#undef PS_SREG_ENUM_

typedef struct {
	uint8_t kind;             /* OK_* */
	uint8_t neg;              /* !%p */
	uint8_t fimm;             /* OK_IMM written as 0f (1) or 0d (2) */
	uint8_t nvec;             /* OK_VEC: elements */
	int reg;                  /* OK_REG; OK_MEM base register or -1 */
	int sym;                  /* OK_SYM, OK_MEM: symbol or -1; OK_SREG: SR_*;
	                             OK_LABEL: instruction index */
	int64_t imm;              /* OK_IMM: the bits; OK_MEM: the offset */
	int vec[4];               /* OK_VEC: registers (-1: sink "_") */
} PsOpnd;

/* Base opcodes, in the order ptxsim_parse.c looks their names up. */
#define PS_OPS(X) \
	X(mov) X(add) X(sub) X(mul) X(mad) X(fma) X(div) X(rem) X(abs) X(neg) \
	X(min) X(max) X(and) X(or) X(xor) X(not) X(cnot) X(shl) X(shr) X(shf) \
	X(prmt) X(bfe) X(bfi) X(popc) X(clz) X(brev) X(bfind) X(setp) X(selp) \
	X(cvt) X(sqrt) X(rsqrt) X(rcp) X(ex2) X(lg2) X(sin) X(cos) X(copysign) \
	X(ld) X(st) X(atom) X(red) X(shfl) X(vote) X(redux) X(match) X(bar) X(barrier) \
	X(fence) X(membar) X(nanosleep) X(bra) X(ret) X(exit) X(activemask) \
	X(mma) X(ldmatrix) X(testp) X(wgmma) X(cp)
#define PS_OP_ENUM_(n) OP_##n,
enum { PS_OPS(PS_OP_ENUM_) OP_COUNT_, OP_BAD };
#undef PS_OP_ENUM_

enum { WG_NONE, WG_FENCE, WG_MMA, WG_COMMIT, WG_WAIT };

/* Modifier values. */
enum { CMP_NONE, CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_LO, CMP_LS,
       CMP_HI, CMP_HS, CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU, CMP_GEU,
       CMP_NUM, CMP_NAN };
enum { BOP_NONE, BOP_AND, BOP_OR, BOP_XOR };
enum { AOP_NONE, AOP_ADD, AOP_MIN, AOP_MAX, AOP_INC, AOP_DEC, AOP_CAS, AOP_EXCH,
       AOP_AND, AOP_OR, AOP_XOR };
enum { RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNI, RND_RZI, RND_RMI, RND_RPI };
enum { MODE_NONE, MODE_UP, MODE_DOWN, MODE_BFLY, MODE_IDX, MODE_ANY, MODE_ALL,
       MODE_UNI, MODE_BALLOT, MODE_ARRIVE, MODE_SYNC_BAR, MODE_WARP };
enum {                        /* PsIns.flags */
	F_SAT = 1, F_FTZ = 2, F_WIDE = 4, F_HI = 8, F_LO = 16, F_APPROX = 32,
	F_UNI = 64, F_WRAP = 128, F_CLAMP = 256, F_LEFT = 512, F_RIGHT = 1024,
	F_SHIFTAMT = 2048, F_SYNC = 4096,
};

typedef struct {
	uint16_t op;              /* OP_* */
	uint8_t cmp, bop, aop, rnd, mode, space, vec;
	uint16_t flags;           /* F_* */
	uint8_t nty;
	PsType ty[4];             /* the types in the order written */
	int16_t shape[3];         /* mma, wgmma: m, n, k; ldmatrix: m, n */
	uint8_t wg;               /* wgmma: WG_FENCE, WG_MMA, WG_COMMIT, WG_WAIT;
	                             cp.async: WG_NONE (a copy), WG_COMMIT, WG_WAIT */
	uint8_t nwreg;            /* wgmma.mma_async: its accumulator registers */
	int *wreg;
	int guard;                /* predicate register or -1 */
	bool gneg;                /* @!%p */
	uint8_t n;                /* operands */
	PsOpnd o[PS_MAXOPND];
	int line;                 /* PTX line */
	const char *text;         /* the instruction, for messages */
	const char *why;          /* OP_BAD: what is not supported */
} PsIns;

typedef struct {
	char *name;
	uint8_t space;            /* SP_* */
	uint64_t addr;            /* global: host address; shared: offset;
	                             param: index into kernelParams */
	uint64_t size;
	bool dynamic;             /* .extern .shared */
} PsSym;

typedef struct {
	char *name;
	PsType ty;                /* its declared type; its width masks writes */
} PsReg;

typedef struct {
	char *name;
	PsIns *ins;
	int nins;
	PsReg *regs;
	int nregs;
	int *params;              /* symbol index of each .param, in order */
	int nparams;
	const char *why;          /* set: the kernel cannot run (with line) */
	int whyline;
} PsKernel;

struct PsModule {
	PsSym *syms;
	int nsyms;
	PsKernel *ks;
	int nks;
	uint64_t shared_static;   /* bytes of .shared variables */
	const char *why;          /* a module-scope line it cannot read */
	int whyline;
};

/* ---- ptxsim_parse.c ---- */
int ps_find_sym(const PsModule *m, const char *name);

/* ---- ptxsim_mma.c ---- */

/* mma.sync: a, b, c hold the values of the registers of the operands
 * (na, nb, nc of them), d receives the destination registers. */
bool ps_mma(const PsIns *in, uint64_t (*a)[PS_NLANES], int na, uint64_t (*b)[PS_NLANES], int nb,
            uint64_t (*c)[PS_NLANES], int nc, uint64_t (*d)[PS_NLANES], const char **why);

/* A 16-bit element of type t (f16 or bf16) as a double. */
double ps_half_value(PsType t, uint16_t h);

/* ---- ptxsim_ops.c ---- */

/* One ALU instruction over the lanes in mask: v[i][lane] are the values
 * of source operand i (bit patterns), d[lane] receives the result.  False
 * with *why set when the form is not supported. */
bool ps_alu(const PsIns *in, uint64_t (*v)[PS_NLANES], uint64_t *d, uint64_t *d2,
            uint32_t mask, const char **why);
/* Sign- or zero-extends the low bits of v by type t. */
uint64_t ps_ext(PsType t, uint64_t v);
/* Bits of a float value written as an immediate of t (0f/0d or integer). */
uint64_t ps_imm_bits(PsType t, const PsOpnd *o);
float ps_half_to_float(uint16_t h);
uint16_t ps_float_to_half(float f);

#endif
