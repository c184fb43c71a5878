/* gemm.c — host side of gemm.cm (sgemm and dgemm): A, B and C in buffers,
 * one launch per variant, C restored (untimed) before each run, checked
 * with check_sgemm / check_dgemm (sampled).  The variants:
 *   sgemm        "cm": the SLM-staged kernel, groups of 8 threads, each
 *                group a 128 x 128 tile of C
 *   sgemm_paper  "cm-paper": the paper's Rx128 register blocks
 *   dgemm        "cm": the paper's register blocks (R = 8)
 *                These two use no SLM or barrier, so the runtime groups
 *                their threads (threads {0, 0, 0}): on an H200 it runs one
 *                CM thread a CTA, and dgemm took 9.84 / 78.1 ms at 4096^3 /
 *                8192^3 against 11.64 / 95.4 in the 4x4 groups they had,
 *                sgemm_paper 4.96 / 37.5 against 5.30 / 42.2 (2026-11-27)
 *   dgemm_dpas   "cm-dpas": hgemm.cm's 32 x 32 blocks of 8 x 8 tiles on
 *                the FP64 cm_dpas (DMMA on NVIDIA), C += A B (checked
 *                with alpha = beta = 1); A, B and C as 2D surfaces over
 *                the buffers (media reads and writes)
 *   dgemm_slm    "cm-slm": dgemm_dpas's work with each group's tiles
 *                staged in SLM (groups of 4 x 4 threads, hgemm.cm's DSG)
 *   dgemm_async  "cm-async": dgemm_slm's work with the tiles staged by
 *                cm_slm_copy_async, A and B as buffers (C a 2D surface)
 *   dgemm_async64 "cm-async64": the same with 64 x 32 of C a thread, in
 *                groups of 4 x 2 threads
 *   hgemm        "cm" (workload hgemm): hgemm.cm, C += A B with fp16 A, B
 *                and fp32 C (cm_dpas HF), checked by check_hgemm
 *   hgemm_bt     "cm-bt": the same with B given transposed (the host
 *                transposes it before timing) and A, B^T and C as 2D
 *                surfaces over the buffers, 32 x 32 of C per thread
 *   hgemm_slm    "cm-slm": hgemm_bt's work with each group's tiles staged
 *                in SLM (groups of 4 x 4 threads, n a multiple of 128)
 *   hgemm_slm64  "cm-slm64": hgemm_slm with 64 x 64 of C per thread, in
 *                groups of 4 x 2 threads (hgemm.cm's GX x GY: 256 x 128
 *                of C, n a multiple of 256)
 *   hgemm_wg     "cm-wg": hgemm_slm64's product on cm_wgmma (hgemm_wg.cm:
 *                sm_90 GPUs and the CPU), groups of 1 x 8 threads, 128 x
 *                128 of C, 16 x 128 a thread
 *   hgemm_wga    "cm-wga": hgemm_wg with its tiles staged by
 *                cm_slm_copy_async in a ring of stages, A and B^T as
 *                buffers (C a 2D surface)
 *   hgemm_wga2   "cm-wga2": hgemm_wga with 128 x 256 of C a group
 *   hgemm_wgp    "cm-wgp", hgemm_wgp2 "cm-wgp2": hgemm_wga and hgemm_wga2
 *                with a producer warpgroup: groups of 1 x 12 threads, 8
 *                multiply and 4 copy
 *   hgemm_wgs2   "cm-wgs2": hgemm_wgp2 with cm_wgmma's 128-byte swizzle */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmbench.h"

typedef struct {
	const char *kernel, *impl;
	int tx, ty;		/* threads per group; 0, 0: the runtime's choice
				 * (threads {0, 0, 0}: rows of its auto_group) */
	int cols, rows;		/* C per thread */
	const char *prog;	/* cm/PROG.cm */
	int plain;		/* C += A B, no alpha, beta arguments; with
				 * tx = ty = 1 a walker launch (get_thread_origin) */
	int surf;		/* 1: A, B, C bound as 2D surfaces over the buffers;
				 * 2: C only (A and B as buffers) */
	int bt;			/* B given transposed (B^T, row-major) */
	int grows;		/* C rows a group of ty rows of threads when not
				 * rows x ty (0) */
} Variant;

static const Variant sgemm_variants[] = {
	{ "sgemm", "cm", 8, 1, 16, 128, "gemm", 0, 0, 0, 0 },	/* a group: 128 x 128 of C */
	{ "sgemm_paper", "cm-paper", 0, 0, 128, 16, "gemm", 0, 0, 0, 0 },	/* no SLM */
};
static const Variant dgemm_variants[] = {
	{ "dgemm", "cm", 0, 0, 128, 8, "gemm", 0, 0, 0, 0 },	/* no SLM: regroupable */
	{ "dgemm_dpas", "cm-dpas", 4, 4, 32, 32, "hgemm", 1, 1, 0, 0 },	/* 128 x 128 a group */
	{ "dgemm_slm", "cm-slm", 4, 4, 32, 32, "hgemm", 1, 1, 0, 0 },	/* the same, staged in SLM */
	{ "dgemm_async", "cm-async", 4, 4, 32, 32, "hgemm", 1, 2, 0, 0 },	/* staged by copies */
	{ "dgemm_async64", "cm-async64", 4, 2, 32, 64, "hgemm", 1, 2, 0, 0 },	/* 64 x 32 a thread */
};
static const Variant hgemm_variants[] = {
	{ "hgemm", "cm", 1, 1, 8, 8, "hgemm", 1, 0, 0, 0 },
	{ "hgemm_bt", "cm-bt", 4, 4, 32, 32, "hgemm", 1, 1, 1, 0 },	/* 128 x 128 a group */
	{ "hgemm_slm", "cm-slm", 4, 4, 32, 32, "hgemm", 1, 1, 1, 0 },	/* the same, staged in SLM */
	{ "hgemm_slm64", "cm-slm64", 4, 2, 64, 64, "hgemm", 1, 1, 1, 0 },	/* 256 x 128 a group */
	{ "hgemm_wg", "cm-wg", 1, 8, 128, 16, "hgemm_wg", 1, 1, 1, 0 },	/* 128 x 128 a group */
	{ "hgemm_wga", "cm-wga", 1, 8, 128, 16, "hgemm_wg", 1, 2, 1, 0 },	/* 128 x 128 a group */
	{ "hgemm_wga2", "cm-wga2", 1, 8, 256, 16, "hgemm_wg", 1, 2, 1, 0 },	/* 128 x 256 a group */
	{ "hgemm_wgp", "cm-wgp", 1, 12, 128, 16, "hgemm_wg", 1, 2, 1, 128 },	/* 128 x 128 a group */
	{ "hgemm_wgp2", "cm-wgp2", 1, 12, 256, 16, "hgemm_wg", 1, 2, 1, 128 },	/* 128 x 256 a group */
	{ "hgemm_wgs2", "cm-wgs2", 1, 12, 256, 16, "hgemm_wg", 1, 2, 1, 128 },	/* the same, swizzled */
};

typedef struct {
	cmetal_buffer *c;
	const void *c0;
	size_t bytes;
} Restore;

static int restore(void *ctx, int rot)
{
	Restore *r = ctx;
	return cmb_check(cmetal_buffer_write(r->c, 0, r->bytes, r->c0), "buffer write");
}

/* The inputs of one case, shared by its variants. */
typedef struct {
	int n, dbl, hlf;	/* double; fp16 A and B (C float) */
	size_t es, bytes;	/* C's element and buffer size */
	size_t abytes;		/* A's and B's buffer size */
	char *bt;		/* B^T (hgemm only) */
	char *a, *b, *c0, *got;
} Inputs;

/* Binds buffer b (rows of n elements of es bytes) to argument i, as a 2D
 * surface over it when surf: pixels of 4 bytes (halves too: the hgemm
 * kernels read them as uint words), of 16 for doubles (no format has 8).
 * The pixels must be at least as wide as the elements the kernel reads,
 * or the CUDA device launches its entry for narrow pixels, which clamps
 * each byte at the edges (docs/builtins.md §6.1): dgemm_slm 4.60 -> 4.96
 * ms on an H200, and dgemm_dpas past its CTA's registers. */
static int arg_matrix(cmetal_device *dev, cmetal_kernel *k, uint32_t i, cmetal_buffer *b,
		      int n, size_t es, int surf, cmetal_surface2d **s)
{
	uint64_t addr;
	size_t bpp = es == 8 ? 16 : 4;
	if (!surf)
		return cmb_arg_buf(k, i, b);
	if (cmb_check(cmetal_buffer_address(b, &addr), "buffer address") ||
	    cmb_check(cmetal_surface2d_wrap(dev, addr, (uint32_t)(n * es / bpp), (uint32_t)n,
					    (uint32_t)(n * es),
					    bpp == 16 ? CMETAL_FMT_R32G32B32A32F : CMETAL_FMT_R32_UINT,
					    s),
		      "surface wrap"))
		return 1;
	return cmb_check(cmetal_kernel_set_arg_surface2d(k, i, *s), "surface argument");
}

/* sgemm's group shape for A/B runs of gemm.cm's NW and RT (compiled
 * with the same -DNW=.. -DRT=.. -DRTSH=..): CMB_SGEMM_SHAPE=NW:RT, a
 * group of NW threads each owning RT rows x 128 columns of C. */
static const Variant *sgemm_shape(const Variant *v, Variant *o)
{
	const char *env = getenv("CMB_SGEMM_SHAPE");
	int nw, rt;
	if (strcmp(v->kernel, "sgemm") || !env || sscanf(env, "%d:%d", &nw, &rt) != 2 ||
	    nw < 1 || nw > 32 || 128 % nw || rt < 1 || rt > 128)
		return v;
	*o = *v;
	o->tx = nw, o->cols = 128 / nw, o->rows = nw * rt;
	return o;
}

/* dgemm_slm's group for A/B runs of hgemm.cm's DSG (compiled with the
 * same -DDSG=..): CMB_DGEMM_DSG=2 launches groups of 2 x 2 threads (1, 2
 * or 4; 4 x 4 by default). */
static const Variant *dgemm_shape(const Variant *v, Variant *o)
{
	const char *env = getenv("CMB_DGEMM_DSG");
	int dsg;
	if (strcmp(v->kernel, "dgemm_slm") || !env || sscanf(env, "%d", &dsg) != 1 ||
	    (dsg != 1 && dsg != 2 && dsg != 4))
		return v;
	*o = *v;
	o->tx = o->ty = dsg;
	return o;
}

/* v's threads for n x n, as groups or (v->plain, one thread a group) a
 * walker. */
static int add(cmetal_task *t, cmetal_kernel *k, const Variant *v0, int n)
{
	Variant shaped;
	const Variant *v = dgemm_shape(sgemm_shape(v0, &shaped), &shaped);
	if (v->plain && v->tx * v->ty == 1)
		return cmb_check(cmetal_task_add_walker(t, k, (uint32_t)(n / v->cols),
							(uint32_t)(n / v->rows), CMETAL_DEP_NONE),
				  "task entry");
	if (!v->tx && cmb_group < 0) {
		uint32_t space[3] = { (uint32_t)(n / v->cols), (uint32_t)(n / v->rows), 1 };
		uint32_t zero[3] = { 0 };
		return cmb_check(cmetal_task_add_groups(t, k, space, zero), "task entry");
	}
	if (!v->tx)	/* a sweep setting: cmb_add_2d regroups */
		return cmb_add_2d(t, k, n / v->cols, n / v->rows, 1, 1);
	return cmb_add_2d(t, k, n / v->cols, v->grows ? n / v->grows * v->ty : n / v->rows, v->tx,
			  v->ty);
}

/* Builds, checks and times variant v; prints its row. */
static void run_variant(cmetal_device *dev, const BenchCase *c, const char *device,
			const Variant *v, const Inputs *in)
{
	int n = in->n, dbl = in->dbl;
	float fa = 1.5f, fb = 0.5f;
	double da = 1.5, db = 0.5, ms = -1;
	cmetal_buffer *ba = NULL, *bb = NULL, *bc = NULL;
	cmetal_surface2d *sa = NULL, *sb = NULL, *sc = NULL;
	cmetal_task *task = NULL;
	cmetal_kernel *k = NULL;
	const char *unit, *err = NULL;
	double work = case_work(c, &unit);
	size_t bytes = in->bytes, abytes = in->abytes;
	Restore r;

	cmetal_program *p;
	uint64_t kind = 0;

	cmb_reset();
	if (v->plain)
		da = db = 1, fa = fb = 1;
	cmb_check(cmetal_device_info(dev, CMETAL_DEVICE_KIND, &kind), "device info");
	p = cmb_build(dev, v->prog, kind == 1 ? NULL : "-DCPU_SHAPE");
	k = p ? cmb_kernel(p, v->kernel) : NULL;
	if (k && (ba = cmb_buffer(dev, abytes, in->a)) && (bb = cmb_buffer(dev, abytes, v->bt ? in->bt : in->b)) &&
	    (bc = cmb_buffer(dev, bytes, in->c0)) &&
	    !arg_matrix(dev, k, 0, ba, n, abytes / ((size_t)n * n), v->surf == 1, &sa) &&
	    !arg_matrix(dev, k, 1, bb, n, abytes / ((size_t)n * n), v->surf == 1, &sb) &&
	    !arg_matrix(dev, k, 2, bc, n, in->es, v->surf, &sc) && !cmb_arg(k, 3, 4, &n) &&
	    (v->plain || (!cmb_arg(k, 4, in->es, dbl ? (void *)&da : (void *)&fa) &&
			  !cmb_arg(k, 5, in->es, dbl ? (void *)&db : (void *)&fb))) &&
	    !cmb_check(cmetal_task_create(dev, &task), "task") &&
	    !add(task, k, v, n) && cmb_run(task) >= 0 &&
	    !cmb_check(cmetal_buffer_read(bc, 0, bytes, in->got), "buffer read")) {
		if (in->hlf)
			err = check_hgemm(n, (uint16_t *)in->a, (uint16_t *)in->b,
					  (float *)in->c0, (float *)in->got);
		else if (dbl)
			err = check_dgemm(n, da, (double *)in->a, (double *)in->b, db,
					  (double *)in->c0, (double *)in->got);
		else
			err = check_sgemm(n, fa, (float *)in->a, (float *)in->b, fb,
					  (float *)in->c0, (float *)in->got);
		r = (Restore){ bc, in->c0, bytes };
		ms = cmb_time(&task, 1, restore, &r);
	}
	if (cmb_error())
		cmb_fail(c, device, cmb_error());
	else
		cmb_row_as(c, device, v->impl, ms, work, unit, err);
	if (task)
		cmetal_task_release(task);
	if (sa)
		cmetal_surface2d_release(sa);
	if (sb)
		cmetal_surface2d_release(sb);
	if (sc)
		cmetal_surface2d_release(sc);
	if (ba)
		cmetal_buffer_release(ba);
	if (bb)
		cmetal_buffer_release(bb);
	if (bc)
		cmetal_buffer_release(bc);
	if (k)
		cmetal_kernel_release(k);
	if (p)
		cmetal_program_release(p);
}

void cm_bench_gemm(cmetal_device *dev, const BenchCase *c, const char *device)
{
	Inputs in = { .n = (int)c->p[0], .dbl = c->p[1] == 64, .hlf = c->p[1] == 16 };
	const Variant *vs = in.hlf ? hgemm_variants : in.dbl ? dgemm_variants : sgemm_variants;
	int nv = in.hlf ? (int)(sizeof hgemm_variants / sizeof *vs)
		: in.dbl ? (int)(sizeof dgemm_variants / sizeof *vs)
			 : (int)(sizeof sgemm_variants / sizeof *vs);
	size_t nn = (size_t)in.n * in.n;

	if (in.n % 128) {
		cmb_fail(c, device, "gemm.cm needs n to be a multiple of 128");
		return;
	}
	in.es = in.dbl ? 8 : 4, in.bytes = nn * in.es;
	in.abytes = in.hlf ? nn * 2 : in.bytes;
	in.a = xmalloc(in.abytes), in.b = xmalloc(in.abytes), in.bt = NULL;
	in.c0 = xmalloc(in.bytes), in.got = xmalloc(in.bytes);
	if (in.hlf) {
		gen_f16((uint16_t *)in.a, nn, SEED_GEMM_A), gen_f16((uint16_t *)in.b, nn, SEED_GEMM_B);
		gen_f32((float *)in.c0, nn, SEED_GEMM_C);
	} else if (in.dbl) {
		gen_f64((double *)in.a, nn, SEED_GEMM_A), gen_f64((double *)in.b, nn, SEED_GEMM_B);
		gen_f64((double *)in.c0, nn, SEED_GEMM_C);
	} else {
		gen_f32((float *)in.a, nn, SEED_GEMM_A), gen_f32((float *)in.b, nn, SEED_GEMM_B);
		gen_f32((float *)in.c0, nn, SEED_GEMM_C);
	}
	if (in.hlf) {	/* B^T for hgemm_bt */
		uint16_t *b = (uint16_t *)in.b, *bt = xmalloc(in.abytes);
		for (size_t k = 0; k < (size_t)in.n; k++)
			for (size_t j = 0; j < (size_t)in.n; j++)
				bt[j * (size_t)in.n + k] = b[k * (size_t)in.n + j];
		in.bt = (char *)bt;
	}
	for (int i = 0; i < nv; i++)
		if (cmb_impl_wanted(vs[i].impl))
			run_variant(dev, c, device, &vs[i], &in);
	free(in.a), free(in.b), free(in.bt), free(in.c0), free(in.got);
}
