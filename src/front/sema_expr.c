/* sema_expr.c — expressions: names, operators, conversions, constants.
 *
 * Scalars follow C: integer promotion, the usual arithmetic conversions
 * (over the SK_ rank order), constant folding into has_value/cval/cfval.
 * Vectors and matrices follow cm-language.md §4.1: refs decay, operands of
 * non-compound operators get vector integer promotion (char/short -> int),
 * a scalar operand converts to the common element type and is splatted,
 * two VM operands need the same element count (any shapes; the result takes
 * the left shape), comparisons give vector<ushort,N>.
 *
 * Every change of type is made explicit with an ND_CAST (implicit = true,
 * operand in lhs), so lowering never re-derives conversions.  Compound
 * assignments keep op; their rhs is converted to the computation type and
 * the node's type is the left operand's.  An erroneous expression gets
 * ty_error(), and operators on it stay silent (no cascades).
 *
 * sema_expr is idempotent: a node that already has a type is returned as is,
 * so sema_cm.c / sema_builtin.c may check arguments again freely.
 */
#include <math.h>
#include <string.h>

#include "front.h"

static const char *const op_names[P_COUNT_] = {
	"",
#define X(n, s) s,
	PUNCTS(X)
#undef X
};

static const int sk_bytes[SK_COUNT_] = {
#define X(n, s, b) b,
	SCALAR_KINDS(X)
#undef X
};

static int scalar_size_of(ScalarKind k) { return sk_bytes[k]; }

static int oplen(int op) { return (int)strlen(op_names[op]); }

static Node *poison(Node *e)
{
	e->ty = ty_error();
	e->lvalue = false;
	return e;
}

static bool bad(const Node *e) { return !e || ty_is_error(e->ty); }

static int name_len(const Node *e)
{
	if (e->len > 0)
		return e->len;
	return e->name ? (int)strlen(e->name) : 1;
}

/* ------------------------------------------------------------ constants */

static ScalarKind sk_of(const Type *t)
{
	t = ty_elem((Type *)t);
	if (t->kind == TY_ENUM)
		return SK_INT;
	return t->sk;
}

static bool sk_unsigned(ScalarKind k)
{
	return k == SK_BOOL || k == SK_UCHAR || k == SK_USHORT ||
	       k == SK_UINT || k == SK_ULONG;
}

/* Truncates an integer to the width of k and extends it back. */
static int64_t wrap_int(int64_t v, ScalarKind k)
{
	switch (k) {
	case SK_BOOL: return v != 0;
	case SK_CHAR: return (int8_t)v;
	case SK_UCHAR: return (uint8_t)v;
	case SK_SHORT: return (int16_t)v;
	case SK_USHORT: return (uint16_t)v;
	case SK_INT: return (int32_t)v;
	case SK_UINT: return (uint32_t)v;
	default: return v;
	}
}

static double round_float(double v, ScalarKind k)
{
	if (k == SK_FLOAT || k == SK_HALF)
		return (double)(float)v;
	return v;
}

static void set_int(Node *e, int64_t v)
{
	e->has_value = true;
	e->cval = wrap_int(v, sk_of(e->ty));
	e->cfval = sk_unsigned(sk_of(e->ty)) ? (double)(uint64_t)e->cval : (double)e->cval;
}

static void set_float(Node *e, double v)
{
	e->has_value = true;
	e->cfval = round_float(v, sk_of(e->ty));
	e->cval = 0;
}

/* Gives dst (already typed) the value of src converted to dst's type. */
static void fold_convert(Node *dst, const Node *src)
{
	if (!src->has_value || !ty_is_scalar(dst->ty) || !ty_is_scalar(src->ty))
		return;
	bool ff = ty_is_float(src->ty), tf = ty_is_float(dst->ty);
	if (tf) {
		double v = ff ? src->cfval
		              : sk_unsigned(sk_of(src->ty)) ? (double)(uint64_t)src->cval
		                                            : (double)src->cval;
		set_float(dst, v);
	} else if (ff) {
		double v = src->cfval;
		if (sk_of(dst->ty) == SK_BOOL)
			set_int(dst, v != 0);
		else if (v > -9.2e18 && v < 9.2e18)
			set_int(dst, (int64_t)v);
	} else {
		set_int(dst, src->cval);
	}
}

/* ---------------------------------------------------------- conversions */

static Type *promote(Type *t)
{
	if (t->kind == TY_ENUM)
		return ty_scalar(SK_INT);
	if (t->kind == TY_SCALAR && t->sk < SK_INT)
		return ty_scalar(SK_INT);
	return ty_base(t);
}

static ScalarKind to_unsigned(ScalarKind k)
{
	return k == SK_INT ? SK_UINT : k == SK_LONG ? SK_ULONG : k;
}

Type *sema_common_elem(Type *a, Type *b)
{
	a = promote(ty_elem(ty_base(a)));
	b = promote(ty_elem(ty_base(b)));
	if (a->kind != TY_SCALAR || b->kind != TY_SCALAR)
		return a;
	ScalarKind x = a->sk, y = b->sk;
	if (x >= SK_HALF || y >= SK_HALF)
		return ty_scalar(x > y ? x : y);
	if (x == y)
		return a;
	bool ux = sk_unsigned(x), uy = sk_unsigned(y);
	if (ux == uy)
		return ty_scalar(x > y ? x : y);
	ScalarKind u = ux ? x : y, s = ux ? y : x;
	if (scalar_size_of(u) >= scalar_size_of(s))
		return ty_scalar(u);
	if (scalar_size_of(s) > scalar_size_of(u))
		return ty_scalar(s);
	return ty_scalar(to_unsigned(s));
}

/* Same shape as `like`, elements of type elem. */
static Type *reshape(Type *like, Type *elem)
{
	like = ty_base(like);
	if (like->kind == TY_MATRIX)
		return ty_matrix(elem, like->rows, like->cols);
	return ty_vector(elem, like->n);
}

static Node *make_cast(Sema *S, Node *e, Type *to, bool implicit)
{
	Node *c = node_new(sema_arena(S), ND_CAST, e->loc);
	c->len = e->len;
	c->ty = to;
	c->lhs = e;
	c->implicit = implicit;
	fold_convert(c, e);
	return c;
}

static bool is_arith(const Type *t)
{
	return t && (t->kind == TY_SCALAR || (t->kind == TY_ENUM && !t->enum_class));
}

/* Warns when an integer constant changes value in a narrowing conversion. */
static void check_constant_narrowing(const Node *from, const Node *to)
{
	if (!from->has_value || !to->has_value || !ty_is_integer(from->ty) ||
	    !ty_is_integer(to->ty) || sk_of(to->ty) == SK_BOOL)
		return;
	if (scalar_size_of(sk_of(to->ty)) >= scalar_size_of(sk_of(from->ty)))
		return;
	if (from->cval != to->cval)
		warn_at(from->loc, "implicit conversion from '%s' to '%s' changes value from %lld to %lld",
		        ty_str(ty_base(from->ty)), ty_str(ty_base(to->ty)),
		        (long long)from->cval, (long long)to->cval);
}

static bool scalar_convertible(const Type *from, const Type *to, bool explicit_cast)
{
	if (from == to)
		return true;
	if (is_arith(from) && is_arith(to))
		return to->kind != TY_ENUM || explicit_cast;
	if (explicit_cast && ty_is_scalar(from) && ty_is_scalar(to))
		return true;
	return false;
}

Node *sema_convert(Sema *S, Node *e, Type *to, bool explicit_cast, const char *what)
{
	e = sema_expr(S, e);
	if (bad(e) || ty_is_error(to))
		return e;
	Type *from = ty_base(e->ty);
	Type *tb = ty_base(to);
	if (from == tb)
		return e;
	if (ty_is_scalar(tb) && ty_is_scalar(from)) {
		if (!scalar_convertible(from, tb, explicit_cast))
			goto fail;
		Node *c = make_cast(S, e, tb, !explicit_cast);
		if (!explicit_cast)
			check_constant_narrowing(e, c);
		return c;
	}
	if (ty_is_vm(tb) && ty_is_scalar(from)) {
		if (!is_arith(from))
			goto fail;
		Node *c = sema_convert(S, e, tb->elem, explicit_cast, what);
		return make_cast(S, c, tb, !explicit_cast);
	}
	if (ty_is_vm(tb) && ty_is_vm(from)) {
		if (from->n != tb->n) {
			error_at(e->loc, "cannot convert '%s' to '%s' in %s: element counts differ (%d and %d)",
			         ty_str(from), ty_str(tb), what, from->n, tb->n);
			return poison(e);
		}
		return make_cast(S, e, tb, !explicit_cast);
	}
	if (ty_is_scalar(tb) && ty_is_vm(from) && from->n == 1 && is_arith(tb))
		return make_cast(S, e, tb, !explicit_cast);
	if ((tb->kind == TY_SURFACE || tb->kind == TY_SAMPLER || tb->kind == TY_VME) &&
	    explicit_cast && ty_is_integer(from))
		return make_cast(S, e, tb, false);
	if (tb->kind == TY_NULLPTR && e->has_value && e->cval == 0 && ty_is_integer(from))
		return make_cast(S, e, tb, true);
fail:
	error_at(e->loc, "cannot convert '%s' to '%s' in %s", ty_str(e->ty), ty_str(to), what);
	return poison(e);
}

bool sema_const_int(Sema *S, Node *e, const char *what, int64_t *out)
{
	if (!e)
		return false;
	e = sema_expr(S, e);
	if (bad(e))
		return false;
	if (!e->has_value || !ty_is_integer(ty_base(e->ty))) {
		diag_at(DIAG_ERROR, e->loc, e->len > 0 ? e->len : 1,
		        "%s must be an integer constant expression", what);
		return false;
	}
	*out = e->cval;
	return true;
}

/* --------------------------------------------------------------- names */

static Node *expr_ident(Sema *S, Node *e)
{
	Sym *s = sema_lookup(S, e->name);
	if (!s) {
		diag_at(DIAG_ERROR, e->loc, name_len(e), "use of undeclared identifier '%s'", e->name);
		return poison(e);
	}
	e->sym = s;
	s->used = true;
	switch (s->kind) {
	case SYM_VAR:
	case SYM_PARAM:
	case SYM_GLOBAL:
		e->ty = s->ty;
		e->lvalue = true;
		if (ty_is_scalar(s->ty) && s->ty->is_const && s->decl && s->decl->init &&
		    s->decl->init->has_value && s->decl->init->ty &&
		    ty_is_scalar(s->decl->init->ty)) {
			e->has_value = true;
			e->cval = s->decl->init->cval;
			e->cfval = s->decl->init->cfval;
		}
		return e;
	case SYM_ENUM_CONST:
	case SYM_VALUE:
		e->ty = s->ty ? s->ty : ty_scalar(SK_INT);
		e->has_value = true;
		e->cval = s->cval;
		e->cfval = (double)s->cval;
		return e;
	case SYM_TYPE:
		diag_at(DIAG_ERROR, e->loc, name_len(e), "'%s' is a type, not a value", e->name);
		return poison(e);
	default:
		diag_at(DIAG_ERROR, e->loc, name_len(e),
		        "'%s' is a function; a function name can only be called", e->name);
		return poison(e);
	}
}

static Node *expr_literal(Sema *S, Node *e)
{
	switch (e->kind) {
	case ND_INT_LIT:
		e->ty = ty_scalar(e->lit <= SK_ULONG ? e->lit : SK_INT);
		set_int(e, (int64_t)e->ival);
		break;
	case ND_FLOAT_LIT:
		e->ty = ty_scalar(e->lit >= SK_HALF ? e->lit : SK_DOUBLE);
		set_float(e, e->fval);
		break;
	case ND_BOOL_LIT:
		e->ty = ty_scalar(SK_BOOL);
		set_int(e, e->ival != 0);
		break;
	case ND_STR_LIT:
		e->ty = ty_string();
		break;
	default:
		e->ty = ty_nullptr();
		e->has_value = true;
		break;
	}
	return e;
}

/* ------------------------------------------------------- element access */

static bool check_index(Sema *S, Node **ip, int bound, Type *of)
{
	Node *i = *ip = sema_rvalue(S, *ip);
	if (bad(i))
		return false;
	if (!ty_is_integer(ty_base(i->ty))) {
		error_at(i->loc, "index must be an integer, not '%s'", ty_str(i->ty));
		return false;
	}
	if (i->has_value && (i->cval < 0 || i->cval >= bound)) {
		diag_at(DIAG_ERROR, i->loc, i->len > 0 ? i->len : 1,
		        "index %lld is out of range for '%s' (valid: 0..%d)",
		        (long long)i->cval, ty_str(of), bound - 1);
		return false;
	}
	return true;
}

/* v(i) and m(i, j). */
static Node *element_call(Sema *S, Node *e, Node *base)
{
	Type *bt = base->ty;
	int want = bt->kind == TY_MATRIX ? 2 : 1;
	e->call_kind = CALL_ELEMENT;
	if (e->args.len != want) {
		error_at(e->loc, "element access on '%s' takes %d index%s, got %d",
		         ty_str(bt), want, want == 1 ? "" : "es", e->args.len);
		return poison(e);
	}
	bool ok = true;
	if (want == 1) {
		ok = check_index(S, &e->args.data[0], bt->n, bt);
	} else {
		ok = check_index(S, &e->args.data[0], bt->rows, bt);
		ok &= check_index(S, &e->args.data[1], bt->cols, bt);
	}
	if (!ok)
		return poison(e);
	e->ty = ty_with_const(bt->elem, bt->is_const);
	e->lvalue = base->lvalue;
	return e;
}

static void check_args_quietly(Sema *S, Node *e)
{
	for (int i = 0; i < e->args.len; i++)
		e->args.data[i] = sema_expr(S, e->args.data[i]);
}

static Node *cast_to(Sema *S, Node *e, Type *t);

static Node *expr_call(Sema *S, Node *e)
{
	Node *callee = e->lhs;
	if (callee && callee->kind == ND_IDENT) {
		Sym *s = sema_lookup(S, callee->name);
		if (!s) {
			diag_at(DIAG_ERROR, callee->loc, name_len(callee),
			        "use of undeclared identifier '%s'", callee->name);
			check_args_quietly(S, e);
			poison(callee);
			return poison(e);
		}
		callee->sym = s;
		s->used = true;
		switch (s->kind) {
		case SYM_BUILTIN:
			e->call_kind = CALL_BUILTIN;
			e = sema_builtin_call(S, e, s);
			if (!e->ty)
				e->ty = ty_error();
			return e;
		case SYM_FUNC:
		case SYM_TEMPLATE:
			e = sema_call(S, e, s);
			if (!e->ty)
				e->ty = ty_error();
			return e;
		case SYM_TYPE:
			e->kind = ND_CAST;
			e->call_kind = CALL_UNRESOLVED;
			return cast_to(S, e, s->ty);
		default:
			break;
		}
	}
	callee = e->lhs = sema_expr(S, callee);
	if (bad(callee)) {
		check_args_quietly(S, e);
		return poison(e);
	}
	if (ty_is_vm(callee->ty))
		return element_call(S, e, callee);
	error_at(e->loc, "called object of type '%s' is not a function, vector or matrix",
	         ty_str(callee->ty));
	check_args_quietly(S, e);
	return poison(e);
}

/* v[i] (element), m[i] (row ref), a[i] (const array element). */
static Node *expr_index(Sema *S, Node *e)
{
	Node *b = e->lhs = sema_expr(S, e->lhs);
	if (bad(b)) {
		e->rhs = sema_expr(S, e->rhs);
		return poison(e);
	}
	Type *bt = b->ty;
	if (bt->kind == TY_VECTOR) {
		if (!check_index(S, &e->rhs, bt->n, bt))
			return poison(e);
		e->ty = ty_with_const(bt->elem, bt->is_const);
		e->lvalue = b->lvalue;
		return e;
	}
	if (bt->kind == TY_MATRIX) {
		if (!check_index(S, &e->rhs, bt->rows, bt))
			return poison(e);
		Type *row = ty_vector(bt->elem, bt->cols);
		if (b->lvalue)
			row = ty_as_ref(row);
		e->ty = ty_with_const(row, bt->is_const);
		e->lvalue = b->lvalue;
		return e;
	}
	if (bt->kind == TY_ARRAY) {
		if (!check_index(S, &e->rhs, bt->n, bt))
			return poison(e);
		e->ty = bt->elem;
		return e;
	}
	error_at(e->loc, "subscripted value of type '%s' is not a vector, matrix or array",
	         ty_str(bt));
	e->rhs = sema_expr(S, e->rhs);
	return poison(e);
}

static Node *expr_member(Sema *S, Node *e)
{
	Node *b = e->lhs = sema_expr(S, e->lhs);
	if (bad(b))
		return poison(e);
	Type *bt = ty_base(b->ty);
	if (e->op == P_ARROW) {
		error_at(e->loc, "'->' needs a pointer; pointers are not supported in CM");
		return poison(e);
	}
	if (bt->kind != TY_STRUCT) {
		error_at(e->name_loc.line ? e->name_loc : e->loc,
		         "member reference '%s' on a value of type '%s', which is not a struct",
		         e->name, ty_str(b->ty));
		return poison(e);
	}
	for (int i = 0; i < bt->nfields; i++) {
		if (bt->fields[i].name == e->name) {
			e->ty = ty_with_const(bt->fields[i].ty, b->ty->is_const);
			e->lvalue = b->lvalue;
			return e;
		}
	}
	error_at(e->name_loc.line ? e->name_loc : e->loc, "no member named '%s' in '%s'",
	         e->name, ty_str(bt));
	return poison(e);
}

/* ------------------------------------------------------------ operators */

enum { OC_ARITH, OC_MOD, OC_BIT, OC_SHIFT, OC_CMP, OC_LOGIC, OC_NONE };

static int op_class(int op)
{
	switch (op) {
	case P_PLUS: case P_MINUS: case P_STAR: case P_SLASH: return OC_ARITH;
	case P_PERCENT: return OC_MOD;
	case P_AMP: case P_PIPE: case P_CARET: return OC_BIT;
	case P_LSHIFT: case P_RSHIFT: return OC_SHIFT;
	case P_LT: case P_GT: case P_LE: case P_GE: case P_EQ: case P_NE: return OC_CMP;
	case P_ANDAND: case P_OROR: return OC_LOGIC;
	default: return OC_NONE;
	}
}


static bool needs_int(int cls) { return cls == OC_MOD || cls == OC_BIT || cls == OC_SHIFT; }

static bool bad_operands(Node *e, int op, Type *l, Type *r)
{
	diag_at(DIAG_ERROR, e->loc, oplen(op), "invalid operands to binary '%s' ('%s' and '%s')",
	        op_names[op], ty_str(l), ty_str(r));
	return true;
}

/* Folds an integer or float binary operation on constants.  ct is the type
 * the operation is computed in; e->ty is already set. */
static void fold_binary(Node *e, int op, Node *l, Node *r, Type *ct)
{
	if (!l->has_value || !r->has_value)
		return;
	if (ty_is_float(ct)) {
		double a = l->cfval, b = r->cfval, v;
		switch (op) {
		case P_PLUS: v = a + b; break;
		case P_MINUS: v = a - b; break;
		case P_STAR: v = a * b; break;
		case P_SLASH: v = a / b; break;
		case P_LT: set_int(e, a < b); return;
		case P_GT: set_int(e, a > b); return;
		case P_LE: set_int(e, a <= b); return;
		case P_GE: set_int(e, a >= b); return;
		case P_EQ: set_int(e, a == b); return;
		case P_NE: set_int(e, a != b); return;
		case P_ANDAND: set_int(e, a != 0 && b != 0); return;
		case P_OROR: set_int(e, a != 0 || b != 0); return;
		default: return;
		}
		set_float(e, v);
		return;
	}
	bool u = sk_unsigned(sk_of(ct)) && scalar_size_of(sk_of(ct)) == 8;
	int64_t a = l->cval, b = r->cval;
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
	int bits = 8 * scalar_size_of(sk_of(ct));
	switch (op) {
	case P_PLUS: set_int(e, (int64_t)(ua + ub)); return;
	case P_MINUS: set_int(e, (int64_t)(ua - ub)); return;
	case P_STAR: set_int(e, (int64_t)(ua * ub)); return;
	case P_SLASH:
	case P_PERCENT:
		if (b == 0) {
			diag_at(DIAG_ERROR, e->loc, oplen(op), "division by zero in a constant expression");
			poison(e);
			return;
		}
		if (u)
			set_int(e, (int64_t)(op == P_SLASH ? ua / ub : ua % ub));
		else if (a == INT64_MIN && b == -1)
			set_int(e, op == P_SLASH ? a : 0);
		else
			set_int(e, op == P_SLASH ? a / b : a % b);
		return;
	case P_AMP: set_int(e, a & b); return;
	case P_PIPE: set_int(e, a | b); return;
	case P_CARET: set_int(e, a ^ b); return;
	case P_LSHIFT:
	case P_RSHIFT:
		if (b < 0 || b >= bits)
			return;
		if (op == P_LSHIFT)
			set_int(e, (int64_t)(ua << b));
		else if (sk_unsigned(sk_of(ct)))
			set_int(e, (int64_t)(ua >> b));
		else
			set_int(e, a < 0 ? ~(~a >> b) : a >> b);
		return;
	case P_LT: set_int(e, u ? ua < ub : a < b); return;
	case P_GT: set_int(e, u ? ua > ub : a > b); return;
	case P_LE: set_int(e, u ? ua <= ub : a <= b); return;
	case P_GE: set_int(e, u ? ua >= ub : a >= b); return;
	case P_EQ: set_int(e, a == b); return;
	case P_NE: set_int(e, a != b); return;
	case P_ANDAND: set_int(e, a && b); return;
	case P_OROR: set_int(e, a || b); return;
	}
}

static Node *scalar_binary(Sema *S, Node *e, int op, int cls)
{
	Node *l = e->lhs, *r = e->rhs;
	Type *lt = ty_base(l->ty), *rt = ty_base(r->ty);
	if (!is_arith(lt) || !is_arith(rt) ||
	    (needs_int(cls) && (!ty_is_integer(lt) || !ty_is_integer(rt)))) {
		bad_operands(e, op, l->ty, r->ty);
		return poison(e);
	}
	if (cls == OC_SHIFT) {
		Type *pl = promote(lt);
		e->lhs = sema_convert(S, l, pl, false, "shift");
		e->rhs = sema_convert(S, r, promote(rt), false, "shift");
		e->ty = pl;
		fold_binary(e, op, e->lhs, e->rhs, pl);
		return e;
	}
	Type *ct = sema_common_elem(lt, rt);
	e->lhs = sema_convert(S, l, ct, false, "operand");
	e->rhs = sema_convert(S, r, ct, false, "operand");
	e->ty = cls == OC_CMP ? ty_scalar(SK_BOOL) : ct;
	if (cls == OC_ARITH && op == P_SLASH && ty_is_integer(ct) && e->rhs->has_value &&
	    e->rhs->cval == 0 && !e->lhs->has_value)
		diag_at(DIAG_WARNING, e->loc, oplen(op), "division by zero is undefined");
	fold_binary(e, op, e->lhs, e->rhs, ct);
	return e;
}

/* Converts one operand of a VM operation to element type `elem` (keeping
 * its own shape when it is a VM). */
static Node *vm_operand(Sema *S, Node *x, Type *elem)
{
	Type *t = ty_base(x->ty);
	return sema_convert(S, x, ty_is_vm(t) ? reshape(t, elem) : elem, false, "operand");
}

static bool elem_ok(Node *e, int op, int cls, Type *lt, Type *rt)
{
	Type *le = ty_elem(lt), *re = ty_elem(rt);
	if (!is_arith(le) || !is_arith(re) ||
	    (needs_int(cls) && (!ty_is_integer(le) || !ty_is_integer(re))))
		return !bad_operands(e, op, lt, rt);
	return true;
}

static bool same_count(Node *e, int op, Type *lt, Type *rt)
{
	if (ty_is_vm(lt) && ty_is_vm(rt) && lt->n != rt->n) {
		diag_at(DIAG_ERROR, e->loc, oplen(op),
		        "operands have different element counts: %s and %s", ty_str(lt), ty_str(rt));
		return false;
	}
	return true;
}

static Node *vm_binary(Sema *S, Node *e, int op, int cls)
{
	Type *lt = ty_base(e->lhs->ty), *rt = ty_base(e->rhs->ty);
	if (cls == OC_LOGIC) {
		diag_at(DIAG_ERROR, e->loc, oplen(op),
		        "operands of '%s' must be scalars; use .any() or .all() on '%s'",
		        op_names[op], ty_str(ty_is_vm(lt) ? lt : rt));
		return poison(e);
	}
	if (!elem_ok(e, op, cls, lt, rt) || !same_count(e, op, lt, rt))
		return poison(e);
	Type *shape = ty_is_vm(lt) ? lt : rt;
	Type *pl = promote(ty_elem(lt)), *pr = promote(ty_elem(rt));
	if (cls == OC_SHIFT) {
		e->lhs = vm_operand(S, e->lhs, pl);
		e->rhs = vm_operand(S, e->rhs, pr);
		e->ty = reshape(shape, pl);
		return e;
	}
	Type *ct = sema_common_elem(pl, pr);
	e->lhs = vm_operand(S, e->lhs, ct);
	e->rhs = vm_operand(S, e->rhs, ct);
	e->ty = cls == OC_CMP ? ty_vector(ty_scalar(SK_USHORT), shape->n) : reshape(shape, ct);
	return e;
}

static bool scalar_operand_ok(Node *x)
{
	Type *t = ty_base(x->ty);
	return ty_is_vm(t) || is_arith(t);
}

static Node *expr_binary(Sema *S, Node *e)
{
	int op = e->op, cls = op_class(op);
	e->lhs = sema_rvalue(S, e->lhs);
	e->rhs = sema_rvalue(S, e->rhs);
	if (bad(e->lhs) || bad(e->rhs))
		return poison(e);
	if (cls == OC_NONE)
		die("bad binary operator %d", op);
	Type *lt = ty_base(e->lhs->ty), *rt = ty_base(e->rhs->ty);
	if (!scalar_operand_ok(e->lhs) || !scalar_operand_ok(e->rhs)) {
		bad_operands(e, op, e->lhs->ty, e->rhs->ty);
		return poison(e);
	}
	if (ty_is_vm(lt) || ty_is_vm(rt))
		return vm_binary(S, e, op, cls);
	if (cls == OC_LOGIC) {
		e->lhs = sema_convert(S, e->lhs, ty_scalar(SK_BOOL), false, "operand");
		e->rhs = sema_convert(S, e->rhs, ty_scalar(SK_BOOL), false, "operand");
		e->ty = ty_scalar(SK_BOOL);
		fold_binary(e, op, e->lhs, e->rhs, e->ty);
		return e;
	}
	return scalar_binary(S, e, op, cls);
}

/* Diagnoses a write to something that is not a modifiable lvalue. */
static bool check_assignable(Node *x, Loc at, int len)
{
	if (bad(x))
		return false;
	if (!x->lvalue) {
		diag_at(DIAG_ERROR, at, len,
		        "expression is not assignable (the left operand is an rvalue of type '%s')",
		        ty_str(x->ty));
		return false;
	}
	if (x->ty->is_const || (ty_is_vm(x->ty) && x->ty->elem->is_const)) {
		if (x->kind == ND_IDENT)
			diag_at(DIAG_ERROR, x->loc, name_len(x),
			        "cannot assign to variable '%s' with const-qualified type '%s'",
			        x->name, ty_str(x->ty));
		else
			diag_at(DIAG_ERROR, x->loc, x->len > 0 ? x->len : 1,
			        "cannot assign to a const-qualified value of type '%s'", ty_str(x->ty));
		return false;
	}
	if (x->kind == ND_IDENT && x->sym)
		x->sym->assigned = true;
	return true;
}

static Node *expr_compound(Sema *S, Node *e, int op)
{
	int cls = op_class(op);
	Type *lt = ty_base(e->lhs->ty), *rt = ty_base(e->rhs->ty);
	if (!scalar_operand_ok(e->lhs) || !scalar_operand_ok(e->rhs) ||
	    !elem_ok(e, e->op, cls, lt, rt))
		return poison(e);
	if (!ty_is_vm(lt) && ty_is_vm(rt)) {
		diag_at(DIAG_ERROR, e->loc, oplen(e->op),
		        "compound assignment '%s' of '%s' to a scalar of type '%s'",
		        op_names[e->op], ty_str(rt), ty_str(lt));
		return poison(e);
	}
	if (!same_count(e, e->op, lt, rt))
		return poison(e);
	Type *ct = cls == OC_SHIFT ? promote(ty_elem(rt)) : sema_common_elem(ty_elem(lt), ty_elem(rt));
	e->rhs = ty_is_vm(lt) ? vm_operand(S, e->rhs, ct)
	                      : sema_convert(S, e->rhs, ct, false, "compound assignment");
	e->ty = lt;
	return e;
}

static Node *expr_assign(Sema *S, Node *e)
{
	e->lhs = sema_expr(S, e->lhs);
	e->rhs = sema_rvalue(S, e->rhs);
	if (bad(e->lhs) || bad(e->rhs))
		return poison(e);
	if (!check_assignable(e->lhs, e->loc, oplen(e->op)))
		return poison(e);
	if (e->op != P_ASSIGN)
		return expr_compound(S, e, punct_compound_base(e->op));
	Type *lt = ty_base(e->lhs->ty), *rt = ty_base(e->rhs->ty);
	if (ty_is_vm(lt) && ty_is_vm(rt) && lt->n != rt->n) {
		diag_at(DIAG_ERROR, e->loc, oplen(e->op),
		        "cannot assign '%s' to '%s': element counts differ", ty_str(rt), ty_str(lt));
		return poison(e);
	}
	if (ty_is_vm(lt) && !ty_is_vm(rt))
		e->rhs = sema_convert(S, e->rhs, lt->elem, false, "assignment");
	else
		e->rhs = sema_convert(S, e->rhs, lt, false, "assignment");
	e->ty = bad(e->rhs) ? ty_error() : lt;
	return e;
}

static Node *expr_unary(Sema *S, Node *e)
{
	int op = e->op;
	if (op == P_INC || op == P_DEC || e->kind == ND_POSTFIX) {
		Node *x = e->lhs = sema_expr(S, e->lhs);
		if (!check_assignable(x, e->loc, 2))
			return poison(e);
		Type *t = ty_base(x->ty);
		if (!is_arith(ty_elem(t)) || ty_elem(t)->sk == SK_BOOL) {
			diag_at(DIAG_ERROR, e->loc, 2, "cannot %s a value of type '%s'",
			        op == P_INC ? "increment" : "decrement", ty_str(x->ty));
			return poison(e);
		}
		e->ty = t;
		return e;
	}
	Node *x = e->lhs = sema_rvalue(S, e->lhs);
	if (bad(x))
		return poison(e);
	if (op == P_STAR || op == P_AMP) {	/* CM kernels have no pointers */
		diag_at(DIAG_ERROR, e->loc, 1, op == P_STAR ?
		        "cannot dereference a value of type '%s': it is not a pointer" :
		        "cannot take the address of a value of type '%s' (pass it by reference)",
		        ty_str(x->ty));
		return poison(e);
	}
	Type *t = ty_base(x->ty), *el = ty_elem(t);
	if (!is_arith(el) || (op == P_TILDE && !ty_is_integer(el))) {
		diag_at(DIAG_ERROR, e->loc, 1, "invalid argument type '%s' to unary '%s'",
		        ty_str(x->ty), op_names[op]);
		return poison(e);
	}
	if (op == P_NOT) {
		if (ty_is_vm(t)) {
			e->ty = ty_vector(ty_scalar(SK_USHORT), t->n);
			return e;
		}
		e->lhs = sema_convert(S, x, ty_scalar(SK_BOOL), false, "operand of '!'");
		e->ty = ty_scalar(SK_BOOL);
		if (e->lhs->has_value)
			set_int(e, !e->lhs->cval);
		return e;
	}
	Type *pe = promote(el);
	e->lhs = vm_operand(S, x, pe);
	e->ty = ty_is_vm(t) ? reshape(t, pe) : pe;
	Node *v = e->lhs;
	if (v->has_value && !ty_is_vm(t)) {
		if (ty_is_float(pe))
			set_float(e, op == P_MINUS ? -v->cfval : v->cfval);
		else
			set_int(e, op == P_MINUS ? (int64_t)(0 - (uint64_t)v->cval)
			                         : op == P_TILDE ? ~v->cval : v->cval);
	}
	return e;
}

static Node *expr_cond(Sema *S, Node *e)
{
	Node *c = e->cond = sema_rvalue(S, e->cond);
	e->then = sema_rvalue(S, e->then);
	e->els = sema_rvalue(S, e->els);
	if (bad(c) || bad(e->then) || bad(e->els))
		return poison(e);
	if (sema_simd_width(S)) {
		error_at(e->loc, "'?:' is not allowed inside SIMD control flow");
		return poison(e);
	}
	if (ty_is_vm(c->ty)) {
		error_at(c->loc, "condition of '?:' must be a scalar, not '%s'; use .any() or .all()",
		         ty_str(c->ty));
		return poison(e);
	}
	e->cond = sema_convert(S, c, ty_scalar(SK_BOOL), false, "condition");
	Type *a = ty_base(e->then->ty), *b = ty_base(e->els->ty);
	Type *t;
	if (a == b) {
		t = a;
	} else if (ty_is_vm(a) || ty_is_vm(b)) {
		if (!elem_ok(e, P_QUESTION, OC_ARITH, a, b) || !same_count(e, P_QUESTION, a, b))
			return poison(e);
		t = reshape(ty_is_vm(a) ? a : b, sema_common_elem(ty_elem(a), ty_elem(b)));
	} else if (is_arith(a) && is_arith(b)) {
		t = sema_common_elem(a, b);
	} else {
		error_at(e->loc, "incompatible operand types in '?:' ('%s' and '%s')",
		         ty_str(a), ty_str(b));
		return poison(e);
	}
	if (ty_is_vm(t)) {
		e->then = ty_is_vm(a) ? sema_convert(S, e->then, t, false, "'?:'")
		                      : sema_convert(S, e->then, t->elem, false, "'?:'");
		e->els = ty_is_vm(b) ? sema_convert(S, e->els, t, false, "'?:'")
		                     : sema_convert(S, e->els, t->elem, false, "'?:'");
	} else {
		e->then = sema_convert(S, e->then, t, false, "'?:'");
		e->els = sema_convert(S, e->els, t, false, "'?:'");
	}
	e->ty = t;
	Node *c2 = e->cond;
	if (c2->has_value && ty_is_scalar(t)) {
		Node *pick = c2->cval ? e->then : e->els;
		if (pick->has_value) {
			e->has_value = true;
			e->cval = pick->cval;
			e->cfval = pick->cfval;
		}
	}
	return e;
}

/* ---------------------------------------------------------------- casts */

static Node *cast_to(Sema *S, Node *e, Type *t)
{
	if (ty_is_error(t)) {
		check_args_quietly(S, e);
		return poison(e);
	}
	if (ty_is_vm(t)) {
		Node *r = sema_vm_cast(S, e, t);
		if (!r->ty)
			r->ty = ty_error();
		return r;
	}
	if (!e->args.len && e->lhs)
		nl_push(sema_arena(S), &e->args, e->lhs);
	Type *tb = ty_base(t);
	if (e->args.len == 0) {
		e->ty = tb;
		e->lhs = NULL;
		if (is_arith(tb))
			set_int(e, 0);
		return e;
	}
	if (e->args.len > 1) {
		error_at(e->loc, "cast to '%s' takes one operand, got %d", ty_str(t), e->args.len);
		check_args_quietly(S, e);
		return poison(e);
	}
	Node *x = sema_rvalue(S, e->args.data[0]);
	e->args.data[0] = x;
	e->lhs = x;
	if (bad(x))
		return poison(e);
	Type *from = ty_base(x->ty);
	e->ty = tb;
	if (tb->kind == TY_VOID)
		return e;
	bool ok = scalar_convertible(from, tb, true) ||
	          (ty_is_vm(from) && from->n == 1 && is_arith(tb)) ||
	          ((tb->kind == TY_SURFACE || tb->kind == TY_SAMPLER || tb->kind == TY_VME) &&
	           (ty_is_integer(from) || from == tb)) ||
	          from == tb;
	if (!ok) {
		error_at(e->loc, "cannot cast from '%s' to '%s'", ty_str(x->ty), ty_str(t));
		return poison(e);
	}
	fold_convert(e, x);
	return e;
}

static Node *expr_cast(Sema *S, Node *e)
{
	Type *t = sema_typespec(S, e->ts);
	return cast_to(S, e, t);
}

static Node *expr_sizeof(Sema *S, Node *e)
{
	Type *t;
	if (e->ts) {
		t = sema_typespec(S, e->ts);
	} else {
		e->lhs = sema_expr(S, e->lhs);
		t = e->lhs->ty;
	}
	if (ty_is_error(t))
		return poison(e);
	if (t->kind == TY_VOID || t->kind == TY_FUNC) {
		error_at(e->loc, "invalid application of 'sizeof' to '%s'", ty_str(t));
		return poison(e);
	}
	e->ty = ty_scalar(SK_UINT);
	set_int(e, t->size);
	return e;
}

static Node *expr_comma(Sema *S, Node *e)
{
	e->lhs = sema_expr(S, e->lhs);
	e->rhs = sema_rvalue(S, e->rhs);
	e->ty = bad(e->lhs) ? ty_error() : e->rhs->ty;
	return e;
}

Node *sema_expr_node(Sema *S, Node *e)
{
	switch (e->kind) {
	case ND_INT_LIT:
	case ND_FLOAT_LIT:
	case ND_BOOL_LIT:
	case ND_STR_LIT:
	case ND_NULLPTR:
		return expr_literal(S, e);
	case ND_IDENT:
		return expr_ident(S, e);
	case ND_UNARY:
	case ND_POSTFIX:
		return expr_unary(S, e);
	case ND_BINARY:
		return expr_binary(S, e);
	case ND_ASSIGN:
		return expr_assign(S, e);
	case ND_COND:
		return expr_cond(S, e);
	case ND_COMMA:
		return expr_comma(S, e);
	case ND_CALL:
		return expr_call(S, e);
	case ND_MEMBER_CALL: {
		Node *r = sema_member_call(S, e);
		if (r && !r->ty)
			r->ty = ty_error();
		return r ? r : poison(e);
	}
	case ND_MEMBER:
		return expr_member(S, e);
	case ND_INDEX:
		return expr_index(S, e);
	case ND_CAST:
		return expr_cast(S, e);
	case ND_SIZEOF:
		return expr_sizeof(S, e);
	case ND_INIT_LIST:
		error_at(e->loc, "an initializer list is not allowed here");
		check_args_quietly(S, e);
		return poison(e);
	default:
		error_at(e->loc, "expected an expression");
		return poison(e);
	}
}

Node *sema_rvalue(Sema *S, Node *e)
{
	e = sema_expr(S, e);
	if (e && !e->ty)
		e->ty = ty_error();
	return e;
}
