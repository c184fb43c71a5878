/* early.c — block reads issued early: a read of a surface moves up, out of
 * its block and over code that cannot change what it reads, so that its
 * memory latency overlaps that code.
 *
 * requires: SSA.  preserves: CFG.
 *
 * ptxas (and a C compiler) schedule loads early within a basic block, but
 * not across branches and loops.  K-means' point loop reads a block of
 * points, finds their nearest centroids in a loop over the centroids, then
 * reads the points' old memberships: on an H100 the warp then waits for
 * that second read with nothing left to overlap it (38% of the assign
 * kernel's stall samples sat on the two compares that consume it; ncu,
 * 2026-11-27).  Moved up beside the points' reads, both reads' latencies
 * are paid once.
 *
 * A read R (Obload of a surface) in block X moves to the end of a block D
 * when:
 *   - D is an immediate dominator of X, or of a block it moved to already,
 *     and D and the blocks between them form a single-entry single-exit
 *     region: every edge out of D or a block between them goes to a block
 *     between them or to X, every edge into a block between them or into X
 *     comes from D or a block between them, and none returns.  So R runs
 *     exactly when it did, once per run of the region (no loop's header is
 *     crossed from inside), unless the region never ends;
 *   - R's operands are defined in D or in blocks that dominate D;
 *   - nothing between R's new and old places may write what R reads or
 *     order memory: no barrier, fence, wait or signal; no store or atomic
 *     of global memory (surfaces, SVM), except a block write of R's own
 *     surface whose bytes are disjoint from R's (both offsets the same
 *     root * scale plus different constants, ir_affine).  SLM writes cannot
 *     touch a surface.
 * A read stops below another read of global memory (issued together, the
 * two wait once anyway), and every move must cross a loop, a branch, or a
 * straight stretch of more than MIN_CROSS instructions other than
 * constants: within a shorter one ptxas schedules loads early itself (so
 * gemm's B rows, each read right before the FMAs that use it, stay:
 * moved above the previous k's FMAs, dgemm went from 126 registers and
 * 3.27 SASS per FMA to 128 and 4.53).  R keeps its result
 * live across what it crossed, so only reads of at most MAX_BYTES move
 * (one 32-bit register per lane in the PTX back end's canonical layout:
 * k-means' assign kernel holds 40 registers, and at 48 it loses a sixth
 * of its warps).
 *
 * With -fbounds-check a moved read may report its fault before another
 * access's that used to come first: both devices run the same moved code,
 * so they agree. */
#include "opt/opt.h"

#define MIN_CROSS 256
#define MAX_BYTES 128
#define MAX_TRIES 8	/* dominators tried above a region that failed */

static bool candidate(const Inst *i)
{
	return i->op == Obload && i->space == SP_SURF && !i->has_mask &&
	       (uint64_t)i->ty.n * ir_elem_bytes[i->ty.elem] <= MAX_BYTES;
}

/* The chain: r and the instructions of its block before it that it
 * depends on (its address arithmetic), which move with it. */
#define CHAIN_MAX 16
typedef struct {
	Inst *i[CHAIN_MAX];
	uint32_t n;
} Chain;

static bool in_chain(const Chain *c, const Inst *v)
{
	for (uint32_t k = 0; k < c->n; k++)
		if (c->i[k] == v)
			return true;
	return false;
}

/* Fills c with r's chain in block order; false when an instruction r
 * depends on in its block cannot move (a phi, memory, not pure). */
static bool chain_of(Inst *r, Chain *c)
{
	c->n = 0;
	c->i[c->n++] = r;
	for (Inst *i = r->prev; i; i = i->prev) {
		bool needed = false;
		for (uint32_t k = 0; k < c->n && !needed; k++)
			for (uint32_t o = 0; o < c->i[k]->nops; o++)
				needed |= c->i[k]->ops[o] == i;
		if (!needed)
			continue;
		if (i->op == Ophi || !(ir_ops[i->op].flags & IRF_PURE) ||
		    (ir_ops[i->op].flags & IRF_MEM) || c->n == CHAIN_MAX)
			return false;
		c->i[c->n++] = i;
	}
	/* block order: r last */
	for (uint32_t a = 0, b = c->n - 1; a < b; a++, b--) {
		Inst *t = c->i[a];
		c->i[a] = c->i[b], c->i[b] = t;
	}
	return true;
}

/* Whether the chain's operands from outside it are available at the end
 * of d (defined in d or in a block dominating d), and, with past, whether
 * none of them is defined in d (so the chain may go on above d). */
static bool operands_at(const Chain *c, const Block *d, bool past)
{
	for (uint32_t k = 0; k < c->n; k++)
		for (uint32_t o = 0; o < c->i[k]->nops; o++) {
			const Inst *v = c->i[k]->ops[o];
			if (!v || in_chain(c, v))
				continue;
			if (past ? v->block == d || !ir_dominates(v->block, d)
			         : v->block != d && !ir_dominates(v->block, d))
				return false;
		}
	return true;
}

/* The instructions of the chain's block before r, less the chain: none
 * may touch what r reads.  Their count goes to *n. */
static bool free_above(const Chain *c, uint32_t *n)
{
	const Inst *r = c->i[c->n - 1];
	for (const Inst *i = r->block->first; i != r; i = i->next) {
		if (in_chain(c, i))
			continue;
		if (ir_may_touch(i, r) || ir_global_read(i))
			return false;
		*n += i->op != Oconst;
	}
	return true;
}

/* Whether b is between d and x: dominated by d but not d, and not
 * dominated by x (the checks of edges_ok and preds_ok then make these
 * blocks the paths from d to x). */
static bool between(const Block *b, const Block *d, const Block *x)
{
	return b != d && b->idom && ir_dominates(d, b) && !ir_dominates(x, b);
}

static bool edges_ok(const Block *b, const Block *d, const Block *x)
{
	if (b->jmp.kind == J_RET)
		return false;
	int n = b->jmp.kind == J_CBR ? 2 : b->jmp.kind == J_BR ? 1 : 0;
	for (int k = 0; k < n; k++) {
		const Block *t = b->jmp.to[k];
		if (t != x && !between(t, d, x))
			return false;
	}
	return true;
}

static bool preds_ok(const Block *b, const Block *d, const Block *x)
{
	for (uint32_t k = 0; k < b->npreds; k++)
		if (b->preds[k] != d && !between(b->preds[k], d, x))
			return false;
	return true;
}

/* Whether the chain (in x, free above) may move to the end of d = x's
 * idom, and what that crosses: *n instructions, *branch when d or a block
 * between them branches (a loop or a choice). */
static bool region_ok(Func *f, const Chain *c, Block *d, Block *x, uint32_t *n, bool *branch)
{
	const Inst *r = c->i[c->n - 1];
	if (!edges_ok(d, d, x) || !preds_ok(x, d, x) || !operands_at(c, d, false))
		return false;
	if (d->jmp.kind == J_CBR)
		*branch = true;
	for (uint32_t k = 0; k < f->nblocks; k++) {
		Block *b = f->blocks[k];
		if (!between(b, d, x))
			continue;
		if (!edges_ok(b, d, x) || !preds_ok(b, d, x))
			return false;
		if (b->jmp.kind == J_CBR)
			*branch = true;
		for (const Inst *i = b->first; i; i = i->next) {
			if (ir_may_touch(i, r) || ir_global_read(i))
				return false;
			*n += i->op != Oconst;
		}
	}
	return true;
}

/* Moves r, with its chain, as far up its dominator tree as it may go;
 * true if it moved. */
static bool hoist(Func *f, Inst *r)
{
	Chain c;
	uint32_t n = 0;
	bool branch = false;
	if (!chain_of(r, &c) || !free_above(&c, &n))
		return false;
	Block *x = r->block, *to = NULL;
	uint32_t at_n = 0;
	bool at_branch = false;
	/* d climbs x's dominators; a d that is no region's entry (a loop's
	 * header, the loop below it) is tried again with its own idom, the
	 * region then taking d in */
	uint32_t tries = 0;
	for (Block *d = x->idom; d && d != x && tries < MAX_TRIES; d = d->idom, tries++) {
		uint32_t rn = n;
		bool rb = branch;
		if (!region_ok(f, &c, d, x, &rn, &rb)) {
			if (d->idom == d)
				break;
			continue;
		}
		n = rn, branch = rb;
		to = d, at_n = n, at_branch = branch;
		if (d->idom == d || !operands_at(&c, d, true))
			break;
		/* going on above d crosses what d holds */
		bool stop = false;
		for (const Inst *i = d->first; i && !stop; i = i->next) {
			stop = ir_may_touch(i, r) || ir_global_read(i);
			n += i->op != Oconst;
		}
		if (stop)
			break;
		x = d, tries = 0;
	}
	if (!to || (!at_branch && at_n <= MIN_CROSS))
		return false;
	for (uint32_t k = 0; k < c.n; k++) {
		ir_remove(c.i[k]);
		ir_append(to, c.i[k]);
	}
	return true;
}

bool opt_early(Func *f)
{
	ir_preds(f);
	ir_dominators(f);
	bool changed = false;
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first, *next; i; i = next) {
			next = i->next;
			if (candidate(i) && i->block == f->blocks[b] && hoist(f, i))
				changed = true;
		}
	return changed;
}
