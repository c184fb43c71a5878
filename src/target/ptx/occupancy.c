/* occupancy.c — resident CTAs per SM for a kernel and a CTA size.
 *
 * The rules are those of NVIDIA's occupancy calculator for sm_80 .. sm_90:
 *   warps:     max_warps / warps CTAs (a CTA holds at most 32 warps here,
 *              since a CM group of up to 32 threads is one CTA);
 *   CTAs:      max_ctas;
 *   registers: a warp takes regs * 32 rounded up to reg_unit (256); a CTA
 *              must fit regs_per_cta counting its warps rounded up to the
 *              4 sub-partitions, and each sub-partition holds
 *              (regs_per_sm / 4) / (registers per warp) warps, so the SM
 *              holds 4 times that many warps, in whole CTAs;
 *   shared:    a CTA takes its static shared memory plus its dynamic
 *              shared memory (the layout's per-warp scratch times its
 *              warps) plus the 1 KB the system reserves per CTA, rounded up
 *              to smem_unit (128 bytes); it must not exceed smem_per_cta,
 *              and the SM holds smem_per_sm / that many CTAs.  The largest
 *              carveout is assumed (the driver picks it when a kernel
 *              needs it).
 * The resident CTAs are the least of the four; the limiter is the resource
 * giving it (on a tie the first of warps, CTAs, registers, shared memory:
 * the hardware's fixed limits before what the kernel could change).
 * Occupancy is resident warps over max_warps. */
#include <stdio.h>
#include <string.h>

#include "target/ptx/occupancy.h"

#define KB 1024u
static const OccArch archs[] = {
	/* name  cc  regs/SM  regs/CTA unit max sub warps CTAs cta-warps smem/SM  smem/CTA  rsv  unit */
	{"sm_80", 80, 65536, 65536, 256, 255, 4, 64, 32, 32, 164 * KB, 163 * KB, KB, 128},
	{"sm_86", 86, 65536, 65536, 256, 255, 4, 48, 16, 32, 100 * KB, 99 * KB, KB, 128},
	{"sm_87", 87, 65536, 65536, 256, 255, 4, 48, 16, 32, 164 * KB, 163 * KB, KB, 128},
	{"sm_89", 89, 65536, 65536, 256, 255, 4, 48, 24, 32, 100 * KB, 99 * KB, KB, 128},
	{"sm_90", 90, 65536, 65536, 256, 255, 4, 64, 32, 32, 228 * KB, 227 * KB, KB, 128},
};
#define NARCH (sizeof archs / sizeof archs[0])

const OccArch *occ_arch(const char *march)
{
	if (!march)
		return NULL;
	for (size_t i = 0; i < NARCH; i++) {
		size_t n = strlen(archs[i].name);
		if (!strncmp(march, archs[i].name, n) && (!march[n] || !strcmp(march + n, "a")))
			return &archs[i];
	}
	return NULL;
}

const OccArch *occ_arch_cc(int major, int minor)
{
	const OccArch *best = &archs[0];
	for (size_t i = 0; i < NARCH; i++)
		if (archs[i].cc <= major * 10 + minor)
			best = &archs[i];
	return best;
}

static uint32_t round_up(uint32_t x, uint32_t unit)
{
	return (x + unit - 1) / unit * unit;
}

/* CTAs the register file holds (0: one does not fit). */
static uint32_t by_regs(const OccArch *a, uint32_t regs, uint32_t warps, uint32_t *cta)
{
	*cta = 0;
	if (!regs)
		return a->max_ctas;
	if (regs > a->max_regs_lane)
		return 0;
	uint32_t per_warp = round_up(regs * 32, a->reg_unit);
	*cta = per_warp * round_up(warps, a->sub_partitions);
	if (*cta > a->regs_per_cta)
		return 0;
	uint32_t per_sub = a->regs_per_sm / a->sub_partitions / per_warp;
	return per_sub * a->sub_partitions / warps;
}

/* CTAs the shared memory holds (0: one does not fit). */
static uint32_t by_smem(const OccArch *a, const OccKernel *k, uint32_t warps, uint32_t *cta)
{
	uint64_t use = (uint64_t)k->shared + (uint64_t)k->scratch * warps;
	*cta = 0;
	if (!use)
		return a->max_ctas;
	if (use > a->smem_per_cta)
		return 0;
	*cta = round_up((uint32_t)use + a->smem_reserved, a->smem_unit);
	return a->smem_per_sm / *cta;
}

void occ_compute(const OccArch *a, const OccKernel *k, uint32_t warps, OccResult *r)
{
	memset(r, 0, sizeof *r);
	r->warps = warps;
	if (!warps || warps > a->max_cta_warps) {
		r->limit = OCC_WARPS;
		return;
	}
	r->by[OCC_WARPS] = a->max_warps / warps;
	r->by[OCC_CTAS] = a->max_ctas;
	r->by[OCC_REGS] = by_regs(a, k->regs, warps, &r->cta_regs);
	r->by[OCC_SMEM] = by_smem(a, k, warps, &r->cta_smem);
	r->limit = OCC_WARPS;
	r->ctas = r->by[OCC_WARPS];
	for (int l = OCC_CTAS; l <= OCC_SMEM; l++)
		if (r->by[l] < r->ctas) {
			r->ctas = r->by[l];
			r->limit = (OccLimit)l;
		}
	r->active_warps = r->ctas * warps;
	r->pct = r->active_warps * 100 / a->max_warps;
}

const char *occ_limit_name(OccLimit l)
{
	static const char *names[] = {"warps", "CTAs", "registers", "shared memory"};
	return names[l];
}

uint32_t occ_reg_cap(const OccArch *a, uint32_t warps)
{
	if (!warps || warps > a->max_cta_warps)
		return 0;
	uint32_t per_warp = a->regs_per_cta / round_up(warps, a->sub_partitions);
	uint32_t regs = per_warp / a->reg_unit * a->reg_unit / 32 / 8 * 8;
	return regs > a->max_regs_lane ? a->max_regs_lane : regs;
}

uint32_t occ_raise_cap(const OccArch *a, const OccKernel *k, uint32_t warps, uint32_t floor)
{
	OccResult r;
	occ_compute(a, k, warps, &r);
	if (!r.ctas || r.limit != OCC_REGS)
		return 0;
	for (uint32_t cap = (k->regs - 1) / 8 * 8; cap >= floor && cap >= 8; cap -= 8) {
		OccKernel c = *k;
		c.regs = cap;
		OccResult rc;
		occ_compute(a, &c, warps, &rc);
		if (rc.active_warps >= 2 * r.active_warps)
			return cap;
	}
	return 0;
}

uint32_t occ_best_warps(const OccArch *a, const OccKernel *k, uint32_t max)
{
	uint32_t best = 0, best_warps = 0;
	for (uint32_t w = 1; w <= max && w <= a->max_cta_warps; w++) {
		OccResult r;
		occ_compute(a, k, w, &r);
		if (r.active_warps > best_warps) {
			best_warps = r.active_warps;
			best = w;
		}
	}
	return best;
}

/* Whether a CTA of w warps fits (r: its occupancy). */
static bool cta_fits(const OccArch *a, const OccKernel *k, uint32_t cta_warps, uint32_t w,
                     OccResult *r)
{
	if (w > cta_warps || w > a->max_cta_warps)
		return false;
	occ_compute(a, k, w, r);
	return r->ctas > 0;
}

uint32_t occ_split(const OccArch *a, const OccKernel *k, uint32_t lanes, uint32_t cta_warps,
                   const uint32_t threads[3], const uint32_t grid[2], uint32_t split[2])
{
	split[0] = split[1] = 0;
	uint64_t all = (uint64_t)threads[0] * threads[1] * threads[2];
	if (!all || all > 1024 || !lanes)
		return (uint32_t)all;
	OccResult r;
	uint32_t whole = cta_fits(a, k, cta_warps, (uint32_t)((all * lanes + 31) / 32), &r) ?
	                 r.active_warps : 0;
	uint32_t best = 0, sp[2] = {0, 0};
	uint64_t cta = all;
	for (uint32_t x = 0; threads[0] >> x << x == threads[0]; x++) {
		for (uint32_t y = 0; threads[1] >> y << y == threads[1]; y++) {
			uint64_t n = (uint64_t)(threads[0] >> x) * (threads[1] >> y) * threads[2];
			/* packed CM threads (lanes each) fill the CTA's warps */
			bool ok = (x || y) && n * lanes % 32 == 0 &&
			          (!grid || (((uint64_t)grid[0] << x) <= INT32_MAX &&
			                     ((uint64_t)grid[1] << y) <= 65535));
			/* the most warps resident; of those the smallest CTA, as
			 * thread-space launches take (occ_best_warps; on an H200
			 * linear's 8 x 4 groups, 48 warps an SM either way, ran
			 * 0.116-0.117 ms as CTAs of 2, 0.123 as CTAs of 16) */
			if (ok && cta_fits(a, k, cta_warps, (uint32_t)(n * lanes / 32), &r) &&
			    (r.active_warps > best || (r.active_warps == best && n < cta))) {
				best = r.active_warps;
				cta = n;
				sp[0] = x, sp[1] = y;
			}
			if (threads[1] >> y == 1)
				break;
		}
		if (threads[0] >> x == 1)
			break;
	}
	/* under a quarter more warps: kept whole, a cautious threshold (the
	 * group's warps may share data in one SM's L1; not measured) */
	if (!best || (whole && (uint64_t)best * 4 < (uint64_t)whole * 5))
		return (uint32_t)all;
	split[0] = sp[0], split[1] = sp[1];
	return (uint32_t)cta;
}

void occ_table(const OccArch *a, const OccKernel *k, Buf *out)
{
	buf_printf(out, "  %-6s %7s %8s %9s %9s  %s\n", "group", "threads", "CTAs/SM",
	           "warps/SM", "occupancy", "limiter");
	for (uint32_t w = 1; w <= 32; w++) {
		OccResult r;
		occ_compute(a, k, w, &r);
		char wps[24];
		snprintf(wps, sizeof wps, "%u/%u", r.active_warps, a->max_warps);
		buf_printf(out, "  %-6u %7u %8u %9s %8u%%  %s%s\n", w, w * 32, r.ctas, wps, r.pct,
		           occ_limit_name(r.limit), r.ctas ? "" : " (does not fit)");
	}
}
