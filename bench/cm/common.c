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
static cmetal_device *probe_dev;	/* the device of the last cmb_build */
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
	/* A/B of hand-edited code: CMB_LOAD_<name>=FILE loads FILE (the
	 * output of `cmetal -S -t ptx` or `-c`, edited) instead of building */
	snprintf(what, sizeof what, "CMB_LOAD_%s", name);
	const char *file = getenv(what);
	if (file && *file) {
		snprintf(what, sizeof what, "loading %s", file);
		probe_dev = dev;
		return cmb_check(cmetal_program_load(dev, file, &p), what) ? NULL : p;
	}
	if (!src) {
		cmb_check(CM_INVALID_VALUE, "no embedded source");
		return NULL;
	}
	snprintf(opts, sizeof opts, "%s %s", env ? env : "-O2 -fno-bounds-check -ffp-contract=fast",
		 defs ? defs : "");
	snprintf(what, sizeof what, "building %s.cm", name);
	probe_dev = dev;
	if (cmb_check(cmetal_program_build(dev, src, opts, &p), what))
		return NULL;
	return p;
}

/* Kernel handles and their names, for the sweep's report (a released
 * handle's slot may come back for another kernel: the newest wins). */
static struct { cmetal_kernel *k; char name[48]; } knames[64];
static int nknames;

static const char *kernel_name(cmetal_kernel *k)
{
	for (int i = nknames; i-- > 0;)
		if (knames[i].k == k)
			return knames[i].name;
	return "?";
}

cmetal_kernel *cmb_kernel(cmetal_program *p, const char *name)
{
	cmetal_kernel *k = NULL;
	if (!p || cmb_check(cmetal_kernel_create(p, name, &k), name))
		return NULL;
	if (nknames == 64) {
		memmove(knames, knames + 32, 32 * sizeof knames[0]);
		nknames = 32;
	}
	knames[nknames].k = k;
	snprintf(knames[nknames++].name, sizeof knames[0].name, "%s", name);
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

int cmb_group = -1;
static CmbRegroup regroup;

int cmb_add_2d(cmetal_task *t, cmetal_kernel *k, long nx, long ny,
	       uint32_t tx, uint32_t ty)
{
	uint32_t g[3] = { (uint32_t)((nx + tx - 1) / tx),
			  (uint32_t)((ny + ty - 1) / ty), 1 };
	uint32_t th[3] = { tx, ty, 1 };
	if (cmb_group >= 0 && nx * ny > 1 && cmb_regroupable(k)) {
		const char *name = kernel_name(k);
		size_t len = strlen(regroup.names);
		char have[160], want[64];
		snprintf(have, sizeof have, ",%s,", regroup.names);
		snprintf(want, sizeof want, ",%s,", name);
		if (!strstr(have, want))
			snprintf(regroup.names + len, sizeof regroup.names - len, "%s%s",
				 len ? "," : "", name);
		if (cmb_group == 0) {
			uint32_t space[3] = { (uint32_t)nx, (uint32_t)ny, 1 }, zero[3] = { 0 };
			cmetal_occupancy oc;
			if (!regroup.n++ && !cmetal_kernel_occupancy(k, 1, &oc)) {
				regroup.auto_g = oc.auto_group < nx ? oc.auto_group : (uint32_t)nx;
				if (!cmetal_kernel_occupancy(k, regroup.auto_g, &oc))
					regroup.ctas = oc.ctas_per_sm, regroup.warps = oc.warps_per_sm;
			}
			return cmb_check(cmetal_task_add_groups(t, k, space, zero), "task entry");
		}
		th[0] = (uint32_t)cmb_group;
		th[1] = 1;
		g[0] = (uint32_t)((nx + th[0] - 1) / th[0]);
		g[1] = (uint32_t)ny;
		cmetal_occupancy oc;
		if (!regroup.n++ && !cmetal_kernel_occupancy(k, th[0], &oc))
			regroup.ctas = oc.ctas_per_sm, regroup.warps = oc.warps_per_sm;
	}
	return cmb_check(cmetal_task_add_groups(t, k, g, th), "task entry");
}

/* Whether the runtime lets k's launches be grouped by it (no SLM, no
 * barrier): a probe launch with threads {0, 0, 0} in a task of its own. */

int cmb_regroupable(cmetal_kernel *k)
{
	cmetal_task *t = NULL;
	uint32_t one[3] = { 1, 1, 1 }, zero[3] = { 0, 0, 0 };
	int ok;
	if (!probe_dev || cmetal_task_create(probe_dev, &t) != CM_SUCCESS)
		return 0;
	ok = cmetal_task_add_groups(t, k, one, zero) == CM_SUCCESS;
	cmetal_task_release(t);
	return ok;
}

/* The CPU time of the last cmb_run, and the one the next row reports. */
static double run_cpu = -1, row_cpu = -1;

void cmb_cpu(double ms) { row_cpu = ms; }

int cmb_impl_wanted(const char *impl)
{
	const char *list = getenv("CMB_IMPLS");
	size_t n = strlen(impl);
	if (!list)
		return 1;
	for (const char *w = list; *w;) {
		size_t k = strcspn(w, ",:");
		if (k == n && !strncmp(w, impl, n))
			return 1;
		w += k + (w[k] != 0);
	}
	return 0;
}

double cmb_run(cmetal_task *t)
{
	cmetal_event *ev = NULL;
	double ms = -1, c0 = cpu_ms();
	run_cpu = -1;
	if (cmb_check(cmetal_task_run(t, &ev), "task run"))
		return -1;
	if (!cmb_check(cmetal_event_wait(ev), "kernel") &&
	    cmb_check(cmetal_event_elapsed_ms(ev, &ms), "event time"))
		ms = -1;
	run_cpu = cpu_ms() - c0;
	cmetal_event_release(ev);
	return ms;
}

void cmb_fail(const BenchCase *c, const char *device, const char *why)
{
	cmb_fail_as(c, device, "cm", why);
}

void cmb_fail_as(const BenchCase *c, const char *device, const char *impl, const char *why)
{
	printf("# FAIL %s %s %s: %s\n", c->workload, c->size, impl, why);
	csv_row(c, device, impl, 0, 0, "-", "FAIL");
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
	char tagged[64];
	if (cmb_group >= 0) {
		/* a sweep setting: its own impl label, its row to sweep.c */
		cmb_sweep_row(impl, ms, !err, &regroup);
		if (cmb_group)
			snprintf(tagged, sizeof tagged, "%s@g%d", impl, cmb_group);
		else
			snprintf(tagged, sizeof tagged, "%s@auto", impl);
		impl = tagged;
		memset(&regroup, 0, sizeof regroup);
	}
	if (err)
		printf("# FAIL %s %s %s: %s\n", c->workload, c->size, impl, err);
	/* on a GPU the host's CPU time says nothing of the kernel's */
	csv_row_cpu(c, device, impl, ms, strncmp(device, "cpu:", 4) ? -1 : row_cpu, work, unit,
		    err ? "FAIL" : "yes");
	row_cpu = -1;
}

double cmb_time(cmetal_task **tasks, int ntasks,
		int (*before)(void *ctx, int rot), void *ctx)
{
	int reps = bench_reps(), r;
	double t[100], cpu[100];
	for (r = 0; r < reps; r++) {
		int rot = r % ntasks;
		if (before && before(ctx, rot))
			return -1;
		t[r] = cmb_run(tasks[rot]);
		if (t[r] < 0)
			return -1;
		cpu[r] = run_cpu;
	}
	cmb_cpu(median(cpu, reps));
	return median(t, reps);
}
