/* scan.c — host side of scan.cm (scan-i32 and scan-f32): the input in
 * buffers (rotated copies when small, restored untimed before each run
 * since the scan is in place), checked bit for bit (int32) or with
 * check_scan_f32.  Two rows per case:
 *   cm        one scan_tiles launch (single pass, decoupled look-back) per
 *             task, a group of SCAN_WARPS threads per tile; its state
 *             buffer starts zeroed and the kernel readies it for the next
 *             launch itself, so it is shared by every task and run;
 *   cm-cpu    (CPU device only) one scan_tiles_cpu launch per task: the
 *             CPU's shape of the one pass, a tile of CTILE elements per
 *             CM thread scanned by serial chains (scan.cm says why);
 *             state buffer as for cm;
 *   cm-paper  the paper's reduce, carry and apply launches in one task.
 * On the CPU device scan_tiles is safe too: its groups take tile numbers
 * in the order pool workers start them (one group at a time per worker,
 * whose fibers park only at the group's own barriers), and a group only
 * waits on tiles taken before its own.  CMB_SCAN_SHAPE=WARPS:PARTS
 * overrides scan_tiles' shape (for tuning). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmbench.h"

enum {
	CHUNK = 8192,		/* elements per thread of scan_apply; as in scan.cm */
	CTILE = 32768,		/* elements per tile of scan_tiles_cpu; as in scan.cm */
	S_FLAGS = 32		/* dwords before the per-tile state; as in scan.cm */
};

/* scan_tiles' shape, passed as -DWARPS and -DPARTS: threads per group and
 * tile, and parts of 512 elements per thread.  GPU: 8 x 2 (scan.cm says
 * why).  CPU: 1 x 4, tiles of 2048.  2^20 int32 on the 2 cores of the CI
 * machine, loaded: the GPU's shape 1.19-1.34 ms, this one 0.88-0.98 (a
 * standalone harness; 1.04-1.09 here), the 1024-element tiles of the
 * previous kernel 0.84-0.90 (0.84-0.86 here): the tile's sum is folded
 * before the scan for the GPU's look-back, and integer rows take a
 * reduction each; the CPU's own scan is the cm-cpu row. */
typedef struct {
	int warps, parts;
} TileShape;
static const TileShape gpu_shape = { 8, 2 }, cpu_shape = { 1, 4 };

/* The device's shape, or CMB_SCAN_SHAPE=WARPS:PARTS (for tuning; scan.cm
 * takes WARPS 1, 2, 4 or 8 and PARTS 2, 4 or 8). */
static TileShape shape_for(int gpu)
{
	const char *env = getenv("CMB_SCAN_SHAPE");
	TileShape s = gpu ? gpu_shape : cpu_shape, e;
	if (!env)
		return s;
	if (sscanf(env, "%d:%d", &e.warps, &e.parts) == 2 && e.warps >= 1 && e.warps <= 8 &&
	    !(e.warps & (e.warps - 1)) && (e.parts == 2 || e.parts == 4 || e.parts == 8))
		return e;
	fprintf(stderr, "# CMB_SCAN_SHAPE=%s ignored (want WARPS:PARTS, WARPS 1, 2, 4 or 8, "
		"PARTS 2, 4 or 8)\n", env);
	return s;
}

typedef struct {
	cmetal_device *dev;
	cmetal_program *p;
	cmetal_buffer *buf[8];
	char *in;
	size_t n, bytes;
	int fp, nrot;
	TileShape shape;	/* scan_tiles' on this device */
} Scan;

static int restore(void *ctx, int rot)
{
	Scan *s = ctx;
	return cmb_check(cmetal_buffer_write(s->buf[rot], 0, s->bytes,
					     s->in + s->bytes * rot), "buffer write");
}

/* Runs task[0] twice, checking buf[0] after each (the second run checks
 * that a launch leaves scan_tiles' state ready for the next), then times
 * the tasks; -1 on error. */
static double check_and_time(Scan *s, cmetal_task **task, const char **err)
{
	char *got = xmalloc(s->bytes), *want = xmalloc(s->bytes);
	double ms = -1;
	if (!s->fp)
		ref_scan_i32((int32_t *)s->in, (int32_t *)want, s->n);
	for (int k = 0; k < 2 && !*err; k++) {
		if (restore(s, 0) || cmb_run(task[0]) < 0 ||
		    cmb_check(cmetal_buffer_read(s->buf[0], 0, s->bytes, got), "buffer read"))
			break;
		*err = s->fp ? check_scan_f32((float *)s->in, (float *)got, s->n)
			     : check_bytes(got, want, s->bytes);
		if (k == 1)
			ms = cmb_time(task, s->nrot, restore, s);
	}
	free(got), free(want);
	return ms;
}

static void release_tasks(cmetal_task **task, int n)
{
	for (int i = 0; i < n; i++)
		if (task[i])
			cmetal_task_release(task[i]);
}

static int add(cmetal_task *t, cmetal_kernel *k, cmetal_buffer *a,
	       cmetal_buffer *b, uint32_t n, uint32_t chunks, long threads)
{
	if (b)
		return cmb_arg_buf(k, 0, a) || cmb_arg_buf(k, 1, b) ||
		       cmb_arg(k, 2, 4, &n) || cmb_arg(k, 3, 4, &chunks) ||
		       cmb_add_1d(t, k, threads, 8) ||
		       cmb_check(cmetal_task_add_sync(t), "sync");
	return cmb_arg_buf(k, 0, a) || cmb_arg(k, 1, 4, &chunks) ||
	       cmb_add_1d(t, k, 1, 1) || cmb_check(cmetal_task_add_sync(t), "sync");
}

/* Three launches, reduce, carry and apply: the paper's shape, row
 * cm-paper. */
static void passes(Scan *s, const BenchCase *c, const char *device, const char *apply,
		   const char *impl)
{
	uint32_t chunks = (uint32_t)((s->n + CHUNK - 1) / CHUNK), un = (uint32_t)s->n;
	cmetal_kernel *kr = cmb_kernel(s->p, "scan_reduce"), *kc = cmb_kernel(s->p, "scan_carry");
	cmetal_kernel *ka = cmb_kernel(s->p, apply);
	cmetal_buffer *sums = ka ? cmb_buffer(s->dev, ((size_t)chunks + 31) / 32 * 128, NULL) : NULL;
	cmetal_task *task[8] = { 0 };
	const char *unit, *err = NULL;
	double ms = -1, work = case_work(c, &unit);
	for (int i = 0; sums && i < s->nrot; i++)
		if (cmb_check(cmetal_task_create(s->dev, &task[i]), "task") ||
		    add(task[i], kr, s->buf[i], sums, un, chunks, chunks) ||
		    add(task[i], kc, sums, NULL, un, chunks, 1) ||
		    add(task[i], ka, s->buf[i], sums, un, chunks, chunks))
			break;
	if (!cmb_error())
		ms = check_and_time(s, task, &err);
	if (!cmb_error())
		cmb_row_as(c, device, impl, ms, work, unit, err);
	release_tasks(task, s->nrot);
	if (sums)
		cmetal_buffer_release(sums);
	if (kr)
		cmetal_kernel_release(kr);
	if (kc)
		cmetal_kernel_release(kc);
	if (ka)
		cmetal_kernel_release(ka);
}

/* One launch of the one-pass kernel per task, tiles of threads x tile
 * elements: scan_tiles (row cm) or scan_tiles_cpu (row cm-cpu). */
static void tiles(Scan *s, const BenchCase *c, const char *device, const char *kernel,
		  int threads, size_t tile, const char *impl)
{
	uint32_t ntiles = (uint32_t)((s->n + tile - 1) / tile);
	cmetal_kernel *k = cmb_kernel(s->p, kernel);
	cmetal_buffer *st = k ? cmb_buffer(s->dev, ((size_t)S_FLAGS + 4 * (size_t)ntiles) * 4,
					   NULL) : NULL;
	cmetal_task *task[8] = { 0 };
	const char *unit, *err = NULL;
	double ms = -1, work = case_work(c, &unit);
	for (int i = 0; st && i < s->nrot; i++)
		if (cmb_check(cmetal_task_create(s->dev, &task[i]), "task") ||
		    cmb_arg_buf(k, 0, s->buf[i]) || cmb_arg_buf(k, 1, st) ||
		    cmb_arg(k, 2, 4, &ntiles) ||
		    cmb_add_1d(task[i], k, (long)ntiles * threads, (uint32_t)threads))
			break;
	if (!cmb_error())
		ms = check_and_time(s, task, &err);
	if (!cmb_error())
		cmb_row_as(c, device, impl, ms, work, unit, err);
	release_tasks(task, s->nrot);
	if (st)
		cmetal_buffer_release(st);
	if (k)
		cmetal_kernel_release(k);
}

void cm_bench_scan(cmetal_device *dev, const BenchCase *c, const char *device)
{
	Scan s = { .dev = dev, .n = (size_t)1 << c->p[0], .fp = (int)c->p[1] };
	uint64_t kind = 0;
	char defs[64];
	int i;
	s.bytes = s.n * 4;
	s.nrot = bench_nrot(s.bytes);
	s.in = xmalloc(s.bytes * s.nrot);
	cmb_check(cmetal_device_info(dev, CMETAL_DEVICE_KIND, &kind), "device info");
	s.shape = shape_for(kind == 1);
	snprintf(defs, sizeof defs, "%s -DWARPS=%d -DPARTS=%d",
		 s.fp ? "-DT=float" : "-DT=uint -DT_INT", s.shape.warps, s.shape.parts);
	s.p = cmb_error() ? NULL : cmb_build(dev, "scan", defs);
	for (i = 0; i < s.nrot; i++)
		(s.fp ? (void (*)(void *, size_t, uint64_t))gen_f32
		      : (void (*)(void *, size_t, uint64_t))gen_i32)(s.in + s.bytes * i, s.n,
								     SEED_SCAN + i);
	for (i = 0; s.p && i < s.nrot; i++)
		if (!(s.buf[i] = cmb_buffer(dev, s.bytes, s.in + s.bytes * i)))
			break;
	if (!cmb_error() && kind != 1)
		tiles(&s, c, device, "scan_tiles_cpu", 1, CTILE, "cm-cpu");
	if (!cmb_error())
		tiles(&s, c, device, "scan_tiles", s.shape.warps,
		      (size_t)512 * s.shape.parts * s.shape.warps, "cm");
	if (cmb_error())
		cmb_fail(c, device, cmb_error());
	cmb_reset();
	if (s.p && !cmb_error())
		passes(&s, c, device, "scan_apply", "cm-paper");
	if (cmb_error())
		cmb_fail(c, device, cmb_error());
	for (i = 0; i < s.nrot; i++)
		if (s.buf[i])
			cmetal_buffer_release(s.buf[i]);
	if (s.p)
		cmetal_program_release(s.p);
	free(s.in);
}
