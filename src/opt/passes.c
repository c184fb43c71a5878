/* passes.c — the optimization pipeline, as one list.
 *
 * Each entry runs on every kernel in turn.  `-d NAME` prints the module
 * after the pass NAME (`-d lower` prints the input).  With CMETAL_VERIFY=1
 * (or in a build without NDEBUG) the verifier runs after every pass and
 * names the pass that broke the IR.  -O0 runs nothing.  A pass with a flag
 * is left out by -fno-FLAG (opt_flag_mask; `-d` after it prints the IR as
 * it was). */
#include <string.h>

#include "opt/opt.h"

const Pass opt_passes[] = {
	{"fold", opt_fold, 1, NULL},       /* constants through ops and regions */
	{"region", opt_region, 1, NULL},   /* rdregion of rdregion, whole writes */
	{"sr", opt_sr, 1, NULL},           /* x / 2^k, x % 2^k */
	{"cse", opt_cse, 1, NULL},         /* one value per scalar expression */
	{"fold2", opt_fold, 1, NULL},      /* what region and sr exposed */
	{"branch", opt_branch, 1, NULL},   /* branches on constants taken */
	{"licm", opt_licm, 2, "licm"},     /* loop invariants to preheaders */
	{"cse2", opt_cse, 2, "licm"},      /* what licm brought together */
	{"early", opt_early, 2, "early-loads"}, /* surface reads issued early */
	{"blocks", opt_blocks, 1, NULL},   /* straight-line seams (inlined calls);
	                                    * after early, whose moves cross them */
	{"dce", opt_dce, 1, NULL},         /* dead code, dead vector elements */
};
const int opt_npasses = sizeof opt_passes / sizeof opt_passes[0];

bool opt_is_pass(const char *name)
{
	if (!strcmp(name, "lower") || !strcmp(name, "input"))
		return true;
	for (int k = 0; k < opt_npasses; k++)
		if (!strcmp(opt_passes[k].name, name))
			return true;
	return false;
}

uint32_t opt_flag_mask(const char *flag)
{
	uint32_t m = 0;
	for (int k = 0; k < opt_npasses; k++)
		if (opt_passes[k].flag && !strcmp(opt_passes[k].flag, flag))
			m |= 1u << k;
	return m;
}

static bool after(Module *m, const char *name, const char *dump, Buf *out)
{
	if (ir_verify_enabled() && !ir_verify(m, name))
		return false;
	if (dump && !strcmp(dump, name))
		ir_print(m, out);
	return true;
}

bool opt_run(Module *m, int level, uint32_t skip, const char *dump, Buf *dump_out)
{
	if (dump && !strcmp(dump, "input"))
		dump = "lower";
	if (!after(m, "lower", dump, dump_out))
		return false;
	for (int k = 0; k < opt_npasses; k++) {
		const Pass *p = &opt_passes[k];
		if (level < p->min_level)
			continue;
		for (uint32_t fi = 0; fi < m->nfuncs && !(skip >> k & 1); fi++)
			p->run(m->funcs[fi]);
		if (!after(m, p->name, dump, dump_out))
			return false;
	}
	return true;
}

bool opt_run_func(Func *f, int level, uint32_t skip)
{
	bool verify = ir_verify_enabled();
	if (verify && !ir_verify_func(f, "lower"))
		return false;
	for (int k = 0; k < opt_npasses; k++) {
		const Pass *p = &opt_passes[k];
		if (level < p->min_level)
			continue;
		if (!(skip >> k & 1))
			p->run(f);
		if (verify && !ir_verify_func(f, p->name))
			return false;
	}
	return true;
}
