/* linear.c — host side of linear.cm: the RGB8 image as a 2D surface of
 * bytes (R8_UINT, or RGBA8 pixels holding 4 bytes each when a row of bytes
 * is wider than the 16384-pixel surface limit), one launch: on a GPU of
 * 40x8-pixel SWAR tiles (linear.cm -DSWAR=1) in groups of 2x2 threads, on
 * the CPU of 16x8-pixel tiles in groups of 8x4 (CMB_LINEAR_SWAR=0 or 1
 * picks the tiles, CMB_LINEAR_GROUP=X:Y the group, for tuning), checked
 * bit for bit against ref_linear.  CMB_LINEAR_SIZE=
 * WxH replaces the case's size (odd sizes for testing the edges). */
#include <stdio.h>
#include <stdlib.h>

#include "cmbench.h"

static cmetal_surface2d *image(cmetal_device *dev, int w, int h,
			       const uint8_t *init)
{
	cmetal_surface2d *s = NULL;
	int rgba = 3 * w > 16384;
	if (rgba && (3 * w) % 4) {
		cmb_check(CM_UNSUPPORTED, "row of bytes too wide for a 2D surface");
		return NULL;
	}
	if (cmb_check(cmetal_surface2d_create(dev, rgba ? 3 * w / 4 : 3 * w, h,
					      rgba ? CMETAL_FMT_R8G8B8A8 : CMETAL_FMT_R8_UINT,
					      &s), "surface"))
		return NULL;
	if (init && cmb_check(cmetal_surface2d_write(s, init, 0), "surface write"))
		return NULL;
	return s;
}

/* The group shape: 8x4 threads (2x2 with SWAR tiles), or
 * CMB_LINEAR_GROUP's. */
static void group_shape(int g[2], int swar)
{
	const char *env = getenv("CMB_LINEAR_GROUP");
	int x = swar ? 2 : 8, y = swar ? 2 : 4;
	g[0] = x, g[1] = y;
	if (env && (sscanf(env, "%d:%d", &g[0], &g[1]) != 2 || g[0] < 1 || g[1] < 1 ||
		    g[0] * g[1] > 1024)) {
		fprintf(stderr, "# CMB_LINEAR_GROUP=%s ignored (want X:Y, at most 1024 threads)\n",
			env);
		g[0] = x, g[1] = y;
	}
}

/* Whether linear.cm runs its SWAR tiles (-DSWAR=1): on a GPU unless
 * CMB_LINEAR_SWAR=0, on the CPU when CMB_LINEAR_SWAR=1. */
static int use_swar(cmetal_device *dev)
{
	uint64_t kind = 0;
	const char *env = getenv("CMB_LINEAR_SWAR");
	if (env)
		return atoi(env) != 0;
	cmb_check(cmetal_device_info(dev, CMETAL_DEVICE_KIND, &kind), "device info");
	return kind == 1;
}

/* Output rows a thread (linear.cm's ROWS): 8, or CMB_LINEAR_ROWS's (for
 * a build with the same -DROWS=.. in CMBENCH_OPTS). */
static int tile_rows(void)
{
	const char *env = getenv("CMB_LINEAR_ROWS");
	int r = env ? atoi(env) : 8;
	return r == 8 || r == 16 ? r : 8;
}

void cm_bench_linear(cmetal_device *dev, const BenchCase *c, const char *device)
{
	int w = (int)c->p[0], h = (int)c->p[1], i, rows = tile_rows();
	const char *size = getenv("CMB_LINEAR_SIZE");
	if (size && (sscanf(size, "%dx%d", &w, &h) != 2 || w < 1 || h < 1))
		w = (int)c->p[0], h = (int)c->p[1];
	int swar = use_swar(dev);	/* -DSWAR=1: 120-byte tiles */
	int tiles[2] = { swar ? (3 * w + 119) / 120 : (w + 15) / 16, (h + rows - 1) / rows }, g[2];
	size_t bytes = (size_t)w * h * 3;
	int nrot = bench_nrot(bytes);
	uint8_t *in = xmalloc(bytes * nrot), *got = xmalloc(bytes), *want = xmalloc(bytes);
	cmetal_surface2d *src[8] = { 0 }, *dst;
	cmetal_task *task[8] = { 0 };
	cmetal_program *p = cmb_build(dev, "linear", swar ? "-DSWAR=1" : NULL);
	cmetal_kernel *k = cmb_kernel(p, "linear");
	const char *unit, *err = NULL;
	double ms = -1, work = case_work(c, &unit);

	group_shape(g, swar);
	for (i = 0; i < nrot; i++)
		gen_u8(in + bytes * i, bytes, SEED_LINEAR + i);
	dst = k ? image(dev, w, h, NULL) : NULL;
	for (i = 0; dst && i < nrot; i++)
		if (!(src[i] = image(dev, w, h, in + bytes * i)) ||
		    cmb_check(cmetal_kernel_set_arg_surface2d(k, 0, src[i]), "argument") ||
		    cmb_check(cmetal_kernel_set_arg_surface2d(k, 1, dst), "argument") ||
		    cmb_arg(k, 2, sizeof w, &w) || cmb_arg(k, 3, 4, &tiles[0]) ||
		    cmb_arg(k, 4, 4, &tiles[1]) ||
		    cmb_check(cmetal_task_create(dev, &task[i]), "task") ||
		    cmb_add_2d(task[i], k, tiles[0], tiles[1], g[0], g[1]))
			break;
	if (!cmb_error() && cmb_run(task[0]) >= 0 &&
	    !cmb_check(cmetal_surface2d_read(dst, got, 0), "surface read")) {
		ref_linear(in, want, w, h);
		err = check_bytes(got, want, bytes);
		ms = cmb_time(task, nrot, NULL, NULL);
	}
	if (cmb_error())
		cmb_fail(c, device, cmb_error());
	else
		cmb_row(c, device, ms, work, unit, err);
	for (i = 0; i < nrot; i++) {
		if (task[i])
			cmetal_task_release(task[i]);
		if (src[i])
			cmetal_surface2d_release(src[i]);
	}
	if (dst)
		cmetal_surface2d_release(dst);
	if (k)
		cmetal_kernel_release(k);
	if (p)
		cmetal_program_release(p);
	free(in), free(got), free(want);
}
