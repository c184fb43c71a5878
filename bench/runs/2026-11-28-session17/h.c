/* h KERNEL KIND N [LIB.so]: runs KERNEL of spmv.cm N times on the CPU device (KIND 0 protein/16, 2 webbase/16), the embedded source built or LIB.so loaded; prints min, p10 and median launch time (session 17 notes) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmetal.h"
#include "bench.h"
extern const char *cm_source(const char *name);
static int cmpd(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return (x > y) - (x < y); }
#define CK(e) do { cm_status s_ = (e); if (s_) { fprintf(stderr, "%s: %d %s\n", #e, s_, cmetal_last_error()); exit(1); } } while (0)
int main(int argc, char **argv)
{
	const char *kn = argv[1]; int kind = atoi(argv[2]), n = atoi(argv[3]);
	const char *so = argc > 4 ? argv[4] : NULL;
	Csr m; spmv_gen(&m, kind, 16, SEED_SPMV);
	float *x = malloc(4 * m.cols), *y = malloc(4 * m.rows);
	gen_f32(x, m.cols, SEED_SPMV_X);
	cmetal_device *dev; CK(cmetal_device_open("cpu", &dev));
	cmetal_program *p;
	if (so) CK(cmetal_program_load(dev, so, &p));
	else CK(cmetal_program_build(dev, cm_source("spmv"), "-O2 -fno-bounds-check -ffp-contract=fast", &p));
	cmetal_kernel *k; CK(cmetal_kernel_create(p, kn, &k));
	cmetal_buffer *b[5];
	size_t sz[5] = { 4 * (m.rows + 1), 4 * m.nnz, 4 * m.nnz, 4 * m.cols, 4 * m.rows };
	const void *in[5] = { m.rowptr, m.col, m.val, x, NULL };
	for (int i = 0; i < 5; i++) { CK(cmetal_buffer_create(dev, sz[i], &b[i])); if (in[i]) CK(cmetal_buffer_write(b[i], 0, sz[i], in[i])); CK(cmetal_kernel_set_arg_buffer(k, i, b[i])); }
	int rows = m.rows; CK(cmetal_kernel_set_arg(k, 5, 4, &rows));
	cmetal_task *t; CK(cmetal_task_create(dev, &t));
	uint32_t g[3] = { ((rows + 31) / 32 + 7) / 8, 1, 1 }, th[3] = { 8, 1, 1 };
	CK(cmetal_task_add_groups(t, k, g, th));
	double *ms = malloc(sizeof(double) * n);
	for (int r = 0; r < n + 5; r++) {
		cmetal_event *ev; CK(cmetal_task_run(t, &ev)); CK(cmetal_event_wait(ev));
		if (r >= 5) CK(cmetal_event_elapsed_ms(ev, &ms[r - 5]));
		cmetal_event_release(ev);
	}
	CK(cmetal_buffer_read(b[4], 0, sz[4], y));
	const char *err = check_spmv(&m, x, y, NULL);
	qsort(ms, n, sizeof *ms, cmpd);
	printf("%s %s min %.4f p10 %.4f med %.4f %s\n", kn, kind == SPMV_PROTEIN ? "protein" : "webbase", ms[0], ms[n / 10], ms[n / 2], err ? err : "ok");
	return 0;
}
