/* ir.c — CMIR construction and editing: the opcode and type tables, new
 * kernels, blocks and instructions, the builder cursor, use replacement,
 * and the small analyses every pass needs (predecessors, reverse
 * postorder, dominators, use counts).  A kernel's name and parameters
 * live in the module's arena, its blocks and instructions in its own
 * (ir_func_release frees them once the kernel is emitted). */
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"
#include "rt/cmk_abi.h"

const OpInfo ir_ops[O_COUNT_] = {
#define X(n, s, c, f) [O##n] = {s, c, f},
	IR_OPS(X)
#undef X
};

const char *const ir_elem_name[E_COUNT_] = {
#define X(n, s, b, f) s,
	IR_ELEMS(X)
#undef X
};

const int ir_elem_bytes[E_COUNT_] = {
#define X(n, s, b, f) b,
	IR_ELEMS(X)
#undef X
};

static const int elem_flags[E_COUNT_] = {
#define X(n, s, b, f) f,
	IR_ELEMS(X)
#undef X
};

const char *const ir_atomic_name[AT_COUNT_] = {
#define X(n, s, k) s,
	IR_ATOMICS(X)
#undef X
};

const int ir_atomic_nsrc[AT_COUNT_] = {
#define X(n, s, k) k,
	IR_ATOMICS(X)
#undef X
};

const char *const ir_tid_name[TID_COUNT_] = {
#define X(n, s) s,
	IR_TIDS(X)
#undef X
};

bool ir_is_float(Elem e) { return elem_flags[e] & IRE_FLOAT; }
bool ir_is_signed(Elem e) { return elem_flags[e] & IRE_SIGNED; }
bool ir_is_int(Elem e) { return e >= E_I8 && e <= E_U64; }

bool ir_type_eq(IrType a, IrType b)
{
	return a.elem == b.elem && a.n == b.n;
}

char *ir_type_str(IrType t, char buf[16])
{
	if (t.n == 1 || t.elem == E_VOID)
		snprintf(buf, 16, "%s", ir_elem_name[t.elem]);
	else
		snprintf(buf, 16, "v%u%s", t.n, ir_elem_name[t.elem]);
	return buf;
}

/* CMK_ELEM_* run I8..F64 in the same order as Elem. */
Elem ir_elem_from_cmk(uint32_t cmk)
{
	if (cmk < CMK_ELEM_I8 || cmk > CMK_ELEM_F64)
		return E_VOID;
	return (Elem)(E_I8 + (cmk - CMK_ELEM_I8));
}

uint32_t ir_elem_to_cmk(Elem e)
{
	if (e < E_I8 || e > E_F64)
		return CMK_ELEM_NONE;
	return CMK_ELEM_I8 + (uint32_t)(e - E_I8);
}

Module *ir_module_new(Arena *a)
{
	Module *m = NEW(a, Module);
	m->arena = a;
	return m;
}

/* Grows an arena array of pointers (old storage is left in the arena). */
static void **grow(Arena *a, void **p, uint32_t len, uint32_t *cap)
{
	if (len < *cap)
		return p;
	uint32_t nc = *cap ? *cap * 2 : 8;
	void **np = NEWN(a, void *, nc);
	if (len)
		memcpy(np, p, sizeof(void *) * len);
	*cap = nc;
	return np;
}

Func *ir_func_new(Module *m, const char *name, Loc loc)
{
	Func *f = NEW(m->arena, Func);
	f->name = intern_cstr(name);
	f->mod = m;
	f->arena = arena_child(m->arena);
	f->loc = loc;
	m->funcs = (Func **)grow(m->arena, (void **)m->funcs, m->nfuncs, &m->capfuncs);
	m->funcs[m->nfuncs++] = f;
	return f;
}

void ir_func_release(Func *f)
{
	arena_reset(f->arena);
	f->blocks = NULL;
	f->nblocks = f->capblocks = 0;
}

IrParam *ir_param_add(Func *f, const char *name, uint32_t kind, IrType ty)
{
	Arena *a = f->mod->arena;   /* the metadata outlives the body */
	IrParam *np = NEWN(a, IrParam, f->nparams + 1);
	if (f->nparams)
		memcpy(np, f->params, sizeof(IrParam) * f->nparams);
	f->params = np;
	IrParam *p = &np[f->nparams++];
	p->name = intern_cstr(name);
	p->kind = kind;
	p->ty = ty;
	p->type_attr = "";
	return p;
}

Block *ir_block_new(Func *f)
{
	Block *b = NEW(f->arena, Block);
	b->id = f->nextblk++;
	b->func = f;
	f->blocks = (Block **)grow(f->arena, (void **)f->blocks, f->nblocks,
	                           &f->capblocks);
	f->blocks[f->nblocks++] = b;
	return b;
}

Block *ir_block_new_before(Func *f, Block *pos)
{
	Block *b = ir_block_new(f);
	uint32_t k = f->nblocks - 1;
	for (; k > 0 && f->blocks[k - 1] != pos; k--)
		f->blocks[k] = f->blocks[k - 1];
	ASSERT(k > 0);   /* pos is one of f's blocks */
	f->blocks[k] = pos;
	f->blocks[k - 1] = b;
	return b;
}

void ir_block_drop(Func *f, const Block *b)
{
	uint32_t k = 0;
	while (f->blocks[k] != b)
		k++;
	memmove(&f->blocks[k], &f->blocks[k + 1], sizeof(Block *) * (f->nblocks - k - 1));
	f->nblocks--;
}

void ir_block_merge(Func *f, Block *b, Block *c)
{
	for (Inst *i = c->first, *next; i; i = next) {
		next = i->next;
		if (i->op == Ophi) {
			ir_replace_uses(f, i, i->ops[0]);
			ir_remove(i);
			continue;
		}
		ir_remove(i);
		ir_append(b, i);
	}
	b->jmp = c->jmp;
	for (int s = 0; s < 2; s++) {
		Block *t = b->jmp.kind == J_CBR || (b->jmp.kind == J_BR && s == 0) ? b->jmp.to[s] : NULL;
		for (Inst *i = t ? t->first : NULL; i && i->op == Ophi; i = i->next)
			for (uint32_t k = 0; k < i->nops; k++)
				if (i->phiblk[k] == c)
					i->phiblk[k] = b;
	}
	ir_block_drop(f, c);
}

Inst *ir_inst_new(Func *f, Op op, IrType ty, uint32_t nops, Loc loc)
{
	Inst *i = NEW(f->arena, Inst);
	i->op = op;
	i->ty = ty;
	i->id = f->nextid++;
	i->loc = loc;
	i->nops = nops;
	if (nops)
		i->ops = NEWN(f->arena, Inst *, nops);
	return i;
}

void ir_append(Block *b, Inst *i)
{
	i->block = b;
	i->prev = b->last;
	i->next = NULL;
	if (b->last)
		b->last->next = i;
	else
		b->first = i;
	b->last = i;
}

void ir_insert_before(Inst *pos, Inst *i)
{
	Block *b = pos->block;
	i->block = b;
	i->next = pos;
	i->prev = pos->prev;
	if (pos->prev)
		pos->prev->next = i;
	else
		b->first = i;
	pos->prev = i;
}

void ir_insert_after(Inst *pos, Inst *i)
{
	if (pos->next)
		ir_insert_before(pos->next, i);
	else
		ir_append(pos->block, i);
}

void ir_remove(Inst *i)
{
	Block *b = i->block;
	if (i->prev)
		i->prev->next = i->next;
	else
		b->first = i->next;
	if (i->next)
		i->next->prev = i->prev;
	else
		b->last = i->prev;
	i->prev = i->next = NULL;
	i->block = NULL;
}

void ir_replace_uses(Func *f, Inst *old, Inst *with)
{
	if (!with->name)          /* as ir_forward */
		with->name = old->name;
	for (uint32_t bi = 0; bi < f->nblocks; bi++) {
		Block *b = f->blocks[bi];
		for (Inst *i = b->first; i; i = i->next)
			for (uint32_t k = 0; k < i->nops; k++)
				if (i->ops[k] == old)
					i->ops[k] = with;
		if (b->jmp.cond == old)
			b->jmp.cond = with;
	}
}

void ir_forward(Inst *old, Inst *with)
{
	ASSERT(old != with && ir_resolve(with) != old);   /* no cycle of forwards */
	old->fwd = with;
	if (!with->name)          /* -g: the variable lives on in the value */
		with->name = old->name;
}

Inst *ir_resolve(Inst *v)
{
	while (v && v->fwd)
		v = v->fwd;
	return v;
}

void ir_resolve_ops(Inst *i)
{
	for (uint32_t k = 0; k < i->nops; k++)
		i->ops[k] = ir_resolve(i->ops[k]);
}

void ir_apply_forwards(Func *f)
{
	for (uint32_t bi = 0; bi < f->nblocks; bi++) {
		Block *b = f->blocks[bi];
		for (Inst *i = b->first; i; i = i->next)
			ir_resolve_ops(i);
		b->jmp.cond = ir_resolve(b->jmp.cond);
	}
}

bool ir_writes_memory(const Inst *i)
{
	if (ir_ops[i->op].flags & IRF_BARRIER)
		return true;
	if (!(ir_ops[i->op].flags & IRF_MEM))
		return false;
	return i->ty.elem == E_VOID || i->op == Oatomic || i->op == Otatomic;
}

bool ir_global_read(const Inst *i)
{
	return (ir_ops[i->op].flags & IRF_MEM) && !ir_writes_memory(i) && i->space != SP_SLM;
}

bool ir_may_touch(const Inst *w, const Inst *r)
{
	if (ir_ops[w->op].flags & IRF_BARRIER)
		return true;
	if (!ir_writes_memory(w) || w->space == SP_SLM)
		return false;
	if (w->op != Obstore || r->op != Obload || w->space != SP_SURF || r->space != SP_SURF ||
	    w->ops[0] != r->ops[0])
		return true;
	const Inst *rw, *rr;
	uint32_t sw, sr;
	int64_t cw, cr;
	ir_affine(w->ops[1], &rw, &sw, &cw);
	ir_affine(r->ops[1], &rr, &sr, &cr);
	if (rw != rr || sw != sr)
		return true;
	int64_t nw = (int64_t)w->ops[2]->ty.n * ir_elem_bytes[w->ops[2]->ty.elem];
	int64_t nr = (int64_t)r->ty.n * ir_elem_bytes[r->ty.elem];
	return cw < cr + nr && cr < cw + nw;
}

bool ir_const_int32(const Inst *v, int64_t *k)
{
	if (!v || v->op != Oconst || v->ty.n != 1 || !ir_is_int(v->ty.elem) ||
	    ir_elem_bytes[v->ty.elem] != 4)
		return false;
	*k = ir_const_at(v, 0).i;
	if (!ir_is_signed(v->ty.elem))
		*k = (int64_t)(uint32_t)*k;
	return true;
}

void ir_affine(const Inst *v, const Inst **root, uint32_t *scale, int64_t *c)
{
	int64_t k;
	*root = v, *scale = 1, *c = 0;
	for (int depth = 0; depth < 16; depth++) {
		const Inst *x = *root, *a = x->nops > 0 ? x->ops[0] : NULL;
		const Inst *b = x->nops > 1 ? x->ops[1] : NULL;
		if (x->ty.n != 1 || ir_elem_bytes[x->ty.elem] != 4 || ir_is_float(x->ty.elem))
			return;
		if (x->op == Oconv && a && a->ty.n == 1 && ir_elem_bytes[a->ty.elem] == 4 &&
		    !ir_is_float(a->ty.elem) && !x->sat) {
			*root = a;
		} else if (x->op == Oadd && !x->sat && ir_const_int32(b, &k)) {
			*root = a, *c += k * *scale;
		} else if (x->op == Oadd && !x->sat && ir_const_int32(a, &k)) {
			*root = b, *c += k * *scale;
		} else if (x->op == Osub && !x->sat && ir_const_int32(b, &k)) {
			*root = a, *c -= k * *scale;
		} else if (x->op == Omul && !x->sat && ir_const_int32(b, &k) && k > 0 && k <= 4096) {
			*root = a, *scale *= (uint32_t)k;
		} else if (x->op == Oshl && ir_const_int32(b, &k) && k >= 0 && k <= 12) {
			*root = a, *scale <<= k;
		} else {
			return;
		}
		if (*c > IR_AFFINE_SPAN || *c < -IR_AFFINE_SPAN || *scale > (1u << 20))
			return;
	}
}

Inst *ir_roff(const Inst *i)
{
	return i->has_roff ? i->ops[ir_ops[i->op].nops] : NULL;
}

Inst *ir_mask(const Inst *i)
{
	return i->has_mask ? i->ops[i->nops - 1] : NULL;
}

int ir_nsrc(const Inst *i)
{
	return i->op == Oatomic || i->op == Otatomic ? ir_atomic_nsrc[i->aop] : 0;
}

bool ir_const_is_splat(const Inst *i)
{
	if (i->op != Oconst || !i->c.n)
		return false;
	for (uint32_t k = 1; k < i->c.n; k++)   /* a list of one value is one too */
		if (i->c.v[k].u != i->c.v[0].u)
			return false;
	return true;
}

IrScalar ir_const_at(const Inst *i, uint32_t k)
{
	ASSERT(i->op == Oconst && i->c.n > 0);
	return i->c.v[i->c.n == 1 ? 0 : k];
}

/* ---- analyses ------------------------------------------------------------ */

int ir_nsucc(const Block *b)
{
	return b->jmp.kind == J_BR ? 1 : b->jmp.kind == J_CBR ? 2 : 0;
}

/* Depth-first from b, last successor first, appending blocks to post in
 * postorder.  The stack is explicit: a chain of blocks is as long as the
 * function. */
static void rpo_visit(Arena *a, Block *b, uint32_t nblocks, Block **post, uint32_t *np)
{
	struct { Block *b; int s; } *st = arena_alloc(a, sizeof(*st) * (nblocks + 1));
	int n = 0;
	b->rpo = 1;   /* visited */
	st[n].b = b;
	st[n++].s = ir_nsucc(b) - 1;
	while (n) {
		Block *x = st[n - 1].b;
		int s = st[n - 1].s--;
		if (s < 0) {
			post[(*np)++] = x;
			n--;
		} else if (!x->jmp.to[s]->rpo) {
			Block *y = x->jmp.to[s];
			y->rpo = 1;
			st[n].b = y;
			st[n++].s = ir_nsucc(y) - 1;
		}
	}
}

/* Predecessor lists (in layout order) and reverse postorder numbers;
 * unreachable blocks get rpo UINT32_MAX. */
void ir_preds(Func *f)
{
	Arena *a = f->arena;
	for (uint32_t i = 0; i < f->nblocks; i++) {
		f->blocks[i]->npreds = 0;
		f->blocks[i]->rpo = 0;
	}
	for (uint32_t i = 0; i < f->nblocks; i++)
		for (int s = 0; s < ir_nsucc(f->blocks[i]); s++)
			f->blocks[i]->jmp.to[s]->npreds++;
	for (uint32_t i = 0; i < f->nblocks; i++) {
		Block *b = f->blocks[i];
		b->preds = NEWN(a, Block *, b->npreds ? b->npreds : 1);
		b->npreds = 0;
	}
	for (uint32_t i = 0; i < f->nblocks; i++)
		for (int s = 0; s < ir_nsucc(f->blocks[i]); s++) {
			Block *t = f->blocks[i]->jmp.to[s];
			t->preds[t->npreds++] = f->blocks[i];
		}
	if (!f->nblocks)
		return;
	Block **post = NEWN(a, Block *, f->nblocks);
	uint32_t np = 0;
	rpo_visit(a, f->blocks[0], f->nblocks, post, &np);
	for (uint32_t i = 0; i < f->nblocks; i++)
		f->blocks[i]->rpo = UINT32_MAX;
	for (uint32_t i = 0; i < np; i++)
		post[i]->rpo = np - 1 - i;
}

static Block *intersect(Block *a, Block *b)
{
	while (a != b) {
		while (a->rpo > b->rpo)
			a = a->idom;
		while (b->rpo > a->rpo)
			b = b->idom;
	}
	return a;
}

/* Cooper, Harvey and Kennedy's iterative algorithm over rpo numbers.
 * Calls ir_preds first. */
void ir_dominators(Func *f)
{
	ir_preds(f);
	if (!f->nblocks)
		return;
	for (uint32_t i = 0; i < f->nblocks; i++)
		f->blocks[i]->idom = NULL;
	Block *entry = f->blocks[0];
	entry->idom = entry;
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t i = 0; i < f->nblocks; i++) {
			Block *b = f->blocks[i];
			if (b == entry || b->rpo == UINT32_MAX)
				continue;
			Block *nd = NULL;
			for (uint32_t p = 0; p < b->npreds; p++) {
				Block *q = b->preds[p];
				if (!q->idom)
					continue;
				nd = nd ? intersect(q, nd) : q;
			}
			if (nd && nd != b->idom) {
				b->idom = nd;
				changed = true;
			}
		}
	}
}

bool ir_dominates(const Block *a, const Block *b)
{
	for (;;) {
		if (a == b)
			return true;
		if (!b->idom || b->idom == b)
			return false;
		b = b->idom;
	}
}

void ir_count_uses(Func *f)
{
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i; i = i->next)
			i->nuse = 0;
	for (uint32_t bi = 0; bi < f->nblocks; bi++) {
		Block *b = f->blocks[bi];
		for (Inst *i = b->first; i; i = i->next)
			for (uint32_t k = 0; k < i->nops; k++)
				if (i->ops[k])
					i->ops[k]->nuse++;
		if (b->jmp.cond)
			b->jmp.cond->nuse++;
	}
}

void ir_renumber(Func *f)
{
	uint32_t id = 0;
	for (uint32_t bi = 0; bi < f->nblocks; bi++) {
		f->blocks[bi]->id = bi;
		for (Inst *i = f->blocks[bi]->first; i; i = i->next)
			i->id = id++;
	}
	f->nextid = id;
	f->nextblk = f->nblocks;
}

/* ---- builder ------------------------------------------------------------- */

static Inst *add(IrBuilder *B, Op op, IrType ty, uint32_t nops)
{
	Inst *i = ir_inst_new(B->f, op, ty, nops, B->loc);
	ir_append(B->b, i);
	return i;
}

Inst *irb_op(IrBuilder *B, Op op, IrType ty, Inst *a, Inst *b, Inst *c)
{
	uint32_t n = (uint32_t)ir_ops[op].nops;
	Inst *i = add(B, op, ty, n);
	Inst *v[3] = {a, b, c};
	for (uint32_t k = 0; k < n && k < 3; k++)
		i->ops[k] = v[k];
	return i;
}

static Inst *konst(IrBuilder *B, IrType ty, uint32_t n)
{
	Inst *i = add(B, Oconst, ty, 0);
	i->c.n = n;
	i->c.v = NEWN(B->f->arena, IrScalar, n);
	return i;
}

Inst *irb_const_int(IrBuilder *B, IrType ty, int64_t v)
{
	Inst *i = konst(B, ty, 1);
	if (ir_is_float(ty.elem))
		i->c.v[0].f = (double)v;
	else
		i->c.v[0].i = v;
	return i;
}

Inst *irb_const_float(IrBuilder *B, IrType ty, double v)
{
	Inst *i = konst(B, ty, 1);
	if (ir_is_float(ty.elem))
		i->c.v[0].f = ty.elem == E_F32 ? (double)(float)v : v;
	else
		i->c.v[0].i = (int64_t)v;
	return i;
}

Inst *irb_const_list(IrBuilder *B, IrType ty, const IrScalar *v)
{
	Inst *i = konst(B, ty, ty.n);
	memcpy(i->c.v, v, sizeof(IrScalar) * ty.n);
	return i;
}

Inst *irb_arg(IrBuilder *B, uint32_t index)
{
	ASSERT(index < B->f->nparams);
	Inst *i = add(B, Oarg, B->f->params[index].ty, 0);
	i->imm = index;
	return i;
}

Inst *irb_rdregion(IrBuilder *B, IrType ty, Inst *src, IrRegion rg, Inst *roff)
{
	Inst *i = add(B, Ordregion, ty, roff ? 2 : 1);
	i->ops[0] = src;
	if (roff)
		i->ops[1] = roff;
	i->has_roff = roff != NULL;
	i->rg = rg;
	return i;
}

Inst *irb_wrregion(IrBuilder *B, Inst *old, Inst *val, IrRegion rg, Inst *roff,
                   Inst *mask)
{
	uint32_t n = 2 + (roff != NULL) + (mask != NULL);
	Inst *i = add(B, Owrregion, old->ty, n);
	i->ops[0] = old;
	i->ops[1] = val;
	if (roff)
		i->ops[2] = roff;
	if (mask)
		i->ops[n - 1] = mask;
	i->has_roff = roff != NULL;
	i->has_mask = mask != NULL;
	i->rg = rg;
	return i;
}

Inst *irb_conv(IrBuilder *B, IrType ty, Inst *src, bool sat)
{
	Inst *i = irb_op(B, Oconv, ty, src, NULL, NULL);
	i->sat = sat;
	return i;
}

Inst *irb_phi(IrBuilder *B, IrType ty, uint32_t n)
{
	Inst *i = ir_inst_new(B->f, Ophi, ty, n, B->loc);
	i->phiblk = NEWN(B->f->arena, Block *, n ? n : 1);
	/* phis go before every non-phi instruction of the block */
	Inst *pos = B->b->first;
	while (pos && pos->op == Ophi)
		pos = pos->next;
	if (pos)
		ir_insert_before(pos, i);
	else
		ir_append(B->b, i);
	return i;
}

void irb_br(IrBuilder *B, Block *to)
{
	B->b->jmp.kind = J_BR;
	B->b->jmp.to[0] = to;
	B->b->jmp.loc = B->loc;
}

void irb_cbr(IrBuilder *B, Inst *cond, Block *t, Block *f)
{
	B->b->jmp.kind = J_CBR;
	B->b->jmp.cond = cond;
	B->b->jmp.to[0] = t;
	B->b->jmp.to[1] = f;
	B->b->jmp.loc = B->loc;
}

void irb_ret(IrBuilder *B)
{
	B->b->jmp.kind = J_RET;
	B->b->jmp.loc = B->loc;
}
