/* histogram.c — host side of histogram.cm: the bytes in a buffer (rotated
 * copies when small), one launch of groups of 8 threads (they share the SLM
 * copies) each counting a chunk of bytes (a multiple of 512), the 256-bin
 * result zeroed (untimed) before each run and checked exactly against
 * ref_histogram.  The chunk depends on the device:
 *   GPU  max(4 KB, n / 8192): 32 KB a thread at 256 MB.  H200, 256 MB,
 *        medians of 15, two rounds (random / skewed, ms): 4 KB 0.125 /
 *        0.120, 8 KB 0.125 / 0.095, 16 KB 0.128 / 0.082, 31 KB (one wave of
 *        8-warp groups) 0.140 / 0.094, 32 KB 0.130 / 0.075, 64 KB 0.135 /
 *        0.083: a group's merge and global atomics cost the same whatever
 *        its chunk, and the one-value input pays them most;
 *   CPU  max(4 KB, n / (32 x device threads)): 4 groups per OS thread.  A
 *        group zeroes and sums its SLM copies and adds 256 bins with
 *        global atomics whatever its chunk, so small groups spent as long
 *        on that as on counting (random-16MB on 1 thread, 32 copies: 9.4 ms
 *        with 4 KB chunks, 6.4 with 256 KB; plain C 3.7).
 * On the CPU device a second row, cm-cpu: histogram_cpu (histogram.cm says
 * why), private per-thread histograms, same chunks.
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

/* One row: kernel `name` over the nrot copies of n bytes at in, chunk
 * bytes per thread in groups of 8, checked against want, then timed. */
static void run(cmetal_device *dev, const BenchCase *c, const char *device,
		const char *name, const char *impl, const uint8_t *in, size_t n,
		int nrot, uint32_t chunk, const uint32_t want[256], const char *defs)
{
	uint32_t got[256], un = (uint32_t)n;
	long threads = (long)((n + chunk - 1) / chunk);
	int i;
	cmetal_buffer *src[8] = { 0 };
	cmetal_task *task[8] = { 0 };
	cmetal_program *p = cmb_build(dev, "histogram", defs);
	cmetal_kernel *k = cmb_kernel(p, name);
	Zero z = { k ? cmb_buffer(dev, 1024, NULL) : NULL };
	const char *unit, *err = NULL;
	double ms = -1, work = case_work(c, &unit);

	for (i = 0; z.hist && i < nrot; i++)
		if (!(src[i] = cmb_buffer(dev, n, in + n * i)) ||
		    cmb_arg_buf(k, 0, src[i]) || cmb_arg_buf(k, 1, z.hist) ||
		    cmb_arg(k, 2, 4, &un) || cmb_arg(k, 3, 4, &chunk) ||
		    cmb_check(cmetal_task_create(dev, &task[i]), "task") ||
		    cmb_add_1d(task[i], k, threads, 8))
			break;
	if (!cmb_error() && cmb_run(task[0]) >= 0 &&
	    !cmb_check(cmetal_buffer_read(z.hist, 0, sizeof got, got), "buffer read")) {
		err = check_hist(got, want);
		ms = cmb_time(task, nrot, zero_hist, &z);
	}
	if (cmb_error())
		cmb_fail(c, device, cmb_error());
	else
		cmb_row_as(c, device, impl, ms, work, unit, err);
	cmb_reset();
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
}

void cm_bench_histogram(cmetal_device *dev, const BenchCase *c,
			const char *device)
{
	size_t n = (size_t)c->p[0];
	uint64_t kind = 0, nthreads = 1;
	uint32_t chunk, want[256];
	int nrot = bench_nrot(n), i;
	uint8_t *in = xmalloc(n * nrot);

	cmb_check(cmetal_device_info(dev, CMETAL_DEVICE_KIND, &kind), "device info");
	cmb_check(cmetal_device_info(dev, CMETAL_DEVICE_THREADS, &nthreads), "device info");
	chunk = (uint32_t)((n / (kind == 1 ? 8192 : 32 * nthreads) + 511) / 512 * 512);
	if (chunk < 4096)
		chunk = 4096;
	if (getenv("CMB_HIST_CHUNK"))
		chunk = (uint32_t)atoi(getenv("CMB_HIST_CHUNK"));
	for (i = 0; i < nrot; i++)
		(c->p[1] ? gen_u8_skewed : gen_u8)(in + n * i, n, SEED_HIST + i);
	ref_histogram(in, n, want);
	/* the bins' copies (histogram.cm COPIES): one on a GPU; on the CPU 8.
	 * 2 cores, 16 MB, medians of 9, two rounds (random / skewed, ms): 32
	 * copies 3.80 / 3.47, 3.78 / 4.39; 8: 3.14 / 3.76, 3.10 / 3.08; 4:
	 * 3.13 / 3.71, 3.07 / 3.68; 1: 3.08 / 12.76, 3.15 / 12.78 */
	const char *copies = kind == 1 ? NULL : "-DCOPIES=8";
	run(dev, c, device, "histogram", "cm", in, n, nrot, chunk, want, copies);
	if (kind != 1)
		run(dev, c, device, "histogram_cpu", "cm-cpu", in, n, nrot, chunk, want, copies);
	free(in);
}
