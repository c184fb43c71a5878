/* target.h — back ends behind one struct, and compile_to, the whole
 * compiler in one call (source text -> target text).
 *
 *   T_ir   prints CMIR (target/ir/ir.c)
 *   T_c    C for the CPU runtime (target/c/)
 *   T_ptx  PTX (target/ptx/, the PTX engineer's)
 */
#ifndef CMETAL_TARGET_H
#define CMETAL_TARGET_H

#include "front/front.h"
#include "ir/ir.h"

/* The floating-point contract (docs/floating-point.md).  The default (all
 * false) is the same on both devices: no contraction of a*b+c, IEEE
 * denormals, correctly rounded '/' and cm_sqrt. */
typedef struct {
	bool contract;        /* -ffp-contract=fast: a*b+c may become one fma */
	bool fast;            /* -ffast-math (with contract): PTX flushes f32
	                         denormals and uses div.full / sqrt.approx */
} FpOptions;

typedef struct {
	bool debug;           /* -g: #line / .loc */
	FpOptions fp;
	const char *march;    /* e.g. sm_90; NULL = the target's default */
	bool bounds_check;    /* C: report out-of-range accesses through
	                         t->svc->fault (they are always made safe) */
	bool cluster_slm;     /* PTX: a CM group is a thread-block cluster (up to
	                         8 CTAs, SLM in the rank-0 CTA's shared memory;
	                         rt/cuda_abi.h "Clusters"); -fcluster-slm */
	bool ptx_canonical;   /* PTX: every value in the canonical layout
	                         (-fptx-layout=canonical), for A/B runs */
	bool no_pack;         /* PTX: one CM thread per warp even for narrow
	                         kernels (-fno-warp-packing; ptx/pack.c) */
	bool no_slm_regions;  /* PTX: constant regions that gather from many
	                         registers stay shuffles, not SLM-copy loads
	                         (-fno-slm-regions, for A/B runs; assign.c) */
	bool no_loop_versions; /* PTX: no loop versioning of bounds checks
	                         (-fno-loop-versions, for A/B runs; vloop.c) */
	bool no_loop_test_fold; /* PTX: a versioned loop's test evaluates its
	                         constant parts at run time, each end of each
	                         span in full (-fno-loop-test-fold, A/B; vloop.c) */
	bool run_layouts;     /* PTX: run layouts (-frun-layouts; runs.c:
	                         off by default, measured slower) */
	bool no_phi_coalescing; /* PTX: every phi in registers of its own
	                         (-fno-phi-coalescing, for A/B runs; phic.c) */
	bool no_wide_loads;   /* PTX: no vector loads of contiguous block
	                         loads read by columns (-fno-wide-loads, for
	                         A/B runs; bwide.c) */
	bool no_fragment_media; /* PTX: media reads and writes of tiles added
	                         to accumulator parts stay canonical
	                         (-fno-fragment-media, A/B; assign.c) */
	bool no_media_spans;  /* PTX: each access of a group of media reads
	                         and writes branches on its own (-fno-media-
	                         spans, A/B; emit.c emit_span) */
	bool wrap_join;       /* PTX: a block access's 2^32 wrap guard is a
	                         predicate joined to each compare, not a fresh
	                         limit by selp (-fwrap-join; mem.c
	                         no_wrap_limit) */
	bool no_slm_vec;      /* PTX: no ld/st.shared.v2/v4 merging of SLM
	                         gathers and scatters (-fno-slm-vectorize;
	                         ptx/slmvec.c) */
	bool slm_vec_no_overlap; /* PTX: refuse overlapping SLM reads as seed
	                         001 does (-fno-slm-vectorize-overlap) */
	bool no_slm_ranges;   /* PTX: check every lane of SLM gathers, scatters
	                         and atomics even when their offsets' value
	                         ranges (ptx/range.c) keep them inside the
	                         kernel's SLM (-fno-slm-ranges, for A/B runs;
	                         ptx/mem.c slm_inside) */
	bool no_wgmma_chains; /* PTX: every cm_wgmma group waits for its own
	                         result (-fno-wgmma-chains, for A/B runs;
	                         ptx/wgmma.c px_wgmma_groups) */
	bool exact_loops;     /* PTX: loop depths from natural loops, not
	                         from every jump to an earlier block
	                         (-fexact-loop-depths; ptx/assign.c
	                         px_loop_depths) */
	bool no_ldmatrix;     /* PTX: SLM gathers into mma fragments one
	                         ld.shared a register, not ldmatrix
	                         (-fno-ldmatrix, for A/B runs; ptx/ldsm.c) */
	bool no_atomic_aggregation; /* PTX: SLM float adds one lane at a time
	                         (-fno-atomic-aggregation, for A/B runs;
	                         ptx/aggregate.c) */
	bool speculate_reads; /* PTX: small blocks of reads under a branch run
	                         always (-fspeculate-reads; ptx/ifconv.c: off
	                         by default, measured slower) */
	bool no_unroll;       /* PTX: loops that read memory run one iteration a
	                         trip (-fno-unroll-loops; ptx/unroll.c) */
	const char *thread_args; /* PTX: "KERNEL:I,J KERNEL2:K": those by-value
	                         arguments are read per walker thread from a
	                         table (rt/cuda_abi.h "Per-thread arguments");
	                         -fthread-args=KERNEL:I,J (repeatable) */
} EmitOptions;

typedef struct Target {
	const char *name;
	/* Appends the module's code to out; false (with diagnostics) on
	 * errors.  The module may be changed (target legalization).  A target
	 * that sets begin leaves it NULL (target_emit does it). */
	bool (*emit)(Module *m, const EmitOptions *o, Buf *out);
	/* Or kernel by kernel, so that each kernel's IR can be released once
	 * it is emitted: begin (NULL after errors), then kernel for each
	 * kernel of m as soon as it is optimized (m->funcs grows meanwhile;
	 * the kernel's body is released after it), then end, which appends
	 * the text to out (unless ok is false) and frees the state. */
	void *(*begin)(Module *m, const EmitOptions *o, Buf *out);
	bool (*kernel)(void *st, Func *f);
	bool (*end)(void *st, bool ok);
} Target;

extern const Target T_ir, T_c;
const Target *target_find(const char *name);   /* NULL if unknown */
/* t->emit, or begin, kernel for each of m's kernels, end. */
bool target_emit(const Target *t, Module *m, const EmitOptions *o, Buf *out);

/* ptx/emit.c */
/* The -march for a GPU of compute capability major.minor: the device's own
 * architecture when the back end knows it, else the newest known below it
 * (sm_80 for anything older).  A static string. */
const char *ptx_march_for(int major, int minor);

/* c/emit.c */
/* The C compiler's optimisation flags for C that T_c emitted ("-O2", or
 * "-O1 -ftree-vectorize" for very long C: see the definition; "-O0" under
 * -g, so that the debugger sees every variable). */
const char *c_cc_opt_flags(const char *c, size_t len, bool debug);
/* The line T_c writes before each kernel and before the metadata. */
#define C_UNIT_MARK "/*@cmk-unit*/"
/* Splits C that T_c emitted into at most max translation units (units[0
 * .. max-1], empty Bufs) that compile separately and link into the same
 * library, so a C compiler per core builds a program of large kernels:
 * each unit is the common head (ABI, prelude) and a group of kernels, the
 * groups balanced by size; unit 0 also holds the metadata.  Returns the
 * number of units; 1 (the whole text in units[0]) when splitting does not
 * pay (one kernel, or short C). */
int c_split_units(const char *c, size_t len, int max, Buf *units);

typedef struct {
	FrontOptions fo;
	int opt_level;        /* 0 runs no pass */
	uint32_t opt_skip;    /* passes left out: -fno-licm (opt_flag_mask) */
	bool debug;
	bool bounds_check;
	const char *march;
	FpOptions fp;         /* -ffp-contract=, -ffast-math */
	bool cluster_slm;     /* -fcluster-slm: EmitOptions.cluster_slm */
	bool ptx_canonical;   /* -fptx-layout=canonical */
	bool no_pack;         /* -fno-warp-packing: EmitOptions.no_pack */
	bool no_slm_vec;      /* -fno-slm-vectorize: EmitOptions.no_slm_vec */
	bool no_slm_regions;  /* -fno-slm-regions: EmitOptions.no_slm_regions */
	bool no_loop_versions; /* -fno-loop-versions: EmitOptions.no_loop_versions */
	bool no_loop_test_fold; /* -fno-loop-test-fold: EmitOptions.no_loop_test_fold */
	bool run_layouts;     /* -frun-layouts: EmitOptions.run_layouts */
	bool no_phi_coalescing; /* -fno-phi-coalescing */
	bool no_wide_loads;   /* -fno-wide-loads */
	bool no_fragment_media; /* -fno-fragment-media */
	bool no_media_spans;  /* -fno-media-spans */
	bool wrap_join;       /* -fwrap-join */
	bool slm_vec_no_overlap; /* -fno-slm-vectorize-overlap */
	bool no_wgmma_chains; /* -fno-wgmma-chains */
	bool no_ldmatrix;     /* -fno-ldmatrix */
	bool exact_loops;     /* -fexact-loop-depths */
	bool no_slm_ranges;   /* -fno-slm-ranges */
	bool no_atomic_aggregation; /* -fno-atomic-aggregation */
	bool no_unroll;       /* -fno-unroll-loops */
	bool speculate_reads; /* -fspeculate-reads */
	const char *thread_args; /* -fthread-args: EmitOptions.thread_args */
	const char *dump_pass;/* -d PASS: the IR after it goes to out instead */
} CompileOptions;

/* compile.c */
/* Applies arg to fp when it is a floating-point option (-ffast-math,
 * -fno-fast-math, -ffp-contract=fast|on|off); false for any other arg. */
bool fp_option(const char *arg, FpOptions *fp);
/* The C compiler flag that gives the CPU device the same contract. */
const char *fp_cc_flag(const FpOptions *fp);
/* Compiles CM source (path; text may be NULL to read the file) for the
 * target named `target` and appends its output to out.  false when errors
 * were reported (diag_state).  Safe to call from several threads. */
bool compile_to(const char *path, const char *text, const CompileOptions *o,
                const char *target, Buf *out);
/* The same from CMIR text (a .ir file). */
bool compile_ir_to(const char *path, const char *text, const CompileOptions *o,
                   const char *target, Buf *out);
/* The part after lowering: passes, then the target. */
bool compile_module(Module *m, const CompileOptions *o, const Target *t, Buf *out);

#endif
