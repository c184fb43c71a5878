/* lower.c — the checked AST to CMIR: kernels, SSA, statements, control flow.
 *
 * requires: a unit that sema accepted (front.h); produces: one Func per
 * kernel (FUNC with DS_GENX_MAIN), every user call inlined, SSA form.
 *
 * SSA is built directly while walking the tree, with the algorithm of
 * Braun et al. ("Simple and Efficient Construction of SSA Form", CC 2013):
 * every variable (Var) has a current definition per block; reading a
 * variable in a block without one asks the predecessors, placing phis at
 * joins, and incomplete phis in blocks whose predecessors are not all known
 * yet ("unsealed").  A read that reaches the entry without a definition is
 * zero: locals are undefined there and thread-private globals start at 0.
 * At the end, unreachable blocks are dropped and trivial phis removed.
 *
 * SIMD control flow (cm-language.md §5.2) becomes explicit masks: l->smask
 * is the static mask of the enclosing SIMD ifs; lw_mask() also clears the
 * channels that SIMD_BREAK / SIMD_CONTINUE removed in the innermost SIMD
 * loop (two mask variables of that loop).  A SIMD block is skipped when no
 * channel is left (branch on any), and writes of SIMD-width values inside
 * it are masked wrregions (lower_expr.c).
 */
#include <stdlib.h>
#include <string.h>

#include "ir/lower.h"
#include "rt/cmk_abi.h"

/* ---- blocks and SSA ------------------------------------------------------ */

typedef struct {
	Block **preds;
	uint32_t npreds, cap;
	bool sealed;
	struct { Var *v; Inst *phi; } *inc;   /* incomplete phis */
	uint32_t ninc, capinc;
} LB;

static LB *lb(Block *b) { return (LB *)b->aux; }

Block *lw_block(L *l)
{
	Block *b = ir_block_new(l->f);
	b->aux = NEW(l->f->arena, LB);
	return b;
}

void lw_set_block(L *l, Block *b) { l->B.b = b; }

bool lw_terminated(L *l) { return l->B.b->jmp.kind != J_NONE; }

static void add_pred(L *l, Block *to, Block *from)
{
	LB *x = lb(to);
	if (x->sealed)
		die("predecessor added to a sealed block b%u", to->id);
	if (x->npreds == x->cap) {
		uint32_t nc = x->cap ? x->cap * 2 : 4;
		Block **np = NEWN(l->f->arena, Block *, nc);
		if (x->npreds)
			memcpy(np, x->preds, sizeof(Block *) * x->npreds);
		x->preds = np;
		x->cap = nc;
	}
	x->preds[x->npreds++] = from;
}

void lw_br(L *l, Block *to)
{
	if (lw_terminated(l))
		return;
	add_pred(l, to, l->B.b);
	irb_br(&l->B, to);
}

void lw_cbr(L *l, Inst *cond, Block *t, Block *f)
{
	if (lw_terminated(l))
		return;
	add_pred(l, t, l->B.b);
	add_pred(l, f, l->B.b);
	irb_cbr(&l->B, cond, t, f);
}

Var *lw_var(L *l, IrType ty, const char *name)
{
	Var *v = NEW(l->f->arena, Var);
	v->ty = ty;
	v->name = name;
	return v;
}

Var *lw_user_var(L *l, IrType ty, const char *name)
{
	Var *v = lw_var(l, ty, name);
	v->user = true;
	return v;
}

/* -g: val, now held by v, carries v's name for the debugger.  The first
 * name wins: a value copied into a second variable keeps the first's. */
static void name_value(L *l, Var *v, Inst *val)
{
	if (l->debug && v->user && v->name && val && !val->name)
		val->name = intern_cstr(v->name);
}

/* v's definitions cover the block ids it was used in, [defs_base, +ndefs):
 * a variable of an inlined call spans that call's blocks, not the kernel's
 * (sized by the kernel, they made inlining quadratic in memory). */
static void def_set(L *l, Var *v, Block *b, Inst *val)
{
	uint32_t id = b->id;
	if (!v->ndefs)
		v->defs_base = id;
	if (id < v->defs_base || id - v->defs_base >= v->ndefs) {
		/* Grow on the side that ran out, by the span reached: doubling the
		 * whole array each time instead made a variable that a long
		 * unrolled body reads at ever lower blocks double its array per
		 * block (gigabytes for an inlined sort network). */
		uint32_t lo = v->defs_base, hi = v->defs_base + v->ndefs;
		if (id < lo) {
			uint32_t span = hi - id + 8;
			lo = id > span ? id - span : 0;
		} else {
			hi = id + 1 + (id + 1 - lo) + 8;
		}
		uint32_t nn = hi - lo;
		Inst **nd = NEWN(l->f->arena, Inst *, nn);
		if (v->ndefs)
			memcpy(nd + (v->defs_base - lo), v->defs, sizeof(Inst *) * v->ndefs);
		v->defs = nd;
		v->defs_base = lo;
		v->ndefs = nn;
	}
	v->defs[b->id - v->defs_base] = val;
}

static Inst *def_get(Var *v, Block *b)
{
	return b->id >= v->defs_base && b->id - v->defs_base < v->ndefs ? v->defs[b->id - v->defs_base]
	                                                                  : NULL;
}

static Inst *first_non_phi(Block *b)
{
	Inst *i = b->first;
	while (i && i->op == Ophi)
		i = i->next;
	return i;
}

static Inst *new_phi(L *l, Block *b, IrType ty)
{
	Inst *i = ir_inst_new(l->f, Ophi, ty, 0, l->B.loc);
	if (b->first)
		ir_insert_before(b->first, i);
	else
		ir_append(b, i);
	return i;
}

static Inst *zero_in(L *l, Block *b, IrType ty)
{
	Inst *i = ir_inst_new(l->f, Oconst, ty, 0, l->B.loc);
	i->c.n = 1;
	i->c.v = NEWN(l->f->arena, IrScalar, 1);
	Inst *pos = first_non_phi(b);
	if (pos)
		ir_insert_before(pos, i);
	else
		ir_append(b, i);
	return i;
}

/* Gives phi one operand slot per predecessor of b. */
static void phi_init(L *l, Inst *phi, Block *b)
{
	LB *x = lb(b);
	phi->nops = x->npreds;
	phi->ops = NEWN(l->f->arena, Inst *, x->npreds ? x->npreds : 1);
	phi->phiblk = NEWN(l->f->arena, Block *, x->npreds ? x->npreds : 1);
	for (uint32_t k = 0; k < x->npreds; k++)
		phi->phiblk[k] = x->preds[k];
}

/* Where a read of v walking up from b through sealed blocks of one
 * predecessor and no definition stops. */
static Block *chain_end(Var *v, Block *b)
{
	for (;;) {
		LB *x = lb(b);
		if (def_get(v, b) || !x->sealed || x->npreds != 1)
			return b;
		b = x->preds[0];
	}
}

/* Records val as v's value in every block of the chain from b up to t. */
static void chain_set(L *l, Var *v, Block *b, Block *t, Inst *val)
{
	for (; b != t; b = lb(b)->preds[0])
		def_set(l, v, b, val);
	def_set(l, v, t, val);
}

/* A phi whose operands are being read: the chain that led to its block. */
typedef struct {
	Block *b, *t;
	Inst *phi;
	uint32_t k;               /* the operand being read */
} ReadFrame;

/* The value of v at the end of b (Braun et al.'s readVariable).  The
 * recursion of the algorithm, which goes as deep as the chain of blocks
 * above b, runs on an explicit stack, and in the same order: the phis and
 * zeros it creates are numbered as the recursive version numbered them. */
static Inst *read_in(L *l, Var *v, Block *b)
{
	VEC(ReadFrame) st = {0};
	Inst *val;
	for (;;) {
		Block *t = chain_end(v, b);
		LB *x = lb(t);
		val = def_get(v, t);
		if (val) {
		} else if (!x->sealed) {
			val = new_phi(l, t, v->ty);
			name_value(l, v, val);
			if (x->ninc == x->capinc) {
				uint32_t nc = x->capinc ? x->capinc * 2 : 4;
				void *np = arena_alloc(l->f->arena, sizeof(*x->inc) * nc);
				if (x->ninc)
					memcpy(np, x->inc, sizeof(*x->inc) * x->ninc);
				x->inc = np;
				x->capinc = nc;
			}
			x->inc[x->ninc].v = v;
			x->inc[x->ninc++].phi = val;
		} else if (x->npreds == 0) {
			val = zero_in(l, t, v->ty);
		} else {
			Inst *phi = new_phi(l, t, v->ty);
			name_value(l, v, phi);
			def_set(l, v, t, phi);
			phi_init(l, phi, t);
			ReadFrame f = {b, t, phi, 0};
			vec_push(&st, f);
			b = x->preds[0];
			continue;
		}
		chain_set(l, v, b, t, val);
		/* return val to the phi that asked, and read its next operand */
		for (;;) {
			if (!st.len) {
				vec_free(&st);
				return val;
			}
			ReadFrame *f = &st.data[st.len - 1];
			f->phi->ops[f->k++] = val;
			if (f->k < f->phi->nops) {
				b = f->phi->phiblk[f->k];
				break;
			}
			val = f->phi;
			chain_set(l, v, f->b, f->t, val);
			st.len--;
		}
	}
}

void lw_seal_block(L *l, Block *b)
{
	LB *x = lb(b);
	if (x->sealed)
		return;
	x->sealed = true;
	for (uint32_t k = 0; k < x->ninc; k++) {
		Inst *phi = x->inc[k].phi;
		phi_init(l, phi, b);
		for (uint32_t j = 0; j < phi->nops; j++)
			phi->ops[j] = read_in(l, x->inc[k].v, x->preds[j]);
	}
	x->ninc = 0;
}

Inst *lw_read(L *l, Var *v) { return read_in(l, v, l->B.b); }

void lw_write(L *l, Var *v, Inst *val)
{
	if (!ir_type_eq(val->ty, v->ty))
		die("write of %u x %s to a variable of %u x %s", val->ty.n,
		    ir_elem_name[val->ty.elem], v->ty.n, ir_elem_name[v->ty.elem]);
	name_value(l, v, val);
	def_set(l, v, l->B.b, val);
}

/* A fresh block after a jump: code there is unreachable until a label. */
static void dead_block(L *l)
{
	Block *b = lw_block(l);
	lw_seal_block(l, b);
	lw_set_block(l, b);
}

/* ---- symbols ------------------------------------------------------------- */

static Binding *new_binding(L *l, Sym *s)
{
	Binding *b = NEW(l->a, Binding);
	b->gen = l->gen;
	s->ir = b;
	return b;
}

/* The binding of a symbol in this kernel; globals get theirs on first use. */
Binding *lw_bind(L *l, Sym *s)
{
	Binding *b = s->ir;
	if (b && b->gen == l->gen)
		return b;
	if (s->kind != SYM_GLOBAL)
		return NULL;
	b = new_binding(l, s);
	if (s->ty->kind == TY_STRUCT) {
		lw_struct_new(l, b, s->ty, s->name);
		return b;
	}
	if (s->is_const_array || s->ty->kind == TY_ARRAY) {
		b->konst = lw_const_array(l, s);
		return b;
	}
	Var *v = lw_user_var(l, lw_type(s->ty), s->name);
	b->lr = lw_whole(v, s->ty);
	return b;
}

/* ---- execution masks ------------------------------------------------------ */

static Inst *ones(L *l, int w)
{
	return irb_const_int(&l->B, ir_type(E_I1, (uint32_t)w), 1);
}

Inst *lw_mask(L *l)
{
	if (!l->smask || l->unmasked)
		return NULL;
	Jump *j = l->simd_loop;
	if (!j)
		return l->smask;
	Inst *off = irb_op(&l->B, Oor, l->smask->ty, lw_read(l, j->brk_mask),
	                   lw_read(l, j->cont_mask), NULL);
	Inst *on = irb_op(&l->B, Onot, off->ty, off, NULL, NULL);
	return irb_op(&l->B, Oand, on->ty, l->smask, on, NULL);
}

static Inst *any(L *l, Inst *m)
{
	return irb_op(&l->B, Oany, ir_scalar(E_I1), m, NULL, NULL);
}

/* The SIMD condition as W i1 channels. */
static Inst *simd_cond(L *l, Node *c, int w)
{
	Inst *v = lw_bool_vec(l, lw_expr(l, c));
	if (v->ty.n == 1)
		v = lw_splat(l, v, (uint32_t)w);
	return v;
}

static int simd_w(Node *n)
{
	if (n->simd_width > 0)
		return n->simd_width;
	return n->cond && n->cond->ty ? ty_elems(n->cond->ty) : 1;
}

/* SIMD_IF_BEGIN(c) then [SIMD_ELSE els] SIMD_IF_END */
static void simd_if(L *l, Node *n)
{
	int w = simd_w(n);
	Inst *c = simd_cond(l, n->cond, w);
	Inst *outer = lw_mask(l);
	if (!outer)
		outer = ones(l, w);
	if (outer->ty.n != c->ty.n)
		c = lw_splat(l, irb_op(&l->B, Oany, ir_scalar(E_I1), c, NULL, NULL), outer->ty.n);
	Inst *mt = irb_op(&l->B, Oand, c->ty, outer, c, NULL);
	Inst *nc = irb_op(&l->B, Onot, c->ty, c, NULL, NULL);
	Inst *me = irb_op(&l->B, Oand, c->ty, outer, nc, NULL);
	Inst *saved = l->smask;
	Block *bt = lw_block(l), *be = lw_block(l), *join = n->els ? lw_block(l) : be;
	lw_cbr(l, any(l, mt), bt, be);
	lw_seal_block(l, bt);
	lw_set_block(l, bt);
	l->smask = mt;
	lw_stmt(l, n->then);
	l->smask = saved;
	lw_br(l, be);
	lw_seal_block(l, be);
	lw_set_block(l, be);
	if (n->els) {
		l->smask = me;
		Block *bel = lw_block(l);
		lw_cbr(l, any(l, lw_mask(l)), bel, join);
		lw_seal_block(l, bel);
		lw_set_block(l, bel);
		lw_stmt(l, n->els);
		l->smask = saved;
		lw_br(l, join);
		lw_seal_block(l, join);
		lw_set_block(l, join);
	}
	l->smask = saved;
}

/* SIMD_DO_WHILE_BEGIN body SIMD_DO_WHILE_END(cond) */
static void simd_do(L *l, Node *n)
{
	int w = simd_w(n);
	Inst *outer = lw_mask(l);
	if (!outer)
		outer = ones(l, w);
	IrType mt = outer->ty;
	Var *lv = lw_var(l, mt, "loopmask");
	Jump j = {.up = l->jump, .simd = true};
	j.brk_mask = lw_var(l, mt, "break");
	j.cont_mask = lw_var(l, mt, "continue");
	lw_write(l, lv, outer);
	lw_write(l, j.brk_mask, irb_const_int(&l->B, mt, 0));
	Block *head = lw_block(l), *exit = lw_block(l);
	lw_br(l, head);
	lw_set_block(l, head);
	lw_write(l, j.cont_mask, irb_const_int(&l->B, mt, 0));
	Inst *saved = l->smask;
	Jump *saved_loop = l->simd_loop;
	l->smask = lw_read(l, lv);
	Inst *stat = l->smask;
	l->jump = &j;
	l->simd_loop = &j;
	lw_stmt(l, n->body);
	if (!lw_terminated(l)) {
		l->smask = stat;
		lw_write(l, j.cont_mask, irb_const_int(&l->B, mt, 0));
		Inst *c = simd_cond(l, n->cond, w);
		Inst *nl = irb_op(&l->B, Oand, mt, lw_mask(l), c, NULL);
		lw_write(l, lv, nl);
		lw_cbr(l, any(l, nl), head, exit);
	}
	lw_seal_block(l, head);
	lw_seal_block(l, exit);
	lw_set_block(l, exit);
	l->jump = j.up;
	l->simd_loop = saved_loop;
	l->smask = saved;
}

static void simd_jump(L *l, Node *n, bool brk)
{
	Jump *j = l->simd_loop;
	if (!j) {
		error_at(n->loc, "SIMD_%s outside a SIMD loop", brk ? "BREAK" : "CONTINUE");
		return;
	}
	Var *v = brk ? j->brk_mask : j->cont_mask;
	Inst *m = lw_mask(l);
	if (!m)
		return;
	lw_write(l, v, irb_op(&l->B, Oor, v->ty, lw_read(l, v), m, NULL));
}

/* ---- scalar control flow -------------------------------------------------- */

/* Jumps to t when the scalar condition c holds, else to f: a && b and
 * a || b as jumps, their short circuit, not as a value merged by a phi,
 * so each test stays a compare of its own (a loop's bound, for the PTX
 * back end's loop versioning, ptx/vloop.c). */
static void branch(L *l, Node *c, Block *t, Block *f)
{
	if (c->kind == ND_BINARY && (c->op == P_ANDAND || c->op == P_OROR)) {
		Block *mid = lw_block(l);
		if (c->op == P_ANDAND)
			branch(l, c->lhs, mid, f);
		else
			branch(l, c->lhs, t, mid);
		lw_seal_block(l, mid);
		lw_set_block(l, mid);
		branch(l, c->rhs, t, f);
		return;
	}
	lw_cbr(l, lw_cond(l, c), t, f);
}

/* Whether statement n holds a label or a case that a jump from outside
 * it may reach. */
static bool has_label(const Node *n)
{
	if (!n)
		return false;
	switch (n->kind) {
	case ND_LABEL: case ND_CASE: case ND_DEFAULT:
		return true;
	case ND_BLOCK:
		for (int i = 0; i < n->args.len; i++)
			if (has_label(n->args.data[i]))
				return true;
		return false;
	case ND_IF:
		return has_label(n->then) || has_label(n->els);
	case ND_FOR: case ND_WHILE: case ND_DO:
		return has_label(n->body);
	default:
		return false;
	}
}

/* An if on an integer constant (a template argument's test, `if (NB ==
 * 2)`) is its taken branch alone, in the current block: the blocks of
 * the other, which the passes would drop, would otherwise be laid out
 * between this block and the code after the if, a seam opt/blocks.c
 * cannot close (a cm_wgmma chain across it is cut in two). */
static bool const_if(L *l, Node *n)
{
	if (!n->cond || !n->cond->has_value || !ty_is_integer(n->cond->ty) ||
	    has_label(n->then) || has_label(n->els))
		return false;
	lw_stmt(l, n->cond->cval ? n->then : n->els);
	return true;
}

static void stmt_if(L *l, Node *n)
{
	if (const_if(l, n))
		return;
	Block *bt = lw_block(l), *be = lw_block(l), *join = n->els ? lw_block(l) : be;
	branch(l, n->cond, bt, be);
	lw_seal_block(l, bt);
	lw_set_block(l, bt);
	lw_stmt(l, n->then);
	lw_br(l, join);
	if (n->els) {
		lw_seal_block(l, be);
		lw_set_block(l, be);
		lw_stmt(l, n->els);
		lw_br(l, join);
	}
	lw_seal_block(l, join);
	lw_set_block(l, join);
}

/* for / while / do: cond_first is false for do-while. */
static void loop(L *l, Node *init, Node *cond, Node *inc, Node *body, bool cond_first)
{
	if (init)
		lw_stmt(l, init);
	Block *head = lw_block(l), *bbody = lw_block(l), *cont = lw_block(l),
	      *exit = lw_block(l);
	lw_br(l, cond_first ? head : bbody);
	lw_set_block(l, head);
	if (cond)
		branch(l, cond, bbody, exit);
	else
		lw_br(l, bbody);
	Jump j = {.up = l->jump, .brk = exit, .cont = cont};
	l->jump = &j;
	lw_set_block(l, bbody);
	lw_stmt(l, body);
	lw_br(l, cont);
	lw_seal_block(l, cont);
	lw_set_block(l, cont);
	if (inc)
		lw_expr(l, inc);
	lw_br(l, head);
	lw_seal_block(l, head);
	lw_seal_block(l, bbody);
	lw_seal_block(l, exit);
	l->jump = j.up;
	lw_set_block(l, exit);
}

/* Case labels of a switch body (not those of nested switches). */
static void collect_cases(Node *n, NodeList *out, Arena *a)
{
	if (!n)
		return;
	switch (n->kind) {
	case ND_CASE:
	case ND_DEFAULT:
		nl_push(a, out, n);
		collect_cases(n->body, out, a);
		break;
	case ND_BLOCK:
		for (int i = 0; i < n->args.len; i++)
			collect_cases(n->args.data[i], out, a);
		break;
	case ND_LABEL:
		collect_cases(n->body, out, a);
		break;
	case ND_IF:
		collect_cases(n->then, out, a);
		collect_cases(n->els, out, a);
		break;
	case ND_FOR: case ND_WHILE: case ND_DO:
		collect_cases(n->body, out, a);
		break;
	default:
		break;
	}
}

static Block *case_block(L *l, Node *c)
{
	Block *b = map_get(&l->labels, (const char *)c);
	if (!b) {
		b = lw_block(l);
		map_put(&l->labels, (const char *)c, b);
	}
	return b;
}

static void stmt_switch(L *l, Node *n)
{
	Inst *v = lw_expr(l, n->cond);
	if (v->ty.elem == E_I1)
		v = lw_conv_elem(l, v, E_I32, false);
	NodeList cases = {0};
	collect_cases(n->body, &cases, l->f->arena);
	Block *exit = lw_block(l), *dflt = exit;
	for (int i = 0; i < cases.len; i++) {
		Node *c = cases.data[i];
		Block *cb = case_block(l, c);
		if (c->kind == ND_DEFAULT) {
			dflt = cb;
			continue;
		}
		Inst *k = lw_coerce(l, lw_expr(l, c->lhs), v->ty, false);
		Inst *eq = irb_op(&l->B, Oeq, ir_scalar(E_I1), v, k, NULL);
		Block *next = lw_block(l);
		lw_cbr(l, eq, cb, next);
		lw_seal_block(l, next);
		lw_set_block(l, next);
	}
	lw_br(l, dflt);
	Jump j = {.up = l->jump, .brk = exit, .cont = l->jump ? l->jump->cont : NULL};
	j.simd = false;
	l->jump = &j;
	dead_block(l);
	lw_stmt(l, n->body);
	lw_br(l, exit);
	for (int i = 0; i < cases.len; i++)
		lw_seal_block(l, case_block(l, cases.data[i]));
	lw_seal_block(l, exit);
	l->jump = j.up;
	lw_set_block(l, exit);
}

static Block *label_block(L *l, const char *name)
{
	Block *b = map_get(&l->labels, name);
	if (!b) {
		b = lw_block(l);
		map_put(&l->labels, name, b);
	}
	return b;
}

static void stmt_return(L *l, Node *n)
{
	Frame *fr = l->frame;
	if (n->lhs) {
		Inst *v = lw_expr(l, n->lhs);
		if (fr->retvar && v)
			lw_write(l, fr->retvar, lw_coerce(l, v, fr->retvar->ty, false));
	}
	lw_br(l, fr->ret);
	dead_block(l);
}

static void var_decl(L *l, Node *d)
{
	Sym *s = d->sym;
	if (!s)
		return;
	if (s->kind == SYM_GLOBAL)
		return;
	Type *t = s->ty;
	Binding *b = new_binding(l, s);
	Node *init = d->init;
	if (!init && d->args.len)
		init = d->args.data[0];
	if (t->kind == TY_STRUCT) {
		Binding *src = t->is_ref && init ? lw_struct_ref(l, init) : NULL;
		if (src) {   /* a reference aliases the fields */
			b->fields = src->fields;
			b->nfields = src->nfields;
			return;
		}
		lw_struct_new(l, b, t, s->name);
		lw_struct_init(l, b, init);
		return;
	}
	if (t->is_ref) {
		b->is_ref = true;
		if (!init || !lw_lref(l, init, &b->lr)) {
			Inst *v = init ? lw_expr(l, init) : irb_const_int(&l->B, lw_type(t), 0);
			Var *tv = lw_user_var(l, lw_type(t), s->name);
			lw_write(l, tv, lw_coerce(l, v, tv->ty, false));
			b->lr = lw_whole(tv, t);
		}
		return;
	}
	if (t->kind == TY_ARRAY) {
		error_at(d->loc, "local array '%s' is not supported", s->name);
		return;
	}
	Var *v = lw_user_var(l, lw_type(t), s->name);
	b->lr = lw_whole(v, t);
	if (init && init->kind != ND_INIT_LIST) {
		l->B.loc = init->loc;
		Inst *x = lw_expr(l, init);
		if (x && init->ty && init->ty->kind == TY_ARRAY)
			x = lw_array_fit(l, x, v->ty.n);
		if (x)
			lw_write(l, v, lw_coerce(l, x, v->ty, d->sat));
	} else if (init && init->args.len) {
		lw_write(l, v, lw_coerce(l, lw_expr(l, init->args.data[0]), v->ty, false));
	}
}

static void stmt_inner(L *l, Node *n);

void lw_stmt(L *l, Node *n)
{
	if (!n || diag_too_many())
		return;
	l->nest++;
	stmt_inner(l, n);
	l->nest--;
}

static void stmt_inner(L *l, Node *n)
{
	l->B.loc = n->loc;
	switch (n->kind) {
	case ND_BLOCK:
		for (int i = 0; i < n->args.len; i++)
			lw_stmt(l, n->args.data[i]);
		break;
	case ND_DECL_STMT:
		for (int i = 0; i < n->args.len; i++)
			if (n->args.data[i]->kind == ND_VAR_DECL)
				var_decl(l, n->args.data[i]);
		break;
	case ND_VAR_DECL:
		var_decl(l, n);
		break;
	case ND_EXPR_STMT:
		if (n->lhs)
			lw_expr(l, n->lhs);
		break;
	case ND_IF:
		if (n->simd)
			simd_if(l, n);
		else
			stmt_if(l, n);
		break;
	case ND_FOR:
		if (!lw_unroll(l, n))
			loop(l, n->init, n->cond, n->inc, n->body, true);
		break;
	case ND_WHILE:
		loop(l, NULL, n->cond, NULL, n->body, true);
		break;
	case ND_DO:
		if (n->simd)
			simd_do(l, n);
		else
			loop(l, NULL, n->cond, NULL, n->body, false);
		break;
	case ND_SWITCH:
		stmt_switch(l, n);
		break;
	case ND_CASE:
	case ND_DEFAULT: {
		Block *b = case_block(l, n);
		lw_br(l, b);
		lw_set_block(l, b);
		lw_stmt(l, n->body);
		break;
	}
	case ND_BREAK:
	case ND_CONTINUE: {
		bool brk = n->kind == ND_BREAK;
		if (n->simd || (l->jump && l->jump->simd)) {
			simd_jump(l, n, brk);
			break;
		}
		Block *to = l->jump ? (brk ? l->jump->brk : l->jump->cont) : NULL;
		if (!to) {
			error_at(n->loc, "'%s' outside a loop", brk ? "break" : "continue");
			break;
		}
		lw_br(l, to);
		dead_block(l);
		break;
	}
	case ND_GOTO:
		lw_br(l, label_block(l, n->name));
		dead_block(l);
		break;
	case ND_LABEL: {
		Block *b = label_block(l, n->name);
		lw_br(l, b);
		lw_set_block(l, b);
		lw_stmt(l, n->body);
		break;
	}
	case ND_RETURN:
		stmt_return(l, n);
		break;
	default:
		break;
	}
}

/* ---- calls: inlining -------------------------------------------------------- */

static void seal_labels(L *l)
{
	for (int i = 0; i < l->labels.cap; i++)
		if (l->labels.keys[i] && l->labels.keys[i] != (const char *)1)
			lw_seal_block(l, l->labels.vals[i]);
}

/* Inlines a call of a user function (or template instance).  Arguments are
 * evaluated first, by-ref parameters become LRefs of the argument. */
Inst *lw_call(L *l, Node *call)
{
	Sym *fs = call->sym;
	Node *fn = fs ? fs->decl : NULL;
	if (fn && fn->kind == ND_TEMPLATE)
		fn = fn->lhs;
	if (!fn || fn->kind != ND_FUNC || !fn->body) {
		error_at(call->loc, "call of '%s', which has no body", fs ? fs->name : "?");
		return NULL;
	}
	if (l->depth > MAX_INLINE_DEPTH) {
		error_at(call->loc, "calls nested too deeply to inline (more than %d levels)",
		         MAX_INLINE_DEPTH);
		return NULL;
	}
	if (l->f->nextid > MAX_KERNEL_VALUES) {
		if (!l->too_big)
			error_at(call->loc, "inlining '%s' makes the kernel too large (more than %d "
			         "values)", fs->name, MAX_KERNEL_VALUES);
		l->too_big = true;
		return NULL;
	}
	if (l->nest > MAX_LOWER_DEPTH) {
		error_at(call->loc, "inlining '%s' exceeds the nesting limit: the calls it is part "
		         "of nest expressions and statements more than %d levels deep", fs->name,
		         MAX_LOWER_DEPTH);
		return NULL;
	}
	int np = fn->params.len;
	Binding **nb = NEWN(l->a, Binding *, np ? np : 1);
	for (int i = 0; i < np; i++) {
		Node *p = fn->params.data[i];
		Node *arg = i < call->args.len ? call->args.data[i] : p->init;
		Type *pt = p->sym ? p->sym->ty : p->ty;
		Binding *b = NEW(l->a, Binding);
		b->gen = l->gen;
		nb[i] = b;
		if (!arg)
			continue;
		if (pt->kind == TY_STRUCT) {
			Binding *src = lw_struct_ref(l, arg);
			bool ref = pt->is_ref || (p->ts && p->ts->is_ref);
			if (ref && src) {
				b->fields = src->fields;
				b->nfields = src->nfields;
			} else {
				lw_struct_new(l, b, pt, p->name);
				lw_struct_init(l, b, arg);
			}
			continue;
		}
		/* vector_ref/matrix_ref parameters, and C++ references (T &x) to
		 * scalars or vectors, alias the argument */
		bool ref = pt->is_ref || (p->ts && p->ts->is_ref);
		if (ref && lw_lref(l, arg, &b->lr)) {
			b->is_ref = true;
			continue;
		}
		Inst *v = lw_expr(l, arg);
		Var *var = lw_user_var(l, lw_type(pt), p->name);
		if (v)
			lw_write(l, var, lw_coerce(l, v, var->ty, false));
		b->lr = lw_whole(var, pt);
	}
	for (int i = 0; i < np; i++)
		if (fn->params.data[i]->sym)
			fn->params.data[i]->sym->ir = nb[i];
	Frame fr = {.up = l->frame, .ret = lw_block(l)};
	Type *rt = fs->ty && fs->ty->kind == TY_FUNC ? fs->ty->ret : call->ty;
	if (rt && rt->kind != TY_VOID)
		fr.retvar = lw_var(l, lw_type(rt), "ret");
	Map saved_labels = l->labels;
	Jump *saved_jump = l->jump;
	memset(&l->labels, 0, sizeof l->labels);
	l->jump = NULL;
	l->frame = &fr;
	l->depth++;
	lw_stmt(l, fn->body);
	l->depth--;
	lw_br(l, fr.ret);
	seal_labels(l);
	map_free(&l->labels);
	l->labels = saved_labels;
	l->jump = saved_jump;
	l->frame = fr.up;
	lw_seal_block(l, fr.ret);
	lw_set_block(l, fr.ret);
	l->B.loc = call->loc;
	return fr.retvar ? lw_read(l, fr.retvar) : NULL;
}

/* ---- clean-up ------------------------------------------------------------------ */

/* Marks the blocks reachable from the entry, with a worklist (a chain of
 * blocks is as long as the function). */
static void mark(L *l, bool *live)
{
	Func *f = l->f;
	Block **work = NEWN(l->f->arena, Block *, f->nblocks + 1);
	int n = 0;
	work[n++] = f->blocks[0];
	live[f->blocks[0]->id] = true;
	while (n) {
		Block *b = work[--n];
		int ns = b->jmp.kind == J_CBR ? 2 : b->jmp.kind == J_BR ? 1 : 0;
		for (int s = 0; s < ns; s++)
			if (!live[b->jmp.to[s]->id]) {
				live[b->jmp.to[s]->id] = true;
				work[n++] = b->jmp.to[s];
			}
	}
}

/* Drops unreachable blocks and the phi operands that came from them. */
static void drop_dead(L *l)
{
	Func *f = l->f;
	bool *live = NEWN(l->f->arena, bool, f->nextblk + 1);
	mark(l, live);
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nblocks; i++) {
		Block *b = f->blocks[i];
		if (!live[b->id])
			continue;
		f->blocks[n++] = b;
		for (Inst *p = b->first; p && p->op == Ophi; p = p->next) {
			uint32_t k2 = 0;
			for (uint32_t k = 0; k < p->nops; k++)
				if (live[p->phiblk[k]->id]) {
					p->ops[k2] = p->ops[k];
					p->phiblk[k2++] = p->phiblk[k];
				}
			p->nops = k2;
		}
	}
	f->nblocks = n;
}

/* Removes phis whose operands are all one value (or the phi itself). */
static void drop_trivial_phis(L *l)
{
	Func *f = l->f;
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t bi = 0; bi < f->nblocks; bi++) {
			Block *b = f->blocks[bi];
			for (Inst *p = b->first, *nx; p && p->op == Ophi; p = nx) {
				nx = p->next;
				ir_resolve_ops(p);
				Inst *same = NULL;
				bool trivial = true;
				for (uint32_t k = 0; k < p->nops; k++) {
					Inst *o = p->ops[k];
					if (o == p || o == same)
						continue;
					if (same) {
						trivial = false;
						break;
					}
					same = o;
				}
				if (!trivial)
					continue;
				if (!same)
					same = zero_in(l, f->blocks[0], p->ty);
				ir_forward(p, same);
				ir_remove(p);
				changed = true;
			}
		}
	}
	ir_apply_forwards(f);
}

/* ---- kernels --------------------------------------------------------------------- */

static uint32_t surf_kind(const char *attr)
{
	if (!attr || !*attr)
		return CMK_SURF_ANY;
	if (strstr(attr, "buffer"))
		return CMK_SURF_BUFFER;
	if (strstr(attr, "image1d"))
		return CMK_SURF_IMAGE1D;
	if (strstr(attr, "image2d"))
		return CMK_SURF_IMAGE2D;
	if (strstr(attr, "image3d"))
		return CMK_SURF_IMAGE3D;
	return CMK_SURF_ANY;
}

static void add_param(L *l, Node *p)
{
	Type *t = p->sym ? p->sym->ty : p->ty;
	const char *name = p->name ? p->name : "";
	const char *attr = p->attr_type ? p->attr_type : "";
	IrParam *ip;
	if (t->kind == TY_SURFACE) {
		ip = ir_param_add(l->f, name, CMK_ARG_SURFACE, ir_scalar(E_U32));
		ip->surf = surf_kind(attr);
	} else if (t->kind == TY_SAMPLER || t->kind == TY_VME) {
		ip = ir_param_add(l->f, name, CMK_ARG_SAMPLER, ir_scalar(E_U32));
	} else if (strstr(attr, "svmptr_t")) {
		ip = ir_param_add(l->f, name, CMK_ARG_SVM, ir_scalar(E_U64));
	} else if (ty_is_vm(t)) {
		ip = ir_param_add(l->f, name, CMK_ARG_VECTOR, lw_type(t));
	} else {
		if (!ty_is_scalar(t))
			error_at(p->loc, "kernel parameter '%s' of type '%s' is not supported",
			         name, ty_str(t));
		ip = ir_param_add(l->f, name, CMK_ARG_SCALAR, lw_type(t));
	}
	ip->type_attr = intern_cstr(attr);
}

/* A template kernel's instance is named by its instance name, as a
 * symbol ("K<float>" -> "K_Lfloat_R"; kernel_symbol in util). */
static const char *kernel_name(L *l, Node *fn)
{
	if (!fn->inst_of || !fn->sym)
		return fn->name;
	Buf b = {0};
	kernel_symbol(&b, fn->sym->name);
	const char *s = arena_strdup(l->a, buf_cstr(&b));
	buf_free(&b);
	return s;
}

/* File-scope const vectors and matrices with an initializer get their
 * value at kernel entry, which dominates every use (a binding made at the
 * first use could sit in a branch). */
static Node *const_global_init(Node *d)
{
	Sym *s = d->kind == ND_VAR_DECL ? d->sym : NULL;
	Node *init = s ? (d->init ? d->init : d->args.len ? d->args.data[0] : NULL) : NULL;
	if (!init || s->kind != SYM_GLOBAL || !ty_is_vm(s->ty) || !s->ty->is_const ||
	    init->kind == ND_INIT_LIST)
		return NULL;
	return init;
}

/* The unit's declarations that init_const_globals binds, listed once (a
 * walk over every declaration per kernel was quadratic in big units). */
static void find_const_globals(L *l)
{
	l->cglobals = NEWN(l->a, Node *, l->unit->args.len + 1);
	for (int i = 0; i < l->unit->args.len; i++)
		if (const_global_init(l->unit->args.data[i]))
			l->cglobals[l->ncglobals++] = l->unit->args.data[i];
}

static void init_const_globals(L *l)
{
	for (int i = 0; i < l->ncglobals; i++) {
		Node *d = l->cglobals[i], *init = const_global_init(d);
		Sym *s = d->sym;
		Binding *b = lw_bind(l, s);
		Inst *x = lw_expr(l, init);
		if (x && init->ty && init->ty->kind == TY_ARRAY)
			x = lw_array_fit(l, x, b->lr.var->ty.n);
		if (x)
			lw_write(l, b->lr.var, lw_coerce(l, x, b->lr.var->ty, d->sat));
	}
}

static void lower_kernel(L *l, Node *fn)
{
	l->gen++;
	l->f = ir_func_new(l->m, kernel_name(l, fn), fn->loc);
	l->B = (IrBuilder){.f = l->f, .loc = fn->loc};
	Block *entry = lw_block(l), *exit = lw_block(l);
	lw_seal_block(l, entry);
	lw_set_block(l, entry);
	for (int i = 0; i < fn->params.len; i++)
		add_param(l, fn->params.data[i]);
	for (int i = 0; i < fn->params.len; i++) {
		Node *p = fn->params.data[i];
		if (!p->sym)
			continue;
		Binding *b = new_binding(l, p->sym);
		Var *v = lw_user_var(l, l->f->params[i].ty, p->name);
		lw_write(l, v, irb_arg(&l->B, (uint32_t)i));
		b->lr = lw_whole(v, p->sym->ty);
	}
	init_const_globals(l);
	Frame fr = {.ret = exit};
	l->frame = &fr;
	l->jump = NULL;
	l->smask = NULL;
	l->simd_loop = NULL;
	l->slm_next = 0;
	memset(&l->labels, 0, sizeof l->labels);
	lw_stmt(l, fn->body);
	lw_br(l, exit);
	seal_labels(l);
	map_free(&l->labels);
	lw_set_block(l, exit);
	l->B.loc = fn->loc;
	irb_ret(&l->B);
	for (uint32_t i = 0; i < l->f->nblocks; i++)
		lw_seal_block(l, l->f->blocks[i]);
	/* move the exit block last, for readability */
	Func *f = l->f;
	for (uint32_t i = 0; i + 1 < f->nblocks; i++)
		if (f->blocks[i] == exit) {
			memmove(&f->blocks[i], &f->blocks[i + 1], sizeof(Block *) * (f->nblocks - i - 1));
			f->blocks[f->nblocks - 1] = exit;
			break;
		}
	for (uint32_t i = 0; i < f->nblocks; i++)
		if (f->blocks[i]->jmp.kind == J_NONE) {
			f->blocks[i]->jmp.kind = J_RET;
			f->blocks[i]->jmp.loc = fn->loc;
		}
	drop_dead(l);
	drop_trivial_phis(l);
	if (l->slm_next > f->slm_size)
		f->slm_size = l->slm_next;
	ir_renumber(f);
	for (uint32_t i = 0; i < f->nblocks; i++)
		f->blocks[i]->aux = NULL;
}

static bool is_kernel_def(const Node *n)
{
	return n->kind == ND_FUNC && (n->dspec & DS_GENX_MAIN) && n->body;
}

bool ir_lower_each(Module *m, Node *unit, const IrLowerOptions *o,
                   bool (*each)(Func *f, void *ctx), void *ctx)
{
	L l = {.a = m->arena, .m = m, .unit = unit, .debug = o && o->debug};
	static _Thread_local uint32_t gen;
	l.gen = gen;
	int errors = diag_state.errors;
	bool ok = true;
	find_const_globals(&l);
	int last = -1;
	for (int i = 0; i < unit->args.len; i++)
		if (is_kernel_def(unit->args.data[i]))
			last = i;
	for (int i = 0; i <= last; i++) {
		Node *n = unit->args.data[i];
		if (is_kernel_def(n)) {
			lower_kernel(&l, n);
			/* the tree is read no more: the last kernel is optimized and
			 * emitted without it (it is most of the memory of a unit
			 * that is one huge kernel) */
			if (i == last && o && o->tree)
				arena_reset(o->tree);
			/* after an error, lowering goes on only to report more */
			if (ok && diag_state.errors == errors && each)
				ok = each(l.f, ctx);
			else if (each)
				ir_func_release(l.f);
		}
	}
	gen = l.gen + 1;
	return ok && diag_state.errors == errors;
}

Module *ir_lower(Arena *a, Node *unit, const IrLowerOptions *o)
{
	Module *m = ir_module_new(a);
	return ir_lower_each(m, unit, o, NULL, NULL) ? m : NULL;
}
