/* lower_expr.c — expressions to CMIR values; lvalues as regions.
 *
 * An rvalue is one Inst (a vector, or a scalar with n = 1; matrices are
 * flat, row-major).  An lvalue is an LRef (lower.h): a 2D affine view of a
 * variable.  select / row / column / element access / format compose into
 * one LRef (a select of a select is one region; format re-views the
 * variable through a bitcast and rescales the offsets), so reading one is a
 * single rdregion and writing one a single wrregion of the whole variable,
 * masked by the SIMD execution mask when it has the SIMD width.  Members
 * applied to rvalues first copy the value into a temporary variable.
 *
 * Sema leaves most operand conversions implicit (vector op scalar, compound
 * assignment): every operator converts its operands itself, with the
 * promotion rules of cm-language.md §4.1.  All operands are read before the
 * result is written, which SSA gives for free: aliasing-safe evaluation.
 */
#include <string.h>

#include "ir/lower.h"

/* ---- types and constants --------------------------------------------------- */

Elem lw_elem(Type *t)
{
	switch (t->kind) {
	case TY_SCALAR:
		switch (t->sk) {
		case SK_BOOL: return E_I1;
		case SK_CHAR: return E_I8;
		case SK_UCHAR: return E_U8;
		case SK_SHORT: return E_I16;
		case SK_USHORT: return E_U16;
		case SK_INT: return E_I32;
		case SK_UINT: return E_U32;
		case SK_LONG: return E_I64;
		case SK_ULONG: return E_U64;
		case SK_HALF: return E_F16;
		case SK_FLOAT: return E_F32;
		case SK_DOUBLE: return E_F64;
		default: return E_I32;
		}
	case TY_VECTOR:
	case TY_MATRIX:
	case TY_ARRAY:
		return lw_elem(t->elem);
	case TY_SURFACE: case TY_SAMPLER: case TY_VME:
		return E_U32;
	case TY_VOID:
		return E_VOID;
	default:
		return E_I32;
	}
}

static uint32_t total_elems(Type *t)
{
	if (t->kind == TY_ARRAY)
		return (uint32_t)t->n * total_elems(t->elem);
	return ty_is_vm(t) ? (uint32_t)ty_elems(t) : 1;
}

IrType lw_type(Type *t)
{
	return ir_type(lw_elem(t), total_elems(t));
}

static int ebytes(Elem e) { return ir_elem_bytes[e]; }

/* An element value wrapped to the type (ints) or rounded (floats). */
static IrScalar scalar_of(Elem e, int64_t iv, double fv, bool isf)
{
	IrScalar s = {0};
	if (ir_is_float(e)) {
		s.f = isf ? fv : (double)iv;
		if (e == E_F32)
			s.f = (double)(float)s.f;
		return s;
	}
	int64_t v = isf ? (int64_t)fv : iv;
	if (e == E_I1) {
		s.i = v != 0;
		return s;
	}
	int bits = ebytes(e) * 8;
	if (bits < 64) {
		uint64_t m = (1ull << bits) - 1;
		uint64_t u = (uint64_t)v & m;
		if (ir_is_signed(e) && (u >> (bits - 1)))
			u |= ~m;
		v = (int64_t)u;
	}
	s.i = v;
	return s;
}

static Inst *konst(L *l, IrType ty, int64_t iv, double fv, bool isf)
{
	IrScalar s = scalar_of(ty.elem, iv, fv, isf);
	if (ir_is_float(ty.elem))
		return irb_const_float(&l->B, ty, s.f);
	return irb_const_int(&l->B, ty, s.i);
}

Inst *lw_int(L *l, Elem e, int64_t v) { return konst(l, ir_scalar(e), v, 0, false); }

/* Flattens a (nested) initializer list into vals. */
static void flatten(Node *n, Elem e, IrScalar *vals, uint32_t cap, uint32_t *k)
{
	if (!n)
		return;
	if (n->kind == ND_INIT_LIST) {
		for (int i = 0; i < n->args.len; i++)
			flatten(n->args.data[i], e, vals, cap, k);
		return;
	}
	if (*k >= cap)
		return;
	bool isf = n->ty && ty_is_float(n->ty);
	int64_t iv = n->has_value ? n->cval : (int64_t)n->ival;
	double fv = n->has_value ? n->cfval : n->fval;
	if (!n->has_value && n->kind == ND_FLOAT_LIT)
		isf = true;
	if (!n->has_value && n->kind == ND_CAST && n->lhs)
		return flatten(n->lhs, e, vals, cap, k);
	vals[(*k)++] = scalar_of(e, iv, fv, isf);
}

/* The value of a const global array, as one constant vector. */
Inst *lw_const_array(L *l, Sym *s)
{
	IrType ty = lw_type(s->ty);
	IrScalar *vals = NEWN(l->f->arena, IrScalar, ty.n);
	uint32_t k = 0;
	Node *d = s->decl;
	if (d && d->kind == ND_VAR_DECL)
		flatten(d->init, ty.elem, vals, ty.n, &k);
	return irb_const_list(&l->B, ty, vals);
}

/* vector<T,N> v(array) copies the first min(array size, N) elements
 * (cm-language.md §2.3).  cmc leaves the rest of a longer vector
 * uninitialized; here they are 0, what an uninitialized local reads as. */
Inst *lw_array_fit(L *l, Inst *v, uint32_t n)
{
	if (v->ty.n > n)
		return irb_rdregion(&l->B, ir_type(v->ty.elem, n), v,
		                    (IrRegion){0, (int32_t)n, 1, 0}, NULL);
	if (v->ty.n == n)
		return v;
	Inst *z = konst(l, ir_type(v->ty.elem, n), 0, 0, false);
	return irb_wrregion(&l->B, z, v, (IrRegion){0, (int32_t)v->ty.n, 1, 0},
	                    NULL, NULL);
}

/* ---- conversions ------------------------------------------------------------- */

Inst *lw_splat(L *l, Inst *v, uint32_t n)
{
	if (v->ty.n == n)
		return v;
	if (v->ty.n != 1)
		die("splat of a vector");
	return irb_rdregion(&l->B, ir_type(v->ty.elem, n), v, (IrRegion){0, 1, 0, 0}, NULL);
}

Inst *lw_conv_elem(L *l, Inst *v, Elem to, bool sat)
{
	if (v->ty.elem == to && !sat)
		return v;
	return irb_conv(&l->B, ir_type(to, v->ty.n), v, sat);
}

Inst *lw_coerce(L *l, Inst *v, IrType to, bool sat)
{
	if (v->ty.n != to.n && v->ty.n != 1) {
		error_at(l->B.loc, "cannot convert %u elements to %u", v->ty.n, to.n);
		return konst(l, to, 0, 0, false);
	}
	return lw_splat(l, lw_conv_elem(l, v, to.elem, sat), to.n);
}

Inst *lw_bool_vec(L *l, Inst *v)
{
	if (v->ty.elem == E_I1)
		return v;
	Inst *z = konst(l, ir_scalar(v->ty.elem), 0, 0, false);
	return irb_op(&l->B, One, ir_type(E_I1, v->ty.n), v, z, NULL);
}

/* Integer promotion: small integers and bool compute as int. */
Elem lw_promote(Elem e)
{
	if (e == E_I1 || (ir_is_int(e) && ebytes(e) < 4))
		return E_I32;
	return e;
}

/* The usual arithmetic conversions of two element types. */
Elem lw_common(Elem a, Elem b)
{
	a = lw_promote(a);
	b = lw_promote(b);
	if (a == b)
		return a;
	if (ir_is_float(a) || ir_is_float(b)) {
		if (!ir_is_float(a))
			return b;
		if (!ir_is_float(b))
			return a;
		return ebytes(a) >= ebytes(b) ? a : b;
	}
	if (ebytes(a) != ebytes(b))
		return ebytes(a) > ebytes(b) ? a : b;
	return ir_is_signed(a) ? b : a;
}

/* ---- operators ------------------------------------------------------------------ */

static Op binop(int punct, Elem e)
{
	switch (punct) {
	case P_PLUS: return Oadd;
	case P_MINUS: return Osub;
	case P_STAR: return Omul;
	case P_SLASH: return Odiv;
	case P_PERCENT: return Orem;
	case P_AMP: return Oand;
	case P_PIPE: return Oor;
	case P_CARET: return Oxor;
	case P_LSHIFT: return Oshl;
	case P_RSHIFT: return ir_is_signed(e) ? Oashr : Olshr;
	case P_LT: return Olt;
	case P_LE: return Ole;
	case P_GT: return Ogt;
	case P_GE: return Oge;
	case P_EQ: return Oeq;
	case P_NE: return One;
	default: die("no IR operator for punctuator %d", punct);
	}
}


static bool is_shift(int p) { return p == P_LSHIFT || p == P_RSHIFT; }
static bool is_cmp(int p)
{
	return p == P_LT || p == P_LE || p == P_GT || p == P_GE || p == P_EQ || p == P_NE;
}

/* a OP b computed in element type e (compares yield i1). */
static Inst *arith(L *l, int punct, Inst *a, Inst *b, Elem e)
{
	uint32_t n = a->ty.n > b->ty.n ? a->ty.n : b->ty.n;
	if (a->ty.n != b->ty.n && a->ty.n != 1 && b->ty.n != 1) {
		error_at(l->B.loc, "operands of %u and %u elements", a->ty.n, b->ty.n);
		return konst(l, ir_type(e, n), 0, 0, false);
	}
	a = lw_conv_elem(l, a, e, false);
	b = lw_conv_elem(l, b, e, false);
	Op op = binop(punct, e);
	if (e == E_I1 && (op == Oadd || op == Osub || op == Omul)) {
		a = lw_conv_elem(l, a, E_I32, false);
		b = lw_conv_elem(l, b, E_I32, false);
	}
	IrType rt = ir_type(is_cmp(punct) ? E_I1 : a->ty.elem, n);
	return irb_op(&l->B, op, rt, a, b, NULL);
}

/* Operator result: the node's element type, compares in the common type. */
static Inst *binary(L *l, Node *e)
{
	int p = e->op;
	if (p == P_ANDAND || p == P_OROR) {
		Var *r = lw_var(l, ir_scalar(E_I1), "cc");
		Inst *a = lw_cond(l, e->lhs);
		lw_write(l, r, a);
		Block *rhs = lw_block(l), *join = lw_block(l);
		if (p == P_ANDAND)
			lw_cbr(l, a, rhs, join);
		else
			lw_cbr(l, a, join, rhs);
		lw_seal_block(l, rhs);
		lw_set_block(l, rhs);
		lw_write(l, r, lw_cond(l, e->rhs));
		lw_br(l, join);
		lw_seal_block(l, join);
		lw_set_block(l, join);
		return lw_conv_elem(l, lw_read(l, r), lw_elem(e->ty), false);
	}
	if (p == P_COMMA) {
		lw_expr(l, e->lhs);
		return lw_expr(l, e->rhs);
	}
	Inst *a = lw_expr(l, e->lhs), *b = lw_expr(l, e->rhs);
	if (!a || !b)
		return NULL;
	Elem re = lw_elem(e->ty);
	if (is_cmp(p)) {
		Inst *c = arith(l, p, a, b, lw_common(a->ty.elem, b->ty.elem));
		return lw_conv_elem(l, c, re, false);
	}
	if (re == E_I1 && p != P_AMP && p != P_PIPE && p != P_CARET)
		re = E_I32;
	Inst *r = arith(l, p, a, b, re);
	return lw_conv_elem(l, r, lw_elem(e->ty), false);
}

static Inst *unary(L *l, Node *e)
{
	Elem re = lw_elem(e->ty);
	if (e->op == P_INC || e->op == P_DEC) {
		LRef r;
		if (!lw_lref(l, e->lhs, &r)) {
			error_at(e->loc, "operand of ++/-- is not assignable");
			return NULL;
		}
		Inst *old = lw_lref_read(l, &r);
		Elem ce = lw_promote(old->ty.elem);
		Inst *nv = arith(l, e->op == P_INC ? P_PLUS : P_MINUS, old,
		                 konst(l, ir_scalar(ce), 1, 0, false), ce);
		nv = lw_conv_elem(l, nv, old->ty.elem, false);
		lw_lref_write(l, &r, nv);
		return e->kind == ND_POSTFIX ? old : nv;
	}
	Inst *v = lw_expr(l, e->lhs);
	if (!v)
		return NULL;
	switch (e->op) {
	case P_PLUS:
		return lw_conv_elem(l, v, re, false);
	case P_MINUS:
		v = lw_conv_elem(l, v, re == E_I1 ? E_I32 : re, false);
		return irb_op(&l->B, Oneg, v->ty, v, NULL, NULL);
	case P_TILDE:
		v = lw_conv_elem(l, v, re, false);
		return irb_op(&l->B, Onot, v->ty, v, NULL, NULL);
	case P_NOT: {
		Inst *z = konst(l, ir_scalar(v->ty.elem), 0, 0, false);
		Inst *c = irb_op(&l->B, Oeq, ir_type(E_I1, v->ty.n), v, z, NULL);
		return lw_conv_elem(l, c, re, false);
	}
	default:
		die("unary operator %d", e->op);
	}
}

/* x = v, x op= v, with conversion back to x's type. */
static Inst *assign(L *l, Node *e)
{
	int p = punct_compound_base(e->op);
	if (e->lhs && e->lhs->ty && e->lhs->ty->kind == TY_STRUCT && !p) {
		Binding *d = lw_struct_ref(l, e->lhs);
		if (!d)
			error_at(e->loc, "the left side of the assignment is not assignable");
		else
			lw_struct_init(l, d, e->rhs);
		return NULL;
	}
	Inst *v = lw_expr(l, e->rhs);
	LRef r;
	if (!lw_lref(l, e->lhs, &r)) {
		error_at(e->loc, "the left side of the assignment is not assignable");
		return NULL;
	}
	if (!v)
		return NULL;
	IrType rt = lw_lref_type(&r);
	if (p) {
		Inst *old = lw_lref_read(l, &r);
		Elem ce = is_shift(p) ? lw_promote(old->ty.elem) : lw_common(old->ty.elem, v->ty.elem);
		v = arith(l, p, old, v, ce);
	}
	v = lw_coerce(l, v, rt, false);
	lw_lref_write(l, &r, v);
	return v;
}

void lw_assign_to(L *l, Node *dst, Inst *val)
{
	LRef r;
	if (!lw_lref(l, dst, &r)) {
		error_at(dst->loc, "destination is not assignable");
		return;
	}
	lw_lref_write(l, &r, lw_coerce(l, val, lw_lref_type(&r), false));
}

static Inst *cond_expr(L *l, Node *e)
{
	IrType ty = lw_type(e->ty);
	Inst *c = lw_cond(l, e->cond);
	Var *r = ty.elem != E_VOID ? lw_var(l, ty, "cond") : NULL;
	Block *bt = lw_block(l), *be = lw_block(l), *join = lw_block(l);
	lw_cbr(l, c, bt, be);
	lw_seal_block(l, bt);
	lw_seal_block(l, be);
	lw_set_block(l, bt);
	Inst *a = lw_expr(l, e->then);
	if (r && a)
		lw_write(l, r, lw_coerce(l, a, ty, false));
	lw_br(l, join);
	lw_set_block(l, be);
	Inst *b = lw_expr(l, e->els);
	if (r && b)
		lw_write(l, r, lw_coerce(l, b, ty, false));
	lw_br(l, join);
	lw_seal_block(l, join);
	lw_set_block(l, join);
	return r ? lw_read(l, r) : NULL;
}

static Node *cast_src(Node *e)
{
	if (e->lhs)
		return e->lhs;
	return e->args.len ? e->args.data[0] : NULL;
}

static Inst *cast(L *l, Node *e)
{
	Node *src = cast_src(e);
	if (!src)
		return konst(l, lw_type(e->ty), 0, 0, false);
	Inst *v = lw_expr(l, src);
	if (!v || e->ty->kind == TY_VOID)
		return NULL;
	IrType to = lw_type(e->ty);
	if (src->ty && src->ty->kind == TY_ARRAY)
		v = lw_array_fit(l, v, to.n);
	return lw_coerce(l, v, to, e->sat);
}

/* ---- lvalues ---------------------------------------------------------------- */

LRef lw_whole(Var *v, Type *t)
{
	LRef r = {.var = v, .view = v->ty.elem, .rows = 1, .cols = (int)v->ty.n,
	          .cs = 1};
	Type *b = t ? ty_base(t) : NULL;
	if (b && b->kind == TY_MATRIX && b->rows * b->cols == (int)v->ty.n) {
		r.rows = b->rows;
		r.cols = b->cols;
		r.is_matrix = true;
	}
	r.rs = r.cols;
	return r;
}

uint32_t lw_lref_n(const LRef *r) { return (uint32_t)(r->rows * r->cols); }
IrType lw_lref_type(const LRef *r) { return ir_type(r->view, lw_lref_n(r)); }

static uint32_t view_n(const LRef *r)
{
	return r->var->ty.n * (uint32_t)ebytes(r->var->ty.elem) / (uint32_t)ebytes(r->view);
}

static bool whole(const LRef *r)
{
	return !r->roff && r->base == 0 && lw_lref_n(r) == view_n(r) &&
	       (r->cs == 1 || r->cols == 1) && (r->rows == 1 || r->rs == r->cols);
}

/* The region of r; constant regions that leave the variable become runtime
 * offsets (out-of-range elements read 0 and are not written). */
static IrRegion region_of(L *l, const LRef *r, Inst **roff)
{
	IrRegion rg = {r->rows > 1 ? r->rs : 0, r->cols, r->cols > 1 ? r->cs : 0, r->base};
	*roff = r->roff;
	int64_t last = (int64_t)r->base + (int64_t)(r->rows - 1) * rg.vstride +
	               (int64_t)(r->cols - 1) * rg.hstride;
	if (!r->roff && (r->base < 0 || last >= view_n(r))) {
		*roff = lw_int(l, E_I32, r->base);
		rg.offset = 0;
	}
	return rg;
}

static Inst *view_read(L *l, const LRef *r)
{
	Inst *v = lw_read(l, r->var);
	if (r->view != r->var->ty.elem)
		v = irb_op(&l->B, Obitcast, ir_type(r->view, view_n(r)), v, NULL, NULL);
	return v;
}

Inst *lw_lref_read(L *l, const LRef *r)
{
	Inst *v = view_read(l, r);
	if (whole(r))
		return v;
	Inst *roff;
	IrRegion rg = region_of(l, r, &roff);
	return irb_rdregion(&l->B, lw_lref_type(r), v, rg, roff);
}

void lw_lref_write(L *l, const LRef *r, Inst *val)
{
	uint32_t n = lw_lref_n(r);
	val = lw_coerce(l, val, lw_lref_type(r), false);
	Inst *mask = lw_mask(l);
	if (mask && (mask->ty.n != n || n == 1))
		mask = NULL;
	Inst *nv;
	if (whole(r) && !mask) {
		nv = val;
	} else {
		Inst *old = view_read(l, r), *roff;
		IrRegion rg = region_of(l, r, &roff);
		nv = irb_wrregion(&l->B, old, val, rg, roff, mask);
	}
	if (r->view != r->var->ty.elem)
		nv = irb_op(&l->B, Obitcast, r->var->ty, nv, NULL, NULL);
	lw_write(l, r->var, nv);
}

static LRef temp(L *l, Inst *v, Type *t)
{
	Var *tv = lw_var(l, v->ty, "tmp");
	lw_write(l, tv, v);
	return lw_whole(tv, t);
}

/* An offset operand: its constant part goes to *c (times mult), the
 * runtime part is returned (i32, times mult) or NULL. */
static Inst *offset(L *l, Node *o, int32_t mult, int32_t *c)
{
	if (!o)
		return NULL;
	if (o->has_value) {
		*c += (int32_t)o->cval * mult;
		return NULL;
	}
	Inst *v = lw_expr(l, o);
	if (!v)
		return NULL;
	v = lw_conv_elem(l, v, E_I32, false);
	if (mult != 1)
		v = irb_op(&l->B, Omul, v->ty, v, lw_int(l, E_I32, mult), NULL);
	return v;
}

static Inst *add_off(L *l, Inst *a, Inst *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return irb_op(&l->B, Oadd, ir_scalar(E_I32), a, b, NULL);
}

/* A vector view with rows > 1 that is contiguous becomes one row. */
static bool as_row(LRef *r)
{
	if (r->rows == 1)
		return true;
	if (r->rs != r->cols * r->cs)
		return false;
	r->cols *= r->rows;
	r->rows = 1;
	r->rs = r->cols;
	return true;
}

static void sel2d(L *l, LRef *r, int vs, int vst, int hs, int hst, Node *i, Node *j)
{
	int32_t c = r->base;
	Inst *ri = offset(l, i, r->rs, &c);   /* in order: C leaves argument */
	Inst *rj = offset(l, j, r->cs, &c);   /* evaluation order open */
	Inst *ro = add_off(l, ri, rj);
	r->roff = add_off(l, r->roff, ro);
	r->base = c;
	r->rows = vs;
	r->cols = hs;
	r->rs *= vst;
	r->cs *= hst;
}

/* A vector select at a constant offset i0 of a strided 2D view (a
 * vector_ref bound to a matrix region): the flat elements i0 + k*stride
 * stay affine when they lie in one row, or when stride divides the row
 * length and every row contributes the same columns. */
static bool sel1d_2d(LRef *r, int size, int stride, int32_t i0)
{
	int32_t row = i0 / r->cols, col = i0 % r->cols;
	if (i0 < 0 || stride < 1)
		return false;
	if (col + (int64_t)(size - 1) * stride < r->cols) {
		r->base += row * r->rs + col * r->cs;
		r->rows = 1;
		r->cols = size;
		r->cs *= stride;
		r->rs = r->cols * r->cs;
		return true;
	}
	int per = r->cols / stride;
	if (r->cols % stride || col >= stride || per < 1 || size % per)
		return false;
	r->base += row * r->rs + col * r->cs;
	r->rows = size / per;
	r->cols = per;
	r->cs *= stride;
	return true;
}

static bool sel1d(L *l, LRef *r, int size, int stride, Node *i, Node *at)
{
	if (r->rows != 1 && (!i || i->has_value) &&
	    sel1d_2d(r, size, stride, i ? (int32_t)i->cval : 0))
		return true;
	if (!as_row(r)) {
		error_at(at->loc, "a vector select of this strided matrix view is not supported "
		         "(a runtime offset, or elements that are not one affine region)");
		return false;
	}
	int32_t c = r->base;
	r->roff = add_off(l, r->roff, offset(l, i, r->cs, &c));
	r->base = c;
	r->cols = size;
	r->cs *= stride;
	r->rs = r->cols * r->cs;
	return true;
}

static bool format(L *l, LRef *r, Node *e)
{
	Type *t = ty_base(e->ty);
	Elem u = lw_elem(t);
	bool contiguous = r->rows == 1 ? (r->cs == 1 || r->cols == 1) :
	                  r->cols == 1 ? r->rs == 1 : (r->cs == 1 && r->rs == r->cols);
	if (!contiguous) {
		error_at(e->loc, "format of a strided region");
		return false;
	}
	int sv = ebytes(r->view), su = ebytes(u);
	uint32_t vbytes = r->var->ty.n * (uint32_t)ebytes(r->var->ty.elem);
	if (vbytes % (uint32_t)su || ((int64_t)r->base * sv) % su) {
		error_at(e->loc, "format<%s> of a region that is not aligned to it",
		         ir_elem_name[u]);
		return false;
	}
	r->base = r->base * sv / su;
	if (r->roff && sv != su) {
		if (sv > su)
			r->roff = irb_op(&l->B, Omul, ir_scalar(E_I32), r->roff,
			                 lw_int(l, E_I32, sv / su), NULL);
		else
			r->roff = irb_op(&l->B, Odiv, ir_scalar(E_I32), r->roff,
			                 lw_int(l, E_I32, su / sv), NULL);
	}
	r->view = u;
	if (t->kind == TY_MATRIX) {
		r->rows = t->rows;
		r->cols = t->cols;
		r->is_matrix = true;
	} else {
		r->rows = 1;
		r->cols = ty_elems(t);
		r->is_matrix = false;
	}
	r->cs = 1;
	r->rs = r->cols;
	return true;
}

static Node *arg(Node *e, int i) { return i < e->args.len ? e->args.data[i] : NULL; }

static bool lref_inner(L *l, Node *e, LRef *out);

/* The lvalue e designates; false if e is not one.  Counted in l->nest like
 * lw_expr: a chain of selects on a call's result inlines the call deep. */
bool lw_lref(L *l, Node *e, LRef *out)
{
	l->nest++;
	bool r = lref_inner(l, e, out);
	l->nest--;
	return r;
}

static bool lref_inner(L *l, Node *e, LRef *out)
{
	switch (e->kind) {
	case ND_IDENT: {
		Sym *s = e->sym;
		if (!s || (s->kind != SYM_VAR && s->kind != SYM_PARAM && s->kind != SYM_GLOBAL) ||
		    s->ty->kind == TY_ARRAY)
			return false;
		Binding *b = lw_bind(l, s);
		if (!b || !b->lr.var) {
			error_at(e->loc, "'%s' is used outside its kernel", s->name);
			Var *v = lw_var(l, lw_type(s->ty), s->name);
			*out = lw_whole(v, s->ty);
			return true;
		}
		*out = b->lr;
		return true;
	}
	case ND_CAST: {
		Node *src = cast_src(e);
		if (e->ty->is_ref && src && ty_base(src->ty) == ty_base(e->ty))
			return lw_lref(l, src, out);
		return false;
	}
	case ND_MEMBER_CALL:
		break;
	case ND_CALL:
		if (e->call_kind != CALL_ELEMENT)
			return false;
		break;
	case ND_INDEX:
		if (e->lhs->ty->kind == TY_ARRAY)
			return false;
		break;
	case ND_MEMBER: {
		Binding *fb = lw_struct_ref(l, e);
		if (!fb || fb->fields || !fb->lr.var)
			return false;
		*out = fb->lr;
		return true;
	}
	default:
		return false;
	}
	LRef r;
	Node *base = e->lhs;
	switch (e->kind == ND_MEMBER_CALL ? e->member : MB_NONE_) {
	case MB_SELECT: case MB_SELECT_ALL: case MB_ROW: case MB_COLUMN: case MB_FORMAT:
	case MB_NONE_:
		break;
	default:
		return false;
	}
	if (!lw_lref(l, base, &r)) {
		Inst *v = lw_expr(l, base);
		if (!v)
			return false;
		r = temp(l, v, base->ty);
	}
	Type *bt = ty_base(base->ty);
	bool mat = bt->kind == TY_MATRIX;
	if (mat && !r.is_matrix) {
		/* a matrix-typed value seen flat: give it its shape */
		if (as_row(&r) && r.cols == bt->rows * bt->cols) {
			r.rows = bt->rows;
			r.cols = bt->cols;
			r.rs = r.cols * r.cs;
			r.is_matrix = true;
		}
	}
	if (e->kind == ND_MEMBER_CALL) {
		switch (e->member) {
		case MB_SELECT:
			if (mat) {
				sel2d(l, &r, e->cargs[0], e->cargs[1], e->cargs[2], e->cargs[3],
				      arg(e, 0), arg(e, 1));
				r.is_matrix = true;
			} else if (!sel1d(l, &r, e->cargs[0], e->cargs[1], arg(e, 0), e)) {
				return false;
			}
			break;
		case MB_SELECT_ALL:
			break;
		case MB_ROW:
			sel2d(l, &r, 1, 1, r.cols, 1, arg(e, 0), NULL);
			r.is_matrix = false;
			r.rs = r.cols * r.cs;
			break;
		case MB_COLUMN:
			sel2d(l, &r, r.rows, 1, 1, 1, NULL, arg(e, 0));
			r.is_matrix = true;
			break;
		case MB_FORMAT:
			if (!format(l, &r, e))
				return false;
			break;
		default:
			return false;
		}
	} else {
		Node *i = e->kind == ND_INDEX ? e->rhs : arg(e, 0);
		Node *j = e->kind == ND_INDEX ? NULL : arg(e, 1);
		if (mat && !j && e->kind == ND_INDEX) {
			sel2d(l, &r, 1, 1, r.cols, 1, i, NULL);   /* m[i]: a row */
			r.is_matrix = false;
			r.rs = r.cols * r.cs;
		} else if (mat) {
			sel2d(l, &r, 1, 1, 1, 1, i, j);
			r.is_matrix = false;
		} else if (!sel1d(l, &r, 1, 1, i, e)) {
			return false;
		}
	}
	*out = r;
	return true;
}

/* ---- CM members that are values ---------------------------------------------- */

static Inst *value_of(L *l, Node *e)
{
	Inst *v = lw_expr(l, e);
	return v;
}

static Inst *iselect(L *l, Node *e)
{
	Inst *src = value_of(l, e->lhs);
	Inst *idx = lw_expr(l, arg(e, 0));
	if (!src || !idx)
		return NULL;
	Type *bt = ty_base(e->lhs->ty);
	if (e->args.len > 1 && bt->kind == TY_MATRIX) {
		Inst *ci = lw_expr(l, arg(e, 1));
		idx = lw_conv_elem(l, idx, E_U32, false);
		ci = lw_conv_elem(l, ci, E_U32, false);
		idx = irb_op(&l->B, Omul, idx->ty, idx, lw_int(l, E_U32, bt->cols), NULL);
		idx = irb_op(&l->B, Oadd, idx->ty, idx, ci, NULL);
	}
	if (!ir_is_int(idx->ty.elem))
		idx = lw_conv_elem(l, idx, E_U32, false);
	return irb_op(&l->B, Oiselect, ir_type(src->ty.elem, idx->ty.n), src, idx, NULL);
}

static Inst *replicate(L *l, Node *e)
{
	Inst *src = value_of(l, e->lhs);
	if (!src)
		return NULL;
	int rep = e->cargs[0], vs = e->cargs[1], w = e->cargs[2], hs = e->cargs[3];
	Type *bt = ty_base(e->lhs->ty);
	int32_t c = 0;
	Inst *ro;
	if (bt->kind == TY_MATRIX && e->args.len > 1) {
		Inst *r0 = offset(l, arg(e, 0), bt->cols, &c);
		ro = add_off(l, r0, offset(l, arg(e, 1), 1, &c));
	} else
		ro = offset(l, arg(e, 0), 1, &c);
	int64_t last = c + (int64_t)(rep - 1) * vs + (int64_t)(w - 1) * hs;
	if (!ro && (c < 0 || last >= src->ty.n)) {
		ro = lw_int(l, E_I32, c);
		c = 0;
	}
	return irb_rdregion(&l->B, ir_type(src->ty.elem, (uint32_t)(rep * w)), src,
	                    (IrRegion){vs, w, hs, c}, ro);
}

/* A merge mask as n i1 channels: an int's bits, or a vector's LSBs. */
static Inst *merge_mask(L *l, Node *m, uint32_t n)
{
	Inst *v = lw_expr(l, m);
	if (!v)
		return NULL;
	if (v->ty.n == 1 && v->ty.elem != E_I1) {
		v = lw_conv_elem(l, v, E_U32, false);
		if (n <= 32)
			return irb_op(&l->B, Ounpack, ir_type(E_I1, n), v, NULL, NULL);
		error_at(m->loc, "an integer merge mask covers at most 32 elements");
		return konst(l, ir_type(E_I1, n), 0, 0, false);
	}
	if (v->ty.elem != E_I1 && !ir_is_float(v->ty.elem)) {
		Inst *one = konst(l, ir_scalar(v->ty.elem), 1, 0, false);
		v = irb_op(&l->B, Oand, v->ty, v, one, NULL);
	}
	v = lw_bool_vec(l, v);
	return lw_splat(l, v, n);
}

static void merge(L *l, Node *e)
{
	LRef r;
	if (!lw_lref(l, e->lhs, &r)) {
		error_at(e->loc, "merge needs an lvalue");
		return;
	}
	IrType t = lw_lref_type(&r);
	/* a source or mask that failed to lower has been reported */
	Inst *a = lw_expr(l, arg(e, 0)), *b = NULL, *m;
	if (!a)
		return;
	a = lw_coerce(l, a, t, false);
	if (e->args.len >= 3) {
		if (!(b = lw_expr(l, arg(e, 1))))
			return;
		b = lw_coerce(l, b, t, false);
		m = merge_mask(l, arg(e, 2), t.n);
	} else {
		m = merge_mask(l, arg(e, 1), t.n);
		b = lw_lref_read(l, &r);
	}
	if (m)
		lw_lref_write(l, &r, irb_op(&l->B, Osel, t, m, a, b));
}

/* x.any() / x.all(); inside SIMD control flow inactive channels are
 * false for any and true for all. */
static Inst *anyall(L *l, Node *e)
{
	Inst *v = lw_expr(l, e->lhs);
	if (!v)
		return NULL;
	v = lw_bool_vec(l, v);
	bool is_any = e->member == MB_ANY;
	Inst *m = lw_mask(l);
	if (m && m->ty.n == v->ty.n) {
		if (is_any) {
			v = irb_op(&l->B, Oand, v->ty, v, m, NULL);
		} else {
			Inst *nm = irb_op(&l->B, Onot, m->ty, m, NULL, NULL);
			v = irb_op(&l->B, Oor, v->ty, v, nm, NULL);
		}
	}
	Inst *r = irb_op(&l->B, is_any ? Oany : Oall, ir_scalar(E_I1), v, NULL, NULL);
	return lw_conv_elem(l, r, lw_elem(e->ty), false);
}

static Inst *member(L *l, Node *e)
{
	switch (e->member) {
	case MB_ISELECT:
		return iselect(l, e);
	case MB_REPLICATE:
		return replicate(l, e);
	case MB_MERGE:
		merge(l, e);
		return NULL;
	case MB_ANY:
	case MB_ALL:
		return anyall(l, e);
	case MB_N_ELEMS: case MB_N_ROWS: case MB_N_COLS: {
		Type *bt = ty_base(e->lhs->ty);
		int64_t v = e->member == MB_N_ELEMS ? ty_elems(bt) :
		            e->member == MB_N_ROWS ? bt->rows : bt->cols;
		return konst(l, lw_type(e->ty), e->has_value ? e->cval : v, 0, false);
	}
	default: {
		LRef r;
		if (!lw_lref(l, e, &r))
			return NULL;
		return lw_lref_read(l, &r);
	}
	}
}

/* ---- expressions ------------------------------------------------------------- */

Inst *lw_cond(L *l, Node *e)
{
	Inst *v = lw_expr(l, e);
	if (!v)
		return lw_int(l, E_I1, 0);
	v = lw_bool_vec(l, v);
	if (v->ty.n > 1)
		v = irb_op(&l->B, Oany, ir_scalar(E_I1), v, NULL, NULL);
	return v;
}

static Inst *ident(L *l, Node *e)
{
	Sym *s = e->sym;
	if (!s)
		return NULL;
	if (s->kind == SYM_ENUM_CONST || s->kind == SYM_VALUE)
		return konst(l, lw_type(e->ty), s->cval, 0, false);
	if (s->ty->kind == TY_ARRAY)
		return lw_const_array(l, s);
	LRef r;
	if (!lw_lref(l, e, &r))
		return NULL;
	return lw_lref_read(l, &r);
}

/* The flat (row-major) value of the array that e indexes, and the element
 * offset of e in it: a[i][j] of T a[R][C] is element i*C + j of a's R*C
 * elements.  ro (runtime part) and *c (constant part) accumulate. */
static Inst *array_base(L *l, Node *e, Inst **ro, int32_t *c)
{
	if (e->kind != ND_INDEX || !e->lhs || !e->lhs->ty || e->lhs->ty->kind != TY_ARRAY)
		return lw_expr(l, e);
	Inst *arr = array_base(l, e->lhs, ro, c);
	if (!arr)
		return NULL;
	int32_t stride = (int32_t)lw_type(e->ty).n;
	*ro = add_off(l, *ro, offset(l, e->rhs, stride, c));
	return arr;
}

static Inst *index_array(L *l, Node *e)
{
	int32_t c = 0;
	Inst *ro = NULL;
	Inst *arr = array_base(l, e, &ro, &c);
	if (!arr)
		return NULL;
	IrType t = lw_type(e->ty);
	if (!ro && (c < 0 || c + (int32_t)t.n > (int32_t)arr->ty.n)) {
		ro = lw_int(l, E_I32, c);   /* out of range: checked at run time */
		c = 0;
	}
	return irb_rdregion(&l->B, t, arr, (IrRegion){(int32_t)t.n, (int32_t)t.n, 1, c}, ro);
}

static Inst *expr_inner(L *l, Node *e);

/* Every expression is lowered through here: the depth it counts bounds
 * the nesting of inlined calls (lw_call). */
Inst *lw_expr(L *l, Node *e)
{
	if (!e || diag_too_many())   /* a failed lref is retried by every select above it */
		return NULL;
	l->nest++;
	Inst *r = expr_inner(l, e);
	l->nest--;
	return r;
}

static Inst *expr_inner(L *l, Node *e)
{
	Loc saved = l->B.loc;
	if (e->loc.line)
		l->B.loc = e->loc;
	Inst *r = NULL;
	if (e->has_value && e->ty && ty_is_scalar(e->ty) && e->kind != ND_ASSIGN &&
	    e->kind != ND_CALL) {
		r = konst(l, lw_type(e->ty), e->cval, e->cfval, ty_is_float(e->ty));
		l->B.loc = saved;
		return r;
	}
	switch (e->kind) {
	case ND_INT_LIT:
	case ND_BOOL_LIT:
		r = konst(l, lw_type(e->ty), (int64_t)e->ival, 0, false);
		break;
	case ND_FLOAT_LIT:
		r = konst(l, lw_type(e->ty), 0, e->fval, true);
		break;
	case ND_NULLPTR:
		r = lw_int(l, E_I32, 0);
		break;
	case ND_IDENT:
		r = ident(l, e);
		break;
	case ND_UNARY:
	case ND_POSTFIX:
		r = unary(l, e);
		break;
	case ND_BINARY:
		r = binary(l, e);
		break;
	case ND_COMMA:
		lw_expr(l, e->lhs);
		r = lw_expr(l, e->rhs);
		break;
	case ND_ASSIGN:
		r = assign(l, e);
		break;
	case ND_COND:
		r = cond_expr(l, e);
		break;
	case ND_CAST:
		r = cast(l, e);
		break;
	case ND_CALL:
		switch (e->call_kind) {
		case CALL_FUNC:
			r = lw_call(l, e);
			break;
		case CALL_BUILTIN:
			r = lw_builtin(l, e);
			break;
		case CALL_ELEMENT: {
			LRef lr;
			if (lw_lref(l, e, &lr))
				r = lw_lref_read(l, &lr);
			break;
		}
		case CALL_CTOR:
			r = e->args.len ? lw_coerce(l, lw_expr(l, e->args.data[0]), lw_type(e->ty),
			                            e->sat) : NULL;
			break;
		default:
			error_at(e->loc, "unresolved call");
			break;
		}
		break;
	case ND_MEMBER_CALL:
		r = member(l, e);
		break;
	case ND_INDEX:
		if (e->lhs->ty->kind == TY_ARRAY) {
			r = index_array(l, e);
		} else {
			LRef lr;
			if (lw_lref(l, e, &lr))
				r = lw_lref_read(l, &lr);
		}
		break;
	case ND_SIZEOF:
		r = konst(l, lw_type(e->ty), e->cval, 0, false);
		break;
	case ND_INIT_LIST:
		if (e->args.len)
			r = lw_expr(l, e->args.data[0]);
		break;
	case ND_MEMBER: {
		LRef lr;
		if (lw_lref(l, e, &lr))
			r = lw_lref_read(l, &lr);
		else
			error_at(e->loc, "a whole struct is not a value here; use its fields");
		break;
	}
	case ND_STR_LIT:
		break;
	default:
		error_at(e->loc, "unsupported expression (%s)", node_kind_names[e->kind]);
		break;
	}
	l->B.loc = saved;
	return r;
}

/* ---- structs ------------------------------------------------------------------ */

/* A struct local, parameter or global: each field gets a Var (or, for a
 * struct field, bindings of its own), so field accesses are ordinary
 * SSA variables and whole-struct copies are one write per field. */
void lw_struct_new(L *l, Binding *b, Type *t, const char *name)
{
	b->gen = l->gen;
	b->nfields = t->nfields;
	b->fields = NEWN(l->a, Binding *, t->nfields ? t->nfields : 1);
	for (int i = 0; i < t->nfields; i++) {
		Binding *f = NEW(l->a, Binding);
		Type *ft = t->fields[i].ty;
		f->gen = l->gen;
		b->fields[i] = f;
		if (ft->kind == TY_STRUCT) {
			lw_struct_new(l, f, ft, name);
		} else if (ft->kind == TY_ARRAY) {
			error_at(t->fields[i].loc, "array fields of structs are not supported");
		} else {
			Var *v = lw_var(l, lw_type(ft), t->fields[i].name);
			f->lr = lw_whole(v, ft);
		}
	}
}

static int field_index(Type *t, const char *name)
{
	for (int i = 0; i < t->nfields; i++)
		if (!strcmp(t->fields[i].name, name))
			return i;
	return -1;
}

Binding *lw_struct_ref(L *l, Node *e)
{
	while (e && e->kind == ND_CAST && e->lhs && e->lhs->ty &&
	       ty_base(e->lhs->ty) == ty_base(e->ty))
		e = e->lhs;
	if (!e)
		return NULL;
	if (e->kind == ND_IDENT) {
		Binding *b = e->sym ? lw_bind(l, e->sym) : NULL;
		return b && b->fields ? b : NULL;
	}
	if (e->kind != ND_MEMBER || !e->lhs || !e->lhs->ty)
		return NULL;
	Binding *p = lw_struct_ref(l, e->lhs);
	Type *st = ty_base(e->lhs->ty);
	if (!p || st->kind != TY_STRUCT)
		return NULL;
	int i = field_index(st, e->name);
	if (i < 0 || i >= p->nfields)
		return NULL;
	return p->fields[i];
}

void lw_struct_copy(L *l, Binding *dst, Binding *src)
{
	for (int i = 0; i < dst->nfields && i < src->nfields; i++) {
		Binding *d = dst->fields[i], *s = src->fields[i];
		if (d->fields && s->fields)
			lw_struct_copy(l, d, s);
		else if (d->lr.var && s->lr.var)
			lw_lref_write(l, &d->lr, lw_lref_read(l, &s->lr));
	}
}

/* Field i of b from the initializer items [*k..): scalars, vectors and
 * nested braces, in declaration order (C's brace elision is not done). */
static void init_fields(L *l, Binding *b, Node *list)
{
	for (int i = 0; i < b->nfields && i < list->args.len; i++) {
		Node *x = list->args.data[i];
		Binding *f = b->fields[i];
		if (f->fields) {
			lw_struct_init(l, f, x);
		} else if (f->lr.var) {
			Node *item = x->kind == ND_INIT_LIST && x->args.len ? x->args.data[0] : x;
			Inst *v = lw_expr(l, item);
			if (v)
				lw_lref_write(l, &f->lr, lw_coerce(l, v, lw_lref_type(&f->lr), false));
		}
	}
}

void lw_struct_init(L *l, Binding *b, Node *init)
{
	if (!init)
		return;
	if (init->kind == ND_INIT_LIST) {
		init_fields(l, b, init);
		return;
	}
	Binding *src = lw_struct_ref(l, init);
	if (!src) {
		error_at(init->loc, "a struct can only be copied from a struct variable");
		return;
	}
	lw_struct_copy(l, b, src);
}
