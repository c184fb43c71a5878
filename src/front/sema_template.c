/* sema_template.c — template argument deduction, instantiation, the
 * instance cache and overload resolution (sema_call).
 *
 * Templates are not checked where they are declared.  A call to one binds
 * its parameters (explicit arguments, deduction from the argument types,
 * defaults), then instantiates it: the FUNC is cloned (ast_clone), the
 * parameters are bound as SYM_TYPE / SYM_VALUE in a scope above the
 * template's own, and the clone is checked like any function and appended to
 * the unit with inst_of set.  Instances are cached by (template, arguments).
 *
 * Overload choice ranks each viable candidate's argument conversions and
 * picks the one better than all others; every call is recorded as an Edge
 * for the recursion check (sema.c).
 */
#include <stdlib.h>
#include <string.h>

#include "sema.h"

/* ------------------------------------------------------------ templates */

typedef struct {
	bool set;
	Type *ty;                 /* type parameter */
	int64_t val;              /* non-type parameter */
} Binding;

typedef struct {
	Sym *sym;                 /* SYM_FUNC or SYM_TEMPLATE */
	Binding *b;               /* template bindings */
	Scope *scope;             /* template binding scope */
	Type **params;
	int nparams;
	int nexplicit;            /* template arguments given explicitly */
	bool *by_ref;
	Type *ret;
	int *rank;
	bool viable;
	const char *why;
	Loc why_loc;
} Cand;

static int tparam_index(Node *t, const char *name)
{
	for (int i = 0; i < t->ntparams; i++)
		if (t->tparams[i].name == name)
			return i;
	return -1;
}

static bool bind_type(Sema *S, Cand *c, Node *t, int i, Type *ty)
{
	ty = ty_base(ty);
	if (i < c->nexplicit && c->b[i].set)
		return true;
	if (c->b[i].set && c->b[i].ty != ty) {
		c->why = arena_printf(S->a, "conflicting deductions for template parameter '%s' ('%s' and '%s')",
		                      t->tparams[i].name, ty_str(c->b[i].ty), ty_str(ty));
		return false;
	}
	c->b[i].set = true;
	c->b[i].ty = ty;
	return true;
}

static bool bind_value(Sema *S, Cand *c, Node *t, int i, int64_t v)
{
	if (i < c->nexplicit && c->b[i].set)
		return true;
	if (c->b[i].set && c->b[i].val != v) {
		c->why = arena_printf(S->a, "conflicting deductions for template parameter '%s' (%lld and %lld)",
		                      t->tparams[i].name, (long long)c->b[i].val, (long long)v);
		return false;
	}
	c->b[i].set = true;
	c->b[i].val = v;
	return true;
}

static bool deduce_dim(Sema *S, Cand *c, Node *t, Node *dim, int v)
{
	if (!dim || dim->kind != ND_IDENT)
		return true;
	int i = tparam_index(t, dim->name);
	if (i < 0 || t->tparams[i].is_type)
		return true;
	return bind_value(S, c, t, i, v);
}

/* Matches a parameter's written type against an argument's type. */
static bool deduce_ts(Sema *S, Cand *c, Node *t, TypeSpec *ts, Type *a)
{
	if (!ts || ty_is_error(a))
		return true;
	switch (ts->kind) {
	case TS_NAMED: {
		int i = tparam_index(t, ts->name);
		if (i >= 0 && t->tparams[i].is_type)
			return bind_type(S, c, t, i, a);
		return true;
	}
	case TS_VECTOR:
	case TS_VECTOR_REF:
		if (a->kind != TY_VECTOR)
			return true;
		return deduce_ts(S, c, t, ts->elem, a->elem) &&
		       deduce_dim(S, c, t, ts->dims[0], a->n);
	case TS_MATRIX:
	case TS_MATRIX_REF:
		if (a->kind != TY_MATRIX)
			return true;
		return deduce_ts(S, c, t, ts->elem, a->elem) &&
		       deduce_dim(S, c, t, ts->dims[0], a->rows) &&
		       deduce_dim(S, c, t, ts->dims[1], a->cols);
	default:
		return true;
	}
}

static Type *value_param_type(Sema *S, TemplParam *tp)
{
	if (!tp->ts)
		return ty_scalar(SK_INT);
	Type *t = sema_typespec(S, ts_clone(S->a, tp->ts));
	return ty_is_integer(t) ? ty_base(t) : ty_scalar(SK_INT);
}

/* Builds the scope that binds the template's parameters, above the
 * scope the template was declared in. */
static Scope *binding_scope(Sema *S, Sym *tsym, Binding *b, int upto)
{
	Node *t = tsym->decl;
	TemplInfo *ti = tsym->ir;
	Scope *sc = NEW(S->a, Scope);
	sc->up = ti->scope;
	sc->ns = ti->scope->ns;
	vec_push(&S->kept, sc);
	for (int i = 0; i < upto; i++) {
		TemplParam *tp = &t->tparams[i];
		if (!b[i].set)
			continue;
		Sym *s;
		if (tp->is_type) {
			s = sema_new_sym(S, SYM_TYPE, tp->name, b[i].ty, tp->loc, NULL);
		} else {
			Scope *saved = S->scope;
			S->scope = sc;
			Type *vt = value_param_type(S, tp);
			S->scope = saved;
			s = sema_new_sym(S, SYM_VALUE, tp->name, vt, tp->loc, NULL);
			s->cval = b[i].val;
		}
		map_put(&sc->names, tp->name, s);
	}
	return sc;
}

static bool explicit_targ(Sema *S, Cand *c, Node *t, int i, TemplArg *ta)
{
	TemplParam *tp = &t->tparams[i];
	Sym *named = NULL;
	if (!ta->ts && ta->expr && ta->expr->kind == ND_IDENT)
		named = sema_lookup(S, ta->expr->name);
	if (tp->is_type) {
		if (ta->ts || (named && named->kind == SYM_TYPE)) {
			Type *ty = ta->ts ? sema_typespec(S, ta->ts) : named->ty;
			if (ty_is_error(ty))
				return false;
			return bind_type(S, c, t, i, ty);
		}
		c->why = arena_printf(S->a, "template argument for type parameter '%s' must be a type",
		                      tp->name);
		c->why_loc = ta->loc;
		return false;
	}
	if (ta->ts || (named && named->kind == SYM_TYPE)) {
		Type *ty = ta->ts ? sema_typespec(S, ta->ts) : named->ty;
		c->why = arena_printf(S->a, "template argument for non-type parameter '%s' must be "
		                      "an integer constant, but '%s' is a type", tp->name, ty_str(ty));
		c->why_loc = ta->loc;
		return false;
	}
	Node *e = ta->expr = sema_rvalue(S, ta->expr);
	if (bad(e))
		return false;
	if (!e->has_value || !ty_is_integer(ty_base(e->ty))) {
		c->why = arena_printf(S->a, "template argument for '%s' is not an integer constant expression",
		                      tp->name);
		c->why_loc = e->loc;
		return false;
	}
	return bind_value(S, c, t, i, e->cval);
}

/* Binds a template's parameters for a call; false (with c->why) if the
 * template cannot be used. */
static bool deduce(Sema *S, Cand *c, Node *call)
{
	Node *t = c->sym->decl, *f = t->lhs;
	int n = t->ntparams;
	c->b = NEWN(S->a, Binding, n + 1);
	c->why_loc = call->loc;
	if (call->ntargs > n) {
		c->why = arena_printf(S->a, "too many template arguments (%d, expected at most %d)",
		                      call->ntargs, n);
		return false;
	}
	for (int i = 0; i < call->ntargs; i++)
		if (!explicit_targ(S, c, t, i, &call->targs[i]))
			return false;
	c->nexplicit = call->ntargs;
	for (int i = 0; i < f->params.len && i < call->args.len; i++) {
		Node *a = call->args.data[i];
		if (!deduce_ts(S, c, t, f->params.data[i]->ts, a->ty))
			return false;
	}
	for (int i = 0; i < n; i++) {
		TemplParam *tp = &t->tparams[i];
		if (c->b[i].set)
			continue;
		if (!tp->def) {
			c->why = arena_printf(S->a, "could not deduce template parameter '%s'", tp->name);
			return false;
		}
		Scope *saved = S->scope;
		S->scope = binding_scope(S, c->sym, c->b, i);
		TemplArg da = *tp->def;
		da.ts = ts_clone(S->a, da.ts);
		da.expr = ast_clone(S->a, da.expr);
		bool ok = explicit_targ(S, c, t, i, &da);
		S->scope = saved;
		if (!ok)
			return false;
	}
	c->scope = binding_scope(S, c->sym, c->b, n);
	/* parameter types under the bindings */
	Scope *saved = S->scope;
	S->scope = c->scope;
	int errs = diag_state.errors;
	c->nparams = f->params.len;
	c->params = NEWN(S->a, Type *, c->nparams + 1);
	c->by_ref = NEWN(S->a, bool, c->nparams + 1);
	for (int i = 0; i < c->nparams; i++) {
		TypeSpec *ts = ts_clone(S->a, f->params.data[i]->ts);
		c->params[i] = ts->is_pointer ? ty_error() : sema_typespec(S, ts);
		c->by_ref = c->by_ref;
		c->by_ref[i] = ts->is_ref || c->params[i]->is_ref;
	}
	S->scope = saved;
	if (diag_state.errors != errs) {
		c->why = "invalid parameter types";
		return false;
	}
	return true;
}

static const char *inst_name(Sema *S, Node *t, Binding *b)
{
	Buf buf = {0};
	buf_printf(&buf, "%s<", t->lhs->name);
	for (int i = 0; i < t->ntparams; i++) {
		if (i)
			buf_putc(&buf, ',');
		if (t->tparams[i].is_type)
			buf_puts(&buf, ty_str(b[i].ty));
		else
			buf_printf(&buf, "%lld", (long long)b[i].val);
	}
	buf_putc(&buf, '>');
	const char *s = intern(buf.data, buf.len);
	buf_free(&buf);
	return s;
}

/* "In instantiation of" notes: the innermost and outermost few of a deep
 * chain, one line for those between. */
static void inst_note(Sema *S, Node *call, const char *name)
{
	enum { KEEP = 3 };
	int d = S->inst_depth, deepest = S->max_inst_depth;
	if (d < KEEP || d >= deepest - KEEP)
		note_at(call->loc, "in instantiation of '%s' requested here", name);
	else if (d == deepest - KEEP - 1)
		note_at(call->loc, "(%d instantiations not shown)", deepest - 2 * KEEP);
}

/* The instance of template c->sym for c's bindings, checked on first use. */
static Sym *instantiate(Sema *S, Cand *c, Node *call)
{
	Node *t = c->sym->decl;
	const char *name = inst_name(S, t, c->b);
	const char *key = intern_cstr(arena_printf(S->a, "%d:%s", c->sym->id, name));
	Sym *is = map_get(&S->instances, key);
	if (is)
		return is;
	if (S->inst_depth >= MAX_INST_DEPTH || S->depth > MAX_SEMA_DEPTH) {
		if (S->inst_depth >= MAX_INST_DEPTH)
			error_at(call->loc, "instantiating '%s' exceeds the maximum template "
			         "instantiation depth of %d", name, MAX_INST_DEPTH);
		else
			error_at(call->loc, "instantiating '%s' exceeds the nesting limit: the "
			         "instantiations it is part of nest expressions and statements more than "
			         "%d levels deep", name, MAX_SEMA_DEPTH);
		return NULL;
	}
	Node *f = ast_clone(S->a, t->lhs);
	f->inst_of = t;
	is = sema_new_sym(S, SYM_FUNC, name, NULL, name_loc(t->lhs), f);
	f->sym = is;
	map_put(&S->instances, key, is);
	nl_push(S->a, &S->unit->args, f);
	Scope *saved = S->scope;
	S->scope = c->scope;
	int errs = diag_state.errors;
	bool ret_auto;
	is->ty = sema_func_signature(S, f, &ret_auto);
	f->ty = is->ty;
	if (++S->inst_depth > S->max_inst_depth)
		S->max_inst_depth = S->inst_depth;
	if (f->body)
		sema_func_body(S, f, is, ret_auto);
	else
		error_at(name_loc(t->lhs), "function template '%s' is used but never defined", name);
	S->inst_depth--;
	S->scope = saved;
	if (diag_state.errors != errs)
		inst_note(S, call, name);
	if (!S->inst_depth)
		S->max_inst_depth = 0;
	return is;
}

/* ------------------------------------------------------ overload choice */

/* 0 exact, 1 promotion, 2 conversion, -1 not viable (why set). */
static int conv_rank(Sema *S, Cand *c, int i, Node *a)
{
	Type *P = c->params[i], *A = a->ty;
	Type *Ab = ty_base(A), *Pb = ty_base(P);
	if (ty_is_error(P) || ty_is_error(A))
		return 0;
	c->why_loc = a->loc;
	if (ty_is_vm(P) && c->by_ref[i]) {
		if (!ty_is_vm(A) || Ab->elem != Pb->elem || Ab->n != Pb->n) {
			c->why = arena_printf(S->a, "argument %d has type '%s', but the '%s' parameter needs "
			                      "a vector or matrix of %d '%s' elements", i + 1, ty_str(A),
			                      ty_str(P), Pb->n, ty_str(Pb->elem));
			return -1;
		}
		if (!a->lvalue) {
			c->why = arena_printf(S->a, "argument %d is an rvalue of type '%s'; the '%s' parameter "
			                      "needs an lvalue", i + 1, ty_str(A), ty_str(P));
			return -1;
		}
		if (A->is_const) {
			c->why = arena_printf(S->a, "argument %d of type '%s' is const; the '%s' parameter "
			                      "may write to it", i + 1, ty_str(A), ty_str(P));
			return -1;
		}
		return Ab->kind == Pb->kind ? 0 : 1;
	}
	if (c->by_ref[i]) {
		if (Ab != Pb || !a->lvalue) {
			c->why = arena_printf(S->a, "argument %d must be an lvalue of type '%s' (reference "
			                      "parameter), got %s of type '%s'", i + 1, ty_str(Pb),
			                      a->lvalue ? "an lvalue" : "an rvalue", ty_str(A));
			return -1;
		}
		return 0;
	}
	if (ty_is_vm(Pb)) {
		if (!ty_is_vm(Ab) || Ab->n != Pb->n) {
			c->why = arena_printf(S->a, "argument %d: cannot convert '%s' to '%s'%s", i + 1,
			                      ty_str(A), ty_str(P), ty_is_vm(Ab) ? " (element counts differ)" : "");
			return -1;
		}
		return Ab == Pb ? 0 : 2;
	}
	if (Ab == Pb)
		return 0;
	bool arith_a = Ab->kind == TY_SCALAR || (Ab->kind == TY_ENUM && !Ab->enum_class);
	if (Pb->kind == TY_SCALAR && arith_a) {
		if (Ab->kind == TY_SCALAR && ((Ab->sk < SK_INT && Pb->sk == SK_INT) ||
		                             (Ab->sk == SK_FLOAT && Pb->sk == SK_DOUBLE)))
			return 1;
		return 2;
	}
	c->why = arena_printf(S->a, "argument %d: cannot convert '%s' to '%s'", i + 1, ty_str(A),
	                      ty_str(P));
	return -1;
}

static void match(Sema *S, Cand *c, Node *call)
{
	c->viable = false;
	if (c->sym->kind == SYM_TEMPLATE) {
		if (!deduce(S, c, call))
			return;
	} else {
		if (call->has_targs) {
			c->why = arena_printf(S->a, "'%s' is not a template", c->sym->name);
			return;
		}
		Node *f = c->sym->decl;
		c->params = c->sym->ty->params;
		c->nparams = c->sym->ty->nparams;
		c->by_ref = NEWN(S->a, bool, c->nparams + 1);
		for (int i = 0; i < c->nparams; i++)
			c->by_ref[i] = f->params.data[i]->ts->is_ref || c->params[i]->is_ref;
	}
	int na = call->args.len;
	if (na != c->nparams) {
		c->why = arena_printf(S->a, "%s arguments: '%s' takes %d, %d given",
		                      na < c->nparams ? "too few" : "too many", c->sym->name,
		                      c->nparams, na);
		c->why_loc = call->loc;
		return;
	}
	c->rank = NEWN(S->a, int, na + 1);
	for (int i = 0; i < na; i++)
		if ((c->rank[i] = conv_rank(S, c, i, call->args.data[i])) < 0)
			return;
	c->viable = true;
}

/* ---------------------------------------------------- partial ordering */

/* Two function templates that fit a call equally well are ordered as C++
 * orders them: A is at least as specialized as B when B's parameter types,
 * as written, can be matched against A's with B's template parameters
 * standing for whatever A has there, and A's own template parameters for
 * themselves only.  `f(matrix_ref<T, 8, 8>)` is more specialized than
 * `f(matrix_ref<T, N, N>)`: N matches 8, but 8 does not match N. */

typedef struct {
	Node *t;                  /* B's TEMPLATE node */
	TypeSpec **ts;            /* what each of B's type parameters stands for */
	Node **dim;               /* what each of B's value parameters stands for */
} Order;

/* Are two sizes as written the same: equal literals or the same name? */
static bool same_dim(Node *x, Node *y)
{
	if (!x || !y)
		return x == y;
	if (x->kind == ND_INT_LIT && y->kind == ND_INT_LIT)
		return x->ival == y->ival;
	return x->kind == ND_IDENT && y->kind == ND_IDENT && x->name == y->name;
}

/* vector and vector_ref (matrix, matrix_ref) deduce alike. */
static TypeSpecKind ts_shape(const TypeSpec *ts)
{
	if (ts->kind == TS_VECTOR_REF)
		return TS_VECTOR;
	return ts->kind == TS_MATRIX_REF ? TS_MATRIX : ts->kind;
}

static bool same_ts(TypeSpec *x, TypeSpec *y)
{
	if (!x || !y)
		return x == y;
	if (ts_shape(x) != ts_shape(y))
		return false;
	switch (ts_shape(x)) {
	case TS_SCALAR: return x->sk == y->sk;
	case TS_NAMED: return x->name == y->name;
	case TS_VECTOR: return same_ts(x->elem, y->elem) && same_dim(x->dims[0], y->dims[0]);
	case TS_MATRIX:
		return same_ts(x->elem, y->elem) && same_dim(x->dims[0], y->dims[0]) &&
		       same_dim(x->dims[1], y->dims[1]);
	default: return true;
	}
}

/* Does B's size `b` match A's size `a`? */
static bool order_dim(Order *o, Node *b, Node *a)
{
	int i = b && b->kind == ND_IDENT ? tparam_index(o->t, b->name) : -1;
	if (i < 0 || o->t->tparams[i].is_type)
		return same_dim(b, a);
	if (!o->dim[i])
		o->dim[i] = a;
	return a && same_dim(o->dim[i], a);
}

/* Does B's parameter type `b` match A's `a`? */
static bool order_ts(Order *o, TypeSpec *b, TypeSpec *a)
{
	if (!b || !a)
		return b == a;
	int i = b->kind == TS_NAMED ? tparam_index(o->t, b->name) : -1;
	if (i >= 0 && o->t->tparams[i].is_type) {
		if (!o->ts[i])
			o->ts[i] = a;
		return same_ts(o->ts[i], a);
	}
	if (ts_shape(b) != ts_shape(a))
		return false;
	switch (ts_shape(b)) {
	case TS_VECTOR:
		return order_ts(o, b->elem, a->elem) && order_dim(o, b->dims[0], a->dims[0]);
	case TS_MATRIX:
		return order_ts(o, b->elem, a->elem) && order_dim(o, b->dims[0], a->dims[0]) &&
		       order_dim(o, b->dims[1], a->dims[1]);
	default:
		return same_ts(b, a);
	}
}

/* Is template A at least as specialized as template B? */
static bool as_specialized(Sema *S, Node *a, Node *b)
{
	NodeList *pa = &a->lhs->params, *pb = &b->lhs->params;
	if (pa->len != pb->len)
		return false;
	Order o = {b, NEWN(S->a, TypeSpec *, b->ntparams + 1), NEWN(S->a, Node *, b->ntparams + 1)};
	for (int i = 0; i < pa->len; i++)
		if (!order_ts(&o, pb->data[i]->ts, pa->data[i]->ts))
			return false;
	return true;
}

/* -1: template a is more specialized, 1: b is, 0: neither */
static int partial_order(Sema *S, const Cand *a, const Cand *b)
{
	bool ab = as_specialized(S, a->sym->decl, b->sym->decl);
	bool ba = as_specialized(S, b->sym->decl, a->sym->decl);
	return ab == ba ? 0 : ab ? -1 : 1;
}

/* -1: a better, 1: b better, 0: neither */
static int compare(Sema *S, const Cand *a, const Cand *b, int n)
{
	bool abetter = false, bbetter = false;
	for (int i = 0; i < n; i++) {
		if (a->rank[i] < b->rank[i])
			abetter = true;
		if (b->rank[i] < a->rank[i])
			bbetter = true;
	}
	if (abetter != bbetter)
		return abetter ? -1 : 1;
	if (abetter)
		return 0;
	if ((a->sym->kind == SYM_TEMPLATE) != (b->sym->kind == SYM_TEMPLATE))
		return a->sym->kind == SYM_TEMPLATE ? 1 : -1;
	if (a->sym->kind == SYM_TEMPLATE)
		return partial_order(S, a, b);
	return 0;
}

static Cand *choose(Sema *S, Cand *cs, int n, Node *call, const char *name)
{
	Loc at = call->lhs ? call->lhs->loc : call->loc;
	int nviable = 0;
	for (int i = 0; i < n; i++)
		nviable += cs[i].viable;
	if (!nviable) {
		if (n == 1) {
			error_at(cs[0].why_loc.line ? cs[0].why_loc : at, "no matching function for call to '%s': %s",
			         name, cs[0].why ? cs[0].why : "invalid arguments");
			note_at(cs[0].sym->loc, "'%s' declared here", name);
			return NULL;
		}
		diag_at(DIAG_ERROR, at, nlen(name), "no matching function for call to '%s'", name);
		for (int i = 0; i < n; i++)
			note_at(cs[i].sym->loc, "candidate not viable: %s", cs[i].why ? cs[i].why : "invalid");
		return NULL;
	}
	Cand *best = NULL;
	for (int i = 0; i < n; i++) {
		if (!cs[i].viable)
			continue;
		if (!best || compare(S, &cs[i], best, call->args.len) < 0)
			best = &cs[i];
	}
	for (int i = 0; i < n; i++) {
		if (!cs[i].viable || &cs[i] == best)
			continue;
		if (compare(S, best, &cs[i], call->args.len) >= 0) {
			diag_at(DIAG_ERROR, at, nlen(name), "call to '%s' is ambiguous", name);
			for (int j = 0; j < n; j++)
				if (cs[j].viable && compare(S, best, &cs[j], call->args.len) >= 0)
					note_at(cs[j].sym->loc, "candidate function '%s'",
					        ty_str(cs[j].sym->kind == SYM_FUNC ? cs[j].sym->ty
					               : ty_func(ty_void(), cs[j].params, cs[j].nparams)));
			return NULL;
		}
	}
	return best;
}

Node *sema_call(Sema *S, Node *call, Sym *head)
{
	const char *name = head->name;
	bool ok = true;
	for (int i = 0; i < call->args.len; i++) {
		call->args.data[i] = sema_expr(S, call->args.data[i]);
		ok &= !bad(call->args.data[i]);
	}
	if (!ok)
		return call->ty = ty_error(), call;
	int n = 0;
	for (Sym *s = head; s; s = s->next_overload)
		n++;
	Cand *cs = NEWN(S->a, Cand, n);
	n = 0;
	for (Sym *s = head; s; s = s->next_overload) {
		cs[n].sym = s;
		match(S, &cs[n], call);
		n++;
	}
	Cand *c = choose(S, cs, n, call, name);
	if (!c)
		return call->ty = ty_error(), call;
	Sym *target = c->sym;
	if (target->kind == SYM_TEMPLATE)
		target = instantiate(S, c, call);
	if (!target)
		return call->ty = ty_error(), call;
	for (int i = 0; i < call->args.len; i++) {
		if (c->by_ref[i])
			continue;
		const char *what = arena_printf(S->a, "argument %d of '%s'", i + 1, target->name);
		Type *P = ty_base(c->params[i]);
		call->args.data[i] = sema_convert(S, call->args.data[i], P, false, what);
	}
	call->call_kind = CALL_FUNC;
	call->sym = target;
	call->ty = target->ty ? target->ty->ret : ty_error();
	if (!call->ty)
		call->ty = ty_error();
	call->lvalue = false;
	Loc at = call->lhs ? call->lhs->loc : call->loc;
	if (S->fx) {
		Edge e = {S->fx->sym, target, at, nlen(name)};
		vec_push(&S->edges, e);
		if (S->fx->simd_width)
			diag_at(DIAG_ERROR, at, nlen(name),
			        "calls to user functions ('%s') are not allowed inside SIMD control flow", name);
	}
	if (target->is_kernel)
		diag_at(DIAG_ERROR, at, nlen(name), "kernel '%s' cannot be called", name);
	return call;
}

/* `template [_GENX_MAIN_] void K<float>(SurfaceIndex);`: instantiates the
 * function template whose parameters, under the explicit arguments (and
 * deduction from the declared parameter types), are exactly the declared
 * ones.  An instance of a _GENX_MAIN_ template is a kernel, named by its
 * instance name ("K<float>", see kernel_symbol in util). */
void sema_explicit_inst(Sema *S, Node *n)
{
	Node *f = n->lhs;
	bool ret_auto;
	Type *fty = sema_func_signature(S, f, &ret_auto);
	Sym *head = sema_lookup(S, f->name);
	if (!head || (head->kind != SYM_TEMPLATE && head->kind != SYM_FUNC)) {
		diag_at(DIAG_ERROR, f->name_loc, nlen(f->name),
		        "explicit instantiation of '%s', which is not a function template", f->name);
		return;
	}
	if (ty_is_error(fty))
		return;
	Node *call = node_new(S->a, ND_CALL, n->loc);
	call->targs = n->targs;
	call->ntargs = n->ntargs;
	call->has_targs = n->has_targs;
	for (int i = 0; i < fty->nparams; i++) {
		Node *a = node_new(S->a, ND_IDENT, f->params.data[i]->loc);
		a->ty = fty->params[i];
		a->lvalue = true;
		nl_push(S->a, &call->args, a);
	}
	Cand *found = NULL;
	int nfound = 0;
	for (Sym *s = head; s; s = s->next_overload) {
		if (s->kind != SYM_TEMPLATE)
			continue;
		Cand *c = NEWN(S->a, Cand, 1);
		c->sym = s;
		match(S, c, call);
		bool exact = c->viable;
		for (int i = 0; exact && i < c->nparams; i++)
			exact = ty_base(c->params[i]) == ty_base(fty->params[i]);
		if (exact) {
			found = c;
			nfound++;
		}
	}
	if (nfound != 1) {
		diag_at(DIAG_ERROR, f->name_loc, nlen(f->name), nfound ?
		        "explicit instantiation of '%s' is ambiguous" :
		        "explicit instantiation of '%s' matches no template of that name "
		        "(the parameters must be the template's under the given arguments)",
		        f->name);
		return;
	}
	Node *tf = found->sym->decl->lhs;
	if ((f->dspec & DS_GENX_MAIN) && !(tf->dspec & DS_GENX_MAIN)) {
		diag_at(DIAG_ERROR, f->name_loc, nlen(f->name),
		        "explicit instantiation of '%s' as a kernel, but the template is not "
		        "_GENX_MAIN_", f->name);
		return;
	}
	Sym *is = instantiate(S, found, call);
	if (is) {
		is->is_kernel = (tf->dspec & DS_GENX_MAIN) != 0;
		n->sym = is;
	}
}
