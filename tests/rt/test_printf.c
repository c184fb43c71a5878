/* test_printf.c — kernel printf never trusts its format or its buffer.
 *   - the CUDA device's host formatter (src/rt/cuda/printf.c) prints a
 *     marker for a conversion with no argument or one of the wrong kind,
 *     for %s, %p, unknown and incomplete conversions, and copes with huge
 *     widths and flags;
 *   - fed random records and formats, it never reads past the bytes it was
 *     given (the buffer ends at a guard page) and rejects bad records;
 *   - the C back end given IR whose printf arguments do not fit its format
 *     (sema refuses such CM; IR text does not go through sema) builds a
 *     kernel that prints the same text as the CUDA formatter, on the CPU.
 * Usage: test_printf WORK_DIR ROOT */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "rt/cuda/cuda.h"
#include "target/target.h"

/* Formats args (8-byte slots, by kinds) with the CUDA formatter. */
static char *format(const char *fmt, const char *kinds, const int64_t *slots)
{
	CudaFormat f = {fmt, kinds, (uint32_t)strlen(kinds)};
	Buf out = {0};
	cuda_printf_one(&f, (const unsigned char *)slots, &out);
	return buf_cstr(&out);
}

static int64_t dbl(double d)
{
	int64_t v;
	memcpy(&v, &d, 8);
	return v;
}

static void markers(void)
{
	static const struct {
		const char *name, *fmt, *kinds;
		int64_t slots[4];
		bool slot0_double;
		const char *want;
	} cases[] = {
		{"printf_missing_int", "a=%d b=%d|", "i", {7}, 0, "a=7 b=<%d: missing argument>|"},
		{"printf_no_args", "%s %d %5.2f\n", "", {0}, 0,
		 "<%s: not printable> <%d: missing argument> <%5.2f: missing argument>\n"},
		{"printf_string_given_int", "s=%s n=%d", "ii", {0x41414141, 3}, 0,
		 "s=<%s: not printable> n=3"},
		{"printf_int_for_float", "%f|%d", "id", {5, 0}, 1,
		 "<%f: argument of the wrong type>|<%d: argument of the wrong type>"},
		{"printf_pointer_and_n", "%p %n %d", "iii", {1, 2, 3}, 0,
		 "<%p: not printable> <%n: not printable> 3"},
		{"printf_unknown_and_incomplete", "%k %lld %", "il", {1, -5}, 0,
		 "<%k: not printable> -5 <%: not printable>"},
		{"printf_star_wrong_kind", "[%*d]", "di", {0, 4}, 1,
		 "[<%*d: argument of the wrong type>]"},
		{"printf_star_negative", "[%*d|%.*f]", "iiid", {-4, 7, -1, 0}, 0, "[7   |%.*f]"},
		{"printf_huge_width_capped", "%999999999999999999999d", "i", {1}, 0, NULL},
		{"printf_many_flags", "%-------------------------------------------+5d|", "i", {9}, 0,
		 "+9   |"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t s[4];
		memcpy(s, cases[i].slots, sizeof s);
		if (cases[i].slot0_double)
			s[0] = dbl(1.5);
		if (i == 7)
			s[3] = dbl(2.25);
		char *got = format(cases[i].fmt, cases[i].kinds, s);
		const char *want = cases[i].want;
		char w[64];
		if (i == 7) {
			snprintf(w, sizeof w, "[7   |%f]", 2.25);   /* negative precision: none */
			want = w;
		}
		bool ok = want ? !strcmp(got, want) : strlen(got) == 1023;   /* cut at 1023 */
		check(cases[i].name, ok, got);
		free(got);
	}
}

/* n bytes just before a PROT_NONE page: reading past them faults. */
static unsigned char *guarded(size_t n, void **map, size_t *maplen)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = (n + pg - 1) / pg + 1;
	unsigned char *m = mmap(NULL, pages * pg, PROT_READ | PROT_WRITE,
	                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	mprotect(m + (pages - 1) * pg, pg, PROT_NONE);
	*map = m;
	*maplen = pages * pg;
	return m + (pages - 1) * pg - n;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (uint32_t)rng;
}

/* Random record streams and random formats against the guard page. */
static void hostile_buffers(void)
{
	static const char *const texts[] = {
		"%d", "%s%s%s", "%*.*lld %hhx %c %%", "%", "x%-0+ #'123.456Lf", "%5", "plain",
		"%n%p%q%", "%d %d %d %d %d %d %d %d", "%.*s", "%ls %jd %zu %td %qd",
	};
	static const char *const kinds[] = {"", "i", "dd", "iulLd", "LLLLLLLL", "d", "u"};
	enum { NF = 8 };
	CudaFormat fmts[NF];
	char ftext[NF][64];
	int bad_records = 0, rounds = 3000;
	bool ok = true;
	for (int r = 0; r < rounds && ok; r++) {
		for (int f = 0; f < NF; f++) {
			if (rnd() % 3 == 0) {                 /* a random format text */
				int n = (int)(rnd() % 40);
				for (int k = 0; k < n; k++)
					ftext[f][k] = "%%%dsfx*.-l0123hq#Lz \n"[rnd() % 22];
				ftext[f][n] = '\0';
				fmts[f].text = ftext[f];
			} else {
				fmts[f].text = texts[rnd() % (sizeof texts / sizeof texts[0])];
			}
			fmts[f].kinds = kinds[rnd() % (sizeof kinds / sizeof kinds[0])];
			fmts[f].nargs = (uint32_t)strlen(fmts[f].kinds);
		}
		size_t used = rnd() % 600;
		void *map;
		size_t maplen;
		unsigned char *rec = guarded(used, &map, &maplen);
		if (!rec) {
			ok = false;
			break;
		}
		for (size_t k = 0; k < used; k++)
			rec[k] = (unsigned char)rnd();
		for (size_t off = 0; off + 8 <= used; off += 8 + 8 * (rnd() % 4)) {
			uint32_t fi = rnd() % 16 == 0 ? rnd() : rnd() % NF;   /* some out of range */
			memcpy(rec + off, &fi, 4);
		}
		Buf out = {0};
		bad_records += !cuda_printf_format(fmts, NF, rec, used, &out);
		buf_free(&out);
		munmap(map, maplen);
	}
	char why[128];
	snprintf(why, sizeof why, "%d of %d streams rejected", bad_records, rounds);
	check("printf_hostile_buffers_stay_in_bounds", ok && bad_records > 0, why);

	/* an index past the formats, and a record cut short */
	unsigned char rec[24] = {0};
	CudaFormat one = {"%d %d\n", "ii", 2};
	uint32_t fi = 5;
	memcpy(rec, &fi, 4);
	Buf out = {0};
	check("printf_bad_format_index_rejected", !cuda_printf_format(&one, 1, rec, 24, &out) &&
	      out.len == 0, NULL);
	fi = 0;
	memcpy(rec, &fi, 4);
	check("printf_short_record_rejected", !cuda_printf_format(&one, 1, rec, 16, &out) &&
	      out.len == 0, NULL);
	buf_free(&out);
}

/* The CPU device's printf, from IR the C back end must make safe. */
static const char *ir_src =
	"kernel @pf() {\n"
	"b0:\n"
	"\t%0:i32 = const -42\n"
	"\t%1:f64 = const 2.5\n"
	"\t%2:i64 = const 1234567890123\n"
	"\tprintf \"a=%d b=%s c=%f d=%d|\\n\", %1, %0\n"
	"\tprintf \"%5.1f %lld %x %*d %k|\\n\", %1, %2, %0, %1, %0, %0\n"
	"\tprintf \"%p %n %hhx %c %d %d\\n\", %0, %0, %0, %0\n"
	"\tprintf \"end %\", %0\n"
	"\tret\n"
	"}\n";

static Buf printed;
static void on_print(void *user, const char *text, size_t len)
{
	buf_putn(&printed, text, len);
}

static void cpu_matches_cuda(const char *work)
{
	CompileOptions co = {.opt_level = 0};
	Buf c = {0};
	if (!compile_ir_to("pf.ir", ir_src, &co, "c", &c)) {
		check("printf_cpu_bad_ir_compiles", 0, "compile_ir_to failed");
		return;
	}
	char cpath[4096], so[4096], cmd[16384];
	snprintf(cpath, sizeof cpath, "%s/pf.c", work);
	snprintf(so, sizeof so, "%s/pf.so", work);
	FILE *f = fopen(cpath, "w");
	fwrite(c.data, 1, c.len, f);
	fclose(f);
	buf_free(&c);
	const char *cc = getenv("CC") ? getenv("CC") : "cc";
	snprintf(cmd, sizeof cmd, "%s -O1 -Wformat -Werror=format -shared -fPIC -o '%s' '%s' -lm",
	         cc, so, cpath);
	check("printf_cpu_c_is_format_clean", system(cmd) == 0, cmd);
	/* clang's -Wformat is stricter than gcc's (h and hh want a short or
	 * char argument): the C must pass it too when clang is there */
	if (system("command -v clang >/dev/null 2>&1") == 0) {
		snprintf(cmd, sizeof cmd, "clang -O1 -Wformat -Werror=format -fsyntax-only '%s'", cpath);
		check("printf_cpu_c_is_format_clean_clang", system(cmd) == 0, cmd);
	}
	cmetal_device *dev;
	cmetal_program *p;
	cmetal_kernel *k;
	if (cmetal_device_open("cpu", &dev) || cmetal_program_load(dev, so, &p) ||
	    cmetal_kernel_create(p, "pf", &k)) {
		check("printf_cpu_bad_ir_loads", 0, cmetal_last_error());
		return;
	}
	cmetal_device_set_printf(dev, on_print, NULL);
	cmetal_launch_walker(k, 1, 1, CMETAL_DEP_NONE, NULL);
	int64_t i = -42, d = dbl(2.5), q = 1234567890123LL;
	Buf want = {0};
	char *t[4] = {
		format("a=%d b=%s c=%f d=%d|\n", "di", (int64_t[]){d, i}),
		format("%5.1f %lld %x %*d %k|\n", "dliddi", (int64_t[]){d, q, i, d, i, i}),
		format("%p %n %hhx %c %d %d\n", "iiii", (int64_t[]){i, i, i, i}),
		format("end %", "i", (int64_t[]){i}),
	};
	for (int n = 0; n < 4; n++) {
		buf_puts(&want, t[n]);
		free(t[n]);
	}
	char why[4096];
	snprintf(why, sizeof why, "cpu:\n%s\ncuda formatter:\n%s", buf_cstr(&printed),
	         buf_cstr(&want));
	check("printf_cpu_bad_ir_prints_markers", printed.len == want.len &&
	      !memcmp(printed.data, want.data, want.len) &&
	      strstr(buf_cstr(&printed), "a=<%d: argument of the wrong type> b=<%s: not printable> "
	             "c=<%f: missing argument>"), why);
	buf_free(&want);
	buf_free(&printed);
	cmetal_kernel_release(k);
	cmetal_program_release(p);
	cmetal_device_close(dev);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	markers();
	hostile_buffers();
	cpu_matches_cuda(argv[1]);
	return check_failures != 0;
}
