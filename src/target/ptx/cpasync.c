/* cpasync.c — cm_slm_copy_async, cm_slm_copy_commit and cm_slm_copy_wait
 * (a cmetal extension; ir.h Oslmcopy, Oslmcommit, Oslmwait) as cp.async.
 *
 * requires: the offsets in the canonical layout (assign.c's default for
 * an operand: element k in lane k % 32, slot k / 32), surface descriptors
 * loaded at the kernel's entry (mem.c px_load_surfaces).
 *
 * Element k of a copy of E-byte elements (E = 16, 8 or 4: Oslmcopy's imm)
 * is lane k % 32's cp.async of E bytes in slot k / 32: .cg (the L2 only)
 * for 16, .ca for 8 and 4, the sizes .cg does not take.  Its source size
 * is the bytes of the buffer left from the offset, 0 to E: cp.async fills
 * the rest of the E with zeros, which is CM's rule for a read past the
 * end, and reads nothing past it.  An element whose E SLM bytes are not
 * all inside the kernel's SLM is not copied; where the value range of the
 * SLM offset (range.c) keeps every element inside, that test is left out.
 * Lanes past the last element do nothing.  A copy whose elements all lie
 * in whole E-byte units of the buffer (one uniform vote, against a limit
 * computed once per kernel)
 * copies without source sizes (copy_whole), the exact copy out of line.
 * The copies write SLM through the generic proxy, like stores:
 * cm_barrier's fence.proxy.async in a kernel with cm_wgmma (warp.c) makes
 * them visible to the wgmmas after it, once cp.async.wait_group has
 * finished them.
 */
#include "rt/cuda_abi.h"
#include "target/ptx/ptx.h"

/* The copy's element size in bytes, E (ir.h Oslmcopy), and its log2. */
static uint32_t ebytes(const Inst *i) { return (uint32_t)i->imm; }
static int elog(const Inst *i) { return i->imm == 16 ? 4 : i->imm == 8 ? 3 : 2; }

/* Whether the SLM offset's value range keeps all elements of i inside. */
static bool dst_inside(const Px *p, const Inst *i)
{
	uint64_t u = p->val[i->ops[1]->id].umax, size = p->f->slm_size;
	uint64_t bytes = (uint64_t)ebytes(i) * i->ops[2]->ty.n;
	return u != UINT64_MAX && size >= bytes && u <= size - bytes;
}

/* The SLM offset of this lane's element in slot 0, rounded down (b32),
 * and in *ok (NULL when the value range keeps them inside) a uniform
 * predicate: that offset is at most the SLM's size less E, so the
 * per-slot tests (dst_ok) cannot wrap. */
static const char *dst_lane(Px *p, const Inst *i, const char **ok)
{
	const char *s = px_tmp(p, RC_B32), *d = px_tmp(p, RC_B32);
	uint32_t size = p->f->slm_size, e = ebytes(i);
	px_ins(p, "and.b32 %s, %s, -%u", s, px_reg(p, i->ops[1], 0), e);
	px_ins(p, "mad.lo.u32 %s, %%lane, %u, %s", d, e, s);
	*ok = NULL;
	if (dst_inside(p, i))
		return d;
	*ok = px_tmp(p, RC_PRED);
	if (size < e)
		px_ins(p, "setp.ne.u32 %s, 0, 0", *ok);
	else
		px_ins(p, "setp.le.u32 %s, %s, %u", *ok, s, size - e);
	return d;
}

/* The predicate "slot r's element of this lane is inside the SLM" from
 * dst_lane's d and ok (NULL: inside), for elements of e bytes. */
static const char *dst_ok(Px *p, uint32_t e, const char *d, const char *ok, uint32_t r)
{
	if (!ok)
		return NULL;
	uint32_t size = p->f->slm_size, at = 32 * e * r;
	const char *q = px_tmp(p, RC_PRED);
	if (size < e + at)
		px_ins(p, "setp.ne.u32 %s, 0, 0", q);
	else
		px_ins(p, "setp.le.and.u32 %s, %s, %u, %s", q, d, size - e - at, ok);
	return q;
}

/* The buffer's size (b64) as its whole units of 2^lg bytes, clamped to
 * 2^32 - 1 (b32: a u32 offset's unit index is below 2^30), and the bytes
 * of the last, partial one into *tail (b32). */
static const char *units(Px *p, int lg, const char *size, const char **tail)
{
	const char *t = px_tmp(p, RC_B64), *q = px_tmp(p, RC_B32);
	*tail = px_tmp(p, RC_B32);
	px_ins(p, "shr.u64 %s, %s, %d", t, size, lg);
	px_ins(p, "min.u64 %s, %s, 4294967295", t, t);
	px_ins(p, "cvt.u32.u64 %s, %s", q, t);
	px_ins(p, "cvt.u32.u64 %s, %s", *tail, size);
	px_ins(p, "and.b32 %s, %s, %d", *tail, *tail, (1 << lg) - 1);
	return q;
}

/* Register of slot r of the copy's offsets (a scalar: the same in all). */
static const char *offset(Px *p, Inst *i, uint32_t r)
{
	const Inst *offs = i->ops[2];
	return offs->ty.n == 1 ? px_reg(p, offs, 0) :
	       px_reg_in(p, offs, px_read_layout(p, i, 2), r);
}

/* Slot r of the copy: this lane's source address and source size into
 * *src and *sz: unit u = off / E of the buffer has E bytes below q (its
 * whole units), tail bytes at q, none past it (units). */
static void source(Px *p, Inst *i, uint32_t r, const char *base, const char *q,
                   const char *tail, const char **src, const char **sz)
{
	const char *o = offset(p, i, r);
	const char *oe = px_tmp(p, RC_B32), *u = px_tmp(p, RC_B32);
	const char *full = px_tmp(p, RC_PRED), *part = px_tmp(p, RC_PRED);
	*src = px_tmp(p, RC_B64);
	*sz = px_tmp(p, RC_B32);
	px_ins(p, "and.b32 %s, %s, -%u", oe, o, ebytes(i));
	px_ins(p, "shr.u32 %s, %s, %d", u, o, elog(i));
	px_ins(p, "setp.lt.u32 %s, %s, %s", full, u, q);
	px_ins(p, "setp.eq.u32 %s, %s, %s", part, u, q);
	px_ins(p, "selp.b32 %s, %s, 0, %s", *sz, tail, part);
	px_ins(p, "selp.b32 %s, %u, %s, %s", *sz, ebytes(i), *sz, full);
	px_ins(p, "mad.wide.u32 %s, %s, 1, %s", *src, oe, base);
}

/* In the checking mode, adds the lanes of a slot whose element reads past
 * the buffer (sz < e) or is dropped (dok false) to *fails. */
static void check_slot(Px *p, uint32_t e, const char *sz, const char *dok, const char *act,
                       const char **fails)
{
	if (!px_checking(p))
		return;
	const char *ok = px_tmp(p, RC_PRED);
	px_ins(p, "setp.eq.u32 %s, %s, %u", ok, sz, e);
	if (dok)
		px_ins(p, "and.pred %s, %s, %s", ok, ok, dok);
	px_fault_lane(p, fails, ok, act);
}

/* The predicate "lanes below n in slot r" (NULL: all of them) and'ed
 * with the slot's SLM test dok (NULL: inside). */
static const char *slot_on(Px *p, uint32_t n, uint32_t r, const char *dok, const char **act)
{
	*act = NULL;
	if (n - 32 * r >= 32)
		return dok;
	*act = px_lane_lt(p, n - 32 * r);
	if (!dok)
		return *act;
	const char *t = px_tmp(p, RC_PRED);
	px_ins(p, "and.pred %s, %s, %s", t, dok, *act);
	return t;
}

/* The cp.async of e bytes of slot r under predicate on (NULL: always),
 * with source size sz (NULL: all e bytes). */
static void cp_async(Px *p, uint32_t e, const char *on, const char *slm, uint32_t r,
                     const char *src, const char *sz)
{
	px_ins(p, "%s%s%scp.async.%s.shared.global [%s+%u], [%s], %u%s%s", on ? "@" : "",
	       on ? on : "", on ? " " : "", e == 16 ? "cg" : "ca", slm, 32 * e * r, src, e,
	       sz ? ", " : "", sz ? sz : "");
}

/* The copy, each element's source size computed (source). */
static void copy_exact(Px *p, Inst *i, const char *base, const char *size, const char *d,
                       const char *dok0, const char *slm)
{
	uint32_t n = i->ops[2]->ty.n;
	uint32_t e = ebytes(i);
	const char *fails = NULL, *tail, *q = units(p, elog(i), size, &tail);
	for (uint32_t r = 0; r < (n + 31) / 32; r++) {
		const char *src, *sz, *dok = dst_ok(p, e, d, dok0, r), *act;
		source(p, i, r, base, q, tail, &src, &sz);
		const char *on = slot_on(p, n, r, dok, &act);
		check_slot(p, e, sz, dok, act, &fails);
		cp_async(p, e, on, slm, r, src, sz);
	}
	px_fault_end(p, fails, CUDA_FAULT_SLMCOPY, i);
}

/* The limit L of whole elements' offsets, uniform: an element at offset
 * o has its E bytes inside the buffer when o < L = size - E + 1 (clamped
 * to 0 .. 2^32 - 1; o rounded down to E then ends at or below the size).
 * For a surface parameter computed once, at the kernel's entry
 * (blimit.c), else here. */
static const char *whole_limit(Px *p, Inst *i, const char *size)
{
	int k = px_surface_index(p, i->ops[0]);
	if (k >= 0)
		return px_surf_limit(p, (uint32_t)k, (int)ebytes(i), 0);
	const char *l = px_tmp(p, RC_B32);
	px_size_limit(p, size, (int)ebytes(i), 0, l);
	return l;
}

/* The uniform predicate "every element of the copy has its E bytes
 * inside the buffer" (whole_limit), over the lanes that copy, voted over
 * the CM thread. */
static const char *all_whole(Px *p, Inst *i, const char *size)
{
	uint32_t n = i->ops[2]->ty.n;
	const char *lim = whole_limit(p, i, size);
	const char *all = px_tmp(p, RC_PRED), *in = px_tmp(p, RC_PRED);
	for (uint32_t r = 0; r < (n + 31) / 32; r++) {
		const char *o = offset(p, i, r);
		if (n - 32 * r < 32)   /* lanes past the last element pass */
			px_ins(p, "setp.lt.or.u32 %s, %s, %s, %s", in, o, lim,
			       px_lane_ge(p, n - 32 * r));
		else
			px_ins(p, "setp.lt.u32 %s, %s, %s", in, o, lim);
		if (r)
			px_ins(p, "and.pred %s, %s, %s", all, all, in);
		else
			px_ins(p, "mov.pred %s, %s", all, in);
	}
	px_vote(p, false, all, all);
	return all;
}

/* The copy when every element is whole (all_whole): E bytes each, no
 * source size. */
static void copy_whole(Px *p, Inst *i, const char *base, const char *d, const char *dok0,
                       const char *slm)
{
	uint32_t n = i->ops[2]->ty.n, e = ebytes(i);
	for (uint32_t r = 0; r < (n + 31) / 32; r++) {
		const char *oe = px_tmp(p, RC_B32), *src = px_tmp(p, RC_B64), *act;
		const char *on = slot_on(p, n, r, dst_ok(p, e, d, dok0, r), &act);
		px_ins(p, "and.b32 %s, %s, -%u", oe, offset(p, i, r), e);
		px_ins(p, "mad.wide.u32 %s, %s, 1, %s", src, oe, base);
		cp_async(p, e, on, slm, r, src, NULL);
	}
}

/* Oslmcopy: a cp.async of E bytes a lane and slot.  A copy whose
 * elements are all whole (the common case: tiles inside their matrices)
 * takes copy_whole after one uniform test, the exact copy out of line;
 * each element's source size costs about ten SASS (hgemm_wgs2's copier
 * warps, which issue the copies of a CTA, were bound by them: ~17 SASS a
 * cp.async).  The checking mode always takes the exact copy, which
 * reports each element that reads past the buffer. */
static bool copy(Px *p, Inst *i)
{
	uint32_t n = i->ops[2]->ty.n;
	const char *base, *size, *dok0;
	px_surface(p, i, i->ops[0], &base, &size);
	px_comment(p, "cm_slm_copy_async: %u x %u bytes, element k in lane k %% 32", n,
	           ebytes(i));
	const char *d = dst_lane(p, i, &dok0), *slm = px_tmp(p, RC_B32);
	px_ins(p, "mov.u32 %s, %s", slm, px_slm_base(p));
	px_ins(p, "add.u32 %s, %s, %s", slm, slm, d);
	if (px_checking(p)) {
		copy_exact(p, i, base, size, d, dok0, slm);
		return true;
	}
	const char *all = all_whole(p, i, size), *exact = px_label(p), *done = px_label(p);
	px_ins(p, "@!%s bra%s %s", all, px_uni(p), exact);
	copy_whole(p, i, base, d, dok0, slm);
	buf_printf(&p->body, "%s:\n", done);
	px_cold_begin(p, exact);
	copy_exact(p, i, base, size, d, dok0, slm);
	px_cold_end(p, done);
	return true;
}

bool px_slm_copy(Px *p, Inst *i)
{
	switch (i->op) {
	case Oslmcopy: return copy(p, i);
	case Oslmcommit: px_ins(p, "cp.async.commit_group"); return true;
	case Oslmwait: px_ins(p, "cp.async.wait_group %d", (int)i->imm); return true;
	default: return false;
	}
}
