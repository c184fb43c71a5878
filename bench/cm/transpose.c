/* transpose.c — host side of transpose.cm: n x n fp32 in buffers (rotated
 * input copies when small), one launch of 32x32-tile threads in groups of
 * 8x4, checked bit for bit against ref_transpose. */
#include <stdlib.h>

#include "cmbench.h"

void cm_bench_transpose(cmetal_device *dev, const BenchCase *c,
			const char *device)
{
	int n = (int)c->p[0], tiles = (n + 31) / 32, nrot, i;
	size_t nn = (size_t)n * n;
	uint32_t un = (uint32_t)n;
	float *in, *got = xmalloc(nn * 4), *want = xmalloc(nn * 4);
	cmetal_buffer *src[8] = { 0 }, *dst = NULL;
	cmetal_task *task[8] = { 0 };
	cmetal_program *p = cmb_build(dev, "transpose", NULL);
	cmetal_kernel *k = cmb_kernel(p, "transpose");
	const char *unit, *err = NULL;
	double ms = -1, work = case_work(c, &unit);

	nrot = bench_nrot(nn * 4);
	in = xmalloc(nn * 4 * nrot);
	for (i = 0; i < nrot; i++)
		gen_f32(in + nn * i, nn, SEED_TRANSPOSE + i);
	if (k && (dst = cmb_buffer(dev, nn * 4, NULL)))
		for (i = 0; i < nrot; i++) {
			if (!(src[i] = cmb_buffer(dev, nn * 4, in + nn * i)) ||
			    cmb_arg_buf(k, 0, src[i]) || cmb_arg_buf(k, 1, dst) ||
			    cmb_arg(k, 2, sizeof un, &un) ||
			    cmb_check(cmetal_task_create(dev, &task[i]), "task") ||
			    cmb_add_2d(task[i], k, tiles, tiles, 8, 4))
				break;
		}
	if (!cmb_error() && cmb_run(task[0]) >= 0 &&
	    !cmb_check(cmetal_buffer_read(dst, 0, nn * 4, got), "buffer read")) {
		ref_transpose(in, want, n);
		err = check_bytes(got, want, nn * 4);
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
			cmetal_buffer_release(src[i]);
	}
	if (dst)
		cmetal_buffer_release(dst);
	if (k)
		cmetal_kernel_release(k);
	if (p)
		cmetal_program_release(p);
	free(in), free(got), free(want);
}
