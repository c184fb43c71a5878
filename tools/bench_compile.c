/* bench_compile — how fast the front end checks a large CM file.
 * Writes a generated 5,000-line CM file (templates, vectors, matrices,
 * selects, SIMD control flow, builtins), runs `cmetal -fsyntax-only` on it
 * repeatedly as a child process and prints the median wall time and the
 * child's peak resident memory.  Targets: under 50 ms and under 64 MB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int lines;

static void put(FILE *f, const char *s)
{
	fputs(s, f);
	for (; *s; s++)
		lines += *s == '\n';
}

static void kernel(FILE *f, int i)
{
	char b[4096];
	snprintf(b, sizeof b,
	         "template <typename T, unsigned N>\n"
	         "inline _GENX_ void scale%d(vector_ref<T, N> v, T k)\n"
	         "{\n"
	         "    v = v * k + (T)%d;\n"
	         "}\n"
	         "\n"
	         "extern \"C\" _GENX_MAIN_ void kern%d(SurfaceIndex in [[type(\"buffer_t\")]],\n"
	         "                                     SurfaceIndex out [[type(\"buffer_t\")]], int n)\n"
	         "{\n"
	         "    vector<uint, 32> a;\n"
	         "    vector<uint, 32> b = %d;\n"
	         "    matrix<float, 4, 8> m;\n"
	         "    uint off = get_thread_origin_x() * 128;\n"
	         "    read(in, off, a);\n"
	         "    scale%d<uint, 32>(a, %du);\n"
	         "    b.select<16, 2>(0) += a.select<16, 2>(1);\n"
	         "    m = a;\n"
	         "    m.row(1) = m.row(2) * 0.5f;\n"
	         "    vector<ushort, 32> mask = a > b;\n"
	         "    SIMD_IF_BEGIN(mask) {\n"
	         "        a = a + 1;\n"
	         "    } SIMD_ELSE {\n"
	         "        a = b - 1;\n"
	         "    } SIMD_IF_END;\n"
	         "    for (int j = 0; j < n; j++) {\n"
	         "        a.select<8, 1>(j & 7) ^= b.select<8, 4>(0);\n"
	         "    }\n"
	         "    uint s = cm_sum<uint>(a.format<uint, 4, 8>().row(0));\n"
	         "    if (s > 100 && n > 0)\n"
	         "        a = cm_max<uint>(a, s);\n"
	         "    vector<float, 32> fv = m;\n"
	         "    fv = cm_rsqrt(fv + 1.0f);\n"
	         "    a += vector<uint, 32>(fv * 3.0f, SAT);\n"
	         "    write(out, off, a);\n"
	         "}\n"
	         "\n",
	         i, i, i, i, i, i);
	put(f, b);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *cmetal = argc > 1 ? argv[1] : "build/cmetal";
	const char *path = "build/bench_compile_input.cm";
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	for (int i = 0; lines < 5000; i++)
		kernel(f, i);
	fclose(f);
	enum { RUNS = 15 };
	double t[RUNS];
	long peak_kb = 0;
	for (int r = 0; r < RUNS; r++) {
		double t0 = now_ms();
		pid_t pid = fork();
		if (pid == 0) {
			execl(cmetal, cmetal, "-fsyntax-only", path, (char *)NULL);
			_exit(127);
		}
		int status;
		struct rusage ru;
		wait4(pid, &status, 0, &ru);
		t[r] = now_ms() - t0;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "bench-compile: %s failed on %s (status %d)\n", cmetal, path, status);
			return 1;
		}
		if (ru.ru_maxrss > peak_kb)
			peak_kb = ru.ru_maxrss;
	}
	qsort(t, RUNS, sizeof t[0], cmp);
	printf("bench-compile: %d lines checked in %.1f ms (median of %d runs; target < 50 ms)\n",
	       lines, t[RUNS / 2], RUNS);
	printf("bench-compile: peak memory %.1f MB (target < 64 MB)\n", peak_kb / 1024.0);
	return (t[RUNS / 2] < 50 && peak_kb < 64 * 1024) ? 0 : 1;
}
