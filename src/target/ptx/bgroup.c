/* bgroup.c — groups of block accesses at one runtime offset plus
 * constants, checked once.
 *
 * requires: layouts assigned (assign.c); no output.
 * changes: fills PxVal.blead, .bc (members) and .bg (leaders).
 *
 * A tile loop unrolled by the front end reads row after row of one buffer
 * at offsets (t * 1024 + 32 k) * 4, k = 0..31: each block access alone
 * computes its 64-bit address, its wrap guard and its bounds check, about
 * nine SASS per 128-byte row (scan's tile, transpose's rows, sgemm's four
 * B reads from SLM).  Decomposed, every such offset is root * scale + c
 * for one root value and constants scale and c.  The block accesses of a
 * basic block with the same buffer, element size and (root, scale) form a
 * group: its first member (the leader, mem.c) tests once, uniformly,
 * whether all of [root * scale + lo, root * scale + hi) lies inside the
 * buffer and builds one pointer; each member then reads or writes its
 * slots at immediate offsets with no check, and takes its own checked
 * path (out of line) when the test fails.  Offsets are u32 arithmetic
 * modulo 2^32, so the test also requires that no member's offset wraps.
 * Only outside loops: each member's branch to its checked path makes
 * ptxas open a reconvergence region (BSSY/BSYNC) around it, and in a loop
 * body those regions cut its schedule (the paper's sgemm went from 2.29 to
 * 3.31 SASS per FMA, dgemm from 5.15 to 6.25); a tile's straight-line
 * loads and stores gain (scan's tile: 1.27 to 1.02 SASS per element, 73
 * to 48 registers).
 */
#include "target/ptx/ptx.h"

/* The largest distance between a group's members kept in one group. */
#define SPAN_MAX IR_AFFINE_SPAN

static bool is_const_int(const Inst *v, int64_t *k)
{
	if (!v || v->op != Oconst || v->ty.n != 1 || ir_is_float(v->ty.elem) ||
	    px_class(v->ty.elem) != RC_B32)
		return false;
	*k = ir_const_at(v, 0).i;
	if (!ir_is_signed(v->ty.elem))
		*k = (int64_t)(uint32_t)*k;
	return true;
}

/* A block access that can join a group: 32-bit offset, checked buffer
 * (surface or SLM), several elements, canonical registers. */
static bool groupable(Px *p, const Inst *i)
{
	if ((i->op != Obload && i->op != Obstore) || p->val[i->id].proven)
		return false;
	const Inst *val = i->op == Obstore ? i->ops[2] : i;
	if (val->ty.n < 2 || val->ty.elem == E_I1 || px_class(i->ops[1]->ty.elem) != RC_B32 ||
	    (i->space != SP_SURF && i->space != SP_SLM))
		return false;
	const Layout *l = i->op == Obstore ? px_read_layout(p, (Inst *)i, 2) : p->val[i->id].lay;
	if (l && !l->canon)
		return false;
	int64_t k;
	return !is_const_int(i->ops[1], &k);
}

static bool same_group(const Inst *a, const Inst *b)
{
	const Inst *va = a->op == Obstore ? a->ops[2] : a, *vb = b->op == Obstore ? b->ops[2] : b;
	return a->space == b->space && a->ops[0] == b->ops[0] &&
	       ir_elem_bytes[va->ty.elem] == ir_elem_bytes[vb->ty.elem] && a->align == b->align;
}

/* Forms the group led by i among the accesses after it in its block. */
static void group_from(Px *p, Inst *i)
{
	const Inst *root;
	uint32_t scale;
	int64_t c;
	ir_affine(i->ops[1], &root, &scale, &c);
	int64_t lo = c, hi = c;
	uint32_t n = 0;
	for (Inst *j = i; j; j = j->next) {
		const Inst *rj;
		uint32_t sj;
		int64_t cj;
		if (!groupable(p, j) || !same_group(i, j) || p->val[j->id].blead)
			continue;
		ir_affine(j->ops[1], &rj, &sj, &cj);
		const Inst *vj = j->op == Obstore ? j->ops[2] : j;
		int64_t end = cj + (int64_t)SLOTS(vj->ty.n) * 32 * ir_elem_bytes[vj->ty.elem];
		if (rj != root || sj != scale || (cj < lo ? hi - cj : end - lo) > SPAN_MAX)
			continue;
		p->val[j->id].blead = i;
		p->val[j->id].bc = cj;
		lo = cj < lo ? cj : lo;
		hi = end > hi ? end : hi;
		n++;
	}
	PxVal *v = &p->val[i->id];
	if (n < 2) {	/* alone: the plain checked access is as cheap */
		for (Inst *j = i; j; j = j->next)
			if (p->val[j->id].blead == i)
				p->val[j->id].blead = NULL;
		return;
	}
	v->bg = NEW(p->arena, PxBGroup);
	*v->bg = (PxBGroup){.root = root, .scale = scale, .lo = lo, .hi = hi};
}

void px_block_groups(Px *p)
{
	if (p->o->ptx_canonical)
		return;
	const uint32_t *depth = p->depth;
	for (uint32_t b = 0; b < p->f->nblocks; b++)
		for (Inst *i = p->f->blocks[b]->first; i && !depth[b]; i = i->next)
			if (groupable(p, i) && !p->val[i->id].blead)
				group_from(p, i);
}
