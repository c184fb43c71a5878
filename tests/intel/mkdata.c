/* mkdata.c — substitute input files for Intel's example programs, for a
 * checkout that lacks its own (data files kept out of a copy, or left as
 * Git LFS pointers).  tests/intel/run.sh builds and runs it in the scratch
 * copy of a program, never in the checkout.
 *
 *   mkdata image IN.bmp GOLD.bmp W H
 *       a 24-bit W x H bitmap and the result linear_walker's "linear"
 *       kernel must give for it: every byte the sum of the 3x3 bytes of the
 *       same colour below and to the right of it, times 0.111f, truncated;
 *       a byte past the right or bottom edge reads the edge (a 2D block
 *       read clamps to the last 4-byte element of the row and the last
 *       row), W and H multiples of 8
 *   mkdata csr OUT.dat ROWS MEAN
 *       a ROWS x ROWS sparse matrix in the file layout SparseMatrixMul
 *       reads (columns, rows, nonzeros, column indices, row extents,
 *       values): most rows have up to MEAN entries, a few many more
 *
 * The data are pseudo-random with a fixed seed, so every run checks the
 * same inputs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t seed = 12345;

static uint32_t rnd(void)
{
	seed = seed * 1664525u + 1013904223u;
	return seed >> 8;
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* A BITMAPFILEHEADER + BITMAPINFOHEADER, then the rows bottom-up as they
 * come (the examples read the pixels as one block). */
static int write_bmp(const char *path, const uint8_t *px, uint32_t w, uint32_t h)
{
	uint32_t size = w * h * 3;
	uint8_t hd[54] = {'B', 'M'};
	put32(hd + 2, 54 + size);
	put32(hd + 10, 54);
	put32(hd + 14, 40);
	put32(hd + 18, w);
	put32(hd + 22, h);
	hd[26] = 1;                           /* planes */
	hd[28] = 24;                          /* bits per pixel */
	put32(hd + 34, size);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(hd, 1, 54, f) != 54 || fwrite(px, 1, size, f) != size) {
		perror(path);
		return 1;
	}
	return fclose(f) != 0;
}

/* The byte at row y, byte column x, as a clamping 2D block read sees it. */
static int edge_byte(const uint8_t *px, uint32_t w, uint32_t h, uint32_t y, uint32_t x)
{
	uint32_t row = w * 3;
	if (y >= h)
		y = h - 1;
	if (x >= row)
		x = (row / 4 - 1) * 4 + x % 4;
	return px[(size_t)y * row + x];
}

static int image(const char *in, const char *gold, uint32_t w, uint32_t h)
{
	if (!w || !h || w % 8 || h % 8) {
		fprintf(stderr, "mkdata: image sizes must be multiples of 8\n");
		return 2;
	}
	size_t n = (size_t)w * h * 3;
	uint8_t *px = malloc(n), *out = malloc(n);
	for (uint32_t y = 0; y < h; y++)         /* a ramp with noise */
		for (uint32_t x = 0; x < w * 3; x++)
			px[(size_t)y * w * 3 + x] = (uint8_t)((x * 7 + y * 3) / 5 + rnd() % 40);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w * 3; x++) {
			float m = 0;
			for (uint32_t dy = 0; dy < 3; dy++)
				for (uint32_t dx = 0; dx < 3; dx++)
					m += (float)edge_byte(px, w, h, y + dy, x + 3 * dx);
			out[(size_t)y * w * 3 + x] = (uint8_t)(m * 0.111f);
		}
	int r = write_bmp(in, px, w, h) || write_bmp(gold, out, w, h);
	free(px);
	free(out);
	return r;
}

static unsigned row_length(unsigned mean)
{
	unsigned r = rnd() % 100;
	if (r < 90)
		return rnd() % (mean + 1);
	return r < 99 ? mean + rnd() % (4 * mean) : rnd() % (40 * mean);
}

static int csr(const char *path, uint32_t rows, unsigned mean)
{
	uint32_t *ext = malloc(((size_t)rows + 1) * sizeof *ext);
	ext[0] = 0;
	for (uint32_t i = 0; i < rows; i++)
		ext[i + 1] = ext[i] + row_length(mean);
	uint32_t nnz = ext[rows];
	uint32_t *col = malloc((size_t)nnz * sizeof *col + 1);
	float *val = malloc((size_t)nnz * sizeof *val + 1);
	for (uint32_t k = 0; k < nnz; k++) {
		col[k] = rnd() % rows;
		val[k] = (float)(rnd() % 1000) / 1000.0f;
	}
	uint32_t head[3] = {rows, rows, nnz};   /* columns, rows, nonzeros */
	FILE *f = fopen(path, "wb");
	int r = !f || fwrite(head, 4, 3, f) != 3 || fwrite(col, 4, nnz, f) != nnz ||
	        fwrite(ext, 4, (size_t)rows + 1, f) != (size_t)rows + 1 ||
	        fwrite(val, 4, nnz, f) != nnz;
	if (f && fclose(f))
		r = 1;
	if (r)
		perror(path);
	free(ext);
	free(col);
	free(val);
	return r;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "image"))
		return image(argv[2], argv[3], (uint32_t)atoi(argv[4]), (uint32_t)atoi(argv[5]));
	if (argc == 5 && !strcmp(argv[1], "csr"))
		return csr(argv[2], (uint32_t)atoi(argv[3]), (unsigned)atoi(argv[4]));
	fprintf(stderr, "usage: mkdata image IN.bmp GOLD.bmp W H\n"
	                "       mkdata csr OUT.dat ROWS MEAN\n");
	return 2;
}
