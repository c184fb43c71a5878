/* common.c — host helpers shared by the CM workload files: programs built
 * from the embedded kernel sources, buffers, arguments, thread-group tasks,
 * and the error path.  A runtime error is recorded once (the first one wins,
 * with the call that failed and cmetal_last_error()) and the hook turns it
 * into a "# FAIL" line and a FAIL row, so one broken workload never stops
 * the others. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmbench.h"

static char err_text[4096];
static int have_err;

const char *cmb_error(void) { return have_err ? err_text : NULL; }
void cmb_reset(void) { have_err = 0; }

int cmb_check(cm_status s, const char *what)
{
	if (s == CM_SUCCESS)
		return 0;
	if (!have_err) {
		snprintf(err_text, sizeof err_text, "%s: %s: %s", what,
			 cmetal_status_name(s), cmetal_last_error());
		/* one line for the CSV comment */
		for (char *p = err_text; *p; p++)
			if (*p == '\n')
				*p = ' ';
		have_err = 1;
	}
	return -1;
}

cmetal_program *cmb_build(cmetal_device *dev, const char *name,
			  const char *defs)
{
	const char *src = cm_source(name), *env = getenv("CMBENCH_OPTS");
	char opts[512], what[64];
	cmetal_program *p = NULL;
	if (!src) {
		cmb_check(CM_INVALID_VALUE, "no embedded source");
		return NULL;
	}
	snprintf(opts, sizeof opts, "%s %s", env ? env : "-O2 -fno-bounds-check -ffp-contract=fast",
		 defs ? defs : "");
	snprintf(what, sizeof what, "building %s.cm", name);
	if (cmb_check(cmetal_program_build(dev, src, opts, &p), what))
		return NULL;
	return p;
}

cmetal_kernel *cmb_kernel(cmetal_program *p, const char *name)
{
	cmetal_kernel *k = NULL;
	if (!p || cmb_check(cmetal_kernel_create(p, name, &k), name))
		return NULL;
	return k;
}

cmetal_buffer *cmb_buffer(cmetal_device *dev, size_t size, const void *init)
{
	cmetal_buffer *b = NULL;
	if (cmb_check(cmetal_buffer_create(dev, size, &b), "buffer"))
		return NULL;
	if (init && cmb_check(cmetal_buffer_write(b, 0, size, init), "buffer write")) {
		cmetal_buffer_release(b);
		return NULL;
	}
	return b;
}

int cmb_arg_buf(cmetal_kernel *k, uint32_t i, cmetal_buffer *b)
{
	return cmb_check(cmetal_kernel_set_arg_buffer(k, i, b), "buffer argument");
}

int cmb_arg(cmetal_kernel *k, uint32_t i, size_t size, const void *v)
{
	return cmb_check(cmetal_kernel_set_arg(k, i, size, v), "argument");
}

int cmb_add_1d(cmetal_task *t, cmetal_kernel *k, long n, uint32_t tpg)
{
	return cmb_add_2d(t, k, n, 1, tpg, 1);
}

int cmb_add_2d(cmetal_task *t, cmetal_kernel *k, long nx, long ny,
	       uint32_t tx, uint32_t ty)
{
	uint32_t g[3] = { (uint32_t)((nx + tx - 1) / tx),
			  (uint32_t)((ny + ty - 1) / ty), 1 };
	uint32_t th[3] = { tx, ty, 1 };
	return cmb_check(cmetal_task_add_groups(t, k, g, th), "task entry");
}

double cmb_run(cmetal_task *t)
{
	cmetal_event *ev = NULL;
	double ms = -1;
	if (cmb_check(cmetal_task_run(t, &ev), "task run"))
		return -1;
	if (!cmb_check(cmetal_event_wait(ev), "kernel") &&
	    cmb_check(cmetal_event_elapsed_ms(ev, &ms), "event time"))
		ms = -1;
	cmetal_event_release(ev);
	return ms;
}

void cmb_fail(const BenchCase *c, const char *device, const char *why)
{
	printf("# FAIL %s %s: %s\n", c->workload, c->size, why);
	csv_row(c, device, "cm", 0, 0, "-", "FAIL");
}

void cmb_row(const BenchCase *c, const char *device, double ms, double work,
	     const char *unit, const char *err)
{
	cmb_row_as(c, device, "cm", ms, work, unit, err);
}

/* A row for another CM variant of a workload: "cm" is the best strategy,
 * "cm-paper" the paper's where a rewrite changed the algorithm. */
void cmb_row_as(const BenchCase *c, const char *device, const char *impl,
		double ms, double work, const char *unit, const char *err)
{
	if (err)
		printf("# FAIL %s %s %s: %s\n", c->workload, c->size, impl, err);
	csv_row(c, device, impl, ms, work, unit, err ? "FAIL" : "yes");
}

double cmb_time(cmetal_task **tasks, int ntasks,
		int (*before)(void *ctx, int rot), void *ctx)
{
	int reps = bench_reps(), r;
	double t[100];
	for (r = 0; r < reps; r++) {
		int rot = r % ntasks;
		if (before && before(ctx, rot))
			return -1;
		t[r] = cmb_run(tasks[rot]);
		if (t[r] < 0)
			return -1;
	}
	return median(t, reps);
}
