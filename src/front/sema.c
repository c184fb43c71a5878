/* sema.c — the Sema state, scopes, symbols, type specifiers, the entry
 * sema_unit and the recursion check.
 *
 * sema_unit walks the top-level declarations in order (sema_decl.c).  Names
 * live in a chain of Scopes (block scoping; the global scope holds the
 * builtins, the predeclared typedefs and user declarations; a namespace's
 * members are also entered in the global scope under "ns::name").
 *
 * Every call between user functions is recorded (sema_template.c); after the
 * unit is checked the call graph is searched for cycles, since CM has no
 * recursion.
 *
 * requires: a parsed unit; provides: scopes and symbols for sema_*.c.
 */
#include <stdlib.h>
#include <string.h>

#include "sema.h"

Arena *sema_arena(Sema *S) { return S->a; }

int sema_max_vm_bytes(Sema *S) { return S->opt->max_vm_bytes > 0 ? S->opt->max_vm_bytes : 4096; }
int sema_simd_width(Sema *S) { return S->fx ? S->fx->simd_width : 0; }

/* --------------------------------------------------------------- scopes */

Scope *sema_push_scope(Sema *S)
{
	Scope *sc = NEW(S->a, Scope);
	sc->up = S->scope;
	sc->ns = S->scope ? S->scope->ns : NULL;
	S->scope = sc;
	return sc;
}

void sema_pop_scope(Sema *S, bool keep)
{
	Scope *sc = S->scope;
	S->scope = sc->up;
	if (keep)
		vec_push(&S->kept, sc);
	else
		map_free(&sc->names);
}

/* "E::x" names enumerator x of enum E (scoped or not). */
static Sym *lookup_enumerator(Sema *S, const char *name)
{
	const char *sep = strstr(name, "::");
	if (!sep)
		return NULL;
	const char *last = sep;
	for (const char *p = sep; (p = strstr(p + 2, "::"));)
		last = p;
	Sym *e = sema_lookup(S, intern(name, (size_t)(last - name)));
	if (!e || e->kind != SYM_TYPE || !e->ty || ty_base(e->ty)->kind != TY_ENUM)
		return NULL;
	Sym *x = sema_lookup(S, intern_cstr(last + 2));
	if (x && x->kind == SYM_ENUM_CONST && ty_base(x->ty) == ty_base(e->ty))
		return x;
	return NULL;
}

Sym *sema_lookup(Sema *S, const char *name)
{
	if (!name)
		return NULL;
	if (name[0] == ':' && name[1] == ':')
		return map_get(&S->global->names, intern_cstr(name + 2));
	for (Scope *sc = S->scope; sc; sc = sc->up) {
		Sym *s = map_get(&sc->names, name);
		if (s)
			return s;
		if (sc->ns && !sc->up) {
		}
	}
	/* inside a namespace, its own members; then `using namespace` */
	for (Scope *sc = S->scope; sc; sc = sc->up) {
		if (sc->ns) {
			Sym *s = map_get(&S->global->names,
			                 intern_cstr(arena_printf(S->a, "%s::%s", sc->ns, name)));
			if (s)
				return s;
		}
	}
	for (int i = 0; i < S->using_ns.len; i++) {
		Sym *s = map_get(&S->global->names,
		                 intern_cstr(arena_printf(S->a, "%s::%s", S->using_ns.data[i], name)));
		if (s)
			return s;
	}
	return lookup_enumerator(S, name);
}

Sym *sema_new_sym(Sema *S, SymKind k, const char *name, Type *ty, Loc loc, Node *decl)
{
	Sym *s = NEW(S->a, Sym);
	s->kind = k;
	s->name = name;
	s->ty = ty;
	s->loc = loc;
	s->decl = decl;
	/* symbols of the built-in headers are numbered apart, so that the ids
	 * of user symbols (in dumps) do not move when cm.h changes */
	const SrcFile *f = src_get(loc.file);
	if (!loc.file || (f && f->name && f->name[0] == '<'))
		s->id = HEADER_IDS + ++S->header_ids;
	else
		s->id = ++S->next_id;
	return s;
}

void sema_enter(Sema *S, Sym *s)
{
	map_put(&S->scope->names, s->name, s);
	if (S->scope->ns && S->scope != S->global)
		map_put(&S->global->names,
		        intern_cstr(arena_printf(S->a, "%s::%s", S->scope->ns, s->name)), s);
}

static const char *sym_what(const Sym *s)
{
	switch (s->kind) {
	case SYM_FUNC: case SYM_TEMPLATE: case SYM_BUILTIN: return "function";
	case SYM_TYPE: return "type";
	case SYM_ENUM_CONST: return "enumerator";
	default: return "variable";
	}
}

/* Enters s into the current scope unless the name is already declared
 * there; then diagnoses the redefinition with a note at the first one. */
bool sema_declare(Sema *S, Sym *s)
{
	if (!s->name)
		return true;
	Sym *old = map_get(&S->scope->names, s->name);
	if (old && old->kind == SYM_BUILTIN && S->scope == S->global) {
		sema_enter(S, s);
		return true;
	}
	if (old) {
		if (old->kind == SYM_TYPE && s->kind == SYM_TYPE && old->ty == s->ty)
			return true;
		if (old->kind != s->kind)
			diag_at(DIAG_ERROR, s->loc, nlen(s->name),
			        "redefinition of '%s' as a different kind of symbol", s->name);
		else
			diag_at(DIAG_ERROR, s->loc, nlen(s->name), "redefinition of '%s'", s->name);
		if (old->loc.line)
			note_at(old->loc, "previous definition of the %s '%s' is here",
			        sym_what(old), old->name);
		return false;
	}
	sema_enter(S, s);
	return true;
}

/* ------------------------------------------------------------ typespecs */

static bool check_elem(Sema *S, TypeSpec *ts, Type *el)
{
	if (ty_is_error(el))
		return false;
	if (el->is_const) {
		error_at(ts->elem ? ts->elem->loc : ts->loc,
		         "element type '%s' cannot be const-qualified; make the whole %s const instead",
		         ty_str(el), ts->kind == TS_VECTOR || ts->kind == TS_VECTOR_REF ? "vector" : "matrix");
		return false;
	}
	if (el->kind == TY_SCALAR && el->sk == SK_BOOL) {
		error_at(ts->elem ? ts->elem->loc : ts->loc,
		         "'bool' is not a valid vector or matrix element type; use ushort for masks");
		return false;
	}
	if (el->kind != TY_SCALAR) {
		error_at(ts->elem ? ts->elem->loc : ts->loc,
		         "'%s' is not a valid vector or matrix element type", ty_str(el));
		return false;
	}
	return true;
}

/* Every expression is checked through here: the depth it counts bounds the
 * nesting of template instantiations (sema_template.c). */
Node *sema_expr(Sema *S, Node *e)
{
	if (!e || e->ty)
		return e;
	S->depth++;
	e = sema_expr_node(S, e);
	S->depth--;
	return e;
}

bool sema_check_dim(Sema *S, Node *d, const char *what, int *out)
{
	int64_t v;
	if (!d || !sema_const_int(S, d, what, &v))
		return false;
	if (v <= 0) {
		diag_at(DIAG_ERROR, d->loc, d->len > 0 ? d->len : 1,
		        "%s must be positive, got %lld", what, (long long)v);
		return false;
	}
	if (v > 1 << 20) {
		diag_at(DIAG_ERROR, d->loc, d->len > 0 ? d->len : 1,
		        "%s %lld is too large (at most %d)", what, (long long)v, 1 << 20);
		return false;
	}
	*out = (int)v;
	return true;
}

static Type *vm_typespec(Sema *S, TypeSpec *ts)
{
	Type *el = sema_typespec(S, ts->elem);
	bool ok = check_elem(S, ts, el);
	bool vec = ts->kind == TS_VECTOR || ts->kind == TS_VECTOR_REF;
	int r = 1, c = 1;
	ok &= sema_check_dim(S, ts->dims[0], vec ? "vector size" : "matrix row count", &r);
	if (!vec)
		ok &= sema_check_dim(S, ts->dims[1], "matrix column count", &c);
	if (!ok)
		return ty_error();
	int limit = sema_max_vm_bytes(S);
	int64_t bytes = (int64_t)r * c * el->size;
	if (bytes >= limit) {   /* checked before ty_matrix: rows * cols may not fit an int */
		const char *name = vec ? arena_printf(S->a, "vector<%s,%d>", ty_str(el), r)
		                       : arena_printf(S->a, "matrix<%s,%d,%d>", ty_str(el), r, c);
		error_at(ts->loc, "'%s' is %lld bytes; a vector or matrix must be smaller than %d bytes",
		         name, (long long)bytes, limit);
		return ty_error();
	}
	Type *t = vec ? ty_vector(el, r) : ty_matrix(el, r, c);
	if (ts->kind == TS_VECTOR_REF || ts->kind == TS_MATRIX_REF || ts->is_ref)
		t = ty_as_ref(t);
	return t;
}

static Type *named_typespec(Sema *S, TypeSpec *ts)
{
	Sym *s = sema_lookup(S, ts->name);
	if (s && s->kind == SYM_TYPE)
		return s->ty;
	if (s)
		error_at(ts->loc, "'%s' is not a type", ts->name);
	else
		diag_at(DIAG_ERROR, ts->loc, nlen(ts->name), "unknown type name '%s'", ts->name);
	return ty_error();
}

Type *sema_typespec(Sema *S, TypeSpec *ts)
{
	if (!ts)
		return ty_error();
	if (ts->resolved)
		return ts->resolved;
	Type *t;
	switch (ts->kind) {
	case TS_SCALAR: t = ty_scalar(ts->sk); break;
	case TS_VOID: t = ty_void(); break;
	case TS_NAMED: t = named_typespec(S, ts); break;
	case TS_VECTOR:
	case TS_MATRIX:
	case TS_VECTOR_REF:
	case TS_MATRIX_REF: t = vm_typespec(S, ts); break;
	case TS_SURFACE: t = ty_surface(); break;
	case TS_SAMPLER: t = ty_sampler(); break;
	case TS_VME: t = ty_vme(); break;
	case TS_STRUCT_DEF: t = sema_struct_decl(S, ts->def); break;
	case TS_ENUM_DEF: t = sema_enum_decl(S, ts->def); break;
	default:
		error_at(ts->loc, "'auto' is not allowed here");
		t = ty_error();
		break;
	}
	if (ts->is_pointer && !ty_is_error(t)) {
		error_at(ts->loc, "pointer types are not supported in CM");
		t = ty_error();
	}
	if (ts->is_const)
		t = ty_with_const(t, true);
	ts->resolved = t;
	return t;
}

Type *sema_targ_type(Sema *S, TemplArg *ta, const char *what)
{
	if (ta->ts)
		return sema_typespec(S, ta->ts);
	if (ta->expr && ta->expr->kind == ND_IDENT) {
		Sym *s = sema_lookup(S, ta->expr->name);
		if (s && s->kind == SYM_TYPE)
			return s->ty;
	}
	error_at(ta->loc, "%s must be a type", what);
	return ty_error();
}

bool sema_targ_int(Sema *S, TemplArg *ta, const char *what, int64_t *out)
{
	if (ta->ts) {
		Type *t = sema_typespec(S, ta->ts);
		error_at(ta->loc, "%s must be an integer constant, but '%s' is a type", what, ty_str(t));
		return false;
	}
	return sema_const_int(S, ta->expr, what, out);
}


/* ------------------------------------------------------------ recursion */

typedef struct {
	Sema *S;
	char *color;              /* by sym id: 0 new, 1 on stack, 2 done */
	char *hcolor;             /* the same for header symbols */
	VEC(Edge *) path;
} Dfs;

static void report_cycle(Dfs *d, Sym *to)
{
	int start = d->path.len - 1;
	while (start > 0 && d->path.data[start]->from != to)
		start--;
	Edge *first = d->path.data[start];
	if (first->to == to) {
		diag_at(DIAG_ERROR, first->loc, first->len,
		        "recursion is not allowed in CM: '%s' calls itself", to->name);
		return;
	}
	Buf b = {0};
	for (int i = start; i < d->path.len - 1; i++)
		buf_printf(&b, "%s'%s'", i > start ? ", " : "", d->path.data[i]->to->name);
	diag_at(DIAG_ERROR, first->loc, first->len,
	        "recursion is not allowed in CM: '%s' calls itself through %s", to->name,
	        buf_cstr(&b));
	buf_free(&b);
}

static char *color(Dfs *d, Sym *s)
{
	return s->id > HEADER_IDS ? &d->hcolor[s->id - HEADER_IDS] : &d->color[s->id];
}

static void dfs(Dfs *d, Sym *s)
{
	*color(d, s) = 1;
	for (int i = 0; i < d->S->edges.len; i++) {
		Edge *e = &d->S->edges.data[i];
		if (e->from != s || !e->to)
			continue;
		vec_push(&d->path, e);
		if (*color(d, e->to) == 1)
			report_cycle(d, e->to);
		else if (!*color(d, e->to))
			dfs(d, e->to);
		d->path.len--;
	}
	*color(d, s) = 2;
}

static void check_recursion(Sema *S)
{
	Dfs d = {S, xcalloc((size_t)S->next_id + 1, 1), xcalloc((size_t)S->header_ids + 1, 1), {0}};
	for (int i = 0; i < S->edges.len; i++) {
		Sym *s = S->edges.data[i].from;
		if (s && !*color(&d, s))
			dfs(&d, s);
	}
	free(d.color);
	free(d.hcolor);
	vec_free(&d.path);
}

bool sema_unit(Arena *a, Node *unit, const SemaOptions *opt)
{
	Sema S = {0};
	S.a = a;
	S.opt = opt ? opt : &S.defopt;
	S.unit = unit;
	int errs = diag_state.errors;
	sema_push_scope(&S);
	S.global = S.scope;
	sema_declare_builtins(&S, &S.global->names);
	sema_predeclare_types(&S);
	for (int i = 0; i < unit->args.len && !diag_too_many(); i++)
		sema_top_decl(&S, unit->args.data[i]);
	check_recursion(&S);
	for (int i = 0; i < S.kept.len; i++)
		map_free(&S.kept.data[i]->names);
	vec_free(&S.kept);
	map_free(&S.global->names);
	map_free(&S.instances);
	vec_free(&S.edges);
	vec_free(&S.using_ns);
	unit->ty = ty_void();
	return diag_state.errors == errs;
}
