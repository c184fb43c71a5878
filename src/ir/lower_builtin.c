/* lower_builtin.c — the builtin library (builtins.def) to CMIR.
 *
 * One case per row family.  Memory builtins become the memory instructions
 * of ir.h with their space (.surf .svm .slm), scaled (element) or .byte
 * offsets, and the SIMD execution mask where the access has the SIMD width.
 * Math builtins compute in the common (promoted) type of their operands and
 * convert to the result type T, saturating when SAT was given (call->op);
 * tuple operations (dp4, line, ...) expand into regions and arithmetic.
 * Thread-id combinations (linear ids) are arithmetic on Otid values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/lower.h"
#include "rt/cmk_abi.h"

static Node *A(Node *c, int i) { return i < c->args.len ? c->args.data[i] : NULL; }
static Inst *ex(L *l, Node *c, int i) { return lw_expr(l, A(c, i)); }
static IrType tyof(Node *n) { return lw_type(n->ty); }

/* A memory (or other) instruction with operands ops[0..n) and a mask. */
static Inst *emit(L *l, Op op, IrType ty, IrSpace sp, Inst **ops, uint32_t n, Inst *mask)
{
	Inst *i = ir_inst_new(l->f, op, ty, n + (mask != NULL), l->B.loc);
	for (uint32_t k = 0; k < n; k++)
		i->ops[k] = ops[k];
	if (mask) {
		i->ops[n] = mask;
		i->has_mask = true;
	}
	i->space = (uint8_t)sp;
	ir_append(l->B.b, i);
	return i;
}

static Inst *u32(L *l, Inst *v) { return lw_conv_elem(l, v, E_U32, false); }
static Inst *i32(L *l, Inst *v) { return lw_conv_elem(l, v, E_I32, false); }

static Inst *tid(L *l, IrTid t)
{
	Inst *i = ir_inst_new(l->f, Otid, ir_scalar(E_U32), 0, l->B.loc);
	i->imm = t;
	ir_append(l->B.b, i);
	return i;
}

static Inst *op2(L *l, Op op, Inst *a, Inst *b)
{
	return irb_op(&l->B, op, a->ty.n >= b->ty.n ? a->ty : b->ty, a, b, NULL);
}

/* The SIMD mask for an access of n channels (and a user mask). */
static Inst *access_mask(L *l, uint32_t n, Inst *user)
{
	Inst *m = lw_mask(l);
	if (m && m->ty.n != n)
		m = NULL;
	if (user)
		m = m ? op2(l, Oand, m, user) : user;
	return m;
}

static Inst *dim_tid(L *l, Node *d, IrTid x)
{
	if (d && d->has_value && d->cval >= 0 && d->cval < 3)
		return tid(l, (IrTid)(x + d->cval));
	Inst *v = u32(l, lw_expr(l, d));
	Inst *r = tid(l, (IrTid)(x + 2));
	for (int k = 1; k >= 0; k--) {
		Inst *c = irb_op(&l->B, Oeq, ir_scalar(E_I1), v, lw_int(l, E_U32, k), NULL);
		r = irb_op(&l->B, Osel, r->ty, c, tid(l, (IrTid)(x + k)), r);
	}
	return r;
}

static Inst *linear(L *l, IrTid base, IrTid size)
{
	/* x + sx * (y + sy * z) */
	/* each operand in its own statement: the IR must not depend on the
	 * order in which the C compiler that built cmetal evaluates arguments */
	Inst *z = tid(l, (IrTid)(base + 2));
	Inst *y = tid(l, (IrTid)(base + 1)), *sy = tid(l, (IrTid)(size + 1));
	Inst *r = op2(l, Oadd, y, op2(l, Omul, sy, z));
	Inst *x = tid(l, base), *sx = tid(l, size);
	return op2(l, Oadd, x, op2(l, Omul, sx, r));
}

static Inst *product(L *l, IrTid s)
{
	Inst *a = tid(l, s), *b = tid(l, (IrTid)(s + 1));
	Inst *ab = op2(l, Omul, a, b);
	return op2(l, Omul, ab, tid(l, (IrTid)(s + 2)));
}

static Inst *global_id(L *l)
{
	Inst *g[3], *n[3];
	for (int d = 0; d < 3; d++) {
		Inst *ls = tid(l, (IrTid)(TID_LOCAL_SIZE_X + d));
		Inst *gs = op2(l, Omul, tid(l, (IrTid)(TID_GROUP_ID_X + d)), ls);
		g[d] = op2(l, Oadd, gs, tid(l, (IrTid)(TID_LOCAL_ID_X + d)));
		n[d] = op2(l, Omul, tid(l, (IrTid)(TID_GROUP_COUNT_X + d)), ls);
	}
	Inst *t = op2(l, Omul, n[1], g[2]);
	t = op2(l, Oadd, g[1], t);
	return op2(l, Oadd, g[0], op2(l, Omul, n[0], t));
}

static Inst *thread_ids(L *l, Node *c)
{
	switch (c->builtin) {
	case BI_THREAD_ORIGIN_X: return tid(l, TID_ORIGIN_X);
	case BI_THREAD_ORIGIN_Y: return tid(l, TID_ORIGIN_Y);
	case BI_GET_COLOR: return tid(l, TID_COLOR);
	case BI_LOCAL_ID: return dim_tid(l, A(c, 0), TID_LOCAL_ID_X);
	case BI_LOCAL_SIZE: return dim_tid(l, A(c, 0), TID_LOCAL_SIZE_X);
	case BI_GROUP_ID: return dim_tid(l, A(c, 0), TID_GROUP_ID_X);
	case BI_GROUP_COUNT: return dim_tid(l, A(c, 0), TID_GROUP_COUNT_X);
	case BI_LINEAR_LOCAL_ID: return linear(l, TID_LOCAL_ID_X, TID_LOCAL_SIZE_X);
	case BI_LINEAR_LOCAL_SIZE: return product(l, TID_LOCAL_SIZE_X);
	case BI_LINEAR_GROUP_ID: return linear(l, TID_GROUP_ID_X, TID_GROUP_COUNT_X);
	case BI_LINEAR_GROUP_COUNT: return product(l, TID_GROUP_COUNT_X);
	case BI_LINEAR_GLOBAL_ID: return global_id(l);
	case BI_LINEAR_GLOBAL_SIZE: {
		Inst *groups = product(l, TID_GROUP_COUNT_X);
		return op2(l, Omul, groups, product(l, TID_LOCAL_SIZE_X));
	}
	default: return NULL;
	}
}

/* ---- memory ---------------------------------------------------------------- */

/* Columns of a 2D block: a matrix's, or a vector's length. */
static int cols_of(Node *n)
{
	Type *t = ty_base(n->ty);
	return t->kind == TY_MATRIX ? t->cols : ty_elems(t);
}

static bool is_attr(Node *n) { return n && n->ty && n->ty->kind == TY_ENUM; }

static Inst *zero_vec(L *l, Elem e, uint32_t n)
{
	return irb_const_int(&l->B, ir_type(e, n), 0);
}

/* block read / write: base, byte offset, value; align is the alignment
 * CM guarantees for the address (bload's .alignN), 0 for an oword. */
static void block_rw(L *l, IrSpace sp, Inst *base, Inst *off, Node *data, bool rd, int align)
{
	Inst *i;
	if (rd) {
		Inst *ops[2] = {base, i32(l, off)};
		i = emit(l, Obload, tyof(data), sp, ops, 2, NULL);
		lw_assign_to(l, data, i);
	} else {
		Inst *ops[3] = {base, i32(l, off), lw_expr(l, data)};
		i = emit(l, Obstore, ir_type(E_VOID, 0), sp, ops, 3, NULL);
	}
	i->align = (uint8_t)align;
}

/* The alignment a block read with a CmBufferAttrib promises: a DWORD for
 * the *DWALIGNED ones (and an attribute that is not a constant), else an
 * oword (0). */
static int attr_align(Node *attr)
{
	if (!attr->has_value)
		return 4;
	int64_t v = attr->cval;
	return v == 1 || v == 5 || v == 7 ? 4 : 0;
}

/* gather / scatter with element (or byte) offsets. */
static void scattered(L *l, IrSpace sp, Inst *base, Inst *goff, Inst *offs, Node *data,
                      bool rd, bool bytes)
{
	if (offs->ty.elem != E_U64)
		offs = u32(l, offs);
	Inst *m = access_mask(l, offs->ty.n, NULL);
	Inst *i;
	if (rd) {
		Inst *ops[3] = {base, goff, offs};
		IrType t = ir_type(lw_elem(data->ty), offs->ty.n);
		i = emit(l, Ogather, t, sp, ops, 3, m);
		i->bytes = bytes;
		lw_assign_to(l, data, i);
	} else {
		Inst *v = lw_coerce(l, lw_expr(l, data), ir_type(lw_elem(data->ty), offs->ty.n), false);
		Inst *ops[4] = {base, goff, offs, v};
		i = emit(l, Oscatter, ir_type(E_VOID, 0), sp, ops, 4, m);
		i->bytes = bytes;
	}
}

static void rgba(L *l, IrSpace sp, Inst *base, Inst *offs, Node *data, int ch, bool rd,
                 bool bytes)
{
	if (offs->ty.elem != E_U64)
		offs = u32(l, offs);
	Inst *goff = sp == SP_SVM ? irb_const_int(&l->B, ir_scalar(E_U64), 0) : lw_int(l, E_U32, 0);
	Inst *m = access_mask(l, offs->ty.n, NULL);
	Inst *i;
	if (rd) {
		Inst *ops[3] = {base, goff, offs};
		i = emit(l, Ogather4, tyof(data), sp, ops, 3, m);
		lw_assign_to(l, data, i);
	} else {
		Inst *ops[4] = {base, goff, offs, lw_expr(l, data)};
		i = emit(l, Oscatter4, ir_type(E_VOID, 0), sp, ops, 4, m);
	}
	i->chmask = (uint8_t)ch;
	i->bytes = bytes;
}

static void typed(L *l, Node *c, bool rd)
{
	Inst *s = ex(l, c, 0);
	Node *data = A(c, 2);
	Inst *u = u32(l, ex(l, c, 3));
	Inst *v = c->args.len > 4 ? u32(l, ex(l, c, 4)) : zero_vec(l, E_U32, u->ty.n);
	Inst *r = c->args.len > 5 ? u32(l, ex(l, c, 5)) : zero_vec(l, E_U32, u->ty.n);
	Inst *m = access_mask(l, u->ty.n, NULL);
	Inst *i;
	if (rd) {
		Inst *ops[4] = {s, u, v, r};
		i = emit(l, Otload, tyof(data), SP_SURF, ops, 4, m);
		lw_assign_to(l, data, i);
	} else {
		Inst *ops[5] = {s, u, v, r, lw_expr(l, data)};
		i = emit(l, Otstore, ir_type(E_VOID, 0), SP_SURF, ops, 5, m);
	}
	i->chmask = (uint8_t)c->cargs[1];
}

static void media(L *l, Node *c, bool rd)
{
	int k = is_attr(A(c, 1)) ? 2 : 1;
	Inst *s = ex(l, c, 0), *x = i32(l, ex(l, c, k)), *y = i32(l, ex(l, c, k + 1));
	Node *data = A(c, k + 2);
	Inst *i;
	if (rd) {
		Inst *ops[3] = {s, x, y};
		i = emit(l, Omload, tyof(data), SP_SURF, ops, 3, NULL);
		i->imm = cols_of(data);
		lw_assign_to(l, data, i);
	} else {
		Inst *ops[4] = {s, x, y, lw_expr(l, data)};
		i = emit(l, Omstore, ir_type(E_VOID, 0), SP_SURF, ops, 4, NULL);
		i->imm = cols_of(data);
	}
}

/* cm_slm_load: the group's threads copy `bytes` in 128-byte chunks, thread
 * t taking chunks t, t + T, ...; then a barrier. */
static void slm_load(L *l, Node *c, IrSpace from)
{
	Inst *slm = i32(l, ex(l, c, 0)), *src = ex(l, c, 1), *off = i32(l, ex(l, c, 2));
	Inst *bytes = i32(l, ex(l, c, 3));
	if (from == SP_SVM)
		src = lw_conv_elem(l, src, E_U64, false);
	Inst *lid = i32(l, linear(l, TID_LOCAL_ID_X, TID_LOCAL_SIZE_X));
	Inst *step = i32(l, product(l, TID_LOCAL_SIZE_X));
	step = op2(l, Omul, step, lw_int(l, E_I32, 128));
	Var *iv = lw_var(l, ir_scalar(E_I32), "slm_i");
	lw_write(l, iv, op2(l, Omul, lid, lw_int(l, E_I32, 128)));
	Block *head = lw_block(l), *body = lw_block(l), *exit = lw_block(l);
	lw_br(l, head);
	lw_set_block(l, head);
	Inst *i = lw_read(l, iv);
	lw_cbr(l, irb_op(&l->B, Olt, ir_scalar(E_I1), i, bytes, NULL), body, exit);
	lw_seal_block(l, body);
	lw_seal_block(l, exit);
	lw_set_block(l, body);
	Inst *so = op2(l, Oadd, off, i);
	Inst *lops[2] = {src, so};
	Inst *v = emit(l, Obload, ir_type(E_U32, 32), from, lops, 2, NULL);
	Inst *sops[3] = {slm, op2(l, Oadd, lw_int(l, E_I32, 0), i), v};
	emit(l, Obstore, ir_type(E_VOID, 0), SP_SLM, sops, 3, NULL);
	lw_write(l, iv, op2(l, Oadd, i, step));
	lw_br(l, head);
	lw_seal_block(l, head);
	lw_set_block(l, exit);
	Inst *f = ir_inst_new(l->f, Obarrier, ir_type(E_VOID, 0), 0, l->B.loc);
	ir_append(l->B.b, f);
	l->f->uses_barrier = true;
}

/* ---- atomics ------------------------------------------------------------------ */

static int atomic_op(int64_t cm)
{
	static const struct { int cm, ir; } map[] = {
		{0, AT_ADD}, {1, AT_SUB}, {2, AT_INC}, {3, AT_DEC}, {4, AT_MIN},
		{5, AT_MAX}, {6, AT_XCHG}, {7, AT_CMPXCHG}, {8, AT_AND}, {9, AT_OR},
		{10, AT_XOR}, {11, AT_MINSINT}, {12, AT_MAXSINT}, {16, AT_FMAX},
		{17, AT_FMIN}, {18, AT_FCMPWR}, {19, AT_FADD}, {20, AT_FSUB},
		{255, AT_PREDEC},
	};
	for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
		if (map[k].cm == cm)
			return map[k].ir;
	return -1;
}

/* Arguments from index `first`: offsets, the sources, and the result
 * destination last when cargs[2] says so. */
static void atomic(L *l, Node *c, IrSpace sp, Inst *base, Inst *goff, int first,
                   Inst *user_mask, bool bytes, bool legacy)
{
	int aop = atomic_op(c->cargs[0]);
	if (aop < 0) {
		error_at(c->loc, "unknown atomic operation %d", c->cargs[0]);
		return;
	}
	Inst *offs = ex(l, c, first);
	offs = offs->ty.elem == E_U64 ? offs : u32(l, offs);
	uint32_t n = offs->ty.n;
	bool has_ret = c->cargs[2] != 0;
	Node *ret = has_ret ? A(c, c->args.len - 1) : NULL;
	Elem te = c->targ_type ? lw_elem(c->targ_type) :
	          ret ? lw_elem(ret->ty) : E_U32;
	int nsrc = ir_atomic_nsrc[aop];
	Inst *ops[6] = {base, goff, offs};
	uint32_t k = 3;
	if (legacy && nsrc == 2) {
		Inst *both = lw_conv_elem(l, ex(l, c, first + 1), te, false);
		ops[k++] = irb_rdregion(&l->B, ir_type(te, n), both, (IrRegion){0, (int32_t)n, 1, 0}, NULL);
		ops[k++] = irb_rdregion(&l->B, ir_type(te, n), both, (IrRegion){0, (int32_t)n, 1, (int32_t)n}, NULL);
	} else {
		for (int s = 0; s < nsrc; s++)
			ops[k++] = lw_coerce(l, ex(l, c, first + 1 + s), ir_type(te, n), false);
	}
	Inst *m = access_mask(l, n, user_mask);
	Inst *i = emit(l, Oatomic, ir_type(te, n), sp, ops, k, m);
	i->aop = (uint8_t)aop;
	i->bytes = bytes;
	if (ret)
		lw_assign_to(l, ret, i);
}

/* write_typed_atomic: [mask,] s, srcs.., u[, v[, r[, lod]]], ret (sema put
 * the result last).  A lane whose lod is not 0 names a mip level 2D
 * surfaces do not have: it is dropped like a pixel outside. */
static void typed_atomic(L *l, Node *c, bool masked)
{
	int aop = atomic_op(c->cargs[0]);
	if (aop < 0) {
		error_at(c->loc, "unknown atomic operation %d", c->cargs[0]);
		return;
	}
	int si = masked ? 1 : 0, nsrc = ir_atomic_nsrc[aop];
	Node *ret = A(c, c->args.len - 1);
	IrType ty = tyof(ret);
	int ncoord = c->args.len - si - 2 - nsrc;
	Inst *co[4];
	for (int k = 0; k < 4; k++)
		co[k] = k < ncoord ? u32(l, ex(l, c, si + 1 + nsrc + k)) : zero_vec(l, E_U32, ty.n);
	Inst *user = NULL;
	if (masked) {
		Inst *m = ex(l, c, 0);
		Inst *one = irb_const_int(&l->B, ir_scalar(m->ty.elem), 1);
		user = lw_bool_vec(l, irb_op(&l->B, Oand, m->ty, m, one, NULL));
	}
	if (ncoord == 4) {
		Inst *lod0 = irb_op(&l->B, Oeq, ir_type(E_I1, ty.n), co[3],
		                    lw_int(l, E_U32, 0), NULL);
		user = user ? irb_op(&l->B, Oand, lod0->ty, user, lod0, NULL) : lod0;
	}
	Inst *ops[6] = {ex(l, c, si), co[0], co[1], co[2]};
	for (int s = 0; s < nsrc; s++)
		ops[4 + s] = lw_coerce(l, ex(l, c, si + 1 + s), ty, false);
	Inst *i = emit(l, Otatomic, ty, SP_SURF, ops, 4 + (uint32_t)nsrc,
	               access_mask(l, ty.n, user));
	i->aop = (uint8_t)aop;
	lw_assign_to(l, ret, i);
}

/* ---- math ------------------------------------------------------------------- */

/* Operands from..from+n converted to their common type (floats if fl). */
static Elem operands(L *l, Node *c, int from, int n, Inst **v, bool fl)
{
	Elem s = E_VOID;
	for (int k = 0; k < n; k++) {
		v[k] = ex(l, c, from + k);
		s = s == E_VOID ? lw_promote(v[k]->ty.elem) : lw_common(s, v[k]->ty.elem);
	}
	if (fl && !ir_is_float(s))
		s = E_F32;
	for (int k = 0; k < n; k++)
		v[k] = lw_conv_elem(l, v[k], s, false);
	return s;
}

static Inst *finish(L *l, Node *c, Inst *v)
{
	IrType t = tyof(c);
	bool sat = c->op == 1;
	if (v->ty.elem == t.elem && !sat)
		return lw_splat(l, v, t.n);
	return lw_coerce(l, v, t, sat);
}

/* A math op whose result is T directly (exact then converted, .sat). */
static Inst *math_op(L *l, Node *c, Op op, int n, bool fl)
{
	Inst *v[4];
	operands(l, c, 0, n, v, fl);
	uint32_t cnt = 1;
	for (int k = 0; k < n; k++)
		if (v[k]->ty.n > cnt)
			cnt = v[k]->ty.n;
	IrType t = tyof(c);
	bool sat = c->op == 1 && (ir_ops[op].flags & IRF_SAT);
	Inst *i = irb_op(&l->B, op, ir_type(t.elem, cnt), v[0], n > 1 ? v[1] : NULL,
	                 n > 2 ? v[2] : NULL);
	if (n > 3)
		i->ops[3] = v[3];
	i->sat = sat;
	if (c->op == 1 && !sat)
		i = lw_conv_elem(l, i, t.elem, true);
	return lw_splat(l, i, t.n);
}

/* Marks the op of a cm_*_ieee call correctly rounded (Inst.ieee): v or the
 * instruction under its splat or conversion. */
static Inst *ieee(Inst *v, Op op)
{
	for (Inst *i = v; i; i = i->nops ? i->ops[0] : NULL) {
		if (i->op == op) {
			i->ieee = true;
			break;
		}
		if (i->op != Oconv && i->op != Ordregion)
			break;
	}
	return v;
}

/* An op computed in the operands' type S, then converted to T. */
static Inst *math_in(L *l, Node *c, Op op, int n, bool fl, Elem res)
{
	Inst *v[4];
	Elem s = operands(l, c, 0, n, v, fl);
	uint32_t cnt = 1;
	for (int k = 0; k < n; k++)
		if (v[k]->ty.n > cnt)
			cnt = v[k]->ty.n;
	Inst *i = irb_op(&l->B, op, ir_type(res == E_VOID ? s : res, cnt), v[0],
	                 n > 1 ? v[1] : NULL, n > 2 ? v[2] : NULL);
	if (n > 3)
		i->ops[3] = v[3];
	return finish(l, c, i);
}

static Inst *shift(L *l, Node *c, int kind)
{
	Inst *v[2];
	Elem s = operands(l, c, 0, 2, v, false);
	/* cm_shr shifts by the signedness of the shifted value (as C's >>),
	 * not of the common type with the count */
	Node *a0 = A(c, 0);   /* sema converted it to the common type */
	while (a0->kind == ND_CAST && a0->implicit && a0->lhs)
		a0 = a0->lhs;
	Elem e0 = lw_promote(tyof(a0).elem);
	if (kind == 0 && ir_is_int(s) && ir_is_int(e0) && ir_is_signed(e0) != ir_is_signed(s))
		s = ir_is_signed(s) ? (Elem)(s + 1) : (Elem)(s - 1);
	if (kind == 1 && ir_is_signed(s))
		s = (Elem)(s + 1);   /* the unsigned type of the same width */
	if (kind == 2 && !ir_is_signed(s))
		s = (Elem)(s - 1);
	v[0] = lw_conv_elem(l, v[0], s, false);
	v[1] = lw_conv_elem(l, v[1], s, false);
	Op op = c->builtin == BI_SHL ? Oshl : ir_is_signed(s) ? Oashr : Olshr;
	uint32_t n = v[0]->ty.n > v[1]->ty.n ? v[0]->ty.n : v[1]->ty.n;
	return finish(l, c, irb_op(&l->B, op, ir_type(s, n), v[0], v[1], NULL));
}

/* Two results: the returned one and one written through argument `dst`. */
static Inst *two(L *l, Node *c, Op rop, Op dop, int dst, int from)
{
	Inst *v[2];
	Elem s = operands(l, c, from, 2, v, false);
	if (c->builtin == BI_ADDC || c->builtin == BI_SUBB) {
		s = E_U32;
		v[0] = lw_conv_elem(l, v[0], s, false);
		v[1] = lw_conv_elem(l, v[1], s, false);
	}
	uint32_t n = v[0]->ty.n > v[1]->ty.n ? v[0]->ty.n : v[1]->ty.n;
	Inst *r = irb_op(&l->B, rop, ir_type(s, n), v[0], v[1], NULL);
	Inst *d = irb_op(&l->B, dop, ir_type(s, n), v[0], v[1], NULL);
	lw_assign_to(l, A(c, dst), d);
	return finish(l, c, r);
}

/* Sum of element j of every 4-tuple of p (n/4 values). */
static Inst *lane(L *l, Inst *p, int j)
{
	uint32_t q = p->ty.n / 4;
	if (p->ty.n == 1)
		return p;
	return irb_rdregion(&l->B, ir_type(p->ty.elem, q), p, (IrRegion){4, 1, 0, j}, NULL);
}

static Inst *dot(L *l, Node *c, int k)
{
	Inst *v[2];
	operands(l, c, 0, 2, v, true);
	Inst *p = op2(l, Omul, v[0], v[1]);
	if (p->ty.n % 4) {
		error_at(c->loc, "the operands need a multiple of 4 elements");
		return NULL;
	}
	Inst *s = lane(l, p, 0);
	for (int j = 1; j < k; j++)
		s = op2(l, Oadd, s, lane(l, p, j));
	if (c->builtin == BI_DPH)
		s = op2(l, Oadd, s, v[1]->ty.n == 1 ? v[1] : lane(l, lw_splat(l, v[1], p->ty.n), 3));
	Inst *r = irb_rdregion(&l->B, ir_type(s->ty.elem, p->ty.n), s, (IrRegion){1, 4, 0, 0}, NULL);
	return finish(l, c, r);
}

static Inst *elem_at(L *l, Inst *v, int k)
{
	return irb_rdregion(&l->B, ir_scalar(v->ty.elem), v, (IrRegion){0, 1, 0, k}, NULL);
}

static Inst *tuple(L *l, Node *c)
{
	Inst *v[3];
	switch (c->builtin) {
	case BI_DP2: return dot(l, c, 2);
	case BI_DP3: return dot(l, c, 3);
	case BI_DP4: return dot(l, c, 4);
	case BI_DPH: return dot(l, c, 3);
	case BI_LINE: {
		operands(l, c, 0, 2, v, true);
		Inst *p = op2(l, Omul, elem_at(l, v[0], 0), v[1]);
		return finish(l, c, op2(l, Oadd, p, elem_at(l, v[0], 3)));
	}
	case BI_LINE_PQ:
		operands(l, c, 0, 3, v, true);
		return finish(l, c, op2(l, Oadd, op2(l, Omul, v[0], v[2]), v[1]));
	case BI_LRP: {
		operands(l, c, 0, 3, v, true);
		Inst *one = irb_const_float(&l->B, ir_scalar(v[0]->ty.elem), 1.0);
		Inst *a = op2(l, Omul, v[1], v[0]);
		Inst *b = op2(l, Omul, v[2], op2(l, Osub, one, v[0]));
		return finish(l, c, op2(l, Oadd, a, b));
	}
	case BI_PLN: {
		operands(l, c, 0, 3, v, true);
		Inst *p = op2(l, Omul, elem_at(l, v[0], 0), v[1]);
		Inst *q = op2(l, Omul, elem_at(l, v[0], 1), v[2]);
		Inst *pq = op2(l, Oadd, p, q);
		return finish(l, c, op2(l, Oadd, pq, elem_at(l, v[0], 3)));
	}
	case BI_SAD2:
	case BI_SADA2: {
		int n = c->builtin == BI_SADA2 ? 3 : 2;
		operands(l, c, 0, n, v, false);
		Inst *d = op2(l, Osub, v[0], v[1]);
		d = irb_op(&l->B, Oabs, d->ty, d, NULL, NULL);
		uint32_t h = d->ty.n / 2;
		Inst *e0 = irb_rdregion(&l->B, ir_type(d->ty.elem, h), d, (IrRegion){0, (int32_t)h, 2, 0}, NULL);
		Inst *e1 = irb_rdregion(&l->B, ir_type(d->ty.elem, h), d, (IrRegion){0, (int32_t)h, 2, 1}, NULL);
		Inst *s = op2(l, Oadd, e0, e1);
		Inst *r = irb_wrregion(&l->B, zero_vec(l, d->ty.elem, d->ty.n), s,
		                       (IrRegion){0, (int32_t)h, 2, 0}, NULL, NULL);
		if (n == 3)
			r = op2(l, Oadd, r, v[2]);
		return finish(l, c, r);
	}
	default:
		return NULL;
	}
}

/* Reductions; inside SIMD control flow inactive channels hold the identity. */
static Inst *reduce(L *l, Node *c)
{
	Inst *v = ex(l, c, 0);
	IrType t = tyof(c);
	Elem s = lw_common(v->ty.elem, t.elem);
	if (c->builtin == BI_REDUCED_MIN || c->builtin == BI_REDUCED_MAX)
		s = v->ty.elem;
	v = lw_conv_elem(l, v, s, false);
	Op op = c->builtin == BI_SUM ? Orsum : c->builtin == BI_PROD ? Orprod :
	        c->builtin == BI_REDUCED_MIN ? Ormin : Ormax;
	Inst *m = lw_mask(l);
	if (m && m->ty.n == v->ty.n) {
		Inst *id;
		if (op == Orsum || op == Orprod) {
			id = irb_const_int(&l->B, ir_scalar(s), op == Orprod);
		} else if (ir_is_float(s)) {
			id = irb_const_float(&l->B, ir_scalar(s), op == Ormin ? 1e308 * 10 : -1e308 * 10);
		} else {
			int bits = ir_elem_bytes[s] * 8;
			int64_t lo = ir_is_signed(s) ? (bits == 64 ? INT64_MIN : -(1ll << (bits - 1))) : 0;
			int64_t hi = ir_is_signed(s) ? (bits == 64 ? INT64_MAX : (1ll << (bits - 1)) - 1) :
			             (bits == 64 ? -1 : (int64_t)((1ull << bits) - 1));
			id = irb_const_int(&l->B, ir_scalar(s), op == Ormin ? hi : lo);
		}
		v = irb_op(&l->B, Osel, v->ty, m, v, lw_splat(l, id, v->ty.n));
	}
	Inst *r = irb_op(&l->B, op, ir_scalar(s), v, NULL, NULL);
	return lw_coerce(l, r, t, c->op == 1);
}

/* The legacy half conversions work on the IEEE half bits held in a ushort:
 * cm_f16tof32 reinterprets them as half and widens, cm_f32tof16 narrows to
 * half and yields the bits. */
static Inst *half_bits(L *l, Node *c)
{
	Inst *v = ex(l, c, 0);
	IrType t = tyof(c);
	if (!v)
		return NULL;
	uint32_t n = v->ty.n;
	if (c->builtin == BI_F16TOF32) {
		v = lw_conv_elem(l, v, E_U16, false);
		Inst *b = ir_inst_new(l->f, Obitcast, ir_type(E_F16, n), 1, l->B.loc);
		b->ops[0] = v;
		ir_append(l->B.b, b);
		return lw_coerce(l, b, t, false);
	}
	v = lw_conv_elem(l, v, E_F16, false);
	Inst *b = ir_inst_new(l->f, Obitcast, ir_type(E_U16, n), 1, l->B.loc);
	b->ops[0] = v;
	ir_append(l->B.b, b);
	return lw_coerce(l, b, t, false);
}

static Inst *cmtl(L *l, Node *c)
{
	Inst *v[2];
	switch (c->builtin) {
	case BI_CMTL_FLOOR: return math_in(l, c, Orndd, 1, true, E_VOID);
	case BI_CMTL_CEIL: return math_in(l, c, Orndu, 1, true, E_VOID);
	case BI_CMTL_FMOD: {
		operands(l, c, 0, 2, v, true);
		Inst *q = op2(l, Odiv, v[0], v[1]);
		q = irb_op(&l->B, Orndz, q->ty, q, NULL, NULL);
		return finish(l, c, op2(l, Osub, v[0], op2(l, Omul, q, v[1])));
	}
	case BI_CMTL_TANH:
	case BI_CMTL_TANH_CW: {
		operands(l, c, 0, 1, v, true);
		Elem e = v[0]->ty.elem;
		/* tanh(|x| >= 20) is +-1 in every float format: clamp so that
		 * e^2x stays finite */
		Inst *lim = irb_const_float(&l->B, ir_scalar(e), 20.0);
		Inst *nlim = irb_const_float(&l->B, ir_scalar(e), -20.0);
		Inst *cx = irb_op(&l->B, Omax, v[0]->ty, irb_op(&l->B, Omin, v[0]->ty, v[0], lim, NULL),
		                  nlim, NULL);
		Inst *x = op2(l, Omul, cx, irb_const_float(&l->B, ir_scalar(e), 2.8853900817779268));
		Inst *e2 = irb_op(&l->B, Oexp2, x->ty, x, NULL, NULL);
		Inst *one = irb_const_float(&l->B, ir_scalar(e), 1.0);
		Inst *num = op2(l, Osub, e2, one), *den = op2(l, Oadd, e2, one);
		return finish(l, c, op2(l, Odiv, num, den));
	}
	case BI_CMTL_ATAN2:
	case BI_CMTL_ATAN2_FAST: {
		operands(l, c, 0, 2, v, true);
		Elem e = v[0]->ty.elem;
		Inst *y = v[0], *x = v[1];
		uint32_t n = y->ty.n > x->ty.n ? y->ty.n : x->ty.n;
		IrType mt = ir_type(E_I1, n);
		Inst *z = irb_const_float(&l->B, ir_scalar(e), 0.0);
		Inst *pi = irb_const_float(&l->B, ir_scalar(e), 3.14159265358979323846);
		Inst *hpi = irb_const_float(&l->B, ir_scalar(e), 1.57079632679489661923);
		Inst *a = op2(l, Odiv, y, x);
		a = irb_op(&l->B, Oatan, a->ty, a, NULL, NULL);
		a = lw_splat(l, a, n);
		Inst *xneg = irb_op(&l->B, Olt, mt, x, z, NULL);
		Inst *yneg = irb_op(&l->B, Olt, mt, y, z, NULL);
		Inst *xz = irb_op(&l->B, Oeq, mt, x, z, NULL);
		Inst *lo = lw_splat(l, op2(l, Osub, a, pi), n);
		Inst *hi = lw_splat(l, op2(l, Oadd, a, pi), n);
		Inst *adj = irb_op(&l->B, Osel, a->ty, yneg, lo, hi);
		Inst *r = irb_op(&l->B, Osel, a->ty, xneg, adj, a);
		Inst *nh = irb_op(&l->B, Oneg, hpi->ty, hpi, NULL, NULL);
		Inst *neg = lw_splat(l, nh, n), *pos = lw_splat(l, hpi, n);
		Inst *vert = irb_op(&l->B, Osel, a->ty, yneg, neg, pos);
		return finish(l, c, irb_op(&l->B, Osel, a->ty, xz, vert, r));
	}
	case BI_CMTL_VECTOR_ASSIGN: {
		Node *d = A(c, 0);
		IrType t = tyof(d);
		Elem s = ir_is_float(t.elem) ? t.elem : E_I32;
		IrScalar *idx = NEWN(l->f->arena, IrScalar, t.n);
		for (uint32_t k = 0; k < t.n; k++) {
			if (ir_is_float(s))
				idx[k].f = (double)k;
			else
				idx[k].i = k;
		}
		Inst *iv = irb_const_list(&l->B, ir_type(s, t.n), idx);
		Inst *init = lw_conv_elem(l, ex(l, c, 1), s, false);
		Inst *step = lw_conv_elem(l, ex(l, c, 2), s, false);
		lw_assign_to(l, d, op2(l, Oadd, init, op2(l, Omul, iv, step)));
		return NULL;
	}
	default:
		return NULL;
	}
}

/* printf's format with each %s replaced by its string literal, formatted
 * now (sema gave every %s one); keep gets the indices of the arguments
 * still printed.  The text stops where its literal part alone passes the
 * FMT_TEXT_MAX bytes a call prints. */
static const char *fold_strings(Node *c, int *keep, uint32_t *nkeep)
{
	Node *f = A(c, 0);
	Buf b = {0};
	int next = 1;
	size_t shown = 0;
	*nkeep = 0;
	for (const char *s = f->str, *end = s + f->str_len; s < end && shown <= FMT_TEXT_MAX; ) {
		const char *pc = memchr(s, '%', (size_t)(end - s));
		size_t lit = pc ? (size_t)(pc - s) : (size_t)(end - s);
		buf_putn(&b, s, lit);
		shown += lit;
		s += lit;
		if (!pc)
			break;
		FmtConv fc;
		s += fmt_scan(pc, &fc);
		int need = fmt_nargs(&fc);
		Node *a = A(c, next);
		if (fc.kind == FMT_STR && need == 1 && a && a->kind == ND_STR_LIT) {
			char spec[FMT_SPEC_MAX];
			fmt_spec(&fc, spec);
			int n = snprintf(NULL, 0, spec, a->str);
			char *t = xmalloc((size_t)n + 1);
			snprintf(t, (size_t)n + 1, spec, a->str);
			for (const char *p = t; *p; p++)
				buf_puts(&b, *p == '%' ? "%%" : (char[2]){*p, 0});
			shown += (size_t)n;
			free(t);
		} else {
			buf_putn(&b, pc, fc.len);
			for (int k = 0; k < need && next + k < c->args.len; k++)
				keep[(*nkeep)++] = next + k;
		}
		next += need;
	}
	const char *r = intern(b.data ? b.data : "", b.len);
	buf_free(&b);
	return r;
}

static Inst *printf_call(L *l, Node *c)
{
	Node *f = A(c, 0);
	int nargs = c->args.len - 1;
	Inst **vals = xcalloc((size_t)nargs + 1, sizeof *vals);
	for (int k = 0; k < nargs; k++) {        /* every argument is evaluated */
		Inst *v = ex(l, c, k + 1);
		if (!v) {
			v = lw_int(l, E_I32, 0);
		} else if (v->ty.n != 1) {
			error_at(A(c, k + 1)->loc, "printf takes scalar arguments");
			v = lw_int(l, E_I32, 0);
		}
		if (v->ty.elem == E_F32 || v->ty.elem == E_F16)
			v = lw_conv_elem(l, v, E_F64, false);
		else if (v->ty.elem == E_I1 || (ir_is_int(v->ty.elem) && ir_elem_bytes[v->ty.elem] < 4))
			v = lw_conv_elem(l, v, E_I32, false);
		vals[k] = v;
	}
	int *keep = xcalloc((size_t)nargs + 1, sizeof *keep);
	uint32_t n = 0;
	const char *fmt = f && f->str ? fold_strings(c, keep, &n) : intern_cstr("");
	Inst *i = ir_inst_new(l->f, Oprintf, ir_type(E_VOID, 0), n, l->B.loc);
	for (uint32_t k = 0; k < n; k++)
		i->ops[k] = vals[keep[k] - 1];
	i->str = fmt;
	ir_append(l->B.b, i);
	free(keep);
	free(vals);
	return lw_int(l, E_I32, f && f->str ? f->str_len : 0);
}

static Inst *sync(L *l, Node *c, Op op, int64_t imm, Inst *arg)
{
	Inst *i = ir_inst_new(l->f, op, ir_type(E_VOID, 0), arg ? 1 : 0, l->B.loc);
	if (arg)
		i->ops[0] = arg;
	i->imm = imm;
	ir_append(l->B.b, i);
	(void)c;
	return NULL;
}

static int64_t const_arg(Node *c, int i, int64_t dflt)
{
	Node *a = A(c, i);
	return a && a->has_value ? a->cval : dflt;
}

static Inst *memory(L *l, Node *c)
{
	Inst *z32 = NULL;
	/* operands in their own statements, in order: C leaves the order of a
	 * call's arguments unspecified, and the IR must not depend on the
	 * compiler that built cmetal */
	Inst *s0, *s1, *s2;
	switch (c->builtin) {
	case BI_READ_OWORD:
	case BI_WRITE_OWORD:
		s0 = ex(l, c, 0), s1 = ex(l, c, 1);
		block_rw(l, SP_SURF, s0, s1, A(c, 2), c->builtin == BI_READ_OWORD, 0);
		return NULL;
	case BI_READ_OWORD_ATTR:
		s0 = ex(l, c, 0), s1 = ex(l, c, 2);
		block_rw(l, SP_SURF, s0, s1, A(c, 3), true, attr_align(A(c, 1)));
		return NULL;
	case BI_HWORD_READ:
	case BI_HWORD_WRITE:
		s0 = ex(l, c, 0), s1 = ex(l, c, 1);
		block_rw(l, SP_SURF, s0, s1, A(c, 2), c->builtin == BI_HWORD_READ, 0);
		return NULL;
	case BI_READ_2D: case BI_READ_2D_ATTR:
		media(l, c, true);
		return NULL;
	case BI_WRITE_2D: case BI_WRITE_2D_ATTR:
		media(l, c, false);
		return NULL;
	case BI_READ_SCATTERED:
	case BI_WRITE_SCATTERED:
		s0 = ex(l, c, 0), s1 = u32(l, ex(l, c, 1)), s2 = ex(l, c, 2);
		scattered(l, SP_SURF, s0, s1, s2, A(c, 3), c->builtin == BI_READ_SCATTERED, false);
		return NULL;
	case BI_READ_SCATTERED_ATTR:
		s0 = ex(l, c, 0), s1 = u32(l, ex(l, c, 2)), s2 = ex(l, c, 3);
		scattered(l, SP_SURF, s0, s1, s2, A(c, 4), true, false);
		return NULL;
	case BI_READ_SCALED:
	case BI_WRITE_SCALED:
		s0 = ex(l, c, 0), s1 = u32(l, ex(l, c, 1)), s2 = ex(l, c, 2);
		scattered(l, SP_SURF, s0, s1, s2, A(c, 3), c->builtin == BI_READ_SCALED, true);
		return NULL;
	case BI_QWORD_SCATTER_READ:
	case BI_QWORD_SCATTER_WRITE:
		s0 = ex(l, c, 0), s1 = lw_int(l, E_U32, 0), s2 = ex(l, c, 1);
		scattered(l, SP_SURF, s0, s1, s2, A(c, 2), c->builtin == BI_QWORD_SCATTER_READ, false);
		return NULL;
	case BI_READ_SCALAR: {
		s0 = ex(l, c, 0), s1 = u32(l, ex(l, c, 1)), s2 = lw_int(l, E_U32, 0);
		Inst *ops[3] = {s0, s1, s2};
		return emit(l, Ogather, tyof(c), SP_SURF, ops, 3, NULL);
	}
	case BI_WRITE_SCALAR:
	case BI_WRITE_SCALAR_OFF: {
		bool off = c->builtin == BI_WRITE_SCALAR_OFF;
		Inst *s = ex(l, c, 0);
		Inst *g = off ? u32(l, ex(l, c, 1)) : lw_int(l, E_U32, 0);
		Inst *e = u32(l, ex(l, c, off ? 2 : 1));
		Inst *v = ex(l, c, off ? 3 : 2);
		Inst *ops[4] = {s, g, e, v};
		emit(l, Oscatter, ir_type(E_VOID, 0), SP_SURF, ops, 4, NULL);
		return NULL;
	}
	case BI_READ_UNTYPED:
		s0 = ex(l, c, 0), s1 = ex(l, c, 3);
		rgba(l, SP_SURF, s0, s1, A(c, 2), c->cargs[1], true, false);
		return NULL;
	case BI_WRITE_UNTYPED:
		s0 = ex(l, c, 0), s1 = ex(l, c, 3);
		rgba(l, SP_SURF, s0, s1, A(c, 2), c->cargs[1], false, false);
		return NULL;
	case BI_READ_TYPED:
	case BI_WRITE_TYPED:
		typed(l, c, c->builtin == BI_READ_TYPED);
		return NULL;
	case BI_WRITE_ATOMIC:
		s0 = ex(l, c, 0), s1 = lw_int(l, E_U32, 0);
		atomic(l, c, SP_SURF, s0, s1, 1, NULL, false, false);
		return NULL;
	case BI_WRITE_ATOMIC_MASKED: {
		Inst *m = ex(l, c, 0);
		Inst *one = irb_const_int(&l->B, ir_scalar(m->ty.elem), 1);
		m = lw_bool_vec(l, irb_op(&l->B, Oand, m->ty, m, one, NULL));
		s0 = ex(l, c, 1), s1 = lw_int(l, E_U32, 0);
		atomic(l, c, SP_SURF, s0, s1, 2, m, false, false);
		return NULL;
	}
	case BI_WRITE_TYPED_ATOMIC:
	case BI_WRITE_TYPED_ATOMIC_MASKED:
		typed_atomic(l, c, c->builtin == BI_WRITE_TYPED_ATOMIC_MASKED);
		return NULL;
	case BI_WRITE_ATOMIC_LEGACY:
		s0 = ex(l, c, 0), s1 = u32(l, ex(l, c, 2));
		atomic(l, c, SP_SURF, s0, s1, 3, NULL, false, true);
		return NULL;
	case BI_SLM_ATOMIC:
		s0 = u32(l, ex(l, c, 0)), s1 = lw_int(l, E_U32, 0);
		atomic(l, c, SP_SLM, s0, s1, 2, NULL, false, false);
		return NULL;
	case BI_SVM_ATOMIC:
	case BI_SVM_ATOMIC_OP:
		atomic(l, c, SP_SVM, irb_const_int(&l->B, ir_scalar(E_U64), 0),
		       irb_const_int(&l->B, ir_scalar(E_U64), 0),
		       c->builtin == BI_SVM_ATOMIC ? 1 : 0, NULL, true, false);
		return NULL;
	case BI_SLM_INIT: {
		int64_t n = const_arg(c, 0, -1);
		if (n < 0)
			error_at(c->loc, "cm_slm_init needs a constant size");
		else if ((uint32_t)n > l->f->slm_size)
			l->f->slm_size = (uint32_t)n;
		return NULL;
	}
	case BI_SLM_ALLOC: {
		int64_t n = const_arg(c, 0, -1);
		if (n < 0) {
			error_at(c->loc, "cm_slm_alloc needs a constant size");
			return lw_int(l, E_U32, 0);
		}
		uint32_t at = (l->slm_next + 15u) & ~15u;
		l->slm_next = at + (uint32_t)n;
		return lw_int(l, E_U32, at);
	}
	case BI_SLM_LOAD:
		slm_load(l, c, SP_SURF);
		return NULL;
	case BI_SLM_LOAD_SVM:
		slm_load(l, c, SP_SVM);
		return NULL;
	case BI_SLM_READ: case BI_SLM_WRITE: case BI_SLM_READ_SCALED: case BI_SLM_WRITE_SCALED: {
		bool rd = c->builtin == BI_SLM_READ || c->builtin == BI_SLM_READ_SCALED;
		bool sc = c->builtin == BI_SLM_READ_SCALED || c->builtin == BI_SLM_WRITE_SCALED;
		z32 = lw_int(l, E_U32, 0);
		s0 = u32(l, ex(l, c, 0)), s1 = ex(l, c, 1);
		scattered(l, SP_SLM, s0, z32, s1, A(c, 2), rd, sc);
		return NULL;
	}
	case BI_SLM_READ4: case BI_SLM_WRITE4: case BI_SLM_READ4_SCALED: case BI_SLM_WRITE4_SCALED: {
		bool rd = c->builtin == BI_SLM_READ4 || c->builtin == BI_SLM_READ4_SCALED;
		bool sc = c->builtin == BI_SLM_READ4_SCALED || c->builtin == BI_SLM_WRITE4_SCALED;
		s0 = u32(l, ex(l, c, 0)), s1 = ex(l, c, 1);
		rgba(l, SP_SLM, s0, s1, A(c, 2), ~c->cargs[1] & 0xF, rd, sc);
		return NULL;
	}
	case BI_SLM_BLOCK_READ:
	case BI_SLM_BLOCK_WRITE:
		s0 = u32(l, ex(l, c, 0)), s1 = ex(l, c, 1);
		block_rw(l, SP_SLM, s0, s1, A(c, 2), c->builtin == BI_SLM_BLOCK_READ, 0);
		return NULL;
	case BI_SLM_BLOCK_READ_ATTR:
		s0 = u32(l, ex(l, c, 0)), s1 = ex(l, c, 2);
		block_rw(l, SP_SLM, s0, s1, A(c, 3), true,
		         attr_align(A(c, 1)));
		return NULL;
	case BI_SVM_BLOCK_READ:
	case BI_SVM_BLOCK_READ_UNALIGNED:
	case BI_SVM_BLOCK_WRITE:
		s0 = lw_conv_elem(l, ex(l, c, 0), E_U64, false), s1 = lw_int(l, E_I32, 0);
		block_rw(l, SP_SVM, s0, s1, A(c, 1), c->builtin != BI_SVM_BLOCK_WRITE,
		         c->builtin == BI_SVM_BLOCK_READ_UNALIGNED ? 4 : 0);
		return NULL;
	case BI_SVM_SCATTER_READ:
	case BI_SVM_SCATTER_WRITE:
		s0 = irb_const_int(&l->B, ir_scalar(E_U64), 0);
		s1 = irb_const_int(&l->B, ir_scalar(E_U64), 0);
		s2 = lw_conv_elem(l, ex(l, c, 0), E_U64, false);
		scattered(l, SP_SVM, s0, s1, s2, A(c, 1), c->builtin == BI_SVM_SCATTER_READ, true);
		return NULL;
	case BI_SVM_GATHER4:
	case BI_SVM_SCATTER4:
		s0 = irb_const_int(&l->B, ir_scalar(E_U64), 0);
		s1 = lw_conv_elem(l, ex(l, c, 0), E_U64, false);
		rgba(l, SP_SVM, s0, s1, A(c, 1), c->cargs[1], c->builtin == BI_SVM_GATHER4, true);
		return NULL;
	default:
		return NULL;
	}
}

static Inst *math(L *l, Node *c)
{
	switch (c->builtin) {
	case BI_ABS: return math_op(l, c, Oabs, 1, false);
	case BI_ADD: return math_op(l, c, Oadd, 2, false);
	case BI_MUL: return math_op(l, c, Omul, 2, false);
	case BI_AVG: return math_op(l, c, Oavg, 2, false);
	case BI_MIN: return math_op(l, c, Omin, 2, false);
	case BI_MAX: return math_op(l, c, Omax, 2, false);
	case BI_QUOT: return math_in(l, c, Odiv, 2, false, E_VOID);
	case BI_MOD: return math_in(l, c, Orem, 2, false, E_VOID);
	case BI_SHL: case BI_SHR: return shift(l, c, 0);
	case BI_LSR: return shift(l, c, 1);
	case BI_ASR: return shift(l, c, 2);
	case BI_ROL: return math_in(l, c, Orol, 2, false, E_VOID);
	case BI_ROR: return math_in(l, c, Oror, 2, false, E_VOID);
	case BI_INV: return math_op(l, c, Oinv, 1, true);
	case BI_LOG: return math_op(l, c, Olog2, 1, true);
	case BI_EXP: return math_op(l, c, Oexp2, 1, true);
	case BI_SQRT: return math_op(l, c, Osqrt, 1, true);
	case BI_SQRT_IEEE: return ieee(math_op(l, c, Osqrt, 1, true), Osqrt);
	case BI_RSQRT: return math_op(l, c, Orsqrt, 1, true);
	case BI_SIN: return math_op(l, c, Osin, 1, true);
	case BI_COS: return math_op(l, c, Ocos, 1, true);
	case BI_ASIN: return math_op(l, c, Oasin, 1, true);
	case BI_ACOS: return math_op(l, c, Oacos, 1, true);
	case BI_ATAN: return math_op(l, c, Oatan, 1, true);
	case BI_POW: return math_op(l, c, Opow, 2, true);
	case BI_DIV_IEEE: return ieee(math_op(l, c, Odiv, 2, true), Odiv);
	case BI_FRC: return math_in(l, c, Ofrc, 1, true, E_VOID);
	case BI_RNDD: return math_in(l, c, Orndd, 1, true, E_VOID);
	case BI_RNDU: return math_in(l, c, Orndu, 1, true, E_VOID);
	case BI_RNDE: return math_in(l, c, Ornde, 1, true, E_VOID);
	case BI_RNDZ: return math_in(l, c, Orndz, 1, true, E_VOID);
	case BI_LZD: return math_in(l, c, Olzd, 1, false, E_U32);
	case BI_CBIT: return math_in(l, c, Ocbit, 1, false, E_U32);
	case BI_FBL: return math_in(l, c, Ofbl, 1, false, E_U32);
	case BI_FBH: return math_in(l, c, Ofbh, 1, false, E_VOID);
	case BI_BF_REVERSE: return math_in(l, c, Obfrev, 1, false, E_VOID);
	case BI_BF_INSERT: return math_in(l, c, Obfi, 4, false, E_VOID);
	case BI_BF_EXTRACT: return math_in(l, c, Obfe, 3, false, E_VOID);
	case BI_F16TOF32: case BI_F32TOF16:
		return half_bits(l, c);
	case BI_ADDC: return two(l, c, Oadd, Ocarry, 2, 0);
	case BI_SUBB: return two(l, c, Osub, Oborrow, 2, 0);
	case BI_DIV: return two(l, c, Odiv, Orem, 0, 1);
	case BI_IMUL: return two(l, c, Omulhi, Omul, 0, 1);
	case BI_SINCOS: {
		Inst *v[1];
		operands(l, c, 1, 1, v, true);
		lw_assign_to(l, A(c, 0), irb_op(&l->B, Ocos, v[0]->ty, v[0], NULL, NULL));
		return finish(l, c, irb_op(&l->B, Osin, v[0]->ty, v[0], NULL, NULL));
	}
	default:
		return NULL;
	}
}

/* cm_dpas: one Odpas; the form without src0 accumulates onto zero.  The
 * operands keep their element types: Odpas reads their bytes. */
static Inst *dpas(L *l, Node *c)
{
	bool acc = c->builtin == BI_DPAS;
	IrType t = tyof(c);
	Inst *ops[3];
	ops[0] = acc ? ex(l, c, 0) : NULL;
	ops[1] = ex(l, c, acc);
	ops[2] = ex(l, c, acc + 1);
	if (!ops[1] || !ops[2] || (acc && !ops[0]))
		return NULL;
	if (!acc)
		ops[0] = ir_is_float(t.elem) ? irb_const_float(&l->B, t, 0) : irb_const_int(&l->B, t, 0);
	Inst *i = emit(l, Odpas, t, SP_NONE, ops, 3, NULL);
	i->imm = IR_DPAS_IMM(c->cargs[0], c->cargs[1], c->cargs[2]);
	return i;
}

/* cm_wgmma, cm_wgmma_async (async): one Owgmma (its SLM offsets as u32). */
static Inst *wgmma(L *l, Node *c, bool async)
{
	Inst *ops[3] = {ex(l, c, 0), ex(l, c, 1), ex(l, c, 2)};
	if (!ops[0] || !ops[1] || !ops[2])
		return NULL;
	ops[1] = u32(l, ops[1]);
	ops[2] = u32(l, ops[2]);
	Inst *i = emit(l, Owgmma, tyof(c), SP_NONE, ops, 3, NULL);
	i->imm = c->cargs[0] | (c->cargs[2] == 128 ? IR_WGMMA_SW128 : 0) |
	         (async ? IR_WGMMA_ASYNC : 0);
	return i;
}

/* cm_slm_copy_async<E>(slm, buf, off): one Oslmcopy of E-byte elements
 * (sema's cargs[0]; ir.h).  buf must be a buffer:
 * a kernel parameter declared as an image is an error here, where the
 * surface is known (an inlined function's SurfaceIndex is its caller's). */
static Inst *slm_copy(L *l, Node *c)
{
	Inst *slm = ex(l, c, 0), *surf = ex(l, c, 1), *offs = ex(l, c, 2);
	if (!slm || !surf || !offs)
		return NULL;
	if (surf->op == Oarg && (uint32_t)surf->imm < l->f->nparams) {
		const IrParam *pa = &l->f->params[surf->imm];
		if (pa->surf != CMK_SURF_BUFFER && pa->surf != CMK_SURF_ANY) {
			error_at(c->loc, "cm_slm_copy_async copies from a buffer; '%s' is declared "
			         "as '%s'", pa->name, pa->type_attr);
			return NULL;
		}
	}
	Inst *ops[3] = {u32(l, surf), u32(l, slm), u32(l, offs)};
	Inst *i = emit(l, Oslmcopy, ir_type(E_VOID, 0), SP_NONE, ops, 3, NULL);
	i->imm = c->cargs[0];
	return NULL;
}

Inst *lw_builtin(L *l, Node *c)
{
	Inst *r;
	switch (c->builtin) {
	case BI_THREAD_ORIGIN_X ... BI_LINEAR_GLOBAL_SIZE:
		r = thread_ids(l, c);
		return r ? lw_coerce(l, r, tyof(c), false) : NULL;
	case BI_READ_OWORD ... BI_WRITE_TYPED_ATOMIC_MASKED:
	case BI_SLM_INIT ... BI_SLM_BLOCK_WRITE:
	case BI_SVM_BLOCK_READ ... BI_SVM_SCATTER4:
		return memory(l, c);
	case BI_SLM_FENCE:
		return sync(l, c, Ofence, const_arg(c, 0, 0x20), NULL);
	case BI_FENCE:
		return sync(l, c, Ofence, const_arg(c, 0, 0), NULL);
	case BI_BARRIER:
		l->f->uses_barrier = true;
		return sync(l, c, Obarrier, 0, NULL);
	case BI_SBARRIER:
		l->f->uses_barrier = true;
		return sync(l, c, Osbarrier, const_arg(c, 0, 0), NULL);
	case BI_WAIT:
		l->f->uses_wait = true;
		return sync(l, c, Owait, 0, c->args.len ? u32(l, ex(l, c, 0)) : lw_int(l, E_U32, 0));
	case BI_SIGNAL:
		l->f->uses_wait = true;
		return sync(l, c, Osignal, 0, NULL);
	case BI_PAUSE:
		ex(l, c, 0);
		return NULL;
	case BI_ABS ... BI_F32TOF16:
		return math(l, c);
	case BI_DP2 ... BI_SADA2:
		return tuple(l, c);
	case BI_SUM ... BI_REDUCED_MAX:
		return reduce(l, c);
	case BI_PACK_MASK: {
		Inst *v = ex(l, c, 0);
		if (v->ty.elem != E_I1 && !ir_is_float(v->ty.elem))
			v = irb_op(&l->B, Oand, v->ty, v,
			           irb_const_int(&l->B, ir_scalar(v->ty.elem), 1), NULL);
		v = lw_bool_vec(l, v);
		if (v->ty.n > 32) {
			error_at(c->loc, "cm_pack_mask takes at most 32 elements");
			return lw_int(l, E_U32, 0);
		}
		return irb_op(&l->B, Opack, ir_scalar(E_U32), v, NULL, NULL);
	}
	case BI_UNPACK_MASK: {
		IrType t = tyof(c);
		Inst *m = irb_op(&l->B, Ounpack, ir_type(E_I1, t.n), u32(l, ex(l, c, 0)), NULL, NULL);
		return lw_conv_elem(l, m, t.elem, false);
	}
	case BI_RDTSC: {
		Inst *i = ir_inst_new(l->f, Otimer, ir_type(E_U32, 4), 0, l->B.loc);
		ir_append(l->B.b, i);
		return i;
	}
	case BI_PRINTF:
		return printf_call(l, c);
	case BI_UNMASK_BEGIN:
		l->unmasked = true;
		return lw_int(l, E_U32, 0);
	case BI_UNMASK_END:
		ex(l, c, 0);
		l->unmasked = false;
		return NULL;
	case BI_SIMDCF_ANY:
		return lw_cond(l, A(c, 0));
	case BI_LABEL:
		return NULL;
	case BI_CMTL_VECTOR_ASSIGN ... BI_CMTL_TANH_CW:
		return cmtl(l, c);
	case BI_DPAS: case BI_DPAS_NOACC:
		return dpas(l, c);
	case BI_WGMMA:
		return wgmma(l, c, false);
	case BI_WGMMA_ASYNC:
		return wgmma(l, c, true);
	case BI_WGMMA_WAIT:
		return sync(l, c, Owgwait, const_arg(c, 0, 0), NULL);
	case BI_SLM_COPY_ASYNC:
		return slm_copy(l, c);
	case BI_SLM_COPY_COMMIT:
		return sync(l, c, Oslmcommit, 0, NULL);
	case BI_SLM_COPY_WAIT:
		return sync(l, c, Oslmwait, const_arg(c, 0, 0), NULL);
	default:
		error_at(c->loc, "builtin '%s' is not supported by the lowering",
		         c->lhs && c->lhs->name ? c->lhs->name : "?");
		return NULL;
	}
}
