/* util.c — timing, allocation, medians, CSV output and a small pthread
 * parallel-for for the reference checks.  Throughput is work / time, where
 * case_work() names the work unit of each workload: bytes moved for the
 * memory-bound ones (so the report can relate them to copy bandwidth),
 * flops for GEMM, keys for sorting and points for k-means. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

int bench_threads;

double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void bench_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "bench: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, n ? n : 1))
		bench_die("out of memory (%zu bytes)", n);
	return p;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int bench_reps(void)
{
	const char *s = getenv("BENCH_REPS");
	int r = s ? atoi(s) : 5;
	return r < 1 ? 1 : r > 100 ? 100 : r;
}

/* Enough copies that one pass over all of them exceeds 128 MB (larger than
 * any last-level cache the harnesses run on), at most 8. */
int bench_nrot(size_t bytes)
{
	size_t want = (128u << 20) / (bytes ? bytes : 1) + 1;
	return want > 8 ? 8 : (int)want;
}

const char *cpu_name(void)
{
	static char name[128];
	char line[256];
	FILE *f;
	if (name[0])
		return name;
	snprintf(name, sizeof name, "unknown CPU");
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return name;
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) || !colon)
			continue;
		snprintf(name, sizeof name, "%s", colon + 2);
		name[strcspn(name, "\n")] = 0;
		break;
	}
	fclose(f);
	return name;
}

void csv_header(const char *device, const char *driver, const char *note)
{
	char date[64];
	time_t t = time(NULL);
	strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
	printf("# device: %s\n# driver: %s\n# date: %s\n# host-cpu: %s (%ld cores)\n",
	       device, driver, date, cpu_name(), sysconf(_SC_NPROCESSORS_ONLN));
	if (note)
		printf("# note: %s\n", note);
	printf("workload,size,device,impl,time_ms,throughput,unit,checked,cpu_ms\n");
	fflush(stdout);
}

void csv_row(const BenchCase *c, const char *device, const char *impl,
	     double ms, double work, const char *unit, const char *checked)
{
	csv_row_cpu(c, device, impl, ms, -1, work, unit, checked);
}

/* cpu < 0: not measured, the field is left out (readers take a missing
 * cpu_ms as unknown, as in CSVs written before the column existed). */
void csv_row_cpu(const BenchCase *c, const char *device, const char *impl,
		 double ms, double cpu, double work, const char *unit,
		 const char *checked)
{
	printf("%s,%s,%s,%s,%.4f,%.4f,%s,%s", c->workload, c->size, device,
	       impl, ms, ms > 0 ? work / (ms / 1e3) : 0, unit, checked);
	if (cpu >= 0)
		printf(",%.4f", cpu);
	printf("\n");
	fflush(stdout);
}

double case_work(const BenchCase *c, const char **unit)
{
	double n = (double)c->p[0];
	*unit = "GB/s";
	if (!strcmp(c->workload, "linear"))
		return 2.0 * c->p[0] * c->p[1] * 3 / 1e9;
	if (!strcmp(c->workload, "histogram"))
		return n / 1e9;
	if (!strcmp(c->workload, "transpose"))
		return 2.0 * n * n * 4 / 1e9;
	if (!strncmp(c->workload, "scan", 4))
		return 2.0 * (double)(1L << c->p[0]) * 4 / 1e9;
	if (strstr(c->workload, "gemm")) {
		*unit = "GFLOP/s";
		return 2.0 * n * n * n / 1e9;
	}
	if (!strcmp(c->workload, "bitonic")) {
		*unit = "Mkeys/s";
		return (double)(1L << c->p[0]) / 1e6;
	}
	if (!strcmp(c->workload, "kmeans")) {
		*unit = "Mpts/s";	/* times iterations for convergence runs */
		return n / 1e6;
	}
	return 0;	/* spmv: the harness computes bytes from the matrix */
}

typedef struct {
	void (*fn)(void *, long, long);
	void *ctx;
	long lo, hi;
} Slice;

static void *slice_run(void *p)
{
	Slice *s = p;
	s->fn(s->ctx, s->lo, s->hi);
	return NULL;
}

void par_for(long n, void (*fn)(void *ctx, long lo, long hi), void *ctx)
{
	enum { MAXT = 64 };
	pthread_t tid[MAXT];
	Slice s[MAXT];
	int t, nt = bench_threads;
	if (nt <= 0)
		nt = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (nt > MAXT)
		nt = MAXT;
	if (nt <= 1 || n < 1024) {
		fn(ctx, 0, n);
		return;
	}
	for (t = 0; t < nt; t++) {
		s[t] = (Slice){ fn, ctx, n * t / nt, n * (t + 1) / nt };
		if (pthread_create(&tid[t], NULL, slice_run, &s[t]))
			bench_die("pthread_create failed");
	}
	for (t = 0; t < nt; t++)
		pthread_join(tid[t], NULL);
}

/* fp16: 1 sign, 5 exponent (bias 15), 10 fraction bits. */
float f16_to_f32(uint16_t h)
{
	int e = h >> 10 & 31, f = h & 1023;
	float v = e == 0 ? ldexpf((float)f, -24)
		: e == 31 ? (f ? NAN : INFINITY) : ldexpf((float)(f | 1024), e - 25);
	return h >> 15 ? -v : v;
}

/* Rounds to nearest even through the float's own bits. */
uint16_t f32_to_f16(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	uint16_t s = (uint16_t)(x >> 16 & 0x8000);
	int e = (int)(x >> 23 & 255) - 127 + 15;
	uint32_t m = x & 0x7fffff;
	if ((x & 0x7fffffff) > 0x7f800000)
		return s | 0x7e00;                      /* NaN */
	if (e >= 31)
		return s | 0x7c00;                      /* overflow: infinity */
	int shift = 13;
	if (e <= 0) {                                   /* subnormal or zero */
		if (e < -10)
			return s;
		m |= 0x800000, shift = 14 - e, e = 0;
	}
	uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	/* a carry out of the fraction bumps the exponent, as it should */
	return (uint16_t)(s | (((uint32_t)e << 10) + q));
}
