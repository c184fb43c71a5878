/* test_limits.c — no input crashes the compiler or the program that calls
 * it.  Each case generates a source (deep nesting, long chains, template
 * recursion) and compiles it with cmetal_compile for ir, c and ptx on a
 * thread with a 512 KB stack (2 MB under ASan); the case passes if every compile returns, with
 * the expected diagnostic when the input is over a limit.  For the nesting
 * cases the deepest accepted input is found by bisection and compiled too,
 * and the stack it used is printed: recursion at the limit must fit.
 * Usage: test_limits */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include "check.h"

/* 512 KB; sanitizer builds (make test-asan, a ThreadSanitizer build) take
 * 3-4 times the stack per frame, so they get 2 MB. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifdef SANITIZED
enum { STACK = 2048 << 10, PAGE = 4096 };
#else
enum { STACK = 512 << 10, PAGE = 4096 };
#endif

/* ------------------------------------------------ compiling on a small stack */

typedef struct {
	const char *src, *target;
	cm_status st;
	char *log;
} Job;

static void *run_job(void *arg)
{
	Job *j = arg;
	char *out = NULL;
	j->st = cmetal_compile(j->src, "", j->target, &out, NULL, &j->log);
	free(out);
	return NULL;
}

static unsigned char *stack_mem;   /* a guard page, then STACK bytes */

/* Compiles src for target on a STACK-byte thread; returns the bytes of stack
 * it touched.  Overflowing hits the guard page and kills the test. */
static size_t compile_small(Job *j)
{
	if (!stack_mem) {
		stack_mem = mmap(NULL, STACK + PAGE, PROT_READ | PROT_WRITE,
		                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (stack_mem == MAP_FAILED)
			abort();
		mprotect(stack_mem, PAGE, PROT_NONE);
	}
	unsigned char *lo = stack_mem + PAGE;
	memset(lo, 0xa5, STACK);
	pthread_attr_t at;
	pthread_t t;
	pthread_attr_init(&at);
	pthread_attr_setstack(&at, lo, STACK);
	if (pthread_create(&t, &at, run_job, j))
		abort();
	pthread_join(t, NULL);
	pthread_attr_destroy(&at);
	size_t untouched = 0;
	while (untouched < STACK && lo[untouched] == 0xa5)
		untouched++;
	return STACK - untouched;
}

/* Compiles for every target; true when each result matches: accepted when
 * want is NULL, else failed with want in the diagnostics. */
static int ntargets = 3;

static bool compile_all(const char *src, const char *want, size_t *stack, char *why, size_t nwhy)
{
	static const char *targets[] = {"ir", "c", "ptx"};
	bool ok = true;
	*stack = 0;
	for (int i = 0; i < ntargets && ok; i++) {
		Job j = {src, targets[i], 0, NULL};
		size_t used = compile_small(&j);
		if (used > *stack)
			*stack = used;
		const char *log = j.log ? j.log : "";
		ok = want ? j.st == CM_BUILD_FAILED && strstr(log, want) : j.st == CM_SUCCESS;
		if (!ok)
			snprintf(why, nwhy, "-t %s: status %s, want %s; log: %.600s", targets[i],
			         cmetal_status_name(j.st), want ? want : "success", log);
		free(j.log);
	}
	return ok;
}

/* ------------------------------------------------------------- generators */

typedef char *Gen(int n);

static char *text;
static size_t text_len;

static FILE *open_text(void)
{
	free(text);
	text = NULL;
	return open_memstream(&text, &text_len);
}

#define KERNEL "extern \"C\" _GENX_MAIN_ void k(SurfaceIndex s, int a)\n{\n"

static void rep(FILE *f, const char *s, int n)
{
	for (int i = 0; i < n; i++)
		fputs(s, f);
}

static char *close_text(FILE *f)
{
	fclose(f);
	return text;
}

/* a+a+...+a: a left-deep chain built by a loop in the parser */
static char *gen_sum(int n)
{
	FILE *f = open_text();
	fprintf(f, KERNEL "int x = a");
	rep(f, "+a", n);
	fprintf(f, ";\nwrite(s, 0, x);\n}\n");
	return close_text(f);
}

/* a*(a+(a*(...))): right nesting through parentheses */
static char *gen_paren(int n)
{
	FILE *f = open_text();
	fprintf(f, KERNEL "int x = ");
	rep(f, "a+(", n);
	fprintf(f, "a");
	rep(f, ")", n);
	fprintf(f, ";\nwrite(s, 0, x);\n}\n");
	return close_text(f);
}

static char *gen_cond(int n)
{
	FILE *f = open_text();
	fprintf(f, KERNEL "int x = ");
	rep(f, "a?", n);
	fprintf(f, "1");
	rep(f, ":2", n);
	fprintf(f, ";\nwrite(s, 0, x);\n}\n");
	return close_text(f);
}

static char *gen_unary(int n)
{
	FILE *f = open_text();
	fprintf(f, KERNEL "int x = ");
	rep(f, "-~", n / 2);
	fprintf(f, "a;\nwrite(s, 0, x);\n}\n");
	return close_text(f);
}

static char *gen_assign(int n)
{
	FILE *f = open_text();
	fprintf(f, KERNEL "int x;\n");
	rep(f, "x = ", n);
	fprintf(f, "a;\nwrite(s, 0, x);\n}\n");
	return close_text(f);
}

static char *gen_comma(int n)
{
	FILE *f = open_text();
	fprintf(f, KERNEL "int x;\nx = (a");
	rep(f, ", a", n);
	fprintf(f, ");\nwrite(s, 0, x);\n}\n");
	return close_text(f);
}

static char *gen_select(int n)
{
	FILE *f = open_text();
	fprintf(f, KERNEL "vector<int, 8> v = a;\nvector<int, 8> w = v");
	rep(f, ".select<8, 1>(0)", n);
	fprintf(f, ";\nwrite(s, 0, w);\n}\n");
	return close_text(f);
}

static char *gen_call(int n)
{
	FILE *f = open_text();
	fprintf(f, "inline int g(int x) { return x + 1; }\n" KERNEL "int x = ");
	rep(f, "g(", n);
	fprintf(f, "a");
	rep(f, ")", n);
	fprintf(f, ";\nwrite(s, 0, x);\n}\n");
	return close_text(f);
}

static char *gen_block(int n)
{
	FILE *f = open_text();
	fprintf(f, KERNEL "int x = a;\n");
	rep(f, "{", n);
	fprintf(f, "x += 1;");
	rep(f, "}", n);
	fprintf(f, "\nwrite(s, 0, x);\n}\n");
	return close_text(f);
}

static char *gen_if(int n)
{
	FILE *f = open_text();
	fprintf(f, KERNEL "int x = a;\n");
	rep(f, "if (x) ", n);
	fprintf(f, "x = 2;\nwrite(s, 0, x);\n}\n");
	return close_text(f);
}

static char *gen_else_if(int n)
{
	FILE *f = open_text();
	fprintf(f, KERNEL "int x = a;\n");
	for (int i = 0; i < n; i++)
		fprintf(f, "%sif (a == %d) x = %d;\n", i ? "else " : "", i, i + 1);
	fprintf(f, "write(s, 0, x);\n}\n");
	return close_text(f);
}

static char *gen_while(int n)
{
	FILE *f = open_text();
	fprintf(f, KERNEL "int x = a;\n");
	rep(f, "while (x < 3) ", n);
	fprintf(f, "x++;\nwrite(s, 0, x);\n}\n");
	return close_text(f);
}

static char *gen_init(int n)
{
	FILE *f = open_text();
	fprintf(f, "const int t[1] = ");
	rep(f, "{", n);
	fprintf(f, "1");
	rep(f, "}", n);
	fprintf(f, ";\n" KERNEL "write(s, 0, a);\n}\n");
	return close_text(f);
}

/* n functions, each an expression `body` deep around a call of the
 * previous one: inlining nests them all. */
static char *gen_call_chain(int n, int body)
{
	FILE *f = open_text();
	fprintf(f, "inline int g0(int a) { return a; }\n");
	for (int i = 1; i <= n; i++) {
		fprintf(f, "inline int g%d(int a) { return ", i);
		rep(f, "a+(", body);
		fprintf(f, "g%d(a)", i - 1);
		rep(f, ")", body);
		fprintf(f, "; }\n");
	}
	fprintf(f, KERNEL "write(s, 0, g%d(a));\n}\n", n);
	return close_text(f);
}

/* The same with the heaviest frames: each body a chain of 500 selects. */
static char *gen_select_chain(int n)
{
	FILE *f = open_text();
	fprintf(f, "inline vector<int, 8> g0(vector<int, 8> v) { return v; }\n");
	for (int i = 1; i <= n; i++) {
		fprintf(f, "inline vector<int, 8> g%d(vector<int, 8> v) { return g%d(v)", i, i - 1);
		rep(f, ".select<8, 1>(0)", 500);
		fprintf(f, "; }\n");
	}
	fprintf(f, KERNEL "vector<int, 8> v = a;\nwrite(s, 0, g%d(v));\n}\n", n);
	return close_text(f);
}

/* A template that instantiates itself forever, each body a deep
 * expression around the call when deep is set. */
static char *gen_template(int deep)
{
	FILE *f = open_text();
	fprintf(f, "template <int N> int f(int a) { return ");
	rep(f, "a+(", deep);
	fprintf(f, "f<N + 1>(a)");
	rep(f, ")", deep);
	fprintf(f, "; }\n" KERNEL "write(s, 0, f<0>(a));\n}\n");
	return close_text(f);
}

/* n ifs one after the other: a chain of 3n blocks (SSA construction and
 * the CFG walks used to recurse along it). */
static char *gen_seq_if(int n)
{
	FILE *f = open_text();
	fprintf(f, KERNEL "int x = a;\n");
	rep(f, "if (a > 3) x += 2;\n", n);
	fprintf(f, "write(s, 0, x);\n}\n");
	return close_text(f);
}

/* n statements in one block: the verifier's dominance check within a
 * block was quadratic (4,000 took 4 s, found by fuzz_all) */
static char *gen_seq_stmts(int n)
{
	FILE *f = open_text();
	fprintf(f, KERNEL "int x = a;\n");
	rep(f, "x = x * a + 3;\n", n);
	fprintf(f, "write(s, 0, x);\n}\n");
	return close_text(f);
}

static char *gen_struct_nest(int n)
{
	FILE *f = open_text();
	fprintf(f, "struct S0 { int a; };\n");
	for (int i = 1; i < n; i++)
		fprintf(f, "struct S%d { struct S%d a; int b; };\n", i, i - 1);
	fprintf(f, KERNEL "struct S%d v;\nv.b = a;\nwrite(s, 0, v.b);\n}\n", n - 1);
	return close_text(f);
}

static char *gen_pp_if(int n)
{
	FILE *f = open_text();
	fprintf(f, "#if ");
	rep(f, "(", n);
	fprintf(f, "1");
	rep(f, ")", n);
	fprintf(f, "\n" KERNEL "write(s, 0, a);\n}\n#endif\n");
	return close_text(f);
}

static char *gen_macro_args(int n)
{
	FILE *f = open_text();
	fprintf(f, "#define F(x) x\n" KERNEL "write(s, 0, ");
	rep(f, "F(", n);
	fprintf(f, "a");
	rep(f, ")", n);
	fprintf(f, ");\n}\n");
	return close_text(f);
}

/* n macros each defined as the previous one (object-like, or function-like
 * passing a growing argument): hide sets made these O(n^3) and worse. */
static char *gen_macro_chain(int n)
{
	FILE *f = open_text();
	fprintf(f, "#define M0 a\n#define F0(x) x\n#define G0(x) x\n");
	for (int i = 1; i < n; i++)
		fprintf(f, "#define M%d M%d\n#define F%d(x) F%d(x)\n", i, i - 1, i, i - 1);
	for (int i = 1; i < 300; i++)
		fprintf(f, "#define G%d(x) G%d(x + 1)\n", i, i - 1);
	fprintf(f, KERNEL "write(s, 0, M%d + F%d(0) + G299(0));\n}\n", n - 1, n - 1);
	return close_text(f);
}

/* #line with huge numbers: each once copied the file after that many
 * newlines. */
static char *gen_line(int n)
{
	FILE *f = open_text();
	for (int i = 0; i < n; i++)
		fprintf(f, "#line %d\n", 1000000000 + i);
	fprintf(f, KERNEL "write(s, 0, a);\n}\n");
	return close_text(f);
}

/* n redefinitions of a macro, a warning and a note each: every diagnostic
 * once looked for its source line from the start of the file (n^2). */
static char *gen_redefine(int n)
{
	FILE *f = open_text();
	for (int i = 0; i < n; i++)
		fprintf(f, "#define W %d\n", i % 2);
	fprintf(f, KERNEL "write(s, 0, a + W);\n}\n");
	return close_text(f);
}

/* Each function calls the previous twice: 2^n inlined calls. */
static char *gen_exponential(int n)
{
	FILE *f = open_text();
	fprintf(f, "inline int f0(int a) { return a + 1; }\n");
	for (int i = 1; i <= n; i++)
		fprintf(f, "inline int f%d(int a) { return f%d(a) * f%d(a + 1); }\n", i, i - 1, i - 1);
	fprintf(f, KERNEL "write(s, 0, f%d(a));\n}\n", n);
	return close_text(f);
}

/* ------------------------------------------------------------------ cases */

static void report(const char *name, bool ok, const char *why, size_t stack)
{
	char msg[1200];
	snprintf(msg, sizeof msg, "%s (stack used: %zu KB)", why, stack >> 10);
	check(name, ok, msg);
	if (ok)
		printf("    %s: %zu KB of the %d KB stack\n", name, stack >> 10, STACK >> 10);
}

/* The deepest accepted input of a nesting generator, by bisection, must
 * compile; one far over the limit must be rejected with want. */
static void nesting_case(const char *name, Gen *gen, int over, const char *want)
{
	char why[1024] = "", cname[128];
	size_t stack = 0, st;
	int lo = 1, hi;
	if (!compile_all(gen(lo), NULL, &stack, why, sizeof why)) {
		snprintf(cname, sizeof cname, "limits_%s_small", name);
		report(cname, false, why, stack);
		return;
	}
	ntargets = 1;   /* bisect on -t ir, the limits are the front end's */
	for (hi = 1024; hi - lo > 1;) {
		int mid = lo + (hi - lo) / 2;
		char tmp[1024];
		if (compile_all(gen(mid), NULL, &st, tmp, sizeof tmp))
			lo = mid;
		else
			hi = mid;
	}
	ntargets = 3;
	bool ok = compile_all(gen(lo), NULL, &stack, why, sizeof why);
	snprintf(cname, sizeof cname, "limits_%s_at_%d", name, lo);
	report(cname, ok, why, stack);
	ok = compile_all(gen(over), want, &stack, why, sizeof why);
	snprintf(cname, sizeof cname, "limits_%s_over_%d", name, over);
	report(cname, ok, why, stack);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* src compiles (want NULL) or fails with want, within max_s seconds for
 * all the targets. */
static void reject_case_in(const char *name, const char *src, const char *want, double max_s)
{
	char why[1024] = "";
	size_t stack;
#ifdef SANITIZED
	max_s *= 5;   /* the sanitizers' slowdown (limits_seq_if_3000: 2 s plain, 20 s TSan) */
#endif
	double t0 = now();
	bool ok = compile_all(src, want, &stack, why, sizeof why);
	double t = now() - t0;
	if (ok && t > max_s) {
		ok = false;
		snprintf(why, sizeof why, "took %.2f s (at most %.0f s)", t, max_s);
	}
	report(name, ok, why, stack);
	if (ok)
		printf("    %s: %.3f s\n", name, t);
}

static void reject_case(const char *name, const char *src, const char *want)
{
	reject_case_in(name, src, want, 60);
}

/* n small kernels (about 160 bytes each) in one unit */
static char *gen_many_kernels(int n)
{
	FILE *f = open_text();
	fprintf(f, "#include <cm/cm.h>\n");
	for (int i = 0; i < n; i++)
		fprintf(f, "extern \"C\" _GENX_MAIN_ void k%d(SurfaceIndex b, int n)\n{\n"
		           "\tvector<int, 8> v;\n\tread(b, %d, v);\n\tv = v * n + %d;\n"
		           "\tif (v(0) > 3)\n\t\tv += 1;\n\twrite(b, %d, v);\n}\n",
		        i, 32 * (i % 64), i, 32 * (i % 64));
	return close_text(f);
}

/* One kernel of about `bytes` bytes of straight-line vector code */
static char *gen_huge_kernel(size_t bytes)
{
	FILE *f = open_text();
	fprintf(f, "#include <cm/cm.h>\nextern \"C\" _GENX_MAIN_ void big(SurfaceIndex b, int n)\n"
	           "{\n\tvector<int, 8> v;\n\tvector<float, 8> f;\n\tread(b, 0, v);\n\tf = v;\n");
	for (int i = 0; (size_t)ftell(f) < bytes; i++)
		fprintf(f, "\tv = v * n + %d;\n\tf = f * %d.5f + v;\n"
		           "\tv.select<4,2>(%d) += v.select<4,2>(%d);\n", i, i % 7, i % 2, 1 - i % 2);
	fprintf(f, "\tv += f;\n\twrite(b, 0, v);\n}\n");
	return close_text(f);
}

/* The compiler's peak memory per source byte, compiling src to target in
 * a child process (its ru_maxrss less that of a child that compiles an
 * empty kernel), is at most max.  The syntax tree (a node of 96 to 320
 * bytes, by kind, per 3 to 5 source bytes) lives until the last kernel is
 * lowered; a kernel's IR lives until the kernel is emitted (so the IR of
 * one kernel at most is alive), and the output text until the end; see
 * the bounds in main for what was measured. */
static void memory_case(const char *name, const char *src, const char *target, double max)
{
#ifdef SANITIZED
	/* ASan and TSan multiply the memory the compiler uses (TSan: 408-710
	 * bytes per byte for these inputs): the bound is the plain build's */
	char skipped[256];
	snprintf(skipped, sizeof skipped, "%s (skipped: sanitizer build)", name);
	check(skipped, 1, NULL);
	return;
#endif
	long base = 0, peak = 0;
	for (int pass = 0; pass < 2; pass++) {
		pid_t pid = fork();
		if (pid == 0) {
			char *out = NULL, *log = NULL;
			const char *s = pass ? src : "extern \"C\" _GENX_MAIN_ void k() {}\n";
			_exit(cmetal_compile(s, "", target, &out, NULL, &log) == CM_SUCCESS ? 0 : 1);
		}
		int st = 0;
		struct rusage ru;
		if (pid < 0 || wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
			check(name, 0, "the child compile failed");
			return;
		}
		*(pass ? &peak : &base) = ru.ru_maxrss;   /* KB */
	}
	double per = (double)(peak - base) * 1024.0 / (double)strlen(src);
	char why[256];
	snprintf(why, sizeof why, "%.0f bytes of memory per source byte (at most %.0f; %ld KB for "
	         "%zu bytes)", per, max, peak - base, strlen(src));
	check(name, per <= max, why);
	printf("    %s\n", why);
}

int main(void)
{
	const char *deep = "nesting is too deep";
	nesting_case("sum", gen_sum, 75000, deep);
	nesting_case("paren", gen_paren, 50000, deep);
	nesting_case("cond", gen_cond, 58600, deep);
	nesting_case("unary", gen_unary, 100000, deep);
	nesting_case("assign", gen_assign, 50000, deep);
	nesting_case("comma", gen_comma, 50000, deep);
	nesting_case("select", gen_select, 20000, deep);
	nesting_case("call", gen_call, 50000, deep);
	nesting_case("block", gen_block, 50000, deep);
	nesting_case("if", gen_if, 50000, deep);
	nesting_case("else_if", gen_else_if, 20000, deep);
	nesting_case("while", gen_while, 20000, deep);
	nesting_case("init", gen_init, 50000, deep);
	reject_case("limits_template_recursion", gen_template(0),
	            "maximum template instantiation depth of 64");
	reject_case("limits_template_deep_bodies", gen_template(150), "exceeds the nesting limit");
	reject_case("limits_inline_chain", gen_call_chain(60, 150), "exceeds the nesting limit");
	reject_case("limits_inline_selects", gen_select_chain(8), "exceeds the nesting limit");
	reject_case("limits_inline_depth", gen_call_chain(70, 1), "calls nested too deeply");
	reject_case_in("limits_seq_if_3000", gen_seq_if(3000), NULL, 20);
	setenv("CMETAL_NO_PTXAS", "1", 1);   /* ptxas's time is not the compiler's */
	const char *many = gen_many_kernels(5000);
	/* measured: 5,000 kernels 53 (C) and 66 (PTX) bytes per byte, one
	 * 0.5 MB kernel 73 and 89 (57, 85, 120 and 183 before the syntax tree
	 * was freed once the last kernel is lowered, files were lexed a token
	 * at a time, tokens freed between statements, the back ends' per-
	 * instruction scratch reset and PxVal made 120 bytes; 108, 137, 212
	 * and 288 before the AST nodes were sized by kind, the tokens freed
	 * behind the parser and the PTX kept once); the bounds leave about
	 * 1.2x */
	memory_case("limits_memory_per_byte_c", many, "c", 64);
	memory_case("limits_memory_per_byte_ptx", many, "ptx", 80);
	const char *huge = gen_huge_kernel(500000);
	memory_case("limits_memory_per_byte_huge_c", huge, "c", 88);
	memory_case("limits_memory_per_byte_huge_ptx", huge, "ptx", 107);
	reject_case_in("limits_seq_stmts_20000", gen_seq_stmts(20000), NULL, 10);
	unsetenv("CMETAL_NO_PTXAS");
	reject_case("limits_struct_nest", gen_struct_nest(20000), "nests structs more than 256");
	reject_case("limits_pp_if_nest", gen_pp_if(100000), "preprocessor expression nests too deeply");
	reject_case("limits_macro_args", gen_macro_args(100000), "macro arguments are too large");
	reject_case("limits_macro_args_deep", gen_macro_args(300), "macro arguments nest too deeply");
	reject_case_in("limits_macro_chain_3000", gen_macro_chain(3000), NULL, 10);
	reject_case_in("limits_line_1000", gen_line(1000), NULL, 5);
	reject_case_in("limits_redefine_60000", gen_redefine(60000), NULL, 5);
	ntargets = 1;
	reject_case_in("limits_exponential_inlining", gen_exponential(30), "makes the kernel too large", 20);
	free(text);
	return check_failures != 0;
}
