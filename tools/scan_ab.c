/* scan_ab.c — A/B runs of bench/cm/scan.cm's scan_tiles variants on one
 * device: each variant is built, checked twice against a C reference (the
 * second launch finds the state the first left), then timed: the median
 * and the least of 15 event-timed launches, the input restored untimed
 * before each, rotated over 4 copies below 128 MB as the bench does.
 *
 *   cc -O2 -std=gnu11 -Iinclude -o build/scan_ab tools/scan_ab.c \
 *      build/libcmetal.a -lpthread -ldl -lm
 *   build/scan_ab DEVICE LOG2N i|f SRC:PARTS:WARPS[:OPTIONS] ...
 *
 * e.g. `build/scan_ab cuda 28 i bench/cm/scan.cm:8:4 "bench/cm/scan.cm:8:4:-DEARLY=8"`.
 * A variant built with -DSTATS also prints the look-back's windows read
 * per tile and how many of them were read again (not ready).  Prints one
 * line per variant: ok or FAIL, median and least ms, GB/s (8 bytes an
 * element).  bench/runs/2026-11-27-h100-scan holds what it printed on H100s. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmetal.h"

enum { REPS = 15, MAXROT = 4 };

static cmetal_device *dev;
static uint32_t *in, *want;	/* input and, for int32, the exact result */
static double *wantd, *absd;	/* fp32: the exact sums and sums of |x| */
static size_t n;
static int fp, nrot;
static cmetal_buffer *buf[MAXROT];

static int ck(cm_status s, const char *what)
{
	if (s == CM_SUCCESS)
		return 0;
	printf("  %s: %s\n", what, cmetal_last_error());
	return -1;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	rewind(f);
	char *s = calloc((size_t)len + 1, 1);
	if (fread(s, 1, (size_t)len, f) != (size_t)len)
		s[0] = 0;
	fclose(f);
	return s;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Elements of got that differ from the reference. */
static size_t mismatches(const uint32_t *got)
{
	size_t bad = 0;
	for (size_t j = 0; j < n; j++) {
		float y;
		memcpy(&y, &got[j], 4);
		if (fp ? !(fabs(y - wantd[j]) <= 1e-5 * absd[j] + 1e-6) : got[j] != want[j])
			bad++;
	}
	return bad;
}

static void variant(const char *spec)
{
	char path[256], extra[256] = "", opts[640];
	int parts, warps;
	if (sscanf(spec, "%255[^:]:%d:%d:%255[^\n]", path, &parts, &warps, extra) < 3) {
		printf("bad variant %s (SRC:PARTS:WARPS[:OPTIONS])\n", spec);
		return;
	}
	char *src = slurp(path);
	if (!src) {
		printf("cannot read %s\n", path);
		return;
	}
	snprintf(opts, sizeof opts, "-O2 -fno-bounds-check -ffp-contract=fast %s -DPARTS=%d -DWARPS=%d %s",
		 fp ? "-DT=float" : "-DT=uint -DT_INT", parts, warps, extra);
	size_t tile = (size_t)512 * parts * warps;
	uint32_t ntiles = (uint32_t)((n + tile - 1) / tile);
	uint32_t groups[3] = { ntiles, 1, 1 }, threads[3] = { (uint32_t)warps, 1, 1 };
	cmetal_program *p = NULL;
	cmetal_kernel *k = NULL;
	cmetal_buffer *st = NULL;
	cmetal_task *task[MAXROT] = { 0 };
	uint32_t *got = malloc(n * 4);
	double t[REPS];
	size_t bad = 0;
	int r, it;
	if (ck(cmetal_program_build(dev, src, opts, &p), "build") ||
	    ck(cmetal_kernel_create(p, "scan_tiles", &k), "kernel") ||
	    ck(cmetal_buffer_create(dev, (32 + 4 * (size_t)ntiles) * 4, &st), "state"))
		goto out;
	for (r = 0; r < nrot; r++)
		if (ck(cmetal_task_create(dev, &task[r]), "task") ||
		    ck(cmetal_kernel_set_arg_buffer(k, 0, buf[r]), "arg") ||
		    ck(cmetal_kernel_set_arg_buffer(k, 1, st), "arg") ||
		    ck(cmetal_kernel_set_arg(k, 2, 4, &ntiles), "arg") ||
		    ck(cmetal_task_add_groups(task[r], k, groups, threads), "task"))
			goto out;
	for (it = 0; it < REPS + 2; it++) {
		cmetal_event *ev = NULL;
		double ms;
		r = it % nrot;
		if (ck(cmetal_buffer_write(buf[r], 0, n * 4, in), "write") ||
		    ck(cmetal_task_run(task[r], &ev), "run") || ck(cmetal_event_wait(ev), "wait") ||
		    ck(cmetal_event_elapsed_ms(ev, &ms), "time"))
			goto out;
		cmetal_event_release(ev);
		if (it >= 2)
			t[it - 2] = ms;
		else if (ck(cmetal_buffer_read(buf[r], 0, n * 4, got), "read"))
			goto out;
		else
			bad += mismatches(got);
	}
	qsort(t, REPS, sizeof t[0], cmpd);
	printf("%s 2^%d %-40s tile %6zu: %s median %.4f ms  least %.4f  %.0f GB/s\n",
	       fp ? "scan-f32" : "scan-i32", (int)log2((double)n), spec, tile, bad ? "FAIL" : "ok  ",
	       t[REPS / 2], t[0], 8.0 * (double)n / t[REPS / 2] / 1e6);
	if (strstr(extra, "-DSTATS")) {
		uint32_t w[2];
		double tiles = (double)(REPS + 2) * (ntiles > 1 ? ntiles - 1 : 1);
		if (!ck(cmetal_buffer_read(st, 16, 8, w), "read"))
			printf("    look-back: %.2f windows a tile, %.2f of them read again\n",
			       w[0] / tiles, w[1] / tiles);
	}
out:
	fflush(stdout);
	for (r = 0; r < nrot; r++)
		if (task[r])
			cmetal_task_release(task[r]);
	if (st)
		cmetal_buffer_release(st);
	if (k)
		cmetal_kernel_release(k);
	if (p)
		cmetal_program_release(p);
	free(got);
	free(src);
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: scan_ab DEVICE LOG2N i|f SRC:PARTS:WARPS[:OPTIONS] ...\n");
		return 2;
	}
	if (ck(cmetal_device_open(argv[1], &dev), "device"))
		return 1;
	n = (size_t)1 << atoi(argv[2]);
	fp = argv[3][0] == 'f';
	nrot = n * 4 < (128u << 20) ? MAXROT : 1;
	in = malloc(n * 4);
	want = malloc(n * 4);
	wantd = fp ? malloc(n * sizeof *wantd) : NULL;
	absd = fp ? malloc(n * sizeof *absd) : NULL;
	uint64_t s = 88172645463325252ull;	/* xorshift64* */
	uint32_t acc = 0;
	double da = 0, dab = 0;
	for (size_t j = 0; j < n; j++) {
		s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
		uint32_t r = (uint32_t)((s * 2685821657736338717ull) >> 32);
		if (fp) {
			float x = (float)(r >> 8) / 8388608.0f - 1.0f;
			memcpy(&in[j], &x, 4);
			da += x, dab += fabs(x);
			wantd[j] = da, absd[j] = dab;
		} else {
			in[j] = r;
			want[j] = acc += r;
		}
	}
	for (int r = 0; r < nrot; r++)
		if (ck(cmetal_buffer_create(dev, n * 4, &buf[r]), "buffer"))
			return 1;
	for (int i = 4; i < argc; i++)
		variant(argv[i]);
	return 0;
}
