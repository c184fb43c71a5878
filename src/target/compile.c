/* compile.c — the compiler as one function: front end, lowering, the pass
 * pipeline, and a target's emitter.  One arena per compilation, and one
 * per kernel: a kernel is lowered, optimized and emitted before the next
 * is lowered, and its IR is released once it is emitted, so that the IR
 * of one kernel at most is alive (the syntax tree lives throughout: every
 * kernel may inline any function). */
#include <string.h>

#include "opt/opt.h"
#include "target/target.h"

/* The PTX target (target/ptx/). */
extern const Target T_ptx;

const Target *target_find(const char *name)
{
	const Target *const all[] = {&T_ir, &T_c, &T_ptx};
	for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
		if (all[k] && !strcmp(all[k]->name, name))
			return all[k];
	return NULL;
}

bool fp_option(const char *arg, FpOptions *fp)
{
	if (!strcmp(arg, "-ffast-math"))
		*fp = (FpOptions){.contract = true, .fast = true};
	else if (!strcmp(arg, "-fno-fast-math"))
		*fp = (FpOptions){0};
	else if (!strcmp(arg, "-ffp-contract=fast") || !strcmp(arg, "-ffp-contract=on"))
		fp->contract = true;
	else if (!strcmp(arg, "-ffp-contract=off"))
		fp->contract = false;
	else
		return false;
	return true;
}

/* The CPU keeps IEEE denormals and libm under -ffast-math: only the
 * contraction changes (cc's own -ffast-math would also assume no NaNs). */
const char *fp_cc_flag(const FpOptions *fp)
{
	return fp->contract ? "-ffp-contract=fast" : "-ffp-contract=off";
}

static const Target *need_target(const char *name)
{
	const Target *t = target_find(name ? name : "ptx");
	if (!t)
		error_at((Loc){0}, "target '%s' is not available", name ? name : "ptx");
	return t;
}

bool target_emit(const Target *t, Module *m, const EmitOptions *o, Buf *out)
{
	if (!t->begin)
		return t->emit(m, o, out);
	void *st = t->begin(m, o, out);
	bool ok = st != NULL;
	for (uint32_t k = 0; k < m->nfuncs && ok; k++)
		ok = t->kernel(st, m->funcs[k]);
	return st && t->end(st, ok) && ok;
}

static EmitOptions emit_options(const CompileOptions *o)
{
	return (EmitOptions){.debug = o->debug, .fp = o->fp, .march = o->march,
	                     .bounds_check = o->bounds_check, .cluster_slm = o->cluster_slm,
	                     .ptx_canonical = o->ptx_canonical, .no_pack = o->no_pack,
	                     .no_slm_vec = o->no_slm_vec, .slm_vec_no_overlap = o->slm_vec_no_overlap,
	                     .no_wgmma_chains = o->no_wgmma_chains,
	                     .no_ldmatrix = o->no_ldmatrix, .exact_loops = o->exact_loops,
	                     .no_slm_ranges = o->no_slm_ranges,
	                     .no_slm_regions = o->no_slm_regions,
	                     .no_loop_versions = o->no_loop_versions,
	                     .no_loop_test_fold = o->no_loop_test_fold,
	                     .run_layouts = o->run_layouts,
	                     .no_phi_coalescing = o->no_phi_coalescing,
	                     .no_wide_loads = o->no_wide_loads,
	                     .no_fragment_media = o->no_fragment_media,
	                     .no_media_spans = o->no_media_spans,
	                     .wrap_join = o->wrap_join,
	                     .no_atomic_aggregation = o->no_atomic_aggregation,
	                     .no_unroll = o->no_unroll || o->opt_level < 2,
	                     .speculate_reads = o->speculate_reads && o->opt_level >= 2,
	                     .thread_args = o->thread_args};
}

bool compile_module(Module *m, const CompileOptions *o, const Target *t, Buf *out)
{
	if (o->dump_pass) {
		if (!opt_is_pass(o->dump_pass)) {
			error_at((Loc){0}, "no pass named '%s'", o->dump_pass);
			return false;
		}
		return opt_run(m, o->opt_level, o->opt_skip, o->dump_pass, out);
	}
	if (!opt_run(m, o->opt_level, o->opt_skip, NULL, NULL))
		return false;
	EmitOptions eo = emit_options(o);
	return target_emit(t, m, &eo, out) && !diag_state.errors;
}

/* Kernel by kernel: what ir_lower_each hands each lowered kernel to. */
typedef struct {
	const CompileOptions *o;
	const Target *t;
	void *st;             /* the target's state; NULL when begin failed */
} Stream;

static bool stream_kernel(Func *f, void *ctx)
{
	Stream *s = ctx;
	bool ok = s->st && opt_run_func(f, s->o->opt_level, s->o->opt_skip) &&
	          s->t->kernel(s->st, f);
	ir_func_release(f);
	return ok;
}

/* Lowers, optimizes and emits unit kernel by kernel (a target with
 * begin), or whole (a dump, or T_ir). */
static bool lower_and_emit(Arena *a, Arena *tree, Node *unit, const CompileOptions *o,
                           const Target *t, Buf *out)
{
	IrLowerOptions lo = {.debug = o->debug, .march = o->march, .tree = tree};
	if (o->dump_pass || !t->begin) {
		lo.tree = NULL;
		Module *m = ir_lower(a, unit, &lo);
		return m && !diag_state.errors && compile_module(m, o, t, out);
	}
	EmitOptions eo = emit_options(o);
	Module *m = ir_module_new(a);
	Stream s = {.o = o, .t = t, .st = t->begin(m, &eo, out)};
	bool ok = ir_lower_each(m, unit, &lo, stream_kernel, &s) && s.st;
	ok = (!s.st || t->end(s.st, ok)) && ok;
	return ok && !diag_state.errors;
}

bool compile_to(const char *path, const char *text, const CompileOptions *o,
                const char *target, Buf *out)
{
	const Target *t = need_target(target);
	if (!t)
		return false;
	/* the source table names files of earlier compiles in arenas freed
	 * since; -g's .file list walks the whole table */
	src_reset();
	/* the syntax tree lives in an arena of its own, reset once the last
	 * kernel is lowered; the source texts, which diagnostics quote, in a */
	Arena *a = arena_new(), *tree = arena_child(a);
	FrontOptions fo = o->fo;
	fo.pp.keep = a;
	bool ok = false;
	Node *unit = front_compile(tree, path, text, &fo);
	if (unit)
		ok = lower_and_emit(a, tree, unit, o, t, out);
	arena_free(a);
	return ok;
}

bool compile_ir_to(const char *path, const char *text, const CompileOptions *o,
                   const char *target, Buf *out)
{
	const Target *t = need_target(target);
	if (!t)
		return false;
	src_reset();   /* as compile_to */
	Arena *a = arena_new();
	Module *m = ir_parse(a, path, text);
	bool ok = m && compile_module(m, o, t, out);
	arena_free(a);
	return ok;
}
