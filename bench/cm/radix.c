/* radix.c — host side of radix.cm: the `cm-radix` row of workload bitonic
 * (the same keys as bitonic.c, so RESULTS.md shows the radix sort beside
 * the bitonic network and CUB's radix and merge sorts).  One task holds
 * the whole sort: radix_hist, radix_scan, then radix_pass for digits 0..3
 * ping-ponging between the key buffer and a second one (the sorted keys
 * end in the first), syncs between.  The keys are restored (untimed)
 * before each run; the result is compared with the input sorted on the host,
 * after two runs (the second checks that a sort leaves the state buffer
 * ready for the next: radix_scan zeroes counts and tile counters, the
 * passes' flag words are told apart by a tag).  At small sizes a tail of
 * n * 3/4 + 77 keys, which fills no tile, is sorted and checked too.
 *
 * Why radix_pass cannot deadlock on the CPU device either: a group with
 * barriers runs its threads as fibers on one pool worker, switching only
 * at barriers, and a worker runs one group at a time to its end.  The
 * tile number is taken by the group (thread 0, before the first barrier),
 * and a thread only spins on flag words of tiles with smaller numbers,
 * i.e. of groups that started before it on some worker and that never
 * wait on a later tile: no thread ever waits on its own group or on a
 * group that cannot run.  CMB_RADIX_ROWS=4, 8 or 16 sets the rows of 32
 * keys per thread (tuning; 16 by default); CMB_RADIX_HIST=T caps radix_hist
 * at T threads (tuning; 4096 by default). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmbench.h"

enum {
	WG = 8,			/* threads per tile; as in radix.cm */
	ROWS = 16,		/* rows of 32 keys per thread; as in radix.cm */
	S_FLAGS = 32 + 2048,	/* dwords before the flag words; as in radix.cm */
	HIST_THREADS = 4096	/* radix_hist threads at most (one chunk each); CMB_RADIX_HIST */
};

typedef struct {
	cmetal_device *dev;
	cmetal_kernel *hist, *scan, *pass;
	cmetal_buffer *a, *b;	/* keys (padded to whole tiles), scratch */
	uint32_t *in;		/* the input, padded with zeros */
	size_t n;		/* keys in the buffers (the restore size) */
} Radix;

static int restore(void *ctx, int rot)
{
	Radix *r = ctx;
	return cmb_check(cmetal_buffer_write(r->a, 0, r->n * 4, r->in), "buffer write");
}

/* Keys per tile, WG x rows x 32: rows is ROWS, or CMB_RADIX_ROWS (4, 8
 * or 16, for tuning; passed to radix.cm as -DROWS). */
static int rows = ROWS;
#define TILE ((size_t)WG * rows * 32)

static void rows_from_env(void)
{
	const char *env = getenv("CMB_RADIX_ROWS");
	int v = env ? atoi(env) : 0;
	rows = ROWS;
	if (v == 4 || v == 8 || v == 16)
		rows = v;
	else if (env)
		fprintf(stderr, "# CMB_RADIX_ROWS=%s ignored (want 4, 8 or 16)\n", env);
}

/* radix_hist's threads at most: HIST_THREADS, or CMB_RADIX_HIST (tuning;
 * 16384 measured the same as 4096 at 2^26 keys, H200, 2026-11-28). */
static uint32_t hist_threads = HIST_THREADS;

static void hist_threads_from_env(void)
{
	const char *env = getenv("CMB_RADIX_HIST");
	int v = env ? atoi(env) : 0;
	hist_threads = HIST_THREADS;
	if (v >= 64 && v <= 65536)
		hist_threads = (uint32_t)v;
	else if (env)
		fprintf(stderr, "# CMB_RADIX_HIST=%s ignored (want 64 .. 65536)\n", env);
}

static size_t tiles_of(size_t n) { return (n + TILE - 1) / TILE; }

/* The sort of the first m keys of r->a as one task; st: its state buffer. */
static cmetal_task *sort_task(Radix *r, uint32_t m, cmetal_buffer *st)
{
	uint32_t chunk = (uint32_t)((m + hist_threads - 1) / hist_threads + 31) / 32 * 32;
	uint32_t pass;
	cmetal_task *t = NULL;
	if (chunk < 2048)
		chunk = 2048;
	if (cmb_check(cmetal_task_create(r->dev, &t), "task") ||
	    cmb_arg_buf(r->hist, 0, r->a) || cmb_arg_buf(r->hist, 1, st) ||
	    cmb_arg(r->hist, 2, 4, &m) || cmb_arg(r->hist, 3, 4, &chunk) ||
	    cmb_add_1d(t, r->hist, (m + chunk - 1) / chunk, WG) ||
	    cmb_check(cmetal_task_add_sync(t), "sync") ||
	    cmb_arg_buf(r->scan, 0, st) || cmb_add_1d(t, r->scan, 4, 1) ||
	    cmb_check(cmetal_task_add_sync(t), "sync"))
		return t;
	for (pass = 0; pass < 4; pass++)
		if (cmb_arg_buf(r->pass, 0, pass & 1 ? r->b : r->a) ||
		    cmb_arg_buf(r->pass, 1, pass & 1 ? r->a : r->b) ||
		    cmb_arg_buf(r->pass, 2, st) || cmb_arg(r->pass, 3, 4, &m) ||
		    cmb_arg(r->pass, 4, 4, &pass) ||
		    cmb_add_1d(t, r->pass, (long)tiles_of(m) * WG, WG) ||
		    cmb_check(cmetal_task_add_sync(t), "sync"))
			break;
	return t;
}

/* Sorts a[0 .. m) on the host, the reference: an LSD radix sort, 8 bits a
 * pass (at 2^26 keys on the 2-vCPU guest: qsort 15 s, this 1.8 s). */
static void host_sort(uint32_t *a, size_t m)
{
	uint32_t *tmp = xmalloc(m * 4), *from = a, *to = tmp, *swap;
	for (int shift = 0; shift < 32; shift += 8) {
		size_t at[257] = { 0 };
		for (size_t i = 0; i < m; i++)
			at[(from[i] >> shift & 255) + 1]++;
		for (int d = 0; d < 256; d++)
			at[d + 1] += at[d];
		for (size_t i = 0; i < m; i++)
			to[at[from[i] >> shift & 255]++] = from[i];
		swap = from, from = to, to = swap;
	}
	free(tmp);	/* 4 passes: the keys end in a */
}

/* Restores the first m keys, runs t twice and compares the first m keys
 * of r->a with the input sorted by host_sort after each run; NULL if equal. */
static const char *check(Radix *r, cmetal_task *t, size_t m)
{
	uint32_t *got = xmalloc(m * 4), *want = xmalloc(m * 4);
	const char *err = NULL;
	memcpy(want, r->in, m * 4);
	host_sort(want, m);
	for (int k = 0; k < 2 && !err; k++) {
		if (cmb_check(cmetal_buffer_write(r->a, 0, m * 4, r->in), "buffer write") ||
		    cmb_run(t) < 0 ||
		    cmb_check(cmetal_buffer_read(r->a, 0, m * 4, got), "buffer read"))
			break;
		err = check_bytes(got, want, m * 4);
	}
	free(got), free(want);
	return err;
}

/* The sort of the first m keys, checked (small sizes only). */
static const char *check_tail(Radix *r, size_t m)
{
	cmetal_buffer *st = cmb_buffer(r->dev, (S_FLAGS + tiles_of(m) * 256) * 4, NULL);
	cmetal_task *t = st ? sort_task(r, (uint32_t)m, st) : NULL;
	const char *err = cmb_error() ? NULL : check(r, t, m);
	if (t)
		cmetal_task_release(t);
	if (st)
		cmetal_buffer_release(st);
	return err;
}

static void run(Radix *r, const BenchCase *c, const char *device)
{
	size_t padded = tiles_of(r->n) * TILE;
	cmetal_buffer *st = NULL;
	cmetal_task *t = NULL;
	const char *unit, *err = NULL;
	double ms = -1, work = case_work(c, &unit);
	if ((r->a = cmb_buffer(r->dev, padded * 4, r->in)) &&
	    (r->b = cmb_buffer(r->dev, padded * 4, NULL)) &&
	    (st = cmb_buffer(r->dev, (S_FLAGS + tiles_of(r->n) * 256) * 4, NULL)))
		t = sort_task(r, (uint32_t)r->n, st);
	if (!cmb_error())
		err = check(r, t, r->n);
	if (!cmb_error() && !err && !c->full)
		err = check_tail(r, r->n * 3 / 4 + 77);
	if (!cmb_error() && !err)
		ms = cmb_time(&t, 1, restore, r);
	if (cmb_error())
		cmb_fail(c, device, cmb_error());
	else
		cmb_row_as(c, device, "cm-radix", ms, work, unit, err);
	if (t)
		cmetal_task_release(t);
	if (st)
		cmetal_buffer_release(st);
}

void cm_bench_radix(cmetal_device *dev, const BenchCase *c, const char *device)
{
	Radix r = { .dev = dev, .n = (size_t)1 << c->p[0] };
	cmetal_program *p;
	char defs[64];
	if (r.n >= (size_t)1 << 28) {	/* counts are 28-bit fields of the flag words */
		cmb_fail(c, device, "cm-radix sorts fewer than 2^28 keys");
		return;
	}
	rows_from_env();
	hist_threads_from_env();
	/* -fexact-loop-depths: radix_pass's loop-free tile code is no loop's
	 * (48 registers, 5 groups an SM, not 56 and 4; radix.cm's header) */
	snprintf(defs, sizeof defs, "-DROWS=%d -fexact-loop-depths", rows);
	p = cmb_build(dev, "radix", defs);
	r.in = xmalloc(tiles_of(r.n) * TILE * 4);
	memset(r.in, 0, tiles_of(r.n) * TILE * 4);
	gen_u32(r.in, r.n, SEED_SORT);
	r.hist = cmb_kernel(p, "radix_hist");
	r.scan = cmb_kernel(p, "radix_scan");
	r.pass = cmb_kernel(p, "radix_pass");
	if (r.pass)
		run(&r, c, device);
	else
		cmb_fail(c, device, cmb_error());
	if (r.a)
		cmetal_buffer_release(r.a);
	if (r.b)
		cmetal_buffer_release(r.b);
	if (r.hist)
		cmetal_kernel_release(r.hist);
	if (r.scan)
		cmetal_kernel_release(r.scan);
	if (r.pass)
		cmetal_kernel_release(r.pass);
	if (p)
		cmetal_program_release(p);
	free(r.in);
}
