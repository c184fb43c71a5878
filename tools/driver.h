/* driver.h — what the command line asks for, and the function that does it.
 * driver.c runs the pipeline stages and writes the outputs; build.c turns
 * the back ends' text into binaries; cmetal.c only parses options. */
#ifndef CMETAL_DRIVER_H
#define CMETAL_DRIVER_H

#include "target/target.h"

typedef enum { STAGE_ALL, STAGE_PP, STAGE_CHECK, STAGE_AST, STAGE_DEPS } Stage;

typedef struct {
	const char **inputs;      /* files, "-" for stdin */
	int ninputs;
	const char *out;          /* -o; NULL: stdout for text, a name beside
	                             the input for a binary */
	const char *target;       /* "ir", "c" (or "cpu"), "ptx" */
	const char *march;
	const char *dump_pass;
	int opt_level;
	uint32_t opt_skip;        /* -fno-licm: passes left out (opt_flag_mask) */
	bool text, debug;         /* text: -S */
	FpOptions fp;             /* -ffp-contract=, -ffast-math */
	bool cluster_slm;         /* -fcluster-slm (PTX: groups over clusters) */
	bool ptx_canonical;       /* -fptx-layout=canonical */
	bool no_pack;             /* -fno-warp-packing */
	bool no_slm_vec;          /* -fno-slm-vectorize */
	bool no_ldmatrix;         /* -fno-ldmatrix */
	bool exact_loops;         /* -fexact-loop-depths */
	bool no_slm_ranges;       /* -fno-slm-ranges */
	bool no_slm_regions;      /* -fno-slm-regions */
	bool no_loop_versions;    /* -fno-loop-versions */
	bool no_loop_test_fold;   /* -fno-loop-test-fold */
	bool run_layouts;         /* -frun-layouts */
	bool no_phi_coalescing;   /* -fno-phi-coalescing */
	bool no_wide_loads;       /* -fno-wide-loads */
	bool no_fragment_media;   /* -fno-fragment-media */
	bool no_media_spans;      /* -fno-media-spans */
	bool wrap_join;           /* -fwrap-join */
	bool no_wgmma_chains;     /* -fno-wgmma-chains */
	bool slm_vec_no_overlap;  /* -fno-slm-vectorize-overlap (seed 001's rule) */
	bool no_atomic_aggregation; /* -fno-atomic-aggregation */
	bool no_unroll;           /* -fno-unroll-loops */
	bool speculate_reads;     /* -fspeculate-reads */
	const char *thread_args;  /* -fthread-args=KERNEL:I,J, joined by spaces */
	bool bounds_check;        /* -fbounds-check: report out-of-range accesses */
	bool verbose;             /* -v: print the commands run */
	bool deps;                /* -MD: a .d file beside the output */
	const char *dep_file;     /* -MF */
	const char *dep_target;   /* -MT */
	int report;               /* 1: --occupancy, 2: --analyze (PTX reports) */
	uint32_t grid_threads;    /* --analyze-grid=THREADS[,GROUP]: the launch assumed */
	uint32_t grid_group;
	Stage stage;
	FrontOptions fo;
} DriverOptions;

/* Returns the process exit status: 0 ok, 1 errors (clang's statuses). */
int driver_run(const DriverOptions *o);

/* build.c: a kernel library (.so) for the CPU device from the C of the C
 * back end, with $CC; 0 or 1 (diagnosed). */
int build_cpu_library(const DriverOptions *o, const Buf *c_text, const char *out);
/* The container of rt/cuda_abi.h "Binaries" for the CUDA device: the PTX,
 * and the cubin of ptxas ($PTXAS, else on PATH) when there is one. */
int build_gpu_binary(const DriverOptions *o, const Buf *ptx, const char *out);

#endif
