/* spmv.c — host side of spmv.cm: the generated CSR matrix and x in
 * buffers, checked with check_spmv; work is the byte formula of
 * bench/README.md.  Two rows per case:
 *   cm        the shape for the device (spmv.cm's comment says why):
 *             on a GPU spmv_seg with SEG lanes per row from the mean row
 *             length, then spmv_long over the rows longer than 8 * SEG;
 *             on the CPU spmv_rows.  On the CPU the GPU shape is run and
 *             checked too (make test covers both), untimed.
 *   cm-paper  the paper's kernel (spmv), 32-row threads.
 * CMB_SPMV_SHAPE=SEG:WIDTH:LONGLEN overrides the GPU shape (for tuning). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmbench.h"

#define CHUNK 1024	/* nonzeros per spmv_long thread */

typedef struct {
	const Csr *m;
	const float *x;
	float *got;
	cmetal_buffer *b[5];	/* rowptr, col, val, x, y */
} Spmv;

typedef struct {
	int seg, width, longlen;
} Shape;

/* Whether spmv.cm takes shape s (its WIDTH, SEG and NR limits). */
static int shape_ok(Shape s)
{
	return (s.width == 32 || s.width == 64 || s.width == 128) && s.seg >= 2 &&
	       s.seg <= s.width && !(s.seg & (s.seg - 1)) && s.width / s.seg <= 32 &&
	       s.longlen >= 1;
}

/* SEG: the power of two at or below the mean row length, 2..WIDTH.  A
 * row longer than SEG takes more steps, but a thread's lanes are busier:
 * on an H200 (2026-11-28, bench/runs/2026-11-28-session20) webbase-1M
 * (mean 3.1) took 0.047 ms with SEG 2 against 0.052-0.056 with SEG 4
 * (the power of two above, the rule before), protein (mean 119) 0.018
 * with 64 against 0.020-0.021 with 128; nd24k's mean is above WIDTH. */
static Shape gpu_shape(const Csr *m)
{
	Shape s = { 2, 128, 0 };
	const char *env = getenv("CMB_SPMV_SHAPE");
	double mean = m->rows ? (double)m->nnz / m->rows : 0;
	while (s.seg < s.width && 2 * s.seg <= mean)
		s.seg *= 2;
	if (s.seg <= 8)
		s.width = 64;	/* fewer rows per thread: a shorter longest row */
	s.longlen = 8 * s.seg;
	Shape e;
	if (env && (sscanf(env, "%d:%d:%d", &e.seg, &e.width, &e.longlen) != 3 ||
		    !shape_ok(e)))
		fprintf(stderr, "# CMB_SPMV_SHAPE=%s ignored (want SEG:WIDTH:LONGLEN: WIDTH 32, "
			"64 or 128, SEG a power of two from 2 to WIDTH, WIDTH / SEG at most 32 "
			"rows a thread, LONGLEN at least 1)\n", env);
	else if (env)
		s = e;
	return s;
}

/* The chunks (row, first, end, 0) of the rows longer than longlen. */
static int *long_chunks(const Csr *m, int longlen, int *n)
{
	int r, cap = 64, *ch = xmalloc(sizeof(int) * 4 * (size_t)cap);
	*n = 0;
	for (r = 0; r < m->rows; r++) {
		int b = m->rowptr[r], end = m->rowptr[r + 1];
		if (end - b <= longlen)
			continue;
		for (; b < end; b += CHUNK) {
			if (*n == cap && !(ch = realloc(ch, sizeof(int) * 8 * (size_t)(cap *= 2))))
				bench_die("out of memory listing long rows");
			ch[4 * *n] = r, ch[4 * *n + 1] = b;
			ch[4 * *n + 2] = end - b < CHUNK ? end : b + CHUNK, ch[4 * *n + 3] = 0;
			++*n;
		}
	}
	return ch;
}

static void set_args(cmetal_kernel *k, Spmv *s, int nbuf)
{
	for (int i = 0; i < nbuf; i++)
		cmb_arg_buf(k, (uint32_t)i, s->b[i]);
}

/* Runs task once on a y of NaNs (a row a kernel misses fails the check),
 * checks y, then times the task when timed; err gets the check. */
static double run_checked(Spmv *s, cmetal_task *t, int timed, const char **err)
{
	size_t ny = 4 * (size_t)s->m->rows;
	for (size_t i = 0; i < ny / 4; i++)
		s->got[i] = NAN;
	if (cmb_error() ||
	    cmb_check(cmetal_buffer_write(s->b[4], 0, ny, s->got), "buffer write") ||
	    cmb_run(t) < 0 ||
	    cmb_check(cmetal_buffer_read(s->b[4], 0, 4 * (size_t)s->m->rows, s->got),
		      "buffer read"))
		return -1;
	*err = check_spmv(s->m, s->x, s->got, NULL);
	return timed && !*err ? cmb_time(&t, 1, NULL, NULL) : -1;
}

/* The CSR-vector kernels of shape sh (spmv_seg, sync, spmv_long). */
static double run_seg(cmetal_device *dev, Spmv *s, Shape sh, int timed,
		      const char **err)
{
	char defs[64];
	int nch, rows = s->m->rows, nr = sh.width / sh.seg;
	int *ch = long_chunks(s->m, sh.longlen, &nch);
	cmetal_program *p;
	cmetal_kernel *ks, *kl = NULL;
	cmetal_buffer *cb = NULL;
	cmetal_task *t = NULL;
	double ms = -1;

	snprintf(defs, sizeof defs, "-DSEG=%d -DWIDTH=%d", sh.seg, sh.width);
	p = cmb_build(dev, "spmv", defs);
	ks = cmb_kernel(p, "spmv_seg");
	if (nch) {
		kl = cmb_kernel(p, "spmv_long");
		cb = cmb_buffer(dev, 16 * (size_t)nch, ch);
	}
	if (ks && (!nch || (kl && cb))) {
		set_args(ks, s, 5);
		cmb_arg(ks, 5, 4, &rows), cmb_arg(ks, 6, 4, &sh.longlen);
		if (nch) {
			set_args(kl, s, 5);
			cmb_arg_buf(kl, 0, cb), cmb_arg(kl, 5, 4, &nch);
		}
		if (!cmb_error() && !cmb_check(cmetal_task_create(dev, &t), "task") &&
		    !cmb_add_1d(t, ks, (rows + nr - 1) / nr, 8) &&
		    (!nch || (!cmb_check(cmetal_task_add_sync(t), "task sync") &&
			      !cmb_add_1d(t, kl, nch, 8))))
			ms = run_checked(s, t, timed, err);
	}
	printf("# spmv shape: SEG %d, WIDTH %d, %d chunks of rows over %d\n",
	       sh.seg, sh.width, nch, sh.longlen);
	if (t)
		cmetal_task_release(t);
	if (cb)
		cmetal_buffer_release(cb);
	if (kl)
		cmetal_kernel_release(kl);
	if (ks)
		cmetal_kernel_release(ks);
	if (p)
		cmetal_program_release(p);
	free(ch);
	return ms;
}

/* A 32-rows-per-thread kernel: spmv_rows or the paper's spmv. */
static double run_rows(cmetal_device *dev, Spmv *s, const char *name,
		       const char **err)
{
	int rows = s->m->rows;
	cmetal_program *p = cmb_build(dev, "spmv", NULL);
	cmetal_kernel *k = cmb_kernel(p, name);
	cmetal_task *t = NULL;
	double ms = -1;
	if (k) {
		set_args(k, s, 5);
		cmb_arg(k, 5, 4, &rows);
		if (!cmb_error() && !cmb_check(cmetal_task_create(dev, &t), "task") &&
		    !cmb_add_1d(t, k, (rows + 31) / 32, 8))
			ms = run_checked(s, t, 1, err);
	}
	if (t)
		cmetal_task_release(t);
	if (k)
		cmetal_kernel_release(k);
	if (p)
		cmetal_program_release(p);
	return ms;
}

static void row(const BenchCase *c, const char *device, const char *impl,
		double ms, double bytes, const char *err)
{
	if (cmb_error())
		cmb_fail(c, device, cmb_error());
	else
		cmb_row_as(c, device, impl, ms, bytes, "GB/s", err);
	cmb_reset();
}

void cm_bench_spmv(cmetal_device *dev, const BenchCase *c, const char *device)
{
	Csr m;
	Spmv s = { &m, NULL, NULL, { 0 } };
	uint64_t kind = 0;
	const char *err = NULL, *err2 = NULL;
	double ms, bytes;
	float *x;
	int i;

	spmv_gen(&m, (int)c->p[0], (int)c->p[1], SEED_SPMV);
	s.x = x = xmalloc(sizeof(float) * m.cols), s.got = xmalloc(sizeof(float) * m.rows);
	gen_f32(x, (size_t)m.cols, SEED_SPMV_X);
	bytes = (m.nnz * 8.0 + (m.rows + 1) * 4.0 + m.rows * 4.0 + m.cols * 4.0) / 1e9;
	printf("# spmv %s: %d rows, %ld nnz\n", c->size, m.rows, m.nnz);
	cmb_check(cmetal_device_info(dev, CMETAL_DEVICE_KIND, &kind), "device info");
	if ((s.b[0] = cmb_buffer(dev, 4 * ((size_t)m.rows + 1), m.rowptr)) &&
	    (s.b[1] = cmb_buffer(dev, 4 * (size_t)m.nnz, m.col)) &&
	    (s.b[2] = cmb_buffer(dev, 4 * (size_t)m.nnz, m.val)) &&
	    (s.b[3] = cmb_buffer(dev, 4 * (size_t)m.cols, x)))
		s.b[4] = cmb_buffer(dev, 4 * (size_t)m.rows, NULL);
	if (!s.b[4]) {
		ms = -1;
	} else if (kind == 1) {
		ms = run_seg(dev, &s, gpu_shape(&m), 1, &err);
	} else {
		ms = run_rows(dev, &s, "spmv_rows", &err);
		run_seg(dev, &s, gpu_shape(&m), 0, &err2);
		if (!err && err2)
			err = err2;	/* the GPU shape, checked on the CPU */
	}
	row(c, device, "cm", ms, bytes, err);
	err = NULL;
	ms = s.b[4] ? run_rows(dev, &s, "spmv", &err) : -1;
	row(c, device, "cm-paper", ms, bytes, err);
	for (i = 0; i < 5; i++)
		if (s.b[i])
			cmetal_buffer_release(s.b[i]);
	free(x), free(s.got), csr_free(&m);
}
