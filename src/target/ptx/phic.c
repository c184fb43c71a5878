/* phic.c — phi coalescing: a phi that can live in the registers of one of
 * its incoming values takes them, so the edges that bring that value copy
 * nothing.
 *
 * requires: layouts (assign.c), ir_preds; runs before emission.
 * changes: PxVal.host of the phis it coalesces; emit.c's px_own names a
 * phi's registers by its host's, and edge_copies skips a copy onto itself.
 *
 * A phi is emitted as copies on its incoming edges into registers of its
 * own.  ptxas coalesces most of them, but not where the value changed on
 * the other edge: an image filter's edge fix-up
 *
 *     in = read(...)                   b2
 *     if (x0 == 0) in.select(..) = ..  b4: a wrregion of a few registers
 *     in' = phi [b2 in], [b4 in2]      b5
 *
 * leaves both the old and the new registers of the changed slots live in
 * b4, so ptxas gives the phi registers of its own and copies the
 * interior's unchanged value on the path every interior tile takes (26
 * moves per tile in bench/cm/linear.cm).  Here the phi takes the
 * registers of `in` (its host), and only the rare path copies: b4's
 * result into them, at its end.
 *
 * The host X of phi i in block B is an incoming value such that writing
 * X's registers on another edge into B clobbers nothing still needed:
 *   - X's block dominates B and is not reachable from B (X holds its
 *     value on every path into B, and is not redefined while i lives);
 *   - no use of X but i is reachable from B (B itself included: another
 *     phi of B reading X, or a later instruction of B);
 *   - X has the type and the layout of i, is not a constant or an
 *     argument (their registers are set once at entry), not a phi of B,
 *     and hosts no other phi.
 * A host may itself be a coalesced phi: then the conditions hold for each
 * value down the chain, whose registers they all share.
 */
#include <string.h>

#include "target/ptx/ptx.h"

/* Use lists of every value, as the blocks of their users (one array). */
typedef struct {
	uint32_t *start;      /* by value id: first entry in blk, ... */
	uint32_t *blk;        /* ... the user's block id, per use */
	const Inst **user;    /* the user, per use */
} Uses;

static void use_lists(Arena *a, Func *f, Uses *u)
{
	uint32_t n = f->nextid + 1, total = 0;
	u->start = NEWN(a, uint32_t, n + 1);
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next)
			for (uint32_t k = 0; k < i->nops; k++)
				if (i->ops[k])
					u->start[i->ops[k]->id + 1]++, total++;
	for (uint32_t v = 0; v < n; v++)
		u->start[v + 1] += u->start[v];
	uint32_t *fill = NEWN(a, uint32_t, n);
	memcpy(fill, u->start, n * sizeof *fill);
	u->blk = NEWN(a, uint32_t, total + 1);
	u->user = NEWN(a, const Inst *, total + 1);
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next)
			for (uint32_t k = 0; k < i->nops; k++)
				if (i->ops[k]) {
					uint32_t at = fill[i->ops[k]->id]++;
					u->blk[at] = b, u->user[at] = i;
				}
}

/* reach[b]: block b is reachable from `from` (from itself included). */
static void reachable(Func *f, const Block *from, bool *reach, uint32_t *stack)
{
	memset(reach, 0, f->nblocks * sizeof *reach);
	uint32_t n = 0;
	reach[from->id] = true;
	stack[n++] = from->id;
	while (n) {
		const Block *b = f->blocks[stack[--n]];
		if (b->jmp.kind == J_RET)
			continue;
		for (int k = 0; k < 2; k++) {
			const Block *t = b->jmp.to[k];
			if (t && !reach[t->id]) {
				reach[t->id] = true;
				stack[n++] = t->id;
			}
		}
	}
}

static const Layout *lay_of(Px *p, const Inst *v)
{
	return v->ty.n > 1 ? p->val[v->id].lay : NULL;
}

/* Whether writing c's registers on an edge into B (reach: from B) loses
 * nothing: c holds its value on every path into B, is not redefined
 * while the phi lives, and no use of c but `above` (the phi whose
 * registers are c's) can run after the write. */
static bool clobber_free(const Uses *u, const Inst *c, const Inst *above, const Block *B,
                         const bool *reach)
{
	if (c->block->rpo == UINT32_MAX || !ir_dominates(c->block, B) || reach[c->block->id])
		return false;
	for (uint32_t k = u->start[c->id]; k < u->start[c->id + 1]; k++)
		if (u->user[k] != above && reach[u->blk[k]])
			return false;
	return true;
}

/* Whether x, an incoming value of phi i, can host it (the file's comment),
 * its chain of hosts included. */
static bool can_host(Px *p, const Uses *u, const Inst *i, const Inst *x, const bool *reach,
                     const bool *hosts)
{
	if (x->op == Oconst || x->op == Oarg || x->ty.elem == E_VOID || hosts[x->id] ||
	    (x->op == Ophi && x->block == i->block) || !ir_type_eq(x->ty, i->ty))
		return false;
	const Layout *lx = lay_of(p, x), *li = lay_of(p, i);
	if ((lx || li) && !(lx && li && lay_equal(lx, li)))
		return false;
	const Inst *above = i;
	for (const Inst *c = x; c; above = c, c = c->op == Ophi ? p->val[c->id].host : NULL)
		if (!clobber_free(u, c, above, i->block, reach))
			return false;
	return true;
}

void px_coalesce_phis(Px *p)
{
	Func *f = p->f;
	if (p->o->ptx_canonical || !f->nblocks)
		return;
	Arena *a = arena_child(p->arena);
	Uses u;
	use_lists(a, f, &u);
	ir_dominators(f);
	bool *reach = NEWN(a, bool, f->nblocks);
	bool *hosts = NEWN(a, bool, f->nextid + 1);
	uint32_t *stack = NEWN(a, uint32_t, f->nblocks);
	/* in reverse postorder: a host's own host is chosen before it */
	Block **order = NEWN(a, Block *, f->nblocks);
	uint32_t n = 0;
	for (uint32_t b = 0; b < f->nblocks; b++)
		if (f->blocks[b]->rpo != UINT32_MAX)
			order[f->blocks[b]->rpo] = f->blocks[b], n++;
	for (uint32_t b = 0; b < n; b++) {
		Block *B = order[b];
		if (!B->first || B->first->op != Ophi)
			continue;
		reachable(f, B, reach, stack);
		for (Inst *i = B->first; i && i->op == Ophi; i = i->next)
			for (uint32_t k = 0; k < i->nops; k++)
				if (can_host(p, &u, i, i->ops[k], reach, hosts)) {
					p->val[i->id].host = i->ops[k];
					hosts[i->ops[k]->id] = true;
					break;
				}
	}
	arena_reset(a);
}
