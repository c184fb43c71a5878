/* sema_cm.c — CM members (x.select<...>(...), format, merge, ...) and the
 * initialization and functional-cast forms of vector/matrix
 * (cm-language.md §2.3, §3).
 *
 * Members are built into the language.  Each member checks its template
 * arguments (integer constant expressions, folded into node->cargs), its
 * offsets (runtime integers converted to ushort; omitted offsets become
 * constant 0 arguments, so lowering always sees all of them) and computes
 * the result:
 *   select, select_all, row, column, format  -> vector_ref/matrix_ref,
 *       an lvalue when the object is one (else the plain value type);
 *   iselect, replicate                       -> vector rvalues;
 *   merge -> void;  any/all -> ushort;  n_elems/n_rows/n_cols -> constants.
 * cargs by member:
 *   select (vector) {S, ST}; select (matrix) {VS, VST, HS, HST};
 *   select_all {R, 1, C, 1} (matrix) or {N, 1};
 *   replicate {REP, VS, W, HS} always (normalized from its 1..4 forms);
 *   format {R, C} for format<T,R,C> (targ_type = T).
 * VM initialization (sema_vm_init) leaves one checked source in decl->init
 * (decl->args is emptied): a value converted to the declared type, a
 * converted scalar (a splat), a global const array (IDENT; lowering copies
 * the first min(n) elements), a saturating CAST (sat set), or for refs the
 * lvalue it binds to.
 */
#include <string.h>

#include "front.h"

static CmMember member_of(const char *name)
{
	for (int m = 1; m < MB_COUNT_; m++)
		if (!strcmp(member_names[m], name))
			return (CmMember)m;
	return MB_NONE_;
}

static Node *poison(Node *e)
{
	e->ty = ty_error();
	e->lvalue = false;
	return e;
}

static bool bad(const Node *e) { return !e || ty_is_error(e->ty); }

static int name_len(const Node *e)
{
	return e->name ? (int)strlen(e->name) : 1;
}

/* The location of the member name (for carets). */
static Loc mloc(const Node *e)
{
	return e->name_loc.line ? e->name_loc : e->loc;
}

static void merror(const Node *e, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void merror(const Node *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vat(DIAG_ERROR, mloc(e), name_len(e), fmt, ap);
	va_end(ap);
}

static void mwarn(const Node *e, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void mwarn(const Node *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vat(DIAG_WARNING, mloc(e), name_len(e), fmt, ap);
	va_end(ap);
}

static Node *const_node(Sema *S, Loc loc, int64_t v, ScalarKind sk)
{
	Node *n = node_new(sema_arena(S), ND_INT_LIT, loc);
	n->ival = (uint64_t)v;
	n->lit = sk;
	n->ty = ty_scalar(sk);
	n->has_value = true;
	n->cval = v;
	return n;
}

/* Folds the template arguments into e->cargs; each names its role. */
static bool fold_cargs(Sema *S, Node *e, const char *const *roles, int n)
{
	bool ok = true;
	for (int i = 0; i < n; i++) {
		const char *what = arena_printf(sema_arena(S), "%s %s", member_names[e->member],
		                                roles[i]);
		int64_t v = 0;
		if (!sema_targ_int(S, &e->targs[i], what, &v)) {
			ok = false;
			continue;
		}
		if (v < -MAX_REGION_SPAN || v > MAX_REGION_SPAN) {
			merror(e, "%s %lld is out of range (at most %d)", what, (long long)v,
			       MAX_REGION_SPAN);
			ok = false;
			continue;
		}
		e->cargs[i] = (int)v;
	}
	e->ncargs = n;
	return ok;
}

/* A region of n elements whose last is span elements past its first, of
 * elements elem: fewer than MAX_REGION_SPAN apart, and its result a legal
 * vector (lowering and both back ends compute offsets in 32 bits). */
static bool region_fits(Sema *S, Node *e, const char *form, int64_t n, int64_t span, Type *elem)
{
	if (span >= MAX_REGION_SPAN) {
		merror(e, "%s spans %lld elements; a region must span fewer than %d", form,
		       (long long)span + 1, MAX_REGION_SPAN);
		return false;
	}
	int limit = sema_max_vm_bytes(S);
	if (n * elem->size >= limit) {
		merror(e, "%s gives %lld '%s' elements (%lld bytes); a vector or matrix must be "
		       "smaller than %d bytes", form, (long long)n, ty_str(elem),
		       (long long)(n * elem->size), limit);
		return false;
	}
	return true;
}

static bool want_targs(Node *e, int lo, int hi, const char *form)
{
	if (e->ntargs >= lo && e->ntargs <= hi)
		return true;
	merror(e, "%s takes %s, found %d template argument%s", member_names[e->member], form,
	       e->ntargs, e->ntargs == 1 ? "" : "s");
	return false;
}

static bool want_args(Node *e, int lo, int hi, const char *form)
{
	if (e->args.len >= lo && e->args.len <= hi)
		return true;
	merror(e, "%s takes %s, found %d argument%s", member_names[e->member], form,
	       e->args.len, e->args.len == 1 ? "" : "s");
	return false;
}

/* Checks the offsets (runtime integers, not negative constants), converts
 * them to ushort and appends constant 0 for the omitted ones up to n. */
static bool offsets(Sema *S, Node *e, int n)
{
	bool ok = true;
	const char *what = arena_printf(sema_arena(S), "the offset of %s", member_names[e->member]);
	for (int i = 0; i < e->args.len; i++) {
		Node *x = sema_rvalue(S, e->args.data[i]);
		e->args.data[i] = x;
		if (bad(x)) {
			ok = false;
			continue;
		}
		if (!ty_is_scalar(x->ty) || !ty_is_integer(x->ty)) {
			diag_at(DIAG_ERROR, x->loc, x->len > 0 ? x->len : 1,
			        "%s must be an integer, found '%s'", what, ty_str(x->ty));
			ok = false;
			continue;
		}
		if (x->has_value && x->cval < 0) {
			diag_at(DIAG_ERROR, x->loc, x->len > 0 ? x->len : 1,
			        "%s must not be negative (it is %lld)", what, (long long)x->cval);
			ok = false;
			continue;
		}
		e->args.data[i] = sema_convert(S, x, ty_scalar(SK_USHORT), false, what);
	}
	while (e->args.len < n)
		nl_push(sema_arena(S), &e->args, const_node(S, e->loc, 0, SK_USHORT));
	return ok;
}

/* Constant offset i, or -1 when it is a runtime value. */
static int64_t const_off(const Node *e, int i)
{
	const Node *x = e->args.data[i];
	return x->has_value ? x->cval : -1;
}

/* A ref result: an lvalue alias when the object is one. */
static Node *ref_result(Node *e, Type *t)
{
	Type *lt = e->lhs->ty;
	if (e->lhs->lvalue) {
		e->ty = ty_with_const(ty_as_ref(t), lt->is_const);
		e->lvalue = true;
	} else {
		e->ty = t;
		e->lvalue = false;
	}
	return e;
}

static bool is_matrix(const Type *t) { return ty_base((Type *)t)->kind == TY_MATRIX; }

/* "select<S,ST> is only valid on a vector; 'matrix<int,1,8>' is a matrix" */
static Node *vector_only(Node *e, Type *t, const char *form, const char *instead)
{
	merror(e, "%s is only valid on a vector; '%s' is a matrix%s%s%s", form, ty_str(t),
	       instead ? " (use " : "", instead ? instead : "", instead ? ")" : "");
	return poison(e);
}

static Node *matrix_only(Node *e, Type *t)
{
	merror(e, "%s() is only valid on a matrix; '%s' is a vector", member_names[e->member],
	       ty_str(t));
	return poison(e);
}

/* ---------------------------------------------------------------- select */

/* size ≥ 1, stride ≥ 1, and stride 1 when size is 1. */
static bool check_dim(Node *e, int size, int stride)
{
	if (size < 1) {
		merror(e, "select size must be at least 1, found %d", size);
		return false;
	}
	if (stride < 1) {
		merror(e, "select stride must be at least 1, found %d", stride);
		return false;
	}
	if (size == 1 && stride != 1) {
		merror(e, "select<1,%d>: the stride must be 1 when the size is 1", stride);
		return false;
	}
	return true;
}

static Node *member_select(Sema *S, Node *e, Type *t)
{
	static const char *const vroles[] = { "size", "stride" };
	static const char *const mroles[] = { "vertical size", "vertical stride",
	                                      "horizontal size", "horizontal stride" };
	bool m = is_matrix(t);
	if (!m && e->ntargs == 4)
		merror(e, "select<VS,VST,HS,HST> is only valid on a matrix; '%s' is a vector",
		       ty_str(t));
	if (m && e->ntargs == 2)
		return vector_only(e, t, "select<S,ST>", "select<VS,VST,HS,HST>");
	if (!want_targs(e, m ? 4 : 2, m ? 4 : 2, m ? "<VS,VST,HS,HST>" : "<S,ST>") ||
	    !fold_cargs(S, e, m ? mroles : vroles, m ? 4 : 2))
		return poison(e);
	int *c = e->cargs;
	if (!want_args(e, 0, m ? 2 : 1, m ? "at most 2 offsets" : "at most 1 offset"))
		return poison(e);
	if (!(m ? check_dim(e, c[0], c[1]) && check_dim(e, c[2], c[3]) : check_dim(e, c[0], c[1])))
		return poison(e);
	if (!offsets(S, e, m ? 2 : 1))
		return poison(e);
	Type *b = ty_base(t);
	const char *form = m ? arena_printf(sema_arena(S), "select<%d,%d,%d,%d>", c[0], c[1], c[2], c[3])
	                     : arena_printf(sema_arena(S), "select<%d,%d>", c[0], c[1]);
	int64_t span = m ? (int64_t)(c[0] - 1) * c[1] * b->cols + (int64_t)(c[2] - 1) * c[3]
	                 : (int64_t)(c[0] - 1) * c[1];
	if (!region_fits(S, e, form, m ? (int64_t)c[0] * c[2] : c[0], span, b->elem))
		return poison(e);
	if (!m) {
		int64_t o = const_off(e, 0);
		if (o >= 0 && o + (int64_t)(c[0] - 1) * c[1] >= b->n)
			mwarn(e, "select<%d,%d>(%lld) reaches past the end of '%s'", c[0], c[1],
			      (long long)o, ty_str(t));
		return ref_result(e, ty_vector(b->elem, c[0]));
	}
	int64_t i = const_off(e, 0), j = const_off(e, 1);
	if ((i >= 0 && i + (int64_t)(c[0] - 1) * c[1] >= b->rows) ||
	    (j >= 0 && j + (int64_t)(c[2] - 1) * c[3] >= b->cols))
		mwarn(e, "select<%d,%d,%d,%d> reaches past the end of '%s'", c[0], c[1], c[2],
		      c[3], ty_str(t));
	return ref_result(e, ty_matrix(b->elem, c[0], c[2]));
}

static Node *member_select_all(Sema *S, Node *e, Type *t)
{
	Type *b = ty_base(t);
	if (!want_targs(e, 0, 0, "no template arguments") || !want_args(e, 0, 0, "no arguments"))
		return poison(e);
	if (b->kind == TY_MATRIX) {
		e->cargs[0] = b->rows, e->cargs[1] = 1, e->cargs[2] = b->cols, e->cargs[3] = 1;
		e->ncargs = 4;
	} else {
		e->cargs[0] = b->n, e->cargs[1] = 1;
		e->ncargs = 2;
	}
	return ref_result(e, b);
}

/* --------------------------------------------------------------- iselect */

static Node *index_vector(Sema *S, Node *e, int i)
{
	Node *x = sema_rvalue(S, e->args.data[i]);
	if (bad(x))
		return NULL;
	Type *b = ty_base(x->ty);
	if (b->kind != TY_VECTOR || !ty_is_integer(b->elem)) {
		diag_at(DIAG_ERROR, x->loc, x->len > 0 ? x->len : 1,
		        "the index of iselect must be a vector of integers, found '%s'",
		        ty_str(x->ty));
		return NULL;
	}
	x = sema_convert(S, x, ty_vector(ty_scalar(SK_USHORT), b->n), false, "iselect index");
	e->args.data[i] = x;
	return x;
}

static Node *member_iselect(Sema *S, Node *e, Type *t)
{
	bool m = is_matrix(t);
	if (!want_targs(e, 0, 0, "no template arguments"))
		return poison(e);
	if (!m && e->args.len == 2)
		return matrix_only(e, t);
	if (m && e->args.len == 1)
		return vector_only(e, t, "iselect(idx)", "iselect(rows, cols)");
	if (!want_args(e, m ? 2 : 1, m ? 2 : 1, m ? "2 index vectors" : "1 index vector"))
		return poison(e);
	Node *a = index_vector(S, e, 0);
	Node *b = m ? index_vector(S, e, 1) : a;
	if (!a || !b)
		return poison(e);
	if (ty_elems(a->ty) != ty_elems(b->ty)) {
		merror(e, "iselect: the row and column indices differ in length (%d and %d)",
		       ty_elems(a->ty), ty_elems(b->ty));
		return poison(e);
	}
	e->ty = ty_vector(ty_base(t)->elem, ty_elems(a->ty));
	e->lvalue = false;
	return e;
}

/* ------------------------------------------------------------- replicate */

static Node *member_replicate(Sema *S, Node *e, Type *t)
{
	static const char *const roles[] = { "count", "vertical stride", "width",
	                                     "horizontal stride" };
	static const char *const roles2[] = { "count", "width" };
	bool m = is_matrix(t);
	Type *b = ty_base(t);
	if (!want_targs(e, 1, 4, "1 to 4 template arguments <REP[,VS],W[,HS]>"))
		return poison(e);
	int nt = e->ntargs, f[4];
	if (!fold_cargs(S, e, nt == 2 ? roles2 : roles, nt))
		return poison(e);
	/* normalize to {REP, VS, W, HS} */
	switch (nt) {
	case 1: f[0] = e->cargs[0], f[1] = 0, f[2] = b->n, f[3] = 1; break;
	case 2: f[0] = e->cargs[0], f[1] = 0, f[2] = e->cargs[1], f[3] = 1; break;
	case 3: f[0] = e->cargs[0], f[1] = e->cargs[1], f[2] = e->cargs[2], f[3] = 1; break;
	default: memcpy(f, e->cargs, sizeof f); break;
	}
	memcpy(e->cargs, f, sizeof f);
	e->ncargs = 4;
	if (nt == 1 && e->args.len) {
		merror(e, "replicate<%d> takes no offset; use replicate<REP,W>(offset)", f[0]);
		return poison(e);
	}
	if (!want_args(e, 0, m ? 2 : 1, m ? "at most 2 offsets" : "at most 1 offset"))
		return poison(e);
	if (f[0] < 1 || f[2] < 1 || f[1] < 0 || f[3] < 0) {
		merror(e, "replicate needs REP >= 1, W >= 1, VS >= 0 and HS >= 0 (found "
		       "<%d,%d,%d,%d>)", f[0], f[1], f[2], f[3]);
		return poison(e);
	}
	if (!offsets(S, e, m ? 2 : 1))
		return poison(e);
	if (!region_fits(S, e, arena_printf(sema_arena(S), "replicate<%d,%d,%d,%d>", f[0], f[1], f[2],
	                                    f[3]), (int64_t)f[0] * f[2],
	                 (int64_t)(f[0] - 1) * f[1] + (int64_t)(f[2] - 1) * f[3], b->elem))
		return poison(e);
	int64_t i = const_off(e, 0), j = m ? const_off(e, 1) : 0;
	if (i >= 0 && j >= 0) {
		int64_t off = m ? i * b->cols + j : i;
		if (off + (int64_t)(f[0] - 1) * f[1] + (int64_t)(f[2] - 1) * f[3] >= b->n)
			mwarn(e, "replicate<%d,%d,%d,%d> reaches past the end of '%s'", f[0], f[1],
			      f[2], f[3], ty_str(t));
	}
	e->ty = ty_vector(b->elem, f[0] * f[2]);
	e->lvalue = false;
	return e;
}

/* ---------------------------------------------------------------- format */

/* True if x is a region whose elements are not contiguous in a row. */
static bool strided(const Node *x)
{
	if (x->kind != ND_MEMBER_CALL || !x->lhs || !x->lhs->ty)
		return false;
	const int *c = x->cargs;
	Type *b = ty_base(x->lhs->ty);
	switch (x->member) {
	case MB_SELECT:
		if (x->ncargs == 2 ? c[0] > 1 && c[1] > 1 : c[2] > 1 && c[3] > 1)
			return true;
		break;
	case MB_COLUMN:
		if (b->kind == TY_MATRIX && b->rows > 1 && b->cols > 1)
			return true;
		break;
	case MB_ROW: case MB_SELECT_ALL: case MB_FORMAT:
		break;
	default:
		return false;
	}
	return strided(x->lhs);
}

static Node *member_format(Sema *S, Node *e, Type *t)
{
	static const char *const roles[] = { "", "rows", "columns" };
	if (!want_args(e, 0, 0, "no arguments"))
		return poison(e);
	if (e->ntargs != 1 && e->ntargs != 3) {
		merror(e, "format takes <T> or <T,R,C>, found %d template argument%s", e->ntargs,
		       e->ntargs == 1 ? "" : "s");
		return poison(e);
	}
	Type *u = sema_targ_type(S, &e->targs[0], "the type of format");
	if (ty_is_error(u))
		return poison(e);
	if (u->kind != TY_SCALAR || u->sk == SK_BOOL) {
		merror(e, "format<%s>: the type must be a vector element type", ty_str(u));
		return poison(e);
	}
	e->targ_type = u;
	if (strided(e->lhs)) {
		merror(e, "format of a strided region ('%s'); select a contiguous region first",
		       ty_str(t));
		return poison(e);
	}
	int bytes = ty_base(t)->size;
	if (e->ntargs == 1) {
		int n = bytes / u->size;
		if (n == 0) {
			merror(e, "format<%s>: '%s' (%d bytes) is smaller than one '%s'", ty_str(u),
			       ty_str(t), bytes, ty_str(u));
			return poison(e);
		}
		e->ncargs = 0;
		return ref_result(e, ty_vector(u, n));
	}
	int64_t r = 0, c = 0;
	if (!sema_targ_int(S, &e->targs[1], "the rows of format", &r) ||
	    !sema_targ_int(S, &e->targs[2], "the columns of format", &c))
		return poison(e);
	(void)roles;
	if (r < 1 || c < 1 || r * c * u->size != bytes) {
		merror(e, "format<%s,%lld,%lld>: %lld bytes do not match the %d bytes of '%s'",
		       ty_str(u), (long long)r, (long long)c, (long long)(r * c * u->size), bytes,
		       ty_str(t));
		return poison(e);
	}
	e->cargs[0] = (int)r, e->cargs[1] = (int)c;
	e->ncargs = 2;
	return ref_result(e, ty_matrix(u, (int)r, (int)c));
}

/* ----------------------------------------------------------------- merge */

static bool merge_source(Sema *S, Node *e, int i, Type *t)
{
	Type *b = ty_base(t);
	Node *x = sema_rvalue(S, e->args.data[i]);
	if (bad(x))
		return false;
	const char *what = arena_printf(sema_arena(S), "source %d of merge", i + 1);
	if (ty_is_vm(x->ty)) {
		if (ty_elems(x->ty) != b->n) {
			diag_at(DIAG_ERROR, x->loc, x->len > 0 ? x->len : 1,
			        "%s has %d elements; '%s' has %d", what, ty_elems(x->ty), ty_str(t),
			        b->n);
			return false;
		}
		Type *xb = ty_base(x->ty);
		Type *to = xb->kind == TY_MATRIX ? ty_matrix(b->elem, xb->rows, xb->cols)
		                                 : ty_vector(b->elem, xb->n);
		e->args.data[i] = sema_convert(S, x, to, false, what);
	} else {
		e->args.data[i] = sema_convert(S, x, b->elem, false, what);
	}
	return !bad(e->args.data[i]);
}

static bool merge_mask(Sema *S, Node *e, int i, Type *t)
{
	int n = ty_base(t)->n;
	Node *x = sema_rvalue(S, e->args.data[i]);
	if (bad(x))
		return false;
	Type *xb = ty_base(x->ty);
	if (ty_is_vm(xb)) {
		if (!ty_is_integer(xb->elem)) {
			diag_at(DIAG_ERROR, x->loc, x->len > 0 ? x->len : 1,
			        "the mask of merge must have an integer element type, found '%s'",
			        ty_str(x->ty));
			return false;
		}
		if (xb->n != n) {
			diag_at(DIAG_ERROR, x->loc, x->len > 0 ? x->len : 1,
			        "the mask of merge has %d elements; '%s' has %d", xb->n, ty_str(t), n);
			return false;
		}
		return true;
	}
	if (!ty_is_integer(xb)) {
		diag_at(DIAG_ERROR, x->loc, x->len > 0 ? x->len : 1,
		        "the mask of merge must be an integer or an integer vector, found '%s'",
		        ty_str(x->ty));
		return false;
	}
	int bits = xb->size * 8;
	if (bits < n || n > 32)
		diag_at(DIAG_WARNING, x->loc, x->len > 0 ? x->len : 1,
		        "the mask of merge has %d bits but '%s' has %d elements", bits < 32 ? bits : 32,
		        ty_str(t), n);
	e->args.data[i] = sema_convert(S, x, ty_scalar(SK_INT), false, "the mask of merge");
	return !bad(e->args.data[i]);
}

static Node *member_merge(Sema *S, Node *e, Type *t)
{
	if (!want_targs(e, 0, 0, "no template arguments") ||
	    !want_args(e, 2, 3, "(src, mask) or (a, b, mask)"))
		return poison(e);
	if (!e->lhs->lvalue) {
		merror(e, "merge needs an lvalue; this '%s' is a temporary", ty_str(t));
		return poison(e);
	}
	if (t->is_const) {
		merror(e, "merge into a const '%s'", ty_str(t));
		return poison(e);
	}
	int nm = e->args.len - 1;
	bool ok = true;
	for (int i = 0; i < nm; i++)
		ok &= merge_source(S, e, i, t);
	ok &= merge_mask(S, e, nm, t);
	if (!ok)
		return poison(e);
	e->ty = ty_void();
	e->lvalue = false;
	return e;
}

/* ------------------------------------------------------- row, column, ... */

static Node *member_row_col(Sema *S, Node *e, Type *t)
{
	Type *b = ty_base(t);
	if (b->kind != TY_MATRIX)
		return matrix_only(e, t);
	if (!want_targs(e, 0, 0, "no template arguments") || !want_args(e, 1, 1, "1 index") ||
	    !offsets(S, e, 1))
		return poison(e);
	bool row = e->member == MB_ROW;
	int64_t i = const_off(e, 0), lim = row ? b->rows : b->cols;
	if (i >= lim)
		mwarn(e, "%s %lld is out of bounds of '%s'", row ? "row" : "column", (long long)i,
		      ty_str(t));
	return ref_result(e, row ? ty_vector(b->elem, b->cols) : ty_matrix(b->elem, b->rows, 1));
}

static Node *member_any_all(Sema *S, Node *e, Type *t)
{
	if (!want_targs(e, 0, 0, "no template arguments") || !want_args(e, 0, 0, "no arguments"))
		return poison(e);
	int w = sema_simd_width(S), n = ty_elems(t);
	if (w > 0 && n != w) {
		merror(e, "%s() inside SIMD control flow needs %d elements (the SIMD width); '%s' "
		       "has %d", member_names[e->member], w, ty_str(t), n);
		return poison(e);
	}
	e->ty = ty_scalar(SK_USHORT);
	e->lvalue = false;
	return e;
}

static Node *member_size(Sema *S, Node *e, Type *t)
{
	Type *b = ty_base(t);
	if (!want_targs(e, 0, 0, "no template arguments") || !want_args(e, 0, 0, "no arguments"))
		return poison(e);
	if (e->member != MB_N_ELEMS && b->kind != TY_MATRIX)
		return matrix_only(e, t);
	int v = e->member == MB_N_ELEMS ? b->n : e->member == MB_N_ROWS ? b->rows : b->cols;
	e->ty = ty_scalar(SK_UINT);
	e->lvalue = false;
	e->has_value = true;
	e->cval = v;
	return e;
}

Node *sema_member_call(Sema *S, Node *e)
{
	if (e->ty)
		return e;
	Node *x = sema_expr(S, e->lhs);
	e->lhs = x;
	for (int i = 0; bad(x) && i < e->args.len; i++)
		sema_expr(S, e->args.data[i]);
	if (bad(x))
		return poison(e);
	Type *t = x->ty;
	e->member = member_of(e->name);
	if (!ty_is_vm(t)) {
		merror(e, "member reference '%s' on '%s', which is not a vector or matrix",
		       e->name, ty_str(t));
		return poison(e);
	}
	switch (e->member) {
	case MB_SELECT: return member_select(S, e, t);
	case MB_SELECT_ALL: return member_select_all(S, e, t);
	case MB_ISELECT: return member_iselect(S, e, t);
	case MB_REPLICATE: return member_replicate(S, e, t);
	case MB_FORMAT: return member_format(S, e, t);
	case MB_MERGE: return member_merge(S, e, t);
	case MB_ROW: case MB_COLUMN: return member_row_col(S, e, t);
	case MB_ANY: case MB_ALL: return member_any_all(S, e, t);
	case MB_N_ELEMS: case MB_N_ROWS: case MB_N_COLS: return member_size(S, e, t);
	case MB_GENX_SELECT:
		merror(e, "genx_select is not supported; use replicate()");
		return poison(e);
	default:
		merror(e, "no member named '%s' in '%s'", e->name, ty_str(t));
		return poison(e);
	}
}

/* -------------------------------------------------------- initialization */

static bool is_sat_arg(const Node *x)
{
	if (x->kind == ND_IDENT && x->sym && x->sym->kind == SYM_ENUM_CONST &&
	    x->name && !strcmp(x->name, "_GENX_SAT"))
		return true;
	return false;
}

/* vector<T,N>(x, SAT): a saturating conversion node. */
static Node *sat_cast(Sema *S, Node *x, Type *t, Loc loc)
{
	Type *b = ty_base(t);
	if (ty_is_vm(x->ty) && ty_elems(x->ty) != b->n) {
		error_at(x->loc, "cannot convert '%s' to '%s': element counts differ (%d and %d)",
		         ty_str(x->ty), ty_str(b), ty_elems(x->ty), b->n);
		return poison(x);
	}
	if (!ty_is_vm(x->ty) && !(ty_is_scalar(x->ty) && x->ty->kind == TY_SCALAR)) {
		error_at(x->loc, "cannot convert '%s' to '%s'", ty_str(x->ty), ty_str(b));
		return poison(x);
	}
	Node *c = node_new(sema_arena(S), ND_CAST, loc);
	c->op = CAST_FUNC;
	c->ty = b;
	c->lhs = x;
	nl_push(sema_arena(S), &c->args, x);
	c->sat = true;
	return c;
}

/* The operands of an initialization or cast: (x) or (x, SAT). */
static Node *init_source(Sema *S, NodeList *args, Type *t, Loc loc, bool *sat)
{
	*sat = false;
	if (args->len == 2) {
		Node *f = sema_expr(S, args->data[1]);
		if (bad(f))
			return NULL;
		if (!is_sat_arg(f)) {
			diag_at(DIAG_ERROR, f->loc, f->len > 0 ? f->len : 1,
			        "the second operand of '%s'(x, SAT) must be SAT", ty_str(ty_base(t)));
			return NULL;
		}
		*sat = true;
	} else if (args->len != 1) {
		error_at(loc, "'%s' takes 1 operand (or 2 with SAT), found %d", ty_str(ty_base(t)),
		         args->len);
		return NULL;
	}
	Node *x = sema_expr(S, args->data[0]);
	return bad(x) ? NULL : x;
}

/* vector_ref / matrix_ref: an lvalue of the same kind, element type, size. */
static bool bind_ref(Sema *S, Node *decl, Type *t, Node *x)
{
	Type *xb = ty_base(x->ty), *tb = ty_base(t);
	if (!ty_is_vm(x->ty)) {
		error_at(x->loc, "cannot bind '%s' to '%s'", ty_str(t), ty_str(x->ty));
		return false;
	}
	if (!x->lvalue) {
		error_at(x->loc, "cannot bind '%s' to a temporary '%s'", ty_str(t), ty_str(x->ty));
		return false;
	}
	if (xb->elem != tb->elem) {
		error_at(x->loc, "cannot bind '%s' to '%s': the element types differ", ty_str(t),
		         ty_str(x->ty));
		return false;
	}
	if (xb->kind != tb->kind || xb->n != tb->n || xb->rows != tb->rows) {
		error_at(x->loc, "cannot bind '%s' to '%s': a %s binds only to a %s of the same size",
		         ty_str(t), ty_str(x->ty), tb->kind == TY_MATRIX ? "matrix_ref" : "vector_ref",
		         tb->kind == TY_MATRIX ? "matrix" : "vector");
		return false;
	}
	decl->init = x;
	return true;
}

/* A global const array initializing a vector/matrix. */
static bool array_source(Node *x, Type *t)
{
	Sym *s = x->kind == ND_IDENT ? x->sym : NULL;
	if (!s || s->kind != SYM_GLOBAL || !s->is_const_array) {
		error_at(x->loc, "an array initializing '%s' must be a global const array with an "
		         "initializer", ty_str(t));
		return false;
	}
	Type *e = x->ty;
	while (e->kind == TY_ARRAY)
		e = e->elem;
	if (!ty_is_scalar(e)) {
		error_at(x->loc, "an array of '%s' cannot initialize '%s'", ty_str(e), ty_str(t));
		return false;
	}
	return true;
}

/* A value source converted to t: a VM of the same count, or a scalar splat. */
static Node *value_source(Sema *S, Node *x, Type *t, bool sat, Loc loc)
{
	Type *b = ty_base(t);
	if (sat)
		return sat_cast(S, x, b, loc);
	if (ty_is_vm(x->ty)) {
		if (ty_elems(x->ty) != b->n) {
			error_at(x->loc, "cannot initialize '%s' from '%s': element counts differ "
			         "(%d and %d)", ty_str(b), ty_str(x->ty), b->n, ty_elems(x->ty));
			return poison(x);
		}
		return sema_convert(S, x, b, false, "an initialization");
	}
	if (ty_is_scalar(x->ty))
		return sema_convert(S, x, b->elem, false, "an initialization");
	error_at(x->loc, "cannot initialize '%s' from '%s'", ty_str(b), ty_str(x->ty));
	return poison(x);
}

bool sema_vm_init(Sema *S, Node *decl, Type *t)
{
	Loc nl = decl->name_loc.line ? decl->name_loc : decl->loc;
	NodeList one = { 0 };
	NodeList *args = &decl->args;
	if (decl->init) {
		if (decl->init->kind == ND_INIT_LIST) {
			error_at(decl->init->loc, "'%s' cannot be initialized with a brace list; use a "
			         "global const array", ty_str(t));
			return false;
		}
		nl_push(sema_arena(S), &one, decl->init);
		args = &one;
	}
	if (args->len == 0) {
		if (t->is_ref) {
			error_at(nl, "'%s' must be initialized", ty_str(t));
			return false;
		}
		return true;
	}
	bool sat;
	Node *x = init_source(S, args, t, nl, &sat);
	decl->args.len = 0;
	if (!x)
		return false;
	if (t->is_ref) {
		if (sat) {
			error_at(nl, "a reference cannot be initialized with SAT");
			return false;
		}
		return bind_ref(S, decl, t, x);
	}
	if (x->ty->kind == TY_ARRAY) {
		if (sat) {
			error_at(nl, "an array initializer cannot saturate");
			return false;
		}
		decl->init = x;
		return array_source(x, t);
	}
	decl->init = value_source(S, x, t, sat, x->loc);
	return !bad(decl->init);
}

Node *sema_vm_cast(Sema *S, Node *cast, Type *t)
{
	if (t->is_ref) {
		error_at(cast->loc, "cannot cast to the reference type '%s'", ty_str(t));
		return poison(cast);
	}
	if (!cast->args.len && cast->lhs)
		nl_push(sema_arena(S), &cast->args, cast->lhs);
	bool sat;
	Node *x = init_source(S, &cast->args, t, cast->loc, &sat);
	if (!x)
		return poison(cast);
	if (sat)
		return sat_cast(S, x, t, cast->loc);
	if (x->ty->kind == TY_ARRAY) {
		error_at(x->loc, "cannot cast an array to '%s'", ty_str(t));
		return poison(cast);
	}
	Node *r = sema_convert(S, x, ty_base(t), true, "a cast");
	if (r != x)
		return r;
	cast->ty = ty_base(t);     /* no conversion: still an rvalue */
	cast->lhs = x;
	cast->args.len = 0;
	nl_push(sema_arena(S), &cast->args, x);
	cast->lvalue = false;
	return cast;
}
