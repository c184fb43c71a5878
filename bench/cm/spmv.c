/* spmv.c — host side of spmv.cm: the generated CSR matrix and x in
 * buffers, one launch of 32-row threads in groups of 8, checked with
 * check_spmv; work is the byte formula of bench/README.md. */
#include <stdio.h>
#include <stdlib.h>

#include "cmbench.h"

void cm_bench_spmv(cmetal_device *dev, const BenchCase *c, const char *device)
{
	Csr m;
	float *x, *got;
	cmetal_buffer *b[5] = { 0 };
	cmetal_task *task = NULL;
	cmetal_program *p = cmb_build(dev, "spmv", NULL);
	cmetal_kernel *k = cmb_kernel(p, "spmv");
	const char *err = NULL;
	double ms = -1, bytes;
	int i;

	spmv_gen(&m, (int)c->p[0], (int)c->p[1], SEED_SPMV);
	x = xmalloc(sizeof(float) * m.cols), got = xmalloc(sizeof(float) * m.rows);
	gen_f32(x, (size_t)m.cols, SEED_SPMV_X);
	bytes = (m.nnz * 8.0 + (m.rows + 1) * 4.0 + m.rows * 4.0 + m.cols * 4.0) / 1e9;
	printf("# spmv %s: %d rows, %ld nnz\n", c->size, m.rows, m.nnz);
	if (k && (b[0] = cmb_buffer(dev, 4 * ((size_t)m.rows + 1), m.rowptr)) &&
	    (b[1] = cmb_buffer(dev, 4 * (size_t)m.nnz, m.col)) &&
	    (b[2] = cmb_buffer(dev, 4 * (size_t)m.nnz, m.val)) &&
	    (b[3] = cmb_buffer(dev, 4 * (size_t)m.cols, x)) &&
	    (b[4] = cmb_buffer(dev, 4 * (size_t)m.rows, NULL))) {
		for (i = 0; i < 5; i++)
			cmb_arg_buf(k, i, b[i]);
		cmb_arg(k, 5, 4, &m.rows);
		if (!cmb_error() && !cmb_check(cmetal_task_create(dev, &task), "task") &&
		    !cmb_add_1d(task, k, (m.rows + 31) / 32, 8) && cmb_run(task) >= 0 &&
		    !cmb_check(cmetal_buffer_read(b[4], 0, 4 * (size_t)m.rows, got), "buffer read")) {
			err = check_spmv(&m, x, got, NULL);
			ms = cmb_time(&task, 1, NULL, NULL);
		}
	}
	if (cmb_error())
		cmb_fail(c, device, cmb_error());
	else
		cmb_row(c, device, ms, bytes, "GB/s", err);
	if (task)
		cmetal_task_release(task);
	for (i = 0; i < 5; i++)
		if (b[i])
			cmetal_buffer_release(b[i]);
	if (k)
		cmetal_kernel_release(k);
	if (p)
		cmetal_program_release(p);
	free(x), free(got), csr_free(&m);
}
