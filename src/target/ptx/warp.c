/* warp.c — what involves the whole warp or the launch: the kernel prologue
 * (walker or group geometry, rt/cuda_abi.h), thread ids, votes (any/all),
 * mask packing, reductions as shuffle trees, barriers, fences, cm_wait /
 * cm_signal on the launch's flag array, the timer, printf records in the
 * launch's printf buffer (formatted by the runtime), and fault reports.
 *
 * requires: values laid out as ptx.h says; lanes past n are masked here.
 */
#include <string.h>

#include "rt/cuda_abi.h"
#include "target/ptx/ptx.h"

/* The prologue: the launch block's address, the lane id, and in walker
 * launches the CM thread's linear id (from the ticket when the kernel
 * waits), leaving warps past the space at once.  The launch values come
 * from the CudaLaunchParam (rt/cuda_abi.h "Kernel entry"): no global
 * load but the ticket's. */
void px_prologue(Px *p)
{
	const char *n = p->f->name;
	px_ins(p, "ld.param.u64 %%launch, [%s_launch]", n);   /* CUDA_LP_BLOCK: 0 */
	px_ins(p, "mov.u32 %%lane, %%laneid");
	px_pack_prologue(p);
	px_ins(p, "ld.param.u32 %%kind, [%s_launch+%d]", n, CUDA_LP_KIND);
	px_ins(p, "setp.eq.u32 %%walk, %%kind, %d", CUDA_LAUNCH_WALKER);
	px_ins(p, "mov.u32 %%linear, 0");
	px_ins(p, "@!%%walk bra.uni $L_%s_start", n);
	if (p->f->uses_wait) {
		const char *a = px_tmp(p, RC_B64), *q = px_tmp(p, RC_PRED);
		px_ins(p, "ld.global.nc.u64 %s, [%%launch+%d]", a, CUDA_L_TICKET);
		px_ins(p, "setp.eq.u32 %s, %%lane, 0", q);
		px_ins(p, "@%s atom.global.add.u32 %%linear, [%s], 1", q, a);
		px_shfl(p, "idx", RC_B32, "%linear", "%linear", "0");
	} else {
		const char *t = px_tmp(p, RC_B32), *c = px_tmp(p, RC_B32);
		px_ins(p, "ld.param.u32 %s, [%s_launch+%d]", t, n, CUDA_LP_TPC);
		px_ins(p, "mov.u32 %s, %%ctaid.x", c);
		px_ins(p, "mov.u32 %%linear, %%tid.x");
		px_ins(p, "shr.u32 %%linear, %%linear, %u", px_lane_shift(p));
		px_ins(p, "mad.lo.u32 %%linear, %s, %s, %%linear", c, t);
	}
	const char *nt = px_tmp(p, RC_B32), *q = px_tmp(p, RC_PRED);
	px_ins(p, "ld.param.u32 %s, [%s_launch+%d]", nt, n, CUDA_LP_NTHREADS);
	px_ins(p, "setp.ge.u32 %s, %%linear, %s", q, nt);
	px_ins(p, "@%s ret", q);
	buf_printf(&p->body, "$L_%s_start:\n", n);
	px_cluster_entry(p);
	px_load_surfaces(p);
}

/* Lane 0 of a walker thread stores 1 into its flag (cm_signal). */
static void signal_flag(Px *p)
{
	const char *a = px_tmp(p, RC_B64), *o = px_tmp(p, RC_B64), *q = px_tmp(p, RC_PRED);
	const char *one = px_tmp(p, RC_B32), *l = px_label(p);
	px_ins(p, "@!%%walk bra.uni %s", l);
	px_ins(p, "ld.global.nc.u64 %s, [%%launch+%d]", a, CUDA_L_FLAGS);
	px_ins(p, "setp.eq.u64 %s, %s, 0", q, a);
	px_ins(p, "@%s bra.uni %s", q, l);
	px_ins(p, "mul.wide.u32 %s, %%linear, 4", o);
	px_ins(p, "add.u64 %s, %s, %s", a, a, o);
	px_ins(p, "mov.u32 %s, 1", one);
	px_ins(p, "setp.eq.u32 %s, %%lane, 0", q);
	px_ins(p, "@%s st.release.gpu.global.u32 [%s], %s", q, a, one);
	buf_printf(&p->body, "%s:\n", l);
}

void px_epilogue(Px *p)
{
	if (p->f->uses_wait)
		signal_flag(p);
	px_cluster_exit(p);
	px_ins(p, "ret");
}

/* cm_wait(mask): spin on the flags of each dependency not masked off. */
static void wait_deps(Px *p, Inst *i)
{
	const char *done = px_label(p), *loop = px_label(p), *next = px_label(p);
	const char *spin = px_label(p);
	const char *k = px_tmp(p, RC_B32), *nd = px_tmp(p, RC_B32), *w = px_tmp(p, RC_B32);
	const char *h = px_tmp(p, RC_B32), *x = px_tmp(p, RC_B32), *y = px_tmp(p, RC_B32);
	const char *t = px_tmp(p, RC_B32), *q = px_tmp(p, RC_PRED), *fl = px_tmp(p, RC_B64);
	const char *a = px_tmp(p, RC_B64), *o = px_tmp(p, RC_B64);
	px_ins(p, "@!%%walk bra %s", done);
	px_ins(p, "ld.global.nc.u64 %s, [%%launch+%d]", fl, CUDA_L_FLAGS);
	px_ins(p, "setp.eq.u64 %s, %s, 0", q, fl);
	px_ins(p, "@%s bra %s", q, done);
	px_ins(p, "ld.global.nc.u32 %s, [%%launch+%d]", nd, CUDA_L_NDEPS);
	px_ins(p, "ld.global.nc.u32 %s, [%%launch+%d]", w, CUDA_L_WIDTH);
	px_ins(p, "ld.global.nc.u32 %s, [%%launch+%d]", h, CUDA_L_HEIGHT);
	px_ins(p, "mov.u32 %s, 0", k);
	buf_printf(&p->body, "%s:\n", loop);
	px_ins(p, "setp.ge.u32 %s, %s, %s", q, k, nd);
	px_ins(p, "@%s bra %s", q, done);
	px_ins(p, "shr.b32 %s, %s, %s", t, px_reg(p, i->ops[0], 0), k);
	px_ins(p, "and.b32 %s, %s, 1", t, t);
	px_ins(p, "setp.ne.u32 %s, %s, 0", q, t);
	px_ins(p, "@%s bra %s", q, next);
	px_ins(p, "cvt.u64.u32 %s, %s", o, k);
	px_ins(p, "add.u64 %s, %%launch, %s", a, o);
	px_ins(p, "ld.global.nc.s8 %s, [%s+%d]", x, a, CUDA_L_DX);
	px_ins(p, "ld.global.nc.s8 %s, [%s+%d]", y, a, CUDA_L_DY);
	px_ins(p, "rem.u32 %s, %%linear, %s", t, w);
	px_ins(p, "add.s32 %s, %s, %s", x, x, t);
	px_ins(p, "div.u32 %s, %%linear, %s", t, w);
	px_ins(p, "add.s32 %s, %s, %s", y, y, t);
	px_ins(p, "setp.ge.u32 %s, %s, %s", q, x, w);    /* negative too */
	px_ins(p, "@%s bra %s", q, next);
	px_ins(p, "setp.ge.u32 %s, %s, %s", q, y, h);
	px_ins(p, "@%s bra %s", q, next);
	px_ins(p, "mad.lo.u32 %s, %s, %s, %s", t, y, w, x);
	px_ins(p, "mul.wide.u32 %s, %s, 4", o, t);
	px_ins(p, "add.u64 %s, %s, %s", a, fl, o);
	buf_printf(&p->body, "%s:\n", spin);
	px_ins(p, "ld.acquire.gpu.global.u32 %s, [%s]", t, a);
	px_ins(p, "setp.eq.u32 %s, %s, 0", q, t);
	px_ins(p, "@%s nanosleep.u32 64", q);
	px_ins(p, "@%s bra %s", q, spin);
	buf_printf(&p->body, "%s:\n", next);
	px_ins(p, "add.u32 %s, %s, 1", k, k);
	px_ins(p, "bra %s", loop);
	buf_printf(&p->body, "%s:\n", done);
}

/* Whether thread id t reads the same in walker and group launches: the y
 * and z ids, as a walker grid and CTA are (n, 1, 1) (rt/cuda_abi.h), so
 * that ctaid, tid, ntid and nctaid give the walker's 0 and 1 there; not in
 * cluster mode, whose ids come from the cluster and the launch values. */
static bool same_in_walker(const Px *p, IrTid t)
{
	switch (t) {
	case TID_GROUP_ID_Y: case TID_GROUP_ID_Z: case TID_LOCAL_ID_Y: case TID_LOCAL_ID_Z:
	case TID_LOCAL_SIZE_Y: case TID_LOCAL_SIZE_Z: case TID_GROUP_COUNT_Y:
	case TID_GROUP_COUNT_Z:
		return !px_cluster_on(p);
	default:
		return false;
	}
}

/* Whether the runtime may run f's groups as several CTAs (rt/cuda_abi.h
 * "Split groups"): nothing but the thread ids tells the CM threads of a
 * group apart from others (no SLM, no barrier, no cm_wait, no cluster). */
bool px_splittable(const Func *f, const EmitOptions *o)
{
	return !o->cluster_slm && !f->slm_size && !f->uses_barrier && !f->uses_wait;
}

/* Log2 of the CTAs per group along dimension d (0: x, 1: y) of a split
 * group launch, from the CudaLaunchParam. */
static const char *split_shift(Px *p, int d)
{
	const char *s = px_tmp(p, RC_B32);
	px_ins(p, "ld.param.u32 %s, [%s_launch+%d]", s, p->f->name, CUDA_LP_SPLIT + 4 * d);
	return s;
}

/* The group-launch value g of thread id t (its CTA's value) as the group's
 * when the runtime splits groups: CTA (rx, ry) of group (gx, gy) is CTA
 * (gx << sx | rx, gy << sy | ry) of the grid.  Ids of z, and every id of a
 * kernel that is not split, stay. */
static void split_tid(Px *p, IrTid t, const char *g)
{
	if (!px_splittable(p->f, p->o))
		return;
	switch (t) {
	case TID_ORIGIN_X: case TID_ORIGIN_Y:
	case TID_GROUP_ID_X: case TID_GROUP_ID_Y:
	case TID_GROUP_COUNT_X: case TID_GROUP_COUNT_Y: {
		int d = t == TID_ORIGIN_X || t == TID_GROUP_ID_X || t == TID_GROUP_COUNT_X ? 0 : 1;
		px_ins(p, "shr.u32 %s, %s, %s", g, g, split_shift(p, d));
		break;
	}
	case TID_LOCAL_SIZE_X: case TID_LOCAL_SIZE_Y:
		px_ins(p, "shl.b32 %s, %s, %s", g, g, split_shift(p, t == TID_LOCAL_SIZE_Y));
		break;
	case TID_LOCAL_ID_X: case TID_LOCAL_ID_Y: {
		int d = t == TID_LOCAL_ID_Y;
		const char *s = split_shift(p, d), *c = px_tmp(p, RC_B32), *r = px_tmp(p, RC_B32);
		const char *n = px_tmp(p, RC_B32);
		px_ins(p, "mov.u32 %s, %%ctaid.%c", c, "xy"[d]);
		px_ins(p, "shr.u32 %s, %s, %s", r, c, s);
		px_ins(p, "shl.b32 %s, %s, %s", r, r, s);
		px_ins(p, "sub.u32 %s, %s, %s", r, c, r);          /* the CTA within its group */
		px_ins(p, "mov.u32 %s, %%ntid.%c", n, "xy"[d]);
		if (!d)
			px_ins(p, "shr.u32 %s, %s, %u", n, n, px_lane_shift(p));
		px_ins(p, "mad.lo.u32 %s, %s, %s, %s", g, r, n, g);
		break;
	}
	default:
		break;
	}
}

/* The group-launch value of thread id t into g: its CTA's, then as the
 * cluster or the split group says; false for an id that has none. */
static bool group_tid(Px *p, IrTid t, const char *g)
{
	switch (t) {
	case TID_ORIGIN_X: case TID_ORIGIN_Y:
		px_ins(p, "mov.u32 %s, %%ctaid.%s", g, t == TID_ORIGIN_X ? "x" : "y");
		break;
	case TID_COLOR: px_ins(p, "mov.u32 %s, 0", g); break;
	case TID_GROUP_ID_X: case TID_GROUP_ID_Y: case TID_GROUP_ID_Z:
		px_ins(p, "mov.u32 %s, %%ctaid.%c", g, "xyz"[t - TID_GROUP_ID_X]);
		break;
	case TID_LOCAL_ID_X:
		px_ins(p, "mov.u32 %s, %%tid.x", g);
		px_ins(p, "shr.u32 %s, %s, %u", g, g, px_lane_shift(p));
		break;
	case TID_LOCAL_ID_Y: case TID_LOCAL_ID_Z:
		px_ins(p, "mov.u32 %s, %%tid.%c", g, t == TID_LOCAL_ID_Y ? 'y' : 'z');
		break;
	case TID_LOCAL_SIZE_X:
		px_ins(p, "mov.u32 %s, %%ntid.x", g);
		px_ins(p, "shr.u32 %s, %s, %u", g, g, px_lane_shift(p));
		break;
	case TID_LOCAL_SIZE_Y: case TID_LOCAL_SIZE_Z:
		px_ins(p, "mov.u32 %s, %%ntid.%c", g, t == TID_LOCAL_SIZE_Y ? 'y' : 'z');
		break;
	case TID_GROUP_COUNT_X: case TID_GROUP_COUNT_Y: case TID_GROUP_COUNT_Z:
		px_ins(p, "mov.u32 %s, %%nctaid.%c", g, "xyz"[t - TID_GROUP_COUNT_X]);
		break;
	default:
		return false;
	}
	px_cluster_tid(p, t, g);
	split_tid(p, t, g);
	return true;
}

/* The walker-launch value of thread id t into w. */
static void walker_tid(Px *p, IrTid t, const char *w)
{
	const char *n = px_tmp(p, RC_B32);
	switch (t) {
	case TID_ORIGIN_X: case TID_ORIGIN_Y:
		px_ins(p, "ld.param.u32 %s, [%s_launch+%d]", n, p->f->name, CUDA_LP_WIDTH);
		px_ins(p, "max.u32 %s, %s, 1", n, n);
		px_ins(p, "%s.u32 %s, %%linear, %s", t == TID_ORIGIN_X ? "rem" : "div", w, n);
		break;
	case TID_GROUP_ID_X: px_ins(p, "mov.u32 %s, %%linear", w); break;
	case TID_GROUP_COUNT_X:
		px_ins(p, "ld.param.u32 %s, [%s_launch+%d]", w, p->f->name, CUDA_LP_NTHREADS);
		break;
	case TID_LOCAL_SIZE_X: case TID_LOCAL_SIZE_Y: case TID_LOCAL_SIZE_Z:
	case TID_GROUP_COUNT_Y: case TID_GROUP_COUNT_Z:
		px_ins(p, "mov.u32 %s, 1", w);
		break;
	default:
		px_ins(p, "mov.u32 %s, 0", w);
		break;
	}
}

/* Thread ids: walker values when %walk, group values otherwise (the walker
 * width and count from the CudaLaunchParam: no load before a group
 * launch's first access); no select where the two agree. */
static bool thread_id(Px *p, Inst *i)
{
	const char *d = px_reg(p, i, 0), *g = px_tmp(p, RC_B32), *t = px_tmp(p, RC_B32);
	IrTid id = (IrTid)i->imm;
	if (!group_tid(p, id, g))
		return px_unsupported(p, i, "this thread id");
	bool b32 = px_class(i->ty.elem) == RC_B32;
	const char *v = b32 ? d : t;
	if (same_in_walker(p, id)) {
		px_ins(p, "mov.b32 %s, %s", v, g);
	} else {
		const char *w = px_tmp(p, RC_B32);
		walker_tid(p, id, w);
		px_ins(p, "selp.b32 %s, %s, %s, %%walk", v, w, g);
	}
	if (b32)
		px_normalize(p, i->ty.elem, d);
	else
		px_conv_slot(p, i->ty.elem, d, E_U32, t, false);
	return true;
}

static IrTid tid_of(const Inst *v)
{
	return v->op == Otid ? (IrTid)v->imm : TID_COUNT_;
}

/* Whether v is a 32-bit integer scalar (wrapping as the ids' u32 does). */
static bool int32_scalar(const Inst *v)
{
	return v->ty.n == 1 && (v->ty.elem == E_U32 || v->ty.elem == E_I32);
}

/* ctaid.d * ntid.d (+ tid.d), in CM threads along x, into d. */
static void grid_product(Px *p, int d, bool plus_tid, const char *dst)
{
	const char *c = px_tmp(p, RC_B32), *n = px_tmp(p, RC_B32), *t = px_tmp(p, RC_B32);
	char xyz = "xyz"[d];
	px_ins(p, "mov.u32 %s, %%%sctaid.%c", c, plus_tid ? "" : "n", xyz);
	px_ins(p, "mov.u32 %s, %%ntid.%c", n, xyz);
	if (!d)
		px_ins(p, "shr.u32 %s, %s, %u", n, n, px_lane_shift(p));
	if (!plus_tid) {
		px_ins(p, "mul.lo.u32 %s, %s, %s", dst, c, n);
		return;
	}
	px_ins(p, "mov.u32 %s, %%tid.%c", t, xyz);
	if (!d)
		px_ins(p, "shr.u32 %s, %s, %u", t, t, px_lane_shift(p));
	px_ins(p, "mad.lo.u32 %s, %s, %s, %s", dst, c, n, t);
}

/* Whether m is mul(a, b) of thread ids a and b, in either order. */
static bool tid_product(const Inst *m, IrTid a, IrTid b)
{
	if (m->op != Omul || !int32_scalar(m))
		return false;
	IrTid x = tid_of(m->ops[0]), y = tid_of(m->ops[1]);
	return (x == a && y == b) || (x == b && y == a);
}

/* The global id along d, add(mul(group_id.d, local_size.d), local_id.d),
 * that nearly every group kernel starts with, and the global size,
 * mul(group_count.d, local_size.d), as ctaid.d * ntid.d + tid.d and
 * nctaid.d * ntid.d (in CM threads): the same values whether or not the
 * runtime splits the group (rt/cuda_abi.h "Split groups"), in fewer
 * instructions than their ids; the walker's are %linear and the thread
 * count along x, 0 and 1 along y and z.  False, emitting nothing, when i
 * is neither. */
bool px_global_id(Px *p, Inst *i)
{
	if (!int32_scalar(i) || px_cluster_on(p) || (i->op != Oadd && i->op != Omul))
		return false;
	const char *dst = px_reg(p, i, 0);
	for (int d = 0; d < 3; d++) {
		IrTid gid = (IrTid)(TID_GROUP_ID_X + d), size = (IrTid)(TID_LOCAL_SIZE_X + d);
		IrTid lid = (IrTid)(TID_LOCAL_ID_X + d), count = (IrTid)(TID_GROUP_COUNT_X + d);
		if (i->op == Omul && tid_product(i, count, size)) {
			grid_product(p, d, false, dst);
			if (!d) {
				const char *w = px_tmp(p, RC_B32);
				px_ins(p, "ld.param.u32 %s, [%s_launch+%d]", w, p->f->name, CUDA_LP_NTHREADS);
				px_ins(p, "selp.b32 %s, %s, %s, %%walk", dst, w, dst);
			}
			return true;
		}
		for (int k = 0; i->op == Oadd && k < 2; k++) {
			if (tid_of(i->ops[1 - k]) != lid || !tid_product(i->ops[k], gid, size))
				continue;
			grid_product(p, d, true, dst);
			if (!d)
				px_ins(p, "selp.b32 %s, %%linear, %s, %%walk", dst, dst);
			return true;
		}
	}
	return false;
}

/* any / all over the valid lanes of every slot. */
static bool vote(Px *p, Inst *i)
{
	Inst *v = i->ops[0];
	const char *d = px_reg(p, i, 0);
	bool any = i->op == Oany;
	if (v->ty.n == 1) {
		px_ins(p, "mov.pred %s, %s", d, px_reg(p, v, 0));
		return true;
	}
	for (uint32_t s = 0; s < SLOTS(v->ty.n); s++) {
		uint32_t cnt = v->ty.n - s * 32 < 32 ? v->ty.n - s * 32 : 32;
		const char *x = px_reg(p, v, s), *r = px_tmp(p, RC_PRED);
		if (cnt < 32) {
			const char *in = px_lane_lt(p, cnt), *m = px_tmp(p, RC_PRED);
			if (any) {
				px_ins(p, "and.pred %s, %s, %s", m, x, in);
			} else {
				px_ins(p, "not.pred %s, %s", in, in);
				px_ins(p, "or.pred %s, %s, %s", m, x, in);
			}
			x = m;
		}
		px_vote(p, any, r, x);
		if (!s)
			px_ins(p, "mov.pred %s, %s", d, r);
		else
			px_ins(p, "%s.pred %s, %s, %s", any ? "or" : "and", d, d, r);
	}
	return true;
}

static bool pack(Px *p, Inst *i)
{
	Inst *v = i->ops[0];
	const char *d = px_reg(p, i, 0);
	if (i->op == Opack) {
		if (v->ty.n == 1) {
			px_ins(p, "selp.b32 %s, 1, 0, %s", d, px_reg(p, v, 0));
			return true;
		}
		px_ballot(p, d, px_reg(p, v, 0));
		if (v->ty.n < 32)
			px_ins(p, "and.b32 %s, %s, %u", d, d, (1u << v->ty.n) - 1);
		px_normalize(p, i->ty.elem, d);
		return true;
	}
	for (uint32_t s = 0; s < SLOTS(i->ty.n); s++) {
		const char *t = px_tmp(p, RC_B32);
		if (s) {
			px_ins(p, "setp.ne.u32 %s, 0, 0", px_reg(p, i, s));
			continue;
		}
		if (i->ty.n == 1) {
			px_ins(p, "and.b32 %s, %s, 1", t, px_reg(p, v, 0));
		} else {
			px_ins(p, "shr.b32 %s, %s, %%lane", t, px_reg(p, v, 0));
			px_ins(p, "and.b32 %s, %s, 1", t, t);
		}
		px_ins(p, "setp.ne.u32 %s, %s, 0", px_reg(p, i, s), t);
	}
	return true;
}

/* The identity of a reduction for the lanes past n. */
static const char *identity(Px *p, Op op, Elem e)
{
	bool fl = ir_is_float(e);
	switch (op) {
	case Orsum: return fl ? (e == E_F64 ? "0d0000000000000000" : e == E_F16 ? "0x0000" : "0f00000000") : "0";
	case Orprod: return fl ? (e == E_F64 ? "0d3FF0000000000000" : e == E_F16 ? "0x3c00" : "0f3F800000") : "1";
	case Ormin:
		if (fl)
			return e == E_F64 ? "0d7FF0000000000000" : e == E_F16 ? "0x7c00" : "0f7F800000";
		return ir_is_signed(e) ? (px_class(e) == RC_B64 ? "9223372036854775807" : "2147483647")
		       : (px_class(e) == RC_B64 ? "-1" : "-1");
	default:
		if (fl)
			return e == E_F64 ? "0dFFF0000000000000" : e == E_F16 ? "0xfc00" : "0fFF800000";
		return ir_is_signed(e) ? (px_class(e) == RC_B64 ? "-9223372036854775808" : "-2147483648")
		       : "0";
	}
	(void)p;
}

static void combine(Px *p, Op op, Elem e, const char *d, const char *a, const char *b)
{
	const char *ty = px_ty(e);
	const char *fz = px_ftz(p, e);
	bool fl = ir_is_float(e);
	switch (op) {
	case Orsum: px_ins(p, "add%s.%s %s, %s, %s", fl ? fz : "", ty, d, a, b); break;
	case Orprod:
		if (fl)
			px_ins(p, "mul%s.%s %s, %s, %s", fz, ty, d, a, b);
		else
			px_ins(p, "mul.lo.%s %s, %s, %s", ty, d, a, b);
		break;
	case Ormin: px_ins(p, "min%s.%s %s, %s, %s", fl ? fz : "", ty, d, a, b); break;
	default: px_ins(p, "max%s.%s %s, %s, %s", fl ? fz : "", ty, d, a, b); break;
	}
}

/* The redux.sync form of a reduction over the lanes (sm_80: 32-bit
 * integer add, min and max, the result in every lane), or NULL. */
static const char *redux_op(Op op, Elem e)
{
	if (ir_is_float(e) || px_class(e) != RC_B32 || e == E_I1)
		return NULL;
	switch (op) {
	case Orsum: return "add.u32";    /* wraps alike signed or not */
	case Ormin: return ir_is_signed(e) ? "min.s32" : "min.u32";
	case Ormax: return ir_is_signed(e) ? "max.s32" : "max.u32";
	default: return NULL;
	}
}

/* Reductions: slots combine lane-wise (lanes past the vector hold the
 * identity), then one redux.sync for 32-bit integer sums, minima and
 * maxima, else a butterfly tree over the lanes in use and, when that did
 * not span the warp, a broadcast of lane 0's result. */
static bool reduce(Px *p, Inst *i)
{
	Inst *v = i->ops[0];
	Elem e = v->ty.elem;
	RegClass c = px_class(e);
	const char *d = px_reg(p, i, 0);
	if (i->sat && !ir_is_float(e))
		return px_unsupported(p, i, "saturating integer reductions");
	if (v->ty.n == 1) {
		px_ins(p, "mov.%s %s, %s", px_bits(e), d, px_reg(p, v, 0));
		return true;
	}
	const char *acc = px_tmp(p, c);
	for (uint32_t s = 0; s < SLOTS(v->ty.n); s++) {
		uint32_t cnt = v->ty.n - s * 32 < 32 ? v->ty.n - s * 32 : 32;
		const char *x = px_reg(p, v, s);
		if (cnt < 32) {
			const char *t = px_tmp(p, c);
			px_ins(p, "selp.%s %s, %s, %s, %s", px_bits(e), t, x, identity(p, i->op, e),
			       px_lane_lt(p, cnt));
			x = t;
		}
		if (!s)
			px_ins(p, "mov.%s %s, %s", px_bits(e), acc, x);
		else
			combine(p, i->op, e, acc, acc, x);
	}
	const char *rx = redux_op(i->op, e);
	if (rx) {
		/* 8- and 16-bit values are normalized in b32 registers: the
		 * 32-bit sum wraps to the same result once re-normalized */
		px_ins(p, "redux.sync.%s %s, %s, %s", rx, acc, acc, px_members(p));
		px_comment(p, "%s of %u: 1 redux.sync", ir_ops[i->op].name, v->ty.n);
		px_ins(p, "mov.%s %s, %s", px_bits(e), d, acc);
		px_normalize(p, e, d);
		return true;
	}
	uint32_t span = v->ty.n >= 32 ? 32 : 1;
	while (span < v->ty.n && span < 32)
		span *= 2;
	uint32_t s0 = p->nshfl;
	for (uint32_t k = span / 2; k >= 1; k /= 2) {
		const char *t = px_tmp(p, c);
		px_shfl(p, "bfly", c, t, acc, arena_printf(p->arena, "%u", k));
		combine(p, i->op, e, acc, acc, t);
	}
	if (span < 32)
		px_shfl(p, "idx", c, acc, acc, "0");
	px_comment(p, "%s of %u: %u shfl", ir_ops[i->op].name, v->ty.n, p->nshfl - s0);
	px_ins(p, "mov.%s %s, %s", px_bits(e), d, acc);
	if (!ir_is_float(e))
		px_normalize(p, e, d);
	else if (i->sat)
		px_ins(p, "cvt.sat.%s.%s %s, %s", px_ty(e), px_ty(e), d, d);
	return true;
}

/* The CM thread's linear id in a 32-bit register (rt/cuda_abi.h
 * "printf"): %linear in walker launches, else group linear id times the
 * group size plus the local linear id, x fastest. */
const char *px_linear_tid(Px *p)
{
	if (px_cluster_on(p))
		return px_cluster_linear(p);
	static const IrTid ids[2][3][2] = {   /* [group, local][x, y, z][id, count] */
		{{TID_GROUP_ID_X, TID_GROUP_COUNT_X}, {TID_GROUP_ID_Y, TID_GROUP_COUNT_Y},
		 {TID_GROUP_ID_Z, TID_GROUP_COUNT_Z}},
		{{TID_LOCAL_ID_X, TID_LOCAL_SIZE_X}, {TID_LOCAL_ID_Y, TID_LOCAL_SIZE_Y},
		 {TID_LOCAL_ID_Z, TID_LOCAL_SIZE_Z}}};
	const char *lin[2], *size = NULL;
	for (int k = 0; k < 2; k++) {     /* z * ny * nx + y * nx + x */
		const char *a = px_tmp(p, RC_B32), *v = px_tmp(p, RC_B32), *n = px_tmp(p, RC_B32);
		group_tid(p, ids[k][2][0], a);
		for (int d = 1; d >= 0; d--) {
			group_tid(p, ids[k][d][1], n);
			group_tid(p, ids[k][d][0], v);
			px_ins(p, "mad.lo.u32 %s, %s, %s, %s", a, a, n, v);
		}
		lin[k] = a;
		if (k == 1) {                  /* the group's size */
			size = px_tmp(p, RC_B32);
			group_tid(p, TID_LOCAL_SIZE_X, size);
			for (int d = 1; d <= 2; d++) {
				group_tid(p, ids[1][d][1], n);
				px_ins(p, "mul.lo.u32 %s, %s, %s", size, size, n);
			}
		}
	}
	const char *r = px_tmp(p, RC_B32);
	px_ins(p, "mad.lo.u32 %s, %s, %s, %s", r, lin[0], size, lin[1]);
	px_ins(p, "selp.b32 %s, %%linear, %s, %%walk", r, r);
	return r;
}

/* Stores argument a as the 8-byte slot at [r+off]; returns its kind. */
static char printf_arg(Px *p, Inst *a, const char *r, uint32_t off)
{
	Elem e = a->ty.elem;
	const char *v = px_reg(p, a, 0);
	if (ir_is_float(e)) {
		const char *t = v;
		if (e != E_F64) {
			t = px_tmp(p, RC_F64);
			px_ins(p, "cvt.f64.%s %s, %s", px_ty(e), t, v);
		}
		px_ins(p, "st.global.f64 [%s+%u], %s", r, off, t);
		return CUDA_PF_F64;
	}
	if (px_class(e) == RC_B64) {
		px_ins(p, "st.global.b64 [%s+%u], %s", r, off, v);
		return ir_is_signed(e) ? CUDA_PF_I64 : CUDA_PF_U64;
	}
	const char *t = px_tmp(p, RC_B64);
	if (e == E_I1) {
		const char *b = px_tmp(p, RC_B32);
		px_ins(p, "selp.u32 %s, 1, 0, %s", b, v);
		v = b;
	}
	bool sg = e == E_I1 || ir_is_signed(e);
	px_ins(p, "cvt.%s64.%s32 %s, %s", sg ? "s" : "u", sg ? "s" : "u", t, v);
	px_ins(p, "st.global.b64 [%s+%u], %s", r, off, t);
	return sg ? CUDA_PF_I32 : CUDA_PF_U32;
}

/* printf: lane 0 claims a record in the launch's printf buffer and writes
 * the format index, the thread's linear id and the arguments; the runtime
 * formats it on the host (rt/cuda_abi.h "printf").  The format text and
 * the argument kinds go to the kernel's metadata. */
static bool emit_printf(Px *p, Inst *i)
{
	uint32_t idx = (*p->npf)++, size = 8 + 8 * i->nops;
	const char *skip = px_label(p), *q = px_tmp(p, RC_PRED);
	const char *pb = px_tmp(p, RC_B64), *old = px_tmp(p, RC_B64), *cap = px_tmp(p, RC_B64);
	const char *r = px_tmp(p, RC_B64);
	px_comment(p, "printf %u: %u bytes of record", idx, size);
	px_ins(p, "setp.ne.u32 %s, %%lane, 0", q);
	px_ins(p, "@%s bra %s", q, skip);
	px_ins(p, "ld.global.nc.u64 %s, [%%launch+%d]", pb, CUDA_L_PRINTF);
	px_ins(p, "setp.eq.u64 %s, %s, 0", q, pb);
	px_ins(p, "@%s bra %s", q, skip);
	px_ins(p, "ld.global.nc.u64 %s, [%%launch+%d]", cap, CUDA_L_PRINTF_CAP);
	px_ins(p, "atom.global.add.u64 %s, [%s+%d], %u", old, pb, CUDA_P_USED, size);
	px_ins(p, "add.u64 %s, %s, %u", r, old, size);
	px_ins(p, "setp.gt.u64 %s, %s, %s", q, r, cap);
	const char *one = px_tmp(p, RC_B32), *fits = px_label(p), *q8 = px_tmp(p, RC_PRED);
	px_ins(p, "@!%s bra %s", q, fits);
	/* overflow: flag it, and end the records here when 8 bytes fit */
	px_ins(p, "mov.u32 %s, 1", one);
	px_ins(p, "st.global.u32 [%s+%d], %s", pb, CUDA_P_OVERFLOW, one);
	px_ins(p, "add.u64 %s, %s, 8", r, old);
	px_ins(p, "setp.le.u64 %s, %s, %s", q8, r, cap);
	px_ins(p, "add.u64 %s, %s, %s", r, pb, old);
	px_ins(p, "mov.u32 %s, %u", one, CUDA_P_END);
	px_ins(p, "@%s st.global.u32 [%s+%d], %s", q8, r, CUDA_P_RECORDS, one);
	px_ins(p, "bra.uni %s", skip);
	buf_printf(&p->body, "%s:\n", fits);
	px_ins(p, "add.u64 %s, %s, %s", r, pb, old);
	px_ins(p, "add.u64 %s, %s, %d", r, r, CUDA_P_RECORDS);
	const char *fi = px_tmp(p, RC_B32);
	px_ins(p, "mov.u32 %s, %u", fi, idx);
	px_ins(p, "st.global.v2.u32 [%s], {%s, %s}", r, fi, px_linear_tid(p));
	char *kinds = arena_alloc(p->arena, i->nops + 2);
	for (uint32_t k = 0; k < i->nops; k++)
		kinds[k] = printf_arg(p, i->ops[k], r, 8 + 8 * k);
	kinds[i->nops] = '\0';
	buf_printf(&p->body, "%s:\n", skip);
	/* the format as a quoted string with \\ \" \n \t \xHH escapes */
	buf_printf(p->pfmeta, "//@cmetal printf %u %s ", idx, i->nops ? kinds : "-");
	ir_print_string(p->pfmeta, i->str ? i->str : "");
	buf_putc(p->pfmeta, '\n');
	return true;
}

/* A fault hook: the first one stores its line into the launch's fault word. */
static bool trap(Px *p, Inst *i)
{
	const char *a = px_tmp(p, RC_B64), *q = px_tmp(p, RC_PRED), *l = px_label(p);
	const char *old = px_tmp(p, RC_B32);
	px_comment(p, "fault: %s", i->str ? i->str : "");
	px_ins(p, "ld.global.nc.u64 %s, [%%launch+%d]", a, CUDA_L_FAULT);
	px_ins(p, "setp.eq.u64 %s, %s, 0", q, a);
	px_ins(p, "@%s bra %s", q, l);
	px_ins(p, "setp.ne.u32 %s, %%lane, 0", q);
	px_ins(p, "@%s bra %s", q, l);
	px_ins(p, "atom.global.cas.b32 %s, [%s], 0, %u", old, a, i->loc.line ? i->loc.line : 1);
	buf_printf(&p->body, "%s:\n", l);
	return true;
}

bool px_warp(Px *p, Inst *i)
{
	if (px_cluster_on(p) && px_cluster_sync(p, i))
		return true;
	switch (i->op) {
	case Otid: return thread_id(p, i);
	case Oany: case Oall: return vote(p, i);
	case Opack: case Ounpack: return pack(p, i);
	case Orsum: case Orprod: case Ormin: case Ormax: return reduce(p, i);
	case Obarrier:
		if (p->wgmma)   /* this warp's SLM writes, to the wgmmas after it */
			px_wgmma_fence(p);
		px_ins(p, "bar.sync 0");
		return true;
	case Osbarrier: {
		const char *t = px_tmp(p, RC_B32), *u = px_tmp(p, RC_B32);
		px_ins(p, "mov.u32 %s, %%ntid.x", t);
		px_ins(p, "mov.u32 %s, %%ntid.y", u);
		px_ins(p, "mul.lo.u32 %s, %s, %s", t, t, u);
		px_ins(p, "mov.u32 %s, %%ntid.z", u);
		px_ins(p, "mul.lo.u32 %s, %s, %s", t, t, u);
		px_ins(p, "barrier.cta.%s 1, %s", i->imm ? "arrive" : "sync", t);
		return true;
	}
	case Ofence:	/* only cm_slm_fence (mask 0x20 alone) stays in the CTA */
		px_ins(p, "fence.acq_rel.%s", i->imm == 0x20 ? "cta" : "gpu");
		return true;
	case Owait: wait_deps(p, i); return true;
	case Osignal: signal_flag(p); return true;
	case Otimer: {
		const char *c = px_tmp(p, RC_B64), *lo = px_tmp(p, RC_B32), *hi = px_tmp(p, RC_B32);
		const char *d = px_reg(p, i, 0), *q = px_tmp(p, RC_PRED);
		px_ins(p, "mov.u64 %s, %%clock64", c);
		px_ins(p, "mov.b64 {%s, %s}, %s", lo, hi, c);
		px_ins(p, "setp.eq.u32 %s, %%lane, 1", q);
		px_ins(p, "selp.b32 %s, %s, 0, %s", d, hi, q);
		px_ins(p, "setp.eq.u32 %s, %%lane, 0", q);
		px_ins(p, "selp.b32 %s, %s, %s, %s", d, lo, d, q);
		for (uint32_t s = 1; s < SLOTS(i->ty.n); s++)
			px_ins(p, "mov.b32 %s, 0", px_reg(p, i, s));
		return true;
	}
	case Oprintf: return emit_printf(p, i);
	case Otrap: return trap(p, i);
	default:
		return px_unsupported(p, i, arena_printf(p->arena, "'%s'", ir_ops[i->op].name));
	}
}
