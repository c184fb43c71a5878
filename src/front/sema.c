/* sema.c — declarations, statements, scopes, templates, overloads.
 *
 * sema_unit walks the top-level declarations in order.  Names live in a
 * chain of Scopes (block scoping; the global scope holds the builtins, the
 * predeclared typedefs and user declarations; a namespace's members are
 * also entered in the global scope under "ns::name").  A function body is
 * checked with a FnCtx that tracks loops, switches, labels and gotos, the
 * SIMD control-flow width and the return type.
 *
 * Templates are not checked where they are declared.  A call to one binds
 * its parameters (explicit arguments, deduction from the argument types,
 * defaults), then instantiates it: the FUNC is cloned (ast_clone), the
 * parameters are bound as SYM_TYPE / SYM_VALUE in a scope above the
 * template's own, and the clone is checked like any function and appended to
 * the unit with inst_of set.  Instances are cached by (template, arguments).
 *
 * Every call between user functions is recorded; after the unit is checked
 * the call graph is searched for cycles, since CM has no recursion.
 *
 * SIMD control flow: an `if`/`do-while` whose condition is a call to
 * __cm_simdcf_any(mask) (what SIMD_IF_BEGIN and friends expand to) gets
 * simd = true, simd_width = the mask's element count, and cond = the mask
 * itself (the __cm_simdcf_any call is dropped).
 */
#include <stdlib.h>
#include <string.h>

#include "front.h"

typedef struct Scope Scope;
struct Scope {
	Map names;
	Scope *up;
	const char *ns;           /* namespace scope: qualified prefix */
	int *block_end;           /* statement sequence number where the block ends */
};

typedef struct {
	Node *decl;               /* an initialized local declaration */
	int seq;
	int *block_end;
} DeclMark;

typedef struct {
	Node *node;
	int seq;
} Mark;

enum { BRK_LOOP, BRK_SIMD_LOOP, BRK_SWITCH };

typedef struct {
	int kind;
	int simd_width;           /* SIMD width where the statement was entered */
} Breakable;

typedef struct {
	Type *ty;                 /* controlling type */
	VEC(Node *) cases;
	Node *deflt;
} Switch;

/* Per-function checking state. */
typedef struct {
	Node *fn;
	Sym *sym;
	Type *ret;                /* NULL while an auto return type is not deduced */
	bool ret_auto;
	int seq;                  /* statements visited (for goto checks) */
	VEC(Breakable) brk;
	Switch *sw;
	int simd_width;
	Loc simd_loc;
	Map labels;               /* name -> Mark* */
	VEC(Mark) gotos;
	VEC(DeclMark) decls;
} FnCtx;

typedef struct {
	Sym *from, *to;
	Loc loc;
	int len;
} Edge;

/* SYM_TEMPLATE's private data (in sym->ir: lowering never sees templates). */
typedef struct {
	Scope *scope;             /* where the template was declared */
} TemplInfo;

struct Sema {
	Arena *a;
	const SemaOptions *opt;
	SemaOptions defopt;
	Node *unit;
	Scope *scope, *global;
	FnCtx *fx;
	int next_id, header_ids;
	VEC(const char *) using_ns;
	Map instances;            /* "id:f<args>" -> Sym* */
	VEC(Edge) edges;
	VEC(Scope *) kept;        /* namespace and binding scopes, freed at the end */
};

#define HEADER_IDS 1000000

static void stmt(Sema *S, Node *s);
static void top_decl(Sema *S, Node *d);
static Type *enum_decl(Sema *S, Node *d);
static Type *struct_decl(Sema *S, Node *d);

Arena *sema_arena(Sema *S) { return S->a; }
int sema_simd_width(Sema *S) { return S->fx ? S->fx->simd_width : 0; }

static bool bad(const Node *e) { return !e || ty_is_error(e->ty); }

static int nlen(const char *s) { return s ? (int)strlen(s) : 1; }

static Loc name_loc(const Node *d) { return d->name_loc.line ? d->name_loc : d->loc; }

/* --------------------------------------------------------------- scopes */

static Scope *push_scope(Sema *S)
{
	Scope *sc = NEW(S->a, Scope);
	sc->up = S->scope;
	sc->ns = S->scope ? S->scope->ns : NULL;
	S->scope = sc;
	return sc;
}

static void pop_scope(Sema *S, bool keep)
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

static Sym *new_sym(Sema *S, SymKind k, const char *name, Type *ty, Loc loc, Node *decl)
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

static void enter(Sema *S, Sym *s)
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
static bool declare(Sema *S, Sym *s)
{
	if (!s->name)
		return true;
	Sym *old = map_get(&S->scope->names, s->name);
	if (old && old->kind == SYM_BUILTIN && S->scope == S->global) {
		enter(S, s);
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
	enter(S, s);
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

static bool check_dim(Sema *S, Node *d, const char *what, int *out)
{
	int64_t v;
	if (!d || !sema_const_int(S, d, what, &v))
		return false;
	if (v <= 0 || v > 1 << 20) {
		diag_at(DIAG_ERROR, d->loc, d->len > 0 ? d->len : 1,
		        "%s must be positive, got %lld", what, (long long)v);
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
	ok &= check_dim(S, ts->dims[0], vec ? "vector size" : "matrix row count", &r);
	if (!vec)
		ok &= check_dim(S, ts->dims[1], "matrix column count", &c);
	if (!ok)
		return ty_error();
	Type *t = vec ? ty_vector(el, r) : ty_matrix(el, r, c);
	int limit = S->opt->max_vm_bytes > 0 ? S->opt->max_vm_bytes : 4096;
	if (t->size >= limit) {
		error_at(ts->loc, "'%s' is %d bytes; a vector or matrix must be smaller than %d bytes",
		         ty_str(t), t->size, limit);
		return ty_error();
	}
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
	case TS_STRUCT_DEF: t = struct_decl(S, ts->def); break;
	case TS_ENUM_DEF: t = enum_decl(S, ts->def); break;
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

/* --------------------------------------------------------- declarations */

static Type *enum_decl(Sema *S, Node *d)
{
	Type *t = ty_nominal(TY_ENUM, d->name);
	if (d->name) {
		Sym *s = new_sym(S, SYM_TYPE, d->name, t, name_loc(d), d);
		declare(S, s);
		t->tag = s;
	}
	d->ty = t;
	int64_t next = 0;
	for (int i = 0; i < d->args.len; i++) {
		Node *en = d->args.data[i];
		int64_t v = next;
		bool ok = !en->lhs || sema_const_int(S, en->lhs, "enumerator value", &v);
		en->ival = (uint64_t)v;
		en->ty = t;
		Sym *s = new_sym(S, SYM_ENUM_CONST, en->name, ok ? t : ty_error(), name_loc(en), en);
		s->cval = v;
		en->sym = s;
		declare(S, s);
		next = v + 1;
	}
	return t;
}

static Type *struct_decl(Sema *S, Node *d)
{
	Type *t = ty_nominal(TY_STRUCT, d->name);
	Sym *s = NULL;
	if (d->name) {
		s = new_sym(S, SYM_TYPE, d->name, t, name_loc(d), d);
		declare(S, s);
		t->tag = s;
	}
	d->ty = t;
	d->sym = s;
	int n = d->args.len, off = 0, align = 1;
	Field *f = xcalloc((size_t)(n ? n : 1), sizeof(Field));
	for (int i = 0; i < n; i++) {
		Node *fd = d->args.data[i];
		Type *ft = sema_typespec(S, fd->ts);
		fd->ty = ft;
		if (ty_is_error(ft))
			continue;
		if (ft->is_ref || fd->ts->is_ref) {
			error_at(fd->ts->loc, "struct field '%s' cannot be a reference ('%s')",
			         fd->name, ty_str(ft));
			continue;
		}
		if (fd->args2.len || ft->kind == TY_VOID || ft->kind == TY_SURFACE) {
			error_at(name_loc(fd), "struct field '%s' must be a scalar, vector, matrix or struct",
			         fd->name);
			continue;
		}
		for (int j = 0; j < i; j++)
			if (f[j].name == fd->name) {
				diag_at(DIAG_ERROR, name_loc(fd), nlen(fd->name), "duplicate member '%s'", fd->name);
				note_at(f[j].loc, "previous declaration is here");
			}
		off = (off + ft->align - 1) / ft->align * ft->align;
		f[t->nfields++] = (Field){fd->name, ft, off, name_loc(fd)};
		off += ft->size;
		if (ft->align > align)
			align = ft->align;
	}
	t->fields = f;
	t->align = align;
	t->size = (off + align - 1) / align * align;
	return t;
}

static void typedef_decl(Sema *S, Node *d)
{
	Type *t = sema_typespec(S, d->ts);
	d->ty = t;
	Sym *s = new_sym(S, SYM_TYPE, d->name, t, name_loc(d), d);
	d->sym = s;
	declare(S, s);
}

/* Collects the scalar leaves of a (nested) initializer list. */
static void flatten_init(Sema *S, Node *init, NodeList *out)
{
	if (init && init->kind == ND_INIT_LIST) {
		for (int i = 0; i < init->args.len; i++)
			flatten_init(S, init->args.data[i], out);
	} else if (init) {
		nl_push(S->a, out, init);
	}
}

/* A file-scope const array: dims (the first may be empty), values folded.
 * d->init becomes a flat INIT_LIST of the converted constants. */
static Type *array_decl(Sema *S, Node *d, Type *elem, bool global)
{
	if (!global) {
		error_at(name_loc(d), "local arrays are not supported in CM; use a vector or matrix");
		return ty_error();
	}
	if (!elem->is_const || !d->init) {
		error_at(name_loc(d), "file-scope array '%s' must be const and initialized", d->name);
		return ty_error();
	}
	if (!ty_is_scalar(elem) || ty_is_error(elem)) {
		error_at(name_loc(d), "array elements must be scalars, not '%s'", ty_str(elem));
		return ty_error();
	}
	NodeList leaves = {0};
	flatten_init(S, d->init, &leaves);
	int nd = d->args2.len, dims[8] = {0}, inner = 1;
	if (nd > 8) {
		error_at(name_loc(d), "too many array dimensions");
		return ty_error();
	}
	for (int i = nd - 1; i >= 0; i--) {
		Node *x = d->args2.data[i];
		if (!x && i == 0)
			break;
		if (!check_dim(S, x, "array size", &dims[i]))
			return ty_error();
		if (i > 0)
			inner *= dims[i];
	}
	if (!dims[0])
		dims[0] = (leaves.len + inner - 1) / inner > 0 ? (leaves.len + inner - 1) / inner : 1;
	if (leaves.len > dims[0] * inner) {
		error_at(d->init->loc, "excess elements in array initializer (%d for %d)",
		         leaves.len, dims[0] * inner);
		return ty_error();
	}
	Node *flat = node_new(S->a, ND_INIT_LIST, d->init->loc);
	Type *be = ty_base(elem);
	for (int i = 0; i < leaves.len; i++) {
		Node *v = sema_convert(S, leaves.data[i], be, false, "array initializer");
		if (!bad(v) && !v->has_value)
			error_at(v->loc, "array initializer element is not a constant");
		nl_push(S->a, &flat->args, v);
	}
	Type *t = elem;
	for (int i = nd - 1; i >= 0; i--)
		t = ty_array(t, dims[i]);
	flat->ty = t;
	d->init = flat;
	return t;
}

static void init_scalar(Sema *S, Node *d, Type *t)
{
	Node *init = d->init;
	if (!init && d->args.len) {
		if (d->args.len > 1) {
			error_at(name_loc(d), "too many initializers for '%s' of type '%s'", d->name, ty_str(t));
			return;
		}
		init = d->args.data[0];
	}
	if (!init)
		return;
	if (init->kind == ND_INIT_LIST) {
		if (t->kind == TY_STRUCT) {
			if (init->args.len > t->nfields)
				error_at(init->loc, "excess elements in struct initializer");
			for (int i = 0; i < init->args.len && i < t->nfields; i++)
				init->args.data[i] = sema_convert(S, init->args.data[i], t->fields[i].ty,
				                                  false, "initializer");
			init->ty = ty_base(t);
			d->init = init;
			return;
		}
		if (init->args.len != 1) {
			error_at(init->loc, "scalar initializer for '%s' must have one element", d->name);
			return;
		}
		init = init->args.data[0];
	}
	const char *what = arena_printf(S->a, "initialization of '%s'", d->name);
	d->init = sema_convert(S, init, ty_base(t), false, what);
	if (d->args.len)
		d->args.data[0] = d->init;
}

static void check_simd_width(Sema *S, Node *at, Type *t);

static void var_decl(Sema *S, Node *d, bool global)
{
	TypeSpec *ts = d->ts;
	Type *t;
	if (ts->kind == TS_AUTO) {
		Node *init = d->init ? d->init : d->args.len == 1 ? d->args.data[0] : NULL;
		if (!init || init->kind == ND_INIT_LIST) {
			error_at(name_loc(d), "declaration of '%s' with type 'auto' needs an initializer",
			         d->name);
			t = ty_error();
		} else {
			init = sema_rvalue(S, init);
			d->init = init;
			d->args.len = 0;
			t = ty_base(init->ty);
			if (t->kind == TY_STRING || t->kind == TY_VOID)
				t = ty_error();
			if (ts->is_const || (d->dspec & DS_CONSTEXPR))
				t = ty_with_const(t, true);
		}
		ts->resolved = t;
	} else {
		t = sema_typespec(S, ts);
		if ((d->dspec & DS_CONSTEXPR) && !ty_is_error(t))
			t = ty_with_const(t, true);
	}
	if (ts->is_ref && !ty_is_vm(t) && !ty_is_error(t)) {
		error_at(ts->loc, "C++ references are not supported in CM (only vector_ref and matrix_ref)");
		t = ty_error();
	}
	if (d->args2.len && !ty_is_error(t))
		t = array_decl(S, d, t, global);
	else if (t->kind == TY_VOID && !ty_is_error(t)) {
		error_at(name_loc(d), "variable '%s' has incomplete type 'void'", d->name);
		t = ty_error();
	}
	if ((d->dspec & DS_STATIC) && !global && !ty_is_error(t)) {
		error_at(name_loc(d), "static local variables are not supported in CM");
	}
	d->ty = t;
	Sym *s = new_sym(S, global ? SYM_GLOBAL : SYM_VAR, d->name, t, name_loc(d), d);
	d->sym = s;
	bool has_init = d->init || d->args.len;
	if (global && has_init && !t->is_const && !ty_is_error(t) && t->kind != TY_ARRAY) {
		diag_at(DIAG_ERROR, name_loc(d), nlen(d->name),
		        "global variables cannot be initialized ('%s'); only const globals can", d->name);
	} else if (!ty_is_error(t) && t->kind != TY_ARRAY && ts->kind != TS_AUTO) {
		if (ty_is_vm(t))
			sema_vm_init(S, d, t);
		else
			init_scalar(S, d, t);
	}
	if (t->kind == TY_ARRAY)
		s->is_const_array = true;
	if ((d->dspec & DS_CONSTEXPR) && !ty_is_error(t) && ty_is_scalar(t) &&
	    !(d->init && (bad(d->init) || d->init->has_value)))
		diag_at(DIAG_ERROR, name_loc(d), nlen(d->name),
		        "constexpr variable '%s' must be initialized by a constant expression", d->name);
	if (S->fx && has_init) {
		DeclMark m = {d, S->fx->seq, S->scope->block_end};
		vec_push(&S->fx->decls, m);
		check_simd_width(S, d, t);
	}
	declare(S, s);
}

/* ------------------------------------------------------------ functions */

static const char *const kernel_arg_types[] = {
	"buffer_t", "svmptr_t", "sampler_t", "image1d_t", "image1d_array_t",
	"image1d_buffer_t", "image2d_t", "image2d_array_t",
	"image2d_media_block_t", "image3d_t", NULL,
};

static const char *const kernel_arg_words[] = {
	"read_only", "write_only", "read_write", "float", "half", "int", "uint",
	"uchar", "char", "ushort", "short", "double", "unsigned", NULL,
};

static bool word_in(const char *w, size_t n, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (strlen(list[i]) == n && !strncmp(list[i], w, n))
			return true;
	return false;
}

/* [[type("image2d_t float")]]: a memory type, then optional qualifiers. */
static void check_attr_type(Node *p)
{
	const char *s = p->attr_type;
	bool first = true, ok = true;
	while (*s && ok) {
		while (*s == ' ')
			s++;
		const char *w = s;
		while (*s && *s != ' ')
			s++;
		size_t n = (size_t)(s - w);
		if (!n)
			break;
		ok = word_in(w, n, first ? kernel_arg_types : kernel_arg_words);
		first = false;
	}
	if (!ok || first) {
		Buf b = {0};
		for (int i = 0; kernel_arg_types[i]; i++)
			buf_printf(&b, "%s%s", i ? ", " : "", kernel_arg_types[i]);
		error_at(name_loc(p), "unknown kernel argument type \"%s\"; expected one of %s",
		         p->attr_type, buf_cstr(&b));
		buf_free(&b);
	}
}

static void check_kernel(Sema *S, Node *f, Type *ret)
{
	if (ret && ret->kind != TY_VOID && !ty_is_error(ret))
		error_at(f->ts->loc, "kernel '%s' must return void, not '%s'", f->name, ty_str(ret));
	for (int i = 0; i < f->params.len; i++) {
		Node *p = f->params.data[i];
		Type *t = p->ty;
		if (ty_is_error(t))
			continue;
		bool ok = (t->kind == TY_SCALAR && t->sk != SK_BOOL) || t->kind == TY_SURFACE ||
		          t->kind == TY_SAMPLER || t->kind == TY_VME ||
		          (ty_is_vm(t) && !t->is_ref);
		if (!ok || p->ts->is_ref)
			error_at(p->ts->loc, "kernel parameter '%s' has type '%s'; kernels take scalars, "
			         "vectors, matrices, SurfaceIndex, SamplerIndex or VmeIndex by value",
			         p->name ? p->name : "", ty_str(t));
		if (p->attr_type)
			check_attr_type(p);
	}
}

static Type *param_type(Sema *S, Node *p)
{
	if (p->ts->is_pointer) {
		error_at(p->ts->loc, "pointer parameters are not supported in CM%s%s%s",
		         p->name ? " (parameter '" : "", p->name ? p->name : "", p->name ? "')" : "");
		return p->ty = ty_error();
	}
	Type *t = sema_typespec(S, p->ts);
	if (t->kind == TY_VOID && !ty_is_error(t)) {
		error_at(p->ts->loc, "parameter '%s' has type 'void'", p->name ? p->name : "");
		t = ty_error();
	}
	if (p->args2.len) {
		error_at(name_loc(p), "array parameters are not supported in CM");
		t = ty_error();
	}
	return p->ty = t;
}

/* Resolves the return and parameter types; returns the function type. */
static Type *func_signature(Sema *S, Node *f, bool *ret_auto)
{
	Arena *a = S->a;
	/* f(void) */
	if (f->params.len == 1 && !f->params.data[0]->name &&
	    f->params.data[0]->ts->kind == TS_VOID && !f->params.data[0]->ts->is_pointer)
		f->params.len = 0;
	Type *ret;
	*ret_auto = f->ts->kind == TS_AUTO;
	if (*ret_auto) {
		ret = ty_void();
	} else {
		ret = sema_typespec(S, f->ts);
		if (ty_is_vm(ret) && ret->is_ref) {
			error_at(f->ts->loc, "functions cannot return '%s'; return a vector or matrix by value",
			         ty_str(ret));
			ret = ty_error();
		}
	}
	Type **ps = NEWN(a, Type *, f->params.len + 1);
	for (int i = 0; i < f->params.len; i++)
		ps[i] = param_type(S, f->params.data[i]);
	if (f->dspec & DS_SIMT)
		error_at(f->loc, "SIMT entry functions are not supported");
	if (f->dspec & DS_GENX_MAIN)
		check_kernel(S, f, ret);
	return ty_func(ty_with_const(ret, false), ps, f->params.len);
}

static void resolve_gotos(Sema *S);

static void func_body(Sema *S, Node *f, Sym *sym, bool ret_auto)
{
	FnCtx fx = {0};
	FnCtx *saved = S->fx;
	S->fx = &fx;
	fx.fn = f;
	fx.sym = sym;
	fx.ret_auto = ret_auto;
	fx.ret = ret_auto ? NULL : sym->ty->ret;
	Scope *sc = push_scope(S);
	sc->block_end = NEW(S->a, int);
	*sc->block_end = 1 << 30;
	for (int i = 0; i < f->params.len; i++) {
		Node *p = f->params.data[i];
		if (!p->name)
			continue;
		Sym *ps = new_sym(S, SYM_PARAM, p->name, p->ty, name_loc(p), p);
		p->sym = ps;
		declare(S, ps);
	}
	Node *body = f->body;
	body->ty = ty_void();
	for (int i = 0; i < body->args.len; i++)
		stmt(S, body->args.data[i]);
	*sc->block_end = ++fx.seq;
	resolve_gotos(S);
	if (ret_auto) {
		Type *r = fx.ret ? fx.ret : ty_void();
		sym->ty = ty_func(r, sym->ty->params, sym->ty->nparams);
	}
	pop_scope(S, false);
	map_free(&fx.labels);
	vec_free(&fx.gotos);
	vec_free(&fx.decls);
	vec_free(&fx.brk);
	S->fx = saved;
}

static bool same_params(const Type *a, const Type *b)
{
	if (a->nparams != b->nparams)
		return false;
	for (int i = 0; i < a->nparams; i++)
		if (a->params[i] != b->params[i])
			return false;
	return true;
}

static void func_decl(Sema *S, Node *f)
{
	bool ret_auto;
	Type *fty = func_signature(S, f, &ret_auto);
	f->ty = fty;
	Sym *head = map_get(&S->scope->names, f->name);
	Sym *sym = NULL;
	if (head && head->kind != SYM_FUNC && head->kind != SYM_TEMPLATE &&
	    head->kind != SYM_BUILTIN) {
		Sym tmp = {.kind = SYM_FUNC, .name = f->name, .loc = name_loc(f)};
		declare(S, &tmp);
		return;
	}
	if (head && head->kind == SYM_BUILTIN)
		head = NULL;
	for (Sym *o = head; o; o = o->next_overload) {
		if (o->kind != SYM_FUNC || !same_params(o->ty, fty))
			continue;
		if (o->ty->ret != fty->ret && !ret_auto) {
			diag_at(DIAG_ERROR, name_loc(f), nlen(f->name),
			        "'%s' redeclared with a different return type ('%s' vs '%s')",
			        f->name, ty_str(fty->ret), ty_str(o->ty->ret));
			note_at(o->loc, "previous declaration is here");
			return;
		}
		if (o->decl && o->decl->body && f->body) {
			diag_at(DIAG_ERROR, name_loc(f), nlen(f->name), "redefinition of '%s'", f->name);
			note_at(o->loc, "previous definition is here");
			return;
		}
		sym = o;
		break;
	}
	if (!sym) {
		sym = new_sym(S, SYM_FUNC, f->name, fty, name_loc(f), f);
		sym->is_kernel = (f->dspec & DS_GENX_MAIN) != 0;
		if (!head) {
			enter(S, sym);
		} else {
			Sym *o = head;
			while (o->next_overload)
				o = o->next_overload;
			o->next_overload = sym;
		}
	}
	if (f->body) {
		sym->decl = f;
		sym->loc = name_loc(f);
	}
	f->sym = sym;
	if (f->body)
		func_body(S, f, sym, ret_auto);
}

static void template_decl(Sema *S, Node *t)
{
	Node *f = t->lhs;
	if (!f || f->kind != ND_FUNC) {
		error_at(t->loc, "only function templates are supported in CM");
		return;
	}
	Sym *sym = new_sym(S, SYM_TEMPLATE, f->name, NULL, name_loc(f), t);
	TemplInfo *ti = NEW(S->a, TemplInfo);
	ti->scope = S->scope;
	sym->ir = ti;
	t->sym = sym;
	Sym *head = map_get(&S->scope->names, f->name);
	if (!head || head->kind == SYM_BUILTIN) {
		enter(S, sym);
	} else if (head->kind == SYM_FUNC || head->kind == SYM_TEMPLATE) {
		Sym *o = head;
		while (o->next_overload)
			o = o->next_overload;
		o->next_overload = sym;
	} else {
		declare(S, sym);
	}
}

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
			s = new_sym(S, SYM_TYPE, tp->name, b[i].ty, tp->loc, NULL);
		} else {
			Scope *saved = S->scope;
			S->scope = sc;
			Type *vt = value_param_type(S, tp);
			S->scope = saved;
			s = new_sym(S, SYM_VALUE, tp->name, vt, tp->loc, NULL);
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

/* The instance of template c->sym for c's bindings, checked on first use. */
static Sym *instantiate(Sema *S, Cand *c, Node *call)
{
	Node *t = c->sym->decl;
	const char *name = inst_name(S, t, c->b);
	const char *key = intern_cstr(arena_printf(S->a, "%d:%s", c->sym->id, name));
	Sym *is = map_get(&S->instances, key);
	if (is)
		return is;
	Node *f = ast_clone(S->a, t->lhs);
	f->inst_of = t;
	is = new_sym(S, SYM_FUNC, name, NULL, name_loc(t->lhs), f);
	f->sym = is;
	map_put(&S->instances, key, is);
	nl_push(S->a, &S->unit->args, f);
	Scope *saved = S->scope;
	S->scope = c->scope;
	int errs = diag_state.errors;
	bool ret_auto;
	is->ty = func_signature(S, f, &ret_auto);
	f->ty = is->ty;
	if (f->body)
		func_body(S, f, is, ret_auto);
	else
		error_at(name_loc(t->lhs), "function template '%s' is used but never defined", name);
	S->scope = saved;
	if (diag_state.errors != errs)
		note_at(call->loc, "in instantiation of '%s' requested here", name);
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

/* -1: a better, 1: b better, 0: neither */
static int compare(const Cand *a, const Cand *b, int n)
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
	if (!abetter && (a->sym->kind == SYM_TEMPLATE) != (b->sym->kind == SYM_TEMPLATE))
		return a->sym->kind == SYM_TEMPLATE ? 1 : -1;
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
		if (!best || compare(&cs[i], best, call->args.len) < 0)
			best = &cs[i];
	}
	for (int i = 0; i < n; i++) {
		if (!cs[i].viable || &cs[i] == best)
			continue;
		if (compare(best, &cs[i], call->args.len) >= 0) {
			diag_at(DIAG_ERROR, at, nlen(name), "call to '%s' is ambiguous", name);
			for (int j = 0; j < n; j++)
				if (cs[j].viable && compare(best, &cs[j], call->args.len) >= 0)
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

/* ----------------------------------------------------------- statements */

static void cond_expr(Sema *S, Node **cp, const char *what)
{
	Node *c = *cp = sema_rvalue(S, *cp);
	if (bad(c))
		return;
	if (ty_is_vm(c->ty)) {
		diag_at(DIAG_ERROR, c->loc, c->len > 0 ? c->len : 1,
		        "condition must be a scalar, not '%s'; use .any() or .all()", ty_str(c->ty));
		return;
	}
	*cp = sema_convert(S, c, ty_scalar(SK_BOOL), false, what);
}

/* The mask of a __cm_simdcf_any(mask) condition, or NULL. */
static Node *simd_mask(Node *cond)
{
	if (!cond || cond->kind != ND_CALL || !cond->lhs || cond->lhs->kind != ND_IDENT ||
	    !cond->args.len || !cond->lhs->name || !strstr(cond->lhs->name, "simdcf_any"))
		return NULL;
	return cond->args.data[0];
}

/* Checks a SIMD control-flow condition and enters its width.  Returns the
 * previous width, to be restored. */
static int simd_enter(Sema *S, Node *s, Node *mask)
{
	FnCtx *fx = S->fx;
	int old = fx->simd_width;
	mask = sema_rvalue(S, mask);
	s->cond = mask;
	s->simd = true;
	if (bad(mask))
		return old;
	if (!ty_is_vm(mask->ty) && old && ty_is_scalar(mask->ty)) {
		/* inside SIMD control flow a scalar condition is broadcast to the
		 * enclosing width (cm-language.md §5.2) */
		mask = sema_convert(S, mask, ty_vector(ty_scalar(SK_USHORT), old), false,
		                    "the SIMD condition");
		s->cond = mask;
		if (bad(mask))
			return old;
	}
	int w = ty_elems(mask->ty);
	if (!ty_is_vm(mask->ty)) {
		error_at(mask->loc, "SIMD control flow needs a vector or matrix condition, not '%s'",
		         ty_str(mask->ty));
		return old;
	}
	if (w < 2 || w > 32 || (w & (w - 1))) {
		error_at(mask->loc, "SIMD control flow width must be a power of two from 2 to 32, "
		         "but '%s' has %d elements", ty_str(mask->ty), w);
		return old;
	}
	if (old && w != old) {
		error_at(mask->loc, "nested SIMD control flow has width %d, but the enclosing "
		         "SIMD control flow has width %d", w, old);
		note_at(fx->simd_loc, "enclosing SIMD control flow is here");
		return old;
	}
	s->simd_width = w;
	fx->simd_width = w;
	if (!old)
		fx->simd_loc = s->loc;
	return old;
}

static bool no_scalar_cf(Sema *S, Node *s, const char *what)
{
	if (!S->fx->simd_width)
		return true;
	diag_at(DIAG_ERROR, s->loc, nlen(what),
	        "'%s' is not allowed inside SIMD control flow", what);
	note_at(S->fx->simd_loc, "SIMD control flow begins here");
	return false;
}

/* Inside SIMD control flow a statement writes 1 or simd-width elements. */
static void check_simd_width(Sema *S, Node *at, Type *t)
{
	int w = S->fx ? S->fx->simd_width : 0;
	if (!w || ty_is_error(t) || !ty_is_vm(t))
		return;
	if (t->n != 1 && t->n != w)
		error_at(at->loc, "statement of width %d ('%s') inside SIMD control flow of width %d",
		         t->n, ty_str(t), w);
}

static void expr_stmt(Sema *S, Node *s)
{
	Node *e = s->lhs = sema_expr(S, s->lhs);
	if (bad(e) || !S->fx->simd_width)
		return;
	switch (e->kind) {
	case ND_ASSIGN:
	case ND_UNARY:
	case ND_POSTFIX:
		check_simd_width(S, e, e->lhs ? e->lhs->ty : e->ty);
		break;
	case ND_CALL:
	case ND_MEMBER_CALL:
		break;
	default:
		if (ty_is_vm(e->ty))
			error_at(e->loc, "inside SIMD control flow an expression statement needs a "
			         "destination (its width cannot be determined)");
	}
}

static void push_brk(Sema *S, int kind)
{
	Breakable b = {kind, S->fx->simd_width};
	vec_push(&S->fx->brk, b);
}

static void loop_body(Sema *S, Node *body, int kind)
{
	push_brk(S, kind);
	stmt(S, body);
	S->fx->brk.len--;
}

static void stmt_if(Sema *S, Node *s)
{
	Node *mask = simd_mask(s->cond);
	if (mask) {
		int old = simd_enter(S, s, mask);
		stmt(S, s->then);
		stmt(S, s->els);
		S->fx->simd_width = old;
		return;
	}
	if (!no_scalar_cf(S, s, "if"))
		return;
	cond_expr(S, &s->cond, "condition");
	stmt(S, s->then);
	stmt(S, s->els);
}

static void stmt_do(Sema *S, Node *s)
{
	Node *mask = simd_mask(s->cond);
	if (mask) {
		int old = S->fx->simd_width;
		Node tmp = *s;
		int w = simd_enter(S, &tmp, mask);
		(void)w;
		s->simd = true;
		s->simd_width = tmp.simd_width;
		s->cond = tmp.cond;
		loop_body(S, s->body, BRK_SIMD_LOOP);
		S->fx->simd_width = old;
		return;
	}
	if (!no_scalar_cf(S, s, "do"))
		return;
	loop_body(S, s->body, BRK_LOOP);
	cond_expr(S, &s->cond, "condition");
}

static void stmt_for(Sema *S, Node *s)
{
	if (!no_scalar_cf(S, s, s->kind == ND_FOR ? "for" : "while"))
		return;
	Scope *sc = push_scope(S);
	sc->block_end = NEW(S->a, int);   /* the init's names end with the loop */
	*sc->block_end = 1 << 30;
	if (s->init)
		stmt(S, s->init);
	if (s->cond)
		cond_expr(S, &s->cond, "condition");
	if (s->inc)
		s->inc = sema_expr(S, s->inc);
	loop_body(S, s->body, BRK_LOOP);
	*sc->block_end = ++S->fx->seq;
	pop_scope(S, false);
}

static void stmt_switch(Sema *S, Node *s)
{
	if (!no_scalar_cf(S, s, "switch"))
		return;
	Node *c = s->cond = sema_rvalue(S, s->cond);
	Switch sw = {0};
	if (!bad(c)) {
		if (!ty_is_integer(ty_base(c->ty)) && !bad(c))
			error_at(c->loc, "switch condition must be an integer scalar, not '%s'",
			         ty_str(c->ty));
		else if (ty_base(c->ty)->kind != TY_ENUM)
			s->cond = sema_convert(S, c, sema_common_elem(c->ty, c->ty), false, "switch");
	}
	sw.ty = bad(s->cond) ? NULL : ty_base(s->cond->ty);
	Switch *saved = S->fx->sw;
	S->fx->sw = &sw;
	push_brk(S, BRK_SWITCH);
	stmt(S, s->body);
	S->fx->brk.len--;
	S->fx->sw = saved;
	vec_free(&sw.cases);
}

static void stmt_case(Sema *S, Node *s)
{
	Switch *sw = S->fx->sw;
	if (!sw) {
		error_at(s->loc, "'%s' statement not in switch statement",
		         s->kind == ND_CASE ? "case" : "default");
		stmt(S, s->body);
		return;
	}
	if (s->kind == ND_DEFAULT) {
		if (sw->deflt) {
			error_at(s->loc, "multiple default labels in one switch");
			note_at(sw->deflt->loc, "previous default label is here");
		}
		sw->deflt = s;
	} else {
		int64_t v;
		if (sema_const_int(S, s->lhs, "case value", &v)) {
			if (sw->ty)
				s->lhs = sema_convert(S, s->lhs, sw->ty, false, "case value");
			s->cval = s->lhs->has_value ? s->lhs->cval : v;
			for (int i = 0; i < sw->cases.len; i++)
				if (sw->cases.data[i]->cval == s->cval) {
					error_at(s->lhs->loc, "duplicate case value %lld", (long long)s->cval);
					note_at(sw->cases.data[i]->lhs->loc, "previous case is here");
					break;
				}
			vec_push(&sw->cases, s);
		}
	}
	stmt(S, s->body);
}

static void stmt_jump(Sema *S, Node *s)
{
	FnCtx *fx = S->fx;
	bool is_break = s->kind == ND_BREAK;
	const char *what = is_break ? "break" : "continue";
	for (int i = fx->brk.len - 1; i >= 0; i--) {
		Breakable *b = &fx->brk.data[i];
		if (!is_break && b->kind == BRK_SWITCH)
			continue;
		if (b->kind == BRK_SIMD_LOOP) {
			s->simd = true;
			s->simd_width = fx->simd_width;
		} else if (fx->simd_width && !b->simd_width) {
			error_at(s->loc, "'%s' cannot leave SIMD control flow (use SIMD_BREAK/SIMD_CONTINUE "
			         "in a SIMD do-while)", what);
		}
		return;
	}
	error_at(s->loc, is_break ? "'break' statement not in loop or switch statement"
	                          : "'continue' statement not in loop statement");
}

static void stmt_return(Sema *S, Node *s)
{
	FnCtx *fx = S->fx;
	if (!no_scalar_cf(S, s, "return"))
		return;
	if (s->lhs)
		s->lhs = sema_rvalue(S, s->lhs);
	if (s->lhs && bad(s->lhs))
		return;
	if (fx->ret_auto && !fx->ret) {
		fx->ret = s->lhs ? ty_base(s->lhs->ty) : ty_void();
		return;
	}
	Type *r = fx->ret;
	if (ty_is_error(r))
		return;
	if (r->kind == TY_VOID) {
		if (s->lhs && s->lhs->ty->kind != TY_VOID)
			error_at(s->lhs->loc, "void function '%s' should not return a value",
			         fx->sym->name);
		return;
	}
	if (!s->lhs) {
		error_at(s->loc, "non-void function '%s' should return a value of type '%s'",
		         fx->sym->name, ty_str(r));
		return;
	}
	s->lhs = sema_convert(S, s->lhs, r, false, "return value");
}

static void stmt_label(Sema *S, Node *s)
{
	FnCtx *fx = S->fx;
	Mark *old = map_get(&fx->labels, s->name);
	if (old) {
		diag_at(DIAG_ERROR, s->loc, nlen(s->name), "redefinition of label '%s'", s->name);
		note_at(old->node->loc, "previous definition is here");
	} else {
		Mark *m = NEW(S->a, Mark);
		m->node = s;
		m->seq = fx->seq;
		map_put(&fx->labels, s->name, m);
	}
	stmt(S, s->body);
}

/* A goto may not jump into the scope of an initialized declaration. */
static void resolve_gotos(Sema *S)
{
	FnCtx *fx = S->fx;
	for (int i = 0; i < fx->gotos.len; i++) {
		Mark *g = &fx->gotos.data[i];
		Mark *l = map_get(&fx->labels, g->node->name);
		if (!l) {
			diag_at(DIAG_ERROR, g->node->loc, 4, "use of undeclared label '%s'", g->node->name);
			continue;
		}
		for (int j = 0; j < fx->decls.len; j++) {
			DeclMark *d = &fx->decls.data[j];
			int end = d->block_end ? *d->block_end : 1 << 30;
			bool label_in = d->seq < l->seq && l->seq < end;
			bool goto_in = d->seq < g->seq && g->seq < end;
			if (label_in && !goto_in) {
				diag_at(DIAG_ERROR, g->node->loc, 4,
				        "cannot jump from this goto statement to label '%s'", g->node->name);
				note_at(name_loc(d->decl), "jump bypasses the initialization of '%s'",
				        d->decl->name);
				break;
			}
		}
	}
}

static void stmt_static_assert(Sema *S, Node *s)
{
	Node *c = s->lhs = sema_rvalue(S, s->lhs);
	if (bad(c))
		return;
	if (!c->has_value || !ty_is_scalar(ty_base(c->ty))) {
		error_at(c->loc, "static_assert condition is not a constant expression");
		return;
	}
	if (ty_is_float(c->ty) ? c->cfval == 0 : c->cval == 0) {
		if (s->str)
			error_at(s->loc, "static assertion failed: %s", s->str);
		else
			error_at(s->loc, "static assertion failed");
	}
}

static void stmt_block(Sema *S, Node *s)
{
	Scope *sc = push_scope(S);
	sc->block_end = NEW(S->a, int);
	*sc->block_end = 1 << 30;
	for (int i = 0; i < s->args.len; i++)
		stmt(S, s->args.data[i]);
	*sc->block_end = ++S->fx->seq;
	pop_scope(S, false);
}

static void local_decl(Sema *S, Node *d)
{
	switch (d->kind) {
	case ND_VAR_DECL: var_decl(S, d, false); break;
	case ND_TYPEDEF: typedef_decl(S, d); break;
	case ND_ENUM_DECL: enum_decl(S, d); break;
	case ND_STRUCT_DECL: struct_decl(S, d); break;
	case ND_STATIC_ASSERT: stmt_static_assert(S, d); break;
	default: error_at(d->loc, "this declaration is not allowed inside a function");
	}
}

static void stmt(Sema *S, Node *s)
{
	if (!s)
		return;
	FnCtx *fx = S->fx;
	fx->seq++;
	if (!s->ty)
		s->ty = ty_void();
	switch (s->kind) {
	case ND_BLOCK: stmt_block(S, s); break;
	case ND_DECL_STMT:
		if (s->lhs)
			local_decl(S, s->lhs);
		for (int i = 0; i < s->args.len; i++)
			local_decl(S, s->args.data[i]);
		break;
	case ND_VAR_DECL:
	case ND_TYPEDEF:
	case ND_ENUM_DECL:
	case ND_STRUCT_DECL:
		local_decl(S, s);
		break;
	case ND_EXPR_STMT: expr_stmt(S, s); break;
	case ND_IF: stmt_if(S, s); break;
	case ND_FOR:
	case ND_WHILE: stmt_for(S, s); break;
	case ND_DO: stmt_do(S, s); break;
	case ND_SWITCH: stmt_switch(S, s); break;
	case ND_CASE:
	case ND_DEFAULT: stmt_case(S, s); break;
	case ND_BREAK:
	case ND_CONTINUE: stmt_jump(S, s); break;
	case ND_GOTO:
		if (no_scalar_cf(S, s, "goto")) {
			Mark m = {s, fx->seq};
			vec_push(&fx->gotos, m);
		}
		break;
	case ND_LABEL: stmt_label(S, s); break;
	case ND_RETURN: stmt_return(S, s); break;
	case ND_NULL_STMT: break;
	case ND_STATIC_ASSERT: stmt_static_assert(S, s); break;
	case ND_ASM:
		error_at(s->loc, "inline assembly is not supported by cmetal (no vISA on PTX or x86)");
		break;
	default:
		s->ty = NULL;
		s = sema_expr(S, s);
		break;
	}
}

/* --------------------------------------------------------------- unit */

static void namespace_decl(Sema *S, Node *d)
{
	Scope *sc = push_scope(S);
	sc->ns = sc->up->ns ? intern_cstr(arena_printf(S->a, "%s::%s", sc->up->ns, d->name))
	                    : d->name;
	for (int i = 0; i < d->args.len; i++)
		top_decl(S, d->args.data[i]);
	pop_scope(S, true);
}

static void top_decl(Sema *S, Node *d)
{
	if (!d || d->inst_of)
		return;
	switch (d->kind) {
	case ND_VAR_DECL: var_decl(S, d, true); break;
	case ND_DECL_STMT:
		if (d->lhs)
			top_decl(S, d->lhs);
		for (int i = 0; i < d->args.len; i++)
			top_decl(S, d->args.data[i]);
		break;
	case ND_FUNC: func_decl(S, d); break;
	case ND_TEMPLATE: template_decl(S, d); break;
	case ND_TYPEDEF: typedef_decl(S, d); break;
	case ND_STRUCT_DECL: struct_decl(S, d); break;
	case ND_ENUM_DECL: enum_decl(S, d); break;
	case ND_NAMESPACE: namespace_decl(S, d); break;
	case ND_USING_NS: {
		const char *n = d->name;
		vec_push(&S->using_ns, n);
		break;
	}
	case ND_STATIC_ASSERT: stmt_static_assert(S, d); break;
	case ND_NULL_STMT: break;
	case ND_ASM:
		error_at(d->loc, "inline assembly is not supported by cmetal");
		break;
	default:
		error_at(d->loc, "expected a declaration");
	}
}

/* uchar, uint, int32_t, ...: typedef names that cm.h would provide. */
static void predeclare_types(Sema *S)
{
	static const struct { const char *name; ScalarKind k; } tds[] = {
		{"uchar", SK_UCHAR}, {"ushort", SK_USHORT}, {"uint", SK_UINT},
		{"U8", SK_UCHAR}, {"U16", SK_USHORT}, {"U32", SK_UINT},
		{"int8_t", SK_CHAR}, {"int16_t", SK_SHORT}, {"int32_t", SK_INT},
		{"int64_t", SK_LONG}, {"uint8_t", SK_UCHAR}, {"uint16_t", SK_USHORT},
		{"uint32_t", SK_UINT}, {"uint64_t", SK_ULONG}, {"uintptr_t", SK_ULONG},
		{"ptrdiff_t", SK_LONG}, {"size_t", SK_ULONG}, {"svmptr_t", SK_ULONG},
	};
	for (size_t i = 0; i < sizeof tds / sizeof tds[0]; i++) {
		const char *n = intern_cstr(tds[i].name);
		if (!map_get(&S->global->names, n))
			enter(S, new_sym(S, SYM_TYPE, n, ty_scalar(tds[i].k), (Loc){0}, NULL));
	}
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
	push_scope(&S);
	S.global = S.scope;
	sema_declare_builtins(&S, &S.global->names);
	predeclare_types(&S);
	for (int i = 0; i < unit->args.len && !diag_too_many(); i++)
		top_decl(&S, unit->args.data[i]);
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
