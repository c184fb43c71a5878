/* test_occ.c — the occupancy calculator (src/target/ptx/occupancy.c)
 * against cases computed by hand from NVIDIA's calculator rules: one
 * line per case, "ok occupancy/NAME" or "FAIL occupancy/NAME". */
#include <stdio.h>
#include <string.h>

#include "target/ptx/occupancy.h"

static int fails;

static void check(const char *name, bool ok, const char *why)
{
	printf(ok ? "ok occupancy/%s\n" : "FAIL occupancy/%s: %s\n", name, why);
	fails += !ok;
}

/* One case: arch, regs, shared, scratch, warps -> ctas, pct, limiter. */
static void one(const char *name, const char *march, uint32_t regs, uint32_t shared,
                uint32_t scratch, uint32_t warps, uint32_t ctas, uint32_t pct, OccLimit lim)
{
	const OccArch *a = occ_arch(march);
	OccKernel k = {regs, shared, scratch};
	OccResult r;
	char why[200];
	if (!a) {
		check(name, false, "unknown architecture");
		return;
	}
	occ_compute(a, &k, warps, &r);
	snprintf(why, sizeof why, "got %u CTAs, %u%%, %s; want %u, %u%%, %s", r.ctas, r.pct,
	         occ_limit_name(r.limit), ctas, pct, occ_limit_name(lim));
	check(name, r.ctas == ctas && r.pct == pct && r.limit == lim &&
	      r.active_warps == ctas * warps, why);
}

static void eq(const char *name, uint32_t got, uint32_t want)
{
	char why[80];
	snprintf(why, sizeof why, "got %u, want %u", got, want);
	check(name, got == want, why);
}

int main(void)
{
	/* the CTA limit binds single-warp groups */
	one("sm80_w1_r32", "sm_80", 32, 0, 0, 1, 32, 50, OCC_CTAS);
	one("sm80_w2_r32", "sm_80", 32, 0, 0, 2, 32, 100, OCC_WARPS);
	one("sm86_w1_r32", "sm_86", 32, 0, 0, 1, 16, 33, OCC_CTAS);
	one("sm86_w3_r32", "sm_86", 32, 0, 0, 3, 16, 100, OCC_WARPS);
	one("sm89_w1_unknown", "sm_89", 0, 0, 0, 1, 24, 50, OCC_CTAS);
	/* registers: 256-register units per warp, 4 sub-partitions */
	one("sm80_w8_r64", "sm_80", 64, 0, 0, 8, 4, 50, OCC_REGS);
	one("sm80_w6_r40", "sm_80", 40, 0, 0, 6, 8, 75, OCC_REGS);
	one("sm80_w8_r255", "sm_80", 255, 0, 0, 8, 1, 12, OCC_REGS);
	one("sm80_w9_r255", "sm_80", 255, 0, 0, 9, 0, 0, OCC_REGS);
	one("sm80_w32_r64", "sm_80", 64, 0, 0, 32, 1, 50, OCC_REGS);
	one("sm80_w32_r72", "sm_80", 72, 0, 0, 32, 0, 0, OCC_REGS);
	one("sm80_r256", "sm_80", 256, 0, 0, 1, 0, 0, OCC_REGS);
	/* shared memory: 1 KB reserve per CTA, 128-byte units */
	one("sm86_w4_smem16k", "sm_86", 32, 16384, 0, 4, 5, 41, OCC_SMEM);
	one("sm86_smem100k", "sm_86", 32, 100 * 1024, 0, 1, 0, 0, OCC_SMEM);
	one("sm90_smem100k", "sm_90", 32, 100 * 1024, 0, 1, 2, 3, OCC_SMEM);
	/* per-warp scratch grows with the group; ties go to registers */
	one("sm90_w16_scratch4k", "sm_90", 40, 0, 4096, 16, 3, 75, OCC_REGS);
	one("sm90_w32_scratch8k", "sm_90", 32, 0, 8192, 32, 0, 0, OCC_SMEM);
	one("sm80_w33", "sm_80", 32, 0, 0, 33, 0, 0, OCC_WARPS);
	one("sm90a_alias", "sm_90a", 32, 0, 0, 2, 32, 100, OCC_WARPS);
	check("unknown_arch", occ_arch("sm_75") == NULL && occ_arch("sm_9") == NULL, "accepted");
	eq("cc_8_6", (uint32_t)occ_arch_cc(8, 6)->cc, 86);
	eq("cc_8_7", (uint32_t)occ_arch_cc(8, 7)->cc, 87);
	eq("cc_10_0", (uint32_t)occ_arch_cc(10, 0)->cc, 90);
	eq("cc_7_5", (uint32_t)occ_arch_cc(7, 5)->cc, 80);
	/* register caps that make a CTA fit */
	eq("cap_w32", occ_reg_cap(occ_arch("sm_80"), 32), 64);
	eq("cap_w20", occ_reg_cap(occ_arch("sm_80"), 20), 96);
	eq("cap_w9", occ_reg_cap(occ_arch("sm_80"), 9), 168);
	eq("cap_w1", occ_reg_cap(occ_arch("sm_80"), 1), 255);
	eq("cap_w33", occ_reg_cap(occ_arch("sm_80"), 33), 0);
	/* every cap fits, and 8 more registers would not (up to 255) */
	bool capped = true;
	for (uint32_t w = 1; w <= 32; w++) {
		const OccArch *a = occ_arch("sm_86");
		uint32_t c = occ_reg_cap(a, w);
		OccResult r;
		occ_compute(a, &(OccKernel){c, 0, 0}, w, &r);
		capped = capped && r.ctas >= 1;
		if (c + 8 <= 255) {
			occ_compute(a, &(OccKernel){c + 8, 0, 0}, w, &r);
			capped = capped && r.ctas == 0;
		}
	}
	check("cap_tight", capped, "a cap does not fit or is not the largest");
	/* best CTA size: smallest with the most resident warps */
	eq("best_sm80_r32", occ_best_warps(occ_arch("sm_80"), &(OccKernel){32, 0, 0}, 32), 2);
	eq("best_sm86_r32", occ_best_warps(occ_arch("sm_86"), &(OccKernel){32, 0, 0}, 32), 3);
	eq("best_sm80_r255", occ_best_warps(occ_arch("sm_80"), &(OccKernel){255, 0, 0}, 32), 1);
	eq("best_sm80_r40", occ_best_warps(occ_arch("sm_80"), &(OccKernel){40, 0, 0}, 32), 2);
	eq("best_sm80_slm", occ_best_warps(occ_arch("sm_80"), &(OccKernel){32, 200000, 0}, 32), 0);
	return fails != 0;
}
