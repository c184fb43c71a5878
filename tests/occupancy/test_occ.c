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

/* One split (occ_split): groups of tx x ty CM threads (32 lanes each
 * unless lanes), grid gx x gy (0: none) -> CM threads a CTA and the shifts. */
static void split_one(const char *name, uint32_t regs, uint32_t shared, uint32_t lanes,
                      uint32_t tx, uint32_t ty, uint32_t gy, uint32_t cta, uint32_t sx,
                      uint32_t sy)
{
	uint32_t th[3] = {tx, ty, 1}, grid[2] = {1, gy}, sp[2];
	uint32_t got = occ_split(occ_arch("sm_90"), &(OccKernel){regs, shared, 0}, lanes, 32, th,
	                         gy ? grid : NULL, sp);
	char why[120];
	snprintf(why, sizeof why, "got CTAs of %u (shifts %u, %u), want %u (%u, %u)", got, sp[0],
	         sp[1], cta, sx, sy);
	check(name, got == cta && sp[0] == sx && sp[1] == sy, why);
}

/* The split rule, worked by hand on sm_90 (64 warps, 32 CTAs, 65536
 * registers an SM; 40 registers: 1280 a warp, 48 warps in CTAs of 2 to 16,
 * 32 in one of 32). */
static void split_cases(void)
{
	/* linear: 8 x 4 at 40 registers, one CTA of 32 (32 warps) -> 48 in CTAs
	 * of 2..16; the smallest, x split before y: 2 x 1 */
	split_one("split_linear", 40, 0, 32, 8, 4, 0, 2, 2, 2);
	/* 24 at 32 registers: 2 CTAs (48 warps) -> CTAs of 3 (21, 63 warps) */
	split_one("split_24", 32, 0, 32, 24, 1, 0, 3, 3, 0);
	/* 32 at 32 registers: 64 warps already; 7: no power of two divides it */
	split_one("split_whole_full", 32, 0, 32, 32, 1, 0, 32, 0, 0);
	split_one("split_whole_odd", 32, 0, 32, 7, 1, 0, 7, 0, 0);
	/* 8 at 48 registers: 5 CTAs, 40 warps -> 42 in CTAs of 2: under a
	 * quarter more, kept whole */
	split_one("split_small_gain", 48, 0, 32, 8, 1, 0, 8, 0, 0);
	/* 64 CM threads (two CTAs' worth) split, where whole they need a
	 * cluster: the smallest CTA with the most warps */
	split_one("split_over_32", 32, 0, 32, 64, 1, 0, 2, 5, 0);
	/* packed, 8 lanes a CM thread: 96 are 24 warps (2 CTAs, 48 warps) ->
	 * CTAs of 12 (3 warps, 63); 6 and 3 would leave warps part empty */
	split_one("split_packed", 32, 0, 8, 96, 1, 0, 12, 3, 0);
	/* the grid's y limit: 40000 groups in y cannot double */
	split_one("split_grid_y", 40, 0, 32, 1, 32, 40000, 32, 0, 0);
	/* a CTA that never fits stays as it is */
	split_one("split_none_fits", 32, 300000, 32, 8, 1, 0, 8, 0, 0);
}

/* Runs PTX instruction lines through the scoreboard (latency.c): the
 * cycles they take alone, a second trip's when loop; spin and fused (an
 * add contracted into an FMA) as it reports them. */
static double lat_of(const char *const *lines, int n, bool loop, bool *spin, bool *fused)
{
	PtxLat *s = ptx_lat_new(ptx_machine(90));
	double first = 0;
	*fused = false;
	for (int trip = 0; trip < (loop ? 2 : 1); trip++) {
		first = ptx_lat_now(s);
		ptx_lat_block(s);
		for (int i = 0; i < n; i++) {
			const char *l = lines[i], *p = l + strspn(l, " \t");
			if (*p == '@')
				p += strcspn(p, " "), p += strspn(p, " ");
			char op[64];
			snprintf(op, sizeof op, "%.*s", (int)strcspn(p, " ;"), p);
			*fused |= ptx_lat_step(s, op, l, l + strlen(l), false);
		}
	}
	double t = ptx_lat_now(s) - (loop ? first : 0);
	*spin = ptx_lat_spin(s);
	ptx_lat_free(s);
	return t;
}

static void lat_case(const char *name, const char *const *lines, int n, bool loop,
                     double want, bool want_spin, bool want_fused)
{
	bool spin, fused;
	double t = lat_of(lines, n, loop, &spin, &fused);
	char why[120];
	snprintf(why, sizeof why, "got %.0f cycles, spin %d, fused %d; want %.0f, %d, %d", t, spin,
	         fused, want, want_spin, want_fused);
	check(name, t == want && spin == want_spin && fused == want_fused, why);
}

/* The scoreboard against sums of the machine table's latencies (ALU 4,
 * DRAM 690, global atomic 430, fence 630). */
static void latency_cases(void)
{
	static const char *overlap[] = {"ld.global.u32 %r1, [%rd1];", "ld.global.u32 %r2, [%rd1+128];",
	                                "add.s32 %r3, %r1, %r2;"};
	/* 690 + 1: both loads wait on nothing (slots are counted per block, not placed) */
	lat_case("lat_loads_overlap", overlap, 3, false, 691, false, false);
	static const char *chase[] = {"ld.global.u32 %r1, [%rd1];", "cvt.u64.u32 %rd2, %r1;",
	                              "ld.global.u32 %r2, [%rd2];"};
	lat_case("lat_loads_chain", chase, 3, false, 695, false, false);       /* 690 + 4 + 1 */
	static const char *fma[] = {"mul.f32 %f1, %f2, %f3;", "add.f32 %f4, %f1, %f5;",
	                            "add.rn.f32 %f6, %f1, %f5;"};
	lat_case("lat_fma_contracted", fma, 3, false, 5, false, true);   /* the .rn add is not */
	static const char *fence[] = {"st.global.u32 [%rd1], %r1;", "fence.acq_rel.gpu;",
	                              "add.s32 %r2, %r3, %r4;"};
	lat_case("lat_fence_waits", fence, 3, false, 691, false, false);  /* the store's 690 */
	static const char *carry[] = {"add.s32 %r1, %r1, 1;", "ld.global.u32 %r2, [%rd1];",
	                              "add.s32 %r3, %r3, %r2;"};
	lat_case("lat_loop_trip", carry, 3, true, 691, false, false);
	static const char *spin[] = {"atom.global.or.b32 %r1, [%rd1], 0;",
	                             "setp.eq.u32 %p1, %r1, 0;", "@%p1 bra $L_k_b1;"};
	lat_case("lat_spin", spin, 3, true, 435, true, false);          /* 430 + 4 + 1 */
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
	/* caps that double the resident warps: linear's 32-warp groups at 40
	 * registers hold one CTA per SM, at 32 two (its 2.5 KB scratch per
	 * warp fits); 8-warp groups at 56 hold 4, at 48 5, at 40 6 (too
	 * little), at 32 8 */
	const OccArch *h = occ_arch("sm_90");
	eq("raise_linear", occ_raise_cap(h, &(OccKernel){40, 0, 2560}, 32, 30), 32);
	eq("raise_floor", occ_raise_cap(h, &(OccKernel){40, 0, 2560}, 32, 33), 0);
	eq("raise_not_regs", occ_raise_cap(h, &(OccKernel){32, 0, 0}, 32, 8), 0);
	eq("raise_double", occ_raise_cap(h, &(OccKernel){56, 0, 0}, 8, 8), 32);
	eq("raise_double_floor", occ_raise_cap(h, &(OccKernel){56, 0, 0}, 8, 33), 0);
	eq("raise_half_not", occ_raise_cap(h, &(OccKernel){51, 0, 0}, 8, 38), 0);
	eq("raise_smem", occ_raise_cap(h, &(OccKernel){40, 0, 4096}, 32, 8), 0);
	/* 16-warp CTAs at 128 registers: one CTA; two need at most 64 */
	eq("raise_dgemm", occ_raise_cap(h, &(OccKernel){128, 0, 0}, 16, 8), 64);
	/* every cap found doubles the resident warps, and the cap 8 above it
	 * does not */
	bool raised = true;
	for (uint32_t w = 1; w <= 32; w++)
		for (uint32_t regs = 24; regs <= 255; regs += 7) {
			OccKernel k = {regs, 0, 0};
			uint32_t c = occ_raise_cap(h, &k, w, 8);
			OccResult r0, r1, r2;
			occ_compute(h, &k, w, &r0);
			if (!c)
				continue;
			occ_compute(h, &(OccKernel){c, 0, 0}, w, &r1);
			raised = raised && r1.active_warps >= 2 * r0.active_warps && c < regs;
			if (c + 8 < regs) {
				occ_compute(h, &(OccKernel){c + 8, 0, 0}, w, &r2);
				raised = raised && r2.active_warps < 2 * r0.active_warps;
			}
		}
	check("raise_tight", raised, "a cap does not double the warps or is not the largest");
	/* best CTA size: smallest with the most resident warps */
	eq("best_sm80_r32", occ_best_warps(occ_arch("sm_80"), &(OccKernel){32, 0, 0}, 32), 2);
	eq("best_sm86_r32", occ_best_warps(occ_arch("sm_86"), &(OccKernel){32, 0, 0}, 32), 3);
	eq("best_sm80_r255", occ_best_warps(occ_arch("sm_80"), &(OccKernel){255, 0, 0}, 32), 1);
	eq("best_sm80_r40", occ_best_warps(occ_arch("sm_80"), &(OccKernel){40, 0, 0}, 32), 2);
	eq("best_sm80_slm", occ_best_warps(occ_arch("sm_80"), &(OccKernel){32, 200000, 0}, 32), 0);
	split_cases();
	latency_cases();
	return fails != 0;
}
