/* bwide.c — a vector built of contiguous block loads and read only by
 * its columns, loaded k elements a lane with vector loads.
 *
 * requires: use lists (assign.c), before assign.c's sweep.
 * changes: PxVal.lay and .wpart of the chain's loads and wrregions and
 * of the phis that carry the vector (assign.c's sweep leaves them), .skip on all but the last wrregion,
 * .wide on that one: mem.c px_wide_load emits every load there.
 *
 * k-means turns 32 points of D floats (AoS) into D rows of 32:
 *
 *     V0 = wrregion C, L0, <0;32,1>, 0       L0 = bload S, o      (bytes)
 *     V1 = wrregion V0, L1, <0;32,1>, 32     L1 = bload S, o + 128
 *     ...                                    (D loads, contiguous)
 *     row d = rdregion V, <D;1,0>, d         (d = 0 .. D-1)
 *
 * In the canonical layout each row gathers from all D registers: D
 * shuffles and D - 1 selects per row (D = 4: 16 shuffles and 12 selects
 * for 32 points), or, for D = 16, an SLM round trip (assign.c
 * costly_region).  In the run layout of one row of n = 32 k elements
 * (layout.c lay_runs: element e in register e % k, lane e / k) row d is
 * register d, a rename, and lane j's elements k j .. k j + k - 1 are
 * k * eb contiguous bytes: one ld.global.v4 (or v2, or several v4) per
 * lane replaces the D loads.
 *
 * Conditions: the wrregions are plain (constant offset, stride 1, no
 * mask), cover the vector once between them, and each but the last has
 * no other user; the loads are surface loads at 32-bit offsets of one
 * root (ir_affine) whose constants put each load's bytes where its
 * elements sit in the vector, of 4- or 8-byte elements, aligned to 16
 * bytes (or to the lane's bytes when fewer), of one size (a power of
 * two, a multiple of k, so that each lane's elements are one load's),
 * read once; nothing between
 * the first load and the last wrregion writes memory (the loads move
 * down to it); every user of the vector is a constant region whose
 * pullback in the run layout is canonical (a column, a rename) or a phi
 * whose users, through further phis, are such regions or a load's
 * wrregion overwriting it (read_web: the phis take the run layout too).
 * Not in the checking mode (its reports name each access).
 */
#include "target/ptx/ptx.h"

#define MAX_LOADS 64
#define MAX_WEB 8	/* phis a vector's run layout may spread to (read_web) */

static bool plain_write(const Inst *w)
{
	return px_whole_write(w) && w->ops[1]->op == Obload;
}

/* A surface or SLM load of 4- or 8-byte elements (bpair.c's kinds). */
static bool surface_load(const Px *p, const Inst *l)
{
	int eb = ir_elem_bytes[l->ty.elem];
	return (eb == 4 || eb == 8) && (px_surface_load(p, l) || px_slm_block_load(p, l));
}

/* The chain of wrregions below v, top first, into w (false: not one). */
static bool chain(const Px *p, const Inst *v, const Inst **w, uint32_t *n)
{
	uint32_t m = 0, covered = 0;
	for (const Inst *x = v; plain_write(x) && x->ty.n == v->ty.n; x = x->ops[0]) {
		if (m == MAX_LOADS || (x != v && x->nuse != 1) || x->block != v->block ||
		    !surface_load(p, x->ops[1]) || x->ops[1]->block != v->block)
			return false;
		w[m++] = x;
		covered += x->ops[1]->ty.n;
	}
	*n = m;
	return m >= 2 && covered == v->ty.n;
}

/* Whether the loads of w[0..n) read the vector's bytes in order: load m
 * at offset root * scale + c0 + eb * (its element offset in the vector),
 * its elements disjoint from the others'. */
static bool contiguous(const Inst *const *w, uint32_t n, uint32_t total)
{
	const Inst *r0 = NULL;
	uint32_t s0 = 0;
	int64_t base = 0;
	uint64_t seen[1024 / 64] = {0};   /* the elements loaded so far */
	if (total > 1024)
		return false;
	for (uint32_t m = 0; m < n; m++) {
		const Inst *l = w[m]->ops[1];
		const Inst *r;
		uint32_t s;
		int64_t c;
		ir_affine(l->ops[1], &r, &s, &c);
		int eb = ir_elem_bytes[l->ty.elem];
		int64_t b = c - (int64_t)w[m]->rg.offset * eb;
		if (!m)
			r0 = r, s0 = s, base = b;
		if (r != r0 || s != s0 || b != base || l->ty.elem != w[0]->ops[1]->ty.elem ||
		    l->ty.n != w[0]->ops[1]->ty.n ||
		    l->align != w[0]->ops[1]->align || l->ops[0] != w[0]->ops[1]->ops[0])
			return false;
		for (uint32_t e = (uint32_t)w[m]->rg.offset; e < w[m]->rg.offset + l->ty.n; e++) {
			if (e >= total || seen[e / 64] >> (e % 64) & 1)
				return false;
			seen[e / 64] |= 1ull << (e % 64);
		}
	}
	return true;
}

/* Whether u, a user of a vector in the run layout l, reads a column of
 * it: a constant vector region whose pullback in l is canonical. */
static bool column(Px *p, const PxUse *s, const Layout *l)
{
	const Inst *u = s->u;
	if (u->op != Ordregion || ir_roff(u) || s->k != 0 || u->ty.n < 2)
		return false;
	uint32_t *regs = NULL;
	const Layout *r = lay_pullback(p->tmp, l, u->rg, u->ty.n, &regs);
	return r && r->canon;
}

/* Adds phi u to web (n phis so far) unless there; false when full. */
static bool web_add(const Inst **web, uint32_t *n, const Inst *u)
{
	for (uint32_t j = 0; j < *n; j++)
		if (web[j] == u)
			return true;
	if (*n == MAX_WEB)
		return false;
	web[(*n)++] = u;
	return true;
}

/* The phis from web[from] on and those they reach, when each is read
 * only by columns (in l), by phis and as the base a load's wrregion
 * overwrites (a loop outside carrying the vector to its next fill): a
 * software-pipelined loop carries the vector it loaded for the next step
 * into the step that reads it (sgemm's row of B).  They live in l, so
 * the vector's reads stay renames; an incoming value in another layout
 * converts on its edge. */
static bool read_web(Px *p, PxUse **uses, const Layout *l, const Inst **web, uint32_t from,
                     uint32_t *n)
{
	for (uint32_t m = from; m < *n; m++)
		for (const PxUse *s = uses[web[m]->id]; s; s = s->next) {
			if (s->u->op == Ophi ? !web_add(web, n, s->u) :
			    !column(p, s, l) && !(plain_write(s->u) && s->k == 0))
				return false;
		}
	return true;
}

/* Whether every user of the vector (uses) reads a column of it (column)
 * or is a phi of a web that read_web accepts: the *nweb phis in web then
 * live in l too. */
static bool columns_only(Px *p, PxUse **uses, const Inst *v, const Layout *l,
                         const Inst **web, uint32_t *nweb)
{
	*nweb = 0;
	if (!uses[v->id])
		return false;
	for (const PxUse *s = uses[v->id]; s; s = s->next) {
		uint32_t from = *nweb;
		if (s->u->op == Ophi ? !web_add(web, nweb, s->u) ||
		                           !read_web(p, uses, l, web, from, nweb) :
		    !column(p, s, l))
			return false;
	}
	return true;
}

/* The group whose last wrregion is v, if it qualifies. */
static void try_wide(Px *p, Inst *v, PxUse **uses)
{
	const Inst *w[MAX_LOADS];
	uint32_t n, total = v->ty.n;
	if (!chain(p, v, w, &n) || !contiguous(w, n, total))
		return;
	const Inst *first = w[n - 1]->ops[1];   /* the first in program order */
	for (uint32_t m = 0; m < n; m++)
		if (w[m]->ops[1]->id < first->id)
			first = w[m]->ops[1];
	if (!px_quiet_between(first, v))
		return;
	Elem e = first->ty.elem;
	uint32_t eb = (uint32_t)ir_elem_bytes[e], k = total / 32, ne = first->ty.n;
	uint32_t piece = k * eb < 16 ? k * eb : 16;
	int align = first->align ? first->align : 16;
	/* a lane's elements lie in one load (its checks are that load's) */
	if (total % 32 || (k != 2 && k != 4 && k != 8 && k != 16) || (uint32_t)align < piece ||
	    ne % k || (ne & (ne - 1)))
		return;
	Layout *l = lay_runs(p->arena, total, total, k);
	const Inst *web[MAX_WEB];
	uint32_t nweb;
	if (!columns_only(p, uses, v, l, web, &nweb))
		return;
	for (uint32_t m = 0; m < nweb; m++) {
		p->val[web[m]->id].lay = l;
		p->val[web[m]->id].wpart = true;
	}
	PxWide *g = NEW(p->arena, PxWide);
	g->n = n;
	g->ne = ne;
	g->k = k;
	g->ld = NEWN(p->arena, const Inst *, n);
	for (uint32_t m = 0; m < n; m++) {
		const Inst *x = w[m]->ops[1];
		g->ld[m] = x;
		if (w[m]->rg.offset == 0)
			g->at0 = x;
		p->val[x->id].lay = (Layout *)lay_canonical(p->arena, x->ty.n);
		p->val[x->id].skip = p->val[x->id].wpart = true;
		p->val[w[m]->id].lay = l;
		p->val[w[m]->id].wpart = true;
		if (m)
			p->val[w[m]->id].skip = true;
	}
	p->val[v->id].wide = g;
}

void px_wide_loads(Px *p, PxUse **uses)
{
	if (!uses || px_checking(p) || p->o->no_wide_loads)
		return;
	Func *f = p->f;
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next)
			if (plain_write(i) && !p->val[i->id].wpart)
				try_wide(p, i, uses);
	arena_reset(p->tmp);
}
