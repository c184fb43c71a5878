/* scan.c — host side of scan.cm (scan-i32 and scan-f32): the input in a
 * buffer (rotated copies when small, restored untimed before each run since
 * the scan is in place), one task of reduce, carry and apply launches, the
 * result checked bit for bit (int32) or with check_scan_f32. */
#include <stdlib.h>
#include <string.h>

#include "cmbench.h"

enum { CHUNK = 8192 };	/* elements per thread; as in scan.cm */

typedef struct {
	cmetal_buffer **buf;
	const char *in;
	size_t bytes;
} Restore;

static int restore(void *ctx, int rot)
{
	Restore *r = ctx;
	return cmb_check(cmetal_buffer_write(r->buf[rot], 0, r->bytes,
					     r->in + r->bytes * rot), "buffer write");
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

void cm_bench_scan(cmetal_device *dev, const BenchCase *c, const char *device)
{
	size_t n = (size_t)1 << c->p[0], bytes = n * 4;
	int fp = (int)c->p[1], nrot = bench_nrot(bytes), i;
	uint32_t chunks = (uint32_t)((n + CHUNK - 1) / CHUNK), un = (uint32_t)n;
	char *in = xmalloc(bytes * nrot), *got = xmalloc(bytes), *want = xmalloc(bytes);
	cmetal_buffer *buf[8] = { 0 }, *sums;
	cmetal_task *task[8] = { 0 };
	cmetal_program *p = cmb_build(dev, "scan", fp ? "-DT=float" : "-DT=uint");
	cmetal_kernel *kr = cmb_kernel(p, "scan_reduce"), *kc = cmb_kernel(p, "scan_carry");
	cmetal_kernel *ka = cmb_kernel(p, "scan_apply");
	Restore r = { buf, in, bytes };
	const char *unit, *err = NULL;
	double ms = -1, work = case_work(c, &unit);

	for (i = 0; i < nrot; i++)
		(fp ? (void (*)(void *, size_t, uint64_t))gen_f32
		    : (void (*)(void *, size_t, uint64_t))gen_i32)(in + bytes * i, n, SEED_SCAN + i);
	sums = ka ? cmb_buffer(dev, ((size_t)chunks + 31) / 32 * 128, NULL) : NULL;
	for (i = 0; sums && i < nrot; i++)
		if (!(buf[i] = cmb_buffer(dev, bytes, in + bytes * i)) ||
		    cmb_check(cmetal_task_create(dev, &task[i]), "task") ||
		    add(task[i], kr, buf[i], sums, un, chunks, chunks) ||
		    add(task[i], kc, sums, NULL, un, chunks, 1) ||
		    add(task[i], ka, buf[i], sums, un, chunks, chunks))
			break;
	if (!cmb_error() && cmb_run(task[0]) >= 0 &&
	    !cmb_check(cmetal_buffer_read(buf[0], 0, bytes, got), "buffer read")) {
		if (fp) {
			err = check_scan_f32((float *)in, (float *)got, n);
		} else {
			ref_scan_i32((int32_t *)in, (int32_t *)want, n);
			err = check_bytes(got, want, bytes);
		}
		ms = cmb_time(task, nrot, restore, &r);
	}
	if (cmb_error())
		cmb_fail(c, device, cmb_error());
	else
		cmb_row(c, device, ms, work, unit, err);
	for (i = 0; i < nrot; i++) {
		if (task[i])
			cmetal_task_release(task[i]);
		if (buf[i])
			cmetal_buffer_release(buf[i]);
	}
	if (sums)
		cmetal_buffer_release(sums);
	if (kr)
		cmetal_kernel_release(kr);
	if (kc)
		cmetal_kernel_release(kc);
	if (ka)
		cmetal_kernel_release(ka);
	if (p)
		cmetal_program_release(p);
	free(in), free(got), free(want);
}
