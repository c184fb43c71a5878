/* licm.c — loop-invariant code motion.
 *
 * requires: SSA.  changes: CFG (adds preheaders); leaves the constants it
 * copies, when their old users are gone, for dce.
 * A value computed in a loop from values defined outside it is the same
 * in every iteration; computed once in the loop's preheader it costs
 * nothing per iteration.  On the PTX back end this matters most for an
 * element of a vector defined before the loop (spmv's chunk bound ch(2) in
 * a loop test): each extract is a shuffle, and ptxas does not move the
 * shuffle and select sequences the back end emits out of a loop itself.
 *
 * Loops are the natural loops of back edges t -> h, h dominating t (h and
 * the blocks that reach t without passing h); back edges to one header
 * make one loop.  The preheader is the header's only predecessor outside
 * the loop, ending in a plain branch to it.  When there is none, one is
 * made right before the header in the layout (the back ends read loops
 * from the layout: a block after its loop that branches back to the
 * header would look like a latch), taking over the header's outside
 * edges, with a phi for a value that arrives on several.  A loop whose
 * header is the entry gets none and is left alone.
 *
 * An instruction moves to the end of the preheader when
 *   - it is pure and not a phi, constant or memory access, so nothing but
 *     its operands decides its value, and running it where the loop would
 *     not have (no iteration, a branch of the body not taken) is harmless:
 *     integer division by zero gives 0 (ir.h), runtime regions out of range
 *     read 0 and drop writes;
 *   - each operand is defined outside the loop, or is a constant (copied
 *     into the preheader: its other users keep the one in the loop);
 *   - a region with a runtime offset comes from a block that runs whenever
 *     the loop does (it dominates every exit): with -fbounds-check such a
 *     region reports going out of range, and a moved one must not report
 *     on a path that never ran it;
 *   - its value is cheap to keep live through the loop (cheap()), and the
 *     registers of what moves stay within a budget per loop (pick()): the
 *     back ends, ptxas above all, do not move values back into a loop
 *     when registers run out.
 * Loops are visited inner first, once each, their blocks in reverse
 * postorder, which reaches a fixpoint: a chain moves together, and a value
 * that is invariant in an outer loop too leaves the inner preheader (which
 * is in the outer loop) for the outer one.  Copies of one value brought
 * together in a preheader are merged by cse2, which runs next (scalar
 * element-wise values; extracts of one element stay two).
 */
#include <stdlib.h>
#include <string.h>

#include "opt/opt.h"

/* Vectors longer than this stay in the loop unless computing them there
 * costs a gather (cheap()): moved out, a value holds its registers
 * through the whole loop.  32 four-byte elements are one register per lane
 * in the PTX back end's canonical layout. */
#define KEEP_MAX 32

/* Registers (regs()) that the values moved out of one loop may add to
 * those live through it.  Moving every invariant extract out of k-means'
 * point loop (64 to 256 centroid elements) took the kernel from 40 to 128
 * registers, and from 64 to 255 with spills. */
#define LIVE_MAX 8

/* A loop whose phis (the values it carries from one iteration to the
 * next) hold this many registers or more moves nothing: its registers are
 * scarce already.  gemm's k loop carries 64 registers of accumulators per
 * lane or more; moving its row offsets out took sgemm_paper from 126 to
 * 128 registers. */
#define CARRIED_MAX 64

typedef struct {
	Block *head;
	Block *pre;           /* NULL: none (the header is the entry) */
	bool *in;             /* in[k]: layout block k is in the loop */
	Block **blk;          /* its blocks in reverse postorder */
	uint32_t n;
} Loop;

typedef struct {
	Func *f;
	Arena *ar;            /* the loops; freed with the pass */
	Loop *loops;          /* inner first */
	uint32_t nloops;
	uint32_t nids;        /* ids below this have the arrays below; the
	                         constants copied into preheaders do not */
	bool *inv;            /* by id: invariant in the loop being visited */
	uint32_t *reads;      /* by id: registers of a vector's invariant reads */
	bool *chosen;         /* by id: to move out of the loop being visited */
	uint32_t *left;       /* by id: uses of a chosen value not chosen */
	Inst **order;         /* the chosen, in the order they move */
} Licm;

/* Layout index of a block (set by find_loops in aux). */
static uint32_t index_of(const Block *b)
{
	return (uint32_t)(uintptr_t)b->aux;
}

static bool in_loop(const Loop *L, const Block *b)
{
	return L->in[index_of(b)];
}

static int nsucc(const Block *b)
{
	return b->jmp.kind == J_BR ? 1 : b->jmp.kind == J_CBR ? 2 : 0;
}

static bool reachable(const Block *b)
{
	return b->rpo != UINT32_MAX;
}

/* Adds to L the blocks that reach latch without passing L's header. */
static void add_body(Licm *c, Loop *L, Block *latch, Block **stack)
{
	uint32_t n = 0;
	if (!in_loop(L, latch)) {
		L->in[index_of(latch)] = true;
		stack[n++] = latch;
	}
	while (n) {
		Block *x = stack[--n];
		for (uint32_t p = 0; p < x->npreds; p++) {
			Block *y = x->preds[p];
			if (reachable(y) && !in_loop(L, y)) {
				L->in[index_of(y)] = true;
				stack[n++] = y;
			}
		}
	}
}

/* Smaller loops first (an inner loop is smaller than its outer one). */
static int loop_order(const void *a, const void *b)
{
	const Loop *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return index_of(x->head) < index_of(y->head) ? -1 : 1;
}

/* The loop of header h, if a back edge reaches it; NULL otherwise. */
static Loop *loop_at(Licm *c, Block *h, Block **stack)
{
	Loop *L = NULL;
	for (uint32_t p = 0; p < h->npreds; p++) {
		Block *t = h->preds[p];
		if (!reachable(t) || !ir_dominates(h, t))
			continue;
		if (!L) {
			L = &c->loops[c->nloops++];
			*L = (Loop){.head = h, .in = NEWN(c->ar, bool, c->f->nblocks)};
			L->in[index_of(h)] = true;
		}
		add_body(c, L, t, stack);
	}
	return L;
}

/* Fills L->blk from L->in, in reverse postorder (byrpo: the reachable
 * blocks by rpo number). */
static void list_blocks(Licm *c, Loop *L, Block **byrpo, uint32_t nrpo)
{
	L->blk = NEWN(c->ar, Block *, c->f->nblocks);
	for (uint32_t k = 0; k < nrpo; k++)
		if (in_loop(L, byrpo[k]))
			L->blk[L->n++] = byrpo[k];
}

/* Dominators, block indexes and the natural loops, inner first. */
static void find_loops(Licm *c)
{
	Func *f = c->f;
	ir_dominators(f);
	Block **byrpo = NEWN(c->ar, Block *, f->nblocks);
	uint32_t nrpo = 0;
	for (uint32_t k = 0; k < f->nblocks; k++) {
		Block *b = f->blocks[k];
		b->aux = (void *)(uintptr_t)k;
		if (reachable(b)) {
			byrpo[b->rpo] = b;
			nrpo++;
		}
	}
	Block **stack = NEWN(c->ar, Block *, f->nblocks);
	c->loops = NEWN(c->ar, Loop, f->nblocks);
	c->nloops = 0;
	for (uint32_t k = 0; k < f->nblocks; k++)
		if (reachable(f->blocks[k])) {
			Loop *L = loop_at(c, f->blocks[k], stack);
			if (L)
				list_blocks(c, L, byrpo, nrpo);
		}
	qsort(c->loops, c->nloops, sizeof(Loop), loop_order);
}

/* The distinct predecessors of L's header outside L, in pred order. */
static uint32_t outside_preds(const Loop *L, Block **out)
{
	uint32_t n = 0;
	for (uint32_t p = 0; p < L->head->npreds; p++) {
		Block *q = L->head->preds[p];
		bool seen = false;
		for (uint32_t k = 0; k < n; k++)
			seen |= out[k] == q;
		if (!seen && !in_loop(L, q))
			out[n++] = q;
	}
	return n;
}

static Block *preheader(Licm *c, const Loop *L)
{
	Block **o = NEWN(c->ar, Block *, L->head->npreds + 1);
	uint32_t n = outside_preds(L, o);
	return n == 1 && o[0]->jmp.kind == J_BR ? o[0] : NULL;
}

/* Header phi h's operands from outside L become one, from p: their common
 * value, or a new phi in p over them. */
static void split_phi(Licm *c, const Loop *L, Inst *h, Block *p)
{
	Arena *a = c->f->arena;
	uint32_t nout = 0;
	Inst *v = NULL;
	bool same = true;
	for (uint32_t k = 0; k < h->nops; k++)
		if (!in_loop(L, h->phiblk[k])) {
			same &= !v || h->ops[k] == v;
			v = h->ops[k];
			nout++;
		}
	if (!same) {
		IrBuilder B = {c->f, p, h->loc};
		Inst *q = irb_phi(&B, h->ty, nout);
		for (uint32_t k = 0, j = 0; k < h->nops; k++)
			if (!in_loop(L, h->phiblk[k])) {
				q->ops[j] = h->ops[k];
				q->phiblk[j++] = h->phiblk[k];
			}
		v = q;
	}
	Inst **ops = NEWN(a, Inst *, h->nops - nout + 1);
	Block **from = NEWN(a, Block *, h->nops - nout + 1);
	uint32_t n = 0;
	for (uint32_t k = 0; k < h->nops; k++) {
		bool out = !in_loop(L, h->phiblk[k]);
		if (out && v) {
			ops[n] = v;
			from[n++] = p;
			v = NULL;   /* the first outside operand's place */
		} else if (!out) {
			ops[n] = h->ops[k];
			from[n++] = h->phiblk[k];
		}
	}
	h->ops = ops;
	h->phiblk = from;
	h->nops = n;
}

/* A new preheader for L; false when L cannot have one. */
static bool make_preheader(Licm *c, const Loop *L)
{
	Func *f = c->f;
	Block **o = NEWN(c->ar, Block *, L->head->npreds + 1);
	uint32_t n = outside_preds(L, o);
	if (!n || L->head == f->blocks[0])
		return false;
	Block *p = ir_block_new_before(f, L->head);
	p->jmp.kind = J_BR;
	p->jmp.to[0] = L->head;
	p->jmp.loc = o[0]->jmp.loc;
	for (Inst *h = L->head->first; h && h->op == Ophi; h = h->next)
		split_phi(c, L, h, p);
	for (uint32_t k = 0; k < n; k++)
		for (int s = 0; s < nsucc(o[k]); s++)
			if (o[k]->jmp.to[s] == L->head)
				o[k]->jmp.to[s] = p;
	return true;
}

/* Finds the loops, giving one a preheader at a time (the analyses are
 * redone after each: the new block changes preds and dominators), then
 * records each loop's preheader.  true when the CFG changed. */
static bool prepare(Licm *c)
{
	bool made = false;
	for (bool again = true; again;) {
		again = false;
		find_loops(c);
		for (uint32_t k = 0; k < c->nloops && !again; k++)
			if (!preheader(c, &c->loops[k]))
				again = make_preheader(c, &c->loops[k]);
		made |= again;
	}
	for (uint32_t k = 0; k < c->nloops; k++)
		c->loops[k].pre = preheader(c, &c->loops[k]);
	return made;
}

/* Whether b runs whenever L does: it dominates every block leaving L. */
static bool always_runs(const Loop *L, const Block *b)
{
	for (uint32_t k = 0; k < L->n; k++) {
		const Block *x = L->blk[k];
		for (int s = 0; s < nsucc(x); s++)
			if (!in_loop(L, x->jmp.to[s]) && !ir_dominates(b, x))
				return false;
	}
	return true;
}

/* Values worth their registers through the loop: up to KEEP_MAX elements,
 * or any size when computing them is a gather from a vector (a runtime
 * region or iselect: shuffles and selects, or SLM loads, each iteration).
 * A constant region of a long vector is a rename on the PTX back end and
 * costs nothing where it is. */
static bool cheap(const Inst *i)
{
	if (i->ty.n <= KEEP_MAX)
		return true;
	return i->op == Oiselect || (i->op == Ordregion && i->has_roff);
}

/* 32-bit registers per lane that a value holds on the PTX back end (the
 * canonical layout: up to 32 elements per register). */
static uint32_t regs(IrType t)
{
	return (t.n + 31) / 32 * (ir_elem_bytes[t.elem] > 4 ? 2 : 1);
}

/* A read of elements of a vector: a shuffle or an SLM load per element
 * group on the PTX back end. */
static bool vector_read(const Inst *i)
{
	return (i->op == Ordregion || i->op == Oiselect) && i->ops[0]->ty.n > 1;
}

/* Whether i may move out of L, given the values already marked (mark:
 * c->inv in the first sweep, c->chosen in the second). */
static bool movable(const Licm *c, const bool *mark, const Loop *L, const Inst *i)
{
	unsigned fl = ir_ops[i->op].flags;
	if (!(fl & IRF_PURE) || (fl & (IRF_MEM | IRF_BARRIER | IRF_VOID)) || i->op == Ophi ||
	    i->op == Oconst || !cheap(i))
		return false;
	for (uint32_t k = 0; k < i->nops; k++) {
		const Inst *o = i->ops[k];
		if (o->op != Oconst && in_loop(L, o->block) && !mark[o->id])
			return false;
	}
	return !i->has_roff || always_runs(L, i->block);
}

/* Chooses i when the registers of the chosen values still used in the
 * loop (or after it) stay within LIVE_MAX: i's own, less those of
 * operands whose last remaining use it was.  c->left counts a chosen
 * value's uses by instructions not chosen. */
static bool choose(Licm *c, Inst *i, uint32_t *live, uint32_t budget)
{
	uint32_t v = *live;
	for (uint32_t k = 0; k < i->nops; k++) {
		const Inst *o = i->ops[k];
		if (o->op != Oconst && c->chosen[o->id] && --c->left[o->id] == 0)
			v -= regs(o->ty);
	}
	c->left[i->id] = i->nuse;
	if (i->nuse)
		v += regs(i->ty);
	if (v > budget) {
		for (uint32_t k = 0; k < i->nops; k++) {
			const Inst *o = i->ops[k];
			if (o->op != Oconst && c->chosen[o->id])
				c->left[o->id]++;
		}
		return false;
	}
	c->chosen[i->id] = true;
	*live = v;
	return true;
}

/* Constant k as an operand in L's preheader: a copy made once per
 * preheader (k->aux remembers it). */
static Inst *const_in_pre(Licm *c, const Loop *L, Inst *k)
{
	Inst *d = k->aux;
	if (d && d->block == L->pre)
		return d;
	Arena *a = c->f->arena;
	d = ir_inst_new(c->f, Oconst, k->ty, 0, k->loc);
	d->c.n = k->c.n;
	d->c.v = NEWN(a, IrScalar, k->c.n);
	memcpy(d->c.v, k->c.v, sizeof(IrScalar) * k->c.n);
	ir_append(L->pre, d);
	k->aux = d;
	return d;
}

static void hoist(Licm *c, const Loop *L, Inst *i)
{
	for (uint32_t k = 0; k < i->nops; k++)
		if (i->ops[k]->op == Oconst && in_loop(L, i->ops[k]->block))
			i->ops[k] = const_in_pre(c, L, i->ops[k]);
	ir_remove(i);
	ir_append(L->pre, i);
}

/* First sweep: every invariant of L (c->inv), and for each vector the
 * registers its invariant element reads in L would take (c->reads). */
static void mark_invariants(Licm *c, const Loop *L)
{
	for (uint32_t k = 0; k < L->n; k++)
		for (Inst *i = L->blk[k]->first; i; i = i->next)
			if (i->id < c->nids && movable(c, c->inv, L, i)) {
				c->inv[i->id] = true;
				if (vector_read(i))
					c->reads[i->ops[0]->id] += regs(i->ty);
			}
}

/* Second sweep: the invariants worth moving, within the register budget
 * (choose), into c->order.  The element reads of one vector move all
 * together or not at all: k-means reads 64 to 256 centroid elements in its
 * point loop, and moving some of them only adds registers; the back end
 * serves all of them better (from an SLM copy, or one shuffle each). */
static uint32_t pick(Licm *c, const Loop *L)
{
	uint32_t n = 0, live = 0, carried = 0;
	for (const Inst *h = L->head->first; h && h->op == Ophi; h = h->next)
		carried += regs(h->ty);
	uint32_t budget = carried < CARRIED_MAX ? LIVE_MAX : 0;
	for (uint32_t k = 0; k < L->n; k++)
		for (Inst *i = L->blk[k]->first; i; i = i->next)
			if (i->id < c->nids && c->inv[i->id] && movable(c, c->chosen, L, i) &&
			    (!vector_read(i) || c->reads[i->ops[0]->id] <= LIVE_MAX) &&
			    choose(c, i, &live, budget))
				c->order[n++] = i;
	return n;
}

/* Clears what a visit recorded about i (the next loop starts afresh). */
static void forget(Licm *c, const Inst *i)
{
	c->inv[i->id] = c->chosen[i->id] = false;
	if (vector_read(i))
		c->reads[i->ops[0]->id] = 0;
}

/* Moves L's invariants to its preheader; true when something moved.  In
 * reverse postorder every operand but a phi's is seen before its user,
 * so one sweep finds whole chains; then they move in that order. */
static bool visit(Licm *c, const Loop *L)
{
	mark_invariants(c, L);
	uint32_t n = pick(c, L);
	for (uint32_t k = 0; k < n; k++) {
		forget(c, c->order[k]);
		hoist(c, L, c->order[k]);
	}
	for (uint32_t k = 0; k < L->n; k++)   /* what stayed */
		for (Inst *i = L->blk[k]->first; i; i = i->next)
			if (i->id < c->nids)
				forget(c, i);
	return n > 0;
}

/* Loops inner first, each once: what an inner loop moves lands in the
 * outer loop's body, in time for the outer loop's visit, and moving values
 * out of an outer loop makes nothing new invariant in an inner one. */
bool opt_licm(Func *f)
{
	if (!f->nblocks)
		return false;
	Licm c = {.f = f, .ar = arena_new()};
	bool any = prepare(&c);
	ir_count_uses(f);
	uint32_t n = 0;
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i; i = i->next) {
			i->aux = NULL;
			n++;
		}
	c.nids = f->nextid;
	c.inv = NEWN(c.ar, bool, f->nextid);
	c.reads = NEWN(c.ar, uint32_t, f->nextid);
	c.chosen = NEWN(c.ar, bool, f->nextid);
	c.left = NEWN(c.ar, uint32_t, f->nextid);
	c.order = NEWN(c.ar, Inst *, n + 1);
	for (uint32_t k = 0; k < c.nloops; k++)
		if (c.loops[k].pre)
			any |= visit(&c, &c.loops[k]);
	arena_free(c.ar);
	return any;
}
