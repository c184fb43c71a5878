/* kmeans.c — host side of kmeans.cm: points, centroids (the first K
 * points), memberships (-1) and partials in buffers; one task of assign +
 * update per step.  "iter" cases time one step with its event; "conv" cases
 * time the whole loop by wall clock, host round trips for the change count
 * included (at most 100 steps).  The state is restored untimed before each
 * run; checked with check_kmeans against the reference run the same way.
 * Rows: cm (kmeans.cm with -DFIXED=1: a group's sums in fixed point by
 * integer atomics, at the scale fixed_scale() picks from the points) and
 * cm-paper (float atomic adds, the paper's sums). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmbench.h"

enum { PTS = 256, GROUP = 8 };	/* points per assign thread, threads per group */

typedef struct {
	cmetal_buffer *cent, *member, *result;
	cmetal_task *task;
	const float *pts;
	int *minus1;
	long n;
	int d, k, conv;
	long iters;
	double cpu;		/* CPU time of the last km_run (ms) */
} Km;

static int reset(void *ctx, int rot)
{
	Km *m = ctx;
	return cmb_check(cmetal_buffer_write(m->cent, 0, sizeof(float) * m->k * m->d, m->pts),
			 "buffer write") ||
	       cmb_check(cmetal_buffer_write(m->member, 0, sizeof(int) * m->n, m->minus1),
			 "buffer write");
}

/* One run from the reset state; returns ms (-1 on error), and its CPU
 * time (cpu_ms(), with the host round trips) in m->cpu. */
static double km_run(Km *m)
{
	uint32_t changed = 1;
	double t0 = now_ms(), ms = 0, c0;
	if (reset(m, 0))
		return -1;
	t0 = now_ms(), c0 = cpu_ms();
	for (m->iters = 0; changed && m->iters < (m->conv ? 100 : 1); m->iters++) {
		if ((ms = cmb_run(m->task)) < 0 ||
		    cmb_check(cmetal_buffer_read(m->result, 0, 4, &changed), "buffer read"))
			return -1;
	}
	m->cpu = cpu_ms() - c0;
	return m->conv ? now_ms() - t0 : ms;
}

/* The largest power of two s with which no group's fixed-point sum of
 * PTS * GROUP coordinates round(x * s) can pass 2^31 - 1 (kmeans.cm
 * FIXED); the points do not change between steps, so once per run. */
static float fixed_scale(const float *pts, long count)
{
	float big = 1e-30f;
	for (long i = 0; i < count; i++)
		if (fabsf(pts[i]) > big)
			big = fabsf(pts[i]);
	double limit = 2147483647.0 / ((double)PTS * GROUP * (big + 1.0));
	return (float)ldexp(1.0, (int)floor(log2(limit)));
}

/* One row: kmeans.cm built with -DFIXED=fixed, as impl. */
static void km_row(cmetal_device *dev, const BenchCase *c, const char *device,
		   const char *impl, int fixed)
{
	long n = c->p[0], i, threads = (n + PTS - 1) / PTS, groups = (threads + GROUP - 1) / GROUP;
	int d = (int)c->p[1], k = (int)c->p[2], reps = bench_reps(), r;
	uint32_t un = (uint32_t)n, ug = (uint32_t)groups, un_k = (uint32_t)k;
	long slot = (k * d + k + 2 + 31) / 32 * 32;	/* SLOT of kmeans.cm */
	float *pts = xmalloc(sizeof(float) * n * d), want_c[64 * 16], got_c[64 * 16];
	int *want_m = xmalloc(sizeof(int) * n), *got_m = xmalloc(sizeof(int) * n);
	int *minus1 = xmalloc(sizeof(int) * n);
	char defs[96];
	cmetal_buffer *bp = NULL, *part = NULL;
	cmetal_program *p;
	cmetal_kernel *ka, *ku;
	Km m = { 0 };
	const char *unit, *err = NULL;
	double ms = -1, work = case_work(c, &unit), t[100], cpu[100];
	long ref_iters = 0;

	float scale;

	cmb_reset();
	snprintf(defs, sizeof defs, "-DK=%d -DD=%d -DFIXED=%d", k, d, fixed);
	p = cmb_build(dev, "kmeans", defs);
	ka = cmb_kernel(p, "kmeans_assign"), ku = cmb_kernel(p, "kmeans_update");
	gen_kmeans(pts, n, d, k, SEED_KMEANS);
	scale = fixed_scale(pts, n * d);
	for (i = 0; i < n; i++)
		minus1[i] = -1;
	m = (Km){ .pts = pts, .minus1 = minus1, .n = n, .d = d, .k = k, .conv = (int)c->p[3] };
	if (ku && (bp = cmb_buffer(dev, sizeof(float) * n * d, pts)) &&
	    (m.cent = cmb_buffer(dev, sizeof(float) * k * d, pts)) &&
	    (m.member = cmb_buffer(dev, sizeof(int) * n, minus1)) &&
	    (m.result = cmb_buffer(dev, 16, NULL)) &&
	    (part = cmb_buffer(dev, sizeof(float) * groups * slot, NULL)) &&
	    !cmb_arg_buf(ka, 0, bp) && !cmb_arg_buf(ka, 1, m.cent) &&
	    !cmb_arg_buf(ka, 2, m.member) && !cmb_arg_buf(ka, 3, part) &&
	    !cmb_arg(ka, 4, 4, &un) && !cmb_arg(ka, 5, 4, &scale) && !cmb_arg_buf(ku, 0, part) &&
	    !cmb_arg_buf(ku, 1, m.cent) && !cmb_arg_buf(ku, 2, m.result) &&
	    !cmb_arg(ku, 3, 4, &ug) &&
	    !cmb_check(cmetal_task_create(dev, &m.task), "task") &&
	    !cmb_add_1d(m.task, ka, threads, GROUP) &&
	    !cmb_check(cmetal_task_add_sync(m.task), "sync") &&
	    !cmb_add_1d(m.task, ku, un_k, 8) && km_run(&m) >= 0 &&
	    !cmb_check(cmetal_buffer_read(m.cent, 0, sizeof(float) * k * d, got_c), "buffer read") &&
	    !cmb_check(cmetal_buffer_read(m.member, 0, sizeof(int) * n, got_m), "buffer read")) {
		memcpy(want_c, pts, sizeof(float) * k * d);
		memcpy(want_m, minus1, sizeof(int) * n);
		do
			ref_iters++;
		while (ref_kmeans_step(pts, n, d, k, want_c, want_m) && m.conv && ref_iters < 100);
		err = check_kmeans(pts, n, d, k, got_c, got_m, want_c, want_m);
		for (r = 0; r < reps && ms != -2; r++)
			if ((t[r] = km_run(&m)) < 0)
				ms = -2;
			else
				cpu[r] = m.cpu;
		if (ms != -2)
			ms = median(t, reps), cmb_cpu(median(cpu, reps));
		if (m.conv)
			printf("# kmeans %s: %ld iterations (reference %ld)\n", c->size, m.iters, ref_iters);
	}
	if (cmb_error())
		cmb_fail_as(c, device, impl, cmb_error());
	else
		cmb_row_as(c, device, impl, ms, work * m.iters, unit, err);
	if (m.task)
		cmetal_task_release(m.task);
	if (bp)
		cmetal_buffer_release(bp);
	if (part)
		cmetal_buffer_release(part);
	if (m.cent)
		cmetal_buffer_release(m.cent);
	if (m.member)
		cmetal_buffer_release(m.member);
	if (m.result)
		cmetal_buffer_release(m.result);
	if (ka)
		cmetal_kernel_release(ka);
	if (ku)
		cmetal_kernel_release(ku);
	if (p)
		cmetal_program_release(p);
	free(pts), free(want_m), free(got_m), free(minus1);
}

void cm_bench_kmeans(cmetal_device *dev, const BenchCase *c, const char *device)
{
	km_row(dev, c, device, "cm", 1);
	km_row(dev, c, device, "cm-paper", 0);
}
