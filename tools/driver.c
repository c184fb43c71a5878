/* driver.c — runs the compiler's stages for the command line, for each
 * input in turn: -E, -fsyntax-only, --emit=ast, -M (dependencies only),
 * -S (the target's text) or, by default and with -c, a binary (build.c).
 * "-" reads standard input.  -MD writes a make rule of the files the
 * input included beside the output (or to -MF). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "target/ptx/occupancy.h"
#include "target/target.h"

static FILE *open_out(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return stdout;
	FILE *f = fopen(path, "wb");
	if (!f)
		fprintf(stderr, "cmetal: error: cannot write '%s'\n", path);
	return f;
}

static int write_out(const char *path, Buf *b)
{
	FILE *f = open_out(path);
	if (!f)
		return 1;
	fwrite(b->data ? b->data : "", 1, b->len, f);
	if (f != stdout)
		fclose(f);
	return 0;
}

static bool has_suffix(const char *path, const char *suffix)
{
	size_t n = strlen(path), k = strlen(suffix);
	return n > k && !strcmp(path + n - k, suffix);
}

/* All of standard input, NUL-terminated (malloc'd); NULL on a read error. */
static char *read_stdin(void)
{
	Buf b = {0};
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
		buf_putn(&b, chunk, n);
	if (ferror(stdin)) {
		buf_free(&b);
		return NULL;
	}
	char *s = xstrdup(b.len ? buf_cstr(&b) : "");
	buf_free(&b);
	return s;
}

static bool is_binary_target(const char *t)
{
	return !strcmp(t, "c") || !strcmp(t, "cpu") || !strcmp(t, "ptx");
}

/* The name a binary gets without -o: the input's base name, its extension
 * replaced by .so (CPU) or .cmbin (GPU); "a" for standard input. */
static char *default_output(const DriverOptions *o, const char *input)
{
	const char *base = strrchr(input, '/');
	base = !strcmp(input, "-") ? "a" : base ? base + 1 : input;
	const char *dot = strrchr(base, '.');
	size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	const char *ext = !strcmp(o->target, "ptx") ? ".cmbin" : ".so";
	char *s = xmalloc(n + strlen(ext) + 1);
	memcpy(s, base, n);
	strcpy(s + n, ext);
	return s;
}

/* Appends the make rule "target: input files...\n" to out from the
 * preprocessor's list (PPOptions.deps: "HASH path" for a file read, "-
 * path" for a candidate that was not there); spaces escaped for make. */
static void deps_rule(const char *target, const char *input, const Buf *deps, Buf *out)
{
	buf_printf(out, "%s:", target);
	if (strcmp(input, "-"))
		buf_printf(out, " %s", input);
	const char *p = deps->data ? deps->data : "";
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n > 17 && p[0] != '-') {
			buf_puts(out, " \\\n  ");
			for (size_t i = 17; i < n; i++) {
				if (p[i] == ' ' || p[i] == '#')
					buf_putc(out, '\\');
				else if (p[i] == '$')
					buf_putc(out, '$');
				buf_putc(out, p[i]);
			}
		}
		p += n + (nl != NULL);
	}
	buf_putc(out, '\n');
}

/* -M, -MD: the rule for input, to -MF, else (-MD) beside the output as
 * NAME.d, else (-M) to -o or stdout. */
static int write_deps(const DriverOptions *o, const char *input, const char *out,
                      const Buf *deps)
{
	const char *target = o->dep_target ? o->dep_target : out;
	char *tmp = NULL;
	if (!target)
		target = tmp = default_output(o, input);
	Buf rule = {0};
	deps_rule(target, input, deps, &rule);
	const char *path = o->dep_file;
	char *dpath = NULL;
	if (!path && o->stage == STAGE_DEPS)
		path = o->out;
	else if (!path) {
		const char *stem = out && strcmp(out, "-") ? out : target;
		const char *dot = strrchr(stem, '.'), *slash = strrchr(stem, '/');
		size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - stem) : strlen(stem);
		dpath = xmalloc(n + 3);
		memcpy(dpath, stem, n);
		strcpy(dpath + n, ".d");
		path = dpath;
	}
	int rc = write_out(path, &rule);
	buf_free(&rule);
	free(dpath);
	free(tmp);
	return rc;
}

/* --occupancy, --analyze: the report on the PTX in code. */
static int write_report(const DriverOptions *o, const char *out, Buf *code)
{
	Buf rep = {0}, err = {0};
	int rc = 1;
	PtxLaunch l = {o->grid_threads, o->grid_group};
	if (ptx_report(buf_cstr(code), o->report == 2, &l, &rep, &err))
		rc = write_out(out, &rep);
	else
		fprintf(stderr, "cmetal: error: %s", buf_cstr(&err));
	buf_free(&rep);
	buf_free(&err);
	return rc;
}

/* -t ir|c|ptx (and -d PASS): the whole compiler; a .ir input skips the
 * front end and lowering.  out: where the result goes. */
static int run_target(const DriverOptions *o, const char *input, const char *text,
                      const char *out, Buf *deps)
{
	CompileOptions co = {.fo = o->fo, .opt_level = o->opt_level, .opt_skip = o->opt_skip,
	                     .debug = o->debug || o->report == 2, .march = o->march, .fp = o->fp,
	                     .dump_pass = o->dump_pass, .cluster_slm = o->cluster_slm,
	                     .ptx_canonical = o->ptx_canonical, .thread_args = o->thread_args,
	                     .no_pack = o->no_pack, .no_slm_vec = o->no_slm_vec,
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
	                     .no_wgmma_chains = o->no_wgmma_chains,
	                     .slm_vec_no_overlap = o->slm_vec_no_overlap,
	                     .no_atomic_aggregation = o->no_atomic_aggregation,
	                     .no_unroll = o->no_unroll,
	                     .speculate_reads = o->speculate_reads,
	                     .bounds_check = o->bounds_check};
	co.fo.pp.deps = deps;
	const char *target = o->report ? "ptx" : !strcmp(o->target, "cpu") ? "c" : o->target;
	/* -g -c for the CPU: the library's debug information names the source
	 * by its absolute path, so a debugger finds it from any directory */
	bool cpu_lib = !o->report && !o->text && !o->dump_pass && is_binary_target(o->target) &&
	               !strcmp(target, "c");
	char *abs = o->debug && cpu_lib && strcmp(input, "-") ? realpath(input, NULL) : NULL;
	Buf code = {0};
	bool ok = has_suffix(input, ".ir")
	                  ? compile_ir_to(input, text, &co, target, &code)
	                  : compile_to(abs ? abs : input, text, &co, target, &code);
	free(abs);
	int rc = 1;
	if (!ok)
		rc = 1;
	else if (o->report)
		rc = write_report(o, out, &code);
	else if (o->text || o->dump_pass || !is_binary_target(o->target))
		rc = write_out(out, &code);
	else if (!strcmp(target, "c"))
		rc = build_cpu_library(o, &code, out);
	else
		rc = build_gpu_binary(o, &code, out);
	buf_free(&code);
	return rc;
}

/* -E, -M, -fsyntax-only, --emit=ast. */
static int run_front(const DriverOptions *o, const char *input, const char *text,
                     const char *out, Buf *deps)
{
	Arena *a = arena_new();
	FrontOptions fo = o->fo;
	fo.pp.deps = deps;
	int rc = 0;
	Buf b = {0};
	if (o->stage == STAGE_PP || o->stage == STAGE_DEPS) {
		TokenList t = {0};
		if (!preprocess(a, input, text, &fo.pp, &t) || diag_state.errors)
			rc = 1;
		else if (o->stage == STAGE_PP) {
			pp_print(&t, &b);
			rc = write_out(out, &b);
		}
		tl_free(&t);
	} else {
		Node *unit = front_compile(a, input, text, &fo);
		if (!unit)
			rc = 1;
		else if (o->stage == STAGE_AST) {
			ast_dump(unit, &b);
			rc = write_out(out, &b);
		}
	}
	buf_free(&b);
	arena_free(a);
	return rc;
}

/* Whether the run writes a binary for each input (its default name
 * without -o). */
static bool makes_binary(const DriverOptions *o)
{
	return o->stage == STAGE_ALL && !o->text && !o->dump_pass && !o->report &&
	       is_binary_target(o->target);
}

static int run_one(const DriverOptions *o, const char *input)
{
	char *text = NULL;
	if (!strcmp(input, "-") && !(text = read_stdin())) {
		fprintf(stderr, "cmetal: error: cannot read standard input\n");
		return 1;
	}
	const char *name = text ? "<stdin>" : input;
	char *def = NULL;
	const char *out = o->out;
	if (!out && makes_binary(o))
		out = def = default_output(o, input);
	Buf deps = {0};
	bool want_deps = o->deps || o->stage == STAGE_DEPS;
	int rc = o->stage == STAGE_ALL ? run_target(o, name, text, out, want_deps ? &deps : NULL)
	                               : run_front(o, name, text, out, want_deps ? &deps : NULL);
	if (rc == 0 && want_deps)
		rc = write_deps(o, input, o->stage == STAGE_DEPS ? NULL : out, &deps);
	buf_free(&deps);
	free(def);
	free(text);
	return rc;
}

int driver_run(const DriverOptions *o)
{
	bool to_stdout = o->out && !strcmp(o->out, "-") && !makes_binary(o);
	if (o->ninputs > 1 && o->out && o->stage != STAGE_CHECK && !to_stdout) {
		fprintf(stderr, "cmetal: error: cannot specify -o when generating multiple output "
		        "files\n");
		return 1;
	}
	int stdin_uses = 0;
	for (int i = 0; i < o->ninputs; i++)
		stdin_uses += !strcmp(o->inputs[i], "-");
	if (stdin_uses > 1) {
		fprintf(stderr, "cmetal: error: standard input ('-') given more than once\n");
		return 1;
	}
	int rc = 0;
	for (int i = 0; i < o->ninputs; i++) {
		diag_state.errors = diag_state.warnings = 0;   /* each input on its own */
		if (run_one(o, o->inputs[i]))
			rc = 1;
	}
	return rc;
}
