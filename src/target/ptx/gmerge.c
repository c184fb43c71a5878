/* gmerge.c — two gathers that fill the two halves of one vector, as one.
 *
 * requires: SSA, use counts (ir_count_uses); runs before the layouts
 * (emit_kernel, after unroll.c).
 * changes: the instruction lists (one gather and one write replace two of
 * each).
 *
 * CM gathers at most 32 elements, so a 64-element tile is read by two
 * gathers written into its halves:
 *
 *     g1 = gather b, o, C1          w1 = wrregion x, g1, <0;32,1>, a
 *     g2 = gather b, o, C2          w2 = wrregion w1, g2, <0;32,1>, a + 32
 *
 * In a layout that spreads the tile over the lanes in its own way (a
 * cm_dpas fragment, which assign.c's assign_gather reads a gather into)
 * each half fills half the lanes of two registers: the two gathers cost
 * four half-empty loads and the two writes four selects.  One gather of
 * the offsets C1 ++ C2, written at a, loads each register once.
 *
 * Both gathers read the same buffer at the same global offset, with
 * constant offsets of one type, unmasked, each read only by its write, and
 * w1 only by w2.  The merged gather sits where w2 was, so nothing between
 * g1 and w2 may write memory (px_quiet_between): it reads what g1 and g2
 * read, element for element, with the same out-of-bounds rules.  Not in
 * the checking mode, whose reports name each access.
 */
#include "target/ptx/ptx.h"

static bool const_gather(const Inst *g)
{
	const Inst *offs = g->op == Ogather ? g->ops[2] : NULL;
	return offs && !ir_mask(g) && offs->op == Oconst && g->nuse == 1 &&
	       !ir_is_float(offs->ty.elem);
}

static bool same_source(const Inst *a, const Inst *b)
{
	return a->ops[0] == b->ops[0] && a->ops[1] == b->ops[1] && a->space == b->space &&
	       a->bytes == b->bytes && a->ty.elem == b->ty.elem &&
	       a->ops[2]->ty.elem == b->ops[2]->ty.elem;
}

/* Whether constant c holds a's elements, then b's. */
static bool holds(const Inst *c, const Inst *a, const Inst *b)
{
	uint32_t na = a->ty.n, n = na + b->ty.n;
	if (c->op != Oconst || c->ty.elem != a->ty.elem || c->ty.n != n || c->c.n != n)
		return false;
	for (uint32_t k = 0; k < n; k++)
		if (c->c.v[k].u != (k < na ? ir_const_at(a, k) : ir_const_at(b, k - na)).u)
			return false;
	return true;
}

/* The merged gather's offsets, a's then b's: one constant at the top of
 * the entry block, shared by every merge that joins the same two, so that
 * its copy in a fragment's layout is made once, outside any loop. */
static Inst *joined(Func *f, const Inst *a, const Inst *b, Loc loc)
{
	Block *entry = f->blocks[0];
	for (Inst *c = entry->first; c && c->op == Oconst; c = c->next)
		if (holds(c, a, b)) {
			c->nuse++;
			return c;
		}
	uint32_t na = a->ty.n, n = na + b->ty.n;
	Inst *c = ir_inst_new(f, Oconst, ir_type(a->ty.elem, n), 0, loc);
	c->c.n = n;
	c->c.v = NEWN(f->arena, IrScalar, n);
	c->nuse = 1;
	for (uint32_t k = 0; k < n; k++)
		c->c.v[k] = k < na ? ir_const_at(a, k) : ir_const_at(b, k - na);
	if (entry->first)
		ir_insert_before(entry->first, c);
	else
		ir_append(entry, c);
	return c;
}

static bool try_merge(Px *p, Func *f, Inst *w2)
{
	if (!px_whole_write(w2) || !px_whole_write(w2->ops[0]))
		return false;
	Inst *w1 = w2->ops[0], *g1 = w1->ops[1], *g2 = w2->ops[1];
	if (w1->nuse != 1 || !const_gather(g1) || !const_gather(g2) || !same_source(g1, g2) ||
	    w2->rg.offset != w1->rg.offset + (int32_t)g1->ty.n || g1->block != w2->block ||
	    w1->block != w2->block || g2->block != w2->block || !px_quiet_between(g1, w2))
		return false;
	Inst *g = ir_inst_new(f, Ogather, ir_type(g1->ty.elem, g1->ty.n + g2->ty.n), 3, g2->loc);
	Inst **ops = g->ops;
	uint32_t id = g->id;
	*g = *g2;
	g->id = id, g->ops = ops, g->ty.n = g1->ty.n + g2->ty.n, g->aux = NULL, g->fwd = NULL;
	g->nuse = 1;   /* w2 (a chain of four halves merges again) */
	g->ops[0] = g2->ops[0], g->ops[1] = g2->ops[1];
	g->ops[2] = joined(f, g1->ops[2], g2->ops[2], w2->loc);
	ir_insert_before(w2, g);
	w2->ops[0] = w1->ops[0];
	w2->ops[1] = g;
	w2->rg.offset = w1->rg.offset;
	w2->rg.width = (int32_t)g->ty.n;
	px_comment(p, "gathers of %u and %u elements into the halves of one vector, as one",
	           g1->ty.n, g2->ty.n);
	ir_remove(w1);
	ir_remove(g1);
	ir_remove(g2);
	return true;
}

void px_merge_gathers(Px *p)
{
	Func *f = p->f;
	if (px_checking(p) || p->o->ptx_canonical)
		return;
	ir_count_uses(f);
	bool any = false;
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first, *next; i; i = next) {
			next = i->next;
			any |= try_merge(p, f, i);
		}
	if (any) {
		ir_count_uses(f);
		if (ir_verify_enabled())
			ir_verify_func(f, "gmerge");
	}
}
