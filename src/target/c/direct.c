/* direct.c — block reads used in place.
 *
 * A block read copies n bytes into its value's array, and its users then
 * read that array: for a kernel that reads, computes and writes back
 * (saxpy: read x, read y, write a * x + y) the copies were most of the
 * instructions, and a memory-bound loop runs at the rate the core issues
 * its loads.  A direct read leaves the value in memory: its C variable is
 * a pointer, set to the bytes themselves when the whole block is in range
 * (cmk_bload_at) and otherwise to an array d<id> that the checked copy
 * fills (0 for elements out of range), so the users' v<id>[k] is the same
 * text either way.  bench-cpu saxpy, 2 cores, with -funroll-loops for the
 * kernel's C (emit.c): CM / C 1.10x-1.15x before, see the commit.
 *
 * The value must be the same when its users read memory as when the read
 * ran, so a read is direct only when
 *   - every user is an element-wise op (not a phi) in the read's block:
 *     those read the value element by element, never its whole array
 *     (memcpy, sizeof), and
 *   - between the read and where each user is emitted (its bale root:
 *     bale.c may move it into a later user's loop) every instruction is
 *     pure or a memory read: no write, atomic, barrier, fence, wait or
 *     print, which might change the bytes (ours or another thread's,
 *     ordered by the barrier), and
 *   - no other value shares its variable (storage.c), so nothing writes
 *     through the pointer.
 * Not under -g, whose variables the debugger shows as arrays.
 *
 * requires: CGen.store (storage.c), CGen.inl (bale.c); provides: CGen.direct
 * for emit.c (declarations) and mem.c (block_op). */
#include "target/c/c.h"

/* z leaves memory alone (it may read it). */
static bool quiet(const Inst *z)
{
	unsigned fl = ir_ops[z->op].flags;
	return (fl & IRF_PURE) || ((fl & IRF_MEM) && !ir_writes_memory(z));
}

/* How many operands of z are v. */
static uint32_t uses(const Inst *z, const Inst *v)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < z->nops; k++)
		n += z->ops[k] == v;
	return n;
}

/* Where z is emitted: z, or the user whose loop computes it (bale.c). */
static const Inst *root(CGen *g, const Inst *z)
{
	while (g->inl[z->id]) {
		const Inst *u = z->next;
		while (u && !uses(u, z))
			u = u->next;
		if (!u)
			die("C back end: inlined %%%u has no user in its block", z->id);
		z = u;
	}
	return z;
}

/* Block read v may be read in place by its users. */
static bool direct_ok(CGen *g, const Inst *v, const uint32_t *shared)
{
	if (v->op != Obload || v->ty.n < 2 || g->store[v->id] != v->id || shared[v->id] != 1)
		return false;
	uint32_t seen = 0;
	for (const Inst *z = v->next; z; z = z->next) {
		uint32_t n = uses(z, v);
		if (!n)
			continue;
		if (z->op == Ophi || !(ir_ops[z->op].flags & IRF_ELEMWISE) || z->ty.n != v->ty.n)
			return false;
		seen += n;
		const Inst *r = root(g, z);
		for (const Inst *q = v->next; q != r; q = q->next)
			if (!quiet(q))
				return false;
	}
	return seen == v->nuse;
}

bool *c_direct(CGen *g, Func *f)
{
	bool *d = NEWN(f->arena, bool, f->nextid + 1);
	if (g->o->debug)
		return d;
	uint32_t *shared = NEWN(f->arena, uint32_t, f->nextid + 1);
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i; i = i->next)
			if (i->ty.elem != E_VOID)
				shared[g->store[i->id]]++;
	ir_count_uses(f);
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i; i = i->next)
			d[i->id] = direct_ok(g, i, shared);
	return d;
}
