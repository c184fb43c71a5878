/* bitonic.c — host side of bitonic.cm: the keys in one buffer, one task
 * holding the whole network with syncs between launches, keys restored
 * (untimed) before each run, checked with check_sorted.  Rows:
 *   cm        bitonic_local, then per stage k > 256 its global steps fused
 *             up to FUSE_MAX a launch (bitonic_fusedR; the steps split as
 *             evenly as the launches allow, larger first) and one
 *             bitonic_merge_dir;
 *   cm-paper  the paper's network: bitonic_local, then per stage one
 *             bitonic_global launch per distance j >= 256 and one
 *             bitonic_merge.
 * $CMB_BITONIC_FUSE (1..FUSE_MAX) caps the steps per launch of row cm.
 * Small cases also check row cm untimed at 2^8 (bitonic_local alone), 2^9
 * and 2^13 keys with every cap, so make test covers each bitonic_fusedR and
 * stages whose steps the cap does not divide. */
#include <stdio.h>
#include <stdlib.h>

#include "cmbench.h"

enum { FUSE_MAX = 5 };	/* bitonic_fused1 .. bitonic_fused5 in bitonic.cm */

typedef struct {
	cmetal_kernel *local, *global, *merge;	/* cm-paper (local: both) */
	cmetal_kernel *merge_dir, *fused[FUSE_MAX + 1];	/* cm */
} Kernels;

typedef struct {
	cmetal_buffer *buf;
	const uint32_t *in;
	size_t bytes;
} Restore;

static int restore(void *ctx, int rot)
{
	Restore *r = ctx;
	return cmb_check(cmetal_buffer_write(r->buf, 0, r->bytes, r->in), "buffer write");
}

/* One launch of threads CM threads and a sync: kernel arguments (keys,
 * count, k, j), the first nargs of them; groups of tpg CM threads, or with
 * tpg 0 the runtime's (threads {0, 0, 0}: the smallest CTA with the most
 * resident warps, as bitonic_fused5's registers need: 14 warps an SM,
 * which groups of 8 would cut to 8).  A sweep setting (cmb_group) regroups
 * either. */
static int entry(cmetal_task *t, cmetal_kernel *k, cmetal_buffer *b, uint32_t count,
		 uint32_t kk, uint32_t j, int nargs, long threads, uint32_t tpg)
{
	uint32_t space[3] = { (uint32_t)threads, 1, 1 }, zero[3] = { 0 };
	if (cmb_arg_buf(k, 0, b) || cmb_arg(k, 1, 4, &count) ||
	    (nargs > 2 && cmb_arg(k, 2, 4, &kk)) || (nargs > 3 && cmb_arg(k, 3, 4, &j)))
		return -1;
	if (tpg || cmb_group >= 0) {
		if (cmb_add_1d(t, k, threads, tpg ? tpg : 1))
			return -1;
	} else if (cmb_check(cmetal_task_add_groups(t, k, space, zero), "task entry"))
		return -1;
	return cmb_check(cmetal_task_add_sync(t), "sync");
}

/* The network on 2^m keys: the paper's (fuse 0) or row cm's with at most
 * fuse global steps a launch.  Nonzero on error. */
static int network(cmetal_task *t, const Kernels *ks, cmetal_buffer *b, int m, int fuse)
{
	uint32_t n = (uint32_t)1 << m, blocks = n / 256, k, j;
	uint32_t tpg = fuse ? 0 : 8;	/* cm-paper: groups of 8, as it always ran */
	int s, g, p, i, r;
	if (entry(t, ks->local, b, blocks, 0, 0, 2, blocks, tpg))
		return -1;
	for (s = 9; s <= m; s++) {
		k = (uint32_t)1 << s, j = k / 2, g = s - 8;	/* g steps j >= 256 */
		if (!fuse) {
			for (; j >= 256; j /= 2)
				if (entry(t, ks->global, b, blocks, k, j, 4, blocks / 2, 8))
					return -1;
			if (entry(t, ks->merge, b, blocks, k, 0, 3, blocks, 8))
				return -1;
			continue;
		}
		for (p = (g + fuse - 1) / fuse, i = 0; i < p; i++, j >>= r) {
			r = g / p + (i < g % p);
			if (entry(t, ks->fused[r], b, n >> (5 + r), k, j, 4, n >> (5 + r), 0))
				return -1;
		}
		if (entry(t, ks->merge_dir, b, blocks, k, 0, 3, blocks, 0))
			return -1;
	}
	return 0;
}

/* Sorts 2^m keys of in once and checks them; then, when timed, times the
 * task (keys restored before each run).  The time, or -1 when not timed or
 * on error. */
static double sort(cmetal_device *dev, const Kernels *ks, const uint32_t *in, int m,
		   int fuse, int timed, const char **err)
{
	size_t n = (size_t)1 << m, bytes = n * 4;
	uint32_t *got = xmalloc(bytes);
	cmetal_buffer *buf = cmb_buffer(dev, bytes, in);
	cmetal_task *task = NULL;
	Restore r = { buf, in, bytes };
	double ms = -1;
	if (buf && !cmb_check(cmetal_task_create(dev, &task), "task") &&
	    !network(task, ks, buf, m, fuse) && cmb_run(task) >= 0 &&
	    !cmb_check(cmetal_buffer_read(buf, 0, bytes, got), "buffer read")) {
		*err = check_sorted(got, in, n);
		if (timed && !*err)
			ms = cmb_time(&task, 1, restore, &r);
	}
	if (task)
		cmetal_task_release(task);
	if (buf)
		cmetal_buffer_release(buf);
	free(got);
	return ms;
}

/* Row cm's extra checks of a small case: 2^8, 2^9 and 2^13 keys with every
 * cap on the fused steps.  The first failure, or NULL. */
static const char *check_shapes(cmetal_device *dev, const Kernels *ks, const uint32_t *in)
{
	static const int sizes[] = { 8, 9, 13 };
	static char msg[160];
	const char *err = NULL;
	for (int i = 0; i < 3; i++)
		for (int fuse = 1; fuse <= FUSE_MAX && !cmb_error(); fuse++) {
			sort(dev, ks, in, sizes[i], fuse, 0, &err);
			if (err) {
				snprintf(msg, sizeof msg, "2^%d keys, %d steps a launch: %s",
					 sizes[i], fuse, err);
				return msg;
			}
		}
	return NULL;
}

static void release(Kernels *ks)
{
	cmetal_kernel *all[] = { ks->local, ks->global, ks->merge, ks->merge_dir };
	for (int i = 0; i < 4; i++)
		if (all[i])
			cmetal_kernel_release(all[i]);
	for (int r = 1; r <= FUSE_MAX; r++)
		if (ks->fused[r])
			cmetal_kernel_release(ks->fused[r]);
}

void cm_bench_bitonic(cmetal_device *dev, const BenchCase *c, const char *device)
{
	int m = (int)c->p[0], fuse = FUSE_MAX, ok;
	size_t n = (size_t)1 << m;
	uint32_t *in = xmalloc(n * 4);
	cmetal_program *p = cmb_build(dev, "bitonic", NULL);
	Kernels ks = { 0 };
	const char *unit, *err = NULL, *env = getenv("CMB_BITONIC_FUSE");
	double ms, work = case_work(c, &unit);
	char name[32];

	if (env && atoi(env) >= 1 && atoi(env) <= FUSE_MAX)
		fuse = atoi(env);
	gen_u32(in, n, SEED_SORT);
	ks.local = cmb_kernel(p, "bitonic_local");
	ks.global = cmb_kernel(p, "bitonic_global");
	ks.merge = cmb_kernel(p, "bitonic_merge");
	ks.merge_dir = cmb_kernel(p, "bitonic_merge_dir");
	for (int r = 1; r <= FUSE_MAX; r++) {
		snprintf(name, sizeof name, "bitonic_fused%d", r);
		ks.fused[r] = cmb_kernel(p, name);
	}
	ok = !cmb_error();
	ms = ok ? sort(dev, &ks, in, m, fuse, 1, &err) : -1;
	if (ok && !err && !cmb_error() && m <= 16)
		err = check_shapes(dev, &ks, in);
	if (cmb_error())
		cmb_fail(c, device, cmb_error());
	else
		cmb_row(c, device, ms, work, unit, err);
	if (ok && !cmb_error()) {
		err = NULL;
		ms = sort(dev, &ks, in, m, 0, 1, &err);
		if (cmb_error())
			cmb_fail(c, device, cmb_error());
		else
			cmb_row_as(c, device, "cm-paper", ms, work, unit, err);
	}
	release(&ks);
	if (p)
		cmetal_program_release(p);
	free(in);
}
