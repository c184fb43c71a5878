/* hm KERNEL KIND N A.so B.so ...: alternates launches of each library's kernel in one process */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmetal.h"
#include "bench.h"
static int cmpd(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return (x > y) - (x < y); }
#define CK(e) do { cm_status s_ = (e); if (s_) { fprintf(stderr, "%s: %d %s\n", #e, s_, cmetal_last_error()); exit(1); } } while (0)
int main(int argc, char **argv)
{
	const char *kn = argv[1]; int kind = atoi(argv[2]), n = atoi(argv[3]), nv = argc - 4;
	Csr m; spmv_gen(&m, kind, 16, SEED_SPMV);
	float *x = malloc(4 * m.cols), *y = malloc(4 * m.rows);
	gen_f32(x, m.cols, SEED_SPMV_X);
	cmetal_device *dev; CK(cmetal_device_open("cpu", &dev));
	cmetal_buffer *b[5];
	size_t sz[5] = { 4 * (m.rows + 1), 4 * m.nnz, 4 * m.nnz, 4 * m.cols, 4 * m.rows };
	const void *in[5] = { m.rowptr, m.col, m.val, x, NULL };
	for (int i = 0; i < 5; i++) { CK(cmetal_buffer_create(dev, sz[i], &b[i])); if (in[i]) CK(cmetal_buffer_write(b[i], 0, sz[i], in[i])); }
	cmetal_task *t[8];
	int rows = m.rows;
	for (int v = 0; v < nv; v++) {
		cmetal_program *p; CK(cmetal_program_load(dev, argv[4 + v], &p));
		cmetal_kernel *k; CK(cmetal_kernel_create(p, kn, &k));
		for (int i = 0; i < 5; i++) CK(cmetal_kernel_set_arg_buffer(k, i, b[i]));
		CK(cmetal_kernel_set_arg(k, 5, 4, &rows));
		CK(cmetal_task_create(dev, &t[v]));
		uint32_t g[3] = { ((rows + 31) / 32 + 7) / 8, 1, 1 }, th[3] = { 8, 1, 1 };
		CK(cmetal_task_add_groups(t[v], k, g, th));
	}
	double *ms = malloc(sizeof(double) * n * nv);
	for (int r = 0; r < n + 5; r++)
		for (int v = 0; v < nv; v++) {
			cmetal_event *ev; CK(cmetal_task_run(t[v], &ev)); CK(cmetal_event_wait(ev));
			if (r >= 5) CK(cmetal_event_elapsed_ms(ev, &ms[v * n + r - 5]));
			cmetal_event_release(ev);
			if (r == n + 4) {
				CK(cmetal_buffer_read(b[4], 0, sz[4], y));
				const char *err = check_spmv(&m, x, y, NULL);
				if (err) printf("%s: %s\n", argv[4 + v], err);
				memset(y, 0, sz[4]); CK(cmetal_buffer_write(b[4], 0, sz[4], y));
			}
		}
	for (int v = 0; v < nv; v++) {
		double *a = ms + v * n;
		qsort(a, n, sizeof *a, cmpd);
		printf("%-28s %s p10 %.4f med %.4f\n", argv[4 + v], kind == SPMV_PROTEIN ? "protein" : "webbase", a[n / 10], a[n / 2]);
	}
	return 0;
}
