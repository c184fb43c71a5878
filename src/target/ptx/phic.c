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
 *     and hosts no other phi;
 *   - every incoming value is X with at most half its elements rewritten
 *     (updates()): a merge with a wholly new value is left to ptxas.
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

/* What phic asks of the CFG, each in constant time or within a budget:
 * dominance from the dominator tree's preorder interval, whether a block
 * lies on a cycle (Tarjan's strongly connected components), and what is
 * reachable from a block.  A block on no cycle reaches only blocks of a
 * later reverse postorder number (a DFS finishes every block it reaches
 * from one that no such block reaches back before it); a block on a
 * cycle is searched, within PHIC_STEPS block visits per kernel, after
 * which no more phis are coalesced (a kernel of thousands of branches in
 * loops keeps today's copies rather than a quadratic compile time). */
#define PHIC_STEPS (1u << 22)
typedef struct {
	Func *f;
	uint32_t *pre, *last;   /* dominator tree: preorder number, last descendant's */
	bool *cyclic;           /* on a cycle of the CFG */
	bool *reach;            /* the search's answer for `from` */
	const Block *from;
	uint32_t *stack, steps;
} Cfg;

static bool dominates(const Cfg *g, const Block *a, const Block *b)
{
	return g->pre[a->id] <= g->pre[b->id] && g->pre[b->id] <= g->last[a->id];
}

/* Preorder numbers of the dominator tree (iterative: trees may be deep). */
static void number_tree(Arena *a, Cfg *g)
{
	Func *f = g->f;
	uint32_t n = f->nblocks, *first = NEWN(a, uint32_t, n), *next = NEWN(a, uint32_t, n);
	uint32_t *it = NEWN(a, uint32_t, n);
	for (uint32_t b = 0; b < n; b++)
		first[b] = next[b] = UINT32_MAX;
	for (uint32_t b = n; b-- > 1;) {
		const Block *d = f->blocks[b]->idom;
		if (d && d != f->blocks[b] && f->blocks[b]->rpo != UINT32_MAX)
			next[b] = first[d->id], first[d->id] = b;
	}
	uint32_t k = 0, sp = 0;
	g->pre[0] = k++;
	g->stack[sp] = 0, it[sp++] = first[0];
	while (sp) {
		uint32_t b = g->stack[sp - 1], c = it[sp - 1];
		if (c == UINT32_MAX) {
			g->last[b] = k - 1;
			sp--;
			continue;
		}
		it[sp - 1] = next[c];
		g->pre[c] = k++;
		g->stack[sp] = c, it[sp++] = first[c];
	}
}

static uint32_t succs(const Block *b, const Block **t)
{
	uint32_t n = 0;
	if (b->jmp.kind != J_RET)
		for (int k = 0; k < 2; k++)
			if (b->jmp.to[k])
				t[n++] = b->jmp.to[k];
	return n;
}

/* g->cyclic: the blocks in a strongly connected component of two or more,
 * or with an edge to themselves (iterative Tarjan). */
static void find_cycles(Arena *a, Cfg *g)
{
	Func *f = g->f;
	uint32_t n = f->nblocks, idx = 0, sp = 0, cs = 0;
	uint32_t *index = NEWN(a, uint32_t, n), *low = NEWN(a, uint32_t, n);
	uint32_t *scc = NEWN(a, uint32_t, n), *call = NEWN(a, uint32_t, n);
	uint8_t *edge = NEWN(a, uint8_t, n);
	bool *on = NEWN(a, bool, n);
	for (uint32_t b = 0; b < n; b++)
		index[b] = UINT32_MAX;
	for (uint32_t r = 0; r < n; r++) {
		if (index[r] != UINT32_MAX)
			continue;
		call[cs++] = r;
		index[r] = low[r] = idx++, scc[sp++] = r, on[r] = true;
		while (cs) {
			uint32_t v = call[cs - 1];
			const Block *t[2];
			uint32_t nt = succs(f->blocks[v], t);
			if (edge[v] < nt) {
				uint32_t w = t[edge[v]++]->id;
				if (w == v)
					g->cyclic[v] = true;
				if (index[w] == UINT32_MAX) {
					index[w] = low[w] = idx++, scc[sp++] = w, on[w] = true;
					call[cs++] = w;
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			cs--;
			if (cs && low[v] < low[call[cs - 1]])
				low[call[cs - 1]] = low[v];
			if (low[v] != index[v])
				continue;
			uint32_t top = sp;
			do
				on[scc[--sp]] = false;
			while (scc[sp] != v);
			if (top - sp > 1)
				for (uint32_t k = sp; k < top; k++)
					g->cyclic[scc[k]] = true;
		}
	}
}

/* Whether block u may run after block `from` (set by reach_from). */
static bool reaches(const Cfg *g, uint32_t u)
{
	if (!g->cyclic[g->from->id])
		return u == g->from->id || g->f->blocks[u]->rpo > g->from->rpo;
	return g->reach[u];
}

/* Prepares reaches() for block b; false when the search budget is spent. */
static bool reach_from(Cfg *g, const Block *b)
{
	g->from = b;
	if (!g->cyclic[b->id])
		return true;
	Func *f = g->f;
	memset(g->reach, 0, f->nblocks * sizeof *g->reach);
	uint32_t n = 0;
	g->reach[b->id] = true;
	g->stack[n++] = b->id;
	while (n) {
		const Block *t[2];
		uint32_t nt = succs(f->blocks[g->stack[--n]], t);
		if (++g->steps > PHIC_STEPS)
			return false;
		for (uint32_t k = 0; k < nt; k++)
			if (!g->reach[t[k]->id]) {
				g->reach[t[k]->id] = true;
				g->stack[n++] = t[k]->id;
			}
	}
	return true;
}

static const Layout *lay_of(Px *p, const Inst *v)
{
	return v->ty.n > 1 ? p->val[v->id].lay : NULL;
}

/* Whether writing c's registers on an edge into B (g: reaches from B)
 * loses nothing: c holds its value on every path into B, is not
 * redefined while the phi lives, and no use of c but `above` (the phi
 * whose registers are c's) can run after the write. */
static bool clobber_free(const Cfg *g, const Uses *u, const Inst *c, const Inst *above,
                         const Block *B)
{
	if (c->block->rpo == UINT32_MAX || !dominates(g, c->block, B) || reaches(g, c->block->id))
		return false;
	for (uint32_t k = u->start[c->id]; k < u->start[c->id + 1]; k++)
		if (u->user[k] != above && reaches(g, u->blk[k]))
			return false;
	return true;
}

/* Whether v is x with at most half its elements rewritten: x itself, a
 * chain of wrregions on it (an edge fix-up), or a phi whose registers are
 * already x's.  A phi merging a value with a wholly new one is left to
 * ptxas: coalescing those (a scan's tiles, rescanned on one path) made
 * ptxas allocate 168 -> 180..230 registers, a CTA fewer per SM, without
 * removing a move it would have kept. */
static bool updates(Px *p, const Inst *v, const Inst *x)
{
	uint64_t written = 0;
	for (int depth = 0; v && depth < 64; depth++) {
		if (v == x)
			return written * 2 <= x->ty.n;
		if (v->op == Ophi && p->val[v->id].host)
			v = p->val[v->id].host;
		else if (v->op == Owrregion && v->nops > 1)
			written += v->ops[1]->ty.n, v = v->ops[0];
		else
			return false;
	}
	return false;
}

/* Whether x, an incoming value of phi i, can host it (the file's comment),
 * its chain of hosts included; a chain of more than PHIC_CHAIN is refused
 * (the check walks it: thousands of branches in a row would be quadratic;
 * the next phi starts a new chain). */
#define PHIC_CHAIN 16
static bool can_host(Px *p, const Cfg *g, const Uses *u, const Inst *i, const Inst *x,
                     const bool *hosts)
{
	if (x->op == Oconst || x->op == Oarg || x->ty.elem == E_VOID || hosts[x->id] ||
	    (x->op == Ophi && x->block == i->block) || !ir_type_eq(x->ty, i->ty) ||
	    p->val[i->id].wghost || (x->op != Ophi && p->val[x->id].host))
		return false;   /* (the last two: wgmma.c's chains in place) */
	for (uint32_t k = 0; k < i->nops; k++)
		if (!updates(p, i->ops[k], x))
			return false;
	const Layout *lx = lay_of(p, x), *li = lay_of(p, i);
	if ((lx || li) && !(lx && li && lay_equal(lx, li)))
		return false;
	const Inst *above = i;
	uint32_t n = 0;
	for (const Inst *c = x; c; above = c, c = c->op == Ophi ? p->val[c->id].host : NULL)
		if (++n > PHIC_CHAIN || !clobber_free(g, u, c, above, i->block))
			return false;
	return true;
}

void px_coalesce_phis(Px *p)
{
	Func *f = p->f;
	if (p->o->ptx_canonical || p->o->no_phi_coalescing || !f->nblocks)
		return;
	Arena *a = arena_child(p->arena);
	Uses u;
	use_lists(a, f, &u);
	ir_dominators(f);
	uint32_t n = f->nblocks;
	Cfg g = {f, NEWN(a, uint32_t, n), NEWN(a, uint32_t, n), NEWN(a, bool, n),
	         NEWN(a, bool, n), NULL, NEWN(a, uint32_t, 2 * n + 2), 0};
	number_tree(a, &g);
	find_cycles(a, &g);
	bool *hosts = NEWN(a, bool, f->nextid + 1);
	/* in reverse postorder: a host's own host is chosen before it */
	Block **order = NEWN(a, Block *, n);
	uint32_t nr = 0;
	for (uint32_t b = 0; b < n; b++)
		if (f->blocks[b]->rpo != UINT32_MAX)
			order[f->blocks[b]->rpo] = f->blocks[b], nr++;
	for (uint32_t b = 0; b < nr; b++) {
		Block *B = order[b];
		if (!B->first || B->first->op != Ophi)
			continue;
		if (!reach_from(&g, B))
			break;
		for (Inst *i = B->first; i && i->op == Ophi; i = i->next)
			for (uint32_t k = 0; k < i->nops; k++)
				if (can_host(p, &g, &u, i, i->ops[k], hosts)) {
					p->val[i->id].host = i->ops[k];
					hosts[i->ops[k]->id] = true;
					break;
				}
	}
	arena_reset(a);
}
