/* opt.h — the CMIR passes (one per file) and the pipeline that runs them
 * (passes.c).  Every pass works on one kernel, keeps SSA valid and may
 * leave dead instructions for dce. */
#ifndef CMETAL_OPT_H
#define CMETAL_OPT_H

#include "ir/ir.h"

typedef struct {
	const char *name;     /* as given to -d */
	bool (*run)(Func *f); /* true when it changed something */
	int min_level;        /* runs at -O<min_level> and above */
	const char *flag;     /* -fno-FLAG leaves it out; NULL: always runs */
} Pass;

/* passes.c */
extern const Pass opt_passes[];
extern const int opt_npasses;
bool opt_is_pass(const char *name);
/* The passes -fno-FLAG leaves out, as a mask of opt_passes indexes (bit
 * k: pass k); 0 when no pass has that flag. */
uint32_t opt_flag_mask(const char *flag);
/* Runs the pipeline for opt level `level`, less the passes in skip (an
 * opt_flag_mask); after the pass named `dump` (or "lower" for the input)
 * prints the module to dump_out.  Verifies after each pass when
 * ir_verify_enabled().  false on a verifier error. */
bool opt_run(Module *m, int level, uint32_t skip, const char *dump, Buf *dump_out);
/* The same pipeline on one kernel, with no dump (each pass works on one
 * kernel, so running the kernels one after the other gives the same IR). */
bool opt_run_func(Func *f, int level, uint32_t skip);

/* fold.c — constant folding through element-wise ops and regions. */
bool opt_fold(Func *f);
/* branch.c — branches on constants taken, blocks left unreachable dropped. */
bool opt_branch(Func *f);
/* cse.c — common scalar subexpressions within a block. */
bool opt_cse(Func *f);
/* dce.c — dead instructions and dead vector elements. */
bool opt_dce(Func *f);
/* blocks.c: a block and the next, its only successor and it the next's
 * only predecessor, merged */
bool opt_blocks(Func *f);
/* region.c — region collapsing and copy propagation. */
bool opt_region(Func *f);
/* sr.c — strength reduction of division and remainder by 2^k. */
bool opt_sr(Func *f);
/* licm.c — loop-invariant values to loop preheaders (-O2, -fno-licm). */
bool opt_licm(Func *f);
/* early.c — surface reads moved up over code that cannot change what they
 * read (-O2, -fno-early-loads). */
bool opt_early(Func *f);

/* Shared by the passes (fold.c): a constant's element k as int / double. */
bool opt_const_int(const Inst *i, int64_t *v);   /* splat integer */

#endif
