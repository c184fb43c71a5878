/* storage.c — which C variable holds each SSA value: copy coalescing of
 * wrregion chains and phi webs, so vectors are updated in place.
 *
 * Every value starts in its own variable.  Candidate pairs (a wrregion or
 * copy and its old value; a phi and each of its operands) are merged
 * greedily into storage classes, wrregions first, when no member of one
 * class interferes with a member of the other:
 *   - two values interfere when one is live just after the other's
 *     definition (SSA: then the defining one dominates; Budimlic et al.);
 *   - an instruction may share its variable with an operand only where
 *     the emitted C reads each element before writing it: the old value of
 *     a wrregion, any operand of an element-wise op (c.h's element loops).
 * Liveness is the classic backward data flow over vector values, with a
 * phi's operand used at the end of its predecessor and the phi defined at
 * the top of its block.  Only vectors (n > 1) are coalesced; scalars are
 * the C compiler's business, but under -g the values of one CM variable
 * (Inst.name) share a variable where they can, so that the debugger shows
 * one v<id>_<name> for it, and values of different CM variables never do.  Classes hold one type, so the variable
 * declared for a class (its root, the smallest id) fits every member.
 *
 * requires: SSA; provides: CGen.store (by value id: the id of the C
 * variable) for emit.c, whose phi moves (emit.c edge) read every operand
 * before writing a phi's variable when another move of the edge reads it. */
#include <string.h>

#include "target/c/c.h"

typedef struct {
	Func *f;
	uint32_t nvals;       /* ids are below this */
	uint32_t *vec;        /* by id: dense vector index + 1, or 0 */
	uint32_t nvec, words; /* vector values, bitset words per block */
	uint64_t *livein, *liveout;   /* by block layout index */
	uint32_t *pos;        /* by id: 0 for phis, 1 + index otherwise */
	uint32_t *bidx;       /* by block id: layout index */
	Inst ***uses;         /* by dense index: users (non-phi), NULL-ended */
	uint32_t *root, *next, *last; /* union-find, member lists by id */
	Inst **insts;         /* by id */
	uint64_t *scratch;    /* one block's live set */
	bool keep_names;      /* -g: values of different CM variables never
	                         share a C variable (it is named after one) */
} St;

/* The values that may share a variable: vectors, and under -g the scalars
 * of a CM variable (one variable per CM variable where lives allow). */
static bool is_vec(const St *s, const Inst *v)
{
	return v && v->ty.elem != E_VOID && (v->ty.n > 1 || (s->keep_names && v->name));
}

static uint64_t *bits_of(St *s, uint64_t *set, const Block *b)
{
	return set + (size_t)s->bidx[b->id] * s->words;
}

static bool test_bit(const uint64_t *set, uint32_t k) { return set[k / 64] >> (k % 64) & 1; }
static void set_bit(uint64_t *set, uint32_t k) { set[k / 64] |= 1ull << (k % 64); }

/* Numbers the vector values, positions and the (non-phi) users of each. */
static void number(St *s)
{
	Func *f = s->f;
	Arena *a = f->arena;
	uint32_t maxblk = 0;
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		maxblk = f->blocks[bi]->id > maxblk ? f->blocks[bi]->id : maxblk;
	s->bidx = NEWN(a, uint32_t, maxblk + 1);
	uint32_t *nuse = NEWN(a, uint32_t, s->nvals);
	for (uint32_t bi = 0; bi < f->nblocks; bi++) {
		Block *b = f->blocks[bi];
		s->bidx[b->id] = bi;
		uint32_t p = 1;
		for (Inst *i = b->first; i; i = i->next) {
			s->pos[i->id] = i->op == Ophi ? 0 : p++;
			if (is_vec(s, i))
				s->vec[i->id] = ++s->nvec;
			if (i->op != Ophi)
				for (uint32_t k = 0; k < i->nops; k++)
					if (is_vec(s, i->ops[k]))
						nuse[i->ops[k]->id]++;
		}
	}
	s->uses = NEWN(a, Inst **, s->nvec + 1);
	for (uint32_t id = 0; id < s->nvals; id++)
		if (s->vec[id])
			s->uses[s->vec[id] - 1] = NEWN(a, Inst *, nuse[id] + 1);
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i; i = i->next) {
			if (i->op == Ophi)
				continue;
			for (uint32_t k = 0; k < i->nops; k++) {
				Inst *v = i->ops[k];
				if (!is_vec(s, v))
					continue;
				Inst **u = s->uses[s->vec[v->id] - 1];
				while (*u && *u != i)
					u++;
				*u = i;
			}
		}
	s->words = (s->nvec + 63) / 64;
}

/* One step of the backward flow for block b; true when livein changed. */
static bool flow(St *s, Block *b)
{
	uint32_t w = s->words;
	uint64_t *out = bits_of(s, s->liveout, b), *in = bits_of(s, s->livein, b);
	int nsucc = b->jmp.kind == J_CBR ? 2 : b->jmp.kind == J_BR ? 1 : 0;
	for (int t = 0; t < nsucc; t++) {
		Block *to = b->jmp.to[t];
		uint64_t *sin = bits_of(s, s->livein, to);
		for (uint32_t k = 0; k < w; k++)
			out[k] |= sin[k];
		for (Inst *p = to->first; p && p->op == Ophi; p = p->next)
			for (uint32_t k = 0; k < p->nops; k++)
				if (p->phiblk[k] == b && is_vec(s, p->ops[k]))
					set_bit(out, s->vec[p->ops[k]->id] - 1);
	}
	uint64_t *nin = s->scratch;
	memcpy(nin, out, w * sizeof *nin);
	for (Inst *i = b->last; i; i = i->prev) {
		if (is_vec(s, i))
			nin[(s->vec[i->id] - 1) / 64] &= ~(1ull << ((s->vec[i->id] - 1) % 64));
		if (i->op == Ophi)
			continue;
		for (uint32_t k = 0; k < i->nops; k++)
			if (is_vec(s, i->ops[k]))
				set_bit(nin, s->vec[i->ops[k]->id] - 1);
	}
	bool changed = memcmp(nin, in, w * sizeof *nin) != 0;
	memcpy(in, nin, w * sizeof *nin);
	return changed;
}

static void liveness(St *s)
{
	Func *f = s->f;
	size_t n = (size_t)f->nblocks * s->words + 1;
	s->livein = NEWN(f->arena, uint64_t, n);
	s->liveout = NEWN(f->arena, uint64_t, n);
	s->scratch = NEWN(f->arena, uint64_t, s->words + 1);
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t bi = f->nblocks; bi-- > 0;)
			changed |= flow(s, f->blocks[bi]);
	}
}

/* x (defined before y, which it dominates) is live just after y. */
static bool live_after(St *s, const Inst *x, const Inst *y)
{
	if (test_bit(bits_of(s, s->liveout, y->block), s->vec[x->id] - 1))
		return true;
	for (Inst **u = s->uses[s->vec[x->id] - 1]; *u; u++)
		if ((*u)->block == y->block && s->pos[(*u)->id] > s->pos[y->id])
			return true;
	return false;
}

static bool interfere(St *s, const Inst *x, const Inst *y)
{
	if (x->block == y->block) {
		uint32_t px = s->pos[x->id], py = s->pos[y->id];
		return (px <= py && live_after(s, x, y)) || (py <= px && live_after(s, y, x));
	}
	if (ir_dominates(x->block, y->block))
		return live_after(s, x, y);
	if (ir_dominates(y->block, x->block))
		return live_after(s, y, x);
	return false;
}

/* y reads x in a way that breaks if they share a variable. */
static bool unsafe_use(const Inst *y, const Inst *x)
{
	if (y->op == Ophi || ir_ops[y->op].flags & IRF_ELEMWISE)
		return false;
	for (uint32_t k = 0; k < y->nops; k++)
		if (y->ops[k] == x && !(y->op == Owrregion && k == 0))
			return true;
	return false;
}

static uint32_t find(St *s, uint32_t id)
{
	while (s->root[id] != id)
		id = s->root[id] = s->root[s->root[id]];
	return id;
}

/* Merges the classes of a and b when nothing in them conflicts. */
static void try_merge(St *s, Inst *a, Inst *b)
{
	uint32_t ra = find(s, a->id), rb = find(s, b->id);
	if (ra == rb || !ir_type_eq(a->ty, b->ty))
		return;
	if (a->ty.n == 1 && a->name != b->name)
		return;   /* -g: scalars join within one CM variable only */
	for (uint32_t x = ra; x != UINT32_MAX; x = s->next[x])
		for (uint32_t y = rb; y != UINT32_MAX; y = s->next[y]) {
			Inst *ix = s->insts[x], *iy = s->insts[y];
			if (interfere(s, ix, iy) || unsafe_use(ix, iy) || unsafe_use(iy, ix))
				return;
			if (s->keep_names && ix->name && iy->name && ix->name != iy->name)
				return;   /* names are interned */
		}
	if (rb < ra) {
		uint32_t t = ra;
		ra = rb, rb = t;
	}
	s->root[rb] = ra;
	s->next[s->last[ra]] = rb;
	s->last[ra] = s->last[rb];
}

/* Candidates of one kind: wrregion and copy (phis == false) or phis. */
static void coalesce(St *s, bool phis)
{
	Func *f = s->f;
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i; i = i->next) {
			if (!is_vec(s, i))
				continue;
			if (!phis && (i->op == Owrregion || i->op == Ocopy) && is_vec(s, i->ops[0]))
				try_merge(s, i, i->ops[0]);
			if (phis && i->op == Ophi)
				for (uint32_t k = 0; k < i->nops; k++)
					if (is_vec(s, i->ops[k]))
						try_merge(s, i, i->ops[k]);
		}
}

uint32_t *c_assign_storage(Func *f, bool keep_names)
{
	Arena *a = f->arena;
	St s = {.f = f, .nvals = f->nextid + 1, .keep_names = keep_names};
	s.vec = NEWN(a, uint32_t, s.nvals);
	s.pos = NEWN(a, uint32_t, s.nvals);
	s.root = NEWN(a, uint32_t, s.nvals);
	s.next = NEWN(a, uint32_t, s.nvals);
	s.last = NEWN(a, uint32_t, s.nvals);
	s.insts = NEWN(a, Inst *, s.nvals);
	for (uint32_t id = 0; id < s.nvals; id++)
		s.root[id] = s.last[id] = id, s.next[id] = UINT32_MAX;
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i; i = i->next)
			s.insts[i->id] = i;
	ir_dominators(f);
	number(&s);
	liveness(&s);
	coalesce(&s, false);
	coalesce(&s, true);
	for (uint32_t id = 0; id < s.nvals; id++)
		s.root[id] = find(&s, id);
	return s.root;
}
