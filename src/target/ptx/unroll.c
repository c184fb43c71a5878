/* unroll.c — small loops that read global memory run U iterations a trip
 * (U = 2, 4 or 8) while U remain, their reads issued first; the loop as it
 * was runs the rest.
 *
 * requires: SSA; runs first in emit_kernel (before ir_renumber, ir_preds).
 * changes: the CFG (two blocks a loop) and the instruction lists; ptxas
 * sees the copies as one basic block.
 *
 * A GPU issues in order: a warp that reaches the use of a load waits for
 * it, and issues nothing of the next iteration meanwhile.  In a loop like
 * the paper scan's reduce (`for (i = start; i < end; i += 32) { read(data,
 * i * 4, v); acc += v; }`) each warp has one 128-byte read in flight, and
 * with a fixed chunk per CM thread (2,048 warps at 2^24: about 16 an SM)
 * the memory system sits mostly idle.  ptxas schedules loads early within
 * a basic block, but neither unrolls such a loop (its trip count is not
 * known) nor moves a load over a loop's back edge.  NVVM unrolls them, so
 * CUDA C's loops keep several loads in flight; this pass does the same for
 * CM's.
 *
 * The loop: header H (phis, then pure instructions, then a branch on
 * `x < bound` or `x <= bound`, either way round) and one body block B that
 * jumps back to H, entered from one block P.  x is an induction variable
 * iv (a phi of H stepped by a positive constant s on the back edge) plus a
 * constant, in 32-bit integers (ir_affine, mod 2^32); bound is defined
 * outside.  The iterations from x0 on all continue when x0 + (U-1)s still
 * compares below bound without wrapping, that is when x0 < bound - (U-1)s
 * (for <=: x0 <= bound - (U-1)s, tested as x0 < bound - (U-1)s + 1, which
 * cannot overflow), with the bound computed once in P and made the type's
 * minimum, a test that fails, when it would wrap below it.  So:
 *
 *     P: ... b' = bound >= MIN + K ? bound - K (+ 1 for <=) : MIN   (K = (U-1)s)
 *     UH: phis (P: entry values; UB: the values after U iterations)
 *         H's instructions; cbr x < b', UB, H
 *     UB: B, H, B, ..., H, B   (U copies of B, each following a copy of H;
 *         copy k's induction value is UH's phi + k s)
 *     H:  its phis take UH's values from P's side; the loop as it was
 *
 * UH's test has the form loop versioning (vloop.c) recognizes, so UB runs
 * without bounds checks when the test before it finds every access inside.
 *
 * In UB, each copy's global reads move above the instructions before them
 * with the pure instructions that compute their operands, unless a store,
 * atomic or barrier before them may touch what they read (two block
 * accesses of one surface at offsets root * scale + constant whose bytes
 * are disjoint do not: the scan's in-place `read(data, i*4)` ... `write(data,
 * i*4)` loop).  ptxas then sees U loads ahead of their uses.
 *
 * Which loops: innermost, B one block (a chain of blocks, the seams of
 * inlined calls, is merged first) holding at least one global read whose
 * value the iteration uses (a loop whose reads only move into the values
 * its phis carry is pipelined already: dgemm_dpas' double buffer), no
 * global atomic (reads could not move above it; SLM atomics, radix_hist's
 * counts, are fine), no barrier and no dpas (loops bound by other
 * things), and small: U = 8 when the reads of an iteration are at most
 * TINY bytes (one register a lane), 4 when at most SMALL (2), 2 when at
 * most LARGE (4), and U times the instructions of H and B at most
 * MAX_INSTS.  (Eight against four, H100: the paper scan at 2^24 0.104
 * against 0.127 ms, 2^28 and radix_hist the same; scan_apply holds 44
 * registers, 64 -> 42 resident warps, which does not show at 2^28.)
 * Not in the checking mode (the order of its reports must stay the CPU's),
 * at -O0 or with -fno-unroll-loops.
 * Semantics do not change: the same instructions run in the same order per
 * iteration, and only reads move, over instructions that cannot change
 * what they read. */
#include <string.h>

#include "target/ptx/ptx.h"

#define TINY 128
#define SMALL 256
#define LARGE 512
#define MAX_INSTS 256
#ifndef UNROLL_MAX
#define UNROLL_MAX 8	/* the most iterations a trip (-DUNROLL_MAX=4: A/B builds) */
#endif
#define MAX_STEP (1 << 16)

/* A matched loop. */
typedef struct {
	Block *h, *b, *pre;  /* header, body, the entry's block */
	Block *uh, *ub;      /* the unrolled loop's header and body */
	Inst *iv;            /* the induction phi */
	Inst *x, *bound;     /* the loop runs while x < bound (or <=) */
	bool le;             /* <= */
	int64_t step;
	uint32_t u;          /* iterations a trip */
} Loop;

static bool in_loop(const Loop *L, const Inst *v)
{
	return v->block == L->h || v->block == L->b;
}

/* The phi operand of phi for the edge from blk. */
static Inst **phi_in(Inst *phi, const Block *blk)
{
	for (uint32_t k = 0; k < phi->nops; k++)
		if (phi->phiblk[k] == blk)
			return &phi->ops[k];
	return NULL;
}

/* x as iv + c with iv a phi of h stepped by a positive constant from b. */
static bool induction(Loop *L, Inst *x)
{
	const Inst *root, *r2;
	uint32_t scale, sc2;
	int64_t c, s;
	if (!ir_is_int(x->ty.elem) || x->ty.n != 1 || ir_elem_bytes[x->ty.elem] != 4)
		return false;
	ir_affine(x, &root, &scale, &c);
	if (scale != 1 || root->op != Ophi || root->block != L->h || root->nops != 2)
		return false;
	Inst **next = phi_in((Inst *)root, L->b);
	if (!next)
		return false;
	ir_affine(*next, &r2, &sc2, &s);
	if (r2 != root || sc2 != 1 || s <= 0 || s > MAX_STEP)
		return false;
	L->iv = (Inst *)root, L->x = x, L->step = s;
	return true;
}

/* H's branch as "body while x < bound" (or <=). */
static bool exit_test(Loop *L, bool body_on_true)
{
	Inst *c = L->h->jmp.cond;
	if (!c || c->block != L->h || c->ty.n != 1 || !(ir_ops[c->op].flags & IRF_CMP))
		return false;
	Op op = c->op;
	Inst *a = c->ops[0], *b = c->ops[1];
	if (!body_on_true) {   /* the body runs while the compare fails */
		static const Op inv[][2] = {{Oge, Olt}, {Ogt, Ole}, {Olt, Oge}, {Ole, Ogt}};
		Op o2 = O_COUNT_;
		for (int k = 0; k < 4; k++)
			if (inv[k][0] == op)
				o2 = inv[k][1];
		op = o2;
	}
	if (op == Ogt || op == Oge) {   /* b > a: a < b */
		Inst *t = a;
		a = b, b = t;
		op = op == Ogt ? Olt : Ole;
	}
	if (op != Olt && op != Ole)
		return false;
	if (in_loop(L, b) || !induction(L, a))
		return false;
	L->bound = b, L->le = op == Ole;
	return true;
}

/* body_cost's work, which marks (aux) what depends on the iteration's
 * reads. */
static uint32_t body_reads(const Loop *L, uint32_t *insts)
{
	uint32_t bytes = 0;
	*insts = 0;
	for (Inst *i = L->h->first; i; i = i->next) {
		if (i->op == Ophi)
			continue;
		if (!(ir_ops[i->op].flags & IRF_PURE) || (ir_ops[i->op].flags & IRF_MEM))
			return 0;
		*insts += i->op != Oconst;
	}
	bool waits = false;   /* the iteration uses what it reads */
	for (Inst *i = L->b->first; i; i = i->next)
		i->aux = NULL;
	for (Inst *i = L->b->first; i; i = i->next) {
		unsigned fl = ir_ops[i->op].flags;
		bool moves = i->op == Ordregion || i->op == Owrregion || i->op == Ocopy ||
		             i->op == Obitcast;
		for (uint32_t k = 0; k < i->nops && !i->aux; k++)
			if (i->ops[k]->block == L->b && i->ops[k]->aux)
				i->aux = (void *)1;
		if (i->aux && !moves)
			waits = true;
		if (ir_global_read(i))
			i->aux = (void *)1;
		bool global_atomic = (i->op == Oatomic && i->space != SP_SLM) || i->op == Otatomic;
		if (i->op == Ophi || (fl & IRF_BARRIER) || global_atomic || i->op == Odpas)
			return 0;
		if (!(fl & (IRF_PURE | IRF_MEM)))   /* printf, trap, timer */
			return 0;
		if (ir_global_read(i))
			bytes += i->ty.n * (uint32_t)ir_elem_bytes[i->ty.elem];
		*insts += i->op != Oconst;
	}
	return waits ? bytes : 0;
}

/* Per iteration: the global reads' bytes (0: none, or something bars
 * the loop) and the instructions of H and B.  A loop whose reads only
 * move (regions) into the values its phis carry is pipelined already
 * (reads for the next iteration, like dgemm_dpas' double buffer): 0. */
static uint32_t body_cost(const Loop *L, uint32_t *insts)
{
	uint32_t bytes = body_reads(L, insts);
	for (Inst *i = L->b->first; i; i = i->next)
		i->aux = NULL;   /* body_reads' marks, whatever it returned */
	return bytes;
}

/* A body split into a chain of blocks (the seams of inlined calls, laid
 * out apart) b -> c -> ... -> h, each the one predecessor of the next:
 * merged into b, so that the body is one block. */
static void merge_chain(Func *f, Block *h, Block *b)
{
	uint32_t n = 0;
	for (Block *c = b; c != h; c = c->jmp.to[0], n++)
		if (c->jmp.kind != J_BR || c->npreds != 1 || (c->first && c->first->op == Ophi) ||
		    c == f->blocks[0] || n == 64)
			return;
	while (b->jmp.to[0] != h)
		ir_block_merge(f, b, b->jmp.to[0]);
}

static bool match(Func *f, Loop *L, Block *h)
{
	if (h->jmp.kind != J_CBR || h->npreds != 2)
		return false;
	for (int t = 0; t < 2; t++) {
		Block *b = h->jmp.to[t];
		if (b != h && b->npreds == 1) {
			merge_chain(f, h, b);
			ir_preds(f);
		}
		if (b == h || b->jmp.kind != J_BR || b->jmp.to[0] != h || b->npreds != 1)
			continue;
		Block *pre = h->preds[0] == b ? h->preds[1] : h->preds[0];
		if (pre == b || pre == h || h->jmp.to[1 - t] == h)
			continue;
		*L = (Loop){.h = h, .b = b, .pre = pre};
		if (!exit_test(L, t == 0))
			return false;
		uint32_t insts, bytes = body_cost(L, &insts);
		L->u = !bytes ? 1 : bytes <= TINY ? 8 : bytes <= SMALL ? 4 : bytes <= LARGE ? 2 : 1;
		while (L->u > UNROLL_MAX)
			L->u /= 2;
		while (L->u > 1 && L->u * insts > MAX_INSTS)
			L->u /= 2;
		return L->u > 1 && L->step * (L->u - 1) <= MAX_STEP;
	}
	return false;
}

/* ---- the copies ---------------------------------------------------------- */

/* The value v has in copy k: instructions of H and B map to their clones
 * (aux), H's phis to the values they take on that iteration (map). */
typedef struct {
	Inst **phival;       /* by phi index of H: its value on this iteration */
	Inst **phis;         /* H's phis */
	uint32_t nphi;
} Copy;

static Inst *value(const Loop *L, const Copy *cp, Inst *v)
{
	if (v->op == Ophi && v->block == L->h) {
		for (uint32_t k = 0; k < cp->nphi; k++)
			if (cp->phis[k] == v)
				return cp->phival[k];
	}
	return in_loop(L, v) && v->aux ? v->aux : v;
}

static Inst *clone(Func *f, const Loop *L, const Copy *cp, Inst *o, Block *to)
{
	Inst *n = ir_inst_new(f, o->op, o->ty, o->nops, o->loc);
	Inst **ops = n->ops;
	uint32_t id = n->id;
	*n = *o;
	n->id = id, n->ops = ops, n->aux = NULL, n->fwd = NULL, n->nuse = 0;
	for (uint32_t k = 0; k < o->nops; k++)
		n->ops[k] = value(L, cp, o->ops[k]);
	ir_append(to, n);
	return n;
}

/* from's instructions but its phis, cloned for copy cp at to's end (H's
 * compare too: sweep removes what nothing uses). */
static void copy_block(Func *f, const Loop *L, const Copy *cp, const Block *from, Block *to)
{
	for (Inst *i = from->first; i; i = i->next)
		if (i->op != Ophi)
			i->aux = clone(f, L, cp, i, to);
}

static void clear_marks(const Loop *L)
{
	for (Inst *i = L->h->first; i; i = i->next)
		i->aux = NULL;
	for (Inst *i = L->b->first; i; i = i->next)
		i->aux = NULL;
}

/* The next iteration's phi values: each phi's back-edge value in copy cp. */
static void advance(const Loop *L, const Copy *cp, Copy *next)
{
	for (uint32_t k = 0; k < cp->nphi; k++)
		next->phival[k] = value(L, cp, *phi_in(cp->phis[k], L->b));
}

/* ---- reads first ---------------------------------------------------------- */

enum { UNSEEN, MOVES, STAYS };

/* Whether i (of block ub, state in aux as an int) can be computed at the
 * block's top: i and every instruction its operands need in ub are pure,
 * or reads that no earlier store of ub may touch. */
static bool can_move(Block *ub, Inst *i)
{
	if (i->block != ub)
		return true;
	intptr_t st = (intptr_t)i->aux;
	if (st != UNSEEN)
		return st == MOVES;
	i->aux = (void *)(intptr_t)STAYS;   /* until shown otherwise */
	bool ok = i->op != Ophi && (ir_global_read(i) || ((ir_ops[i->op].flags & IRF_PURE) &&
	                                               !(ir_ops[i->op].flags & IRF_MEM)));
	for (Inst *w = ub->first; ok && w != i && ir_global_read(i); w = w->next)
		ok = !ir_may_touch(w, i);
	for (uint32_t k = 0; ok && k < i->nops; k++)
		ok = can_move(ub, i->ops[k]);
	i->aux = (void *)(intptr_t)(ok ? MOVES : STAYS);
	return ok;
}

/* Moves ub's movable reads, with what they need, to its top, in order. */
static void reads_first(Block *ub)
{
	for (Inst *i = ub->first; i; i = i->next)
		i->aux = (void *)(intptr_t)UNSEEN;
	for (Inst *i = ub->first; i; i = i->next)
		if (ir_global_read(i))
			can_move(ub, i);
	/* Everything that moves is a read or what a moving read needs (pure
	 * instructions that only feed stay: marking them would not change
	 * their order relative to their uses). */
	Inst *at = NULL;   /* the last moved one */
	for (Inst *i = ub->first, *next; i; i = next) {
		next = i->next;
		bool needed = (intptr_t)i->aux == MOVES;
		i->aux = NULL;
		if (!needed)
			continue;
		if (i->prev != at) {
			ir_remove(i);
			if (at)
				ir_insert_after(at, i);
			else
				ir_insert_before(ub->first, i);
		}
		at = i;
	}
}

/* ---- the transform ------------------------------------------------------- */

/* b' in pre: bound - k, or the type's minimum (a test that fails) when
 * that would wrap; bound - k + 1 for <= (then tested with <). */
static Inst *early_bound(Func *f, const Loop *L, int64_t k)
{
	IrBuilder B = {f, L->pre, L->h->jmp.loc};
	IrType t = L->bound->ty;
	bool sgn = ir_is_signed(t.elem);
	int64_t min = sgn ? INT32_MIN : 0;
	Inst *kk = irb_const_int(&B, t, k);
	Inst *lim = min ? irb_const_int(&B, t, min + k) : kk;
	Inst *ok = irb_op(&B, Oge, ir_scalar(E_I1), L->bound, lim, NULL);
	Inst *b = irb_op(&B, Osub, t, L->bound, kk, NULL);
	if (L->le)
		b = irb_op(&B, Oadd, t, b, irb_const_int(&B, t, 1), NULL);
	return irb_op(&B, Osel, t, ok, b, irb_const_int(&B, t, min));
}

/* Clones nothing uses (copies of H's compare, values only the last
 * copy's successor would have used): pure instructions of blk. */
static void sweep(Func *f, Block *blk)
{
	bool again = true;
	while (again) {
		again = false;
		ir_count_uses(f);
		for (Inst *i = blk->first, *next; i; i = next) {
			next = i->next;
			if (!i->nuse && (ir_ops[i->op].flags & IRF_PURE) && i->op != Ophi) {
				ir_remove(i);
				again = true;
			}
		}
	}
}

/* iv0 + u steps: each copy's induction value from the trip's, not from
 * the copy before (the same value mod 2^32; loop versioning, vloop.c,
 * wants the back edge's as phi + constant, and ptxas gets independent
 * address arithmetic). */
static Inst *step_from(IrBuilder *B, const Loop *L, Inst *iv0, uint32_t u)
{
	Inst *k = irb_const_int(B, iv0->ty, L->step * (int64_t)u);
	return irb_op(B, Oadd, iv0->ty, iv0, k, NULL);
}

static void unroll(Func *f, Loop *L)
{
	Block *h = L->h, *b = L->b;
	Block *uh = L->uh = ir_block_new_before(f, h), *ub = L->ub = ir_block_new_before(f, h);
	Inst *bound = early_bound(f, L, L->step * (L->u - 1));
	uint32_t nphi = 0;
	for (Inst *i = h->first; i && i->op == Ophi; i = i->next)
		nphi++;
	Copy cp = {NEWN(f->arena, Inst *, nphi), NEWN(f->arena, Inst *, nphi), nphi};
	Copy nx = {NEWN(f->arena, Inst *, nphi), cp.phis, nphi};
	IrBuilder B = {f, uh, h->jmp.loc};
	uint32_t k = 0;
	for (Inst *i = h->first; i && i->op == Ophi; i = i->next, k++) {
		Inst *p = irb_phi(&B, i->ty, 2);
		p->ops[0] = *phi_in(i, L->pre), p->phiblk[0] = L->pre;
		p->phiblk[1] = ub;
		p->loc = i->loc;
		cp.phis[k] = i, cp.phival[k] = p;
	}
	clear_marks(L);   /* stale pass-private marks */
	copy_block(f, L, &cp, h, uh);
	Inst *x0 = value(L, &cp, L->x);
	Inst *go = irb_op(&B, Olt, ir_scalar(E_I1), x0, bound, NULL);
	irb_cbr(&B, go, ub, h);
	uint32_t ivk = 0;
	while (cp.phis[ivk] != L->iv)
		ivk++;
	Inst *iv0 = cp.phival[ivk];
	IrBuilder Bu = {f, ub, h->jmp.loc};
	for (uint32_t u = 0; u < L->u; u++) {
		if (u) {
			advance(L, &cp, &nx);
			memcpy(cp.phival, nx.phival, sizeof(Inst *) * nphi);
			cp.phival[ivk] = step_from(&Bu, L, iv0, u);
			copy_block(f, L, &cp, h, ub);
		}
		copy_block(f, L, &cp, b, ub);
	}
	advance(L, &cp, &nx);
	nx.phival[ivk] = step_from(&Bu, L, iv0, L->u);
	k = 0;
	for (Inst *p = uh->first; p && p->op == Ophi; p = p->next, k++) {
		p->ops[1] = nx.phival[k];
		*phi_in(cp.phis[k], L->pre) = p;   /* H is entered from UH now */
	}
	for (Inst *i = h->first; i && i->op == Ophi; i = i->next)
		for (uint32_t j = 0; j < i->nops; j++)
			if (i->phiblk[j] == L->pre)
				i->phiblk[j] = uh;
	B.b = ub;
	irb_br(&B, uh);
	for (int t = 0; t < 2; t++)
		if (L->pre->jmp.to[t] == h && (t == 0 || L->pre->jmp.kind == J_CBR))
			L->pre->jmp.to[t] = uh;
	clear_marks(L);
	sweep(f, uh);
	sweep(f, ub);
	reads_first(ub);
}

void px_unroll(Px *p)
{
	Func *f = p->f;
	if (p->o->no_unroll || px_checking(p))
		return;
	ir_preds(f);
	for (uint32_t k = 0; k < f->nblocks; k++)
		f->blocks[k]->aux = NULL;
	for (uint32_t k = 0; k < f->nblocks; k++) {
		Block *h = f->blocks[k];
		Loop L;
		if (h->aux || !match(f, &L, h))
			continue;
		unroll(f, &L);
		px_comment(p, "unrolled: the loop at b%u runs %u iterations a trip while %u remain, "
		           "its global reads first", L.h->id, L.u, L.u);
		ir_preds(f);
		L.uh->aux = L.ub->aux = h->aux = (void *)1;   /* not unrolled again */
	}
	for (uint32_t k = 0; k < f->nblocks; k++)
		f->blocks[k]->aux = NULL;
	if (ir_verify_enabled())
		ir_verify_func(f, "unroll");
}
