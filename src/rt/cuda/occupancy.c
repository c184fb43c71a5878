/* occupancy.c — the CUDA device's occupancy: the calculator of
 * target/ptx/occupancy.c with this GPU's limits (the driver's attributes,
 * each one the driver reports replacing the table's value for the compute
 * capability) and a loaded kernel's registers, static shared memory and
 * per-warp scratch.  Used by cmetal_kernel_occupancy, by thread-space
 * launches to pick their CTA size, and by group launches to see that a
 * CTA does not fit the register file (module.c then builds a variant with
 * a register cap). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/cuda/cuda.h"

/* One driver attribute into *field when the driver reports it. */
static void attr(CudaDevice *c, int which, uint32_t *field)
{
	int v = 0;
	if (c->cu->DeviceGetAttribute(&v, which, c->dev) == CUDA_SUCCESS && v > 0)
		*field = (uint32_t)v;
}

void cuda_arch_init(CudaDevice *c)
{
	c->arch = *occ_arch_cc(c->cc_major, c->cc_minor);
	uint32_t threads = 0;
	attr(c, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, &c->arch.regs_per_sm);
	attr(c, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, &c->arch.regs_per_cta);
	attr(c, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, &c->arch.max_ctas);
	attr(c, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, &c->arch.smem_per_sm);
	attr(c, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &c->arch.smem_per_cta);
	attr(c, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, &c->arch.smem_reserved);
	attr(c, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, &threads);
	if (threads >= 32)
		c->arch.max_warps = threads / 32;
}

uint32_t cuda_cta_warps(const CudaKernel *k, uint64_t n)
{
	uint32_t lanes = k->lanes ? k->lanes : 32;
	return (uint32_t)((n * lanes + 31) / 32);
}

/* The calculator's view of k: its scratch is per CM thread, the
 * calculator's per warp; an SLM in dynamic shared memory counts as static. */
static OccKernel occ_kernel(const CudaKernel *k)
{
	uint32_t per_warp = 32 / (k->lanes ? k->lanes : 32);
	return (OccKernel){k->regs > 0 ? (uint32_t)k->regs : 0,
	                   (k->shared_bytes > 0 ? (uint32_t)k->shared_bytes : 0) + k->dyn_slm,
	                   k->scratch * per_warp};
}

void cuda_kernel_occ(const CudaDevice *c, const CudaKernel *k, uint32_t warps, OccResult *r)
{
	OccKernel ok = occ_kernel(k);
	occ_compute(&c->arch, &ok, warps, r);
}

uint32_t cuda_raise_cap(const CudaDevice *c, const CudaKernel *k, uint32_t warps)
{
	const char *env = getenv("CMETAL_OCCUPANCY_CAP");
	if ((env && !strcmp(env, "0")) || k->regs <= 0)
		return 0;
	OccKernel ok = occ_kernel(k);
	/* a cap far below what ptxas chose spills more than a CTA gains */
	return occ_raise_cap(&c->arch, &ok, warps, (uint32_t)k->regs * 3 / 4);
}

uint32_t cuda_walker_warps(CudaDevice *c, CudaKernel *k, const CmkKernelInfo *ki)
{
	if (k->walker_warps)
		return k->walker_warps;
	uint32_t w = 1, per_warp = 32 / (k->lanes ? k->lanes : 32), t = 1;
	const char *why = "it uses SLM or a barrier: each CM thread is its own group";
	if (!ki->uses_barrier && !ki->slm_size) {
		OccKernel ok = occ_kernel(k);
		w = occ_best_warps(&c->arch, &ok, 32);
		why = "the smallest CTA with the best occupancy";
		if (!w)
			w = 1, why = "no CTA size fits; trying one warp";
		t = w * per_warp;
	}
	OccResult r;
	cuda_kernel_occ(c, k, w, &r);
	rt_log("kernel '%s': thread-space launches use %u CM thread%s (%u warp%s, %u per warp) "
	       "per CTA (%s): %u CTAs, %u of %u warps per SM (%u%%), limited by %s; %d registers "
	       "per lane", ki->name, t, t > 1 ? "s" : "", w, w > 1 ? "s" : "", per_warp, why,
	       r.ctas, r.active_warps, c->arch.max_warps, r.pct, occ_limit_name(r.limit), k->regs);
	k->walker_warps = t;
	return t;
}

uint32_t cuda_split(const CudaDevice *c, const CudaKernel *k, const uint32_t threads[3],
                    const uint32_t groups[3], uint32_t split[2])
{
	const char *env = getenv("CMETAL_SPLIT_GROUPS");
	split[0] = split[1] = 0;
	if (!k->split || (env && !strcmp(env, "0")))
		return threads[0] * threads[1] * threads[2];
	OccKernel ok = occ_kernel(k);
	uint32_t cta_warps = k->max_threads > 0 ? (uint32_t)k->max_threads / 32 : 32;
	return occ_split(&c->arch, &ok, k->lanes ? k->lanes : 32, cta_warps, threads, groups,
	                 split);
}

cm_status cuda_occupancy(cmetal_device *dev, cmetal_kernel *kern, uint32_t group_threads,
                         cmetal_occupancy *out)
{
	CudaDevice *c = dev->priv;
	CudaProgram *cp = kern->prog->priv;
	CudaKernel *k = &cp->ks[kern->index];
	/* a group of more than 32 spans a cluster of CTAs of at most 32 warps,
	 * unless the runtime splits it (as a launch of group_threads x 1 x 1) */
	uint32_t th[3] = {group_threads, 1, 1}, sp[2];
	uint32_t per_cta = cuda_split(c, k, th, NULL, sp);
	uint32_t all = cuda_cta_warps(k, per_cta);
	uint32_t ctas = all > 32 ? (per_cta + 31) / 32 : 1;  /* cluster: unpacked */
	uint32_t warps = all > 32 ? (per_cta + ctas - 1) / ctas : all;
	out->cta_threads = all > 32 ? warps : per_cta;
	OccResult r;
	cuda_kernel_occ(c, k, warps, &r);
	out->register_cap = 0;
	/* launches decide the raise under run_mu (launch.c geometry) */
	pthread_mutex_lock(&c->run_mu);
	const CudaProgram *raised = k->raise_warps == warps ? k->raise_prog : NULL;
	pthread_mutex_unlock(&c->run_mu);
	if (!r.ctas && r.limit == OCC_REGS && ctas == 1) {
		CudaKernel capped = *k;
		capped.regs = (int)occ_reg_cap(&c->arch, warps);
		out->register_cap = (uint32_t)capped.regs;
		cuda_kernel_occ(c, &capped, warps, &r);
	} else if (ctas == 1 && raised) {
		out->register_cap = cuda_raise_cap(c, k, warps);   /* cuda_raise_program's */
		cuda_kernel_occ(c, &raised->ks[kern->index], warps, &r);
	}
	out->ctas_per_sm = r.ctas;
	out->warps_per_sm = r.active_warps;
	out->max_warps_per_sm = c->arch.max_warps;
	out->percent = r.pct;
	out->limiter = occ_limit_name(r.limit);
	out->registers = k->regs > 0 ? k->regs : -1;
	pthread_mutex_lock(&c->run_mu);
	out->auto_group = cuda_walker_warps(c, k, &kern->prog->kernels[kern->index]);
	pthread_mutex_unlock(&c->run_mu);
	return CM_SUCCESS;
}
