/* spmv.c — deterministic CSR matrices shaped like three SuiteSparse
 * matrices the paper used (we do not ship the real ones):
 *   protein     36,417 rows, ~4.3M nnz: ~119 per row, within a band of
 *               +-400 around the diagonal
 *   nd24k       72,000 rows, ~28.7M nnz: ~400 per row, band +-2000
 *   webbase-1M  1,000,005 rows, ~3.1M nnz: power-law row lengths (Pareto,
 *               alpha 1.35, capped at 4700), half the columns near the
 *               diagonal and half skewed toward low-numbered (popular) columns
 * A row's columns are drawn at random, sorted and deduplicated, so the
 * counts above are approximate; every harness prints the exact nnz. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct {
	int rows, band, lmin, lspan;	/* length = lmin + rand % lspan */
} Shape;

static const Shape shapes[] = {
	[SPMV_PROTEIN] = { 36417, 400, 64, 130 },
	[SPMV_ND24K] = { 72000, 2000, 277, 300 },
	[SPMV_WEBBASE] = { 1000005, 0, 0, 0 },
};

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int webbase_len(Rng *r, int cap)
{
	double u = (rng_u32(r) + 1.0) / 4294967297.0;
	double x = pow(u, -1.0 / 1.35);
	return x > cap ? cap : (int)x;
}

static int pick_col(Rng *r, const Shape *s, int row, int cols)
{
	long c;
	if (s->band) {
		c = row - s->band + (long)(rng_u32(r) % (uint32_t)(2 * s->band + 1));
	} else if (rng_u32(r) & 1) {
		c = row + (long)(rng_u32(r) % 129) - 64;
	} else {
		double u = rng_f01(r);
		c = (long)(cols * u * u * u);
	}
	return c < 0 ? 0 : c >= cols ? cols - 1 : (int)c;
}

/* Draws a row's columns into tmp, sorts and dedups; returns the count. */
static int gen_row(Rng *r, const Shape *s, int row, int cols, int len, int *tmp)
{
	int i, n = 0;
	for (i = 0; i < len; i++)
		tmp[i] = pick_col(r, s, row, cols);
	qsort(tmp, (size_t)len, sizeof *tmp, cmp_int);
	for (i = 0; i < len; i++)
		if (!n || tmp[i] != tmp[n - 1])
			tmp[n++] = tmp[i];
	return n;
}

void spmv_gen(Csr *m, int kind, int div, uint64_t seed)
{
	const Shape *s = &shapes[kind];
	int cap = 4700, *tmp = malloc(sizeof(int) * 8192);
	long used = 0, room;
	Rng r;
	int i;
	if (div < 1)
		div = 1;
	rng_seed(&r, seed);
	m->rows = m->cols = s->rows / div;
	room = (long)m->rows * (s->band ? s->lmin + s->lspan : 8) + 8192;
	m->rowptr = malloc(sizeof(int) * ((size_t)m->rows + 1));
	m->col = malloc(sizeof(int) * (size_t)room);
	m->val = malloc(sizeof(float) * (size_t)room);
	if (!tmp || !m->rowptr || !m->col || !m->val)
		bench_die("out of memory generating a sparse matrix");
	m->rowptr[0] = 0;
	for (i = 0; i < m->rows; i++) {
		int len = s->band ? s->lmin + (int)(rng_u32(&r) % (uint32_t)s->lspan)
				  : webbase_len(&r, cap);
		int n = gen_row(&r, s, i, m->cols, len, tmp), j;
		if (used + n > room) {
			room = room * 3 / 2 + n;
			m->col = realloc(m->col, sizeof(int) * (size_t)room);
			m->val = realloc(m->val, sizeof(float) * (size_t)room);
			if (!m->col || !m->val)
				bench_die("out of memory generating a sparse matrix");
		}
		memcpy(m->col + used, tmp, sizeof(int) * (size_t)n);
		for (j = 0; j < n; j++)
			m->val[used + j] = rng_f01(&r) * 2.0f - 1.0f;
		used += n;
		m->rowptr[i + 1] = (int)used;
	}
	m->nnz = used;
	free(tmp);
}

void csr_free(Csr *m)
{
	free(m->rowptr);
	free(m->col);
	free(m->val);
	memset(m, 0, sizeof *m);
}
