/* driver.c — runs the compiler's stages for the command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
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

static bool is_ir_file(const char *path)
{
	size_t n = strlen(path);
	return n > 3 && !strcmp(path + n - 3, ".ir");
}

/* -t ir|c|ptx (and -d PASS): the whole compiler; a .ir input skips the
 * front end and lowering. */
static int run_target(const DriverOptions *o)
{
	CompileOptions co = {.fo = o->fo, .opt_level = o->opt_level,
	                     .debug = o->debug, .march = o->march,
	                     .dump_pass = o->dump_pass, .cluster_slm = o->cluster_slm,
	                     .ptx_canonical = o->ptx_canonical, .thread_args = o->thread_args,
	                     .bounds_check = o->bounds_check};
	Buf out = {0};
	bool ok = is_ir_file(o->input)
	                  ? compile_ir_to(o->input, NULL, &co, o->target, &out)
	                  : compile_to(o->input, NULL, &co, o->target, &out);
	int rc = ok ? write_out(o->out, &out) : 1;
	buf_free(&out);
	return rc;
}

int driver_run(const DriverOptions *o)
{
	if (o->stage == STAGE_ALL)
		return run_target(o);
	Arena *a = arena_new();
	int rc = 0;
	Buf out = {0};
	if (o->stage == STAGE_PP) {
		int n;
		Token *t = preprocess(a, o->input, NULL, &o->fo.pp, &n);
		if (!t || diag_state.errors)
			rc = 1;
		else {
			pp_print(t, n, &out);
			rc = write_out(o->out, &out);
		}
		goto done;
	}
	Node *unit = front_compile(a, o->input, NULL, &o->fo);
	if (!unit) {
		rc = 1;
		goto done;
	}
	if (o->stage == STAGE_CHECK)
		goto done;
	if (o->stage == STAGE_AST) {
		ast_dump(unit, &out);
		rc = write_out(o->out, &out);
		goto done;
	}
done:
	buf_free(&out);
	arena_free(a);
	return rc;
}
