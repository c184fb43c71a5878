/* sema_decl.c — declarations: globals and locals, file-scope const arrays,
 * enums, structs, typedefs, functions and kernels, [[type]] attributes,
 * templates (declared only), namespaces and the top-level dispatch.
 *
 * A function body is checked with a FnCtx (sema.h) that tracks loops,
 * switches, labels and gotos, the SIMD control-flow width and the return
 * type; its statements are checked by sema_stmt.c.  An auto return type is
 * deduced from the body's returns.  Templates are not checked where they are
 * declared (sema_template.c instantiates them at a call).
 *
 * requires: sema.c's scopes; sets d->ty and d->sym on every declaration.
 */
#include <stdlib.h>
#include <string.h>

#include "sema.h"

/* --------------------------------------------------------- declarations */

Type *sema_enum_decl(Sema *S, Node *d)
{
	Type *t = ty_nominal(TY_ENUM, d->name);
	if (d->name) {
		Sym *s = sema_new_sym(S, SYM_TYPE, d->name, t, name_loc(d), d);
		sema_declare(S, s);
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
		Sym *s = sema_new_sym(S, SYM_ENUM_CONST, en->name, ok ? t : ty_error(), name_loc(en), en);
		s->cval = v;
		en->sym = s;
		sema_declare(S, s);
		next = v + 1;
	}
	return t;
}

Type *sema_struct_decl(Sema *S, Node *d)
{
	Type *t = ty_nominal(TY_STRUCT, d->name);
	Sym *s = NULL;
	if (d->name) {
		s = sema_new_sym(S, SYM_TYPE, d->name, t, name_loc(d), d);
		sema_declare(S, s);
		t->tag = s;
	}
	d->ty = t;
	d->sym = s;
	int n = d->args.len, align = 1, nest = 1;
	int64_t off = 0;
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
		if (ft->kind == TY_STRUCT && ft->nest >= nest)
			nest = ft->nest + 1;
		off = (off + ft->align - 1) / ft->align * ft->align;
		if (off + ft->size >= MAX_STRUCT_BYTES || nest > MAX_STRUCT_NEST) {
			error_at(name_loc(fd), nest > MAX_STRUCT_NEST ?
			         "struct '%s' nests structs more than %d levels deep" :
			         "struct '%s' is too large (%d bytes or more)", d->name ? d->name : "<anonymous>",
			         nest > MAX_STRUCT_NEST ? MAX_STRUCT_NEST : MAX_STRUCT_BYTES);
			t->fields = f;
			if (s)
				s->ty = ty_error();   /* its uses are poisoned, not diagnosed again */
			return d->ty = ty_error();
		}
		f[t->nfields++] = (Field){fd->name, ft, (int)off, name_loc(fd)};
		off += ft->size;
		if (ft->align > align)
			align = ft->align;
	}
	t->fields = f;
	t->align = align;
	t->size = (int)((off + align - 1) / align * align);
	t->nest = nest;
	return t;
}

void sema_typedef_decl(Sema *S, Node *d)
{
	Type *t = sema_typespec(S, d->ts);
	d->ty = t;
	Sym *s = sema_new_sym(S, SYM_TYPE, d->name, t, name_loc(d), d);
	d->sym = s;
	sema_declare(S, s);
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
		error_at(name_loc(d), "array '%s' must be const and initialized (a file-scope or static const array)", d->name);
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
		if (!sema_check_dim(S, x, "array size", &dims[i]))
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

/* A `static const` local (a scalar or an array with a constant
 * initializer) is a file-scope constant with a block-scoped name: the
 * only kind of static local CM allows (§9: file-scope `static const` arrays
 * are fine; cmc accepts the same inside a body). */
static bool static_const_local(Node *d, bool global)
{
	return !global && (d->dspec & DS_STATIC) &&
	       (d->ts->is_const || (d->dspec & DS_CONSTEXPR));
}

void sema_var_decl(Sema *S, Node *d, bool global)
{
	TypeSpec *ts = d->ts;
	Type *t;
	bool sconst = static_const_local(d, global);
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
		t = array_decl(S, d, t, global || sconst);
	else if (t->kind == TY_VOID && !ty_is_error(t)) {
		error_at(name_loc(d), "variable '%s' has incomplete type 'void'", d->name);
		t = ty_error();
	}
	if ((d->dspec & DS_STATIC) && !global && !ty_is_error(t) &&
	    (!sconst || !(ty_is_scalar(t) || t->kind == TY_ARRAY))) {
		error_at(name_loc(d), "static local variables are not supported in CM "
		         "(only static const scalars and arrays)");
		t = ty_error();
	}
	d->ty = t;
	Sym *s = sema_new_sym(S, global || sconst ? SYM_GLOBAL : SYM_VAR, d->name, t,
	                      name_loc(d), d);
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
	else if (sconst && !ty_is_error(t) && ty_is_scalar(t) &&
	         !(d->init && (bad(d->init) || d->init->has_value)))
		diag_at(DIAG_ERROR, name_loc(d), nlen(d->name),
		        "static const local '%s' must be initialized by a constant expression",
		        d->name);
	if (S->fx && has_init && !sconst) {
		DeclMark m = {d, S->fx->seq, S->scope->block_end};
		vec_push(&S->fx->decls, m);
		sema_check_simd_width(S, d, t);
	}
	sema_declare(S, s);
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

/* A kernel's name is a symbol of the generated C and PTX (and what hosts
 * look it up by): PTX takes ASCII identifiers only. */
static void check_kernel_name(Node *f)
{
	for (const char *c = f->name; c && *c; c++)
		if ((unsigned char)*c >= 0x80) {
			error_at(f->loc, "kernel name '%s' is not ASCII: kernel names are symbols of the "
			         "generated PTX and C, which take letters, digits and '_'", f->name);
			return;
		}
}

static void check_kernel(Sema *S, Node *f, Type *ret)
{
	check_kernel_name(f);
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
Type *sema_func_signature(Sema *S, Node *f, bool *ret_auto)
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

void sema_func_body(Sema *S, Node *f, Sym *sym, bool ret_auto)
{
	FnCtx fx = {0};
	FnCtx *saved = S->fx;
	S->fx = &fx;
	fx.fn = f;
	fx.sym = sym;
	fx.ret_auto = ret_auto;
	fx.ret = ret_auto ? NULL : sym->ty->ret;
	Scope *sc = sema_push_scope(S);
	sc->block_end = NEW(S->a, int);
	*sc->block_end = 1 << 30;
	for (int i = 0; i < f->params.len; i++) {
		Node *p = f->params.data[i];
		if (!p->name)
			continue;
		Sym *ps = sema_new_sym(S, SYM_PARAM, p->name, p->ty, name_loc(p), p);
		p->sym = ps;
		sema_declare(S, ps);
	}
	Node *body = f->body;
	body->ty = ty_void();
	for (int i = 0; i < body->args.len; i++)
		sema_stmt(S, body->args.data[i]);
	*sc->block_end = ++fx.seq;
	sema_resolve_gotos(S);
	if (ret_auto) {
		Type *r = fx.ret ? fx.ret : ty_void();
		sym->ty = ty_func(r, sym->ty->params, sym->ty->nparams);
	}
	sema_pop_scope(S, false);
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
	Type *fty = sema_func_signature(S, f, &ret_auto);
	f->ty = fty;
	Sym *head = map_get(&S->scope->names, f->name);
	Sym *sym = NULL;
	if (head && head->kind != SYM_FUNC && head->kind != SYM_TEMPLATE &&
	    head->kind != SYM_BUILTIN) {
		Sym tmp = {.kind = SYM_FUNC, .name = f->name, .loc = name_loc(f)};
		sema_declare(S, &tmp);
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
		sym = sema_new_sym(S, SYM_FUNC, f->name, fty, name_loc(f), f);
		sym->is_kernel = (f->dspec & DS_GENX_MAIN) != 0;
		if (!head) {
			sema_enter(S, sym);
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
		sema_func_body(S, f, sym, ret_auto);
}

static void template_decl(Sema *S, Node *t)
{
	Node *f = t->lhs;
	if (!f || f->kind != ND_FUNC) {
		error_at(t->loc, "only function templates are supported in CM");
		return;
	}
	Sym *sym = sema_new_sym(S, SYM_TEMPLATE, f->name, NULL, name_loc(f), t);
	TemplInfo *ti = NEW(S->a, TemplInfo);
	ti->scope = S->scope;
	sym->ir = ti;
	t->sym = sym;
	Sym *head = map_get(&S->scope->names, f->name);
	if (!head || head->kind == SYM_BUILTIN) {
		sema_enter(S, sym);
	} else if (head->kind == SYM_FUNC || head->kind == SYM_TEMPLATE) {
		Sym *o = head;
		while (o->next_overload)
			o = o->next_overload;
		o->next_overload = sym;
	} else {
		sema_declare(S, sym);
	}
}


/* --------------------------------------------------------------- unit */

static void namespace_decl(Sema *S, Node *d)
{
	Scope *sc = sema_push_scope(S);
	sc->ns = sc->up->ns ? intern_cstr(arena_printf(S->a, "%s::%s", sc->up->ns, d->name))
	                    : d->name;
	for (int i = 0; i < d->args.len; i++)
		sema_top_decl(S, d->args.data[i]);
	sema_pop_scope(S, true);
}

void sema_top_decl(Sema *S, Node *d)
{
	if (!d || d->inst_of)
		return;
	switch (d->kind) {
	case ND_VAR_DECL: sema_var_decl(S, d, true); break;
	case ND_DECL_STMT:
		if (d->lhs)
			sema_top_decl(S, d->lhs);
		for (int i = 0; i < d->args.len; i++)
			sema_top_decl(S, d->args.data[i]);
		break;
	case ND_FUNC: func_decl(S, d); break;
	case ND_TEMPLATE: template_decl(S, d); break;
	case ND_INSTANTIATE: sema_explicit_inst(S, d); break;
	case ND_TYPEDEF: sema_typedef_decl(S, d); break;
	case ND_STRUCT_DECL: sema_struct_decl(S, d); break;
	case ND_ENUM_DECL: sema_enum_decl(S, d); break;
	case ND_NAMESPACE: namespace_decl(S, d); break;
	case ND_USING_NS: {
		const char *n = d->name;
		vec_push(&S->using_ns, n);
		break;
	}
	case ND_STATIC_ASSERT: sema_stmt_static_assert(S, d); break;
	case ND_NULL_STMT: break;
	case ND_ASM:
		error_at(d->loc, "inline assembly is not supported by cmetal");
		break;
	default:
		error_at(d->loc, "expected a declaration");
	}
}

/* uchar, uint, int32_t, ...: typedef names that cm.h would provide. */
void sema_predeclare_types(Sema *S)
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
			sema_enter(S, sema_new_sym(S, SYM_TYPE, n, ty_scalar(tds[i].k), (Loc){0}, NULL));
	}
}
