/* parse_decl.c — the parser's declarations (parse.h; the tree shapes are in
 * parse.c's comment).
 *
 * A declaration is decl_specs then declarators: variables (VAR_DECL with an
 * initializer), typedefs, or one function (FUNC with params and a body).
 * Declared names enter the current scope as type or value names, which is
 * what lets the expression parser tell casts from calls.  Also here: the
 * template, using, static_assert, asm and namespace declarations and the
 * external declarations of a unit (extern "C" blocks, stray pragmas).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* One declarator: the type with its &, * and the declared name. */
typedef struct {
	TypeSpec *ts;
	Token *tok;           /* the name's first token; NULL if abstract */
	const char *name;
	NodeList dims;
	const char *attr_type;
} Declarator;

static void parse_external(Parser *p, NodeList *out, int extra);

/* declarator := ptr_ops attributes [qualified_name] attributes
 *               ('[' [expr] ']')* attributes */
static void parse_declarator(Parser *p, const TypeSpec *base, Declarator *d)
{
	memset(d, 0, sizeof *d);
	d->ts = ps_ts_copy(p, base);
	ps_ptr_ops(p, d->ts);
	const char *a1 = ps_attrs(p);
	if (peek(p)->kind == TK_IDENT || (at(p, P_SCOPE) && peek_n(p, 1)->kind == TK_IDENT)) {
		d->tok = peek(p);
		d->name = ps_take_qualname(p, NULL);
	}
	const char *a2 = ps_attrs(p);
	while (at(p, P_LBRACKET) && !ps_at_attr(p)) {
		Token *open = next(p);
		nl_push(p->a, &d->dims, at(p, P_RBRACKET) ? NULL : ps_expr_nested(p));
		ps_expect_close(p, P_RBRACKET, open, "the array size");
	}
	const char *a3 = ps_attrs(p);
	d->attr_type = a3 ? a3 : a2 ? a2 : a1;
}

/* The type of the second and later declarators of one declaration: a
 * struct/enum defined by the first is named, not defined again. */
static TypeSpec *ts_for_next(Parser *p, const TypeSpec *ts)
{
	TypeSpec *c = ps_ts_copy(p, ts);
	c->is_ref = c->is_pointer = false;
	if (c->def && c->name) {
		c->kind = TS_NAMED;
		c->def = NULL;
	}
	return c;
}

/* Is `name (` a function declarator (rather than `T v(args)`)? */
static bool is_function_decl(Parser *p, DeclCtx ctx)
{
	if (ctx == CTX_FIELD)
		return true;
	if (ctx != CTX_FILE)
		return false;
	Token *t = peek_n(p, 1);
	if (tok_is(t, P_RPAREN) || tok_is(t, P_ELLIPSIS) || tok_is(t, P_LBRACKET))
		return true;
	if (t->kind == TK_KEYWORD && (t->id == KW_STATIC || t->id == KW_DECLSPEC ||
	                              t->id == KW_REGISTER))
		return true;
	return ps_starts_type_at(p, 1);
}

/* param := decl_specs declarator ['=' assign_expr] */
static Node *parse_param(Parser *p)
{
	Token *start = peek(p);
	DeclSpec ds;
	ps_decl_specs(p, &ds);
	if (!ds.ts) {
		ps_perr(p, start, "expected a parameter type, found %s", ps_tok_desc(p, start));
		return NULL;
	}
	Declarator d;
	parse_declarator(p, ds.ts, &d);
	Node *v = mk(p, ND_VAR_DECL, start);
	v->name = d.name;
	v->name_loc = d.tok ? d.tok->loc : start->loc;
	v->ts = d.ts;
	v->args2 = d.dims;
	v->attr_type = d.attr_type;
	v->dspec = ds.dspec;
	ps_declare(p, d.name, NAME_VALUE);
	if (accept(p, P_ASSIGN))
		v->init = ps_assign(p);
	return v;
}

/* params := '(' ['void' | param (',' param)*] ')' */
static void parse_params(Parser *p, Node *f)
{
	Token *open = next(p);
	if (at_kw(p, KW_VOID) && tok_is(peek_n(p, 1), P_RPAREN))
		next(p);
	else if (!at(p, P_RPAREN)) {
		for (;;) {
			if (at(p, P_ELLIPSIS)) {
				ps_perr(p, next(p), "variadic functions are not supported in CM");
				break;
			}
			Node *v = parse_param(p);
			if (!v)
				break;
			nl_push(p->a, &f->params, v);
			if (!accept(p, P_COMMA))
				break;
		}
	}
	ps_expect_close(p, P_RPAREN, open, "the parameter list");
}

/* function := declarator params ['const'] (block | ';') */
static void parse_function(Parser *p, NodeList *out, DeclSpec *ds, Declarator *d,
                           DeclCtx ctx)
{
	Node *f = mk(p, ND_FUNC, d->tok);
	f->name = d->name;
	f->name_loc = d->tok->loc;
	f->ts = d->ts;
	f->dspec = ds->dspec;
	f->ds_arg = ds->ds_arg;
	if (ctx == CTX_FIELD)
		ps_perr(p, d->tok, "member functions are not supported in CM");
	if (p->in_template) {
		map_put(&p->templates, f->name, f);
		if (ps_current_ns(p))
			map_put(&p->templates, ps_qualify(ps_current_ns(p), f->name), f);
	}
	ps_scope_push(p, NULL, false);
	parse_params(p, f);
	while (accept_kw(p, KW_CONST))
		;
	if (at(p, P_LBRACE))
		f->body = ps_block(p);
	else if (!ps_expect(p, P_SEMI, "after the function declaration"))
		ps_sync(p);
	ps_scope_pop(p);
	nl_push(p->a, out, f);
}

/* initializer := '=' (init_list | assign_expr) | '(' args ')' | init_list */
static void parse_initializer(Parser *p, Node *v)
{
	if (accept(p, P_ASSIGN))
		v->init = at(p, P_LBRACE) ? ps_init_list(p) : ps_assign(p);
	else if (at(p, P_LPAREN))
		ps_args(p, &v->args);
	else if (at(p, P_LBRACE))
		v->init = ps_init_list(p);
}

/* A VAR_DECL or TYPEDEF for one declarator. */
static Node *declared(Parser *p, const DeclSpec *ds, Declarator *d)
{
	bool td = ds->dspec & DS_TYPEDEF;
	Node *n = mk(p, td ? ND_TYPEDEF : ND_VAR_DECL, d->tok);
	n->name = d->name;
	n->name_loc = d->tok->loc;
	n->ts = d->ts;
	n->args2 = d->dims;
	n->dspec = ds->dspec & ~DS_TYPEDEF;
	n->ds_arg = ds->ds_arg;
	n->attr_type = d->attr_type;
	ps_declare(p, d->name, td ? NAME_TYPE : NAME_VALUE);
	if (!td)
		parse_initializer(p, n);
	return n;
}

/* declaration := decl_specs [init_declarator (',' init_declarator)*] ';'
 *              | decl_specs declarator params (block | ';')
 * init_declarator := declarator [initializer]
 * Pushes VAR_DECL / FUNC / TYPEDEF nodes (or a lone struct / enum
 * definition) to out. */
void ps_declaration(Parser *p, NodeList *out, DeclCtx ctx, int extra)
{
	DeclSpec ds;
	ps_decl_specs(p, &ds);
	ds.dspec |= extra;
	if (!ds.ts) {
		ps_perr(p, peek(p), "expected a type, found %s", ps_tok_desc(p, peek(p)));
		ps_sync(p);
		return;
	}
	if (accept(p, P_SEMI)) {
		if (ds.ts->def)
			nl_push(p->a, out, ds.ts->def);
		return;
	}
	for (int i = 0;; i++) {
		Declarator d;
		parse_declarator(p, i ? ts_for_next(p, ds.ts) : ds.ts, &d);
		if (!d.name) {
			ps_perr(p, peek(p), "expected a name in the declaration, found %s",
			     ps_tok_desc(p, peek(p)));
			ps_sync(p);
			return;
		}
		if (at(p, P_LPAREN) && !(ds.dspec & DS_TYPEDEF) && is_function_decl(p, ctx)) {
			parse_function(p, out, &ds, &d, ctx);
			return;
		}
		nl_push(p->a, out, declared(p, &ds, &d));
		if (!accept(p, P_COMMA))
			break;
	}
	if (!ps_expect(p, P_SEMI, "after the declaration"))
		ps_sync(p);
}

/* tparam := ('typename' | 'class') [IDENT] ['=' type_name]
 *         | type_name [IDENT] ['=' cond_expr] */
static void parse_tparam(Parser *p, TemplParam *tp)
{
	tp->loc = peek(p)->loc;
	if (accept_kw(p, KW_TYPENAME) || accept_kw(p, KW_CLASS)) {
		tp->is_type = true;
		if (peek(p)->kind == TK_IDENT)
			tp->name = next(p)->text;
		if (accept(p, P_ASSIGN)) {
			tp->def = NEW(p->a, TemplArg);
			tp->def->loc = peek(p)->loc;
			tp->def->ts = ps_type_name(p);
		}
	} else {
		tp->ts = ps_type_name(p);
		if (peek(p)->kind == TK_IDENT)
			tp->name = next(p)->text;
		if (accept(p, P_ASSIGN)) {
			tp->def = NEW(p->a, TemplArg);
			tp->def->loc = peek(p)->loc;
			tp->def->expr = ps_cond(p);
		}
	}
	if (tp->name)
		map_put(&p->scope->names, tp->name,
		        (void *)(intptr_t)(tp->is_type ? NAME_TYPE : NAME_VALUE));
}

/* template_params := '<' [tparam (',' tparam)*] '>' */
static void parse_tparams(Parser *p, Node *t)
{
	VEC(TemplParam) v = {0};
	bool save = p->no_gt;
	p->no_gt = true;
	if (ps_expect(p, P_LT, "after 'template'") && !ps_close_angle(p)) {
		for (;;) {
			TemplParam tp = {0};
			int start = p->pos;
			parse_tparam(p, &tp);
			vec_push(&v, tp);
			if (p->pos == start || !accept(p, P_COMMA))
				break;
		}
		if (!ps_close_angle(p))
			ps_perr(p, peek(p), "expected '>' to close the template parameter list, found %s",
			     ps_tok_desc(p, peek(p)));
	}
	p->no_gt = save;
	t->ntparams = v.len;
	t->tparams = NEWN(p->a, TemplParam, v.len ? v.len : 1);
	if (v.len)
		memcpy(t->tparams, v.data, sizeof(TemplParam) * (size_t)v.len);
	vec_free(&v);
}

/* explicit_instantiation := 'template' decl_specs declarator
 *                           [template_args] params ';'
 * e.g. `template _GENX_MAIN_ void K<float>(SurfaceIndex s);` */
static void parse_instantiation(Parser *p, NodeList *out, int extra, Token *kw)
{
	DeclSpec ds;
	ps_decl_specs(p, &ds);
	Declarator d;
	if (ds.ts)
		parse_declarator(p, ds.ts, &d);
	if (!ds.ts || !d.name || !(at(p, P_LT) || at(p, P_LPAREN))) {
		ps_perr(p, kw, "expected '<' after 'template', or an explicit instantiation "
		        "of a function template ('template void f<T>(...);')");
		ps_sync(p);
		return;
	}
	Node *n = mk(p, ND_INSTANTIATE, kw);
	Node *f = mk(p, ND_FUNC, d.tok);
	f->name = n->name = d.name;
	f->name_loc = n->name_loc = d.tok->loc;
	f->ts = d.ts;
	f->dspec = ds.dspec | extra;
	if (at(p, P_LT))
		ps_targs(p, n, d.name);
	if (!at(p, P_LPAREN)) {
		ps_perr(p, peek(p), "expected the parameter list of the instantiation of '%s', "
		        "found %s", d.name, ps_tok_desc(p, peek(p)));
		ps_sync(p);
		return;
	}
	ps_scope_push(p, NULL, false);
	parse_params(p, f);
	ps_scope_pop(p);
	if (at(p, P_LBRACE))
		ps_perr(p, peek(p), "an explicit instantiation has no body");
	if (!ps_expect(p, P_SEMI, "after the explicit instantiation"))
		ps_sync(p);
	n->lhs = f;
	nl_push(p->a, out, n);
}

/* template_decl := 'template' template_params declaration
 *                | explicit_instantiation */
static void parse_template(Parser *p, NodeList *out, int extra)
{
	Token kw = *next(p);   /* a copy: ps_block frees the tokens behind */
	if (!at(p, P_LT)) {
		parse_instantiation(p, out, extra, &kw);
		return;
	}
	Node *t = mk(p, ND_TEMPLATE, &kw);
	ps_scope_push(p, NULL, true);
	parse_tparams(p, t);
	NodeList decl = {0};
	p->in_template++;
	ps_declaration(p, &decl, CTX_FILE, extra);
	p->in_template--;
	ps_scope_pop(p);
	if (decl.len != 1 || (decl.data[0]->kind != ND_FUNC &&
	                      decl.data[0]->kind != ND_STRUCT_DECL)) {
		ps_perr(p, &kw, "a template must declare one function or struct");
		return;
	}
	t->lhs = decl.data[0];
	t->name = t->lhs->name;
	t->name_loc = t->lhs->name_loc;
	nl_push(p->a, out, t);
}

/* Makes the types of namespace `ns` visible unqualified in this scope. */
static void import_namespace(Parser *p, const char *ns)
{
	size_t n = strlen(ns);
	Map *g = &p->global->names;
	for (int i = 0; i < g->cap; i++) {
		const char *k = g->keys[i];
		if (k && k != (const char *)1 && !strncmp(k, ns, n) && k[n] == ':' &&
		    k[n + 1] == ':' && !strstr(k + n + 2, "::"))
			map_put(&p->scope->names, intern_cstr(k + n + 2), g->vals[i]);
	}
}

/* using_decl := 'using' 'namespace' qualified_name ';'
 *             | 'using' IDENT '=' type_name ';' */
Node *ps_using(Parser *p)
{
	Token *kw = next(p);
	Node *n;
	if (accept_kw(p, KW_NAMESPACE)) {
		n = mk(p, ND_USING_NS, kw);
		if (peek(p)->kind == TK_IDENT || at(p, P_SCOPE)) {
			n->name_loc = peek(p)->loc;
			n->name = ps_take_qualname(p, NULL);
			import_namespace(p, n->name);
		} else {
			ps_perr(p, peek(p), "expected a namespace name, found %s", ps_tok_desc(p, peek(p)));
		}
	} else if (peek(p)->kind == TK_IDENT && tok_is(peek_n(p, 1), P_ASSIGN)) {
		Token *nt = next(p);
		next(p);
		n = mk(p, ND_TYPEDEF, nt);
		n->name = nt->text;
		n->name_loc = nt->loc;
		n->ts = ps_type_name(p);
		ps_declare(p, n->name, NAME_TYPE);
	} else {
		ps_perr(p, peek(p), "expected 'namespace' or an alias 'NAME =' after 'using', found %s",
		     ps_tok_desc(p, peek(p)));
		ps_sync(p);
		return NULL;
	}
	if (!ps_expect(p, P_SEMI, "after the using declaration"))
		ps_sync(p);
	return n;
}

/* static_assert_decl := 'static_assert' '(' assign_expr [',' string] ')' ';' */
Node *ps_static_assert(Parser *p)
{
	Node *n = mk(p, ND_STATIC_ASSERT, next(p));
	Token *open = peek(p);
	if (!ps_expect(p, P_LPAREN, "after 'static_assert'")) {
		ps_sync(p);
		return n;
	}
	n->lhs = ps_assign(p);
	if (accept(p, P_COMMA)) {
		if (peek(p)->kind == TK_STRING) {
			Node *s = ps_string(p);
			n->str = s->str;
			n->str_len = s->str_len;
		} else {
			ps_perr(p, peek(p), "expected a string literal, found %s", ps_tok_desc(p, peek(p)));
		}
	}
	ps_expect_close(p, P_RPAREN, open, "the static_assert");
	if (!ps_expect(p, P_SEMI, "after the static_assert"))
		ps_sync(p);
	return n;
}

/* asm_decl := 'asm' ['volatile'] '(' ... ')' ';'   (sema rejects it) */
Node *ps_asm(Parser *p)
{
	Node *n = mk(p, ND_ASM, next(p));
	accept_kw(p, KW_VOLATILE);
	Token *open = peek(p);
	if (ps_expect(p, P_LPAREN, "after 'asm'")) {
		ps_skip_to_close(p, P_RPAREN);
		(void)open;
	}
	if (!ps_expect(p, P_SEMI, "after the asm statement"))
		ps_sync(p);
	return n;
}

/* external_decls := external_decl*   (until EOF, or '}' when braced)
 * Between the unit's own declarations no token pointer is held, so the
 * tokens before the previous one (ps_expect looks one back) are freed. */
void ps_externals(Parser *p, NodeList *out, int extra, bool braced)
{
	while (!at_eof(p) && !(braced && at(p, P_RBRACE)) && ps_check_limit(p)) {
		int start = p->pos;
		if (!braced)
			tl_release(p->toks, start - 1);
		p->quiet = false;
		parse_external(p, out, extra);
		if (p->pos == start) {
			ps_perr(p, peek(p), "expected a declaration, found %s", ps_tok_desc(p, peek(p)));
			next(p);
		}
	}
}

/* namespace_decl := 'namespace' [qualified_name] '{' external_decls '}' */
static Node *parse_namespace(Parser *p)
{
	Node *n = mk(p, ND_NAMESPACE, next(p));
	if (peek(p)->kind == TK_IDENT) {
		n->name_loc = peek(p)->loc;
		n->name = ps_take_qualname(p, NULL);
	}
	Token open = *peek(p);   /* a copy: ps_block frees the tokens behind */
	if (!ps_expect(p, P_LBRACE, "after the namespace name")) {
		ps_sync(p);
		return n;
	}
	const char *outer = ps_current_ns(p);
	const char *ns = !n->name ? outer : outer ? ps_qualify(outer, n->name) : n->name;
	ps_scope_push(p, ns, false);
	ps_externals(p, &n->args, 0, true);
	ps_scope_pop(p);
	ps_expect_close(p, P_RBRACE, &open, "the namespace");
	return n;
}

/* A '#pragma unroll' outside a function, or before something else. */
void ps_stray_pragma(Parser *p, const Token *t)
{
	if (t->id == PRAGMA_UNROLL || t->id == PRAGMA_NOUNROLL)
		diag_at(DIAG_WARNING, t->loc, t->len > 0 ? t->len : 1,
		        "#pragma %s must precede a loop",
		        t->id == PRAGMA_UNROLL ? "unroll" : "nounroll");
}

void ps_push_if(Parser *p, NodeList *out, Node *n)
{
	if (n)
		nl_push(p->a, out, n);
}

/* external_decl := template_decl | namespace_decl | using_decl
 *                | 'extern' STRING ('{' external_decls '}' | external_decl)
 *                | static_assert_decl | asm_decl | ';' | declaration */
static void parse_external(Parser *p, NodeList *out, int extra)
{
	Token *t = peek(p);
	if (t->kind == TK_PRAGMA) {
		ps_stray_pragma(p, next(p));
		return;
	}
	if (tok_is(t, P_SEMI)) {
		next(p);
		return;
	}
	if (tok_kw(t, KW_EXTERN) && peek_n(p, 1)->kind == TK_STRING) {
		next(p);
		next(p);
		if (!at(p, P_LBRACE)) {
			parse_external(p, out, extra | DS_EXTERN_C);
			return;
		}
		Token open = *next(p);   /* a copy: ps_block frees the tokens behind */
		ps_externals(p, out, extra | DS_EXTERN_C, true);
		ps_expect_close(p, P_RBRACE, &open, "the extern \"C\" block");
		return;
	}
	if (t->kind == TK_KEYWORD) {
		switch (t->id) {
		case KW_TEMPLATE: parse_template(p, out, extra); return;
		case KW_NAMESPACE: ps_push_if(p, out, parse_namespace(p)); return;
		case KW_USING: ps_push_if(p, out, ps_using(p)); return;
		case KW_STATIC_ASSERT: ps_push_if(p, out, ps_static_assert(p)); return;
		case KW_ASM: ps_push_if(p, out, ps_asm(p)); return;
		}
	}
	ps_declaration(p, out, CTX_FILE, extra);
}
