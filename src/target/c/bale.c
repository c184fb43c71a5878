/* bale.c — values computed inside their user's element loop.
 *
 * A vector made by an element-wise op or by a constant-offset rdregion,
 * whose only user is an element-wise op of the same length or the value
 * of a wrregion in the same block, needs no array of its own: its element
 * k is an expression evaluated in the user's loop (the paper's "baling"
 * of regions into instructions).  So `acc.row(r) += a * b.select(...)`
 * becomes one loop of fused multiply-adds instead of five loops through
 * temporary arrays.
 *
 * The expression reads its leaves (the arrays of the values it does not
 * inline) later than the instructions it replaces, so it is refused when
 *   - an instruction between a leaf's reader and the user writes the
 *     leaf's variable (storage.c may give one variable to several values),
 *   - the user writes a leaf's variable at an element other than the one
 *     it reads in the same iteration (or copies the whole old value into
 *     it first: a wrregion that is not in place, or has a runtime offset),
 *   - the expression grows past a size (operands some ops repeat).
 *
 * requires: CGen.store (storage.c); provides: CGen.inl for emit.c. */
#include <string.h>

#include "target/c/c.h"

enum { MAX_EXPR = 600 };  /* characters of one inlined expression */

typedef struct {
	CGen *g;
	bool *inl;
	Inst **user;          /* by id: the only user, or NULL */
} Bale;

static bool is_vec(const Inst *v) { return v->ty.elem != E_VOID && v->ty.n > 1; }

static int64_t region_index(const IrRegion *rg, uint32_t k)
{
	return rg->offset + (int64_t)(k / (uint32_t)rg->width) * rg->vstride +
	       (int64_t)(k % (uint32_t)rg->width) * rg->hstride;
}

/* Element k's index in the leaf read by node x (rdregion: its region). */
static int64_t leaf_index(const Inst *x, uint32_t k)
{
	return x->op == Ordregion ? region_index(&x->rg, k) : k;
}

/* The index user u writes for element k, or -1 when u first writes the
 * whole variable or writes at a runtime offset. */
static int64_t write_index(CGen *g, const Inst *u, uint32_t k)
{
	if (u->op != Owrregion)
		return k;
	if (u->has_roff || g->store[u->id] != g->store[u->ops[0]->id])
		return -1;
	return region_index(&u->rg, k);
}

/* Leaf o, read by node x, is still intact when user u runs its loop. */
static bool leaf_ok(Bale *b, const Inst *x, const Inst *o, const Inst *u)
{
	CGen *g = b->g;
	uint32_t s = g->store[o->id];
	for (const Inst *z = x->next; z && z != u; z = z->next)
		if (!b->inl[z->id] && is_vec(z) && g->store[z->id] == s)
			return false;
	if (g->store[u->id] != s)
		return true;
	bool *seen = NEWN(g->f->arena, bool, u->ty.n);
	for (uint32_t k = 0; k < x->ty.n; k++) {
		int64_t w = write_index(g, u, k);
		if (w < 0 || w >= u->ty.n || seen[w] || w != leaf_index(x, k))
			return false;
		seen[w] = true;   /* no element is written twice */
	}
	return true;
}

/* Every leaf of the inlined tree rooted at x is safe for user u. */
static bool tree_ok(Bale *b, const Inst *x, const Inst *u)
{
	if (x->op == Ordregion)
		return !is_vec(x->ops[0]) || leaf_ok(b, x, x->ops[0], u);
	for (uint32_t k = 0; k < x->nops; k++) {
		const Inst *o = x->ops[k];
		if (!is_vec(o))
			continue;
		if (b->inl[o->id] ? !tree_ok(b, o, u) : !leaf_ok(b, x, o, u))
			return false;
	}
	return true;
}

static bool candidate(const Inst *v)
{
	if (!is_vec(v) || v->nuse != 1)
		return false;
	if (v->op == Ordregion)
		return !v->has_roff;
	return ir_ops[v->op].flags & IRF_ELEMWISE;
}

/* u reads element k of v in its element loop over k. */
static bool consumes(const Inst *u, const Inst *v)
{
	if (!u || u->block != v->block)
		return false;
	if (u->op == Owrregion)
		return u->ops[1] == v && u->ops[0] != v;
	return u->op != Ophi && ir_ops[u->op].flags & IRF_ELEMWISE && u->ty.n == v->ty.n;
}

static void find_users(Bale *b, Func *f)
{
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i; i = i->next)
			for (uint32_t k = 0; k < i->nops; k++)
				b->user[i->ops[k]->id] = i;
}

bool *c_bale(CGen *g, Func *f)
{
	Arena *a = f->arena;
	Bale b = {.g = g};
	b.inl = NEWN(a, bool, f->nextid + 1);
	b.user = NEWN(a, Inst *, f->nextid + 1);
	ir_count_uses(f);
	find_users(&b, f);
	g->inl = b.inl;
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *v = f->blocks[bi]->first; v; v = v->next) {
			Inst *u = b.user[v->id];
			if (!candidate(v) || !consumes(u, v) || (g->o->debug && v->name))
				continue;   /* -g: a CM variable's value keeps its own */
			b.inl[v->id] = true;
			if (!tree_ok(&b, v, u) || strlen(c_inline_expr(g, v, "k")) > MAX_EXPR)
				b.inl[v->id] = false;
		}
	return b.inl;
}
