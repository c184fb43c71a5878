/* sweep.c — cmbench -g: the group size of every launch that leaves it to
 * the runtime's choice (issue 11: auto-mapped launches within 10% of the
 * best group size a sweep finds).
 *
 *   cmbench -g sweep [-w workloads] [-z sizes] -s full -d cuda
 *   cmbench -g auto | -g G ...      (one setting, rows as usual)
 *
 * For each selected case the workload's hook runs once per setting: the
 * runtime's choice (a group launch with threads {0, 0, 0}, "auto") and
 * every group of G = 1..32 CM threads in a row along x.  Auto runs first
 * and last; the ratio takes the last (the first warms the device up and
 * is printed as "auto0").  Only launches of
 * kernels that allow it are changed (no SLM, no barrier: common.c asks the
 * runtime, which refuses the automatic grouping for the others); launches
 * of one CM thread stay as they are.  The hook checks each setting's
 * result against the C reference before timing it (a wrong result is a
 * FAIL row, left out of the best) and times it as the bench does: the
 * median of bench_reps() event-timed runs after the checked one.  A case's
 * regrouped kernels all take the same G.
 *
 * Output: the CSV rows of every setting (impl "cm@auto", "cm@g8", ...) on
 * stdout; on stderr one line per (case, impl) whose launches were
 * regrouped: kernels, auto's group and time, the best G and time, the
 * ratio auto / best, then each G's time and occupancy (resident CTAs and
 * warps per SM of the first regrouped kernel).  $CMB_SWEEP_BUDGET seconds
 * (default 600) stops a sweep between settings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmbench.h"

#define NSET 33		/* auto, then G = 1..32 */
#define MAXROW 8

typedef struct {
	char impl[32];
	char kernels[128];
	double ms[NSET];	/* < 0: failed or not run */
	double first;		/* auto's first run (the warm-up) */
	uint32_t auto_g;
	uint32_t ctas[NSET], warps[NSET];
} Row;

static Row rows[MAXROW];
static int nrows, cur_set;

static Row *row_of(const char *impl)
{
	for (int i = 0; i < nrows; i++)
		if (!strcmp(rows[i].impl, impl))
			return &rows[i];
	if (nrows == MAXROW)
		return NULL;
	Row *r = &rows[nrows++];
	memset(r, 0, sizeof *r);
	snprintf(r->impl, sizeof r->impl, "%s", impl);
	for (int s = 0; s < NSET; s++)
		r->ms[s] = -1;
	return r;
}

/* common.c's cmb_row_as: the row of a setting. */
void cmb_sweep_row(const char *impl, double ms, int ok, const CmbRegroup *rg)
{
	Row *r;
	if (!rg->n || !(r = row_of(impl)))
		return;
	if (cur_set == 0 && r->ms[0] == -1 && r->first == 0)
		r->first = ok ? ms : -1;
	r->ms[cur_set] = ok ? ms : -1;
	if (!r->kernels[0])
		snprintf(r->kernels, sizeof r->kernels, "%s", rg->names);
	if (cur_set == 0)
		r->auto_g = rg->auto_g;
	r->ctas[cur_set] = rg->ctas;
	r->warps[cur_set] = rg->warps;
}

static void report(const BenchCase *c)
{
	for (int i = 0; i < nrows; i++) {
		Row *r = &rows[i];
		int best = -1;
		for (int s = 1; s < NSET; s++)
			if (r->ms[s] > 0 && (best < 0 || r->ms[s] < r->ms[best]))
				best = s;
		fprintf(stderr, "SWEEP %-9s %-13s %-9s %-28s auto %2u %9.4f ms  best %2d %9.4f ms"
			"  auto/best %6.3f\n", c->workload, c->size, r->impl, r->kernels, r->auto_g,
			r->ms[0], best, best > 0 ? r->ms[best] : -1.0,
			best > 0 && r->ms[0] > 0 ? r->ms[0] / r->ms[best] : -1.0);
		fprintf(stderr, "  G:ms(CTAs/SM,warps/SM)");
		for (int s = 0; s < NSET; s++) {
			if (s == 0)
				fprintf(stderr, " auto0:%.4f auto:%.4f(%u,%u)", r->first, r->ms[0],
					r->ctas[0], r->warps[0]);
			else
				fprintf(stderr, " %d:%.4f(%u,%u)", s, r->ms[s], r->ctas[s], r->warps[s]);
		}
		fprintf(stderr, "\n");
	}
}

void cmb_sweep_case(cmetal_device *dev, const BenchCase *c, const char *device,
		    void (*hook)(cmetal_device *, const BenchCase *, const char *))
{
	const char *env = getenv("CMB_SWEEP_BUDGET");
	static double start = -1;
	double budget = (env ? atof(env) : 600) * 1e3;
	if (start < 0)
		start = now_ms();
	nrows = 0;
	for (int step = 0; step <= NSET; step++) {
		cur_set = step % NSET;	/* 0 (auto), 1..32, 0 again */
		if (now_ms() - start > budget) {
			fprintf(stderr, "SWEEP %s %s: budget spent, settings from %d on not run\n",
				c->workload, c->size, step);
			break;
		}
		cmb_group = cur_set;	/* 0: auto */
		cmb_reset();
		hook(dev, c, device);
	}
	cmb_group = -1;
	report(c);
	fflush(stderr);
}
