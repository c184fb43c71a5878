/* compile.c — the CM -> C step of a run-time build: parses the option
 * string of cmetal_program_build ("-DN=4 -I dir -O2 -g ...", the cmetal
 * command line's options) into CompileOptions and calls the in-process
 * compiler, compile_to(..., "c", ...), with its diagnostics captured into
 * the build log.  Kernels built at run time are bounds-checked (faults are
 * reported) unless -fno-bounds-check is given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt/opt.h"
#include "rt/rt.h"
#include "target/ptx/occupancy.h"
#include "target/target.h"

typedef struct {
	VEC(const char *) incs, defs, undefs;
	Arena *arena;
} OptLists;

/* Splits options at white space; single or double quotes group words. */
static char **split_words(Arena *a, const char *s, int *n)
{
	VEC(char *) v = {0};
	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		Buf w = {0};
		char q = 0;
		for (; *s && (q || (*s != ' ' && *s != '\t' && *s != '\n')); s++) {
			if (!q && (*s == '"' || *s == '\''))
				q = *s;
			else if (q && *s == q)
				q = 0;
			else
				buf_putc(&w, *s);
		}
		vec_push(&v, arena_strdup(a, w.len ? buf_cstr(&w) : ""));
		buf_free(&w);
	}
	char **out = NEWN(a, char *, v.len + 1);
	if (v.len)
		memcpy(out, v.data, sizeof(char *) * (size_t)v.len);
	*n = v.len;
	vec_free(&v);
	return out;
}

/* Options with a value, given as -XVALUE or -X VALUE. */
static const char *value_of(char **w, int n, int *i, const char *flag)
{
	size_t len = strlen(flag);
	if (w[*i][len])
		return w[*i] + len;
	if (*i + 1 < n)
		return w[++*i];
	return NULL;
}

static bool parse_options(const char *options, CompileOptions *co, OptLists *l, Buf *log)
{
	int n;
	char **w = split_words(l->arena, options, &n);
	bool ok = true;
	for (int i = 0; i < n; i++) {
		const char *a = w[i], *v;
		if (!strncmp(a, "-D", 2) || !strncmp(a, "-U", 2) || !strncmp(a, "-I", 2)) {
			char flag[3] = {a[0], a[1], 0};
			if (!(v = value_of(w, n, &i, flag))) {
				buf_printf(log, "error: option %s needs a value\n", flag);
				ok = false;
			} else if (a[1] == 'D') {
				vec_push(&l->defs, v);
			} else if (a[1] == 'U') {
				vec_push(&l->undefs, v);
			} else {
				vec_push(&l->incs, v);
			}
		} else if (!strncmp(a, "-O", 2) && (a[2] == 0 || (a[2] >= '0' && a[2] <= '3' && !a[3]))) {
			co->opt_level = a[2] ? a[2] - '0' : 2;
		} else if (!strcmp(a, "-g") || !strcmp(a, "-g1") || !strcmp(a, "-g2") || !strcmp(a, "-g3")) {
			co->debug = true;
		} else if (!strcmp(a, "-g0")) {
			co->debug = false;
		} else if (!strncmp(a, "-march=", 7)) {
			co->march = a + 7;
		} else if (fp_option(a, &co->fp)) {
			;   /* the floating-point contract (target.h FpOptions) */
		} else if (!strcmp(a, "-fbounds-check")) {
			co->bounds_check = true;
		} else if (!strcmp(a, "-fno-bounds-check")) {
			co->bounds_check = false;
		} else if (!strncmp(a, "-fno-", 5) && opt_flag_mask(a + 5)) {
			co->opt_skip |= opt_flag_mask(a + 5);   /* -fno-licm */
		} else if (!strncmp(a, "-f", 2) && opt_flag_mask(a + 2)) {
			co->opt_skip &= ~opt_flag_mask(a + 2);
		} else if (!strcmp(a, "-fcluster-slm")) {
			co->cluster_slm = true;  /* PTX: groups over clusters (cuda/) */
		} else if (!strncmp(a, "-fthread-args=", 14)) {
			/* PTX: per-thread arguments (cuda/ builds such variants) */
			co->thread_args = co->thread_args
			        ? arena_printf(l->arena, "%s %s", co->thread_args, a + 14) : a + 14;
		} else if (!strcmp(a, "-fptx-layout=canonical")) {
			co->ptx_canonical = true;
		} else if (!strcmp(a, "-fptx-layout=auto")) {
			co->ptx_canonical = false;
		} else if (!strcmp(a, "-fno-warp-packing") || !strcmp(a, "-fwarp-packing")) {
			co->no_pack = a[2] == 'n';   /* PTX: narrow CM threads share warps */
		} else if (!strcmp(a, "-fno-slm-regions") || !strcmp(a, "-fslm-regions")) {
			co->no_slm_regions = a[2] == 'n';   /* PTX: assign.c costly_region */
		} else if (!strcmp(a, "-fno-loop-versions") || !strcmp(a, "-floop-versions")) {
			co->no_loop_versions = a[2] == 'n';   /* PTX: ptx/vloop.c */
		} else if (!strcmp(a, "-fno-loop-test-fold") || !strcmp(a, "-floop-test-fold")) {
			co->no_loop_test_fold = a[2] == 'n';  /* PTX: ptx/vloop.c's test */
		} else if (!strcmp(a, "-fno-run-layouts") || !strcmp(a, "-frun-layouts")) {
			co->run_layouts = a[2] != 'n';        /* PTX: ptx/runs.c */
		} else if (!strcmp(a, "-fno-phi-coalescing") || !strcmp(a, "-fphi-coalescing")) {
			co->no_phi_coalescing = a[2] == 'n';  /* PTX: ptx/phic.c */
		} else if (!strcmp(a, "-fno-wide-loads") || !strcmp(a, "-fwide-loads")) {
			co->no_wide_loads = a[2] == 'n';      /* PTX: ptx/bwide.c */
		} else if (!strcmp(a, "-fno-fragment-media") || !strcmp(a, "-ffragment-media")) {
			co->no_fragment_media = a[2] == 'n';  /* PTX: ptx/assign.c */
		} else if (!strcmp(a, "-fno-media-spans") || !strcmp(a, "-fmedia-spans")) {
			co->no_media_spans = a[2] == 'n';     /* PTX: ptx/emit.c */
		} else if (!strcmp(a, "-fno-wrap-join") || !strcmp(a, "-fwrap-join")) {
			co->wrap_join = a[2] != 'n';          /* PTX: ptx/mem.c */
		} else if (!strcmp(a, "-fno-slm-vectorize") || !strcmp(a, "-fslm-vectorize")) {
			co->no_slm_vec = a[2] == 'n';   /* PTX: ptx/slmvec.c */
		} else if (!strcmp(a, "-fno-slm-vectorize-overlap") ||
		           !strcmp(a, "-fslm-vectorize-overlap")) {
			co->slm_vec_no_overlap = a[2] == 'n';   /* seed 001's refusal */
		} else if (!strcmp(a, "-fno-slm-ranges") || !strcmp(a, "-fslm-ranges")) {
			co->no_slm_ranges = a[2] == 'n';   /* PTX: ptx/mem.c slm_inside */
		} else if (!strcmp(a, "-fno-wgmma-chains") || !strcmp(a, "-fwgmma-chains")) {
			co->no_wgmma_chains = a[2] == 'n';   /* PTX: ptx/wgmma.c chains */
		} else if (!strcmp(a, "-fexact-loop-depths") || !strcmp(a, "-fno-exact-loop-depths")) {
			co->exact_loops = a[2] == 'e';   /* PTX: ptx/assign.c px_loop_depths */
		} else if (!strcmp(a, "-fno-ldmatrix") || !strcmp(a, "-fldmatrix")) {
			co->no_ldmatrix = a[2] == 'n';   /* PTX: ptx/ldsm.c */
		} else if (!strcmp(a, "-fno-atomic-aggregation") ||
		           !strcmp(a, "-fatomic-aggregation")) {
			co->no_atomic_aggregation = a[2] == 'n';   /* PTX: ptx/aggregate.c */
		} else if (!strcmp(a, "-fno-speculate-reads") || !strcmp(a, "-fspeculate-reads")) {
			co->speculate_reads = a[2] != 'n';   /* PTX: ptx/ifconv.c */
		} else if (!strcmp(a, "-fno-unroll-loops") || !strcmp(a, "-funroll-loops")) {
			co->no_unroll = a[2] == 'n';   /* PTX: ptx/unroll.c */
		} else if (!strcmp(a, "-Werror")) {
			diag_state.werror = true;
		} else if (!strcmp(a, "-w")) {
			diag_state.no_warnings = true;
		} else {
			buf_printf(log, "error: unknown build option '%s'\n", a);
			ok = false;
		}
	}
	co->fo.pp.include_dirs = l->incs.data;
	co->fo.pp.n_include_dirs = l->incs.len;
	co->fo.pp.defines = l->defs.data;
	co->fo.pp.n_defines = l->defs.len;
	co->fo.pp.undefs = l->undefs.data;
	co->fo.pp.n_undefs = l->undefs.len;
	co->fo.pp.march = co->march && strncmp(co->march, "sm_", 3) ? co->march : NULL;
	return ok;
}

static bool compile_cm(const char *source, const char *path, const char *options,
                       const char *target, Buf *out, Buf *deps, Buf *log);

bool rt_translate_cm(const char *source, const char *path, const char *options, Buf *c_out,
                     Buf *deps, Buf *log)
{
	return compile_cm(source, path, options, "c", c_out, deps, log);
}

/* (cuda) The same with the target named: the CUDA device builds "ptx". */
bool rt_compile_cm(const char *source, const char *options, const char *target, Buf *out,
                   Buf *log)
{
	return compile_cm(source, NULL, options, target, out, NULL, log);
}

/* The compiler keeps global state (diag_state, die_trap, its tables), so
 * builds from several threads take turns here; everything else of a build
 * (the cache, the C compiler, dlopen) runs in parallel. */
static pthread_mutex_t compiler_mu = PTHREAD_MUTEX_INITIALIZER;

static bool compile_locked(const char *source, const char *path, const char *options,
                           const char *target, Buf *out, Buf *deps, Buf *log);

static bool compile_cm(const char *source, const char *path, const char *options,
                       const char *target, Buf *out, Buf *deps, Buf *log)
{
	pthread_mutex_lock(&compiler_mu);
	bool ok = compile_locked(source, path, options, target, out, deps, log);
	pthread_mutex_unlock(&compiler_mu);
	return ok;
}

static bool compile_locked(const char *source, const char *path, const char *options,
                           const char *target, Buf *out, Buf *deps, Buf *log)
{
	DiagState saved = diag_state;
	diag_state = (DiagState){.capture = log};
	CompileOptions co = {.opt_level = 2};   /* CM semantics; -fbounds-check reports */
	OptLists l = {.arena = arena_new()};
	/* A compiler bug must not take the user's program down: die() comes
	 * back here (the compilation's arena is lost; a bug is rare). */
	static _Thread_local DieTrap trap;
	volatile bool ok = false;
	if (setjmp(trap.jb) == 0) {
		die_trap = &trap;
		co.fo.pp.deps = deps;
		ok = parse_options(options, &co, &l, log) &&
		     compile_to(path ? path : "program.cm", source, &co, target, out);
	} else {
		buf_printf(log, "%s\n", trap.msg);
	}
	die_trap = NULL;
	if (!ok && log->len == 0)
		buf_puts(log, "error: the compiler reported no diagnostics\n");
	vec_free(&l.incs);
	vec_free(&l.defs);
	vec_free(&l.undefs);
	arena_free(l.arena);
	diag_state = saved;
	return ok;
}

bool rt_compiler_available(void)
{
	return true;
}

cm_status cmetal_compile(const char *source, const char *options, const char *target,
                         char **out, size_t *len, char **log)
{
	if (!source || !target || !out)
		return rt_fail(CM_INVALID_VALUE, "cmetal_compile: %s is NULL",
		               !source ? "source" : !target ? "target" : "the output pointer");
	int report = !strcmp(target, "occupancy") ? 1 : !strcmp(target, "analyze") ? 2 : 0;
	if (!report && strcmp(target, "ptx") && strcmp(target, "c") && strcmp(target, "ir"))
		return rt_fail(CM_INVALID_VALUE, "cmetal_compile: unknown target '%s' (expected ptx, "
		               "c, ir, occupancy or analyze)", target);
	Buf text = {0}, diags = {0};
	char *opts = NULL;
	if (report == 2) {   /* line information for the shuffles by source line */
		size_t n = strlen(options ? options : "") + 4;
		opts = xmalloc(n);
		snprintf(opts, n, "%s -g", options ? options : "");
	}
	bool ok = rt_compile_cm(source, opts ? opts : options ? options : "", report ? "ptx" : target,
	                        &text, &diags);
	free(opts);
	if (ok && report) {   /* the text becomes the report on it */
		Buf rep = {0};
		ok = ptx_report(buf_cstr(&text), report == 2, NULL, &rep, &diags);
		buf_free(&text);
		text = rep;
	}
	*out = NULL;
	if (len)
		*len = 0;
	if (log)
		*log = xstrdup(diags.len ? buf_cstr(&diags) : "");
	cm_status s = CM_SUCCESS;
	if (ok) {
		if (len)
			*len = text.len;
		*out = xstrdup(text.len ? buf_cstr(&text) : "");
	} else {
		s = rt_fail(CM_BUILD_FAILED, "compile failed:\n%s",
		            diags.len ? buf_cstr(&diags) : "(no diagnostics)");
	}
	buf_free(&text);
	buf_free(&diags);
	return s;
}
