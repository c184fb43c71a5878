/* histogram.c — host side of histogram.cm: the bytes in a buffer (rotated
 * copies when small), one launch of groups of 8 threads (they share the SLM
 * copies) each counting a chunk of bytes (a multiple of 512), the 256-bin
 * result zeroed (untimed) before each run and checked exactly against
 * ref_histogram.  The chunk depends on the device:
 *   GPU  max(4 KB, n / 16384): many small groups, so the last wave is short;
 *   CPU  max(4 KB, n / (32 x device threads)): 4 groups per OS thread.  A
 *        group zeroes and sums its 32 KB of SLM copies and adds 256 bins
 *        with global atomics whatever its chunk, so the GPU's 32 KB groups
 *        spent as long on that as on counting (random-16MB on 1 thread:
 *        9.4 ms with 4 KB chunks, 6.4 with 256 KB; plain C 3.7).
 * CMB_HIST_CHUNK=BYTES overrides the chunk (for tuning). */
#include <stdlib.h>
#include <string.h>

#include "cmbench.h"

typedef struct { cmetal_buffer *hist; } Zero;

static int zero_hist(void *ctx, int rot)
{
	static const uint32_t zeros[256];
	return cmb_check(cmetal_buffer_write(((Zero *)ctx)->hist, 0, sizeof zeros, zeros),
			 "buffer write");
}

void cm_bench_histogram(cmetal_device *dev, const BenchCase *c,
			const char *device)
{
	size_t n = (size_t)c->p[0];
	uint64_t kind = 0, nthreads = 1;
	uint32_t chunk, un = (uint32_t)n;
	int nrot = bench_nrot(n), i;
	long threads;
	uint8_t *in = xmalloc(n * nrot);
	uint32_t got[256], want[256];
	cmetal_buffer *src[8] = { 0 };
	cmetal_task *task[8] = { 0 };
	cmetal_program *p = cmb_build(dev, "histogram", NULL);
	cmetal_kernel *k = cmb_kernel(p, "histogram");
	Zero z = { k ? cmb_buffer(dev, 1024, NULL) : NULL };
	const char *unit, *err = NULL;
	double ms = -1, work = case_work(c, &unit);

	cmb_check(cmetal_device_info(dev, CMETAL_DEVICE_KIND, &kind), "device info");
	cmb_check(cmetal_device_info(dev, CMETAL_DEVICE_THREADS, &nthreads), "device info");
	chunk = (uint32_t)((n / (kind == 1 ? 16384 : 32 * nthreads) + 511) / 512 * 512);
	if (chunk < 4096)
		chunk = 4096;
	if (getenv("CMB_HIST_CHUNK"))
		chunk = (uint32_t)atoi(getenv("CMB_HIST_CHUNK"));
	threads = (long)((n + chunk - 1) / chunk);
	for (i = 0; i < nrot; i++)
		(c->p[1] ? gen_u8_skewed : gen_u8)(in + n * i, n, SEED_HIST + i);
	for (i = 0; z.hist && i < nrot; i++)
		if (!(src[i] = cmb_buffer(dev, n, in + n * i)) ||
		    cmb_arg_buf(k, 0, src[i]) || cmb_arg_buf(k, 1, z.hist) ||
		    cmb_arg(k, 2, 4, &un) || cmb_arg(k, 3, 4, &chunk) ||
		    cmb_check(cmetal_task_create(dev, &task[i]), "task") ||
		    cmb_add_1d(task[i], k, threads, 8))
			break;
	if (!cmb_error() && cmb_run(task[0]) >= 0 &&
	    !cmb_check(cmetal_buffer_read(z.hist, 0, sizeof got, got), "buffer read")) {
		ref_histogram(in, n, want);
		err = check_hist(got, want);
		ms = cmb_time(task, nrot, zero_hist, &z);
	}
	if (cmb_error())
		cmb_fail(c, device, cmb_error());
	else
		cmb_row(c, device, ms, work, unit, err);
	for (i = 0; i < nrot; i++) {
		if (task[i])
			cmetal_task_release(task[i]);
		if (src[i])
			cmetal_buffer_release(src[i]);
	}
	if (z.hist)
		cmetal_buffer_release(z.hist);
	if (k)
		cmetal_kernel_release(k);
	if (p)
		cmetal_program_release(p);
	free(in);
}
