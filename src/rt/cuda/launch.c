/* launch.c — one launch on the GPU (rt/cuda_abi.h is the contract), as a
 * launch of a batch (batch.c): cuda_enqueue puts everything on the
 * device's stream without waiting, cuda_finish reads the results after
 * the batch's synchronization.
 *
 *   1. geometry: a CM thread is a warp, or W lanes of one when the kernel
 *      packs 32/W CM threads to a warp (metadata "lanes W", target/ptx/
 *      pack.c).  Groups: grid = group counts, block = (W * threads[0],
 *      threads[1], threads[2]) with W = 32 unless packed; when such a CTA
 *      needs more registers than the SM has, the program's register-capped
 *      variant runs it (module.c); when registers limit how many such
 *      CTAs share an SM, a variant capped for twice the resident warps
 *      runs it if it spills little (module.c cuda_raise_program).  Walker:
 *      W*H CM threads, as many warps per CTA as give the kernel the best
 *      occupancy (1 when it uses SLM or a barrier, since each walker thread
 *      is its own group; occupancy.c).  Groups of
 *      more than 32 CM threads (and every group launch of a program whose
 *      PTX is in cluster mode) run the program's cluster variant over a
 *      cluster of up to CLUSTER_MAX CTAs (rt/cuda_abi.h "Clusters"): as
 *      few CTAs as the kernel's registers allow, of equal size, the last
 *      one padded when the CTA count does not divide the group.
 *   2. the launch block (CudaLaunch + one CudaSurface per argument) is built
 *      on the host and uploaded only when it differs from what the kernel's
 *      device slot already holds (a repeated launch uploads nothing).  The
 *      upload is asynchronous, from a copy in the batch's staging memory
 *      (the kernel's host image is rebuilt by its next launch, maybe in the
 *      same batch, before the copy has run); the device slot is written in
 *      stream order, after the kernel's earlier launches.
 *   3. cm_wait launches get the ticket and flags zeroed (one memset on the
 *      stream).
 *   4. host-aliasing buffers bound to the launch are copied in before and
 *      out after it; such a launch ends its batch (the host waits for the
 *      copy back).
 *   5. kernels that print get the device's printf buffer (its head zeroed
 *      before the launch) and end their batch; afterwards the records are
 *      copied back and formatted (printf.c) into l->printf_out, which the
 *      common layer hands to the printf callback or stdout as the CPU
 *      device's text.  A launch that overflows the buffer says so at the
 *      end of its text and the buffer doubles (up to PRINTF_MAX) for the
 *      next launch.
 *   6. per-thread argument tables are uploaded from the task's copy of
 *      them, which stays as it is until the task returns.
 *   7. cuLaunchKernel (cuLaunchKernelEx with the cluster dimension for a
 *      cluster of more than one CTA) with kernelParams = {&launch param,
 *      args[0], args[1], ...}, a surface's argument its CudaSurfaceParam
 *      (rt/cuda_abi.h "Kernel entry": the prologue reads no global memory;
 *      the driver copies the values at the call), between the slot's two
 *      cuEventRecord when an event wants the launch's time (l->timed;
 *      l->device_ms gets the elapsed time after the synchronization).
 *   8. the fault record of the slot: a bounds-checked kernel found an
 *      out-of-range access (and made it safe); reported with its line,
 *      kind and CM thread as the CPU device reports it.
 * Memory a launch replaces (grown cm_wait flags or per-thread tables) is
 * freed after the batch (cuda_free_later).  The steady state is: an
 * optional memcmp, one cuLaunchKernel, and per batch one synchronize and
 * a load of each mapped fault record — no allocation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/cuda/cuda.h"

#define WAIT_HEAD 256u       /* ticket, padded so flags stay aligned */
#define MAX_GRID_YZ 65535u
#define PRINTF_START ((size_t)1 << 20)   /* bytes of records at first */
#define PRINTF_MAX ((size_t)256 << 20)   /* growth limit after overflows */
#define CLUSTER_MAX 8u                   /* CTAs: the portable cluster size */

_Static_assert(sizeof(CudaLaunch) == CUDA_L_BYTES, "CudaLaunch layout (rt/cuda_abi.h)");
_Static_assert(sizeof(CudaLaunchParam) == CUDA_LP_BYTES, "CudaLaunchParam layout");
_Static_assert(sizeof(CudaSurfaceParam) == CUDA_SP_BYTES, "CudaSurfaceParam layout");

typedef struct {
	unsigned grid[3], block[3];
	uint32_t tpc;
	uint32_t cluster;        /* CTAs per cluster; 0: an ordinary launch */
	uint32_t cta_warps;      /* cluster launches: warps per CTA */
	uint32_t split[2];       /* split groups: log2 of CTAs per group in x, y */
} Geometry;

/* gx and gy: the grid's x and y extents in CTAs. */
static cm_status grid_limits(const RtLaunch *l, uint64_t gx, uint64_t gy)
{
	if (gy > MAX_GRID_YZ || l->groups[2] > MAX_GRID_YZ || gx > INT32_MAX)
		return rt_fail(CM_INVALID_THREAD_SPACE,
		               "%ux%ux%u groups of kernel '%s' exceed the CUDA grid limits "
		               "(2^31-1 x 65535 x 65535 CTAs)", l->groups[0], l->groups[1],
		               l->groups[2], l->info->name);
	return CM_SUCCESS;
}

/* A group over a cluster: *cp becomes the program to launch. */
static cm_status cluster_geometry(CudaDevice *c, const RtLaunch *l, CudaProgram **cp,
                                  Geometry *g)
{
	uint64_t warps = (uint64_t)l->threads[0] * l->threads[1] * l->threads[2];
	if (warps > 32 * CLUSTER_MAX)
		return rt_fail(CM_GROUP_TOO_LARGE,
		               "a group of %ux%ux%u threads is too large for kernel '%s' on a CUDA "
		               "device: at most %u (each CM thread is a warp, a CTA holds at most 32 "
		               "warps, a cluster at most %u CTAs)", l->threads[0], l->threads[1],
		               l->threads[2], l->info->name, 32 * CLUSTER_MAX, CLUSTER_MAX);
	CudaProgram *v;
	cm_status s = cuda_cluster_program(c, *cp, &v);
	if (s)
		return s;
	const CudaKernel *k = &v->ks[l->kernel->index];
	uint32_t per = (uint32_t)k->max_threads / 32;
	per = per < 1 ? 1 : per > 32 ? 32 : per;
	uint32_t n = (uint32_t)((warps + per - 1) / per);
	if (n > CLUSTER_MAX)
		return rt_fail(CM_GROUP_TOO_LARGE,
		               "a group of %llu threads is too large for kernel '%s' on a CUDA device: "
		               "with its %d registers per lane a CTA holds %u CM threads (warps), and "
		               "a cluster at most %u CTAs", (unsigned long long)warps, l->info->name,
		               k->regs, per, CLUSTER_MAX);
	uint32_t wpc = (uint32_t)((warps + n - 1) / n);
	if (n > 1 && !c->cu->LaunchKernelEx)
		return rt_fail(CM_GROUP_TOO_LARGE, "kernel '%s': a group of more than 32 CM threads "
		               "needs a cluster launch, and this CUDA driver has no cuLaunchKernelEx",
		               l->info->name);
	s = grid_limits(l, (uint64_t)l->groups[0] * n, l->groups[1]);
	if (s)
		return s;
	*g = (Geometry){{l->groups[0] * n, l->groups[1], l->groups[2]}, {32 * wpc, 1, 1}, 0, n,
	                wpc, {0, 0}};
	*cp = v;
	return CM_SUCCESS;
}

/* CMETAL_LOG's line on a split group (rt/cuda_abi.h "Split groups"), once
 * per kernel and group shape (r: the CTAs' occupancy). */
static void split_note(const CudaDevice *c, CudaKernel *k, const RtLaunch *l,
                       const uint32_t t[3], const OccResult *r)
{
	if (!memcmp(k->split_noted, l->threads, sizeof k->split_noted))
		return;
	memcpy(k->split_noted, l->threads, sizeof k->split_noted);
	rt_log("kernel '%s': groups of %ux%ux%u CM threads run as %u CTAs of %ux%ux%u (it uses "
	       "no SLM or barrier): %u CTAs, %u of %u warps per SM (%u%%), limited by %s",
	       l->info->name, l->threads[0], l->threads[1], l->threads[2],
	       (l->threads[0] / t[0]) * (l->threads[1] / t[1]), t[0], t[1], t[2], r->ctas,
	       r->active_warps, c->arch.max_warps, r->pct,
	       occ_limit_name(r->limit));
}

/* The launch's shape; a group launch that needs a cluster switches *cp to
 * the program's cluster variant, one that the runtime splits runs smaller
 * CTAs (cuda_split). */
static cm_status geometry(CudaDevice *c, const RtLaunch *l, CudaProgram **cp, Geometry *g)
{
	const CmkKernelInfo *ki = l->info;
	if (l->kind == RT_LAUNCH_WALKER) {
		uint64_t n = (uint64_t)l->width * l->height;
		uint32_t tpc = cuda_walker_warps(c, &(*cp)->ks[l->kernel->index], ki);
		uint32_t lanes = (*cp)->ks[l->kernel->index].lanes;
		*g = (Geometry){{(unsigned)((n + tpc - 1) / tpc), 1, 1}, {lanes * tpc, 1, 1}, tpc, 0,
		                0, {0, 0}};
		return CM_SUCCESS;
	}
	const CudaKernel *k = &(*cp)->ks[l->kernel->index];
	uint32_t sp[2] = {0, 0};
	if (!(*cp)->cluster_mode)   /* groups as several CTAs? (rt/cuda_abi.h) */
		cuda_split(c, k, l->threads, l->groups, sp);
	uint32_t t[3] = {l->threads[0] >> sp[0], l->threads[1] >> sp[1], l->threads[2]};
	uint64_t n = (uint64_t)t[0] * t[1] * t[2];
	uint64_t warps = n > 1024 ? n : cuda_cta_warps(k, n);   /* pack.c: W lanes each */
	if (warps > 32 || (*cp)->cluster_mode)
		return cluster_geometry(c, l, cp, g);
	uint64_t gx = (uint64_t)l->groups[0] << sp[0], gy = (uint64_t)l->groups[1] << sp[1];
	cm_status s = grid_limits(l, gx, gy);
	if (s)
		return s;
	OccResult r;
	cuda_kernel_occ(c, &(*cp)->ks[l->kernel->index], (uint32_t)warps, &r);
	if (sp[0] || sp[1])
		split_note(c, &(*cp)->ks[l->kernel->index], l, t, &r);
	if (!r.ctas && r.limit == OCC_REGS &&
	    (s = cuda_regcap_program(c, l->kernel->prog, *cp, l->kernel->index, (uint32_t)warps,
	                             cp)))
		return s;
	if (r.ctas && r.limit == OCC_REGS)   /* more CTAs per SM with fewer registers? */
		*cp = cuda_raise_program(c, l->kernel->prog, *cp, l->kernel->index, (uint32_t)warps);
	*g = (Geometry){{(unsigned)gx, (unsigned)gy, l->groups[2]},
	                {(*cp)->ks[l->kernel->index].lanes * t[0], t[1], t[2]}, 0, 0, 0,
	                {sp[0], sp[1]}};
	return CM_SUCCESS;
}

/* Dependency offsets in the order cmetal.h lists them (cm_wait mask bits). */
static uint32_t dep_offsets(cmetal_dependency d, int8_t *dx, int8_t *dy)
{
	static const int8_t wx[] = {-1, -1, 0, 1}, wy[] = {0, -1, -1, -1};
	switch (d) {
	case CMETAL_DEP_WAVEFRONT: memcpy(dx, wx, 3); memcpy(dy, wy, 3); return 3;
	case CMETAL_DEP_WAVEFRONT26: memcpy(dx, wx, 4); memcpy(dy, wy, 4); return 4;
	case CMETAL_DEP_HORIZONTAL: dx[0] = -1; dy[0] = 0; return 1;
	case CMETAL_DEP_VERTICAL: dx[0] = 0; dy[0] = -1; return 1;
	case CMETAL_DEP_NONE: break;
	}
	return 0;
}

/* Zeroed ticket and flags for n threads, in c->wait_mem. */
static cm_status wait_scratch(CudaDevice *c, uint64_t n, CudaLaunch *cl)
{
	size_t need = WAIT_HEAD + (size_t)n * 4;
	if (need > c->wait_cap) {
		if (c->wait_mem)
			cuda_free_later(c, c->wait_mem);
		c->wait_mem = 0;
		c->wait_cap = 0;
		CUresult r = c->cu->MemAlloc(&c->wait_mem, need);
		if (r)
			return rt_fail(CM_OUT_OF_MEMORY,
			               "cannot allocate the %zu bytes of cm_wait flags on the GPU: %s",
			               need, cu_errtext(r));
		c->wait_cap = need;
	}
	CUresult r = c->cu->MemsetD8Async(c->wait_mem, 0, need, c->stream);
	if (r)
		return cu_fail(r, CM_IO_ERROR, "zeroing cm_wait flags");
	cl->ticket = c->wait_mem;
	cl->flags = c->wait_mem + WAIT_HEAD;
	return CM_SUCCESS;
}

/* Fills k->next with the block of this launch, launch `slot` of its batch. */
static cm_status build_block(CudaDevice *c, const RtLaunch *l, const Geometry *g,
                             CudaKernel *k, uint32_t slot)
{
	const CmkKernelInfo *ki = l->info;
	CudaLaunch cl = {0};
	cl.surfaces = k->block + CUDA_L_BYTES;
	cl.fault = c->fault_dev + (CUdeviceptr)slot * sizeof(uint64_t);
	cl.nsurfaces = ki->nargs;
	if (l->kind == RT_LAUNCH_WALKER) {
		cl.kind = CUDA_LAUNCH_WALKER;
		cl.width = l->width;
		cl.height = l->height;
		cl.nthreads = l->width * l->height;
		cl.threads_per_cta = g->tpc;
		cl.local[0] = cl.local[1] = cl.local[2] = 1;
		cl.ndeps = dep_offsets(l->dep, cl.dx, cl.dy);
		if (cl.ndeps || ki->uses_wait) {
			cm_status s = wait_scratch(c, cl.nthreads, &cl);
			if (s)
				return s;
		}
	} else {
		cl.kind = CUDA_LAUNCH_GROUPS;
		memcpy(cl.local, l->threads, sizeof cl.local);
		cl.cta_warps = g->cta_warps;
	}
	if (k->uses_printf) {
		cl.printf_buf = c->printf_mem;
		cl.printf_cap = c->printf_cap;
	}
	memset(k->next, 0, k->image_len);
	memcpy(k->next, &cl, sizeof cl);
	k->lparam = (CudaLaunchParam){k->block, cl.kind, cl.threads_per_cta, cl.nthreads,
	                              cl.cta_warps, {cl.local[0], cl.local[1], cl.local[2]},
	                              cl.width, {g->split[0], g->split[1]}};
	for (uint32_t i = 0; i < ki->nargs; i++) {
		if (ki->args[i].kind != CMK_ARG_SURFACE)
			continue;
		const CmkSurface *s = &l->surfaces[i];
		CudaSurface cs = {(uint64_t)(uintptr_t)s->base, s->size, s->width, s->height,
		                  s->pitch, s->format, s->bpp, s->is2d};
		memcpy(k->next + CUDA_L_BYTES + (size_t)i * CUDA_S_BYTES, &cs, sizeof cs);
		CudaSurfaceParam *sp = &k->sparams[i];
		*sp = (CudaSurfaceParam){0, 0, cs.base, cs.size, cs.width, cs.height, cs.pitch,
		                         cs.bpp};
		memcpy(&sp->slot, l->args[i], sizeof sp->slot);
	}
	return CM_SUCCESS;
}

/* kernelParams: the CudaLaunchParam, then each argument's value; a
 * surface its CudaSurfaceParam unless it is past the kernel's parameter
 * space (rt/cuda_abi.h "Kernel entry"), a per-thread argument its table. */
static void set_params(const RtLaunch *l, CudaKernel *k)
{
	const CmkKernelInfo *ki = l->info;
	k->params[0] = &k->lparam;
	for (uint32_t i = 0, ns = 0; i < ki->nargs; i++) {
		void *v = l->args[i];
		if (ki->args[i].kind == CMK_ARG_SURFACE && ns++ < k->param_surfaces)
			v = &k->sparams[i];
		else if (l->per_thread && l->per_thread[i])
			v = &k->targ_addr[i];
		k->params[1 + i] = v;
	}
}

/* The printf buffer with a zeroed head, for a kernel that prints. */
static cm_status printf_prepare(CudaDevice *c)
{
	if (!c->printf_mem) {
		size_t cap = c->printf_cap ? c->printf_cap : PRINTF_START;
		CUresult r = c->cu->MemAlloc(&c->printf_mem, CUDA_P_RECORDS + cap);
		if (r) {
			c->printf_mem = 0;
			return rt_fail(CM_OUT_OF_MEMORY, "cannot allocate the %zu-byte printf buffer "
			               "on the GPU: %s", cap, cu_errtext(r));
		}
		unsigned char *h = realloc(c->printf_host, cap);
		if (!h)
			return rt_fail(CM_OUT_OF_MEMORY, "out of memory for the printf buffer");
		c->printf_host = h;
		c->printf_cap = cap;
	}
	CUresult r = c->cu->MemsetD8Async(c->printf_mem, 0, CUDA_P_RECORDS, c->stream);
	return r ? cu_fail(r, CM_IO_ERROR, "zeroing the printf buffer") : CM_SUCCESS;
}

/* Formats the launch's printf records into l->printf_out. */
static cm_status printf_collect(CudaDevice *c, const CudaProgram *cp, RtLaunch *l)
{
	CudaPrintf head;
	CUresult r = c->cu->MemcpyDtoH(&head, c->printf_mem, sizeof head);
	size_t used = head.used < c->printf_cap ? (size_t)head.used : c->printf_cap;
	if (!r && used)
		r = c->cu->MemcpyDtoH(c->printf_host, c->printf_mem + CUDA_P_RECORDS, used);
	if (r)
		return cu_fail(r, CM_IO_ERROR, "reading the printf buffer");
	if (!cuda_printf_format(cp->fmts, cp->nfmts, c->printf_host, used, &l->printf_out))
		buf_puts(&l->printf_out, "[cmetal: a malformed printf record; the rest of this "
		         "launch's printf output was dropped]\n");
	if (head.overflow) {
		buf_printf(&l->printf_out, "[cmetal: kernel '%s' printed more than the %zu-byte "
		           "printf buffer holds; later output of this launch was lost%s]\n",
		           l->info->name, c->printf_cap,
		           c->printf_cap < PRINTF_MAX ? " (the buffer doubles for the next launch)" : "");
		if (c->printf_cap < PRINTF_MAX) {
			c->cu->MemFree(c->printf_mem);
			c->printf_mem = 0;
			c->printf_cap *= 2;
		}
	}
	return CM_SUCCESS;
}

/* Kernel time between the two events of the launch's slot into
 * l->device_ms. */
static void device_time(CudaDevice *c, RtLaunch *l, uint32_t slot)
{
	float ms = 0.0f;
	if (c->cu->EventElapsedTime(&ms, c->ev[2 * slot], c->ev[2 * slot + 1]) == CUDA_SUCCESS)
		l->device_ms = ms;
}

/* Uploads k->next, from a staged copy, unless the device slot will hold
 * it already when the launch runs. */
static cm_status upload_block(CudaDevice *c, CudaKernel *k)
{
	if (k->image_valid && !memcmp(k->next, k->image, k->image_len))
		return CM_SUCCESS;
	const void *src = cuda_stage(c, k->next, k->image_len);
	if (!src) {
		k->image_valid = false;
		return CM_OUT_OF_MEMORY;
	}
	CUresult r = c->cu->MemcpyHtoDAsync(k->block, src, k->image_len, c->stream);
	if (r) {
		k->image_valid = false;
		return cu_fail(r, CM_IO_ERROR, "uploading the launch block");
	}
	unsigned char *t = k->image;
	k->image = k->next;
	k->next = t;
	k->image_valid = true;
	return CM_SUCCESS;
}

/* Copies host-aliasing buffers bound to the launch in (to_dev) or out,
 * on the stream; *any: whether there were any. */
static cm_status sync_aliases(CudaDevice *c, const RtLaunch *l, bool to_dev, bool *any)
{
	*any = false;
	if (!c->aliases)
		return CM_SUCCESS;
	const CmkKernelInfo *ki = l->info;
	for (uint32_t i = 0; i < ki->nargs; i++) {
		if (ki->args[i].kind != CMK_ARG_SURFACE)
			continue;
		for (CudaMem *a = c->aliases; a; a = a->next_alias) {
			if (a->m->host != l->surfaces[i].base)
				continue;
			*any = true;
			CUresult r = to_dev
			        ? c->cu->MemcpyHtoDAsync(a->m->addr, a->user, a->m->size, c->stream)
			        : c->cu->MemcpyDtoHAsync(a->user, a->m->addr, a->m->size, c->stream);
			if (r)
				return cu_fail(r, CM_IO_ERROR, "copying a host-aliasing buffer");
		}
	}
	return CM_SUCCESS;
}

cm_status cuda_kernel_error(CudaDevice *c, const char *who, CUresult r, const char *when)
{
	if (r == 701)  /* CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES */
		return rt_fail(CM_GROUP_TOO_LARGE,
		               "%s cannot launch: its CTA needs more registers than an SM "
		               "has (%s); use fewer CM threads per group", who, cu_errtext(r));
	if (r == 1)    /* CUDA_ERROR_INVALID_VALUE */
		return rt_fail(CM_INVALID_THREAD_SPACE, "%s: the driver refused the launch: %s",
		               who, cu_errtext(r));
	c->lost = true;
	snprintf(c->lost_why, sizeof c->lost_why, "%s: %s", who, cu_errtext(r));
	return rt_fail(CM_KERNEL_FAULT, "%s failed %s: %s (the CUDA context is lost; "
	               "close the device)", who, when, cu_errtext(r));
}

static const char *const fault_text[CUDA_FAULT_COUNT_] = {
#define FAULT_TEXT_(N, TEXT) [CUDA_FAULT_##N] = TEXT,
	CUDA_FAULT_KINDS(FAULT_TEXT_)
#undef FAULT_TEXT_
};

/* The report of fault record f (rt/cuda_abi.h "Faults"): a full record in
 * the CPU device's words (line, what, thread), a line alone as such. */
static void fault_report(RtLaunch *l, uint64_t f)
{
	uint32_t lo = (uint32_t)f, kind = lo >> 24 & 0x7f;
	if (!(lo & CUDA_FAULT_FULL)) {
		snprintf(l->fault, sizeof l->fault,
		         "kernel '%s': out-of-range memory access at line %u of the CM source "
		         "(the access was made safe)", l->info->name, lo);
		return;
	}
	const char *what = kind < CUDA_FAULT_COUNT_ && fault_text[kind] ? fault_text[kind] : "?";
	snprintf(l->fault, sizeof l->fault,
	         "kernel '%s' accessed out of bounds at line %u (%s) in thread %u",
	         l->info->name, lo & CUDA_FAULT_LINE_MAX, what, (uint32_t)(f >> 32));
}

/* Reads and clears the fault record of the launch's slot after the
 * batch (fault_host holds the records: mapped, or copied back). */
static void check_fault(CudaDevice *c, RtLaunch *l, uint32_t slot)
{
	uint64_t f = c->fault_host[slot];
	if (!f)
		return;
	fault_report(l, f);
	c->fault_host[slot] = 0;
	if (!c->fault_mapped)
		c->cu->MemsetD8(c->fault_dev + (CUdeviceptr)slot * sizeof f, 0, sizeof f);
}

/* A kernel with cm_wgmma runs wgmma on warpgroups of 4 consecutive CM
 * threads (warps) of a CTA: its launches must be of groups of a multiple
 * of 4 CM threads (a cluster's CTAs would split them: at most 32). */
static cm_status warpgroups_fit(const RtLaunch *l, const CudaKernel *k)
{
	uint64_t n = (uint64_t)l->threads[0] * l->threads[1] * l->threads[2];
	if (!k->wgmma || (l->kind != RT_LAUNCH_WALKER && n % 4 == 0 && n <= 32))
		return CM_SUCCESS;
	if (l->kind == RT_LAUNCH_WALKER)
		return rt_fail(CM_INVALID_THREAD_SPACE, "kernel '%s' uses cm_wgmma, whose warpgroups "
		               "are 4 CM threads of a group: launch it in groups of 4, 8, .. 32 "
		               "threads, not as a thread space", l->info->name);
	return rt_fail(CM_INVALID_THREAD_SPACE, "kernel '%s' uses cm_wgmma: a group of %llu CM "
	               "threads is not whole warpgroups on a CUDA device (groups of 4, 8, .. 32)",
	               l->info->name, (unsigned long long)n);
}

/* The dynamic shared memory of a launch: the kernel's SLM when it lives
 * there ("dynamic_slm 1"), then its per-CM-thread scratch for every CM
 * thread of the CTA (k->lanes lanes each) (rt/cuda_abi.h "Metadata"). */
static uint64_t dyn_bytes(const Geometry *g, const CudaKernel *k)
{
	uint64_t threads = (uint64_t)g->block[0] * g->block[1] * g->block[2] / k->lanes;
	return k->dyn_slm + (uint64_t)k->scratch * threads;
}

/* A CTA's shared memory must fit the device's opt-in maximum: a clear
 * error, where the driver would refuse the launch with a bare code. */
static cm_status shared_fits(const CudaDevice *c, const RtLaunch *l, const Geometry *g,
                             const CudaKernel *k)
{
	uint64_t dyn = dyn_bytes(g, k), stat = k->shared_bytes > 0 ? (uint64_t)k->shared_bytes : 0;
	uint64_t slm = k->dyn_slm ? k->dyn_slm : stat;
	if (dyn + stat <= c->arch.smem_per_cta)
		return CM_SUCCESS;
	return rt_fail(CM_GROUP_TOO_LARGE,
	               "kernel '%s' needs %llu bytes of shared memory per CTA (%u of SLM and "
	               "%llu of the PTX back end's scratch for its CM threads); this device "
	               "allows at most %u", l->info->name, (unsigned long long)(dyn + stat),
	               l->info->slm_size, (unsigned long long)(dyn + stat - slm),
	               c->arch.smem_per_cta);
}

/* The dynamic shared memory of a launch (dyn_bytes), with the function's
 * limit raised past the default 48 KB when it needs more. */
static unsigned dyn_shared(CudaDevice *c, const Geometry *g, CudaKernel *k, CUfunction fn)
{
	unsigned bytes = (unsigned)dyn_bytes(g, k);
	/* the limit set so far, per function (a capped program's narrow
	 * entry, pick_entry: none kept, set at every launch) */
	uint32_t none = 0;
	uint32_t *max = fn == k->fn ? &k->dyn_max : fn == k->narrow_fn ? &k->narrow_dyn_max : &none;
	if (bytes > 48 * 1024 && bytes > *max && c->cu->FuncSetAttribute &&
	    !c->cu->FuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
	                             (int)bytes))
		*max = bytes;
	return bytes;
}

/* Whether launch l binds an image whose pixels are narrower than the
 * widest element of k's media reads (its NAME$narrow entry's case). */
static bool narrow_pixels(const RtLaunch *l, const CudaKernel *k)
{
	for (uint32_t i = 0; k->narrow_fn && i < l->info->nargs; i++) {
		const CmkSurface *s = &l->surfaces[i];
		if (l->info->args[i].kind == CMK_ARG_SURFACE && s->is2d && s->bpp < k->narrow_eb)
			return true;
	}
	return false;
}

/* The entry that launch l runs: the kernel's, or its NAME$narrow
 * (target/ptx/variant.c) when narrow_pixels.  That entry's registers may
 * not allow the CTA the kernel's allow: then it comes from the program
 * JIT-compiled with a register cap for the CTA (cuda_regcap_program; the
 * launch's parameters are the same for it). */
static cm_status pick_entry(CudaDevice *c, const RtLaunch *l, const Geometry *g,
                            CudaProgram *cp, const CudaKernel *k, CUfunction *fn)
{
	*fn = k->fn;
	if (!narrow_pixels(l, k))
		return CM_SUCCESS;
	*fn = k->narrow_fn;
	uint64_t n = (uint64_t)g->block[0] * g->block[1] * g->block[2];
	if (n <= (uint64_t)k->narrow_max_threads)
		return CM_SUCCESS;
	CudaProgram *capped;
	uint32_t i = l->kernel->index;
	cm_status s = cuda_regcap_program(c, l->kernel->prog, cp, i, (uint32_t)((n + 31) / 32),
	                                  &capped);
	if (s)
		return s;
	if (!capped->ks[i].narrow_fn || n > (uint64_t)capped->ks[i].narrow_max_threads)
		return rt_fail(CM_GROUP_TOO_LARGE, "kernel '%s': its entry for images of pixels "
		               "narrower than its media reads' %u-byte elements fits %d GPU threads "
		               "a CTA, not %llu, even with capped registers: use smaller thread groups",
		               l->info->name, k->narrow_eb, capped->ks[i].narrow_max_threads,
		               (unsigned long long)n);
	*fn = capped->ks[i].narrow_fn;
	return CM_SUCCESS;
}

/* cuLaunchKernel, or cuLaunchKernelEx with the cluster dimension. */
static CUresult launch(CudaDevice *c, const Geometry *g, CudaKernel *k, CUfunction fn)
{
	unsigned shmem = dyn_shared(c, g, k, fn);
	if (g->cluster <= 1)
		return c->cu->LaunchKernel(fn, g->grid[0], g->grid[1], g->grid[2], g->block[0],
		                           g->block[1], g->block[2], shmem, c->stream, k->params,
		                           NULL);
	CUlaunchAttribute at = {.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION};
	at.value.clusterDim.x = g->cluster;
	at.value.clusterDim.y = at.value.clusterDim.z = 1;
	CUlaunchConfig cfg = {g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1],
	                      g->block[2], shmem, c->stream, &at, 1};
	return c->cu->LaunchKernelEx(&cfg, fn, k->params, NULL);
}

/* The per-thread arguments of a launch as a list, "2,3" ("" for none). */
static void thread_arg_list(const RtLaunch *l, char *out, size_t cap)
{
	size_t n = 0;
	out[0] = '\0';
	for (uint32_t i = 0; l->per_thread && i < l->info->nargs && n < cap; i++)
		if (l->per_thread[i])
			n += (size_t)snprintf(out + n, cap - n, n ? ",%u" : "%u", i);
}

/* Uploads the launch's per-thread tables into k->targ_mem (one
 * allocation, 256-byte aligned tables) and points their params at them. */
static cm_status upload_thread_args(CudaDevice *c, const RtLaunch *l, CudaKernel *k)
{
	const CmkKernelInfo *ki = l->info;
	uint64_t nt = (uint64_t)l->width * l->height;
	size_t need = 0;
	for (uint32_t i = 0; i < ki->nargs; i++)
		if (l->per_thread[i])
			need += ((size_t)nt * ki->args[i].size + 255) / 256 * 256;
	if (need > k->targ_cap) {
		if (k->targ_mem)
			cuda_free_later(c, k->targ_mem);
		k->targ_mem = 0;
		k->targ_cap = 0;
		CUresult r = c->cu->MemAlloc(&k->targ_mem, need);
		if (r)
			return rt_fail(CM_OUT_OF_MEMORY, "cannot allocate %zu bytes of per-thread "
			               "arguments on the GPU: %s", need, cu_errtext(r));
		k->targ_cap = need;
	}
	CUdeviceptr at = k->targ_mem;
	for (uint32_t i = 0; i < ki->nargs; i++) {
		if (!l->per_thread[i])
			continue;
		size_t bytes = (size_t)nt * ki->args[i].size;
		CUresult r = c->cu->MemcpyHtoDAsync(at, l->per_thread[i], bytes, c->stream);
		if (r)
			return cu_fail(r, CM_IO_ERROR, "uploading per-thread arguments");
		k->targ_addr[i] = at;
		at += (bytes + 255) / 256 * 256;
	}
	return CM_SUCCESS;
}

/* "kernel 'k'" of launch l. */
static const char *who(const RtLaunch *l, char *buf, size_t cap)
{
	snprintf(buf, cap, "kernel '%s'", l->info->name);
	return buf;
}

/* Everything before the kernel: geometry and the program to launch,
 * launch block, uploads; *cpp and *kp get the program and kernel. */
static cm_status prepare(CudaDevice *c, RtLaunch *l, uint32_t slot, Geometry *g,
                         CudaProgram **cpp, CudaKernel **kp)
{
	CudaProgram *cp = l->kernel->prog->priv;
	char targs[256];
	bool any;
	thread_arg_list(l, targs, sizeof targs);
	cm_status s = warpgroups_fit(l, &cp->ks[l->kernel->index]);
	if (!s)
		s = geometry(c, l, &cp, g);
	if (!s)
		s = cuda_thread_args_program(c, cp, l->kernel->index, targs, &cp);
	if (s)
		return s;
	CudaKernel *k = &cp->ks[l->kernel->index];
	s = shared_fits(c, l, g, k);
	if (!s && k->uses_printf)
		s = printf_prepare(c);
	if (!s)
		s = build_block(c, l, g, k, slot);
	if (!s)
		s = upload_block(c, k);
	if (!s)
		s = sync_aliases(c, l, true, &any);
	if (!s && l->per_thread)
		s = upload_thread_args(c, l, k);
	*cpp = cp;
	*kp = k;
	return s;
}

cm_status cuda_enqueue(CudaDevice *c, RtLaunch *l, uint32_t slot, CudaQueued *q)
{
	Geometry g = {{0}};
	CudaProgram *cp;
	CudaKernel *k;
	CUfunction fn;
	cm_status s = prepare(c, l, slot, &g, &cp, &k);
	if (!s)
		s = pick_entry(c, l, &g, cp, k, &fn);
	if (s)
		return s;
	set_params(l, k);
	*q = (CudaQueued){l, cp, l->timed && cuda_slot_events(c, slot), k->uses_printf,
	                  k->uses_printf || k->checks};
	if (q->timed)
		c->cu->EventRecord(c->ev[2 * slot], c->stream);
	CUresult r = launch(c, &g, k, fn);
	if (r) {
		char name[160];
		return cuda_kernel_error(c, who(l, name, sizeof name), r, "to launch");
	}
	if (q->timed)
		c->cu->EventRecord(c->ev[2 * slot + 1], c->stream);
	bool copied;
	s = sync_aliases(c, l, false, &copied);
	q->host_after |= copied;
	return s;
}

cm_status cuda_finish(CudaDevice *c, const CudaQueued *q, uint32_t slot)
{
	if (q->timed)
		device_time(c, q->l, slot);
	check_fault(c, q->l, slot);
	return q->prints ? printf_collect(c, q->cp, q->l) : CM_SUCCESS;
}
