/* mem.c — memory instructions: block, media (2D) block, scattered,
 * scatter4, typed and atomic accesses to surfaces, SVM and SLM.
 *
 * requires: values laid out as ptx.h says; the launch block of
 * rt/cuda_abi.h in %launch.
 *
 * Lane l handles elements l, l + 32, ... so a block access coalesces.
 * Every surface access is bounds-checked with CM semantics, as the CPU
 * runtime does: 1D reads past the surface's size give 0 and writes there
 * are dropped; media block reads clamp x and y to the edge (x to the edge
 * pixel, whose bytes repeat, as the CPU runtime does), media writes
 * outside are dropped.  SLM accesses outside the kernel's SLM are dropped
 * and read 0.  Atomics without a PTX instruction (FMIN, FMAX, FCMPWR) are
 * compare-and-swap loops.  In the checking mode (-fbounds-check) each
 * access also hands its enabled lanes that failed the bounds predicate to
 * check.c, which records the fault; the access is the same.
 *
 * Cheap checks (surfaces are at most 4 GB, cm-language.md §1.2):
 *  - a block access with a 32-bit offset computes one address for all its
 *    slots (immediate offsets) and checks each slot with one 32-bit add
 *    and compare, without branches (a whole-block check with a branch to
 *    a per-element path made sgemm 0.77x, dgemm 0.32x, scan 0.7x: loads
 *    could no longer be scheduled across the branches);
 *  - gathers, scatters, atomics and media accesses with 32-bit offsets
 *    compute the element index idx = goff + offs[k] in 32 bits and check
 *    it with ONE unsigned compare against the number of whole units that
 *    fit (limit32: computed per instruction from the 64-bit size), the
 *    address being one mad.wide.u32 base + idx * unit.  The sum wraps
 *    modulo 2^32 as the hardware's 32-bit message offsets do: it differs
 *    from the exact 64-bit sum only for offsets whose true value is
 *    negative or at least 2^32, and whatever it addresses lies inside
 *    the surface.  64-bit offsets keep the 64-bit path;
 *  - a media block of several slots tests once, uniformly, whether it lies
 *    wholly inside (media_inside) and then reads or writes without clamps
 *    or checks (media_fast), else takes the exact per-element path: the
 *    per-slot x/y clamps and checks were most of linear's instructions.
 */
#include <stdlib.h>
#include <string.h>

#include "rt/cmk_abi.h"
#include "rt/cuda_abi.h"
#include "target/ptx/ptx.h"

/* Where an access goes: a generic 64-bit base (surf/svm) or a shared
 * address, and the bytes addressable from it. */
typedef struct {
	IrSpace sp;
	const char *base;     /* b64 (global) or b32 (shared) */
	const char *size;     /* b64 bytes, NULL = unchecked (svm) */
	const char *width, *height, *pitch; /* b32, surfaces */
	const char *bpp;
	const char *size32;   /* b32 bytes, SLM only (the 64-bit size else) */
	bool dsmem;           /* SLM in the cluster's rank-0 CTA (cluster.c) */
	int surf;             /* surface parameter's index, else -1 */
} Where;

int px_surface_index(const Px *p, const Inst *b)
{
	return b->op == Oarg && (uint32_t)b->imm < p->f->nparams &&
	       p->f->params[b->imm].kind == CMK_ARG_SURFACE ? (int)b->imm : -1;
}

static Where where(Px *p, Inst *i, Inst *b)
{
	Where w = {.sp = (IrSpace)i->space, .dsmem = px_cluster_on(p), .surf = -1};
	if (w.sp == SP_SLM) {
		w.base = px_tmp(p, RC_B32);
		w.size = px_tmp(p, RC_B64);
		if (p->f->slm_size)
			px_ins(p, "mov.u32 %s, %s", w.base, px_slm_base(p));
		else
			px_ins(p, "mov.u32 %s, 0", w.base);
		/* b is the SLM buffer's byte offset (cm_slm_alloc): the access
		 * may reach the bytes from there to the end of the SLM */
		const char *off = px_reg(p, b, 0), *t = px_tmp(p, RC_B32);
		w.size32 = px_tmp(p, RC_B32);
		px_ins(p, "add.u32 %s, %s, %s", w.base, w.base, off);
		px_ins(p, "min.u32 %s, %s, %u", t, off, p->f->slm_size);
		px_ins(p, "sub.u32 %s, %u, %s", w.size32, p->f->slm_size, t);
		px_ins(p, "cvt.u64.u32 %s, %s", w.size, w.size32);
		return w;
	}
	if (w.sp == SP_SVM) {
		w.base = px_reg(p, b, 0);
		if (px_class(b->ty.elem) != RC_B64) {
			const char *t = px_tmp(p, RC_B64);
			px_ins(p, "cvt.u64.u32 %s, %s", t, w.base);
			w.base = t;
		}
		return w;
	}
	if (px_surface_index(p, b) >= 0) {
		/* a surface parameter: its descriptor was loaded at entry */
		uint32_t k = (uint32_t)b->imm;
		w.surf = (int)k;
		w.base = arena_printf(p->arena, "%%sb%u", k);
		w.size = arena_printf(p->arena, "%%ss%u", k);
		w.width = arena_printf(p->arena, "%%sw%u", k);
		w.height = arena_printf(p->arena, "%%sh%u", k);
		w.pitch = arena_printf(p->arena, "%%sp%u", k);
		w.bpp = arena_printf(p->arena, "%%sx%u", k);
		return w;
	}
	const char *d = px_tmp(p, RC_B64), *o = px_tmp(p, RC_B64);
	px_ins(p, "ld.global.nc.u64 %s, [%%launch+%d]", d, CUDA_L_SURFACES);
	px_ins(p, "mul.wide.u32 %s, %s, %d", o, px_reg(p, b, 0), CUDA_S_BYTES);
	px_ins(p, "add.u64 %s, %s, %s", d, d, o);
	w.base = px_tmp(p, RC_B64), w.size = px_tmp(p, RC_B64);
	w.width = px_tmp(p, RC_B32), w.height = px_tmp(p, RC_B32), w.pitch = px_tmp(p, RC_B32);
	px_ins(p, "ld.global.nc.u64 %s, [%s+%d]", w.base, d, CUDA_S_BASE);
	px_ins(p, "ld.global.nc.u64 %s, [%s+%d]", w.size, d, CUDA_S_SIZE);
	bool typed = i->op == Otload || i->op == Otstore || i->op == Otatomic;
	if (typed || i->op == Omload) {
		w.bpp = px_tmp(p, RC_B32);
		px_ins(p, "ld.global.nc.u32 %s, [%s+%d]", w.bpp, d, CUDA_S_BPP);
	}
	if (i->op == Omload || i->op == Omstore || typed) {
		px_ins(p, "ld.global.nc.u32 %s, [%s+%d]", w.width, d, CUDA_S_WIDTH);
		px_ins(p, "ld.global.nc.u32 %s, [%s+%d]", w.height, d, CUDA_S_HEIGHT);
		px_ins(p, "ld.global.nc.u32 %s, [%s+%d]", w.pitch, d, CUDA_S_PITCH);
	}
	return w;
}

/* At kernel entry: the descriptor of every surface parameter k into
 * %sb<k> (base) %ss<k> (size) %sw<k> %sh<k> %sp<k> %sx<k> (width, height,
 * pitch, bytes per pixel), so no access waits on a descriptor load and
 * independent accesses can all be in flight; ptxas drops the fields a
 * kernel never reads.  A surface with its CudaSurfaceParam reads them
 * there (constant-bank operands, no load); one past the parameter space
 * (rt/cuda_abi.h "Kernel entry") from the launch block's table, with
 * ld.global.nc (the block is read-only during a launch). */
void px_load_surfaces(Px *p)
{
	static const struct { const char *reg, *ty; int off, poff; } field[] = {
		{"sb", "u64", CUDA_S_BASE, CUDA_SP_BASE}, {"ss", "u64", CUDA_S_SIZE, CUDA_SP_SIZE},
		{"sw", "u32", CUDA_S_WIDTH, CUDA_SP_WIDTH}, {"sh", "u32", CUDA_S_HEIGHT, CUDA_SP_HEIGHT},
		{"sp", "u32", CUDA_S_PITCH, CUDA_SP_PITCH}, {"sx", "u32", CUDA_S_BPP, CUDA_SP_BPP},
	};
	const size_t nfield = sizeof field / sizeof field[0];
	const char *tab = NULL;
	for (uint32_t k = 0; k < p->f->nparams; k++) {
		if (p->f->params[k].kind != CMK_ARG_SURFACE)
			continue;
		if (px_surface_param(p, k)) {
			for (size_t j = 0; j < nfield; j++)
				px_ins(p, "ld.param.%s %%%s%u, [%s_p%u+%d]", field[j].ty, field[j].reg, k,
				       p->f->name, k, field[j].poff);
			continue;
		}
		if (!tab) {
			tab = px_tmp(p, RC_B64);
			px_ins(p, "ld.global.nc.u64 %s, [%%launch+%d]", tab, CUDA_L_SURFACES);
		}
		const char *slot = px_tmp(p, RC_B32), *d = px_tmp(p, RC_B64);
		px_ins(p, "ld.param.u32 %s, [%s_p%u]", slot, p->f->name, k);
		px_ins(p, "mad.wide.u32 %s, %s, %d, %s", d, slot, CUDA_S_BYTES, tab);
		for (size_t j = 0; j < nfield; j++)
			px_ins(p, "ld.global.nc.%s %%%s%u, [%s+%d]", field[j].ty, field[j].reg, k, d,
			       field[j].off);
	}
}

void px_surface(Px *p, Inst *i, Inst *b, const char **base, const char **size)
{
	Where w = where(p, i, b);
	*base = w.base;
	*size = w.size;
}

/* The address of byte offset o (b64) and the predicate "o + bytes fits"
 * (NULL when unchecked). */
static const char *address(Px *p, const Where *w, const char *o, int bytes, const char **ok)
{
	*ok = NULL;
	if (w->size) {
		const char *e = px_tmp(p, RC_B64), *q = px_tmp(p, RC_PRED);
		px_ins(p, "add.u64 %s, %s, %d", e, o, bytes);
		px_ins(p, "setp.le.u64 %s, %s, %s", q, e, w->size);
		const char *q2 = px_tmp(p, RC_PRED);
		px_ins(p, "setp.ge.s64 %s, %s, 0", q2, o);
		px_ins(p, "and.pred %s, %s, %s", q, q, q2);
		*ok = q;
	}
	if (w->sp == SP_SLM) {
		const char *a = px_tmp(p, RC_B32), *t = px_tmp(p, RC_B32);
		px_ins(p, "cvt.u32.u64 %s, %s", t, o);
		px_ins(p, "add.u32 %s, %s, %s", a, w->base, t);
		return a;
	}
	const char *a = px_tmp(p, RC_B64);
	px_ins(p, "add.u64 %s, %s, %s", a, w->base, o);
	return a;
}

/* The number of indices idx with idx * unit + bytes <= size, clamped to
 * 2^32 - 1 (b32; unit is 1 or the element size, a power of two): the
 * bound that one unsigned compare of a 32-bit index checks.  Computed per
 * instruction; ptxas keeps most of it in uniform registers but leaves it
 * inside loops.  Tried (2026-11-28): the limits of surface parameters
 * computed once at the kernel's entry (as blimit.c does for blocks).
 * Static SASS fell (spmv's dot loop 1.078 -> 0.656 per nonzero, spmv_seg
 * 0.984 -> 0.789, kmeans_update 0.333 -> 0.286, no register growth), but
 * on an H200, two interleaved rounds against the same kernels, the
 * paper's spmv on nd24k went 0.160 -> 0.205 ms with PTX identical except
 * for where the limits are computed; spmv's own rows gained 3-7% and
 * every other row stayed within 2%.  Not kept: the cause was not found
 * (bench/runs/2026-11-28-session17/ab-ilim.txt). */
static const char *limit32(Px *p, const Where *w, int bytes, int unit)
{
	int d = bytes - unit, sh = 0;
	while ((1 << sh) < unit)
		sh++;
	const char *l = px_tmp(p, RC_B32);
	if (w->size32) {
		if (!d && !sh)
			return w->size32;
		px_ins(p, "max.u32 %s, %s, %d", l, w->size32, d);
		px_ins(p, "sub.u32 %s, %s, %d", l, l, d);
		px_ins(p, "shr.u32 %s, %s, %d", l, l, sh);
		return l;
	}
	const char *t = w->size;
	if (d || sh) {
		t = px_tmp(p, RC_B64);
		px_ins(p, "max.u64 %s, %s, %d", t, w->size, d);
		px_ins(p, "sub.u64 %s, %s, %d", t, t, d);
		px_ins(p, "shr.u64 %s, %s, %d", t, t, sh);
	} else {
		t = px_tmp(p, RC_B64);
		px_ins(p, "mov.u64 %s, %s", t, w->size);
	}
	px_ins(p, "min.u64 %s, %s, 4294967295", t, t);
	px_ins(p, "cvt.u32.u64 %s, %s", l, t);
	return l;
}

/* The address of index idx (b32) in units of unit bytes, and the
 * predicate idx < lim (NULL when unchecked: lim NULL). */
static const char *address32(Px *p, const Where *w, const char *idx, int unit, const char *lim,
                             const char **ok)
{
	*ok = NULL;
	if (lim) {
		const char *q = px_tmp(p, RC_PRED);
		px_ins(p, "setp.lt.u32 %s, %s, %s", q, idx, lim);
		*ok = q;
	}
	const char *a = px_tmp(p, w->sp == SP_SLM ? RC_B32 : RC_B64);
	if (w->sp == SP_SLM)
		px_ins(p, "mad.lo.u32 %s, %s, %d, %s", a, idx, unit, w->base);
	else
		px_ins(p, "mad.wide.u32 %s, %s, %d, %s", a, idx, unit, w->base);
	return a;
}

/* The 32-bit register of slot s of an offset, NULL when it is 64-bit. */
static const char *narrow(Px *p, const Inst *v, uint32_t s)
{
	return px_class(v->ty.elem) == RC_B32 ? px_reg(p, v, s) : NULL;
}

/* The index goff + offs slot s (b32), NULL when either is 64-bit or the
 * access is SVM (raw 64-bit addresses). */
static const char *index32(Px *p, const Where *w, const Inst *goff, const Inst *offs,
                           uint32_t s, const Layout *l)
{
	const char *g = narrow(p, goff, 0);
	const char *o = l ? px_reg_in(p, offs, l, s) : narrow(p, offs, s);
	if (!w->size || !g || !o)
		return NULL;
	const char *x = px_tmp(p, RC_B32);
	px_ins(p, "add.u32 %s, %s, %s", x, g, o);
	return x;
}

static const char *space_name(const Where *w)
{
	if (w->sp == SP_SLM)
		return w->dsmem ? "shared::cluster" : "shared";
	return "global";
}

static void and_pred(Px *p, const char **q, const char *x)
{
	if (!x)
		return;
	if (!*q) {
		*q = x;
		return;
	}
	const char *t = px_tmp(p, RC_PRED);
	px_ins(p, "and.pred %s, %s, %s", t, *q, x);
	*q = t;
}

/* (checking mode, check.c) *act &= x: the lanes an access enables, apart
 * from its bounds predicate; nothing without checking. */
static void act_and(Px *p, const char **act, const char *x)
{
	if (px_checking(p))
		and_pred(p, act, x);
}

/* One load or store of register r under predicate q (NULL: always). */
static void access(Px *p, const Where *w, bool store, Elem e, const char *r, const char *a,
                   const char *q)
{
	const char *t = px_mem_ty(e);
	if (e == E_I1) {
		const char *b = px_tmp(p, RC_B32);
		if (store) {
			px_ins(p, "selp.u32 %s, 1, 0, %s", b, r);
			px_ins(p, "%s%s st.%s.u8 [%s], %s", q ? "@" : "", q ? q : "", space_name(w), a, b);
		} else {
			px_ins(p, "mov.u32 %s, 0", b);
			px_ins(p, "%s%s ld.%s.u8 %s, [%s]", q ? "@" : "", q ? q : "", space_name(w), b, a);
			px_ins(p, "setp.ne.u32 %s, %s, 0", r, b);
		}
		return;
	}
	if (store) {
		px_ins(p, "%s%s st.%s.%s [%s], %s", q ? "@" : "", q ? q : "", space_name(w), t, a, r);
	} else {
		px_ins(p, "mov.%s %s, 0", px_bits(e), r);
		px_ins(p, "%s%s ld.%s.%s %s, [%s]", q ? "@" : "", q ? q : "", space_name(w), t, r, a);
	}
}

/* One element of a block access at a + d under predicate q: one load or
 * store when the address is aligned to the element (align: the bytes it
 * is known to be aligned to, ir.h .alignN), else 32-bit pieces joined
 * with mov (a DWALIGNED read of doubles: ld.global.f64 at an address that
 * is 4 mod 8 faults with CUDA_ERROR_MISALIGNED_ADDRESS). */
static void block_access(Px *p, const Where *w, bool store, Elem e, const char *r,
                         const char *a, int64_t d, const char *q, int align)
{
	int eb = ir_elem_bytes[e];
	if (eb <= align || e == E_I1) {
		access(p, w, store, e, r, d ? arena_printf(p->arena, "%s+%lld", a, (long long)d) : a,
		       q);
		return;
	}
	if (align < 4 || eb != 8)
		die("block access of %d-byte elements aligned to %d bytes", eb, align);
	const char *lo = px_tmp(p, RC_B32), *hi = px_tmp(p, RC_B32);
	if (store)
		px_ins(p, "mov.b64 {%s, %s}, %s", lo, hi, r);
	access(p, w, store, E_U32, lo, arena_printf(p->arena, "%s+%lld", a, (long long)d), q);
	access(p, w, store, E_U32, hi, arena_printf(p->arena, "%s+%lld", a, (long long)d + 4), q);
	if (!store)
		px_ins(p, "mov.b64 %s, {%s, %s}", r, lo, hi);
}

/* The alignment of a block access's address (ir.h: .alignN, else 16). */
static int block_align(const Inst *i) { return i->align ? i->align : 16; }

/* A 64-bit signed copy of a scalar or slot register. */
static const char *wide(Px *p, const Inst *v, uint32_t s)
{
	const char *r = px_reg(p, v, s);
	if (px_class(v->ty.elem) == RC_B64)
		return r;
	const char *t = px_tmp(p, RC_B64);
	px_ins(p, "cvt.%s64.%s32 %s, %s", ir_is_signed(v->ty.elem) ? "s" : "u",
	       ir_is_signed(v->ty.elem) ? "s" : "u", t, r);
	return t;
}

/* lane_address's limit when no lane needs a check (slm_inside) */
static const char NOCHECK[] = "";

/* Whether every element of gather, scatter or atomic i lies inside its
 * SLM buffer for certain: a constant buffer offset, global offset and
 * offset vector, each index (goff + offs[k], u32) below limit32's limit
 * (the kernel's SLM size is a constant).  Then no lane needs its check (a
 * tile staged in SLM and read back at constant positions).  An offset
 * vector computed at run time does too when its value range (range.c:
 * umax) keeps goff + offs[k] below the limit (a digit (k >> s) & 255 into
 * a histogram), but with -fno-slm-ranges. */
static bool slm_inside(Px *p, const Inst *i, int eb, int scale)
{
	const Inst *offs = i->ops[2];
	int64_t b, g;
	if (i->space != SP_SLM || px_cluster_on(p) || !ir_const_int32(i->ops[0], &b) ||
	    !ir_const_int32(i->ops[1], &g) || ir_is_float(offs->ty.elem))
		return false;
	bool ranged = offs->op != Oconst && !p->o->no_slm_ranges && p->val && g >= 0 &&
	              ir_elem_bytes[offs->ty.elem] <= 4 && p->val[offs->id].umax != UINT64_MAX;
	if (!ranged && (offs->op != Oconst || ir_elem_bytes[offs->ty.elem] != 4))
		return false;
	uint64_t size = (uint64_t)b < p->f->slm_size ? p->f->slm_size - (uint64_t)b : 0;
	int d = eb - scale, sh = 0;
	while ((1 << sh) < scale)
		sh++;
	uint64_t lim = (size > (uint64_t)d ? size - (uint64_t)d : 0) >> sh;
	if (ranged)
		return (uint64_t)g + p->val[offs->id].umax < lim;
	for (uint32_t k = 0; k < offs->ty.n; k++) {
		uint32_t x = (uint32_t)((uint64_t)g + ir_const_at(offs, k).u);
		if (x >= lim)
			return false;
	}
	return true;
}

/* Per-slot addresses of a scattered access (gather, scatter, atomic): lane
 * l of slot s reaches base + (goff + offs[32 s + l]) * scale, or with a
 * layout l, base + (goff + register s of offs' copy in l) * scale.  The
 * limit and the 64-bit goff are computed once per instruction (kept in
 * the caller's *lim and *goff; *lim == NOCHECK: no lane is checked); *ok
 * is the lane's in-bounds predicate. */
static const char *lane_address(Px *p, const Where *w, const Inst *goff, const Inst *offs,
                                uint32_t s, const Layout *l, int eb, int scale,
                                const char **lim, const char **goff64, const char **ok)
{
	const char *x = index32(p, w, goff, offs, s, l);
	if (!x && l)
		die("a gather in a non-canonical layout needs 32-bit offsets of a checked buffer");
	if (x) {
		if (*lim == NOCHECK)
			return address32(p, w, x, scale, NULL, ok);
		if (!*lim)
			*lim = limit32(p, w, eb, scale);
		return address32(p, w, x, scale, *lim, ok);
	}
	const char *o = px_tmp(p, RC_B64);
	if (!*goff64)
		*goff64 = wide(p, goff, 0);
	px_ins(p, "add.s64 %s, %s, %s", o, *goff64, wide(p, offs, s));
	if (scale != 1)
		px_ins(p, "mul.lo.s64 %s, %s, %d", o, o, scale);
	return address(p, w, o, eb, ok);
}

/* A one-element result is a scalar, uniform across the warp: accesses
 * that ran in lane 0 only hand their value to every lane. */
static void uniform(Px *p, const Inst *val, bool store)
{
	if (store || val->ty.n != 1 || val->ty.elem == E_VOID)
		return;
	const char *r = px_reg(p, val, 0);
	px_shfl(p, "idx", px_class(val->ty.elem), r, r, "0");
}

/* bload / bstore: element k at base + off + k * sizeof(T).  Slot s's
 * predicate beyond the bounds check (NULL: none): lanes past n, and lane
 * 0 alone for a one-element store. */
static const char *slot_pred(Px *p, uint32_t n, uint32_t s, bool st, bool uni)
{
	const char *q = NULL;
	if (n - s * 32 < 32 && !uni)
		and_pred(p, &q, px_lane_lt(p, n - s * 32));
	if (n == 1 && st) {
		const char *l0 = px_tmp(p, RC_PRED);
		px_ins(p, "setp.eq.u32 %s, %%lane, 0", l0);
		and_pred(p, &q, l0);
	}
	return q;
}

/* The per-element checked block access: for a block partly outside. */
static void block_checked(Px *p, Inst *i, const Where *w, const char *off, bool uni)
{
	bool st = i->op == Obstore;
	Inst *val = st ? i->ops[2] : i;
	Elem e = val->ty.elem;
	int eb = ir_elem_bytes[e];
	const char *fails = NULL;
	for (uint32_t s = 0; s < SLOTS(val->ty.n); s++) {
		const char *o = px_tmp(p, RC_B64), *q = NULL;
		if (uni) {
			px_ins(p, "mov.b64 %s, %s", o, off);
		} else {
			px_ins(p, "mul.wide.u32 %s, %%lane, %d", o, eb);
			px_ins(p, "add.s64 %s, %s, %s", o, o, off);
		}
		if (s)
			px_ins(p, "add.s64 %s, %s, %u", o, o, s * 32 * eb);
		const char *ok, *a = address(p, w, o, eb, &ok);
		and_pred(p, &q, ok);
		const char *sp = slot_pred(p, val->ty.n, s, st, uni);
		and_pred(p, &q, sp);
		block_access(p, w, st, e, px_reg(p, val, s), a, 0, q, block_align(i));
		px_fault_lane(p, &fails, ok, sp);
	}
	px_fault_end(p, fails, st ? CUDA_FAULT_BSTORE : CUDA_FAULT_BLOAD, i);
}

/* The slots' 32-bit offsets off + lane * eb + s * 32 * eb (below
 * off + span) wrap past 2^32 when off is within span of it: then every
 * slot must fail its check (an access at 0xfffffff0 reads 0, it does not
 * reach byte 0), so the limit becomes 0 by a selp (a constant offset
 * that cannot wrap keeps it): two instructions an access.  -fwrap-join
 * instead returns the predicate "no wrap" in *nw, joined to each slot's
 * compare by setp's .and (below): one instruction an access, the limit
 * register shared, fewer SASS in 40 bench kernels.  Measured on an H200
 * (2026-11-29, bench/runs/2026-11-29-session25/call3, two rounds,
 * unchanged kernels), joined against this form: scan-i32 2^28 0.652 /
 * 0.657 ms against 0.688 / 0.690, sgemm 3.933 / 3.938 against 3.964 /
 * 3.968, spmv protein 0.0184 / 0.0172 against 0.0192 / 0.0200; but the
 * paper's sgemm 12.94 against 4.99 (ptxas then gives it 96 registers, not
 * 128, and issues each A broadcast shuffle just before its 4 FMAs, as on
 * an H100 in an earlier try), linear 1920x1080 0.0157 / 0.0150 against
 * 0.0145 / 0.0131 and dgemm_slm 4.650 / 4.665 against 4.601 / 4.616.  So
 * this form stays the default. */
static const char *no_wrap_limit(Px *p, const char *off, uint32_t span, const char *lim,
                                 const char **nw)
{
	char *end;
	unsigned long long k = strtoull(off, &end, 0);
	*nw = NULL;
	if (*off >= '0' && *off <= '9' && !*end && k <= 0xffffffffull - span)
		return lim;
	const char *q = px_tmp(p, RC_PRED);
	px_ins(p, "setp.le.u32 %s, %s, %u", q, off, 0xffffffffu - span);
	if (p->o->wrap_join) {
		*nw = q;
		return lim;
	}
	const char *l = px_tmp(p, RC_B32);
	px_ins(p, "selp.u32 %s, %s, 0, %s", l, lim, q);
	return l;
}

/* q = t < lim, and nw when there is one (no_wrap_limit). */
static const char *below(Px *p, const char *t, const char *lim, const char *nw)
{
	const char *q = px_tmp(p, RC_PRED);
	if (nw)
		px_ins(p, "setp.lt.and.u32 %s, %s, %s, %s", q, t, lim, nw);
	else
		px_ins(p, "setp.lt.u32 %s, %s, %s", q, t, lim);
	return q;
}

/* A block load in a shifted layout (assign.c: element e in lane e + sh of
 * the registers, as the wrregion it feeds wants it): lane l of register r
 * loads element 32 r + l - sh, lanes outside the block load nothing.  So a
 * block written at an offset that is not a multiple of 32 elements needs
 * no shuffle.  x is off + lane * eb, lim the bounds limit (NULL: none)
 * and nw its no-wrap predicate (no_wrap_limit). */
static void block_shifted(Px *p, Inst *i, const Where *w, const char *x, const char *a,
                          const char *lim, const char *nw, uint32_t sh)
{
	Elem e = i->ty.elem;
	int eb = ir_elem_bytes[e];
	const Layout *l = p->val[i->id].lay;
	const char *fails = NULL;
	for (uint32_t r = 0; r < l->nregs; r++) {
		/* element 32 r + lane - sh: at byte 32 r eb - sh eb from x */
		int32_t d = (int32_t)(32 * r - sh) * eb;
		const char *q = NULL, *ok = NULL, *act = NULL;
		if (lim) {
			const char *t = px_tmp(p, RC_B32);
			px_ins(p, "add.u32 %s, %s, %d", t, x, d);
			q = ok = below(p, t, lim, nw);
		}
		int64_t lo = (int64_t)sh - 32 * (int64_t)r, hi = (int64_t)i->ty.n + sh - 32 * r;
		if (lo > 0) {
			const char *ge = px_lane_ge(p, (uint32_t)lo);
			and_pred(p, &q, ge);
			act_and(p, &act, ge);
		}
		if (hi < 32) {
			const char *lt = px_lane_lt(p, (uint32_t)hi);
			and_pred(p, &q, lt);
			act_and(p, &act, lt);
		}
		block_access(p, w, false, e, px_own(p, i, r), a, d, q, block_align(i));
		px_fault_lane(p, &fails, ok, act);
	}
	px_fault_end(p, fails, CUDA_FAULT_BLOAD, i);
}

/* A block access in a loop whose registers do not all fill 32 lanes (fewer
 * than 32 elements in the last, or a shifted layout: block_shifted), of a
 * surface parameter at the 32-bit offset off (blimit.c says why): register r
 * holds the elements at bytes x + delta(r), x = off + lane * eb, in lanes
 * [lo, hi); each register is checked by one setp.lt.and against the
 * kernel's uniform limit for delta(r) (blimit.c), joined with "x did not
 * wrap" and the lane range, and reached at an immediate offset. */
static void block_limits(Px *p, Inst *i, const Where *w, const char *off)
{
	bool st = i->op == Obstore;
	Inst *val = st ? i->ops[2] : i;
	Elem e = val->ty.elem;
	int eb = ir_elem_bytes[e];
	const Layout *l = st ? NULL : p->val[i->id].lay;
	uint32_t sh = l && !l->canon ? l->pos[0] : 0;
	uint32_t nregs = l && !l->canon ? l->nregs : SLOTS(val->ty.n);
	const char *x = px_tmp(p, RC_B32), *a = px_tmp(p, RC_B64);
	px_ins(p, "mad.lo.u32 %s, %%lane, %d, %s", x, eb, off);
	px_ins(p, "mad.wide.u32 %s, %s, 1, %s", a, x, w->base);
	const char *nowrap = px_tmp(p, RC_PRED);
	px_ins(p, "setp.ge.u32 %s, %s, %s", nowrap, x, off);
	for (uint32_t r = 0; r < nregs; r++) {
		int64_t first = 32 * (int64_t)r - sh;  /* the element in lane 0 */
		int64_t lo = first < 0 ? -first : 0, hi = (int64_t)val->ty.n - first;
		const char *q = nowrap;
		if (lo > 0)
			and_pred(p, &q, px_lane_ge(p, (uint32_t)lo));
		if (hi < 32)
			and_pred(p, &q, px_lane_lt(p, (uint32_t)hi));
		const char *ok = px_tmp(p, RC_PRED);
		px_ins(p, "setp.lt.and.u32 %s, %s, %s, %s", ok, x,
		       px_surf_limit(p, (uint32_t)w->surf, eb, first * eb), q);
		const char *reg = st ? px_reg(p, val, r) : sh ? px_own(p, i, r) : px_reg(p, val, r);
		block_access(p, w, st, e, reg, a, first * eb, ok, block_align(i));
	}
}

/* Lane's k elements of a wide load as vector loads of per elements each
 * (one piece of 16 bytes or fewer) at a + d into registers 0 .. k-1,
 * under q. */
static void wide_vectors(Px *p, const Inst *v, const Where *w, Elem e, const char *a,
                         int64_t d, uint32_t k, uint32_t per, const char *q)
{
	int eb = ir_elem_bytes[e];
	for (uint32_t r = 0; r < k; r += per) {
		Buf regs = {0};
		for (uint32_t j = 0; j < per; j++)
			buf_printf(&regs, "%s%s", j ? ", " : "", px_own(p, v, r + j));
		px_ins(p, "%s%s ld.%s.v%u.%s {%s}, [%s+%lld]", q ? "@" : "", q ? q : "",
		       space_name(w), per, px_mem_ty(e), regs.data, a,
		       (long long)(d + (int64_t)r * eb));
		buf_free(&regs);
	}
}

/* Whether no load of wide load g needs its checks (a versioned loop's
 * unchecked copy). */
static bool wide_unchecked(const Px *p, const PxWide *g)
{
	for (uint32_t m = 0; m < g->n; m++)
		if (!px_unchecked(p, g->ld[m]))
			return false;
	return true;
}

/* Wide load g unchecked, from lane address a at the immediate imm: vector
 * loads, and when al (the alignment test; NULL: known aligned) fails,
 * element by element out of line. */
static void wide_plain(Px *p, Inst *v, const PxWide *g, const Where *w, const char *a,
                       int64_t imm, const char *al)
{
	const Inst *l0 = g->at0;
	Elem e = l0->ty.elem;
	int eb = ir_elem_bytes[e];
	uint32_t k = g->k, chunk = k * (uint32_t)eb, piece = chunk < 16 ? chunk : 16;
	const char *cold = al ? px_label(p) : NULL, *done = al ? px_label(p) : NULL;
	if (al)
		px_ins(p, "@!%s bra.uni %s", al, cold);
	wide_vectors(p, v, w, e, a, imm, k, piece / (uint32_t)eb, NULL);
	if (!al)
		return;
	buf_printf(&p->body, "%s:\n", done);
	px_cold_begin(p, cold);
	for (uint32_t q = 0; q < k; q++)
		block_access(p, w, false, e, px_own(p, v, q), a, imm + (int64_t)q * eb, NULL,
		             block_align(l0));
	px_cold_end(p, done);
}

/* The offset of the block load holding lane l's elements of wide load g:
 * om = o + (lane / (ne / k)) ne eb (mod 2^32, as that load's own). */
static const char *lane_load_start(Px *p, const PxWide *g, const char *off)
{
	uint32_t eb = (uint32_t)ir_elem_bytes[g->at0->ty.elem], sh = 0;
	const char *om = px_tmp(p, RC_B32);
	while ((1u << sh) < g->ne / g->k)
		sh++;
	px_ins(p, "shr.u32 %s, %%lane, %u", om, sh);
	px_ins(p, "mad.lo.u32 %s, %s, %u, %s", om, om, g->ne * eb, off);
	return om;
}

/* Whether an SLM wide load's lane addresses are aligned to its vector
 * loads' piece: NULL when known (the SLM window is aligned, and so are the
 * buffer and the offset: px_known_align), else a predicate testing lane
 * 0's address (every lane's is that plus a multiple of the piece). */
static const char *slm_aligned(Px *p, const Inst *l0, const Where *w, const char *off,
                               int64_t imm, uint32_t piece)
{
	if (px_known_align(l0->ops[0]) >= piece && px_known_align(l0->ops[1]) >= piece)
		return NULL;
	const char *t = px_tmp(p, RC_B32), *al = px_tmp(p, RC_PRED);
	px_ins(p, "add.u32 %s, %s, %s", t, w->base, off);
	if (imm)
		px_ins(p, "add.u32 %s, %s, %lld", t, t, (long long)imm);
	px_ins(p, "and.b32 %s, %s, %u", t, t, piece - 1);
	px_ins(p, "setp.eq.u32 %s, %s, 0", al, t);
	return al;
}

/* An SLM wide load outside a versioned loop's unchecked copy: a lane
 * whose elements are not all inside, or wrap past its own load's offset,
 * loads element by element under a block load's checks (0 outside); the
 * others (aligned: al, NULL when known) by vector loads.  Lane l's
 * elements up to the last (x + chunk - eb) did not wrap past 2^32 when
 * the last is at or above its load's offset (lane_load_start). */
static void slm_wide_checked(Px *p, Inst *v, const PxWide *g, const Where *w, const char *off,
                             const char *x, const char *a, const char *al)
{
	const Inst *l0 = g->at0;
	Elem e = l0->ty.elem;
	int eb = ir_elem_bytes[e];
	uint32_t k = g->k, chunk = k * (uint32_t)eb, piece = chunk < 16 ? chunk : 16;
	const char *lim = limit32(p, w, eb, 1), *om = lane_load_start(p, g, off);
	const char *last = px_tmp(p, RC_B32), *fast = px_tmp(p, RC_PRED);
	const char *slow = px_tmp(p, RC_PRED);
	px_ins(p, "add.u32 %s, %s, %u", last, x, chunk - (uint32_t)eb);
	px_ins(p, "setp.ge.u32 %s, %s, %s", fast, last, om);
	px_ins(p, "setp.lt.and.u32 %s, %s, %s, %s", fast, last, lim, fast);
	if (al)
		px_ins(p, "and.pred %s, %s, %s", fast, fast, al);
	px_ins(p, "not.pred %s, %s", slow, fast);
	for (uint32_t q = 0; q < k; q++) {
		const char *tq = px_tmp(p, RC_B32), *in = px_tmp(p, RC_PRED);
		px_ins(p, "add.u32 %s, %s, %u", tq, x, q * (uint32_t)eb);
		px_ins(p, "setp.ge.and.u32 %s, %s, %s, %s", in, tq, om, slow);
		px_ins(p, "setp.lt.and.u32 %s, %s, %s, %s", in, tq, lim, in);
		block_access(p, w, false, e, px_own(p, v, q), a, (int64_t)q * eb, in,
		             block_align(l0));
	}
	wide_vectors(p, v, w, e, a, 0, k, piece / (uint32_t)eb, fast);
}

/* A wide load of SLM (px_wide_load): lane l's k elements at x = o + l *
 * k * eb, in 16-byte (or k * eb) vector loads when the address is
 * aligned to them.  In a versioned loop's unchecked copy, from its
 * span's first byte at an immediate offset (px_vloop_base), an unaligned
 * address element by element out of line; elsewhere slm_wide_checked. */
static void slm_wide(Px *p, Inst *v, const PxWide *g, const Where *w)
{
	const Inst *l0 = g->at0;
	uint32_t chunk = g->k * (uint32_t)ir_elem_bytes[l0->ty.elem];
	uint32_t piece = chunk < 16 ? chunk : 16;
	bool unchecked = wide_unchecked(p, g);
	int64_t imm = 0;
	const char *off = unchecked ? px_vloop_base(p, l0, &imm) : NULL;
	if (!off)
		off = px_reg(p, l0->ops[1], 0), imm = 0;
	const char *x = px_tmp(p, RC_B32), *ok;
	px_ins(p, "mad.lo.u32 %s, %%lane, %u, %s", x, chunk, off);
	const char *a = address32(p, w, x, 1, NULL, &ok);
	const char *al = slm_aligned(p, l0, w, off, imm, piece);
	if (unchecked)
		wide_plain(p, v, g, w, a, imm, al);
	else
		slm_wide_checked(p, v, g, w, off, x, a, al);
}

/* The loads of a wide load (bwide.c), at its last wrregion v: lane l
 * reads the k elements at byte x = o + l * k * eb (o: the offset of the
 * load of element 0) into registers 0 .. k-1 of v's run layout, in
 * vector loads of 16 bytes (fewer when k * eb is) where the address is
 * aligned to them: a uniform test of the buffer's base and o, as a
 * wrapped buffer may start anywhere; unaligned, element by element.  In
 * a versioned loop's unchecked copy nothing else is tested (the
 * element-wise path out of line); elsewhere a lane whose bytes are not
 * all inside, or wrap past its own load's offset, loads element by
 * element under a block load's checks, which give 0 outside. */
bool px_wide_load(Px *p, Inst *v)
{
	const PxWide *g = p->val[v->id].wide;
	const Inst *l0 = g->at0;
	Elem e = l0->ty.elem;
	int eb = ir_elem_bytes[e];
	uint32_t k = g->k, chunk = k * (uint32_t)eb, piece = chunk < 16 ? chunk : 16;
	if (p->lanes != 32)
		die("wide load in a packed kernel");
	Where w = where(p, (Inst *)l0, l0->ops[0]);
	px_comment(p, "wrregion of %u block loads: %u elements a lane (run layout), ld.v%u",
	           g->n, k, piece / (uint32_t)eb);
	if (w.sp == SP_SLM) {
		slm_wide(p, v, g, &w);
		return true;
	}
	const char *off = px_reg(p, l0->ops[1], 0);
	const char *x = px_tmp(p, RC_B32), *a = px_tmp(p, RC_B64);
	px_ins(p, "mad.lo.u32 %s, %%lane, %u, %s", x, chunk, off);
	px_ins(p, "mad.wide.u32 %s, %s, 1, %s", a, x, w.base);
	const char *t = px_tmp(p, RC_B32), *al = px_tmp(p, RC_PRED);
	px_ins(p, "cvt.u32.u64 %s, %s", t, w.base);
	px_ins(p, "or.b32 %s, %s, %s", t, t, off);
	px_ins(p, "and.b32 %s, %s, %u", t, t, piece - 1);
	px_ins(p, "setp.eq.u32 %s, %s, 0", al, t);
	if (wide_unchecked(p, g)) {
		wide_plain(p, v, g, &w, a, 0, al);
		return true;
	}
	const char *om = lane_load_start(p, g, off), *nw = px_tmp(p, RC_PRED);
	const char *fast = px_tmp(p, RC_PRED), *slow = px_tmp(p, RC_PRED);
	px_ins(p, "setp.ge.u32 %s, %s, %s", nw, x, om);
	px_ins(p, "setp.lt.and.u32 %s, %s, %s, %s", fast, x,
	       px_surf_limit(p, (uint32_t)w.surf, (int)chunk, 0), nw);
	px_ins(p, "and.pred %s, %s, %s", fast, fast, al);
	px_ins(p, "not.pred %s, %s", slow, fast);
	for (uint32_t q = 0; q < k; q++) {
		const char *tq = px_tmp(p, RC_B32), *ok = px_tmp(p, RC_PRED);
		px_ins(p, "add.u32 %s, %s, %u", tq, x, q * (uint32_t)eb);
		px_ins(p, "setp.ge.and.u32 %s, %s, %s, %s", ok, tq, om, slow);
		px_ins(p, "setp.lt.and.u32 %s, %s, %s, %s", ok, tq,
		       px_surf_limit(p, (uint32_t)w.surf, eb, 0), ok);
		block_access(p, &w, false, e, px_own(p, v, q), a, (int64_t)q * eb, ok,
		             block_align(l0));
	}
	wide_vectors(p, v, &w, e, a, 0, k, piece / (uint32_t)eb, fast);
	return true;
}

/* Whether l2 reads the 16 elements right after l1's (the same root and
 * scale, its constant 16 elements further). */
static bool pair_contiguous(const Inst *l1, const Inst *l2, int eb)
{
	const Inst *r1, *r2;
	uint32_t s1, s2;
	int64_t c1, c2, k1, k2;
	ir_affine(l1->ops[1], &r1, &s1, &c1);
	ir_affine(l2->ops[1], &r2, &s2, &c2);
	if (ir_const_int32(r1, &k1) && ir_const_int32(r2, &k2))   /* two constants */
		return c2 + k2 * s2 == c1 + k1 * s1 + 16 * eb;
	return r1 == r2 && s1 == s2 && c2 == c1 + 16 * eb;
}

/* An SLM pair (bpair.c): lanes 0..15 read o1 + (lane % 16) * eb and lanes
 * 16..31 o2 + ..., each checked as block_alone checks its load (a half
 * whose offset is within a slot's span of 2^32 reads 0).  Halves that are
 * contiguous (o2 = o1 + 16 eb) are one run, lane l at o1 + l * eb; in a
 * versioned loop's unchecked copy from its span's base at an immediate
 * offset, as block_alone's loads there. */
static void slm_pair(Px *p, const Inst *l1, const Inst *l2, const Where *w, const char *r)
{
	Elem e = l1->ty.elem;
	int eb = ir_elem_bytes[e];
	bool unchecked = px_unchecked(p, l1) && px_unchecked(p, l2);
	int64_t imm = 0;
	const char *off = NULL, *x = px_tmp(p, RC_B32), *ok = NULL;
	if (pair_contiguous(l1, l2, eb)) {
		off = unchecked ? px_vloop_base(p, l1, &imm) : NULL;
		if (!off)
			off = px_reg(p, l1->ops[1], 0), imm = 0;
		px_ins(p, "mad.lo.u32 %s, %%lane, %d, %s", x, eb, off);
		const char *a = address32(p, w, x, 1, NULL, &ok);
		if (!unchecked) {
			/* o2 + (lane - 16) eb is x mod 2^32: only the wrap test
			 * is the half's own */
			const char *oh = px_tmp(p, RC_B32);
			px_ins(p, "and.b32 %s, %%lane, 16", oh);
			px_ins(p, "mad.lo.u32 %s, %s, %d, %s", oh, oh, eb, off);
			const char *nw, *lim = no_wrap_limit(p, oh, SLOTS(l1->ty.n) * 32 * (uint32_t)eb,
			                                     limit32(p, w, eb, 1), &nw);
			ok = below(p, x, lim, nw);
		}
		block_access(p, w, false, e, r, a, imm, ok, block_align(l1));
		return;
	}
	off = px_tmp(p, RC_B32);
	px_ins(p, "selp.b32 %s, %s, %s, %s", off, px_reg(p, l1->ops[1], 0),
	       px_reg(p, l2->ops[1], 0), px_lane_lt(p, 16));
	px_ins(p, "and.b32 %s, %%lane, 15", x);
	px_ins(p, "mad.lo.u32 %s, %s, %d, %s", x, x, eb, off);
	const char *a = address32(p, w, x, 1, NULL, &ok);
	if (!unchecked) {
		const char *nw, *lim = no_wrap_limit(p, off, SLOTS(l1->ty.n) * 32 * (uint32_t)eb,
		                                     limit32(p, w, eb, 1), &nw);
		ok = below(p, x, lim, nw);
	}
	block_access(p, w, false, e, r, a, 0, ok, block_align(l1));
}

bool px_pair_load(Px *p, Inst *w2)
{
	Inst *w1 = w2->ops[0], *l2 = w2->ops[1], *d = w1->ops[0];
	const Inst *l1 = p->val[w2->id].pair;
	Elem e = l1->ty.elem;
	int eb = ir_elem_bytes[e];
	const Layout *lw = p->val[w2->id].lay;
	uint32_t slot = (uint32_t)px_pair_reg(lw, (uint32_t)w1->rg.offset);
	Where w = where(p, l2, l2->ops[0]);
	px_comment(p, "wrregion <0;16,1>,%d and <0;16,1>,%d of two block loads: one load",
	           w1->rg.offset, w2->rg.offset);
	for (uint32_t s = 0; s < (lw ? lw->nregs : SLOTS(w2->ty.n)); s++)
		if (s != slot)
			px_ins(p, "mov.%s %s, %s", px_bits(e), px_own(p, w2, s),
			       lw ? px_reg_in(p, d, lw, s) : px_reg(p, d, s));
	if (w.sp == SP_SLM) {
		slm_pair(p, l1, l2, &w, px_own(p, w2, slot));
		return true;
	}
	/* lanes 0..15 at o1, 16..31 at o2, each at its lane % 16 */
	const char *off = px_tmp(p, RC_B32), *x = px_tmp(p, RC_B32), *a = px_tmp(p, RC_B64);
	px_ins(p, "selp.b32 %s, %s, %s, %s", off, px_reg(p, l1->ops[1], 0),
	       px_reg(p, l2->ops[1], 0), px_lane_lt(p, 16));
	px_ins(p, "and.b32 %s, %%lane, 15", x);
	px_ins(p, "mad.lo.u32 %s, %s, %d, %s", x, x, eb, off);
	px_ins(p, "mad.wide.u32 %s, %s, 1, %s", a, x, w.base);
	const char *ok = NULL;
	if (!px_unchecked(p, l1) || !px_unchecked(p, l2)) {
		const char *q = px_tmp(p, RC_PRED);
		ok = px_tmp(p, RC_PRED);
		px_ins(p, "setp.ge.u32 %s, %s, %s", q, x, off);
		px_ins(p, "setp.lt.and.u32 %s, %s, %s, %s", ok, x,
		       px_surf_limit(p, (uint32_t)w.surf, eb, 0), q);
	}
	block_access(p, &w, false, e, px_own(p, w2, slot), a, 0, ok, block_align(l1));
	return true;
}

/* A 32-bit offset: one address (base + off + lane * eb) for every slot,
 * slot s at an immediate offset, its check one 32-bit add and compare
 * against the per-instruction limit (no branch, so ptxas keeps loads of
 * several blocks in flight).  64-bit offsets take block_checked. */
static bool block_alone(Px *p, Inst *i)
{
	bool st = i->op == Obstore;
	Inst *val = st ? i->ops[2] : i;
	Elem e = val->ty.elem;
	int eb = ir_elem_bytes[e];
	uint32_t n = val->ty.n;
	Where w = where(p, i, i->ops[0]);
	/* a one-element load is a scalar: uniform, so every lane loads it */
	bool uni = n == 1 && !st;
	const char *off = narrow(p, i->ops[1], 0);
	if (!off && w.size) {
		block_checked(p, i, &w, wide(p, i->ops[1], 0), uni);
		return true;
	}
	const Layout *sl = st || !p->val ? NULL : p->val[i->id].lay;
	bool partial = n % 32 || (sl && !sl->canon);
	/* in a versioned loop's copy the loop's test covers it (vloop.c) */
	bool unchecked = p->val && px_unchecked(p, i);
	if (off && w.surf >= 0 && !uni && n > 1 && partial && !px_checking(p) &&
	    p->depth[i->block->id] && !unchecked) {
		block_limits(p, i, &w, off);
		return true;
	}
	const Layout *l = !st && !uni && p->val ? p->val[i->id].lay : NULL;
	/* SLM in a versioned loop's copy: from its span's first byte, at an
	 * immediate offset (see px_vloop_base) */
	int64_t imm = 0;
	const char *vb = unchecked && off && w.sp == SP_SLM && !uni && !(l && !l->canon)
	                         ? px_vloop_base(p, i, &imm) : NULL;
	if (vb)
		off = vb;
	const char *lim = NULL, *nw = NULL, *x = off;
	if (off) {
		if (!uni) {
			x = px_tmp(p, RC_B32);
			px_ins(p, "mad.lo.u32 %s, %%lane, %d, %s", x, eb, off);
		}
		if (w.size && !unchecked)
			lim = no_wrap_limit(p, off, uni ? (uint32_t)eb : SLOTS(n) * 32 * eb,
			                    limit32(p, &w, eb, 1), &nw);
	}
	const char *a;
	if (off) {
		const char *ok;
		a = address32(p, &w, x, 1, NULL, &ok);
		if (l && !l->canon) {
			block_shifted(p, i, &w, x, a, lim, nw, l->pos[0]);
			return true;
		}
	} else {
		/* SVM with a 64-bit offset: unchecked */
		a = px_tmp(p, RC_B64);
		px_ins(p, "add.s64 %s, %s, %s", a, w.base, wide(p, i->ops[1], 0));
		if (!uni)
			px_ins(p, "mad.wide.u32 %s, %%lane, %d, %s", a, eb, a);
	}
	const char *fails = NULL;
	for (uint32_t s = 0; s < SLOTS(n); s++) {
		const char *q = NULL, *ok = NULL;
		if (lim) {
			const char *t = x;
			if (s) {
				t = px_tmp(p, RC_B32);
				px_ins(p, "add.u32 %s, %s, %u", t, x, s * 32 * eb);
			}
			q = ok = below(p, t, lim, nw);
		}
		const char *sp = slot_pred(p, n, s, st, uni);
		and_pred(p, &q, sp);
		block_access(p, &w, st, e, px_reg(p, val, s), a, imm + (int64_t)s * 32 * eb, q,
		             block_align(i));
		px_fault_lane(p, &fails, ok, sp);
	}
	px_fault_end(p, fails, st ? CUDA_FAULT_BSTORE : CUDA_FAULT_BLOAD, i);
	return true;
}

/* The leader of a block group (bgroup.c) tests once, uniformly, whether
 * all its members' bytes [R + lo, R + hi), R = root * scale, lie inside
 * the buffer with no offset past 2^32, and builds the pointer to R plus
 * the lane's element. */
static void group_test(Px *p, PxBGroup *g, const Where *w, int eb)
{
	const char *r = px_reg(p, g->root, 0);
	if (g->scale != 1) {
		const char *t = px_tmp(p, RC_B32);
		px_ins(p, "mul.lo.u32 %s, %s, %u", t, r, g->scale);
		r = t;
	}
	const char *r64 = px_tmp(p, RC_B64), *e = px_tmp(p, RC_B64), *q = px_tmp(p, RC_PRED);
	px_ins(p, "cvt.u64.u32 %s, %s", r64, r);
	px_ins(p, "add.s64 %s, %s, %lld", e, r64, (long long)g->hi);
	px_ins(p, "setp.le.u64 %s, %s, %s", q, e, w->size);
	px_ins(p, "setp.le.and.u64 %s, %s, 4294967296, %s", q, e, q);
	if (g->lo < 0)
		px_ins(p, "setp.ge.and.u32 %s, %s, %lld, %s", q, r, -(long long)g->lo, q);
	const char *a;
	if (w->sp == SP_SLM) {
		a = px_tmp(p, RC_B32);
		px_ins(p, "mad.lo.u32 %s, %%lane, %d, %s", a, eb, r);
		px_ins(p, "add.u32 %s, %s, %s", a, a, w->base);
	} else {
		a = px_tmp(p, RC_B64);
		px_ins(p, "mad.wide.u32 %s, %%lane, %d, %s", a, eb, w->base);
		px_ins(p, "add.u64 %s, %s, %s", a, a, r64);
	}
	g->ok = q, g->ptr = a;
}

/* A member of a block group: its slots at immediate offsets from the
 * group's pointer with no check when the group's test passed, else its
 * own checked access (block_alone), out of line. */
static bool block_grouped(Px *p, Inst *i)
{
	const Inst *ld = p->val[i->id].blead;
	PxBGroup *g = p->val[ld->id].bg;
	bool st = i->op == Obstore;
	Inst *val = st ? i->ops[2] : i;
	Elem e = val->ty.elem;
	int eb = ir_elem_bytes[e];
	Where w = where(p, i, i->ops[0]);
	if (ld == i)
		group_test(p, g, &w, eb);
	const char *cold = px_label(p), *done = px_label(p);
	px_ins(p, "@!%s bra%s %s", g->ok, px_uni(p), cold);
	for (uint32_t s = 0; s < SLOTS(val->ty.n); s++)
		block_access(p, &w, st, e, px_reg(p, val, s), g->ptr,
		             p->val[i->id].bc + (int64_t)s * 32 * eb,
		             slot_pred(p, val->ty.n, s, st, false), block_align(i));
	buf_printf(&p->body, "%s:\n", done);
	px_cold_begin(p, cold);
	block_alone(p, i);
	px_cold_end(p, done);
	return true;
}

/* bload / bstore: a member of a group checked once (bgroup.c), else
 * alone. */
static bool block(Px *p, Inst *i)
{
	if (p->val && p->val[i->id].blead && !px_unchecked(p, i))
		return block_grouped(p, i);
	return block_alone(p, i);
}

bool px_gather_unchecked(Px *p, const Inst *i)
{
	int eb = ir_elem_bytes[i->ty.elem];
	return slm_inside(p, i, eb, i->bytes ? 1 : eb) || px_unchecked(p, i);
}

/* A gather in a layout other than the canonical one (assign.c
 * assign_gather): register r of lane l loads the element the layout puts
 * there, at the offset register r of the offsets' copy in that layout
 * holds; lanes the layout leaves empty in r load nothing. */
static bool gather_in(Px *p, Inst *i, const Layout *l)
{
	Elem e = i->ty.elem;
	int eb = ir_elem_bytes[e], scale = i->bytes ? 1 : eb;
	Where w = where(p, i, i->ops[0]);
	bool in = slm_inside(p, i, eb, scale) || px_unchecked(p, i);
	const char *goff = NULL, *lim = in ? NOCHECK : NULL, *fails = NULL;
	px_comment(p, "gather into its users' layout: no shuffle");
	bool *done = NEWN(p->tmp, bool, l->nregs);
	if (px_ldsm_ok(p, i, in))
		px_ldsm_gather(p, i, l, w.base, done);
	for (uint32_t r = 0; r < l->nregs; r++) {
		if (done[r])
			continue;
		uint32_t lanes = 0;
		for (uint32_t k = 0; k < l->n; k++)
			if (l->pos[k] / 32 == r)
				lanes |= 1u << (l->pos[k] % 32);
		if (!lanes)
			continue;
		const char *q = NULL, *ok, *act = NULL;
		if (lanes != UINT32_MAX) {   /* this lane holds an element of r */
			const char *t = px_tmp(p, RC_B32), *has = px_tmp(p, RC_PRED);
			px_ins(p, "shr.b32 %s, %u, %%lane", t, lanes);
			px_ins(p, "and.b32 %s, %s, 1", t, t);
			px_ins(p, "setp.ne.u32 %s, %s, 0", has, t);
			and_pred(p, &q, has);
			act_and(p, &act, has);
		}
		const char *a = lane_address(p, &w, i->ops[1], i->ops[2], r, l, eb, scale, &lim,
		                             &goff, &ok);
		and_pred(p, &q, ok);
		access(p, &w, false, e, px_own(p, i, r), a, q);
		px_fault_lane(p, &fails, ok, act);
	}
	px_fault_end(p, fails, CUDA_FAULT_GATHER, i);
	return true;
}

/* gather / scatter: element k at base + (goff + offs[k]) * scale. */
bool px_scattered(Px *p, Inst *i)
{
	bool st = i->op == Oscatter;
	Inst *val = st ? i->ops[3] : i, *offs = i->ops[2], *mask = ir_mask(i);
	Elem e = val->ty.elem;
	int eb = ir_elem_bytes[e], scale = i->bytes ? 1 : eb;
	if (!st && p->val && p->val[i->id].lay && !p->val[i->id].lay->canon)
		return gather_in(p, i, p->val[i->id].lay);
	Where w = where(p, i, i->ops[0]);
	/* all inside for certain, or in a versioned loop's copy (vloop.c) */
	bool in = slm_inside(p, i, eb, scale) || (p->val && px_unchecked(p, i));
	const char *goff = NULL, *lim = in ? NOCHECK : NULL, *fails = NULL;
	for (uint32_t s = 0; s < SLOTS(val->ty.n); s++) {
		const char *q = NULL, *ok, *act = NULL;
		const char *a = lane_address(p, &w, i->ops[1], offs, s, NULL, eb, scale, &lim, &goff,
		                             &ok);
		and_pred(p, &q, ok);
		/* a one-element gather is a scalar (uniform offset and
		 * result): every lane loads it */
		if (val->ty.n - s * 32 < 32 && (st || val->ty.n > 1)) {
			const char *lt = px_lane_lt(p, val->ty.n - s * 32);
			and_pred(p, &q, lt);
			act_and(p, &act, lt);
		}
		if (mask) {
			const char *m = px_reg(p, mask, s);
			and_pred(p, &q, m);
			act_and(p, &act, m);
		}
		access(p, &w, st, e, px_reg(p, val, s), a, q);
		px_fault_lane(p, &fails, ok, act);
	}
	px_fault_end(p, fails, st ? CUDA_FAULT_SCATTER : CUDA_FAULT_GATHER, i);
	return true;
}

const char *px_slm_limit(Px *p, Inst *i, int bytes, int unit, const char **base)
{
	Where w = where(p, i, i->ops[0]);
	*base = w.base;
	return bytes ? limit32(p, &w, bytes, unit) : NULL;
}

/* gather4 / scatter4: output element j * N + k is channel ch[j] of
 * address k (N = offs.n); a lane finds its k and channel arithmetically
 * and fetches offs[k] with one shuffle when N < 32. */
static bool scatter4(Px *p, Inst *i)
{
	bool st = i->op == Oscatter4;
	Inst *val = st ? i->ops[3] : i, *offs = i->ops[2], *mask = ir_mask(i);
	Elem e = val->ty.elem;
	uint32_t N = offs->ty.n, packed = 0, nch = 0;
	for (int c = 0; c < 4; c++)
		if (i->chmask >> c & 1)
			packed |= (uint32_t)c << (4 * nch++);
	if (N == 0 || (N < 32 && 32 % N) || (N > 32 && N % 32))
		return px_unsupported(p, i, "this scatter4 width");
	int scale = i->bytes ? 1 : 4;
	Where w = where(p, i, i->ops[0]);
	const char *goff = wide(p, i->ops[1], 0);
	const char *offk = NULL, *mk = NULL;
	if (N < 32) {
		const char *ln = px_tmp(p, RC_B32);
		px_udivc(p, ln, "%lane", N, true);
		offk = px_tmp(p, px_class(offs->ty.elem));
		px_shfl(p, "idx", px_class(offs->ty.elem), offk, px_reg(p, offs, 0), ln);
		if (mask && mask->ty.n > 1) {
			mk = px_tmp(p, RC_PRED);
			px_shfl(p, "idx", RC_PRED, mk, px_reg(p, mask, 0), ln);
		} else if (mask) {
			mk = px_reg(p, mask, 0);
		}
	}
	const char *fails = NULL;
	for (uint32_t s = 0; s < SLOTS(val->ty.n); s++) {
		const char *x = px_tmp(p, RC_B32), *j = px_tmp(p, RC_B32), *c = px_tmp(p, RC_B32);
		px_ins(p, "add.u32 %s, %%lane, %u", x, s * 32);
		px_udivc(p, j, x, N, false);
		px_ins(p, "shl.b32 %s, %s, 2", j, j);
		px_ins(p, "shr.b32 %s, %u, %s", c, packed, j);
		px_ins(p, "and.b32 %s, %s, 15", c, c);
		const char *ok_off, *q = NULL, *act = NULL;
		const char *o = px_tmp(p, RC_B64), *ko;
		if (N < 32) {
			Inst fake = {.ty = offs->ty};
			(void)fake;
			const char *t = px_tmp(p, RC_B64);
			if (px_class(offs->ty.elem) == RC_B64)
				t = offk;
			else
				px_ins(p, "cvt.u64.u32 %s, %s", t, offk);
			ko = t;
			if (mk) {
				and_pred(p, &q, mk);
				act_and(p, &act, mk);
			}
		} else {
			uint32_t ks = s % (N / 32);
			ko = wide(p, offs, ks);
			if (mask) {
				const char *m = px_reg(p, mask, mask->ty.n > 1 ? ks : 0);
				and_pred(p, &q, m);
				act_and(p, &act, m);
			}
		}
		px_ins(p, "add.s64 %s, %s, %s", o, goff, ko);
		if (scale != 1)
			px_ins(p, "mul.lo.s64 %s, %s, %d", o, o, scale);
		const char *cw = px_tmp(p, RC_B64);
		px_ins(p, "mul.wide.u32 %s, %s, 4", cw, c);
		px_ins(p, "add.s64 %s, %s, %s", o, o, cw);
		const char *a = address(p, &w, o, 4, &ok_off);
		and_pred(p, &q, ok_off);
		if (val->ty.n - s * 32 < 32) {
			const char *lt = px_lane_lt(p, val->ty.n - s * 32);
			and_pred(p, &q, lt);
			act_and(p, &act, lt);
		}
		access(p, &w, st, e, px_reg(p, val, s), a, q);
		px_fault_lane(p, &fails, ok_off, act);
	}
	px_fault_end(p, fails, CUDA_FAULT_CH4, i);
	uniform(p, val, st);
	return true;
}

/* Coordinate operand v of address k for output slot s: its own slot when
 * N >= 32, else the value shuffled from lane k % N (computed once). */
static const char *coord(Px *p, Inst *v, uint32_t N, uint32_t s, const char *ln,
                         const char **cache)
{
	if (v->ty.n == 1)
		return px_reg(p, v, 0);
	if (N >= 32)
		return px_reg(p, v, s % (N / 32));
	if (!*cache) {
		*cache = px_tmp(p, px_class(v->ty.elem));
		px_shfl(p, "idx", px_class(v->ty.elem), *cache, px_reg(p, v, 0), ln);
	}
	return *cache;
}

/* (checking) A typed access's lane is in bounds when its pixel is: inside
 * the surface (uv) and its channel's dword within the allocation (ok)
 * unless the channel lies past the pixel (chan clear), which reads 0
 * silently, as on the CPU device.  NULL without checking. */
static const char *pixel_ok(Px *p, const char *uv, const char *chan, const char *ok)
{
	if (!uv)
		return NULL;
	const char *q = px_tmp(p, RC_PRED);
	px_ins(p, "not.pred %s, %s", q, chan);
	px_ins(p, "or.pred %s, %s, %s", q, q, ok);
	px_ins(p, "and.pred %s, %s, %s", q, q, uv);
	return q;
}

/* tload / tstore: typed access at pixel (u, v, r), channel-major like
 * gather4; channel c is the dword at 4c inside the pixel (channels past
 * the pixel read 0); pixels outside the surface read 0, writes dropped. */
static bool typed(Px *p, Inst *i)
{
	bool st = i->op == Otstore;
	Inst *val = st ? i->ops[4] : i, *mask = ir_mask(i);
	Elem e = val->ty.elem;
	uint32_t N = i->ops[1]->ty.n, packed = 0, nch = 0;
	for (int c = 0; c < 4; c++)
		if (i->chmask >> c & 1)
			packed |= (uint32_t)c << (4 * nch++);
	if (ir_elem_bytes[e] != 4 || N == 0 || (N < 32 && 32 % N) || (N > 32 && N % 32))
		return px_unsupported(p, i, "this typed access shape");
	Where w = where(p, i, i->ops[0]);
	const char *ln = px_tmp(p, RC_B32), *cache[4] = {0};
	px_udivc(p, ln, "%lane", N, true);
	const char *wpx = px_tmp(p, RC_B32);
	px_ins(p, "div.u32 %s, %s, %s", wpx, w.width, w.bpp);
	const char *fails = NULL;
	for (uint32_t s = 0; s < SLOTS(val->ty.n); s++) {
		const char *x = px_tmp(p, RC_B32), *j = px_tmp(p, RC_B32), *c = px_tmp(p, RC_B32);
		px_ins(p, "add.u32 %s, %%lane, %u", x, s * 32);
		px_udivc(p, j, x, N, false);
		px_ins(p, "shl.b32 %s, %s, 2", j, j);
		px_ins(p, "shr.b32 %s, %u, %s", c, packed, j);
		px_ins(p, "and.b32 %s, %s, 15", c, c);
		const char *u = coord(p, i->ops[1], N, s, ln, &cache[0]);
		const char *v = coord(p, i->ops[2], N, s, ln, &cache[1]);
		const char *r = coord(p, i->ops[3], N, s, ln, &cache[2]);
		const char *q = px_tmp(p, RC_PRED), *t = px_tmp(p, RC_PRED), *cq = NULL;
		px_ins(p, "setp.lt.u32 %s, %s, %s", q, u, wpx);
		px_ins(p, "setp.lt.u32 %s, %s, %s", t, v, w.height);
		px_ins(p, "and.pred %s, %s, %s", q, q, t);
		const char *uv = NULL, *act = NULL;   /* (checking) the pixel is inside */
		if (px_checking(p)) {
			uv = px_tmp(p, RC_PRED);
			px_ins(p, "mov.pred %s, %s", uv, q);
		}
		const char *cb = px_tmp(p, RC_B32);
		px_ins(p, "shl.b32 %s, %s, 2", cb, c);
		px_ins(p, "add.u32 %s, %s, 3", x, cb);
		px_ins(p, "setp.lt.u32 %s, %s, %s", t, x, w.bpp);
		px_ins(p, "and.pred %s, %s, %s", q, q, t);
		const char *row = px_tmp(p, RC_B32), *o = px_tmp(p, RC_B64), *xo = px_tmp(p, RC_B64);
		px_ins(p, "mad.lo.u32 %s, %s, %s, %s", row, r, w.height, v);
		px_ins(p, "mul.wide.u32 %s, %s, %s", o, row, w.pitch);
		px_ins(p, "mul.lo.u32 %s, %s, %s", x, u, w.bpp);
		px_ins(p, "add.u32 %s, %s, %s", x, x, cb);
		px_ins(p, "cvt.u64.u32 %s, %s", xo, x);
		px_ins(p, "add.u64 %s, %s, %s", o, o, xo);
		cq = q;
		if (mask) {
			const char *m = mask->ty.n == 1 ? px_reg(p, mask, 0) : N >= 32 ?
			                px_reg(p, mask, s % (N / 32)) : NULL;
			if (!m) {
				if (!cache[3]) {
					cache[3] = px_tmp(p, RC_PRED);
					px_shfl(p, "idx", RC_PRED, cache[3], px_reg(p, mask, 0), ln);
				}
				m = cache[3];
			}
			and_pred(p, &cq, m);
			act_and(p, &act, m);
		}
		const char *ok, *a = address(p, &w, o, 4, &ok);
		and_pred(p, &cq, ok);
		if (val->ty.n - s * 32 < 32) {
			const char *lt = px_lane_lt(p, val->ty.n - s * 32);
			and_pred(p, &cq, lt);
			act_and(p, &act, lt);
		}
		access(p, &w, st, e, px_reg(p, val, s), a, cq);
		px_fault_lane(p, &fails, pixel_ok(p, uv, t, ok), act);
	}
	px_fault_end(p, fails, CUDA_FAULT_TYPED, i);
	uniform(p, val, st);
	return true;
}

/* The uniform predicate "the whole block is inside the surface": x0 and
 * x0 + cols * eb within the width, y0 and y0 + rows within the height, and
 * its last byte within the allocation (signed compares: a width or height
 * past 2^31 only sends the block to the exact path). */
static const char *media_inside(Px *p, const Where *w, const char *x0, const char *y0,
                                uint32_t bytes, uint32_t rows)
{
	const char *q = px_tmp(p, RC_PRED), *t = px_tmp(p, RC_B32), *u = px_tmp(p, RC_B32);
	const char *e = px_tmp(p, RC_B64);
	px_ins(p, "setp.ge.s32 %s, %s, 0", q, x0);
	px_ins(p, "sub.s32 %s, %s, %u", t, w->width, bytes);
	px_ins(p, "setp.le.and.s32 %s, %s, %s, %s", q, x0, t, q);
	px_ins(p, "setp.ge.and.s32 %s, %s, 0, %s", q, y0, q);
	px_ins(p, "sub.s32 %s, %s, %u", t, w->height, rows);
	px_ins(p, "setp.le.and.s32 %s, %s, %s, %s", q, y0, t, q);
	px_ins(p, "add.u32 %s, %s, %u", t, x0, bytes);
	px_ins(p, "cvt.u64.u32 %s, %s", e, t);
	px_ins(p, "add.u32 %s, %s, %u", u, y0, rows - 1);
	px_ins(p, "mad.wide.u32 %s, %s, %s, %s", e, u, w->pitch, e);
	px_ins(p, "setp.le.and.u64 %s, %s, %s, %s", q, e, w->size, q);
	return q;
}

/* root * scale + c (b32) for a group's box corner. */
static const char *corner(Px *p, const Inst *root, uint32_t scale, int64_t c)
{
	const char *r = px_reg(p, root, 0), *t = px_tmp(p, RC_B32);
	if (scale != 1)
		px_ins(p, "mad.lo.u32 %s, %s, %u, %d", t, r, scale, (int32_t)c);
	else
		px_ins(p, "add.u32 %s, %s, %d", t, r, (int32_t)c);
	return t;
}

/* The "wholly inside" test of media access i: its group's (mgroup.c),
 * computed by the leader, or its own. */
static const char *media_test(Px *p, Inst *i, const Where *w, const char *x0, const char *y0,
                              uint32_t cols, uint32_t rows, int eb)
{
	const Inst *ld = p->val ? p->val[i->id].mlead : NULL;
	if (!ld)
		return media_inside(p, w, x0, y0, cols * eb, rows);
	PxMGroup *g = p->val[ld->id].mg;
	if (ld == i)
		g->ok = media_inside(p, w, corner(p, g->xr, g->xs, g->x0),
		                     corner(p, g->yr, g->ys, g->y0), (uint32_t)(g->x1 - g->x0),
		                     (uint32_t)(g->y1 - g->y0));
	return g->ok;
}

/* The layout a media access moves its value in, when it is not the
 * canonical one.  When every register is one row of the block at
 * consecutive lanes (assign.c media_rows, layout.c lay_rows), *rows gets
 * them; else (a read straight into the layout its users want, assign.c
 * assign_mload, or a write from its value's own, assign.c media_writes)
 * *rows is NULL and each lane finds its element in a lane table
 * (px_lane_elems). */
static const Layout *media_layout(Px *p, Inst *i, uint32_t cols, LRow **rows)
{
	bool st = i->op == Omstore;
	Inst *val = st ? i->ops[3] : i;
	const Layout *l = !p->val || val->ty.n < 2 ? NULL :
	                  st ? px_read_layout(p, i, 3) : p->val[i->id].lay;
	if (!l || l->canon)
		return NULL;
	*rows = NEWN(p->arena, LRow, l->nregs);
	if (!lay_rows(p->arena, l, cols, *rows))
		*rows = NULL;
	return l;
}

/* Register s of a media access's value (in layout l when not NULL). */
static const char *media_reg(Px *p, Inst *i, const Layout *l, uint32_t s)
{
	Inst *val = i->op == Omstore ? i->ops[3] : i;
	if (!l)
		return px_reg(p, val, s);
	return i->op == Omstore ? px_reg_in(p, val, l, s) : px_own(p, val, s);
}

/* The predicate "lane in lo..hi" of a row register (NULL: every lane). */
static const char *row_lanes(Px *p, const LRow *r)
{
	if (r->lo == 0 && r->hi == 31)
		return NULL;
	const char *q = r->lo ? px_lane_ge(p, r->lo) : NULL;
	if (r->hi < 31)
		and_pred(p, &q, px_lane_lt(p, r->hi + 1u));
	return q;
}

/* ptr + y0 * pitch + x0, exact in 64 bits, for a block wholly inside
 * (x0, y0 >= 0: media_inside). */
static const char *corner_ptr(Px *p, const Where *w, const char *x0, const char *y0,
                              const char *ptr)
{
	const char *x = px_tmp(p, RC_B64), *c = px_tmp(p, RC_B64);
	px_ins(p, "cvt.u64.u32 %s, %s", x, x0);
	px_ins(p, "add.s64 %s, %s, %s", x, x, ptr);
	px_ins(p, "mad.wide.u32 %s, %s, %s, %s", c, y0, w->pitch, x);
	return c;
}

/* ptr + q * step in 64 bits: one IMAD.WIDE.U32 per row of a block (q = 0:
 * ptr itself).  Every row's address from the corner, not a 32-bit offset
 * added to the base per row (three SASS per row). */
static const char *row_ptr(Px *p, const char *ptr, const char *step, uint32_t q)
{
	if (!q)
		return ptr;
	const char *a = px_tmp(p, RC_B64);
	px_ins(p, "mad.wide.u32 %s, %s, %u, %s", a, step, q, ptr);
	return a;
}

/* A media block wholly inside, its value in rows (media_layout): one
 * pointer per row of the block, each register at an immediate offset
 * (a run layout's k registers of a row: columns j, j + k, ... of lanes
 * 0, 1, ...: one pointer, offsets j). */
static void media_fast_rows(Px *p, Inst *i, const Where *w, const char *x0, const char *y0,
                            const Layout *l, const LRow *rows)
{
	bool st = i->op == Omstore;
	Elem e = (st ? i->ops[3] : i)->ty.elem;
	int eb = ir_elem_bytes[e];
	const char *lp = px_tmp(p, RC_B64), *a = NULL;
	px_ins(p, "mad.wide.u32 %s, %%lane, %d, %s", lp, eb * (l->nregs ? rows[0].stride : 1),
	       w->base);
	const char *c = corner_ptr(p, w, x0, y0, lp);
	uint32_t row = UINT32_MAX;
	for (uint32_t s = 0; s < l->nregs; s++) {
		const LRow *r = &rows[s];
		if (r->lo > r->hi)
			continue;
		if (r->row != row) {
			row = r->row;
			a = row_ptr(p, c, w->pitch, row);
		}
		const char *as = arena_printf(p->arena, "%s+%d", a, r->col * eb);
		access(p, w, st, e, media_reg(p, i, l, s), as, row_lanes(p, r));
	}
}

/* A media block wholly inside: no clamp and no check.  Element k = 32 s +
 * lane is at byte (y0 + k / cols) * pitch + x0 + (k % cols) * eb.  Every
 * L = cols / gcd(cols, 32) slots cover RP = 32 L / cols whole rows, so the
 * lane's address within the first period is computed once per slot of a
 * period (one pointer P_j per j < L, from the block's corner) and slot
 * s = q L + j is P_j + q * RP * pitch: one mad.wide and the access per
 * slot.  Rows that are whole registers (cols a multiple of 32) share one
 * pointer per row, the slots of the row at immediate offsets. */
static void media_fast(Px *p, Inst *i, const Where *w, const char *x0, const char *y0,
                       uint32_t cols)
{
	bool st = i->op == Omstore;
	Inst *val = st ? i->ops[3] : i;
	Elem e = val->ty.elem;
	int eb = ir_elem_bytes[e];
	uint32_t g = 32, c = cols;
	while (c) {
		uint32_t t = g % c;
		g = c, c = t;
	}
	uint32_t L = cols / g, RP = 32 * L / cols, nslots = SLOTS(val->ty.n);
	bool rows_whole = cols % 32 == 0;
	/* nslots <= 64 (media's test), so np <= 64 */
	uint32_t np = rows_whole ? 1 : L < nslots ? L : nslots;
	const char *ptr[64], *step = px_tmp(p, RC_B32);
	for (uint32_t j = 0; j < np; j++) {
		const char *k = px_tmp(p, RC_B32), *r = px_tmp(p, RC_B32), *cc = px_tmp(p, RC_B32);
		px_ins(p, "add.u32 %s, %%lane, %u", k, 32 * j);
		px_udivc(p, r, k, cols, false);
		px_udivc(p, cc, k, cols, true);
		px_ins(p, "mul.lo.u32 %s, %s, %d", cc, cc, eb);
		px_ins(p, "mad.lo.u32 %s, %s, %s, %s", k, r, w->pitch, cc);
		ptr[j] = px_tmp(p, RC_B64);
		px_ins(p, "mad.wide.u32 %s, %s, 1, %s", ptr[j], k, w->base);
		ptr[j] = corner_ptr(p, w, x0, y0, ptr[j]);
	}
	px_ins(p, "mul.lo.u32 %s, %s, %u", step, w->pitch, RP);
	const char *a = NULL;
	for (uint32_t s = 0; s < nslots; s++) {
		uint32_t q = s / L, j = s % L;
		if (!rows_whole || j == 0)
			a = row_ptr(p, ptr[rows_whole ? 0 : j], step, q);
		const char *as = rows_whole && j ? arena_printf(p->arena, "%s+%u", a, 32 * j * eb) : a;
		const char *lq = val->ty.n - s * 32 < 32 ? px_lane_lt(p, val->ty.n - s * 32) : NULL;
		access(p, w, st, e, px_reg(p, val, s), as, lq);
	}
}

/* Row r and column c (b32 registers) of the element in register s of each
 * lane, and the predicate of the lanes that hold one (NULL: all): from
 * its rows (media_layout), from layout l's lane table, else k = 32 s +
 * lane in the canonical layout. */
static const char *media_rc(Px *p, const Layout *l, const LRow *rows, uint32_t n,
                            uint32_t cols, uint32_t s, const char *r, const char *c)
{
	if (rows) {
		px_ins(p, "mov.u32 %s, %u", r, rows[s].row);
		if (rows[s].stride == 1)
			px_ins(p, "add.s32 %s, %%lane, %d", c, rows[s].col);
		else
			px_ins(p, "mad.lo.s32 %s, %%lane, %d, %d", c, rows[s].stride, rows[s].col);
		return row_lanes(p, &rows[s]);
	}
	uint32_t valid = n - s * 32 < 32 ? (1u << (n - s * 32)) - 1 : 0xffffffffu;
	const char *k = px_tmp(p, RC_B32);
	if (l)
		k = px_lane_elems(p, l, s, &valid);
	else
		px_ins(p, "add.u32 %s, %%lane, %u", k, s * 32);
	px_udivc(p, r, k, cols, false);
	px_udivc(p, c, k, cols, true);
	return px_lanes_pred(p, valid);
}

typedef struct PxLaneOff {
	const char *pitch;
	const Layout *l;
	uint32_t s, cols;
	int eb;
	const char *reg;
	uint32_t valid;
	struct PxLaneOff *next;
} PxLaneOff;

/* The byte offset in a media block (row * pitch + column * eb) of each
 * lane's element in register s of layout l (NULL: canonical), computed
 * once per kernel at its entry (the pitch is the surface's, loaded by the
 * prologue): in a GEMM's k loop each tile read then costs an add, a
 * mad.wide and the load.  *valid gets the lanes that hold an element. */
static const char *media_lane_off(Px *p, const Where *w, const Layout *l, uint32_t s,
                                  uint32_t n, uint32_t cols, int eb, uint32_t *valid)
{
	for (PxLaneOff *o = p->loffs; o; o = o->next)
		if (o->s == s && o->cols == cols && o->eb == eb && !strcmp(o->pitch, w->pitch) &&
		    (o->l == l || (o->l && l && lay_equal(o->l, l)))) {
			*valid = o->valid;
			return o->reg;
		}
	PxLaneOff *o = NEW(p->arena, PxLaneOff);
	*o = (PxLaneOff){w->pitch, l, s, cols, eb, px_tmp(p, RC_B32), 0, p->loffs};
	p->loffs = o;
	const char *k = NULL;
	o->valid = n - s * 32 < 32 ? (1u << (n - s * 32)) - 1 : 0xffffffffu;
	if (l)
		k = px_lane_elems(p, l, s, &o->valid);   /* into the entry itself */
	px_entry_swap(p);
	const char *r = px_tmp(p, RC_B32), *c = px_tmp(p, RC_B32);
	if (!l) {
		k = px_tmp(p, RC_B32);
		px_ins(p, "add.u32 %s, %%lane, %u", k, s * 32);
	}
	px_udivc(p, r, k, cols, false);
	px_udivc(p, c, k, cols, true);
	px_ins(p, "mul.lo.u32 %s, %s, %d", c, c, eb);
	px_ins(p, "mad.lo.u32 %s, %s, %s, %s", o->reg, r, w->pitch, c);
	px_entry_swap(p);
	*valid = o->valid;
	return o->reg;
}

/* Whether registers s and s + 1 of layout l hold, in every lane, two
 * neighbours of one row of a block of cols columns, the first at an even
 * column (an mma fragment's two k dwords, dpas.c frag_elem): one 8-byte
 * load fills both when the block's x and pitch are multiples of 8. */
bool px_pair_regs(Px *p, const Layout *l, uint32_t s, uint32_t cols)
{
	if (!l || s + 1 >= l->nregs)
		return false;
	const int32_t *el = lay_elems(p->arena, l);
	for (int L = 0; L < 32; L++) {
		int32_t a = el[s * 32 + L], b = el[(s + 1) * 32 + L];
		if (a < 0 || b != a + 1 || (uint32_t)a % cols % 2)
			return false;
	}
	return true;
}

/* A media access wholly inside, each lane's element at an offset
 * computed once (media_lane_off): a read into a layout of its own or a
 * write from one (media_layout without rows: each lane's element from its
 * lane table), or a canonical read of one register; no clamp and no
 * check.  Two registers of 4-byte neighbours (px_pair_regs) are one v2 load
 * or store when x0 and the pitch are multiples of 8 (a uniform test; else
 * two): the L1 cache then serves a lane's 8 bytes of a row at once, where
 * an mma fragment's registers each touch all 8 rows of its tile
 * (hgemm_bt's reads kept the L1 98% busy). */
static void media_fast_table(Px *p, Inst *i, const Where *w, const char *x0, const char *y0,
                             uint32_t cols, const Layout *l)
{
	bool st = i->op == Omstore;
	Inst *val = st ? i->ops[3] : i;
	Elem e = val->ty.elem;
	int eb = ir_elem_bytes[e];
	const char *o = px_tmp(p, RC_B32), *al = NULL;
	px_ins(p, "mad.lo.u32 %s, %s, %s, %s", o, y0, w->pitch, x0);
	uint32_t nregs = l ? l->nregs : SLOTS(val->ty.n);
	for (uint32_t s = 0; s < nregs; s++) {
		uint32_t valid;
		const char *lo = media_lane_off(p, w, l, s, val->ty.n, cols, eb, &valid);
		const char *t = px_tmp(p, RC_B32), *a = px_tmp(p, RC_B64);
		px_ins(p, "add.u32 %s, %s, %s", t, o, lo);
		px_ins(p, "mad.wide.u32 %s, %s, 1, %s", a, t, w->base);
		const char *r = media_reg(p, i, l, s);
		if (eb == 4 && px_pair_regs(p, l, s, cols)) {
			if (!al) {
				const char *u = px_tmp(p, RC_B32);
				al = px_tmp(p, RC_PRED);
				px_ins(p, "or.b32 %s, %s, %s", u, x0, w->pitch);
				px_ins(p, "and.b32 %s, %s, 7", u, u);
				px_ins(p, "setp.eq.u32 %s, %s, 0", al, u);
			}
			const char *r1 = media_reg(p, i, l, s + 1), *ty = px_mem_ty(e);
			if (st) {
				px_ins(p, "@%s st.global.v2.%s [%s], {%s, %s}", al, ty, a, r, r1);
				px_ins(p, "@!%s st.global.%s [%s], %s", al, ty, a, r);
				px_ins(p, "@!%s st.global.%s [%s+4], %s", al, ty, a, r1);
			} else {
				px_ins(p, "@%s ld.global.v2.%s {%s, %s}, [%s]", al, ty, r, r1, a);
				px_ins(p, "@!%s ld.global.%s %s, [%s]", al, ty, r, a);
				px_ins(p, "@!%s ld.global.%s %s, [%s+4]", al, ty, r1, a);
			}
			s++;
			continue;
		}
		access(p, w, st, e, r, a, px_lanes_pred(p, valid));
	}
}

/* Element reg of a media read whose pixels are narrower than it (bpp <
 * eb) and that is not wholly inside its row, in the lanes of split: byte
 * by byte, each clamped to its own edge pixel as the CPU device does
 * (docs/builtins.md §6.1), where clamping the element as one pixel would
 * read a word of the row's last bytes, at an address not aligned to it
 * (an RGB8 image of bytes read as uint words, its width in bytes not a
 * multiple of 4: the word across the edge keeps its bytes inside and
 * repeats the last one).  Unrolled, each byte put in place with bfi
 * (a loop over the bytes, nested in a k loop when the read is there, made
 * ptxas schedule that loop as an outer one: dgemm_dpas 7.125 -> 8.5 SASS
 * per mma).  x: the element's first byte, unclamped;
 * y: its row, clamped; pmaxb: the last pixel's first byte. */
static void media_bytes(Px *p, const Where *w, Elem e, const char *reg, const char *x,
                        const char *y, const char *split, const char *pmaxb, const char *pm1,
                        const char *lim1)
{
	int eb = ir_elem_bytes[e];
	const char *half[2] = {px_tmp(p, RC_B32), eb == 8 ? px_tmp(p, RC_B32) : NULL};
	const char *row = px_tmp(p, RC_B32);
	px_ins(p, "mul.lo.u32 %s, %s, %s", row, y, w->pitch);
	for (int k = 0; k < eb; k++) {
		const char *bx = px_tmp(p, RC_B32), *t = px_tmp(p, RC_B32), *hi = px_tmp(p, RC_B32);
		const char *o = px_tmp(p, RC_B32), *b = px_tmp(p, RC_B32), *ok, *q = split;
		const char *acc = half[k / 4];
		px_ins(p, "add.s32 %s, %s, %d", bx, x, k);
		px_ins(p, "and.b32 %s, %s, %s", t, bx, pm1);
		px_ins(p, "add.s32 %s, %s, %s", hi, pmaxb, t);
		px_ins(p, "min.s32 %s, %s, %s", bx, bx, hi);
		px_ins(p, "max.s32 %s, %s, %s", bx, bx, t);
		px_ins(p, "add.u32 %s, %s, %s", o, row, bx);
		const char *a = address32(p, w, o, 1, lim1, &ok);
		and_pred(p, &q, ok);
		access(p, w, false, E_U8, k % 4 ? b : acc, a, q);
		if (k % 4)
			px_ins(p, "bfi.b32 %s, %s, %s, %d, 8", acc, b, acc, 8 * (k % 4));
	}
	if (eb == 8)
		px_ins(p, "@%s mov.b64 %s, {%s, %s}", split, reg, half[0], half[1]);
	else if (e == E_I16)
		px_ins(p, "@%s cvt.s32.s16 %s, %s", split, reg, half[0]);
	else if (e == E_F16)
		px_ins(p, "@%s cvt.u16.u32 %s, %s", split, reg, half[0]);
	else
		px_ins(p, "@%s mov.b32 %s, %s", split, reg, half[0]);
}

/* The exact media access: every element's x and y clamped to the edge
 * (reads) or checked (writes).  bytes (reads of elements wider than the
 * image's pixels): an element not wholly inside its row is read byte by
 * byte (media_bytes) instead. */
static void exact_body(Px *p, Inst *i, const Where *w, const char *x0, const char *y0,
                       uint32_t cols, const Layout *l, const LRow *rows, bool bytes)
{
	bool st = i->op == Omstore;
	Inst *val = st ? i->ops[3] : i;
	Elem e = val->ty.elem;
	int eb = ir_elem_bytes[e];
	const char *xmax = px_tmp(p, RC_B32), *ymax = px_tmp(p, RC_B32), *lim = NULL;
	const char *pmax = NULL, *pm1 = NULL, *pmaxb = NULL, *lim1 = NULL;
	px_ins(p, "sub.s32 %s, %s, %d", xmax, w->width, eb);
	px_ins(p, "sub.s32 %s, %s, 1", ymax, w->height);
	if (!st) {
		/* reads clamp to the edge PIXEL (bpp bytes, a power of two):
		 * the byte at x reads byte x mod bpp of the clamped pixel, so
		 * x becomes max(min(x, pmax + t), t) with t = x mod bpp, pmax
		 * the last pixel's start (the last element's when wider) */
		pmax = px_tmp(p, RC_B32), pm1 = px_tmp(p, RC_B32);
		px_ins(p, "max.u32 %s, %s, %d", pmax, w->bpp, eb);
		px_ins(p, "sub.s32 %s, %s, %s", pmax, w->width, pmax);
		px_ins(p, "max.u32 %s, %s, 1", pm1, w->bpp);
		px_ins(p, "sub.u32 %s, %s, 1", pm1, pm1);
	}
	if (bytes) {
		pmaxb = px_tmp(p, RC_B32);
		px_ins(p, "sub.s32 %s, %s, %s", pmaxb, w->width, w->bpp);
		lim1 = limit32(p, w, 1, 1);
	}
	uint32_t nregs = l ? l->nregs : SLOTS(val->ty.n);
	const char *fails = NULL;
	for (uint32_t s = 0; s < nregs; s++) {
		if (rows && rows[s].lo > rows[s].hi)
			continue;
		const char *r = px_tmp(p, RC_B32), *c = px_tmp(p, RC_B32);
		const char *x = px_tmp(p, RC_B32), *y = px_tmp(p, RC_B32), *q = NULL, *keep = NULL;
		const char *lanes = media_rc(p, rows ? NULL : l, rows, val->ty.n, cols, s, r, c);
		px_ins(p, "mad.lo.s32 %s, %s, %d, %s", x, c, eb, x0);
		px_ins(p, "add.s32 %s, %s, %s", y, r, y0);
		if (st) {
			const char *a = px_tmp(p, RC_PRED), *b = px_tmp(p, RC_PRED);
			px_ins(p, "setp.le.u32 %s, %s, %s", a, x, xmax);  /* negative too */
			px_ins(p, "setp.le.u32 %s, %s, %s", b, y, ymax);
			px_ins(p, "and.pred %s, %s, %s", a, a, b);
			q = a;
		} else {
			const char *t = px_tmp(p, RC_B32), *hi = px_tmp(p, RC_B32);
			if (bytes) {   /* keep: the element is inside its row */
				keep = px_tmp(p, RC_PRED);
				px_ins(p, "setp.ge.s32 %s, %s, 0", keep, x);
				px_ins(p, "setp.le.and.s32 %s, %s, %s, %s", keep, x, xmax, keep);
			}
			px_ins(p, "and.b32 %s, %s, %s", t, x, pm1);
			px_ins(p, "add.s32 %s, %s, %s", hi, pmax, t);
			px_ins(p, "min.s32 %s, %s, %s", x, x, hi);
			px_ins(p, "max.s32 %s, %s, %s", x, x, t);
			px_ins(p, "min.s32 %s, %s, %s", y, y, ymax);
			px_ins(p, "max.s32 %s, %s, 0", y, y);
		}
		/* in bounds, y * pitch + x < size <= 4 GB: 32 bits; a write
		 * whose x or y is outside is predicated off above */
		const char *o = px_tmp(p, RC_B32), *ok;
		px_ins(p, "mad.lo.u32 %s, %s, %s, %s", o, y, w->pitch, x);
		if (!lim)
			lim = limit32(p, w, eb, 1);
		const char *a = address32(p, w, o, 1, lim, &ok);
		and_pred(p, &q, ok);
		const char *inside = q;   /* writes: x, y and the allocation */
		if (lanes)
			and_pred(p, &q, lanes);
		and_pred(p, &q, keep);
		access(p, w, st, e, media_reg(p, i, l, s), a, q);
		px_fault_lane(p, &fails, inside, lanes);
		if (keep) {
			/* the bytes lie inside the clamped row, as the element
			 * did: no fault of their own */
			const char *split = px_tmp(p, RC_PRED);
			px_ins(p, "not.pred %s, %s", split, keep);
			if (lanes)
				px_ins(p, "and.pred %s, %s, %s", split, split, lanes);
			px_ins(p, "mad.lo.s32 %s, %s, %d, %s", x, c, eb, x0);
			media_bytes(p, w, e, media_reg(p, i, l, s), x, y, split, pmaxb, pm1, lim1);
		}
	}
	px_fault_end(p, fails, st ? CUDA_FAULT_MSTORE : CUDA_FAULT_MLOAD, i);
}

/* The exact media access.  A read of elements wider than a byte has two:
 * whole elements clamped (right where the image's pixels are at least as
 * wide) in the kernel's entry, bytes clamped one by one (right for any
 * pixels) in its NAME$narrow entry (variant.c). */
static void media_exact(Px *p, Inst *i, const Where *w, const char *x0, const char *y0,
                        uint32_t cols, const Layout *l, const LRow *rows)
{
	int eb = ir_elem_bytes[i->ty.elem];
	if (i->op == Omstore || eb == 1) {
		exact_body(p, i, w, x0, y0, cols, l, rows, false);
		return;
	}
	px_variant_wide(p, eb);
	exact_body(p, i, w, x0, y0, cols, l, rows, false);
	px_variant_narrow(p);
	exact_body(p, i, w, x0, y0, cols, l, rows, true);
	px_variant_end(p);
}

/* Media access i's fast path (its block wholly inside: no clamp, no
 * check) or its exact path, at x0, y0. */
static void media_path(Px *p, Inst *i, const Where *w, const char *x0, const char *y0,
                       bool fast)
{
	Inst *val = i->op == Omstore ? i->ops[3] : i;
	uint32_t cols = i->imm > 0 ? (uint32_t)i->imm : val->ty.n;
	LRow *lr = NULL;
	const Layout *l = media_layout(p, i, cols, &lr);
	if (!fast)
		media_exact(p, i, w, x0, y0, cols, l, lr);
	else if ((l && !lr) || (!l && i->op == Omload && SLOTS(val->ty.n) == 1))
		media_fast_table(p, i, w, x0, y0, cols, l);
	else if (l)
		media_fast_rows(p, i, w, x0, y0, l, lr);
	else
		media_fast(p, i, w, x0, y0, cols);
}

const char *px_media_span_test(Px *p, Inst *leader)
{
	Where w = where(p, leader, leader->ops[0]);
	px_comment(p, "%u media accesses of one box: one test, one branch", p->val[leader->id].mg->n);
	return media_test(p, leader, &w, NULL, NULL, 0, 0, 0);
}

/* A group of reads that its leader makes at once (mgroup.c, PxMGroup.hoist): the
 * box test, one branch, every member's fast read, and out of line every
 * member's exact read.  Members' x and y come from the roots, as their own
 * may be computed after the leader. */
static void media_hoisted(Px *p, Inst *lead, const Where *w)
{
	PxMGroup *g = p->val[lead->id].mg;
	const char **xs = NEWN(p->arena, const char *, g->n);
	const char **ys = NEWN(p->arena, const char *, g->n);
	px_comment(p, "%u media reads of one box: one test", g->n);
	const char *in = media_test(p, lead, w, NULL, NULL, 0, 0, 0);
	for (uint32_t k = 0; k < g->n; k++) {
		const Inst *r;
		uint32_t sc;
		int64_t c;
		ir_affine(g->m[k]->ops[1], &r, &sc, &c);
		xs[k] = corner(p, g->xr, g->xs, c);
		ir_affine(g->m[k]->ops[2], &r, &sc, &c);
		ys[k] = corner(p, g->yr, g->ys, c);
	}
	const char *edge = px_label(p), *done = px_label(p);
	px_ins(p, "@!%s bra%s %s", in, px_uni(p), edge);
	for (uint32_t k = 0; k < g->n; k++)
		media_path(p, g->m[k], w, xs[k], ys[k], true);
	buf_printf(&p->body, "%s:\n", done);
	px_cold_begin(p, edge);
	for (uint32_t k = 0; k < g->n; k++)
		media_path(p, g->m[k], w, xs[k], ys[k], false);
	px_cold_end(p, done);
}

/* mload / mstore: element k is row k / cols, column k % cols; x in bytes,
 * y in rows.  Reads clamp to the edge, writes outside are dropped.  A
 * block of several slots tests once (uniformly: x0 and y0 are scalars)
 * whether it lies wholly inside and then takes media_fast, else the exact
 * path (out of line, in the cold section): interior tiles of an image, the
 * common case, pay no clamp.  A group of blocks (mgroup.c) tests its box
 * once; a group of reads is made by its leader. */
static bool media(Px *p, Inst *i)
{
	bool st = i->op == Omstore;
	Inst *val = st ? i->ops[3] : i;
	uint32_t cols = i->imm > 0 ? (uint32_t)i->imm : val->ty.n;
	if (i->space != SP_SURF)
		return px_unsupported(p, i, "media block access outside surfaces");
	Where w = where(p, i, i->ops[0]);
	const Inst *ld = p->val ? p->val[i->id].mlead : NULL;
	if (ld && p->val[ld->id].mg->hoist) {
		if (ld == i)
			media_hoisted(p, i, &w);
		return true;	/* a member: made by its leader */
	}
	if (ld && p->val[ld->id].mg->span) {   /* tested before the span */
		media_path(p, i, &w, px_reg(p, i->ops[1], 0), px_reg(p, i->ops[2], 0),
		           p->val[ld->id].mg->span_fast);
		uniform(p, val, st);
		return true;
	}
	const char *x0 = px_reg(p, i->ops[1], 0), *y0 = px_reg(p, i->ops[2], 0);
	uint32_t nslots = SLOTS(val->ty.n), rows = (val->ty.n + cols - 1) / cols;
	if (nslots < 2 || nslots > 64 || !w.size) {
		media_path(p, i, &w, x0, y0, false);
	} else {
		const char *in = media_test(p, i, &w, x0, y0, cols, rows, ir_elem_bytes[val->ty.elem]);
		const char *edge = px_label(p), *done = px_label(p);
		px_ins(p, "@!%s bra%s %s", in, px_uni(p), edge);
		media_path(p, i, &w, x0, y0, true);
		buf_printf(&p->body, "%s:\n", done);
		px_cold_begin(p, edge);
		media_path(p, i, &w, x0, y0, false);
		px_cold_end(p, done);
	}
	uniform(p, val, st);
	return true;
}

/* One atomic for one slot; d gets the old value (PREDEC: the new). */
static bool atomic_op(Px *p, Inst *i, const Where *w, const char *d, const char *a,
                      const char **src, const char *q)
{
	Elem e = i->ty.elem == E_VOID ? E_U32 : i->ty.elem;
	bool w64 = px_class(e) == RC_B64;
	const char *sp = space_name(w), *bt = w64 ? "b64" : "b32";
	const char *it = w64 ? "u64" : "u32";
	const char *pr = q ? arena_printf(p->arena, "@%s ", q) : "";
	const char *t = px_tmp(p, w64 ? RC_B64 : RC_B32);
	if (d)
		px_ins(p, "mov.%s %s, 0", px_bits(e), d);
	else
		d = px_tmp(p, px_class(e));
	switch ((IrAtomic)i->aop) {
	case AT_ADD: px_ins(p, "%satom.%s.add.%s %s, [%s], %s", pr, sp, it, d, a, src[0]); break;
	case AT_SUB:
		px_ins(p, "neg.s%d %s, %s", w64 ? 64 : 32, t, src[0]);
		px_ins(p, "%satom.%s.add.%s %s, [%s], %s", pr, sp, it, d, a, t);
		break;
	case AT_INC: px_ins(p, "%satom.%s.add.%s %s, [%s], 1", pr, sp, it, d, a); break;
	case AT_DEC: case AT_PREDEC:
		px_ins(p, "%satom.%s.add.%s %s, [%s], -1", pr, sp, it, d, a);
		if (i->aop == AT_PREDEC)	/* a dropped lane keeps its 0 */
			px_ins(p, "%ssub.%s %s, %s, 1", pr, it, d, d);
		break;
	case AT_MIN: case AT_MAX: case AT_MINSINT: case AT_MAXSINT: {
		bool sg = i->aop == AT_MINSINT || i->aop == AT_MAXSINT;
		const char *op = i->aop == AT_MIN || i->aop == AT_MINSINT ? "min" : "max";
		px_ins(p, "%satom.%s.%s.%s%d %s, [%s], %s", pr, sp, op, sg ? "s" : "u", w64 ? 64 : 32,
		       d, a, src[0]);
		break;
	}
	case AT_XCHG: px_ins(p, "%satom.%s.exch.%s %s, [%s], %s", pr, sp, bt, d, a, src[0]); break;
	case AT_CMPXCHG:
		px_ins(p, "%satom.%s.cas.%s %s, [%s], %s, %s", pr, sp, bt, d, a, src[1], src[0]);
		break;
	case AT_AND: case AT_OR: case AT_XOR:
		px_ins(p, "%satom.%s.%s.%s %s, [%s], %s", pr, sp, ir_atomic_name[i->aop], bt, d, a,
		       src[0]);
		break;
	case AT_FADD: px_ins(p, "%satom.%s.add.f32 %s, [%s], %s", pr, sp, d, a, src[0]); break;
	case AT_FSUB:
		t = px_tmp(p, RC_F32);
		px_ins(p, "neg.f32 %s, %s", t, src[0]);
		px_ins(p, "%satom.%s.add.f32 %s, [%s], %s", pr, sp, d, a, t);
		break;
	case AT_FMIN: case AT_FMAX: case AT_FCMPWR: {
		/* compare-and-swap loop on the bits */
		const char *skip = px_label(p), *loop = px_label(p);
		const char *old = px_tmp(p, RC_B32), *nw = px_tmp(p, RC_F32), *got = px_tmp(p, RC_B32);
		const char *of = px_tmp(p, RC_F32), *c = px_tmp(p, RC_PRED), *nb = px_tmp(p, RC_B32);
		if (q)
			px_ins(p, "@!%s bra %s", q, skip);
		px_ins(p, "ld.%s.b32 %s, [%s]", sp, old, a);
		buf_printf(&p->body, "%s:\n", loop);
		px_ins(p, "mov.b32 %s, %s", of, old);
		if (i->aop == AT_FCMPWR) {
			px_ins(p, "setp.eq.f32 %s, %s, %s", c, of, src[1]);
			px_ins(p, "selp.f32 %s, %s, %s, %s", nw, src[0], of, c);
		} else {
			px_ins(p, "%s.f32 %s, %s, %s", i->aop == AT_FMIN ? "min" : "max", nw, of, src[0]);
		}
		px_ins(p, "mov.b32 %s, %s", nb, nw);
		px_ins(p, "atom.%s.cas.b32 %s, [%s], %s, %s", sp, got, a, old, nb);
		px_ins(p, "setp.ne.b32 %s, %s, %s", c, got, old);
		px_ins(p, "mov.b32 %s, %s", old, got);
		px_ins(p, "@%s bra %s", c, loop);
		px_ins(p, "mov.b32 %s, %s", d, got);
		buf_printf(&p->body, "%s:\n", skip);
		break;
	}
	default:
		return px_unsupported(p, i, "this atomic operation");
	}
	return true;
}

/* An atomic's element bytes and the unit of its offsets (1: bytes). */
static int atomic_elem_bytes(const Inst *i, int *scale)
{
	Elem e = i->ty.elem != E_VOID ? i->ty.elem : ir_nsrc(i) ? i->ops[3]->ty.elem : E_U32;
	int eb = ir_elem_bytes[e];
	*scale = i->bytes ? 1 : eb;
	return eb;
}

/* For aggregate.c, which emits SLM float adds itself (ptx.h). */
const char *px_slm_atomic_lane(Px *p, Inst *i, uint32_t s, const char **ok)
{
	int scale, eb = atomic_elem_bytes(i, &scale);
	Where w = where(p, i, i->ops[0]);
	const char *lim = NULL, *goff = NULL;
	return lane_address(p, &w, i->ops[1], i->ops[2], s, NULL, eb, scale, &lim, &goff, ok);
}

static bool atomic(Px *p, Inst *i)
{
	if (px_fadd_aggregates(p, i)) {
		px_fadd_aggregate(p, i);
		return true;
	}
	Inst *offs = i->ops[2], *mask = ir_mask(i);
	int ns = ir_nsrc(i), scale, eb = atomic_elem_bytes(i, &scale);
	if (i->space == SP_SVM && i->aop >= AT_FMAX && eb != 4)
		return px_unsupported(p, i, "64-bit float atomics");
	Where w = where(p, i, i->ops[0]);
	/* an SLM atomic known to be inside goes unchecked too (but with
	 * -fno-slm-ranges: slm_inside) */
	bool in = !p->o->no_slm_ranges && slm_inside(p, i, eb, scale);
	const char *goff = NULL, *lim = in ? NOCHECK : NULL, *fails = NULL;
	uint32_t n = offs->ty.n;
	for (uint32_t s = 0; s < SLOTS(n); s++) {
		const char *q = NULL, *src[2] = {0}, *ok, *act = NULL;
		const char *a = lane_address(p, &w, i->ops[1], offs, s, NULL, eb, scale, &lim, &goff,
		                             &ok);
		and_pred(p, &q, ok);
		if (n - s * 32 < 32) {
			const char *lt = px_lane_lt(p, n - s * 32);
			and_pred(p, &q, lt);
			act_and(p, &act, lt);
		}
		if (mask) {
			const char *m = px_reg(p, mask, s);
			and_pred(p, &q, m);
			act_and(p, &act, m);
		}
		for (int k = 0; k < ns && k < 2; k++)
			src[k] = px_reg(p, i->ops[3 + k], s);
		const char *d = i->ty.elem != E_VOID ? px_reg(p, i, s) : NULL;
		if (!atomic_op(p, i, &w, d, a, src, q))
			return false;
		px_fault_lane(p, &fails, ok, act);
	}
	px_fault_end(p, fails, CUDA_FAULT_ATOMIC, i);
	uniform(p, i, false);
	return true;
}

/* tatomic: the atomic on the first dword of typed pixel (u, v, r); lanes
 * outside the surface, or on pixels of fewer than 4 bytes, are dropped and
 * read 0 (as atomic() does for offsets outside a buffer). */
static bool tatomic(Px *p, Inst *i)
{
	Inst *mask = ir_mask(i);
	int ns = ir_nsrc(i);
	uint32_t n = i->ops[1]->ty.n;
	if (ir_elem_bytes[i->ty.elem] != 4)
		return px_unsupported(p, i, "typed atomics on elements other than 4 bytes");
	Where w = where(p, i, i->ops[0]);
	const char *wpx = px_tmp(p, RC_B32);
	px_ins(p, "div.u32 %s, %s, %s", wpx, w.width, w.bpp);
	const char *fails = NULL;
	for (uint32_t s = 0; s < SLOTS(n); s++) {
		const char *q = NULL, *src[2] = {0}, *ok, *act = NULL;
		const char *u = px_reg(p, i->ops[1], s), *v = px_reg(p, i->ops[2], s);
		const char *r = px_reg(p, i->ops[3], s);
		const char *in = px_tmp(p, RC_PRED), *t = px_tmp(p, RC_PRED);
		px_ins(p, "setp.lt.u32 %s, %s, %s", in, u, wpx);
		px_ins(p, "setp.lt.u32 %s, %s, %s", t, v, w.height);
		px_ins(p, "and.pred %s, %s, %s", in, in, t);
		px_ins(p, "setp.ge.u32 %s, %s, 4", t, w.bpp);
		px_ins(p, "and.pred %s, %s, %s", in, in, t);
		const char *row = px_tmp(p, RC_B32), *o = px_tmp(p, RC_B64), *xo = px_tmp(p, RC_B64);
		const char *x = px_tmp(p, RC_B32);
		px_ins(p, "mad.lo.u32 %s, %s, %s, %s", row, r, w.height, v);
		px_ins(p, "mul.wide.u32 %s, %s, %s", o, row, w.pitch);
		px_ins(p, "mul.lo.u32 %s, %s, %s", x, u, w.bpp);
		px_ins(p, "cvt.u64.u32 %s, %s", xo, x);
		px_ins(p, "add.u64 %s, %s, %s", o, o, xo);
		const char *a = address(p, &w, o, 4, &ok);
		and_pred(p, &q, in);
		and_pred(p, &q, ok);
		const char *inside = q;
		if (n - s * 32 < 32) {
			const char *lt = px_lane_lt(p, n - s * 32);
			and_pred(p, &q, lt);
			act_and(p, &act, lt);
		}
		if (mask) {
			const char *m = px_reg(p, mask, s);
			and_pred(p, &q, m);
			act_and(p, &act, m);
		}
		for (int k = 0; k < ns && k < 2; k++)
			src[k] = px_reg(p, i->ops[4 + k], s);
		if (!atomic_op(p, i, &w, px_reg(p, i, s), a, src, q))
			return false;
		px_fault_lane(p, &fails, inside, act);
	}
	px_fault_end(p, fails, CUDA_FAULT_TATOMIC, i);
	uniform(p, i, false);
	return true;
}

/* The lanes of a warp see each other's shared-memory writes only after a
 * warp barrier (the PTX memory model orders no two threads without one,
 * converged or not).  So an SLM load of a CM thread that may read what
 * another lane of it wrote (a store or an atomic since the last barrier),
 * and an SLM atomic after a plain store, are preceded by bar.warp.sync;
 * atomics among themselves need none.  slm_effect says what instruction i
 * needs before it (*sync) and leaves in *pending; px_slm_order carries the
 * pending writes into each block from its predecessors. */
enum { SLM_STORED = 1, SLM_ATOMIC = 2 };

static uint8_t slm_effect(const Inst *i, uint8_t pending, bool *sync)
{
	*sync = false;
	if (i->op == Obarrier)
		return 0;
	if (i->op == Oslmwait)   /* the other lanes' copies, as their stores */
		return pending | SLM_STORED;
	if (i->space != SP_SLM || !(ir_ops[i->op].flags & IRF_MEM))
		return pending;
	bool atomic = i->op == Oatomic || i->op == Otatomic;
	bool store = !atomic && (ir_ops[i->op].flags & IRF_VOID);
	if (store)
		return pending | SLM_STORED;
	*sync = atomic ? (pending & SLM_STORED) != 0 : pending != 0;
	return (*sync ? 0 : pending) | (atomic ? SLM_ATOMIC : 0);
}

void px_slm_order(Px *p)
{
	Func *f = p->f;
	uint8_t *out = NEWN(p->arena, uint8_t, f->nblocks + 1);
	p->slm_in = NEWN(p->arena, uint8_t, f->nblocks + 1);
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t b = 0; b < f->nblocks; b++) {
			Block *bl = f->blocks[b];
			uint8_t in = 0, x;
			bool sync;
			for (uint32_t k = 0; k < bl->npreds; k++)
				in |= out[bl->preds[k]->id];
			x = p->slm_in[b] = in;
			for (const Inst *i = bl->first; i; i = i->next)
				x = slm_effect(i, x, &sync);
			if (x != out[b])
				out[b] = x, changed = true;
		}
	}
}

void px_slm_sync(Px *p, const Inst *i)
{
	bool sync;
	p->slm_pending = slm_effect(i, p->slm_pending, &sync);
	if (sync)
		px_ins(p, "bar.warp.sync %s", px_members(p));
}

bool px_mem(Px *p, Inst *i)
{
	switch (i->op) {
	case Obload: case Obstore: return block(p, i);
	case Ogather: case Oscatter: return px_slm_vector(p, i) || px_scattered(p, i);
	case Ogather4: case Oscatter4: return scatter4(p, i);
	case Omload: case Omstore: return media(p, i);
	case Oatomic: return atomic(p, i);
	case Otatomic: return tatomic(p, i);
	case Otload: case Otstore: return typed(p, i);
	default:
		return px_unsupported(p, i, arena_printf(p->arena, "'%s' (typed surfaces)",
		                                         ir_ops[i->op].name));
	}
}
