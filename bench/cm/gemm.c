/* gemm.c — host side of gemm.cm (sgemm and dgemm): A, B and C in buffers,
 * one launch of Rx128-block threads in groups of 4x4, C restored (untimed)
 * before each run, checked with check_sgemm / check_dgemm (sampled). */
#include <stdlib.h>
#include <string.h>

#include "cmbench.h"

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

void cm_bench_gemm(cmetal_device *dev, const BenchCase *c, const char *device)
{
	int n = (int)c->p[0], dbl = c->p[1] == 64, rows = dbl ? 8 : 16;
	size_t es = dbl ? 8 : 4, nn = (size_t)n * n, bytes = nn * es;
	char *a = xmalloc(bytes), *b = xmalloc(bytes), *c0 = xmalloc(bytes), *got = xmalloc(bytes);
	float fa = 1.5f, fb = 0.5f;
	double da = 1.5, db = 0.5;
	cmetal_buffer *ba = NULL, *bb = NULL, *bc = NULL;
	cmetal_task *task = NULL;
	cmetal_program *p = NULL;
	cmetal_kernel *k = NULL;
	Restore r;
	const char *unit, *err = NULL;
	double ms = -1, work = case_work(c, &unit);

	if (n % 128) {
		cmb_fail(c, device, "gemm.cm needs n to be a multiple of 128");
		goto out;
	}
	if (dbl) {
		gen_f64((double *)a, nn, SEED_GEMM_A), gen_f64((double *)b, nn, SEED_GEMM_B);
		gen_f64((double *)c0, nn, SEED_GEMM_C);
	} else {
		gen_f32((float *)a, nn, SEED_GEMM_A), gen_f32((float *)b, nn, SEED_GEMM_B);
		gen_f32((float *)c0, nn, SEED_GEMM_C);
	}
	p = cmb_build(dev, "gemm", NULL);
	k = cmb_kernel(p, dbl ? "dgemm" : "sgemm");
	if (k && (ba = cmb_buffer(dev, bytes, a)) && (bb = cmb_buffer(dev, bytes, b)) &&
	    (bc = cmb_buffer(dev, bytes, c0)) && !cmb_arg_buf(k, 0, ba) &&
	    !cmb_arg_buf(k, 1, bb) && !cmb_arg_buf(k, 2, bc) && !cmb_arg(k, 3, 4, &n) &&
	    !cmb_arg(k, 4, es, dbl ? (void *)&da : (void *)&fa) &&
	    !cmb_arg(k, 5, es, dbl ? (void *)&db : (void *)&fb) &&
	    !cmb_check(cmetal_task_create(dev, &task), "task") &&
	    !cmb_add_2d(task, k, n / 128, n / rows, 4, 4) && cmb_run(task) >= 0 &&
	    !cmb_check(cmetal_buffer_read(bc, 0, bytes, got), "buffer read")) {
		if (dbl)
			err = check_dgemm(n, da, (double *)a, (double *)b, db,
					  (double *)c0, (double *)got);
		else
			err = check_sgemm(n, fa, (float *)a, (float *)b, fb,
					  (float *)c0, (float *)got);
		r = (Restore){ bc, c0, bytes };
		ms = cmb_time(&task, 1, restore, &r);
	}
	if (cmb_error())
		cmb_fail(c, device, cmb_error());
	else
		cmb_row(c, device, ms, work, unit, err);
out:
	if (task)
		cmetal_task_release(task);
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
	free(a), free(b), free(c0), free(got);
}
