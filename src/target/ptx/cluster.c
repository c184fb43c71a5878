/* cluster.c — CM thread groups of more than 32 CM threads on sm_90, over
 * thread-block clusters (-fcluster-slm; rt/cuda_abi.h "Clusters").
 *
 * requires: EmitOptions.cluster_slm; the launch block in %launch.
 *
 * A CM thread is a warp and a CTA holds at most 32 warps, so a group of G
 * CM threads becomes a cluster of up to 8 CTAs.  What changes against the
 * ordinary kernel, each behind a small hook of the file that owns it:
 *   - ids (warp.c thread_id, px_linear_tid): the local linear id L is
 *     %cluster_ctarank * cta_warps + tid.x / 32, split into x, y, z by the
 *     launch's local sizes (CudaLaunchParam); the group is the cluster (%clusterid);
 *   - SLM (mem.c where): the rank-0 CTA's .shared array, its cluster
 *     address taken once at entry with mapa into %cl_slm, and every access
 *     in the .shared::cluster space (ld, st, atom);
 *   - cm_barrier: barrier.cluster.arrive.release + barrier.cluster.wait
 *     .acquire (SLM writes before it are seen after it by every CTA);
 *     cm_sbarrier: the two halves; fences at CTA scope widen to the cluster;
 *   - entry: padding warps (L >= G, only in the last CTA) exit, then a
 *     cluster barrier, so every CTA has started before any DSMEM access;
 *   - exit: a cluster barrier, so rank 0's shared memory outlives every
 *     access to it.
 * Exited threads count as arrived at a cluster barrier, so padding warps
 * and walker warps past the space never hold one up.  In walker launches
 * and launches without a cluster attribute every CTA is a cluster of one,
 * and this code computes what the ordinary kernel does.
 */
#include <stdlib.h>
#include <string.h>

#include "rt/cuda_abi.h"
#include "target/ptx/ptx.h"

bool px_cluster_on(const Px *p)
{
	return p->o->cluster_slm;
}

/* -fcluster-slm needs clusters (sm_90); false after an error. */
bool px_cluster_check(const EmitOptions *o, const char *march)
{
	/* clusters: sm_90 and every newer architecture */
	if (!o->cluster_slm || atoi(march + 3) >= 90)
		return true;
	error_at((Loc){0}, "-fcluster-slm needs thread-block clusters: -march=sm_90 or newer "
	         "(not %s)", march);
	return false;
}

void px_cluster_decls(Px *p, Buf *out)
{
	if (px_cluster_on(p))
		buf_puts(out, "\t.reg .b32 %cl_l, %cl_slm;\n");
}

/* local[k] of the launch (its CudaLaunchParam) into a new register. */
static const char *local_size(Px *p, int k)
{
	const char *r = px_tmp(p, RC_B32);
	px_ins(p, "ld.param.u32 %s, [%s_launch+%d]", r, p->f->name, CUDA_LP_LOCAL + 4 * k);
	return r;
}

/* The group size G = local[0] * local[1] * local[2]. */
static const char *group_size(Px *p)
{
	const char *g = local_size(p, 0);
	px_ins(p, "mul.lo.u32 %s, %s, %s", g, g, local_size(p, 1));
	px_ins(p, "mul.lo.u32 %s, %s, %s", g, g, local_size(p, 2));
	return g;
}

/* At entry, after the walker prologue: %cl_l, padding warps out, the entry
 * barrier, and the cluster address of the rank-0 SLM in %cl_slm. */
void px_cluster_entry(Px *p)
{
	if (!px_cluster_on(p))
		return;
	const char *rk = px_tmp(p, RC_B32), *cw = px_tmp(p, RC_B32), *q = px_tmp(p, RC_PRED);
	const char *l = px_label(p);
	px_comment(p, "cluster: the CM group spans the cluster (rt/cuda_abi.h \"Clusters\")");
	px_ins(p, "mov.u32 %%cl_l, %%tid.x");
	px_ins(p, "shr.u32 %%cl_l, %%cl_l, 5");
	px_ins(p, "@%%walk bra %s", l);
	px_ins(p, "mov.u32 %s, %%cluster_ctarank", rk);
	px_ins(p, "ld.param.u32 %s, [%s_launch+%d]", cw, p->f->name, CUDA_LP_CTA_WARPS);
	px_ins(p, "mad.lo.u32 %%cl_l, %s, %s, %%cl_l", rk, cw);
	px_ins(p, "setp.ge.u32 %s, %%cl_l, %s", q, group_size(p));
	px_ins(p, "@%s exit", q);
	buf_printf(&p->body, "%s:\n", l);
	px_ins(p, "barrier.cluster.arrive.relaxed");
	px_ins(p, "barrier.cluster.wait");
	if (p->f->slm_size)
		px_ins(p, "mapa.shared::cluster.u32 %%cl_slm, %s_slm, 0", p->f->name);
	else
		px_ins(p, "mov.u32 %%cl_slm, 0");
}

/* Before the kernel's final ret. */
void px_cluster_exit(Px *p)
{
	if (!px_cluster_on(p))
		return;
	px_ins(p, "barrier.cluster.arrive.release");
	px_ins(p, "barrier.cluster.wait.acquire");
}

const char *px_slm_base(Px *p)
{
	if (px_cluster_on(p))
		return "%cl_slm";
	return arena_printf(p->arena, "%s_slm", p->f->name);
}

/* cm_barrier, cm_sbarrier and fences in cluster mode; false for any other
 * instruction (the caller emits it). */
bool px_cluster_sync(Px *p, Inst *i)
{
	switch (i->op) {
	case Obarrier:
		px_ins(p, "barrier.cluster.arrive.release");
		px_ins(p, "barrier.cluster.wait.acquire");
		return true;
	case Osbarrier:
		if (i->imm)
			px_ins(p, "barrier.cluster.arrive.release");
		else
			px_ins(p, "barrier.cluster.wait.acquire");
		return true;
	case Ofence:
		px_ins(p, "fence.acq_rel.%s", i->imm == 0x20 ? "cluster" : "gpu");
		return true;
	default:
		return false;
	}
}

/* The group-launch value of thread id t into g (walker values are chosen
 * by the caller); ids that do not depend on the group shape are left. */
void px_cluster_tid(Px *p, IrTid t, const char *g)
{
	if (!px_cluster_on(p))
		return;
	switch (t) {
	case TID_ORIGIN_X: case TID_ORIGIN_Y:
		px_ins(p, "mov.u32 %s, %%clusterid.%c", g, t == TID_ORIGIN_X ? 'x' : 'y');
		break;
	case TID_GROUP_ID_X: case TID_GROUP_ID_Y: case TID_GROUP_ID_Z:
		px_ins(p, "mov.u32 %s, %%clusterid.%c", g, "xyz"[t - TID_GROUP_ID_X]);
		break;
	case TID_GROUP_COUNT_X: case TID_GROUP_COUNT_Y: case TID_GROUP_COUNT_Z:
		px_ins(p, "mov.u32 %s, %%nclusterid.%c", g, "xyz"[t - TID_GROUP_COUNT_X]);
		break;
	case TID_LOCAL_SIZE_X: case TID_LOCAL_SIZE_Y: case TID_LOCAL_SIZE_Z:
		px_ins(p, "mov.u32 %s, %s", g, local_size(p, (int)(t - TID_LOCAL_SIZE_X)));
		break;
	case TID_LOCAL_ID_X:
		px_ins(p, "rem.u32 %s, %%cl_l, %s", g, local_size(p, 0));
		break;
	case TID_LOCAL_ID_Y:
		px_ins(p, "div.u32 %s, %%cl_l, %s", g, local_size(p, 0));
		px_ins(p, "rem.u32 %s, %s, %s", g, g, local_size(p, 1));
		break;
	case TID_LOCAL_ID_Z: {
		const char *xy = local_size(p, 0);
		px_ins(p, "mul.lo.u32 %s, %s, %s", xy, xy, local_size(p, 1));
		px_ins(p, "div.u32 %s, %%cl_l, %s", g, xy);
		break;
	}
	default:
		break;
	}
}

/* The CM thread's linear id for printf records: group linear id (over
 * %clusterid) times G plus L; %linear in walker launches. */
const char *px_cluster_linear(Px *p)
{
	const char *g = px_tmp(p, RC_B32), *t = px_tmp(p, RC_B32), *n = px_tmp(p, RC_B32);
	const char *d = px_tmp(p, RC_B32);
	px_ins(p, "mov.u32 %s, %%clusterid.z", g);
	px_ins(p, "mov.u32 %s, %%nclusterid.y", n);
	px_ins(p, "mov.u32 %s, %%clusterid.y", t);
	px_ins(p, "mad.lo.u32 %s, %s, %s, %s", g, g, n, t);
	px_ins(p, "mov.u32 %s, %%nclusterid.x", n);
	px_ins(p, "mov.u32 %s, %%clusterid.x", t);
	px_ins(p, "mad.lo.u32 %s, %s, %s, %s", g, g, n, t);
	px_ins(p, "mad.lo.u32 %s, %s, %s, %%cl_l", d, g, group_size(p));
	px_ins(p, "selp.b32 %s, %%linear, %s, %%walk", d, d);
	return d;
}
