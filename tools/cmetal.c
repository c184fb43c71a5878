/* cmetal — the command-line compiler.  Options follow clang/nvcc:
 *   cmetal [options] file.cm
 * Stages: -E (preprocess), -fsyntax-only (check), --emit=ast (checked tree),
 * -t ir|c|ptx with -S (text) or the default output for the target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/front.h"
#include "driver.h"

#define CMETAL_VERSION "0.1.0"

static void usage(FILE *f)
{
	fputs("usage: cmetal [options] file.cm\n"
	      "\n"
	      "Compiles a C-for-Metal (CM) kernel file.\n"
	      "\n"
	      "options:\n"
	      "  -o FILE            write the output to FILE ('-' for stdout)\n"
	      "  -S                 emit text (PTX, C or IR) instead of a binary\n"
	      "  -E                 preprocess only\n"
	      "  -fsyntax-only      check the source and stop\n"
	      "  --emit=ast         print the checked syntax tree\n"
	      "  -t TARGET          ir, c or ptx (default: ptx)\n"
	      "  -march=ARCH        PTX: sm_80 .. sm_90a (default sm_90); CM persona\n"
	      "                     for CM_GENX: SKL, ICLLP, TGLLP, ... (default SKL)\n"
	      "  -O0, -O1, -O2      optimization level (default -O2)\n"
	      "  -g                 emit line information (.loc in PTX, #line in C)\n"
	      "  -fcluster-slm      PTX (sm_90): a thread group may span a cluster of up\n"
	      "                     to 8 CTAs (256 CM threads); SLM in distributed shared memory\n"
	      "  -fbounds-check     report out-of-range accesses (the CPU device and CUDA\n"
	      "                     stop the task with CM_KERNEL_FAULT); by default they\n"
	      "                     follow CM: reads give 0 or the edge, writes are dropped\n"
	      "  -fthread-args=KERNEL:I[,J...]\n"
	      "                     PTX: KERNEL reads arguments I, J from a per-thread\n"
	      "                     table (what the CUDA device builds for per-thread\n"
	      "                     arguments); repeatable\n"
	      "  -fptx-layout=MODE  PTX register layouts: auto (chosen per value, default)\n"
	      "                     or canonical (element i in lane i%32 of register i/32)\n"
	      "  -D NAME[=VALUE]    define a macro\n"
	      "  -U NAME            undefine a macro\n"
	      "  -I DIR             add DIR to the include search path\n"
	      "  -Werror            treat warnings as errors\n"
	      "  -w                 suppress warnings\n"
	      "  -ferror-limit=N    stop after N errors (default 20, 0 = no limit)\n"
	      "  -d PASS            dump the IR after PASS (see --help-passes)\n"
	      "  --help, --version\n",
	      f);
}

static const char *take_arg(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);
	if (argv[*i][n])
		return argv[*i] + n + (argv[*i][n] == '=');
	if (*i + 1 >= argc) {
		fprintf(stderr, "cmetal: error: missing argument to '%s'\n", opt);
		exit(2);
	}
	return argv[++*i];
}

/* -fthread-args may be repeated: the specs are joined by spaces. */
static const char *join_thread_args(const char *old, const char *spec)
{
	if (!old)
		return spec;
	size_t n = strlen(old) + strlen(spec) + 2;
	char *s = xmalloc(n);
	snprintf(s, n, "%s %s", old, spec);
	return s;
}

int main(int argc, char **argv)
{
	DriverOptions o = {.target = "ptx", .opt_level = 2, .out = NULL};
	VEC(const char *) incs = {0}, defs = {0}, undefs = {0};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("cmetal version " CMETAL_VERSION "\n"
			       "targets: ptx (sm_80..sm_90a), c (x86-64 host), ir\n");
			return 0;
		} else if (!strncmp(a, "-o", 2)) {
			o.out = take_arg(argc, argv, &i, "-o");
		} else if (!strcmp(a, "-S")) {
			o.text = true;
		} else if (!strcmp(a, "-E")) {
			o.stage = STAGE_PP;
		} else if (!strcmp(a, "-fsyntax-only")) {
			o.stage = STAGE_CHECK;
		} else if (!strcmp(a, "--emit=ast") || !strcmp(a, "-emit-ast")) {
			o.stage = STAGE_AST;
		} else if (!strncmp(a, "-t", 2)) {
			o.target = take_arg(argc, argv, &i, "-t");
		} else if (!strncmp(a, "--target", 8)) {
			o.target = take_arg(argc, argv, &i, "--target");
		} else if (!strncmp(a, "-march", 6)) {
			o.march = take_arg(argc, argv, &i, "-march");
		} else if (!strcmp(a, "-O0") || !strcmp(a, "-O1") || !strcmp(a, "-O2") ||
		           !strcmp(a, "-O3") || !strcmp(a, "-O")) {
			o.opt_level = a[2] ? a[2] - '0' : 2;
		} else if (!strcmp(a, "-g") || !strcmp(a, "-g1") || !strcmp(a, "-g2")) {
			o.debug = true;
		} else if (!strcmp(a, "-g0")) {
			o.debug = false;
		} else if (!strncmp(a, "-D", 2)) {
			vec_push(&defs, take_arg(argc, argv, &i, "-D"));
		} else if (!strncmp(a, "-U", 2)) {
			vec_push(&undefs, take_arg(argc, argv, &i, "-U"));
		} else if (!strncmp(a, "-I", 2)) {
			vec_push(&incs, take_arg(argc, argv, &i, "-I"));
		} else if (!strcmp(a, "-fcluster-slm")) {
			o.cluster_slm = true;
		} else if (!strcmp(a, "-fbounds-check") || !strcmp(a, "-fno-bounds-check")) {
			o.bounds_check = a[2] == 'b';
		} else if (!strncmp(a, "-fthread-args=", 14)) {
			o.thread_args = join_thread_args(o.thread_args, a + 14);
		} else if (!strncmp(a, "-fptx-layout=", 13)) {
			if (strcmp(a + 13, "auto") && strcmp(a + 13, "canonical")) {
				fprintf(stderr, "cmetal: error: unknown PTX layout mode '%s' "
				        "(use auto or canonical)\n", a + 13);
				return 1;
			}
			o.ptx_canonical = !strcmp(a + 13, "canonical");
		} else if (!strcmp(a, "-Werror")) {
			diag_state.werror = true;
		} else if (!strcmp(a, "-w")) {
			diag_state.no_warnings = true;
		} else if (!strncmp(a, "-ferror-limit=", 14)) {
			int n = atoi(a + 14);
			diag_state.error_limit = n > 0 ? n : 1 << 30;
		} else if (!strncmp(a, "-d", 2) && a[2] != 'D') {
			o.dump_pass = take_arg(argc, argv, &i, "-d");
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "cmetal: error: unknown option '%s' (see --help)\n", a);
			return 2;
		} else if (o.input) {
			fprintf(stderr, "cmetal: error: more than one input file ('%s' and '%s')\n",
			        o.input, a);
			return 2;
		} else {
			o.input = a;
		}
	}
	if (!o.input) {
		fprintf(stderr, "cmetal: error: no input file (see --help)\n");
		return 2;
	}
	o.fo.pp.include_dirs = incs.data;
	o.fo.pp.n_include_dirs = incs.len;
	o.fo.pp.defines = defs.data;
	o.fo.pp.n_defines = defs.len;
	o.fo.pp.undefs = undefs.data;
	o.fo.pp.n_undefs = undefs.len;
	o.fo.pp.march = o.march && strncmp(o.march, "sm_", 3) ? o.march : NULL;
	return driver_run(&o);
}
