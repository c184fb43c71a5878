/* driver.c — runs the compiler's stages for the command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

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

int driver_run(const DriverOptions *o)
{
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
	fprintf(stderr, "cmetal: error: target '%s' is not available yet\n", o->target);
	rc = 1;
done:
	buf_free(&out);
	arena_free(a);
	return rc;
}
