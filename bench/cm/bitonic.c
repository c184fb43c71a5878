/* bitonic.c — host side of bitonic.cm: the keys in one buffer, one task
 * holding the whole network (bitonic_local, then per stage k > 256 one
 * bitonic_global launch per distance j >= 256 and one bitonic_merge, with
 * syncs between), keys restored (untimed) before each run, checked with
 * check_sorted. */
#include <stdlib.h>

#include "cmbench.h"

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

static int entry(cmetal_task *t, cmetal_kernel *k, cmetal_buffer *b,
		 uint32_t blocks, uint32_t kk, uint32_t j, int nargs, long threads)
{
	return cmb_arg_buf(k, 0, b) || cmb_arg(k, 1, 4, &blocks) ||
	       (nargs > 2 && cmb_arg(k, 2, 4, &kk)) || (nargs > 3 && cmb_arg(k, 3, 4, &j)) ||
	       cmb_add_1d(t, k, threads, 8) || cmb_check(cmetal_task_add_sync(t), "sync");
}

void cm_bench_bitonic(cmetal_device *dev, const BenchCase *c, const char *device)
{
	size_t n = (size_t)1 << c->p[0], bytes = n * 4;
	uint32_t blocks = (uint32_t)(n / 256), k, j;
	uint32_t *in = xmalloc(bytes), *got = xmalloc(bytes);
	cmetal_buffer *buf = NULL;
	cmetal_task *task = NULL;
	cmetal_program *p = cmb_build(dev, "bitonic", NULL);
	cmetal_kernel *kl = cmb_kernel(p, "bitonic_local"), *kg = cmb_kernel(p, "bitonic_global");
	cmetal_kernel *km = cmb_kernel(p, "bitonic_merge");
	Restore r;
	const char *unit, *err = NULL;
	double ms = -1, work = case_work(c, &unit);

	gen_u32(in, n, SEED_SORT);
	r = (Restore){ NULL, in, bytes };
	if (km && (buf = r.buf = cmb_buffer(dev, bytes, in)) &&
	    !cmb_check(cmetal_task_create(dev, &task), "task") &&
	    !entry(task, kl, buf, blocks, 0, 0, 2, blocks)) {
		for (k = 512; k <= n && !cmb_error(); k *= 2) {
			for (j = k / 2; j >= 256; j /= 2)
				if (entry(task, kg, buf, blocks, k, j, 4, blocks / 2))
					break;
			entry(task, km, buf, blocks, k, 0, 3, blocks);
		}
		if (!cmb_error() && cmb_run(task) >= 0 &&
		    !cmb_check(cmetal_buffer_read(buf, 0, bytes, got), "buffer read")) {
			err = check_sorted(got, in, n);
			ms = cmb_time(&task, 1, restore, &r);
		}
	}
	if (cmb_error())
		cmb_fail(c, device, cmb_error());
	else
		cmb_row(c, device, ms, work, unit, err);
	if (task)
		cmetal_task_release(task);
	if (buf)
		cmetal_buffer_release(buf);
	if (kl)
		cmetal_kernel_release(kl);
	if (kg)
		cmetal_kernel_release(kg);
	if (km)
		cmetal_kernel_release(km);
	if (p)
		cmetal_program_release(p);
	free(in), free(got);
}
