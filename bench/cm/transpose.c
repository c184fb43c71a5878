/* transpose.c — host side of transpose.cm: n x n fp32 in buffers (rotated
 * input copies when small), one launch of a thread per tile, checked bit
 * for bit against ref_transpose.  Rows: cm (transpose, through SLM, tiles
 * of 16 rows of 32, groups of 4 x 4 threads: transpose.cm's ROWS and TPG;
 * CMB_TRANSPOSE_GROUP=X:Y[:ROWS] others, for tuning) and cm-paper
 * (transpose_paper, in registers, 32x32 tiles, groups of 8 x 4).  Small
 * cases (n <= 2048) also check both kernels once at n - 17 and n - 7, so
 * make test covers edge tiles of either half of a 16-row tile's out rows. */
#include <stdio.h>
#include <stdlib.h>

#include "cmbench.h"

typedef struct {
	const char *kernel, *impl;
	uint32_t tx, ty;	/* threads per group */
	uint32_t rows;		/* rows of a thread's tile (32 columns) */
} Variant;

static Variant variants[] = {
	{ "transpose", "cm", 4, 4, 16 },
	{ "transpose_paper", "cm-paper", 8, 4, 32 },
};

/* CMB_TRANSPOSE_GROUP=X:Y[:ROWS] sets transpose's group shape and tile
 * rows, 8, 16 or 32 (for tuning; the kernel is built with -DTPG=X*Y
 * -DROWS=ROWS); the options to build with. */
static const char *group_shape(char *opts, size_t size)
{
	const char *env = getenv("CMB_TRANSPOSE_GROUP");
	int x, y, rows = (int)variants[0].rows, got;
	if (!env)
		return NULL;
	got = sscanf(env, "%d:%d:%d", &x, &y, &rows);
	if (got < 2 || x < 1 || y < 1 || x * y > 32 || (rows != 8 && rows != 16 && rows != 32) ||
	    x * y * rows * 33 * 4 > 65536) {
		fprintf(stderr, "# CMB_TRANSPOSE_GROUP=%s ignored (want X:Y[:ROWS], ROWS 8, 16 "
			"or 32, at most 32 threads and 64 KB of SLM: X*Y*ROWS*132 bytes)\n",
			env);
		return NULL;
	}
	variants[0].tx = (uint32_t)x, variants[0].ty = (uint32_t)y;
	variants[0].rows = (uint32_t)rows;
	snprintf(opts, size, "-DTPG=%d -DROWS=%d", x * y, rows);
	return opts;
}

/* Runs v once at size n on in (nrot copies) and checks it; times it over
 * the copies when timed.  Returns the time, -1 when not timed or on error. */
static double run(cmetal_device *dev, cmetal_kernel *k, const Variant *v,
		  const float *in, int n, int nrot, int timed, const char **err)
{
	size_t nn = (size_t)n * n;
	uint32_t un = (uint32_t)n, xtiles = (uint32_t)(n + 31) / 32;
	uint32_t ytiles = ((uint32_t)n + v->rows - 1) / v->rows;
	float *got = xmalloc(nn * 4), *want = xmalloc(nn * 4);
	cmetal_buffer *src[8] = { 0 }, *dst = cmb_buffer(dev, nn * 4, NULL);
	cmetal_task *task[8] = { 0 };
	double ms = -1;
	int i;

	for (i = 0; dst && i < nrot; i++)
		if (!(src[i] = cmb_buffer(dev, nn * 4, in + nn * i)) ||
		    cmb_arg_buf(k, 0, src[i]) || cmb_arg_buf(k, 1, dst) ||
		    cmb_arg(k, 2, sizeof un, &un) ||
		    cmb_check(cmetal_task_create(dev, &task[i]), "task") ||
		    cmb_add_2d(task[i], k, xtiles, ytiles, v->tx, v->ty))
			break;
	if (!cmb_error() && cmb_run(task[0]) >= 0 &&
	    !cmb_check(cmetal_buffer_read(dst, 0, nn * 4, got), "buffer read")) {
		ref_transpose(in, want, n);
		*err = check_bytes(got, want, nn * 4);
		if (timed && !*err)
			ms = cmb_time(task, nrot, NULL, NULL);
	}
	for (i = 0; i < nrot; i++) {
		if (task[i])
			cmetal_task_release(task[i]);
		if (src[i])
			cmetal_buffer_release(src[i]);
	}
	if (dst)
		cmetal_buffer_release(dst);
	free(got), free(want);
	return ms;
}

void cm_bench_transpose(cmetal_device *dev, const BenchCase *c,
			const char *device)
{
	int n = (int)c->p[0], nrot, i, vi;
	size_t nn = (size_t)n * n;
	float *in;
	char opts[48];
	cmetal_program *p = cmb_build(dev, "transpose", group_shape(opts, sizeof opts));
	const char *unit;
	double work = case_work(c, &unit);

	nrot = bench_nrot(nn * 4);
	in = xmalloc(nn * 4 * nrot);
	for (i = 0; i < nrot; i++)
		gen_f32(in + nn * i, nn, SEED_TRANSPOSE + i);
	for (vi = 0; vi < 2; vi++) {
		const Variant *v = &variants[vi];
		cmetal_kernel *k = cmb_kernel(p, v->kernel);
		const char *err = NULL, *edge = NULL;
		double ms = k ? run(dev, k, v, in, n, nrot, 1, &err) : -1;
		/* the edge tiles, checked untimed (n a multiple of 32: last
		 * tiles of 15 and 25 columns, 15 and 9 rows) */
		if (k && !err && n <= 2048 && n > 17)
			run(dev, k, v, in, n - 17, 1, 0, &edge), err = edge;
		if (k && !err && n <= 2048 && n > 17)
			run(dev, k, v, in, n - 7, 1, 0, &edge), err = edge;
		if (cmb_error())
			cmb_fail(c, device, cmb_error());
		else
			cmb_row_as(c, device, v->impl, ms, work, unit, err);
		cmb_reset();
		if (k)
			cmetal_kernel_release(k);
	}
	if (p)
		cmetal_program_release(p);
	free(in);
}
