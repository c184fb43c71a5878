/* occupancy.h — how many CTAs of a kernel an NVIDIA SM holds at once, from
 * the architecture's published limits and the kernel's registers and
 * shared memory (occupancy.c).  Pure computation: the compiler's
 * --occupancy and --analyze, and the CUDA device's queries and launch
 * choices, all use it.  A CM thread is one warp, a CM group one CTA. */
#ifndef CMETAL_PTX_OCCUPANCY_H
#define CMETAL_PTX_OCCUPANCY_H

#include <stdbool.h>
#include <stdint.h>

#include "util/util.h"

/* One architecture's per-SM limits (CUDA programming guide, "Technical
 * Specifications per Compute Capability"; the allocation rules of NVIDIA's
 * occupancy calculator). */
typedef struct {
	const char *name;         /* "sm_80" */
	int cc;                   /* 80 */
	uint32_t regs_per_sm;     /* 32-bit registers in the SM's register file */
	uint32_t regs_per_cta;    /* most registers one CTA may hold */
	uint32_t reg_unit;        /* registers per warp are allocated in these */
	uint32_t max_regs_lane;   /* registers one thread may use */
	uint32_t sub_partitions;  /* register file quarters, warps spread over them */
	uint32_t max_warps;       /* resident warps per SM */
	uint32_t max_ctas;        /* resident CTAs per SM */
	uint32_t max_cta_warps;   /* warps per CTA (1024 threads) */
	uint32_t smem_per_sm;     /* shared memory per SM, largest carveout */
	uint32_t smem_per_cta;    /* most shared memory one CTA may use (opt-in) */
	uint32_t smem_reserved;   /* the system's shared memory per CTA */
	uint32_t smem_unit;       /* shared memory allocation granularity */
} OccArch;

/* Which resource bounds the resident CTAs. */
typedef enum { OCC_WARPS, OCC_CTAS, OCC_REGS, OCC_SMEM } OccLimit;

/* What a kernel uses. */
typedef struct {
	uint32_t regs;            /* per lane (ptxas); 0: unknown, taken as none */
	uint32_t shared;          /* static shared bytes per CTA (the group's SLM) */
	uint32_t scratch;         /* dynamic shared bytes per warp (metadata "scratch") */
} OccKernel;

typedef struct {
	uint32_t warps;           /* per CTA */
	uint32_t ctas;            /* resident per SM; 0: one CTA does not fit */
	uint32_t active_warps;    /* ctas * warps */
	uint32_t pct;             /* active_warps * 100 / max_warps, rounded down */
	OccLimit limit;           /* the resource giving ctas */
	uint32_t by[4];           /* CTAs each resource allows, by OccLimit */
	uint32_t cta_regs;        /* registers one CTA takes (as the hardware counts) */
	uint32_t cta_smem;        /* shared bytes one CTA takes, reserve included */
} OccResult;

/* The limits of "sm_80" .. "sm_90a" (a suffix is ignored); NULL if unknown. */
const OccArch *occ_arch(const char *march);
/* The limits of compute capability major.minor: the newest known
 * architecture not newer than it (sm_80 for anything older). */
const OccArch *occ_arch_cc(int major, int minor);
void occ_compute(const OccArch *a, const OccKernel *k, uint32_t warps, OccResult *r);
const char *occ_limit_name(OccLimit l);   /* "warps", "CTAs", "registers", "shared memory" */
/* The most registers per lane (a multiple of 8, or max_regs_lane when that
 * fits) with which a CTA of warps fits the register file; 0 when none does. */
uint32_t occ_reg_cap(const OccArch *a, uint32_t warps);
/* The largest register cap per lane (a multiple of 8, at least floor)
 * under which at least twice as many warps of CTAs of warps are resident
 * as at k->regs, when registers are what limits them; 0 when they are
 * not, or no such cap is at least floor.  The runtime builds a variant
 * with it.  Smaller steps do not pay on an H200: k-means' assign kernel
 * capped from 56 to 48 registers (no spills, 4 -> 5 CTAs of 8 warps) ran
 * 0.95x, from 51 to 40 (8 bytes of spills, 4 -> 6 CTAs) 0.91x; linear
 * from 40 to 32 (1 -> 2 CTAs of 32) 1.31x. */
uint32_t occ_raise_cap(const OccArch *a, const OccKernel *k, uint32_t warps, uint32_t floor);
/* The CTA size in warps (1..max) with the highest occupancy for k, the
 * smallest such size on a tie (small CTAs spread a small launch over more
 * SMs); 0 when no size fits. */
uint32_t occ_best_warps(const OccArch *a, const OccKernel *k, uint32_t max);
/* The table of --occupancy: one line per group size 1..32 (CM threads,
 * i.e. warps; "threads" are the CTA's CUDA threads). */
void occ_table(const OccArch *a, const OccKernel *k, Buf *out);
/* The split of a group launch (rt/cuda_abi.h "Split groups") of a kernel
 * that allows it: groups of threads[0] x threads[1] x threads[2] CM
 * threads of `lanes` lanes each (32: one a warp), CTAs of at most
 * cta_warps warps, grid (NULL: no launch) the groups in x and y.  split[0]
 * and split[1] get log2 of the CTAs per group in x and y: the split with
 * the most resident warps, of those the smallest CTA, x kept whole
 * longest, taken when it holds at least a quarter more warps than the
 * whole group (or the whole group does not fit); else {0, 0}.  Returns
 * the CM threads of a CTA. */
uint32_t occ_split(const OccArch *a, const OccKernel *k, uint32_t lanes, uint32_t cta_warps,
                   const uint32_t threads[3], const uint32_t grid[2], uint32_t split[2]);

/* The launch --analyze assumes (--analyze-grid=THREADS[,GROUP]): CM
 * threads in all and per group; 0: unknown (a full machine, and the
 * group size of a thread-space launch). */
typedef struct {
	uint32_t threads, group;
} PtxLaunch;

/* analyze.c: the reports of `cmetal --occupancy` (full false) and
 * `cmetal --analyze` (full true) on a PTX text of the back end for launch
 * (NULL: unknown); false with the reason in err when its target has no
 * limits here. */
bool ptx_report(const char *ptx, bool full, const PtxLaunch *launch, Buf *out, Buf *err);

/* loops.c: the basic blocks and natural loops of a span of PTX text. */
enum { PTX_MAX_LOOPS = 64 };
typedef struct {
	const char *from, *to;    /* its text, label line first */
	char label[64];           /* "$L_k_b3" ("" for text before the first label) */
	int succ[8], nsucc;       /* blocks it branches or falls to (the first 8) */
	int loop;                 /* the innermost loop holding it; -1: none */
	int rpo;                  /* place in reverse postorder; -1: unreachable */
} PtxBlock;
typedef struct {
	int header;               /* its first block, which dominates the others */
	int blocks;               /* blocks in its body, nested loops' included */
	int depth;                /* loops around it */
	int parent;               /* the innermost of them; -1: none */
} PtxLoop;
typedef struct {
	PtxBlock *b;
	int nb;
	PtxLoop *l;
	int nl;
} PtxCfg;
/* The blocks and loops of [from, to); false when it has too many blocks. */
bool ptx_cfg(const char *from, const char *to, PtxCfg *g);
void ptx_cfg_free(PtxCfg *g);

/* latency.c: the machine --analyze models, one product per architecture
 * (docs/analyzer.md, "The machine"): throughputs per SM cycle and the
 * latencies, in SM cycles, of one warp's instructions (the H100's for all:
 * measured with tools/latency_bench.cu). */
typedef struct {
	int cc;                   /* 90 */
	const char *product;      /* "H100 SXM" */
	int sms;
	double clock;             /* SM clock, Hz */
	double dram;              /* DRAM bytes per second */
	double issue;             /* warp instructions issued per SM cycle (schedulers) */
	double shfl;              /* warp shuffles per SM cycle */
	double shared_bytes;      /* shared memory bytes per SM cycle */
	double l2_bytes;          /* L2 bytes per SM cycle (to the SMs, all at once) */
	double sfu_lanes;         /* SFU lanes per SM cycle */
	double alu;               /* latency: fma, add, setp, cvt, ... */
	double xbar;              /* shfl, vote, redux; SFU */
	double shared;            /* ld.shared, atom.shared, ld.local */
	double global;            /* ld.global (from DRAM) */
	double atomic;            /* atom.global, its result used */
	double fence;             /* fence, membar, nothing outstanding */
} PtxMachine;
/* The machine of compute capability cc (sm_90's for one not listed). */
const PtxMachine *ptx_machine(int cc);

/* latency.c: an in-order scoreboard of one warp over PTX instructions
 * (docs/analyzer.md, "Latency term"). */
typedef struct PtxLat PtxLat;
PtxLat *ptx_lat_new(const PtxMachine *m);
void ptx_lat_free(PtxLat *s);
/* Issues instruction line [l, eol) of opcode op (free_move: a register
 * copy ptxas allocates away); true when it is an add ptxas fuses into an
 * FMA with the product it adds, which takes no issue slot. */
bool ptx_lat_step(PtxLat *s, const char *op, const char *l, const char *eol, bool free_move);
void ptx_lat_block(PtxLat *s);          /* a label: a new basic block starts */
double ptx_lat_now(const PtxLat *s);    /* the cycle the issued ones are done issuing */
bool ptx_lat_spin(const PtxLat *s);     /* a branch waited on a global atomic's result */

#endif
