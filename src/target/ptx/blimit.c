/* blimit.c — the bounds limits of block accesses in loops, computed once
 * per kernel (for registers with elements in some lanes only).
 *
 * requires: the surface descriptors in %ss<k> (mem.c px_load_surfaces).
 * changes: writes into Px.entry, which emit.c places right after the
 * prologue, so every definition dominates every access.
 *
 * A block access of surface parameter k at the 32-bit offset o makes lane
 * l handle, in each of its registers, the element at byte x + delta, with
 * x = o + l * eb (delta: 32 s eb for slot s, or what a shifted layout or a
 * pair of loads, bpair.c, adds).  The element is inside iff x does not
 * wrap past 2^32 (x >= o) and x + delta + eb <= size, that is iff x < L
 * with
 *
 *     L = size + 1 - eb - delta,  clamped to [0, 2^32 - 1].
 *
 * L is uniform and depends on the surface, eb and delta only, so it is
 * computed here once, and the access checks each register with one
 * setp.lt.and (x < L and x >= o, joined with the lanes that hold
 * elements).  The one loss is the clamp: the last byte of a surface of
 * exactly 4 GB is out of reach of a byte access at offset 2^32 - 1, as
 * mem.c's limit32 has it.
 *
 * Used for registers that hold elements in some lanes only (a block of
 * fewer than 32 elements, a shifted layout, a pair): there the old form
 * (block_alone: a wrap guard of setp and selp per access, a lane-range
 * predicate and an and.pred per register) cost most; the paper's dgemm went
 * from 5.15 to 3.27 SASS per DFMA (with bpair.c), hgemm from 575 to 478 SASS
 * per mma (sm_90, tests/sass).  Full registers keep the old form: with it
 * everywhere the paper's sgemm needed 96 registers instead of 126, and
 * ptxas then issued each A broadcast (a shuffle) right before its four
 * FMAs instead of 16 or more instructions ahead (SASS), the schedule that an
 * H100 run measured 50% slower (mem.c no_wrap_limit); for a full register
 * the new form saves one instruction.  A per-lane limit register (one
 * compare, no wrap test) would save another but keeps a register per
 * limit live across the kernel: +8 registers in kmeans_assign,
 * bitonic_local, radix_pass.
 */
#include "target/ptx/ptx.h"

typedef struct PxLim {
	uint32_t surf;
	int eb;
	int64_t delta;
	const char *reg;
	struct PxLim *next;
} PxLim;

void px_entry_swap(Px *p)
{
	Buf t = p->body;
	p->body = p->entry;
	p->entry = t;
}

void px_size_limit(Px *p, const char *size, int eb, int64_t delta, const char *l)
{
	const char *t = px_tmp(p, RC_B64);
	px_ins(p, "add.s64 %s, %s, %lld", t, size, (long long)(1 - eb - delta));
	px_ins(p, "max.s64 %s, %s, 0", t, t);
	px_ins(p, "min.s64 %s, %s, 4294967295", t, t);
	px_ins(p, "cvt.u32.u64 %s, %s", l, t);
}

const char *px_surf_limit(Px *p, uint32_t surf, int eb, int64_t delta)
{
	for (PxLim *l = p->lims; l; l = l->next)
		if (l->surf == surf && l->eb == eb && l->delta == delta)
			return l->reg;
	PxLim *l = NEW(p->arena, PxLim);
	*l = (PxLim){surf, eb, delta, px_tmp(p, RC_B32), p->lims};
	p->lims = l;
	px_entry_swap(p);
	px_size_limit(p, arena_printf(p->arena, "%%ss%u", surf), eb, delta, l->reg);
	px_entry_swap(p);
	return l->reg;
}
