/* mgroup.c — groups of 2D media accesses of one surface at one runtime
 * position plus constants, tested once.
 *
 * requires: nothing but the IR (ir_affine, bgroup.c).
 * changes: fills PxVal.mlead (members and leaders) and .mg (leaders).
 *
 * A media block of several registers tests, uniformly, whether it lies
 * wholly inside its surface and then reads or writes without clamps
 * (mem.c media): eleven instructions and a branch each.  A kernel that
 * reads a tile as several blocks, or the same rows at byte offsets -4, 0
 * and +4 (bench/cm/linear.cm's linear_words: 18 blocks a tile), pays that
 * per block.  Decomposed, each block's x and y are xr * xs + cx and
 * yr * ys + cy for one root value and scale each (ir_affine); the media
 * accesses of a basic block with the same surface and the same roots and
 * scales form a group whose first member (the leader) tests once whether
 * the box that holds every member's block is inside.  When every member
 * is a read and nothing between the leader and the last member writes
 * memory or orders it, the leader makes all the reads (PxMGroup.hoist): one
 * branch to the fast reads of every member, or to the exact reads of
 * every member out of line, so ptxas sees one reconvergence region, not
 * one per block (their per-block address arithmetic could not be shared
 * across them).  Otherwise each member branches on the test to its fast
 * path or to its own exact path (exact for any block, inside or not).
 * Offsets wrap modulo 2^32 as the members' own do: the test is of the
 * box's corner X + min cx, computed the same way, and a box inside the
 * surface has no member past 2^31.
 */
#include <string.h>

#include "target/ptx/ptx.h"

/* The largest side of a group's box, in bytes and in rows. */
#define BOX_MAX 4096

/* Columns of media access i's block (ir.h mload / mstore). */
static uint32_t cols_of(const Inst *i)
{
	const Inst *val = i->op == Omstore ? i->ops[3] : i;
	return i->imm > 0 ? (uint32_t)i->imm : val->ty.n;
}

/* A media access that can take mem.c's fast path: at most 64 registers of
 * a surface.  A block of one register alone takes the exact path (the
 * test would cost what it saves), but in a group it shares the test: a
 * GEMM's tiles of 8 x 4 doubles, four A and four B tiles a k step. */
static bool groupable(const Inst *i)
{
	if ((i->op != Omload && i->op != Omstore) || i->space != SP_SURF)
		return false;
	const Inst *val = i->op == Omstore ? i->ops[3] : i;
	uint32_t n = SLOTS(val->ty.n);
	return val->ty.n >= 2 && n <= 64;
}

/* The box of access i relative to its roots: bytes [x0, x1), rows [y0, y1). */
static void box_of(const Inst *i, int64_t cx, int64_t cy, int64_t *b)
{
	const Inst *val = i->op == Omstore ? i->ops[3] : i;
	uint32_t cols = cols_of(i), rows = (val->ty.n + cols - 1) / cols;
	b[0] = cx, b[1] = cx + (int64_t)cols * ir_elem_bytes[val->ty.elem];
	b[2] = cy, b[3] = cy + rows;
}

/* Forms the group led by i among the media accesses after it in its block. */
static void group_from(Px *p, Inst *i)
{
	PxMGroup g = {0};
	int64_t cx, cy, b[4];
	ir_affine(i->ops[1], &g.xr, &g.xs, &cx);
	ir_affine(i->ops[2], &g.yr, &g.ys, &cy);
	box_of(i, cx, cy, b);
	g.x0 = b[0], g.x1 = b[1], g.y0 = b[2], g.y1 = b[3];
	Inst *tmp[256];
	uint32_t n = 0;
	tmp[n++] = i;
	for (Inst *j = i->next; j && n < 256; j = j->next) {
		const Inst *xr, *yr;
		uint32_t xs, ys;
		if (!groupable(j) || j->ops[0] != i->ops[0] || p->val[j->id].mlead)
			continue;
		ir_affine(j->ops[1], &xr, &xs, &cx);
		ir_affine(j->ops[2], &yr, &ys, &cy);
		if (xr != g.xr || xs != g.xs || yr != g.yr || ys != g.ys)
			continue;
		box_of(j, cx, cy, b);
		int64_t x0 = b[0] < g.x0 ? b[0] : g.x0, x1 = b[1] > g.x1 ? b[1] : g.x1;
		int64_t y0 = b[2] < g.y0 ? b[2] : g.y0, y1 = b[3] > g.y1 ? b[3] : g.y1;
		if (x1 - x0 > BOX_MAX || y1 - y0 > BOX_MAX)
			continue;
		g.x0 = x0, g.x1 = x1, g.y0 = y0, g.y1 = y1;
		p->val[j->id].mlead = i;
		tmp[n++] = j;
	}
	if (n < 2)	/* alone: the access tests itself */
		return;
	p->val[i->id].mlead = i;
	g.n = n;
	g.m = NEWN(p->arena, Inst *, n);
	memcpy(g.m, tmp, n * sizeof *tmp);
	g.hoist = true;
	for (uint32_t k = 0; k < n; k++)
		if (tmp[k]->op != Omload)
			g.hoist = false;
	for (Inst *j = i; g.hoist && j != tmp[n - 1]; j = j->next)
		if (ir_writes_memory(j))
			g.hoist = false;
	p->val[i->id].mg = NEW(p->arena, PxMGroup);
	*p->val[i->id].mg = g;
}

void px_media_groups(Px *p)
{
	if (p->o->ptx_canonical || px_checking(p))
		return;
	for (uint32_t b = 0; b < p->f->nblocks; b++)
		for (Inst *i = p->f->blocks[b]->first; i; i = i->next)
			if (groupable(i) && !p->val[i->id].mlead)
				group_from(p, i);
}

/* The fewest members of a span.  A span pays where many accesses would
 * each lay an exact path beside their fast one: hgemm_wgs2's epilogue of
 * 128, 2.22 -> 1.89 ms on an H200 (bench/runs/2026-11-28-session24/call4).
 * Smaller groups gain little and their straight line changes how ptxas
 * allocates the rest of the kernel: dgemm_dpas's spans of 8 and 24 made
 * its k loop 114 -> 118 SASS and the kernel 5.97 -> 6.80 ms (call5). */
#define SPAN_MIN 32

/* Whether the instructions from a group's leader to its last member may
 * be emitted twice (emit.c emit_span): besides the group's members only
 * element-wise arithmetic, constant regions, constants and bitcasts, whose
 * emission keeps no state, with no SLM copy of a value (slm.c), no pair
 * or wide load (bpair.c, bwide.c) among them.  Asked at emission, after
 * those passes; sets the group's span. */
bool px_mgroup_span(Px *p, const Inst *leader)
{
	PxMGroup *g = p->val[leader->id].mg;
	if (g->hoist || g->n < SPAN_MIN || p->o->no_media_spans)
		return false;
	for (const Inst *j = leader;; j = j->next) {
		const PxVal *v = &p->val[j->id];
		bool media = j->op == Omload || j->op == Omstore;
		bool pure = ((ir_ops[j->op].flags & IRF_ELEMWISE) &&
		             !(ir_ops[j->op].flags & IRF_MEM)) ||
		            ((j->op == Ordregion || j->op == Owrregion) && !ir_roff(j)) ||
		            j->op == Oconst || j->op == Obitcast;
		if ((media && v->mlead != leader) || (!media && !pure) || v->store_before ||
		    v->in_slm || v->wide || (j->op == Owrregion && v->pair))
			return false;
		for (uint32_t k = 0; k < j->nops; k++)
			if (j->ops[k] && p->val[j->ops[k]->id].in_slm)
				return false;
		if (j == g->m[g->n - 1])
			return g->span = true;
	}
}
