/* cases.c — the table of benchmark cases (workload x size) shared by every
 * harness, and the filter that picks cases for a run.  "full" rows are the
 * sizes the project reports; "small" rows are scaled-down versions that run
 * on the 2-core CPU within the CI budget.  Size labels are the join key with
 * CM results, so never rename one. */
#include <string.h>

#include "bench.h"

#define MB (1L << 20)

const BenchCase bench_cases[] = {
	/* workload   size label                     full gpu  p0 p1 p2 p3 */
	{ "linear", "640x480", 0, 0, { 640, 480 } },
	{ "linear", "1920x1080", 1, 0, { 1920, 1080 } },
	{ "linear", "7680x4320", 1, 0, { 7680, 4320 } },
	{ "bitonic", "2^16", 0, 0, { 16 } },
	{ "bitonic", "2^20", 1, 0, { 20 } },
	{ "bitonic", "2^24", 1, 0, { 24 } },
	{ "bitonic", "2^26", 1, 0, { 26 } },
	{ "histogram", "random-16MB", 0, 0, { 16 * MB, 0 } },
	{ "histogram", "skewed-16MB", 0, 0, { 16 * MB, 1 } },
	{ "histogram", "random-256MB", 1, 0, { 256 * MB, 0 } },
	{ "histogram", "skewed-256MB", 1, 0, { 256 * MB, 1 } },
	{ "kmeans", "2^16-D4-K16-iter", 0, 0, { 1L << 16, 4, 16, 0 } },
	{ "kmeans", "2^16-D4-K16-conv", 0, 0, { 1L << 16, 4, 16, 1 } },
	{ "kmeans", "2^22-D4-K16-iter", 1, 0, { 1L << 22, 4, 16, 0 } },
	{ "kmeans", "2^22-D4-K64-iter", 1, 0, { 1L << 22, 4, 64, 0 } },
	{ "kmeans", "2^22-D16-K16-iter", 1, 0, { 1L << 22, 16, 16, 0 } },
	{ "kmeans", "2^22-D16-K64-iter", 1, 0, { 1L << 22, 16, 64, 0 } },
	{ "kmeans", "2^22-D4-K16-conv", 1, 0, { 1L << 22, 4, 16, 1 } },
	{ "kmeans", "2^22-D16-K64-conv", 1, 0, { 1L << 22, 16, 64, 1 } },
	{ "spmv", "protein/16", 0, 0, { SPMV_PROTEIN, 16 } },
	{ "spmv", "webbase/16", 0, 0, { SPMV_WEBBASE, 16 } },
	{ "spmv", "protein", 1, 0, { SPMV_PROTEIN, 1 } },
	{ "spmv", "nd24k", 1, 0, { SPMV_ND24K, 1 } },
	{ "spmv", "webbase-1M", 1, 0, { SPMV_WEBBASE, 1 } },
	{ "transpose", "1024^2", 0, 0, { 1024 } },
	{ "transpose", "4096^2", 1, 0, { 4096 } },
	{ "transpose", "8192^2", 1, 0, { 8192 } },
	{ "sgemm", "256^3", 0, 0, { 256, 32 } },
	{ "dgemm", "256^3", 0, 0, { 256, 64 } },
	{ "sgemm", "4096^3", 1, 0, { 4096, 32 } },
	{ "dgemm", "4096^3", 1, 0, { 4096, 64 } },
	{ "sgemm", "8192^3", 1, 1, { 8192, 32 } },
	{ "dgemm", "8192^3", 1, 1, { 8192, 64 } },
	{ "hgemm", "256^3", 0, 0, { 256, 16 } },
	{ "hgemm", "8192^3", 1, 0, { 8192, 16 } },
	{ "scan-i32", "2^20", 0, 0, { 20, 0 } },
	{ "scan-f32", "2^20", 0, 0, { 20, 1 } },
	{ "scan-i32", "2^24", 1, 0, { 24, 0 } },
	{ "scan-f32", "2^24", 1, 0, { 24, 1 } },
	{ "scan-i32", "2^28", 1, 0, { 28, 0 } },
	{ "scan-f32", "2^28", 1, 0, { 28, 1 } },
};
const int bench_ncases = sizeof bench_cases / sizeof bench_cases[0];

/* Is name one of the comma-separated words in list?  "sgemm" also matches
 * "gemm", "scan-i32" matches "scan". */
static int in_list(const char *name, const char *list)
{
	size_t n = strlen(name);
	while (*list) {
		const char *end = strchr(list, ',');
		size_t len = end ? (size_t)(end - list) : strlen(list);
		if (len == n && !strncmp(list, name, n))
			return 1;
		if (len == 4 && !strncmp(list, "gemm", 4) && strstr(name, "gemm"))
			return 1;
		if (len == 4 && !strncmp(list, "scan", 4) && !strncmp(name, "scan", 4))
			return 1;
		if (!end)
			break;
		list = end + 1;
	}
	return 0;
}

int bench_select(const BenchCase *c, const char *workloads, const char *size,
		 int on_gpu)
{
	if (workloads && *workloads && strcmp(workloads, "all") &&
	    !in_list(c->workload, workloads))
		return 0;
	if (c->gpu_only && !on_gpu)
		return 0;
	if (!size || !strcmp(size, "all"))
		return 1;
	if (!strcmp(size, "full"))
		return c->full;
	return !c->full;
}
