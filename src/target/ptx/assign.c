/* assign.c — layout assignment: which layout (layout.c) each vector value
 * of a kernel lives in, and which other layouts its users read it in.
 *
 * requires: ir_renumber'd kernel (ids index p->val); runs before emission.
 * changes: nothing in the IR; fills p->val.
 *
 * One forward sweep over the blocks in reverse postorder, greedy, like
 * Triton's layout propagation from anchors:
 *   - rdregion with a constant offset takes the pullback of its source's
 *     layout (the region becomes a register rename), unless that layout
 *     would take more than twice the registers of the canonical one (a
 *     column of a wide matrix: one register per element);
 *   - wrregion takes the layout of the value it writes into (in place);
 *   - an element-wise instruction picks, among canonical and its vector
 *     operands' layouts, the one of least cost: the conversions of its
 *     operands into it, one issue slot per register it computes, and the
 *     conversions its known users will need (a wrregion user wants the
 *     pullback of its destination; any other instruction the canonical
 *     layout);
 *   - a media store writes its value from the value's own layout when
 *     each register of it is one row of the block (media_rows) or a
 *     pair of registers holds row neighbours (media_writes: a C tile in
 *     an accumulator's fragment);
 *   - a vector of contiguous block loads read only by its columns (AoS
 *     points turned into rows) is set in the run layout beforehand, its
 *     loads and wrregions left alone here (bwide.c);
 *   - a block load whose one user writes it at an element offset that is
 *     not a multiple of 32 takes the shifted layout that write wants
 *     (assign_load; mem.c loads each lane's element directly), and a
 *     media read whose users all want one layout (a cm_dpas fragment) is
 *     read in it, as is one whose one user adds it to a part of an
 *     accumulator (assign_mload, partner_layout);
 *   - cm_dpas results live in the accumulator's mma fragment and read
 *     their operands in theirs (dpas.c px_dpas_layout); a phi takes the
 *     layout its users want (want.c, propagated back from cm_dpas
 *     operands: a double-buffered tile), else that of a cm_dpas result it
 *     carries (a k loop's accumulator, tiles_layout), and a splat
 *     constant or a media read the layout wanted of it;
 *   - everything else (memory, votes, other phis, arguments, constants,
 *     runtime regions) is canonical.
 * Then every use that reads an operand in a layout other than the
 * operand's own records a copy; emit.c emits each copy once, right after
 * the definition (so it dominates every use, and is hoisted out of the
 * loops its users are in), or at the start of the nearest block of the
 * same loop depth that dominates all its readers (sink_copies: a copy
 * only an edge fix-up reads is made on the fix-up's path).  Splat
 * constants are materialized in any layout for free.  Scalars are uniform and have no layout.  Last, values
 * read at runtime positions, by many constant extracts in loops or by
 * constant regions that gather each register from many (a matrix's
 * column) get an SLM copy (assign_slm, slm.c), placed where it is stored
 * least often.
 *
 * With -fptx-layout=canonical every value is canonical and no copy exists
 * (no SLM copy either): the output is the model of ptx.h's top comment.
 */
#include <string.h>

#include "rt/cuda_abi.h"
#include "target/ptx/ptx.h"

typedef PxUse Use;

static bool is_vector(const Inst *v)
{
	return v && v->ty.elem != E_VOID && v->ty.n > 1;
}

static bool const_region(const Inst *i)
{
	return (i->op == Ordregion || i->op == Owrregion) && !ir_roff(i);
}

static bool elementwise(const Inst *i)
{
	return (ir_ops[i->op].flags & IRF_ELEMWISE) && !(ir_ops[i->op].flags & IRF_MEM);
}

static Layout *own(Px *p, const Inst *v)
{
	return is_vector(v) ? p->val[v->id].lay : NULL;
}

static const Layout *canon_of(Px *p, uint32_t n)
{
	if (!p->canon[n])
		p->canon[n] = lay_canonical(p->arena, n);
	return p->canon[n];
}

/* Whether media store u can write its value (operand k == 3) straight
 * from layout l: each register one row of the block at consecutive lanes
 * (layout.c lay_rows, mem.c media_fast_rows), as a column-offset select
 * of a wider matrix leaves it (a filter's output tile in its input's
 * layout). */
static bool media_rows(Px *p, const Inst *u, uint32_t k, const Layout *l)
{
	if (k != 3 || u->op != Omstore || !l || l->canon || u->ops[3]->ty.elem == E_I1)
		return false;
	uint32_t cols = u->imm > 0 ? (uint32_t)u->imm : u->ops[3]->ty.n;
	return lay_rows(p->arena, l, cols, NEWN(p->tmp, LRow, l->nregs));
}

/* Whether a media access moves n elements of type e in blocks of cols
 * columns from or to layout l as fast as from the canonical one: l has as
 * many registers, in pairs of 4-byte row neighbours (px_pair_regs), so
 * each pair is one 8-byte access per lane and a warp's pair fills whole
 * 32-byte sectors, as an mma or wgmma accumulator's fragment does.  (A
 * transposed tile, each lane a column's element, would touch twice the
 * sectors the canonical layout does.) */
static bool media_pairs(Px *p, const Layout *l, uint32_t n, uint32_t cols, Elem e)
{
	if (!l || l->canon || ir_elem_bytes[e] != 4 || l->nregs != SLOTS(n) || l->nregs % 2)
		return false;
	for (uint32_t s = 0; s < l->nregs; s += 2)
		if (!px_pair_regs(p, l, s, cols))
			return false;
	return true;
}

/* Whether media store u writes its value (operand k == 3) from layout l
 * as it is: a set of rows (media_rows), or pairs of row neighbours
 * (media_pairs), each lane's elements at an offset from its lane table
 * (mem.c media_fast_table): a C tile added to a wgmma or mma
 * accumulator's fragment is written from the fragment, with no shuffle. */
static bool media_writes(Px *p, const Inst *u, uint32_t k, const Layout *l)
{
	if (k != 3 || u->op != Omstore || !l || l->canon || u->ops[3]->ty.elem == E_I1)
		return false;
	const Inst *v = u->ops[3];
	uint32_t cols = u->imm > 0 ? (uint32_t)u->imm : v->ty.n;
	return (!p->o->no_fragment_media && media_pairs(p, l, v->ty.n, cols, v->ty.elem)) ||
	       media_rows(p, u, k, l);
}

/* The layout in which u reads its operand k (NULL: the operand's own). */
static const Layout *use_layout(Px *p, Inst *u, uint32_t k)
{
	Inst *v = u->ops[k];
	if (!is_vector(v))
		return NULL;
	if (u->op == Ordregion && !ir_roff(u) && k == 0)
		return NULL;
	if (u->op == Owrregion && !ir_roff(u) && is_vector(u)) {
		Inst *m = ir_mask(u);
		if (k == 0 || (k == 1 && !is_vector(m)))
			return NULL;
		/* a per-element mask is indexed by the new value's canonical slot */
	}
	if (elementwise(u) && is_vector(u) && k < (uint32_t)ir_ops[u->op].nops)
		return own(p, u);
	if (u->op == Ophi && own(p, u))
		return own(p, u);
	if ((u->op == Odpas || u->op == Owgmma) && px_dpas_layout(p, u, k))
		return px_dpas_layout(p, u, k);
	if (u->op == Ogather && k == 2 && own(p, u) && !own(p, u)->canon)
		return own(p, u);   /* assign_gather: offsets where the elements go */
	if (media_writes(p, u, k, own(p, v)))
		return NULL;
	return canon_of(p, v->ty.n);
}

const Layout *px_read_layout(Px *p, Inst *u, uint32_t k)
{
	const Layout *l = use_layout(p, u, k);
	return l ? l : own(p, u->ops[k]);
}

/* The cost of converting a value of element type e from layout a to b
 * (its plan in Px.tmp). */
static uint32_t conv_cost(Px *p, Elem e, const Layout *a, const Layout *b)
{
	if (!a || !b || lay_equal(a, b))
		return 0;
	return lay_cost(lay_plan(p->tmp, b, a, NULL), (uint32_t)ir_elem_bytes[e]);
}

/* The layout a wrregion user wants for the value it writes: its
 * destination's own layout pulled back through the region (in arena a). */
static const Layout *wanted_by_write(Px *p, Arena *a, const Inst *u, const Inst *v)
{
	if (u->op != Owrregion || ir_roff(u) || !is_vector(u) || u->ops[1] != v ||
	    is_vector(ir_mask(u)))
		return NULL;
	const Layout *d = own(p, u->ops[0]);
	return d ? lay_pullback(a, d, u->rg, v->ty.n, NULL) : NULL;
}

/* The cost of computing element-wise i in layout l. */
static uint32_t ew_cost(Px *p, Inst *i, const Layout *l, const Use *uses)
{
	uint32_t w = ir_elem_bytes[i->ty.elem] == 8 ? 2 : 1;
	uint32_t c = l->nregs * w;
	for (uint32_t k = 0; k < (uint32_t)ir_ops[i->op].nops; k++) {
		Inst *o = i->ops[k];
		if (!is_vector(o) || (o->op == Oconst && ir_const_is_splat(o)))
			continue;
		c += conv_cost(p, o->ty.elem, own(p, o), l);
	}
	bool canon_use = false;
	for (const Use *s = uses; s; s = s->next) {
		const Layout *want = wanted_by_write(p, p->tmp, s->u, i);
		if (want)
			c += conv_cost(p, i->ty.elem, l, want);
		else if (!elementwise(s->u) && !const_region(s->u) &&
		         !media_writes(p, s->u, s->k, l))
			canon_use = true;
	}
	if (canon_use)
		c += conv_cost(p, i->ty.elem, l, canon_of(p, i->ty.n));
	return c;
}

static void assign_ew(Px *p, Inst *i, const Use *uses)
{
	const Layout *best = canon_of(p, i->ty.n);
	uint32_t bc = ew_cost(p, i, best, uses);
	for (uint32_t k = 0; k < (uint32_t)ir_ops[i->op].nops; k++) {
		const Layout *l = own(p, i->ops[k]);
		if (!l || l->n != i->ty.n || lay_equal(l, best))
			continue;
		uint32_t c = ew_cost(p, i, l, uses);
		if (c < bc)
			best = l, bc = c;
	}
	p->val[i->id].lay = (Layout *)best;
	arena_reset(p->tmp);
}

/* A block load whose one user writes it into a vector at an offset that is
 * not a multiple of 32 elements (a row of 48, the second half of a
 * register) is loaded straight into the lanes that write wants: its
 * layout is a shift of the canonical one (mem.c block_shifted), and the
 * write costs no shuffle.  Only for 32-bit offsets (the per-lane address
 * form mem.c shifts). */
static bool assign_load(Px *p, Inst *i, const Use *uses)
{
	if (i->op != Obload || !uses || uses->next || px_class(i->ops[1]->ty.elem) != RC_B32 ||
	    i->ty.elem == E_I1)
		return false;
	const Layout *want = wanted_by_write(p, p->arena, uses->u, i);
	if (!want || want->canon || want->pos[0] == 0 || want->pos[0] >= 32 ||
	    want->nregs > SLOTS(i->ty.n) + 1)
		return false;
	for (uint32_t e = 0; e < i->ty.n; e++)
		if (want->pos[e] != e + want->pos[0])
			return false;
	p->val[i->id].lay = (Layout *)want;
	return true;
}

/* The layout of a k loop's accumulator: a phi that carries a cm_dpas
 * result around the loop lives in that result's fragment layout (dpas.c),
 * and one updated a tile at a time (acc.row(q) = cm_dpas(acc.row(q), ..)),
 * whose back edge brings a chain of wrregions of cm_dpas results down to
 * the phi itself, keeps each tile in its fragment layout, in registers of
 * its own.  Then neither the calls, their tiles' reads and writes nor the
 * back edge move anything; the value entering the loop is converted once,
 * before it.  NULL unless the tiles are disjoint and cover the phi. */
static const Layout *tiles_layout(Px *p, const Inst *phi, const Inst *v)
{
	uint32_t m = 0;
	for (const Inst *w = v; w != phi; w = w->ops[0], m++)
		if (w->op != Owrregion || ir_roff(w) || ir_mask(w) ||
		    (w->ops[1]->op != Odpas && w->ops[1]->op != Owgmma) ||
		    !ir_type_eq(w->ty, phi->ty) || !px_dpas_layout(p, w->ops[1], 0))
			return NULL;
	IrRegion *rg = NEWN(p->arena, IrRegion, m + 1);
	const Layout **part = NEWN(p->arena, const Layout *, m + 1);
	m = 0;
	for (const Inst *w = v; w != phi; w = w->ops[0], m++)
		rg[m] = w->rg, part[m] = px_dpas_layout(p, w->ops[1], 0);
	return lay_compose(p->arena, phi->ty.n, rg, part, m, false);
}

static const Layout *phi_layout(Px *p, const Inst *i)
{
	if (p->val[i->id].want)
		return p->val[i->id].want;
	for (uint32_t k = 0; k < i->nops; k++) {
		const Inst *v = i->ops[k];
		const Layout *l = NULL;
		if ((v->op == Odpas || v->op == Owgmma) && ir_type_eq(v->ty, i->ty))
			l = px_dpas_layout(p, v, 0);
		else if (v != i && v->op == Owrregion)
			l = tiles_layout(p, i, v);
		if (l)
			return l;
	}
	return NULL;
}

/* The one layout other than the canonical in which all of uses read
 * their operand, else NULL. */
static const Layout *users_layout(Px *p, const Use *uses)
{
	const Layout *want = NULL;
	for (const Use *s = uses; s; s = s->next) {
		const Layout *l = use_layout(p, s->u, s->k);
		if (!l || l->canon || (want && !lay_equal(want, l)))
			return NULL;
		want = l;
	}
	return want;
}

/* The layout constant rdregion i takes (assign_rd): the pullback of its
 * source's (regs: the source register of each of its registers), or
 * canonical when that would take over twice the registers. */
static Layout *rd_layout(Px *p, const Inst *i, uint32_t **regs)
{
	const Layout *src = own(p, i->ops[0]);
	uint32_t *from = NULL;
	Layout *l = src ? lay_pullback(p->arena, src, i->rg, i->ty.n, &from) : NULL;
	if (l && l->nregs <= 2 * SLOTS(i->ty.n)) {
		if (regs)
			*regs = from;
		return l->canon ? (Layout *)canon_of(p, i->ty.n) : l;
	}
	return (Layout *)canon_of(p, i->ty.n);
}

/* The layout of the other operand of read i's one user, an element-wise
 * operation, when that operand is (or, a constant region not yet
 * assigned, will be) in a layout of row pairs (media_pairs): a C tile read
 * to be added to a part of a wgmma or mma accumulator (c +=
 * acc.select<8, 1, 8, 1>(..)) is then read in the accumulator fragment's
 * layout, the sum made there and, when a media store writes it
 * (media_writes), written from there; read canonical, the fragment's part
 * would be shuffled into it (four shuffles and lane tables per 8 x 8 tile
 * of floats).  Else NULL. */
static const Layout *partner_layout(Px *p, const Inst *i, const Use *uses)
{
	if (p->o->no_fragment_media || !uses || uses->next || !elementwise(uses->u) ||
	    !is_vector(uses->u) || uses->u->ty.n != i->ty.n)
		return NULL;
	const Inst *u = uses->u;
	uint32_t cols = i->imm > 0 ? (uint32_t)i->imm : i->ty.n;
	for (uint32_t k = 0; k < (uint32_t)ir_ops[u->op].nops; k++) {
		const Inst *o = u->ops[k];
		if (o == i || !is_vector(o) || o->ty.n != i->ty.n)
			continue;
		const Layout *l = own(p, o);
		if (!l && o->op == Ordregion && !ir_roff(o) && is_vector(o->ops[0]))
			l = rd_layout(p, o, NULL);
		if (media_pairs(p, l, i->ty.n, cols, i->ty.elem))
			return l;
	}
	return NULL;
}

/* A media read whose users all read it in one other layout (a cm_dpas
 * fragment: a B tile of doubles wants element t*8 + g in lane 4g + t) is
 * read straight into it: each lane computes the row and column of its
 * element (mem.c media_fast_table), so no user moves it.  Only layouts
 * of as many registers as the canonical one (a permutation of it), or,
 * wanted as a part of a block (want.c), of at most twice as many if each
 * register is a row: the left half of a block of rows of 128 in a run
 * layout fills half the lanes of its registers, each read straight from
 * its row (mem.c media_fast_rows). */
static bool assign_mload(Px *p, Inst *i, const Use *uses)
{
	if (i->op != Omload || !uses || i->ty.elem == E_I1)
		return false;
	const Layout *want = p->val[i->id].want;
	uint32_t cols = i->imm > 0 ? (uint32_t)i->imm : i->ty.n;
	if (want && want->n == i->ty.n && (want->nregs == SLOTS(i->ty.n) ||
	    (want->nregs <= 2 * SLOTS(i->ty.n) &&
	     lay_rows(p->arena, want, cols, NEWN(p->tmp, LRow, want->nregs))))) {
		p->val[i->id].lay = (Layout *)want;
		return true;
	}
	want = users_layout(p, uses);
	if (!want)
		want = partner_layout(p, i, uses);
	if (!want || want->n != i->ty.n || want->nregs != SLOTS(i->ty.n))
		return false;
	p->val[i->id].lay = (Layout *)want;
	return true;
}

/* A gather whose users all want one layout of at most twice its
 * canonical registers (a cm_dpas fragment, or a part of one, of a tile
 * read from SLM) is read straight into it: lane l's register s loads the
 * element the layout puts there, if any, at the offset the same register
 * of the offset vector's copy in that layout holds (use_layout; a constant
 * vector's copy is made once, where it is defined), so no user moves it.
 * Unmasked, 32-bit offsets of a checked buffer (mem.c's index form). */
static bool assign_gather(Px *p, Inst *i, const Use *uses)
{
	if (i->op != Ogather || !uses || ir_mask(i) || i->ty.elem == E_I1 ||
	    (i->space != SP_SLM && i->space != SP_SURF) ||
	    px_class(i->ops[1]->ty.elem) != RC_B32 || px_class(i->ops[2]->ty.elem) != RC_B32)
		return false;
	const Layout *want = p->val[i->id].want;
	if (!want)
		want = users_layout(p, uses);
	if (!want || want->canon || want->n != i->ty.n || want->nregs > 2 * SLOTS(i->ty.n))
		return false;
	p->val[i->id].lay = (Layout *)want;
	return true;
}

static void assign_rd(Px *p, Inst *i)
{
	uint32_t *regs = NULL;
	p->val[i->id].lay = rd_layout(p, i, &regs);
	p->val[i->id].srcregs = regs;
}

/* Records that v is read in layout l by some user. */
static void need_copy(Px *p, Inst *v, const Layout *l)
{
	PxVal *pv = &p->val[v->id];
	if (!l || lay_equal(l, pv->lay))
		return;
	for (uint32_t k = 0; k < pv->ncopies; k++)
		if (lay_equal(pv->copy[k], l))
			return;
	if (pv->ncopies == PX_MAX_COPIES)
		die("value %%%u is read in more than %d layouts", v->id, PX_MAX_COPIES);
	if (!pv->copy)
		pv->copy = NEWN(p->arena, const Layout *, PX_MAX_COPIES);
	pv->copy[pv->ncopies++] = l;
}

/* The block where u reads operand k: a phi's at the end of the block the
 * operand comes from. */
static Block *use_block(const Inst *u, uint32_t k)
{
	return u->op == Ophi ? u->phiblk[k] : u->block;
}

/* The nearest block that dominates both a and b (dominators computed). */
static Block *common_dominator(Block *a, Block *b)
{
	while (a && !ir_dominates(a, b))
		a = a->idom == a ? NULL : a->idom;
	return a;
}

/* Moves each copy from right after its value's definition to the start
 * of the nearest block that dominates all its readers, when that is a
 * later block of the same loop depth or outside the loop (not into a
 * loop, where it would be made every iteration; an accumulator phi read
 * only after its k loop is converted once, at the exit).  A copy only an image's edge fix-up reads (a
 * runtime region, canonical) is then made on the fix-up's path alone,
 * not on every tile's. */
static void sink_copies(Px *p, Func *f, Use **uses)
{
	const uint32_t *depth = p->depth;
	ir_dominators(f);
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *v = f->blocks[b]->first; v; v = v->next) {
			PxVal *pv = &p->val[v->id];
			if (!is_vector(v) || !pv->ncopies || v->block->rpo == UINT32_MAX)
				continue;
			for (uint32_t c = 0; c < pv->ncopies; c++) {
				if (pv->in_slm && pv->store_after && pv->copy[c]->canon)
					continue;	/* stored from, right after v */
				Block *at = NULL;
				bool ok = true;
				for (const Use *s = uses[v->id]; s && ok; s = s->next) {
					const Layout *l = use_layout(p, s->u, s->k);
					if (!l || !lay_equal(l, pv->copy[c]))
						continue;
					Block *ub = use_block(s->u, s->k);
					ok = ub->rpo != UINT32_MAX;
					at = !at ? ub : common_dominator(at, ub);
					ok = ok && at;
				}
				if (!ok || !at || at == v->block || depth[at->id] > depth[v->block->id] ||
				    !ir_dominates(v->block, at))
					continue;
				if (!pv->copy_at)
					pv->copy_at = NEWN(p->arena, const Block *, PX_MAX_COPIES);
				pv->copy_at[c] = at;
				if (!p->sunk)
					p->sunk = NEWN(p->arena, PxSunk *, f->nblocks);
				PxSunk *s = NEW(p->arena, PxSunk);
				*s = (PxSunk){v, c, p->sunk[at->id]};
				p->sunk[at->id] = s;
			}
		}
}

/* Natural loops: every edge a -> h where h dominates a closes a loop of h
 * and the blocks that reach a without passing h; each block's depth
 * counts the loop headers it lies under.  Loops laid out with their test
 * at the bottom (entered at the test, which jumps up into the body) count
 * as well as top-tested ones. */
static void natural_depths(Px *p, Func *f, uint32_t *d)
{
	ir_dominators(f);
	bool *in = NEWN(p->arena, bool, f->nblocks);
	Block **work = NEWN(p->arena, Block *, f->nblocks);
	for (uint32_t h = 0; h < f->nblocks; h++) {
		Block *hb = f->blocks[h];
		uint32_t n = 0;
		bool loop = false;
		memset(in, 0, f->nblocks * sizeof *in);
		in[h] = true;	/* the walk stops at the header */
		for (uint32_t k = 0; k < hb->npreds; k++) {
			Block *a = hb->preds[k];
			if (a->rpo == UINT32_MAX || !ir_dominates(hb, a))
				continue;
			loop = true;	/* a == hb: a loop of one block */
			if (!in[a->id])
				in[a->id] = true, work[n++] = a;
		}
		if (!loop)
			continue;
		while (n) {
			Block *b = work[--n];
			for (uint32_t k = 0; k < b->npreds; k++) {
				Block *q = b->preds[k];
				if (q->rpo != UINT32_MAX && !in[q->id])
					in[q->id] = true, work[n++] = q;
			}
		}
		for (uint32_t x = 0; x < f->nblocks; x++)
			d[x] += in[x];
	}
}

/* Loop depth per block.  The lowering lays loops out in order, so a jump
 * to an earlier (or the same) block closes a loop over the blocks between.
 * That takes a jump to the join of an if whose arm holds an inlined call
 * (laid out before the arm's last blocks) for a loop: radix_pass's tile
 * loads were taken for a loop's, so each was checked alone, and the
 * kernel held 64 registers instead of 56.  -fexact-loop-depths counts
 * natural loops instead (natural_depths).  It is not the default: though
 * it cuts dgemm_slm from 140 registers to 128 and scan_tiles from 1.214
 * SASS an element to 1.131 (tests/sass), an H200 ran scan-i32 2^28 21%
 * and dgemm_slm 4096^3 9% slower with it (bitonic 2% faster; two rounds,
 * bench/runs/2026-11-28-session22/call2), for reasons not profiled. */
uint32_t *px_loop_depths(Px *p, Func *f)
{
	uint32_t *d = NEWN(p->arena, uint32_t, f->nblocks + 1);
	if (p->o->exact_loops) {
		natural_depths(p, f, d);
		return d;
	}
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (int k = 0; k < 2; k++) {
			Block *to = f->blocks[b]->jmp.to[k];
			if (f->blocks[b]->jmp.kind != J_RET && to && to->id <= b)
				for (uint32_t x = to->id; x <= b; x++)
					d[x]++;
		}
	return d;
}

static bool runtime_read(const Inst *i)
{
	return ((i->op == Ordregion && ir_roff(i)) || i->op == Oiselect) && is_vector(i->ops[0]);
}

/* One element at a constant position: a broadcast of one lane's register. */
static bool const_extract(const Inst *i)
{
	return i->op == Ordregion && !ir_roff(i) && i->ty.n == 1 && is_vector(i->ops[0]);
}

/* Whether v's constant extracts are cheaper from an SLM copy: each is a
 * shuffle in registers, at most one load (a quarter of a 16-byte
 * broadcast load when its neighbours are read too) from SLM, and the copy
 * costs a store per register and two warp barriers per definition.  Only
 * extracts in a deeper loop than v count: a value redefined as often as
 * it is read (gemm's A panel, 128 extracts per k step) gained nothing
 * measurable, and ptxas hoisted all 128 loads to the top of the step (96
 * -> 165 registers, so the 16-warp CTA could not launch; with .maxnreg
 * 128 it spilled). */
static bool extracts_pay(Func *f, const Inst *v, const uint32_t *depth)
{
	uint32_t n = 0, dv = depth[v->block->id];
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next)
			if (const_extract(i) && i->ops[0] == v && depth[b] > dv)
				n++;
	return n >= SLOTS(v->ty.n) + 4;
}

/* The shuffles of constant vector region i when its source keeps its own
 * registers: 0 for a rename (a pullback in place). */
static uint32_t region_shuffles(Px *p, const Inst *i)
{
	const PxVal *pv = &p->val[i->id];
	if (i->op != Ordregion || ir_roff(i) || i->ty.n < 2 || !is_vector(i->ops[0]) ||
	    pv->srcregs || !pv->lay || !own(p, i->ops[0]))
		return 0;
	int32_t *map = NEWN(p->tmp, int32_t, i->ty.n);
	for (uint32_t k = 0; k < i->ty.n; k++)
		map[k] = (int32_t)lay_region_index(i->rg, k);
	uint32_t n = lay_plan(p->tmp, pv->lay, own(p, i->ops[0]), map)->shfl;
	arena_reset(p->tmp);
	return n;
}

/* A constant vector region that gathers each of its registers from many
 * of its source's: a column of a matrix of rows of 16 floats takes 16
 * shuffles and 15 selects per register (k-means' AoS block turned into
 * rows, 256 shuffles per 32 points, one per distance term).  From an SLM
 * copy it is one load per register, and the copy costs a store per source
 * register; padded (column_pitch) the loads are conflict-free (H200:
 * k-means D16K16 1.66 -> 1.57 ms; unpadded, a 16-way conflict per load,
 * no faster than the shuffles on an H100). */
static bool costly_region(Px *p, const Inst *i)
{
	return !p->o->no_slm_regions && region_shuffles(p, i) > 4 * SLOTS(i->ty.n);
}

/* Where v's SLM copy is stored: right before its reads when they are all
 * in one block of v's loop depth or outside v's loop (so a path that never
 * reads v, like a stencil's interior tiles that skip the edge code, never
 * stores it, and an accumulator read after its loop is stored once), else
 * right after v's definition (hoisted out of the loops its reads are in). */
static void place_slm(Px *p, Func *f, Inst *v, const uint32_t *depth)
{
	Inst *first = NULL;
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next) {
			if (!(runtime_read(i) || const_extract(i) || p->val[i->id].slm_rd) ||
			    i->ops[0] != v)
				continue;
			if (first && first->block != i->block) {
				p->val[v->id].store_after = p->val[v->id].placed = true;
				return;
			}
			if (!first)
				first = i;
		}
	if (first && first->block != v->block && depth[first->block->id] <= depth[v->block->id])
		p->val[first->id].store_before = v;
	else
		p->val[v->id].store_after = true;
	p->val[v->id].placed = true;
}

/* Marks the constant extracts of SLM copies that share their 16-byte
 * group with another extract of the same block: one vector load serves
 * them (slm.c); a lone extract loads its element alone, so the load holds
 * no registers it does not use. */
static void group_extracts(Px *p, Func *f)
{
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next) {
			if (!const_extract(i) || !p->val[i->ops[0]->id].in_slm)
				continue;
			uint32_t per = 16 / px_slm_width(i->ops[0]->ty.elem);
			int64_t g = lay_region_index(i->rg, 0) / per;
			for (Inst *j = f->blocks[b]->first; j; j = j->next)
				if (j != i && const_extract(j) && j->ops[0] == i->ops[0] &&
				    lay_region_index(j->rg, 0) / per == g)
					p->val[i->id].grouped = true;
		}
}

/* A scalar extract at a runtime offset (k-means' cen(c, d)). */
static bool runtime_extract(const Inst *i)
{
	return i->op == Ordregion && ir_roff(i) && i->ty.n == 1 && is_vector(i->ops[0]);
}

/* The runtime-offset scalar extracts of an SLM copy in one block that share
 * their runtime offset (after cse and fold, c * D for every d of a row) and
 * whose constant offsets span at most 64 elements are loaded together by
 * the first of them (slm.c px_slm_rextract): one range check for all, and
 * 16-byte loads when the offset is aligned. */
static void group_rextracts(Px *p, Func *f)
{
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next) {
			PxVal *pi = &p->val[i->id];
			if (!runtime_extract(i) || !p->val[i->ops[0]->id].in_slm || pi->rlead)
				continue;
			int32_t lo = i->rg.offset, hi = i->rg.offset;
			uint32_t n = 0;
			for (Inst *j = i; j; j = j->next)
				if (runtime_extract(j) && j->ops[0] == i->ops[0] &&
				    ir_roff(j) == ir_roff(i) && !p->val[j->id].rlead) {
					lo = j->rg.offset < lo ? j->rg.offset : lo;
					hi = j->rg.offset > hi ? j->rg.offset : hi;
					n++;
				}
			if (n < 2 || (int64_t)hi - lo >= 64)
				continue;
			for (Inst *j = i; j; j = j->next)
				if (runtime_extract(j) && j->ops[0] == i->ops[0] && ir_roff(j) == ir_roff(i))
					p->val[j->id].rlead = i;
			pi->rkmin = lo, pi->rkmax = hi;
		}
}

/* The padding pitch of a copy of v read only by costly regions: when all
 * of them step rows of one power-of-two length R in 2..32 (columns of a
 * matrix of rows of R), R, so that a column's 32 elements, R words apart,
 * fall in 32 banks (R + 1 apart); else 0.  k-means' rows of 16 floats made
 * each column read a 16-way bank conflict, as slow in the shared-memory
 * pipe as the 16 shuffles it replaced (H100, 2026-11-27). */
static uint32_t column_pitch(Func *f, const Inst *v, const bool *costly)
{
	uint32_t r = 0;
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *j = f->blocks[b]->first; j; j = j->next) {
			if (j->nops == 0 || j->ops[0] != v)
				continue;
			if (runtime_read(j) || const_extract(j))
				return 0;
			if (!costly[j->id])
				continue;
			uint32_t vs = (uint32_t)j->rg.vstride;
			if (j->rg.vstride < 2 || j->rg.vstride > 32 || (vs & (vs - 1)) || (r && r != vs))
				return 0;
			r = vs;
		}
	return r;
}

/* Gives v its slice of the warp's scratch (first come, first served, up
 * to CUDA_MAX_SCRATCH bytes per warp), with a word of padding after every
 * pitch elements (0: none); false when it does not fit. */
static bool take_scratch(Px *p, Inst *v, uint32_t pitch)
{
	uint32_t words = SLOTS(v->ty.n) * 32;
	uint32_t bytes = (words + (pitch ? words / pitch : 0)) * px_slm_width(v->ty.elem);
	if (p->scratch + bytes > CUDA_MAX_SCRATCH)
		return false;
	PxVal *pv = &p->val[v->id];
	pv->in_slm = true;
	pv->slm = p->scratch;
	pv->slm_pitch = pitch;
	p->scratch += (bytes + 15) / 16 * 16;
	return true;
}

/* Values read at runtime positions (a runtime-offset rdregion, iselect)
 * that span more than one register get a copy in the warp's SLM scratch
 * (slm.c): there such a read is one load, where registers need a shuffle
 * from every register the position may be in and a select for each.  So
 * do values with many constant extracts (extracts_pay).  First come,
 * first served, up to CUDA_MAX_SCRATCH bytes per warp. */
static void assign_slm(Px *p, Func *f)
{
	const uint32_t *depth = p->depth;
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next) {
			if (!runtime_read(i) && !const_extract(i))
				continue;
			Inst *v = i->ops[0];
			uint32_t w = px_slm_width(v->ty.elem);
			PxVal *pv = &p->val[v->id];
			if (!w || pv->in_slm)
				continue;
			if (runtime_read(i) ? SLOTS(v->ty.n) < 2 : !extracts_pay(f, v, depth))
				continue;
			if (!take_scratch(p, v, 0))
				continue;
			place_slm(p, f, v, depth);
		}
	/* then, with the scratch left, the costly regions (their register
	 * form costs less than a runtime read's select per register); each
	 * region's shuffle plan is made once */
	bool *costly = NEWN(p->arena, bool, f->nextid + 1);
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next)
			costly[i->id] = costly_region(p, i) && px_slm_width(i->ops[0]->ty.elem) == 4;
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next) {
			if (p->val[i->id].slm_rd || !costly[i->id])
				continue;
			Inst *v = i->ops[0];
			PxVal *pv = &p->val[v->id];
			/* a copy placed for other readers serves when it is stored
			 * right after v, so before every reader */
			if (pv->in_slm ? !pv->store_after : !take_scratch(p, v, column_pitch(f, v, costly)))
				continue;
			for (uint32_t c = 0; c < f->nblocks; c++)
				for (Inst *j = f->blocks[c]->first; j; j = j->next)
					if (costly[j->id] && j->ops[0] == v)
						p->val[j->id].slm_rd = true;
			if (!pv->placed)
				place_slm(p, f, v, depth);
		}
	/* what is stored: the canonical registers, a copy made right after
	 * v when it is stored there; a store before a reader (off the path
	 * that does not read it) converts there itself (slm.c) */
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next)
			if (p->val[i->id].in_slm && p->val[i->id].store_after)
				need_copy(p, i, canon_of(p, i->ty.n));
	group_extracts(p, f);
	group_rextracts(p, f);
}

/* Each vector value's uses, latest first, in arena a (one array of nodes:
 * a kernel has a few per instruction). */
static Use **use_lists(Arena *a, Func *f)
{
	Use **uses = NEWN(a, Use *, f->nextid + 1);
	size_t n = 0;
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next)
			for (uint32_t k = 0; k < i->nops; k++)
				n += is_vector(i->ops[k]);
	Use *s = NEWN(a, Use, n ? n : 1);
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next)
			for (uint32_t k = 0; k < i->nops; k++) {
				Inst *v = i->ops[k];
				if (!is_vector(v))
					continue;
				*s = (Use){i, k, uses[v->id]};
				uses[v->id] = s++;
			}
	return uses;
}

void px_assign(Px *p)
{
	Func *f = p->f;
	uint32_t maxn = 1;
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next)
			if (i->ty.n > maxn)
				maxn = i->ty.n;
	p->val = NEWN(p->arena, PxVal, f->nextid + 1);
	p->canon = NEWN(p->arena, const Layout *, maxn + 1);
	Arena *ua = arena_child(p->arena);   /* the use lists: this function's */
	Use **uses = p->o->ptx_canonical ? NULL : use_lists(ua, f);
	if (uses) {
		px_wants(p, uses, px_seed_runs(p, uses));
		px_wide_loads(p, uses);
	}
	/* The sweep goes in reverse postorder (ir_preds), so a definition is
	 * seen before its uses other than phis' (a block that comes later in
	 * layout order may dominate an earlier one: a wrregion there took the
	 * not yet assigned, NULL, layout of its destination); unreachable
	 * blocks go last. */
	Block **order = NEWN(p->arena, Block *, f->nblocks ? f->nblocks : 1);
	uint32_t nr = 0;
	for (uint32_t b = 0; b < f->nblocks; b++)
		if (f->blocks[b]->rpo != UINT32_MAX)
			order[f->blocks[b]->rpo] = f->blocks[b], nr++;
	for (uint32_t b = 0; b < f->nblocks; b++)
		if (f->blocks[b]->rpo == UINT32_MAX)
			order[nr++] = f->blocks[b];
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = order[b]->first; i; i = i->next) {
			if (!is_vector(i) || p->val[i->id].wpart)
				continue;
			if (!uses)
				p->val[i->id].lay = (Layout *)canon_of(p, i->ty.n);
			else if (i->op == Ordregion && !ir_roff(i) && is_vector(i->ops[0]))
				assign_rd(p, i);
			else if (i->op == Owrregion && !ir_roff(i) && own(p, i->ops[0]))
				p->val[i->id].lay = own(p, i->ops[0]);
			else if (elementwise(i))
				assign_ew(p, i, uses[i->id]);
			else if (assign_load(p, i, uses[i->id]) || assign_mload(p, i, uses[i->id]) ||
			         assign_gather(p, i, uses[i->id]))
				;
			else if ((i->op == Odpas || i->op == Owgmma) && px_dpas_layout(p, i, 0))
				p->val[i->id].lay = (Layout *)px_dpas_layout(p, i, 0);
			else if (i->op == Ophi && phi_layout(p, i))
				p->val[i->id].lay = (Layout *)phi_layout(p, i);
			else if (i->op == Oconst && ir_const_is_splat(i) && p->val[i->id].want)
				p->val[i->id].lay = (Layout *)p->val[i->id].want;
			else
				p->val[i->id].lay = (Layout *)canon_of(p, i->ty.n);
		}
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (Inst *i = f->blocks[b]->first; i; i = i->next)
			for (uint32_t k = 0; k < i->nops; k++)
				if (is_vector(i->ops[k]))
					need_copy(p, i->ops[k], use_layout(p, i, k));
	if (uses)
		assign_slm(p, f);
	if (uses)
		sink_copies(p, f, uses);
	arena_reset(p->tmp);
	arena_reset(ua);
}
