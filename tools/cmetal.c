/* cmetal — the command-line compiler.  Options follow clang/nvcc:
 *   cmetal [options] file.cm...
 * Stages: -E (preprocess), -M (dependencies), -fsyntax-only (check),
 * --emit=ast (checked tree), -S (the target's text: ir, c or ptx), and by
 * default (or -c) a binary the runtime loads.  Exit status 0 or 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmetal.h"
#include "driver.h"
#include "front/front.h"
#include "opt/opt.h"

static void usage(FILE *f)
{
	fputs("usage: cmetal [options] file.cm... ('-' reads standard input)\n"
	      "\n"
	      "Compiles C-for-Metal (CM) kernel files.  By default (and with -c) each\n"
	      "file becomes a binary that cmetal_program_load loads: NAME.so for the\n"
	      "CPU device (-t c), NAME.cmbin for the CUDA device (-t ptx; a cubin when\n"
	      "ptxas is found, with its PTX).\n"
	      "\n"
	      "options:\n"
	      "  -o FILE            write the output to FILE ('-' for stdout)\n"
	      "  -c                 make a binary (the default)\n"
	      "  -S                 emit text (PTX, C or IR) instead of a binary; to\n"
	      "                     stdout unless -o is given\n"
	      "  -E                 preprocess only\n"
	      "  -fsyntax-only      check the source and stop\n"
	      "  --emit=ast         print the checked syntax tree\n"
	      "  -t TARGET          ptx (default), c (or cpu), ir (text only)\n"
	      "  -march=ARCH        PTX: sm_80, sm_86, sm_87, sm_89, sm_90[a], sm_100[a|f],\n"
	      "                     sm_103[a|f], sm_110[a|f], sm_120[a|f], sm_121[a|f] (default\n"
	      "                     sm_90); CM persona for CM_GENX: SKL, ICLLP, TGLLP, ...\n"
	      "                     (default SKL)\n"
	      "  -O0, -O1, -O2      optimization level (default -O2)\n"
	      "  -fno-licm          -O2 without loop-invariant code motion (for A/B\n"
	      "                     runs; -flicm turns it back on)\n"
	      "  -fno-early-loads   -O2 without issuing surface reads early, above\n"
	      "                     loops and branches (-fearly-loads: back on)\n"
	      "  -g                 emit line information (.loc in PTX, #line in C)\n"
	      "  -ffp-contract=MODE fast: a*b+c may become one fma; off (default): every\n"
	      "                     operation rounds, the same on both devices\n"
	      "  -ffast-math        -ffp-contract=fast and, on PTX, f32 denormals\n"
	      "                     flushed to zero and approximate '/' and cm_sqrt\n"
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
	      "  -fno-warp-packing  PTX: one CM thread per warp even when the kernel's\n"
	      "                     widest vector is 16 elements or fewer (by default\n"
	      "                     32/W such CM threads share a warp)\n"
	      "  -fno-loop-versions PTX: check every block access of a loop each time\n"
	      "                     (by default a loop whose accesses move linearly\n"
	      "                     with its counter is checked once, before it, and\n"
	      "                     runs a copy without checks when all are inside)\n"
	      "  -fno-loop-test-fold PTX: that test computes its constant parts at run\n"
	      "                     time and checks both ends of each span in full\n"
	      "  -fno-atomic-aggregation PTX: SLM float adds one lane at a time (by\n"
	      "                     default lanes on one address sum first and one\n"
	      "                     of them adds, as NVIDIA has no shared float add)\n"
	      "  -fspeculate-reads  PTX: run small blocks of reads that a branch guards\n"
	      "                     always, selects picking their values (reads cannot\n"
	      "                     fault); off by default: measured slower\n"
	      "  -fno-unroll-loops  PTX: run loops that read memory one iteration a\n"
	      "                     trip (by default a small loop runs 2-8 a trip\n"
	      "                     while that many remain, its reads issued first)\n"
	      "  -fno-phi-coalescing PTX: give every phi registers of its own (by default\n"
	      "                     a phi may live in the registers of the value it\n"
	      "                     merges with its updates)\n"
	      "  -fno-wide-loads    PTX: block reads that fill a vector read by its\n"
	      "                     columns stay one load per read (by default each\n"
	      "                     lane loads its k consecutive elements with vector\n"
	      "                     loads and every column is a register)\n"
	      "  -fno-fragment-media PTX: a media tile added to a part of an mma or\n"
	      "                     wgmma accumulator is read and written in the\n"
	      "                     canonical layout (by default in the accumulator\n"
	      "                     fragment's, with no shuffle)\n"
	      "  -fno-media-spans   PTX: each media access of a group that writes\n"
	      "                     branches to its own exact path (by default one\n"
	      "                     test and branch for the group's whole span)\n"
	      "  -fwrap-join        PTX: a block access's 2^32 wrap guard is one predicate\n"
	      "                     joined to each bounds compare, the limit shared (by\n"
	      "                     default a fresh limit per access)\n"
	      "  -fno-wgmma-chains  PTX: every cm_wgmma waits for its result (by default\n"
	      "                     the wgmmas of one accumulator in a block wait once)\n"
	      "  -frun-layouts      PTX: values read as row-shifted windows (a filter's\n"
	      "                     neighbours) may take layouts where a lane holds 2\n"
	      "                     or 4 consecutive columns (fewer instructions, more\n"
	      "                     memory sectors: off by default)\n"
	      "  -fno-slm-vectorize PTX: SLM gathers and scatters that give each lane\n"
	      "                     contiguous, aligned, non-overlapping bytes stay one\n"
	      "                     ld/st.shared per element (by default they merge\n"
	      "                     into ld/st.shared.v2/v4; -S notes each decision)\n"
	      "  -fno-slm-ranges    PTX: check every lane of SLM gathers, scatters and\n"
	      "                     atomics (by default those whose offsets are known\n"
	      "                     to stay inside the kernel's SLM, from their value\n"
	      "                     ranges, e.g. a digit & 255, go unchecked)\n"
	      "  -fexact-loop-depths PTX: loop depths from natural loops (an edge to a\n"
	      "                     block that dominates its source closes one), not\n"
	      "                     from every jump to an earlier block (off by\n"
	      "                     default: slower scan and dgemm_slm on an H200)\n"
	      "  -fno-ldmatrix      PTX: tiles read from SLM into cm_dpas operands stay\n"
	      "                     one ld.shared per fragment register (by default\n"
	      "                     aligned 8 x 16-byte blocks are read by ldmatrix)\n"
	      "  -D NAME[=VALUE]    define a macro\n"
	      "  -U NAME            undefine a macro\n"
	      "  -I DIR             add DIR to the include search path\n"
	      "  -M, -MM            print a make rule of the files each input includes\n"
	      "                     (instead of compiling)\n"
	      "  -MD, -MMD          write that rule to NAME.d beside the output as well\n"
	      "  -MF FILE           write the rule to FILE\n"
	      "  -MT TARGET         the rule's target (default: the output file)\n"
	      "  -Werror            treat warnings as errors (-Wno-error: do not)\n"
	      "  -w                 suppress warnings\n"
	      "  -Wall, -W...       accepted for compatibility (cmetal's warnings are\n"
	      "                     always on)\n"
	      "  -ferror-limit=N    stop after N errors (default 20, 0 = no limit)\n"
	      "  -d PASS            print the IR after PASS instead (see --help-passes)\n"
	      "  --occupancy        print each kernel's occupancy per group size for\n"
	      "                     -march (registers from ptxas when it is found)\n"
	      "  --analyze          --occupancy plus the instruction mix and a throughput\n"
	      "                     estimate per kernel and innermost loop (docs/analyzer.md)\n"
	      "  --analyze-grid=N[,G]\n"
	      "                     --analyze for a launch of N CM threads in groups of G\n"
	      "  -v                 print the version and the commands run (cc, ptxas)\n"
	      "  --help, --help-passes, --version\n"
	      "\n"
	      "Environment: CC (the C compiler for -t c binaries, default cc), PTXAS\n"
	      "(default: ptxas on PATH).\n",
	      f);
}

static void usage_passes(void)
{
	printf("passes for -d, in pipeline order (-O0 runs none):\n  lower      the IR "
	       "before any pass (also 'input')\n");
	for (int k = 0; k < opt_npasses; k++)
		printf("  %-10s (-O%d and above%s%s)\n", opt_passes[k].name, opt_passes[k].min_level,
		       opt_passes[k].flag ? "; off with -fno-" : "",
		       opt_passes[k].flag ? opt_passes[k].flag : "");
}

/* Like clang: the version, the targets, the directory of the binary. */
static void print_version(FILE *f)
{
	fprintf(f, "cmetal version %s\n", CMETAL_VERSION_STRING);
	fprintf(f, "Targets: ptx (sm_80..sm_121f), c (host CPU), ir\n");
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash)
			*(slash == exe ? slash + 1 : slash) = 0;
		fprintf(f, "InstalledDir: %s\n", exe);
	}
}

/* The value of an option given as -XVALUE, -X=VALUE or -X VALUE; NULL
 * (diagnosed) when it is missing. */
static const char *take_arg(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);
	if (argv[*i][n])
		return argv[*i] + n + (argv[*i][n] == '=');
	if (*i + 1 >= argc) {
		fprintf(stderr, "cmetal: error: missing argument to '%s'\n", opt);
		return NULL;
	}
	return argv[++*i];
}

/* The options that take a value; the value goes to *dst (NULL: pushed on
 * list).  Returns 1 when a matched, -1 on a missing value, 0 otherwise. */
typedef VEC(const char *) StrList;
static int value_option(int argc, char **argv, int *i, const char *name, const char **dst,
                        StrList *list)
{
	if (strncmp(argv[*i], name, strlen(name)))
		return 0;
	const char *v = take_arg(argc, argv, i, name);
	if (!v)
		return -1;
	if (dst)
		*dst = v;
	else
		vec_push(list, v);
	return 1;
}

/* Flags without a value; false when a is not one of them. */
static bool flag_option(const char *a, DriverOptions *o)
{
	if (!strcmp(a, "-S"))
		o->text = true;
	else if (!strcmp(a, "-c"))
		;   /* a binary is the default */
	else if (!strcmp(a, "-E"))
		o->stage = STAGE_PP;
	else if (!strcmp(a, "-M") || !strcmp(a, "-MM"))
		o->stage = STAGE_DEPS;
	else if (!strcmp(a, "-MD") || !strcmp(a, "-MMD"))
		o->deps = true;
	else if (!strcmp(a, "-fsyntax-only"))
		o->stage = STAGE_CHECK;
	else if (!strcmp(a, "--emit=ast") || !strcmp(a, "-emit-ast"))
		o->stage = STAGE_AST;
	else if (!strcmp(a, "-O0") || !strcmp(a, "-O1") || !strcmp(a, "-O2") ||
	         !strcmp(a, "-O3") || !strcmp(a, "-O"))
		o->opt_level = a[2] ? a[2] - '0' : 2;
	else if (!strcmp(a, "-g") || !strcmp(a, "-g1") || !strcmp(a, "-g2") || !strcmp(a, "-g3"))
		o->debug = true;
	else if (!strcmp(a, "-g0"))
		o->debug = false;
	else if (fp_option(a, &o->fp))
		;   /* the floating-point contract (docs/floating-point.md) */
	else if (!strcmp(a, "-fno-warp-packing") || !strcmp(a, "-fwarp-packing"))
		o->no_pack = a[2] == 'n';   /* PTX: narrow CM threads share warps */
	else if (!strcmp(a, "-fno-slm-regions") || !strcmp(a, "-fslm-regions"))
		o->no_slm_regions = a[2] == 'n';   /* PTX: assign.c costly_region (A/B) */
	else if (!strcmp(a, "-fno-loop-versions") || !strcmp(a, "-floop-versions"))
		o->no_loop_versions = a[2] == 'n';   /* PTX: bounds checks per loop (ptx/vloop.c) */
	else if (!strcmp(a, "-fno-loop-test-fold") || !strcmp(a, "-floop-test-fold"))
		o->no_loop_test_fold = a[2] == 'n';  /* PTX: the test's constants (ptx/vloop.c) */
	else if (!strcmp(a, "-fno-run-layouts") || !strcmp(a, "-frun-layouts"))
		o->run_layouts = a[2] != 'n';        /* PTX: run layouts (ptx/runs.c) */
	else if (!strcmp(a, "-fno-phi-coalescing") || !strcmp(a, "-fphi-coalescing"))
		o->no_phi_coalescing = a[2] == 'n';  /* PTX: phis in registers of their own (ptx/phic.c) */
	else if (!strcmp(a, "-fno-wide-loads") || !strcmp(a, "-fwide-loads"))
		o->no_wide_loads = a[2] == 'n';      /* PTX: no run-layout vector loads (ptx/bwide.c) */
	else if (!strcmp(a, "-fno-fragment-media") || !strcmp(a, "-ffragment-media"))
		o->no_fragment_media = a[2] == 'n';  /* PTX: canonical C tiles (ptx/assign.c) */
	else if (!strcmp(a, "-fno-media-spans") || !strcmp(a, "-fmedia-spans"))
		o->no_media_spans = a[2] == 'n';     /* PTX: a branch per media access (ptx/emit.c) */
	else if (!strcmp(a, "-fno-wrap-join") || !strcmp(a, "-fwrap-join"))
		o->wrap_join = a[2] != 'n';          /* PTX: joined wrap guard (ptx/mem.c) */
	else if (!strcmp(a, "-fno-wgmma-chains") || !strcmp(a, "-fwgmma-chains"))
		o->no_wgmma_chains = a[2] == 'n';   /* PTX: one wait per wgmma (ptx/dpas.c) */
	else if (!strcmp(a, "-fno-slm-vectorize") || !strcmp(a, "-fslm-vectorize"))
		o->no_slm_vec = a[2] == 'n';   /* PTX: ld/st.shared.v4 (ptx/slmvec.c) */
	else if (!strcmp(a, "-fno-slm-vectorize-overlap") || !strcmp(a, "-fslm-vectorize-overlap"))
		o->slm_vec_no_overlap = a[2] == 'n';   /* seed 001's refusal (docs/analyzer.md) */
	else if (!strcmp(a, "-fno-slm-ranges") || !strcmp(a, "-fslm-ranges"))
		o->no_slm_ranges = a[2] == 'n';   /* PTX: SLM accesses in range (ptx/mem.c) */
	else if (!strcmp(a, "-fexact-loop-depths") || !strcmp(a, "-fno-exact-loop-depths"))
		o->exact_loops = a[2] == 'e';   /* PTX: loop depths (ptx/assign.c) */
	else if (!strcmp(a, "-fno-ldmatrix") || !strcmp(a, "-fldmatrix"))
		o->no_ldmatrix = a[2] == 'n';   /* PTX: SLM tiles into mma fragments (ptx/ldsm.c) */
	else if (!strcmp(a, "-fno-atomic-aggregation") || !strcmp(a, "-fatomic-aggregation"))
		o->no_atomic_aggregation = a[2] == 'n';   /* PTX: SLM float adds (ptx/aggregate.c) */
	else if (!strcmp(a, "-fno-speculate-reads") || !strcmp(a, "-fspeculate-reads"))
		o->speculate_reads = a[2] != 'n';   /* PTX: guarded reads run always (ptx/ifconv.c) */
	else if (!strcmp(a, "-fno-unroll-loops") || !strcmp(a, "-funroll-loops"))
		o->no_unroll = a[2] == 'n';   /* PTX: loops that read memory (ptx/unroll.c) */
	else if (!strcmp(a, "-fcluster-slm"))
		o->cluster_slm = true;
	else if (!strncmp(a, "-fno-", 5) && opt_flag_mask(a + 5))
		o->opt_skip |= opt_flag_mask(a + 5);   /* -fno-licm */
	else if (!strncmp(a, "-f", 2) && opt_flag_mask(a + 2))
		o->opt_skip &= ~opt_flag_mask(a + 2);
	else if (!strcmp(a, "-fbounds-check") || !strcmp(a, "-fno-bounds-check"))
		o->bounds_check = a[2] == 'b';
	else if (!strcmp(a, "-v"))
		o->verbose = true;
	else if (!strcmp(a, "--occupancy"))
		o->report = 1;
	else if (!strcmp(a, "--analyze"))
		o->report = 2;
	else if (!strncmp(a, "--analyze-grid=", 15)) {   /* the launch for latency terms */
		o->report = 2;
		if (sscanf(a + 15, "%u,%u", &o->grid_threads, &o->grid_group) < 1)
			return false;
	}
	else if (!strcmp(a, "-Werror"))
		diag_state.werror = true;
	else if (!strcmp(a, "-Wno-error"))
		diag_state.werror = false;
	else if (!strcmp(a, "-w"))
		diag_state.no_warnings = true;
	else if (!strncmp(a, "-W", 2) && a[2] && strncmp(a, "-Wl,", 4) && strncmp(a, "-Wa,", 4) &&
	         strncmp(a, "-Wp,", 4))
		;   /* -Wall, -Wextra, -Wno-...: cmetal's warnings are not grouped */
	else if (!strncmp(a, "-ferror-limit=", 14)) {
		int n = atoi(a + 14);
		diag_state.error_limit = n > 0 ? n : 1 << 30;
	} else
		return false;
	return true;
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

/* Parses argv into o and the lists; returns -1 to go on, else the exit
 * status (after --help, --version or an error). */
static int parse_args(int argc, char **argv, DriverOptions *o, StrList *inputs, StrList *incs,
                      StrList *defs, StrList *undefs)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int r;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--help-passes")) {
			usage_passes();
			return 0;
		} else if (!strcmp(a, "--version")) {
			print_version(stdout);
			return 0;
		} else if (flag_option(a, o)) {
			continue;
		} else if (!strncmp(a, "-fthread-args=", 14)) {
			o->thread_args = join_thread_args(o->thread_args, a + 14);
		} else if (!strncmp(a, "-fptx-layout=", 13)) {
			if (strcmp(a + 13, "auto") && strcmp(a + 13, "canonical")) {
				fprintf(stderr, "cmetal: error: unknown PTX layout mode '%s' "
				        "(use auto or canonical)\n", a + 13);
				return 1;
			}
			o->ptx_canonical = !strcmp(a + 13, "canonical");
		} else if ((r = value_option(argc, argv, &i, "-o", &o->out, NULL)) ||
		           (r = value_option(argc, argv, &i, "-MF", &o->dep_file, NULL)) ||
		           (r = value_option(argc, argv, &i, "-MT", &o->dep_target, NULL)) ||
		           (r = value_option(argc, argv, &i, "--target", &o->target, NULL)) ||
		           (r = value_option(argc, argv, &i, "-t", &o->target, NULL)) ||
		           (r = value_option(argc, argv, &i, "-march", &o->march, NULL)) ||
		           (r = value_option(argc, argv, &i, "-D", NULL, defs)) ||
		           (r = value_option(argc, argv, &i, "-U", NULL, undefs)) ||
		           (r = value_option(argc, argv, &i, "-I", NULL, incs)) ||
		           (r = value_option(argc, argv, &i, "-d", &o->dump_pass, NULL))) {
			if (r < 0)
				return 1;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "cmetal: error: unknown option '%s' (see --help)\n", a);
			return 1;
		} else {
			vec_push(inputs, a);
		}
	}
	return -1;
}

/* Combinations that cannot work; 0 when fine. */
static int check_args(const DriverOptions *o)
{
	const char *t = o->target;
	if (strcmp(t, "ptx") && strcmp(t, "c") && strcmp(t, "cpu") && strcmp(t, "ir")) {
		fprintf(stderr, "cmetal: error: unknown target '%s' (use ptx, c, cpu or ir)\n", t);
		return 1;
	}
	if (o->dump_pass && !opt_is_pass(o->dump_pass)) {
		fprintf(stderr, "cmetal: error: unknown pass '%s' for -d (see --help-passes)\n",
		        o->dump_pass);
		return 1;
	}
	if (o->ninputs == 0) {
		fprintf(stderr, "cmetal: error: no input files (see --help)\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	DriverOptions o = {.target = "ptx", .opt_level = 2, .out = NULL};
	StrList inputs = {0}, incs = {0}, defs = {0}, undefs = {0};
	int rc = parse_args(argc, argv, &o, &inputs, &incs, &defs, &undefs);
	if (rc >= 0)
		return rc;
	o.inputs = inputs.data;
	o.ninputs = inputs.len;
	if (check_args(&o))
		return 1;
	if (o.verbose)
		print_version(stderr);
	o.fo.pp.include_dirs = incs.data;
	o.fo.pp.n_include_dirs = incs.len;
	o.fo.pp.defines = defs.data;
	o.fo.pp.n_defines = defs.len;
	o.fo.pp.undefs = undefs.data;
	o.fo.pp.n_undefs = undefs.len;
	o.fo.pp.march = o.march && strncmp(o.march, "sm_", 3) ? o.march : NULL;
	return driver_run(&o);
}
