/* parse.c — the parser: a preprocessed token array to the syntactic tree
 * of front.h (ND_UNIT holding the top-level declarations).
 *
 * Hand-written recursive descent over the C++ subset CM code uses, plus the
 * CM types.  C++ needs to know which names denote types to tell `T(x)`,
 * `(T)x` and `T x;` from expressions; the parser keeps scoped tables of such
 * names (typedef and `using` names, struct and enum tags, template type
 * parameters; variables declared in an inner scope hide them).  Likewise
 * `f<` starts template arguments only for a known function template, a
 * builtin function name, or after `.` for a CM member (select, format, ...)
 * or `.template`.  Template arguments are parsed with `>` ending them (a
 * `>>` token is split).  No backtracking is needed.
 *
 * Errors say what was expected and what was found; after one, the parser
 * stays silent until it resynchronizes at the next ';' or '}' (statement
 * and declaration boundaries), so one mistake gives one message.  Every
 * loop consumes a token per iteration, recursion is capped at MAX_DEPTH and
 * parsing stops at the error limit, so no input can hang or crash it.
 *
 * Locations: a node has the loc and length of its leading token, except
 * operators (BINARY, ASSIGN, COND, COMMA, UNARY, POSTFIX, INDEX) and
 * members (MEMBER, MEMBER_CALL) which point at the operator or member
 * name; declared names also get name_loc.
 *
 * Tree shapes that front.h leaves open:
 *  - an omitted array size (`int a[] = {..}`) is a NULL entry in args2;
 *  - a struct/enum defined in a declaration lives in ts->def (TS_*_DEF) of
 *    the first declarator; later declarators name it (TS_NAMED) or, if it
 *    is anonymous, share the same def; a definition with no declarator is
 *    its own STRUCT_DECL / ENUM_DECL (at block scope: DECL_STMT's lhs);
 *  - DECL_STMT: lhs is the first TYPEDEF / STRUCT_DECL / ENUM_DECL of the
 *    declaration, args the VAR_DECLs (and any further TYPEDEFs);
 *  - CAST's operand(s) are in args; op is a CAST_* kind;
 *  - MEMBER / MEMBER_CALL: op is P_DOT or P_ARROW (sema rejects '->');
 *  - a case label's body is the statement after it (C's grammar);
 *  - `if constexpr` parses as a plain if.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"

enum { MAX_DEPTH = 256 };
enum { NAME_TYPE = 1, NAME_VALUE = 2 };

typedef struct Scope Scope;
struct Scope {
	Map names;            /* interned name -> NAME_TYPE / NAME_VALUE */
	Scope *up;
	const char *ns;       /* a namespace body: its qualified name */
	bool is_template;     /* template<...> parameters: declarations pass through */
};

typedef struct {
	Arena *a;
	Token *toks;
	int ntok, pos;
	Scope *scope, *global;
	Map templates;        /* function template names (also qualified) */
	Map builtins;         /* builtin function names */
	int depth;            /* recursion depth, capped at MAX_DEPTH */
	int in_template;      /* parsing the declaration of a template<...> */
	bool no_gt;           /* in a template argument: '>' ends the expression */
	bool quiet;           /* an error was reported; silent until resync */
	bool fatal;           /* nesting too deep or too many errors: skip to EOF */
} Parser;

typedef enum { CTX_FILE, CTX_BLOCK, CTX_FIELD } DeclCtx;

/* What a declaration's specifiers said. */
typedef struct {
	int dspec;
	Node *ds_arg;
	TypeSpec *ts;         /* NULL when no type was written */
} DeclSpec;

/* One declarator: the type with its &, * and the declared name. */
typedef struct {
	TypeSpec *ts;
	Token *tok;           /* the name's first token; NULL if abstract */
	const char *name;
	NodeList dims;
	const char *attr_type;
} Declarator;

static Node *parse_expr(Parser *p);
static Node *parse_assign(Parser *p);
static Node *parse_cond(Parser *p);
static Node *parse_unary(Parser *p);
static Node *parse_stmt(Parser *p);
static Node *parse_block(Parser *p);
static Node *parse_init_list(Parser *p);
static TypeSpec *parse_type_name(Parser *p);
static void parse_declaration(Parser *p, NodeList *out, DeclCtx ctx, int extra);
static void parse_external(Parser *p, NodeList *out, int extra);

/* ---------------------------------------------------------------- tokens */

static Token *peek(Parser *p) { return &p->toks[p->pos]; }

static Token *peek_n(Parser *p, int k)
{
	int i = p->pos + k;
	return &p->toks[i < p->ntok ? i : p->ntok - 1];
}

static Token *next(Parser *p)
{
	Token *t = &p->toks[p->pos];
	if (t->kind != TK_EOF)
		p->pos++;
	return t;
}

static bool tok_is(const Token *t, Punct c) { return t->kind == TK_PUNCT && t->id == (int)c; }
static bool tok_kw(const Token *t, Keyword k) { return t->kind == TK_KEYWORD && t->id == (int)k; }
static bool at(Parser *p, Punct c) { return tok_is(peek(p), c); }
static bool at_kw(Parser *p, Keyword k) { return tok_kw(peek(p), k); }
static bool at_eof(Parser *p) { return peek(p)->kind == TK_EOF; }

static bool accept(Parser *p, Punct c)
{
	if (!at(p, c))
		return false;
	next(p);
	return true;
}

static bool accept_kw(Parser *p, Keyword k)
{
	if (!at_kw(p, k))
		return false;
	next(p);
	return true;
}

/* Consumes one '>' of a template argument list, splitting '>>', '>=' and
 * '>>=' so that `vector<vector<int,2>,2>`-like nesting works. */
static bool close_angle(Parser *p)
{
	Token *t = peek(p);
	if (tok_is(t, P_GT)) {
		next(p);
		return true;
	}
	int rest = tok_is(t, P_RSHIFT) ? P_GT : tok_is(t, P_GE) ? P_ASSIGN
	         : tok_is(t, P_SHR_ASSIGN) ? P_GE : 0;
	if (!rest)
		return false;
	t->id = rest;
	t->loc.col++;
	t->len--;
	t->text++;
	return true;
}

/* ------------------------------------------------------------ diagnostics */

/* How a token is named in messages: 'x', a string literal, end of file. */
static const char *tok_desc(Parser *p, const Token *t)
{
	if (t->kind == TK_EOF)
		return "end of file";
	if (t->kind == TK_STRING)
		return "a string literal";
	if (t->kind == TK_PRAGMA || !t->text)
		return "'#pragma'";
	int n = t->len > 24 ? 24 : t->len;
	return arena_printf(p->a, "'%.*s%s'", n, t->text, t->len > 24 ? "..." : "");
}

static void perr(Parser *p, const Token *t, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void perr(Parser *p, const Token *t, const char *fmt, ...)
{
	if (p->quiet || p->fatal)
		return;
	va_list ap;
	va_start(ap, fmt);
	diag_vat(DIAG_ERROR, t->loc, t->len > 0 ? t->len : 1, fmt, ap);
	va_end(ap);
	p->quiet = true;
}

/* Consumes punctuator c or reports "expected 'c' <ctx>, found X".  A
 * missing ';' is shown just after the previous token when the next one
 * starts a new line, where the user has to type it. */
static bool expect(Parser *p, Punct c, const char *ctx)
{
	if (accept(p, c))
		return true;
	Token *t = peek(p), where = *t;
	Token *prev = p->pos > 0 ? &p->toks[p->pos - 1] : NULL;
	if (c == P_SEMI && prev && (t->loc.line != prev->loc.line || t->kind == TK_EOF)) {
		where.loc = prev->loc;
		where.loc.col += (uint32_t)prev->len;
		where.len = 1;
	}
	perr(p, &where, "expected '%s' %s, found %s", punct_names[c], ctx, tok_desc(p, t));
	return false;
}

/* expect() with a context naming something: ctx is a format with one %s
 * (built only when the message is needed). */
static bool expectf(Parser *p, Punct c, const char *ctx, const char *name)
{
	if (at(p, c))
		return expect(p, c, ctx);
	return expect(p, c, arena_printf(p->a, ctx, name));
}

/* Skips tokens up to the closer matching an opener already consumed:
 * '}' is searched to its match; ')' and ']' stop before ';', '{' or '}'. */
static void skip_to_close(Parser *p, Punct close)
{
	int depth = 0;
	for (Token *t = peek(p); t->kind != TK_EOF; t = peek(p)) {
		if (tok_is(t, P_LPAREN) || tok_is(t, P_LBRACKET) || tok_is(t, P_LBRACE)) {
			if (close != P_RBRACE && tok_is(t, P_LBRACE) && depth == 0)
				return;
			depth++;
		} else if (tok_is(t, P_RPAREN) || tok_is(t, P_RBRACKET) || tok_is(t, P_RBRACE)) {
			if (depth == 0) {
				if (tok_is(t, close))
					next(p);
				return;
			}
			depth--;
		} else if (tok_is(t, P_SEMI) && depth == 0 && close != P_RBRACE)
			return;
		next(p);
	}
}

/* Consumes the closer of `open`, or reports "unbalanced '(' in <what>:
 * expected ')', found X" with a note at the opener and skips ahead. */
static bool expect_close(Parser *p, Punct close, const Token *open, const char *what)
{
	if (accept(p, close))
		return true;
	if (!p->quiet && !p->fatal) {
		perr(p, peek(p), "unbalanced '%s' in %s: expected '%s', found %s",
		     punct_names[close == P_RPAREN ? P_LPAREN : close == P_RBRACKET
		                 ? P_LBRACKET : P_LBRACE],
		     what, punct_names[close], tok_desc(p, peek(p)));
		note_at(open->loc, "the '%.*s' is here", open->len, open->text);
	}
	skip_to_close(p, close);
	return false;
}

/* Resynchronizes after an error: skips to just after the next ';' at this
 * nesting level, or after a balanced {...}, or to just before a '}' that
 * closes the enclosing block. */
static void sync(Parser *p)
{
	int depth = 0;
	for (Token *t = peek(p); t->kind != TK_EOF; t = peek(p)) {
		if (tok_is(t, P_LBRACE))
			depth++;
		else if (tok_is(t, P_RBRACE)) {
			if (depth == 0)
				return;
			if (--depth == 0) {
				next(p);
				return;
			}
		} else if (tok_is(t, P_SEMI) && depth == 0) {
			next(p);
			return;
		}
		next(p);
	}
}

/* Stops parsing (jumps to EOF) once the error limit is reached. */
static bool check_limit(Parser *p)
{
	if (!p->fatal && !diag_too_many())
		return true;
	p->fatal = true;
	p->pos = p->ntok - 1;
	return false;
}

/* Recursion guard: every recursive rule enters and leaves. */
static bool enter(Parser *p)
{
	if (++p->depth <= MAX_DEPTH)
		return true;
	if (!p->fatal)
		diag_at(DIAG_ERROR, peek(p)->loc, 1,
		        "nesting is too deep (more than %d levels)", MAX_DEPTH);
	p->fatal = true;
	p->pos = p->ntok - 1;
	return false;
}

static void leave(Parser *p) { p->depth--; }

/* ------------------------------------------------------- nodes and scopes */

static Node *mk(Parser *p, NodeKind k, const Token *t)
{
	Node *n = node_new(p->a, k, t->loc);
	n->len = t->len > 0 ? t->len : 1;
	return n;
}

/* A placeholder expression after a syntax error (sema never sees it). */
static Node *err_expr(Parser *p) { return mk(p, ND_INT_LIT, peek(p)); }

static TypeSpec *ts_new(Parser *p, TypeSpecKind k, const Token *t)
{
	TypeSpec *ts = NEW(p->a, TypeSpec);
	ts->kind = k;
	ts->loc = t->loc;
	return ts;
}

static TypeSpec *ts_copy(Parser *p, const TypeSpec *t)
{
	TypeSpec *c = NEW(p->a, TypeSpec);
	*c = *t;
	return c;
}

static void scope_push(Parser *p, const char *ns, bool is_template)
{
	Scope *s = NEW(p->a, Scope);
	s->up = p->scope;
	s->ns = ns;
	s->is_template = is_template;
	p->scope = s;
}

static void scope_pop(Parser *p)
{
	Scope *s = p->scope;
	map_free(&s->names);
	p->scope = s->up;
}

/* The innermost namespace's qualified name, or NULL at global scope. */
static const char *current_ns(Parser *p)
{
	for (Scope *s = p->scope; s; s = s->up)
		if (s->ns)
			return s->ns;
	return NULL;
}

static const char *qualify(const char *ns, const char *name)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "%s::%s", ns, name);
	return intern(buf, n < (int)sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Records what `name` denotes in the innermost non-template scope; names
 * declared in a namespace are also visible qualified from everywhere. */
static void declare(Parser *p, const char *name, int what)
{
	if (!name)
		return;
	Scope *s = p->scope;
	while (s->is_template && s->up)
		s = s->up;
	map_put(&s->names, name, (void *)(intptr_t)what);
	if (s->ns)
		map_put(&p->global->names, qualify(s->ns, name), (void *)(intptr_t)what);
}

static int lookup(Parser *p, const char *name)
{
	for (Scope *s = p->scope; s; s = s->up) {
		void *v = map_get(&s->names, name);
		if (v)
			return (int)(intptr_t)v;
	}
	return 0;
}

/* qualified_name := ['::'] IDENT ('::' IDENT)*
 * Reads one at offset k without consuming; *ntoks is its token count (0 if
 * there is none).  Returns the interned name, "a::b" when qualified. */
static const char *qualname_at(Parser *p, int k, int *ntoks)
{
	int i = k + tok_is(peek_n(p, k), P_SCOPE);
	Token *t = peek_n(p, i);
	*ntoks = 0;
	if (t->kind != TK_IDENT)
		return NULL;
	if (!tok_is(peek_n(p, i + 1), P_SCOPE) || peek_n(p, i + 2)->kind != TK_IDENT) {
		*ntoks = i + 1 - k;
		return t->text;
	}
	Buf b = {0};
	buf_putn(&b, t->text, (size_t)t->len);
	while (tok_is(peek_n(p, i + 1), P_SCOPE) && peek_n(p, i + 2)->kind == TK_IDENT) {
		Token *s = peek_n(p, i + 2);
		buf_puts(&b, "::");
		buf_putn(&b, s->text, (size_t)s->len);
		i += 2;
	}
	const char *r = intern(b.data, b.len);
	buf_free(&b);
	*ntoks = i + 1 - k;
	return r;
}

/* Consumes a qualified name; the node spans it when it is on one line. */
static const char *take_qualname(Parser *p, Node *n)
{
	int cnt;
	Token *first = peek(p);
	const char *name = qualname_at(p, 0, &cnt);
	Token *last = peek_n(p, cnt - 1);
	p->pos += cnt;
	if (n && last->loc.line == first->loc.line && last->loc.col >= first->loc.col)
		n->len = (int)(last->loc.col - first->loc.col) + last->len;
	return name;
}

/* --------------------------------------------------------- classification */

static bool is_scalar_kw(int kw)
{
	switch (kw) {
	case KW_VOID: case KW_BOOL: case KW_CHAR: case KW_SHORT: case KW_INT:
	case KW_LONG: case KW_SIGNED: case KW_UNSIGNED: case KW_FLOAT:
	case KW_DOUBLE: case KW_HALF:
		return true;
	default:
		return false;
	}
}

static bool is_type_kw(int kw)
{
	switch (kw) {
	case KW_VECTOR: case KW_MATRIX: case KW_VECTOR_REF: case KW_MATRIX_REF:
	case KW_SURFACEINDEX: case KW_SAMPLERINDEX: case KW_VMEINDEX: case KW_AUTO:
	case KW_STRUCT: case KW_CLASS: case KW_UNION: case KW_ENUM:
	case KW_TYPENAME: case KW_CONST: case KW_VOLATILE:
		return true;
	default:
		return is_scalar_kw(kw);
	}
}

/* Does the token at offset k start a type? */
static bool starts_type_at(Parser *p, int k)
{
	Token *t = peek_n(p, k);
	if (t->kind == TK_KEYWORD)
		return is_type_kw(t->id);
	int n;
	const char *name = qualname_at(p, k, &n);
	return name && lookup(p, name) == NAME_TYPE;
}

static bool at_attr(Parser *p)
{
	return at(p, P_LBRACKET) && tok_is(peek_n(p, 1), P_LBRACKET);
}

/* Does a declaration start here (at statement level)?  A type followed
 * directly by '(' (`uint(x)`, `float(y)`) is a functional cast instead. */
static bool starts_decl(Parser *p)
{
	Token *t = peek(p);
	if (t->kind == TK_KEYWORD) {
		switch (t->id) {
		case KW_STATIC: case KW_EXTERN: case KW_INLINE: case KW_CONSTEXPR:
		case KW_REGISTER: case KW_TYPEDEF: case KW_DECLSPEC: case KW_RESTRICT:
			return true;
		}
		return is_type_kw(t->id) &&
		       !(is_scalar_kw(t->id) && tok_is(peek_n(p, 1), P_LPAREN));
	}
	if (at_attr(p))
		return true;
	int n;
	const char *name = qualname_at(p, 0, &n);
	return name && lookup(p, name) == NAME_TYPE && !tok_is(peek_n(p, n), P_LPAREN);
}

/* Names after which '<' starts template arguments. */
static bool is_template_name(Parser *p, const char *name)
{
	if (lookup(p, name) == NAME_VALUE)
		return false;
	return map_get(&p->templates, name) || map_get(&p->builtins, name);
}

static bool is_cm_member(const Token *t)
{
	for (int i = 1; i < MB_COUNT_; i++)
		if ((int)strlen(member_names[i]) == t->len &&
		    !memcmp(member_names[i], t->text, (size_t)t->len))
			return true;
	return false;
}

/* ------------------------------------------------------------ expressions */

/* An expression inside brackets: '>' is an operator again. */
static Node *parse_expr_nested(Parser *p)
{
	bool save = p->no_gt;
	p->no_gt = false;
	Node *e = parse_expr(p);
	p->no_gt = save;
	return e;
}

/* args := '(' [assign_expr (',' assign_expr)*] ')' */
static void parse_args(Parser *p, NodeList *out)
{
	Token *open = next(p);
	bool save = p->no_gt;
	p->no_gt = false;
	if (!at(p, P_RPAREN)) {
		for (;;) {
			nl_push(p->a, out, parse_assign(p));
			if (!accept(p, P_COMMA))
				break;
		}
	}
	p->no_gt = save;
	expect_close(p, P_RPAREN, open, "the argument list");
}

/* template_args := '<' [template_arg (',' template_arg)*] '>'
 * template_arg := type_name | cond_expr with no top-level '>' */
static void parse_targs(Parser *p, Node *n, const char *what)
{
	VEC(TemplArg) v = {0};
	bool save = p->no_gt;
	next(p);
	n->has_targs = true;
	if (!close_angle(p)) {
		for (;;) {
			TemplArg ta = {.loc = peek(p)->loc};
			if (starts_type_at(p, 0)) {
				ta.ts = parse_type_name(p);
			} else {
				p->no_gt = true;
				ta.expr = parse_cond(p);
				p->no_gt = save;
			}
			vec_push(&v, ta);
			if (!accept(p, P_COMMA))
				break;
		}
		if (!close_angle(p))
			perr(p, peek(p), "expected '>' to close the template argument list of '%s', found %s",
			     what, tok_desc(p, peek(p)));
	}
	n->ntargs = v.len;
	n->targs = NEWN(p->a, TemplArg, v.len ? v.len : 1);
	if (v.len)
		memcpy(n->targs, v.data, sizeof(TemplArg) * (size_t)v.len);
	vec_free(&v);
}

/* string := STRING+  (adjacent literals concatenate) */
static Node *parse_string(Parser *p)
{
	Node *n = mk(p, ND_STR_LIT, peek(p));
	Buf b = {0};
	while (peek(p)->kind == TK_STRING) {
		Token *s = next(p);
		if (s->str)
			buf_putn(&b, s->str, (size_t)s->str_len);
	}
	char *s = arena_alloc(p->a, b.len + 1);
	if (b.len)
		memcpy(s, b.data, b.len);
	n->str = s;
	n->str_len = (int)b.len;
	buf_free(&b);
	return n;
}

/* functional_cast := type_name ('(' [args] ')' | init_list) */
static Node *parse_functional_cast(Parser *p)
{
	Node *n = mk(p, ND_CAST, peek(p));
	n->op = CAST_FUNC;
	n->ts = parse_type_name(p);
	if (at(p, P_LPAREN))
		parse_args(p, &n->args);
	else if (at(p, P_LBRACE))
		n->args = parse_init_list(p)->args;
	else
		perr(p, peek(p), "expected '(' after a type name in an expression, found %s",
		     tok_desc(p, peek(p)));
	return n;
}

/* named_cast := ('static_cast' | 'reinterpret_cast' | 'const_cast')
 *               '<' type_name '>' '(' expr ')' */
static Node *parse_named_cast(Parser *p)
{
	Token *kw = next(p);
	Node *n = mk(p, ND_CAST, kw);
	n->op = kw->id == KW_STATIC_CAST ? CAST_STATIC
	      : kw->id == KW_REINTERPRET_CAST ? CAST_REINTERPRET : CAST_CONST;
	const char *what = keyword_names[kw->id];
	if (!expectf(p, P_LT, "after '%s'", what))
		return n;
	bool save = p->no_gt;
	p->no_gt = false;
	n->ts = parse_type_name(p);
	p->no_gt = save;
	if (!close_angle(p)) {
		perr(p, peek(p), "expected '>' to close the template argument list of '%s', found %s",
		     what, tok_desc(p, peek(p)));
		return n;
	}
	Token *open = peek(p);
	if (!expectf(p, P_LPAREN, "after '%s<...>'", what))
		return n;
	nl_push(p->a, &n->args, parse_expr_nested(p));
	expect_close(p, P_RPAREN, open, "the cast");
	return n;
}

/* name_expr := qualified_name [template_args '(' args ')'] */
static Node *parse_name_expr(Parser *p)
{
	Token *t = peek(p);
	Node *id = mk(p, ND_IDENT, t);
	id->name = take_qualname(p, id);
	id->name_loc = t->loc;
	if (!at(p, P_LT) || !is_template_name(p, id->name))
		return id;
	Node *c = mk(p, ND_CALL, t);
	c->len = id->len;
	c->lhs = id;
	parse_targs(p, c, id->name);
	if (at(p, P_LPAREN))
		parse_args(p, &c->args);
	else
		perr(p, peek(p), "expected '(' after the template arguments of '%s', found %s",
		     id->name, tok_desc(p, peek(p)));
	return c;
}

/* paren_expr := '(' expr ')' */
static Node *parse_paren(Parser *p)
{
	Token *open = next(p);
	Node *e = parse_expr_nested(p);
	expect_close(p, P_RPAREN, open, "the expression");
	return e;
}

static Node *parse_literal(Parser *p)
{
	Token *t = peek(p);
	if (t->kind == TK_PPNUM && !lex_convert_number(t)) {
		next(p);
		p->quiet = true;   /* lex_convert_number reported it */
		return err_expr(p);
	}
	next(p);
	Node *n = mk(p, t->kind == TK_FLOAT ? ND_FLOAT_LIT : ND_INT_LIT, t);
	if (t->kind == TK_FLOAT)
		n->fval = t->fval;
	else
		n->ival = t->ival;
	n->lit = t->lit;
	return n;
}

/* primary := literal | string | 'true' | 'false' | 'nullptr' | name_expr
 *          | '(' expr ')' | init_list | named_cast | functional_cast */
static Node *parse_primary(Parser *p)
{
	Token *t = peek(p);
	switch (t->kind) {
	case TK_INT: case TK_FLOAT: case TK_CHAR: case TK_PPNUM:
		return parse_literal(p);
	case TK_STRING:
		return parse_string(p);
	case TK_IDENT:
		return starts_type_at(p, 0) ? parse_functional_cast(p) : parse_name_expr(p);
	case TK_KEYWORD:
		if (t->id == KW_TRUE || t->id == KW_FALSE) {
			Node *n = mk(p, ND_BOOL_LIT, next(p));
			n->ival = t->id == KW_TRUE;
			n->lit = SK_BOOL;
			return n;
		}
		if (t->id == KW_NULLPTR)
			return mk(p, ND_NULLPTR, next(p));
		if (t->id == KW_STATIC_CAST || t->id == KW_REINTERPRET_CAST ||
		    t->id == KW_CONST_CAST)
			return parse_named_cast(p);
		if (is_type_kw(t->id))
			return parse_functional_cast(p);
		break;
	case TK_PUNCT:
		if (t->id == P_LPAREN)
			return parse_paren(p);
		if (t->id == P_LBRACE)
			return parse_init_list(p);
		if (t->id == P_SCOPE)
			return starts_type_at(p, 0) ? parse_functional_cast(p) : parse_name_expr(p);
		break;
	default:
		break;
	}
	perr(p, t, "expected an expression, found %s", tok_desc(p, t));
	return err_expr(p);
}

/* member := ('.' | '->') ['template'] IDENT [template_args] ['(' args ')']
 * A member name followed by '<' starts template arguments if it is a CM
 * member (select, format, replicate, ...) or after `.template`. */
static Node *parse_member(Parser *p, Node *e)
{
	Token *dot = next(p);
	bool tkw = accept_kw(p, KW_TEMPLATE);
	Token *nt = peek(p);
	if (nt->kind != TK_IDENT) {
		perr(p, nt, "expected a member name after '%s', found %s",
		     punct_names[dot->id], tok_desc(p, nt));
		return e;
	}
	next(p);
	bool targs = at(p, P_LT) && (tkw || is_cm_member(nt));
	Node *n = mk(p, targs || at(p, P_LPAREN) ? ND_MEMBER_CALL : ND_MEMBER, nt);
	n->op = dot->id;
	n->lhs = e;
	n->name = nt->text;
	n->name_loc = nt->loc;
	n->template_kw = tkw;
	if (targs)
		parse_targs(p, n, nt->text);
	if (at(p, P_LPAREN))
		parse_args(p, &n->args);
	else if (targs)
		perr(p, peek(p), "expected '(' after the template arguments of '%s', found %s",
		     n->name, tok_desc(p, peek(p)));
	return n;
}

/* postfix := primary ('(' args ')' | '[' expr ']' | member | '++' | '--')* */
static Node *parse_postfix(Parser *p, Node *e)
{
	for (;;) {
		Token *t = peek(p);
		if (tok_is(t, P_LPAREN)) {
			Node *c = mk(p, ND_CALL, t);
			c->loc = e->loc;
			c->len = e->len;
			c->lhs = e;
			parse_args(p, &c->args);
			e = c;
		} else if (tok_is(t, P_LBRACKET)) {
			Node *n = mk(p, ND_INDEX, next(p));
			n->lhs = e;
			n->rhs = parse_expr_nested(p);
			expect_close(p, P_RBRACKET, t, "the subscript");
			e = n;
		} else if (tok_is(t, P_DOT) || tok_is(t, P_ARROW)) {
			e = parse_member(p, e);
		} else if (tok_is(t, P_INC) || tok_is(t, P_DEC)) {
			Node *n = mk(p, ND_POSTFIX, next(p));
			n->op = t->id;
			n->lhs = e;
			e = n;
		} else {
			return e;
		}
	}
}

/* sizeof_expr := 'sizeof' '(' type_name ')' | 'sizeof' unary_expr */
static Node *parse_sizeof(Parser *p)
{
	Node *n = mk(p, ND_SIZEOF, next(p));
	if (at(p, P_LPAREN) && starts_type_at(p, 1)) {
		Token *open = next(p);
		bool save = p->no_gt;
		p->no_gt = false;
		n->ts = parse_type_name(p);
		p->no_gt = save;
		expect_close(p, P_RPAREN, open, "the sizeof");
	} else {
		n->lhs = parse_unary(p);
	}
	return n;
}

/* cast := '(' type_name ')' unary_expr */
static Node *parse_c_cast(Parser *p)
{
	Token *open = next(p);
	Node *n = mk(p, ND_CAST, open);
	n->op = CAST_C;
	bool save = p->no_gt;
	p->no_gt = false;
	n->ts = parse_type_name(p);
	p->no_gt = save;
	expect_close(p, P_RPAREN, open, "the cast");
	nl_push(p->a, &n->args, parse_unary(p));
	return n;
}

/* unary := ('+' | '-' | '!' | '~' | '++' | '--' | '&' | '*') unary
 *        | sizeof_expr | cast | postfix */
static Node *unary_inner(Parser *p)
{
	Token *t = peek(p);
	if (t->kind == TK_PUNCT) {
		switch (t->id) {
		case P_PLUS: case P_MINUS: case P_NOT: case P_TILDE:
		case P_INC: case P_DEC: case P_AMP: case P_STAR: {
			Node *n = mk(p, ND_UNARY, next(p));
			n->op = t->id;
			n->lhs = parse_unary(p);
			return n;
		}
		case P_LPAREN:
			if (starts_type_at(p, 1))
				return parse_c_cast(p);
			break;
		}
	}
	if (tok_kw(t, KW_SIZEOF))
		return parse_sizeof(p);
	return parse_postfix(p, parse_primary(p));
}

static Node *parse_unary(Parser *p)
{
	if (!enter(p)) {
		leave(p);
		return err_expr(p);
	}
	Node *n = unary_inner(p);
	leave(p);
	return n;
}

/* Binding strength of a binary operator token, 0 if it is none. */
static int binary_prec(Parser *p, const Token *t)
{
	if (t->kind != TK_PUNCT)
		return 0;
	switch (t->id) {
	case P_OROR: return 1;
	case P_ANDAND: return 2;
	case P_PIPE: return 3;
	case P_CARET: return 4;
	case P_AMP: return 5;
	case P_EQ: case P_NE: return 6;
	case P_LT: case P_LE: case P_GE: return 7;
	case P_GT: return p->no_gt ? 0 : 7;
	case P_LSHIFT: return 8;
	case P_RSHIFT: return p->no_gt ? 0 : 8;
	case P_PLUS: case P_MINUS: return 9;
	case P_STAR: case P_SLASH: case P_PERCENT: return 10;
	default: return 0;
	}
}

/* binary := unary (binop unary)*, by precedence climbing; left-assoc */
static Node *parse_binary(Parser *p, int minprec)
{
	Node *lhs = parse_unary(p);
	for (;;) {
		Token *t = peek(p);
		int prec = binary_prec(p, t);
		if (!prec || prec < minprec)
			return lhs;
		next(p);
		Node *n = mk(p, ND_BINARY, t);
		n->op = t->id;
		n->lhs = lhs;
		n->rhs = parse_binary(p, prec + 1);
		lhs = n;
	}
}

/* cond_expr := binary ['?' expr ':' assign_expr] */
static Node *parse_cond(Parser *p)
{
	Node *c = parse_binary(p, 1);
	if (!at(p, P_QUESTION))
		return c;
	Node *n = mk(p, ND_COND, next(p));
	n->cond = c;
	n->then = parse_expr_nested(p);
	if (!expect(p, P_COLON, "in the conditional expression"))
		return n;
	if (enter(p))
		n->els = parse_assign(p);
	leave(p);
	return n;
}

static bool is_assign_op(int id)
{
	switch (id) {
	case P_ASSIGN: case P_ADD_ASSIGN: case P_SUB_ASSIGN: case P_MUL_ASSIGN:
	case P_DIV_ASSIGN: case P_MOD_ASSIGN: case P_AND_ASSIGN: case P_OR_ASSIGN:
	case P_XOR_ASSIGN: case P_SHL_ASSIGN: case P_SHR_ASSIGN:
		return true;
	default:
		return false;
	}
}

/* assign_expr := cond_expr [assign_op assign_expr]   (right-assoc) */
static Node *parse_assign(Parser *p)
{
	Node *lhs = parse_cond(p);
	Token *t = peek(p);
	if (t->kind != TK_PUNCT || !is_assign_op(t->id))
		return lhs;
	Node *n = mk(p, ND_ASSIGN, next(p));
	n->op = t->id;
	n->lhs = lhs;
	if (enter(p))
		n->rhs = parse_assign(p);
	else
		n->rhs = err_expr(p);
	leave(p);
	return n;
}

/* expr := assign_expr (',' assign_expr)* */
static Node *parse_expr(Parser *p)
{
	Node *e = parse_assign(p);
	while (at(p, P_COMMA)) {
		Node *c = mk(p, ND_COMMA, next(p));
		c->lhs = e;
		c->rhs = parse_assign(p);
		e = c;
	}
	return e;
}

/* init_list := '{' [init (',' init)* [',']] '}'   init := init_list | assign_expr */
static Node *parse_init_list(Parser *p)
{
	Token *open = next(p);
	Node *n = mk(p, ND_INIT_LIST, open);
	if (!enter(p)) {
		leave(p);
		return n;
	}
	bool save = p->no_gt;
	p->no_gt = false;
	while (!at(p, P_RBRACE) && !at_eof(p)) {
		nl_push(p->a, &n->args, at(p, P_LBRACE) ? parse_init_list(p) : parse_assign(p));
		if (!accept(p, P_COMMA))
			break;
	}
	p->no_gt = save;
	expect_close(p, P_RBRACE, open, "the initializer list");
	leave(p);
	return n;
}

/* ------------------------------------------------------------------ types */

/* Keyword counts of a scalar type being spelled ("unsigned long long"). */
typedef struct {
	int n, sign, unsig, shrt, lng, chr, intk;
	int other;            /* void bool float double half: the keyword */
	const Token *first;
} ScalarWords;

static void count_scalar(Parser *p, ScalarWords *w, const Token *t)
{
	if (!w->n++)
		w->first = t;
	switch (t->id) {
	case KW_SIGNED: w->sign++; break;
	case KW_UNSIGNED: w->unsig++; break;
	case KW_SHORT: w->shrt++; break;
	case KW_LONG: w->lng++; break;
	case KW_CHAR: w->chr++; break;
	case KW_INT: w->intk++; break;
	default:
		if (w->other)
			perr(p, t, "cannot combine '%s' with '%s'", keyword_names[t->id],
			     keyword_names[w->other]);
		w->other = t->id;
	}
}

/* The scalar type the words spell; `long` is 64-bit like `long long`. */
static TypeSpec *scalar_spec(Parser *p, const ScalarWords *w)
{
	TypeSpec *ts = ts_new(p, TS_SCALAR, w->first);
	bool u = w->unsig > 0;
	int ints = w->sign + w->unsig + w->shrt + w->lng + w->chr + w->intk;
	bool bad = (w->sign && w->unsig) || w->intk > 1 || w->chr > 1 || w->lng > 2 ||
	           (w->shrt && (w->lng || w->chr)) || (w->chr && (w->lng || w->intk));
	if (w->other) {
		static const ScalarKind sk[KW_COUNT_] = {
			[KW_BOOL] = SK_BOOL, [KW_FLOAT] = SK_FLOAT,
			[KW_DOUBLE] = SK_DOUBLE, [KW_HALF] = SK_HALF,
		};
		bad |= ints > 0;
		ts->kind = w->other == KW_VOID ? TS_VOID : TS_SCALAR;
		ts->sk = sk[w->other];
	} else if (w->chr) {
		ts->sk = u ? SK_UCHAR : SK_CHAR;
	} else if (w->shrt) {
		ts->sk = u ? SK_USHORT : SK_SHORT;
	} else if (w->lng) {
		ts->sk = u ? SK_ULONG : SK_LONG;
	} else {
		ts->sk = u ? SK_UINT : SK_INT;
	}
	if (bad)
		perr(p, w->first, "invalid combination of type specifiers");
	return ts;
}

/* vm_type := ('vector' | 'vector_ref') '<' type_name ',' expr '>'
 *          | ('matrix' | 'matrix_ref') '<' type_name ',' expr ',' expr '>' */
static TypeSpec *parse_vm_type(Parser *p)
{
	Token *kw = next(p);
	const char *what = keyword_names[kw->id];
	TypeSpecKind k = kw->id == KW_VECTOR ? TS_VECTOR : kw->id == KW_MATRIX ? TS_MATRIX
	               : kw->id == KW_VECTOR_REF ? TS_VECTOR_REF : TS_MATRIX_REF;
	TypeSpec *ts = ts_new(p, k, kw);
	int ndims = k == TS_MATRIX || k == TS_MATRIX_REF ? 2 : 1;
	if (!expectf(p, P_LT, "after '%s'", what)) {
		ts->elem = ts_new(p, TS_SCALAR, kw);
		ts->elem->sk = SK_INT;
		return ts;
	}
	bool save = p->no_gt;
	p->no_gt = false;
	ts->elem = parse_type_name(p);
	p->no_gt = true;
	for (int i = 0; i < ndims; i++) {
		if (!expectf(p, P_COMMA, "in the template argument list of '%s'", what))
			break;
		ts->dims[i] = parse_cond(p);
	}
	p->no_gt = save;
	if (!close_angle(p))
		perr(p, peek(p), "expected '>' to close the template argument list of '%s', found %s",
		     what, tok_desc(p, peek(p)));
	return ts;
}

/* attributes := ('[' '[' [attr (',' attr)*] ']' ']')*
 * attr := IDENT ['(' ... ')'];  returns the string of type("..."), if any. */
static const char *parse_attrs(Parser *p)
{
	const char *type = NULL;
	while (at_attr(p)) {
		Token *open = next(p);
		next(p);
		while (!at(p, P_RBRACKET) && !at_eof(p)) {
			Token *t = next(p);
			if (t->kind != TK_IDENT && t->kind != TK_KEYWORD) {
				perr(p, t, "expected an attribute name, found %s", tok_desc(p, t));
				break;
			}
			bool is_type = t->len == 4 && !memcmp(t->text, "type", 4);
			if (is_type && at(p, P_LPAREN) && peek_n(p, 1)->kind == TK_STRING) {
				Token *o = next(p);
				type = parse_string(p)->str;
				expect_close(p, P_RPAREN, o, "the attribute");
			} else {
				diag_at(DIAG_WARNING, t->loc, t->len, "attribute '%.*s' ignored",
				        t->len, t->text);
				if (at(p, P_LPAREN)) {
					next(p);
					skip_to_close(p, P_RPAREN);
				}
			}
			if (!accept(p, P_COMMA))
				break;
		}
		if (!accept(p, P_RBRACKET) || !accept(p, P_RBRACKET)) {
			perr(p, peek(p), "expected ']]' to close the attribute, found %s",
			     tok_desc(p, peek(p)));
			note_at(open->loc, "the '[[' is here");
			skip_to_close(p, P_RBRACKET);
			accept(p, P_RBRACKET);
		}
	}
	return type;
}

/* The table of __declspec names: name, DS_ flag. */
#define DECLSPECS(X)                                                          \
	X("genx_main", DS_GENX_MAIN) X("genx", DS_GENX)                       \
	X("genx_volatile", DS_GENX_VOLATILE) X("genx_stackcall", DS_STACKCALL)\
	X("cm_float_control", DS_FLOAT_CONTROL) X("genx_SIMT", DS_SIMT)

static int declspec_flag(const Token *t)
{
#define X(s, f)                                                               \
	if (t->len == (int)sizeof(s) - 1 && !memcmp(t->text, s, sizeof(s) - 1)) \
		return f;
	DECLSPECS(X)
#undef X
	return 0;
}

/* declspec := '__declspec' '(' (IDENT ['(' assign_expr ')'] [','])* ')' */
static void parse_declspec(Parser *p, DeclSpec *ds)
{
	next(p);
	Token *open = peek(p);
	if (!expect(p, P_LPAREN, "after '__declspec'"))
		return;
	while (peek(p)->kind == TK_IDENT || peek(p)->kind == TK_KEYWORD) {
		Token *t = next(p);
		int flag = declspec_flag(t);
		if (!flag)
			diag_at(DIAG_WARNING, t->loc, t->len, "unknown __declspec '%.*s' ignored",
			        t->len, t->text);
		ds->dspec |= flag;
		if (at(p, P_LPAREN)) {
			Node *e = parse_paren(p);
			if (flag)
				ds->ds_arg = e;
		}
		accept(p, P_COMMA);
	}
	expect_close(p, P_RPAREN, open, "the __declspec");
}

/* struct_spec := ('struct' | 'class' | 'union') [IDENT] ['{' field_decl* '}'] */
static TypeSpec *parse_struct_spec(Parser *p)
{
	Token *kw = next(p);
	if (kw->id == KW_UNION)
		perr(p, kw, "unions are not supported in CM");
	Token *nt = peek(p)->kind == TK_IDENT ? next(p) : NULL;
	const char *name = nt ? nt->text : NULL;
	declare(p, name, NAME_TYPE);
	TypeSpec *ts = ts_new(p, TS_NAMED, kw);
	ts->name = name;
	if (!at(p, P_LBRACE)) {
		if (!name)
			perr(p, peek(p), "expected a name or '{' after '%s', found %s",
			     keyword_names[kw->id], tok_desc(p, peek(p)));
		return ts;
	}
	Node *d = mk(p, ND_STRUCT_DECL, kw);
	d->name = name;
	d->name_loc = nt ? nt->loc : kw->loc;
	Token *open = next(p);
	while (!at(p, P_RBRACE) && !at_eof(p) && check_limit(p)) {
		int start = p->pos;
		p->quiet = false;
		parse_declaration(p, &d->args, CTX_FIELD, 0);
		if (p->pos == start)
			next(p);
	}
	expect_close(p, P_RBRACE, open, "the struct");
	ts->kind = TS_STRUCT_DEF;
	ts->def = d;
	return ts;
}

/* enumerator := IDENT ['=' cond_expr] */
static Node *parse_enumerator(Parser *p, bool scoped)
{
	Token *t = peek(p);
	if (t->kind != TK_IDENT) {
		perr(p, t, "expected an enumerator name, found %s", tok_desc(p, t));
		return NULL;
	}
	next(p);
	Node *e = mk(p, ND_ENUMERATOR, t);
	e->name = t->text;
	e->name_loc = t->loc;
	if (accept(p, P_ASSIGN))
		e->lhs = parse_cond(p);
	if (!scoped)
		declare(p, e->name, NAME_VALUE);
	return e;
}

/* enum_spec := 'enum' ['class' | 'struct'] [IDENT] [':' type_name]
 *              ['{' [enumerator (',' enumerator)* [',']] '}'] */
static TypeSpec *parse_enum_spec(Parser *p)
{
	Token *kw = next(p);
	bool scoped = accept_kw(p, KW_CLASS) || accept_kw(p, KW_STRUCT);
	Token *nt = peek(p)->kind == TK_IDENT ? next(p) : NULL;
	const char *name = nt ? nt->text : NULL;
	declare(p, name, NAME_TYPE);
	TypeSpec *ts = ts_new(p, TS_NAMED, kw);
	ts->name = name;
	TypeSpec *under = accept(p, P_COLON) ? parse_type_name(p) : NULL;
	if (!at(p, P_LBRACE)) {
		if (!name)
			perr(p, peek(p), "expected a name or '{' after 'enum', found %s",
			     tok_desc(p, peek(p)));
		return ts;
	}
	Node *d = mk(p, ND_ENUM_DECL, kw);
	d->name = name;
	d->name_loc = nt ? nt->loc : kw->loc;
	d->enum_class = scoped;
	d->ts = under;
	Token *open = next(p);
	bool save = p->no_gt;
	p->no_gt = false;
	while (!at(p, P_RBRACE) && !at_eof(p)) {
		Node *e = parse_enumerator(p, scoped);
		if (!e)
			break;
		nl_push(p->a, &d->args, e);
		if (!accept(p, P_COMMA))
			break;
	}
	p->no_gt = save;
	expect_close(p, P_RBRACE, open, "the enum");
	ts->kind = TS_ENUM_DEF;
	ts->def = d;
	return ts;
}

/* A keyword among the declaration specifiers; false if it is not one. */
static bool spec_keyword(Parser *p, DeclSpec *ds, ScalarWords *w, bool *is_const)
{
	Token *t = peek(p);
	switch (t->id) {
	case KW_CONST: *is_const = true; break;
	case KW_VOLATILE: case KW_REGISTER: case KW_RESTRICT: break;
	case KW_STATIC: ds->dspec |= DS_STATIC; break;
	case KW_INLINE: ds->dspec |= DS_INLINE; break;
	case KW_CONSTEXPR: ds->dspec |= DS_CONSTEXPR; break;
	case KW_TYPEDEF: ds->dspec |= DS_TYPEDEF; break;
	case KW_EXTERN:
		if (peek_n(p, 1)->kind == TK_STRING) {
			next(p);
			ds->dspec |= DS_EXTERN_C;
		} else {
			ds->dspec |= DS_EXTERN;
		}
		break;
	case KW_DECLSPEC:
		parse_declspec(p, ds);
		return true;
	default:
		if (ds->ts || (w->n && !is_scalar_kw(t->id)))
			return false;
		if (is_scalar_kw(t->id)) {
			count_scalar(p, w, t);
			break;
		}
		return false;
	}
	next(p);
	return true;
}

/* A type-specifier keyword that stands alone (vector<...>, struct, ...). */
static TypeSpec *type_keyword(Parser *p)
{
	Token *t = peek(p);
	switch (t->id) {
	case KW_VECTOR: case KW_MATRIX: case KW_VECTOR_REF: case KW_MATRIX_REF:
		return parse_vm_type(p);
	case KW_STRUCT: case KW_CLASS: case KW_UNION:
		return parse_struct_spec(p);
	case KW_ENUM:
		return parse_enum_spec(p);
	case KW_SURFACEINDEX: next(p); return ts_new(p, TS_SURFACE, t);
	case KW_SAMPLERINDEX: next(p); return ts_new(p, TS_SAMPLER, t);
	case KW_VMEINDEX: next(p); return ts_new(p, TS_VME, t);
	case KW_AUTO: next(p); return ts_new(p, TS_AUTO, t);
	case KW_TYPENAME: {
		next(p);
		TypeSpec *ts = ts_new(p, TS_NAMED, peek(p));
		if (peek(p)->kind == TK_IDENT || at(p, P_SCOPE))
			ts->name = take_qualname(p, NULL);
		else
			perr(p, peek(p), "expected a type name after 'typename', found %s",
			     tok_desc(p, peek(p)));
		return ts;
	}
	default:
		return NULL;
	}
}

/* decl_specs := (storage | cv | declspec | attributes | type_specifier)+
 * Storage classes, qualifiers and the type may come in any order
 * (`void inline f`, `const static int`). */
static void parse_decl_specs(Parser *p, DeclSpec *ds)
{
	memset(ds, 0, sizeof *ds);
	ScalarWords w = {0};
	bool is_const = false;
	for (;;) {
		Token *t = peek(p);
		if (at_attr(p)) {
			parse_attrs(p);
			continue;
		}
		if (t->kind == TK_KEYWORD) {
			if (spec_keyword(p, ds, &w, &is_const))
				continue;
			if (ds->ts || w.n)
				break;
			TypeSpec *ts = type_keyword(p);
			if (!ts)
				break;
			ds->ts = ts;
			continue;
		}
		if (!ds->ts && !w.n && (t->kind == TK_IDENT || tok_is(t, P_SCOPE)) &&
		    starts_type_at(p, 0)) {
			ds->ts = ts_new(p, TS_NAMED, t);
			ds->ts->name = take_qualname(p, NULL);
			continue;
		}
		break;
	}
	if (w.n)
		ds->ts = scalar_spec(p, &w);
	if (ds->ts)
		ds->ts->is_const |= is_const;
}

/* ptr_ops := ('*' | '&' | '&&' | 'const' | '__restrict')* */
static void parse_ptr_ops(Parser *p, TypeSpec *ts)
{
	for (;;) {
		if (accept(p, P_STAR))
			ts->is_pointer = true;
		else if (accept(p, P_AMP) || accept(p, P_ANDAND))
			ts->is_ref = true;
		else if (!accept_kw(p, KW_CONST) && !accept_kw(p, KW_RESTRICT))
			return;
	}
}

/* type_name := decl_specs ptr_ops */
static TypeSpec *parse_type_name(Parser *p)
{
	if (!enter(p)) {
		leave(p);
		return ts_new(p, TS_VOID, peek(p));
	}
	DeclSpec ds;
	parse_decl_specs(p, &ds);
	if (!ds.ts) {
		perr(p, peek(p), "expected a type, found %s", tok_desc(p, peek(p)));
		ds.ts = ts_new(p, TS_SCALAR, peek(p));
		ds.ts->sk = SK_INT;
	}
	parse_ptr_ops(p, ds.ts);
	leave(p);
	return ds.ts;
}

/* ------------------------------------------------------------ declarations */

/* declarator := ptr_ops attributes [qualified_name] attributes
 *               ('[' [expr] ']')* attributes */
static void parse_declarator(Parser *p, const TypeSpec *base, Declarator *d)
{
	memset(d, 0, sizeof *d);
	d->ts = ts_copy(p, base);
	parse_ptr_ops(p, d->ts);
	const char *a1 = parse_attrs(p);
	if (peek(p)->kind == TK_IDENT || (at(p, P_SCOPE) && peek_n(p, 1)->kind == TK_IDENT)) {
		d->tok = peek(p);
		d->name = take_qualname(p, NULL);
	}
	const char *a2 = parse_attrs(p);
	while (at(p, P_LBRACKET) && !at_attr(p)) {
		Token *open = next(p);
		nl_push(p->a, &d->dims, at(p, P_RBRACKET) ? NULL : parse_expr_nested(p));
		expect_close(p, P_RBRACKET, open, "the array size");
	}
	const char *a3 = parse_attrs(p);
	d->attr_type = a3 ? a3 : a2 ? a2 : a1;
}

/* The type of the second and later declarators of one declaration: a
 * struct/enum defined by the first is named, not defined again. */
static TypeSpec *ts_for_next(Parser *p, const TypeSpec *ts)
{
	TypeSpec *c = ts_copy(p, ts);
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
	return starts_type_at(p, 1);
}

/* param := decl_specs declarator ['=' assign_expr] */
static Node *parse_param(Parser *p)
{
	Token *start = peek(p);
	DeclSpec ds;
	parse_decl_specs(p, &ds);
	if (!ds.ts) {
		perr(p, start, "expected a parameter type, found %s", tok_desc(p, start));
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
	declare(p, d.name, NAME_VALUE);
	if (accept(p, P_ASSIGN))
		v->init = parse_assign(p);
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
				perr(p, next(p), "variadic functions are not supported in CM");
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
	expect_close(p, P_RPAREN, open, "the parameter list");
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
		perr(p, d->tok, "member functions are not supported in CM");
	if (p->in_template) {
		map_put(&p->templates, f->name, f);
		if (current_ns(p))
			map_put(&p->templates, qualify(current_ns(p), f->name), f);
	}
	scope_push(p, NULL, false);
	parse_params(p, f);
	while (accept_kw(p, KW_CONST))
		;
	if (at(p, P_LBRACE))
		f->body = parse_block(p);
	else if (!expect(p, P_SEMI, "after the function declaration"))
		sync(p);
	scope_pop(p);
	nl_push(p->a, out, f);
}

/* initializer := '=' (init_list | assign_expr) | '(' args ')' | init_list */
static void parse_initializer(Parser *p, Node *v)
{
	if (accept(p, P_ASSIGN))
		v->init = at(p, P_LBRACE) ? parse_init_list(p) : parse_assign(p);
	else if (at(p, P_LPAREN))
		parse_args(p, &v->args);
	else if (at(p, P_LBRACE))
		v->init = parse_init_list(p);
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
	declare(p, d->name, td ? NAME_TYPE : NAME_VALUE);
	if (!td)
		parse_initializer(p, n);
	return n;
}

/* declaration := decl_specs [init_declarator (',' init_declarator)*] ';'
 *              | decl_specs declarator params (block | ';')
 * init_declarator := declarator [initializer]
 * Pushes VAR_DECL / FUNC / TYPEDEF nodes (or a lone struct / enum
 * definition) to out. */
static void parse_declaration(Parser *p, NodeList *out, DeclCtx ctx, int extra)
{
	DeclSpec ds;
	parse_decl_specs(p, &ds);
	ds.dspec |= extra;
	if (!ds.ts) {
		perr(p, peek(p), "expected a type, found %s", tok_desc(p, peek(p)));
		sync(p);
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
			perr(p, peek(p), "expected a name in the declaration, found %s",
			     tok_desc(p, peek(p)));
			sync(p);
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
	if (!expect(p, P_SEMI, "after the declaration"))
		sync(p);
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
			tp->def->ts = parse_type_name(p);
		}
	} else {
		tp->ts = parse_type_name(p);
		if (peek(p)->kind == TK_IDENT)
			tp->name = next(p)->text;
		if (accept(p, P_ASSIGN)) {
			tp->def = NEW(p->a, TemplArg);
			tp->def->loc = peek(p)->loc;
			tp->def->expr = parse_cond(p);
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
	if (expect(p, P_LT, "after 'template'") && !close_angle(p)) {
		for (;;) {
			TemplParam tp = {0};
			int start = p->pos;
			parse_tparam(p, &tp);
			vec_push(&v, tp);
			if (p->pos == start || !accept(p, P_COMMA))
				break;
		}
		if (!close_angle(p))
			perr(p, peek(p), "expected '>' to close the template parameter list, found %s",
			     tok_desc(p, peek(p)));
	}
	p->no_gt = save;
	t->ntparams = v.len;
	t->tparams = NEWN(p->a, TemplParam, v.len ? v.len : 1);
	if (v.len)
		memcpy(t->tparams, v.data, sizeof(TemplParam) * (size_t)v.len);
	vec_free(&v);
}

/* template_decl := 'template' template_params declaration */
static void parse_template(Parser *p, NodeList *out, int extra)
{
	Token *kw = next(p);
	Node *t = mk(p, ND_TEMPLATE, kw);
	scope_push(p, NULL, true);
	parse_tparams(p, t);
	NodeList decl = {0};
	p->in_template++;
	parse_declaration(p, &decl, CTX_FILE, extra);
	p->in_template--;
	scope_pop(p);
	if (decl.len != 1 || (decl.data[0]->kind != ND_FUNC &&
	                      decl.data[0]->kind != ND_STRUCT_DECL)) {
		perr(p, kw, "a template must declare one function or struct");
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
static Node *parse_using(Parser *p)
{
	Token *kw = next(p);
	Node *n;
	if (accept_kw(p, KW_NAMESPACE)) {
		n = mk(p, ND_USING_NS, kw);
		if (peek(p)->kind == TK_IDENT || at(p, P_SCOPE)) {
			n->name_loc = peek(p)->loc;
			n->name = take_qualname(p, NULL);
			import_namespace(p, n->name);
		} else {
			perr(p, peek(p), "expected a namespace name, found %s", tok_desc(p, peek(p)));
		}
	} else if (peek(p)->kind == TK_IDENT && tok_is(peek_n(p, 1), P_ASSIGN)) {
		Token *nt = next(p);
		next(p);
		n = mk(p, ND_TYPEDEF, nt);
		n->name = nt->text;
		n->name_loc = nt->loc;
		n->ts = parse_type_name(p);
		declare(p, n->name, NAME_TYPE);
	} else {
		perr(p, peek(p), "expected 'namespace' or an alias 'NAME =' after 'using', found %s",
		     tok_desc(p, peek(p)));
		sync(p);
		return NULL;
	}
	if (!expect(p, P_SEMI, "after the using declaration"))
		sync(p);
	return n;
}

/* static_assert_decl := 'static_assert' '(' assign_expr [',' string] ')' ';' */
static Node *parse_static_assert(Parser *p)
{
	Node *n = mk(p, ND_STATIC_ASSERT, next(p));
	Token *open = peek(p);
	if (!expect(p, P_LPAREN, "after 'static_assert'")) {
		sync(p);
		return n;
	}
	n->lhs = parse_assign(p);
	if (accept(p, P_COMMA)) {
		if (peek(p)->kind == TK_STRING) {
			Node *s = parse_string(p);
			n->str = s->str;
			n->str_len = s->str_len;
		} else {
			perr(p, peek(p), "expected a string literal, found %s", tok_desc(p, peek(p)));
		}
	}
	expect_close(p, P_RPAREN, open, "the static_assert");
	if (!expect(p, P_SEMI, "after the static_assert"))
		sync(p);
	return n;
}

/* asm_decl := 'asm' ['volatile'] '(' ... ')' ';'   (sema rejects it) */
static Node *parse_asm(Parser *p)
{
	Node *n = mk(p, ND_ASM, next(p));
	accept_kw(p, KW_VOLATILE);
	Token *open = peek(p);
	if (expect(p, P_LPAREN, "after 'asm'")) {
		skip_to_close(p, P_RPAREN);
		(void)open;
	}
	if (!expect(p, P_SEMI, "after the asm statement"))
		sync(p);
	return n;
}

/* external_decls := external_decl*   (until EOF, or '}' when braced) */
static void parse_externals(Parser *p, NodeList *out, int extra, bool braced)
{
	while (!at_eof(p) && !(braced && at(p, P_RBRACE)) && check_limit(p)) {
		int start = p->pos;
		p->quiet = false;
		parse_external(p, out, extra);
		if (p->pos == start) {
			perr(p, peek(p), "expected a declaration, found %s", tok_desc(p, peek(p)));
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
		n->name = take_qualname(p, NULL);
	}
	Token *open = peek(p);
	if (!expect(p, P_LBRACE, "after the namespace name")) {
		sync(p);
		return n;
	}
	const char *outer = current_ns(p);
	const char *ns = !n->name ? outer : outer ? qualify(outer, n->name) : n->name;
	scope_push(p, ns, false);
	parse_externals(p, &n->args, 0, true);
	scope_pop(p);
	expect_close(p, P_RBRACE, open, "the namespace");
	return n;
}

/* A '#pragma unroll' outside a function, or before something else. */
static void stray_pragma(Parser *p, const Token *t)
{
	if (t->id == PRAGMA_UNROLL || t->id == PRAGMA_NOUNROLL)
		diag_at(DIAG_WARNING, t->loc, t->len > 0 ? t->len : 1,
		        "#pragma %s must precede a loop",
		        t->id == PRAGMA_UNROLL ? "unroll" : "nounroll");
}

static void push_if(Parser *p, NodeList *out, Node *n)
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
		stray_pragma(p, next(p));
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
		Token *open = next(p);
		parse_externals(p, out, extra | DS_EXTERN_C, true);
		expect_close(p, P_RBRACE, open, "the extern \"C\" block");
		return;
	}
	if (t->kind == TK_KEYWORD) {
		switch (t->id) {
		case KW_TEMPLATE: parse_template(p, out, extra); return;
		case KW_NAMESPACE: push_if(p, out, parse_namespace(p)); return;
		case KW_USING: push_if(p, out, parse_using(p)); return;
		case KW_STATIC_ASSERT: push_if(p, out, parse_static_assert(p)); return;
		case KW_ASM: push_if(p, out, parse_asm(p)); return;
		}
	}
	parse_declaration(p, out, CTX_FILE, extra);
}

/* ------------------------------------------------------------- statements */

/* block := '{' statement* '}' */
static Node *parse_block(Parser *p)
{
	Token *open = next(p);
	Node *b = mk(p, ND_BLOCK, open);
	scope_push(p, NULL, false);
	while (!at(p, P_RBRACE) && !at_eof(p) && check_limit(p)) {
		int start = p->pos;
		p->quiet = false;
		push_if(p, &b->args, parse_stmt(p));
		if (p->pos == start)
			next(p);
	}
	expect_close(p, P_RBRACE, open, "the block");
	scope_pop(p);
	return b;
}

/* A declaration as a statement: one DECL_STMT (see the file comment). */
static Node *parse_decl_stmt(Parser *p)
{
	Node *s = mk(p, ND_DECL_STMT, peek(p));
	NodeList items = {0};
	parse_declaration(p, &items, CTX_BLOCK, 0);
	for (int i = 0; i < items.len; i++) {
		Node *n = items.data[i];
		if (n->kind != ND_VAR_DECL && !s->lhs)
			s->lhs = n;
		else
			nl_push(p->a, &s->args, n);
	}
	return s;
}

/* expr_stmt := expr ';' */
static Node *parse_expr_stmt(Parser *p)
{
	Token *t = peek(p);
	if (t->kind == TK_IDENT && peek_n(p, 1)->kind == TK_IDENT && lookup(p, t->text) == 0) {
		perr(p, t, "unknown type name '%.*s'", t->len, t->text);
		sync(p);
		return NULL;
	}
	Node *s = mk(p, ND_EXPR_STMT, t);
	s->lhs = parse_expr(p);
	if (!expect(p, P_SEMI, "after expression"))
		sync(p);
	return s;
}

/* cond := '(' expr ')'  after if / while / switch */
static Node *parse_cond_paren(Parser *p, const char *kw)
{
	Token *open = peek(p);
	if (!expectf(p, P_LPAREN, "after '%s'", kw))
		return err_expr(p);
	Node *e = parse_expr_nested(p);
	expect_close(p, P_RPAREN, open, "the condition");
	return e;
}

/* A statement that must exist (a body): `}` gets an error, not a loop. */
static Node *parse_body(Parser *p)
{
	Node *s = parse_stmt(p);
	return s ? s : mk(p, ND_NULL_STMT, peek(p));
}

/* if_stmt := 'if' ['constexpr'] '(' expr ')' statement ['else' statement] */
static Node *parse_if(Parser *p)
{
	Node *n = mk(p, ND_IF, next(p));
	accept_kw(p, KW_CONSTEXPR);
	n->cond = parse_cond_paren(p, "if");
	n->then = parse_body(p);
	if (accept_kw(p, KW_ELSE))
		n->els = parse_body(p);
	return n;
}

/* while_stmt := 'while' '(' expr ')' statement */
static Node *parse_while(Parser *p)
{
	Node *n = mk(p, ND_WHILE, next(p));
	n->cond = parse_cond_paren(p, "while");
	n->body = parse_body(p);
	return n;
}

/* do_stmt := 'do' statement 'while' '(' expr ')' ';' */
static Node *parse_do(Parser *p)
{
	Node *n = mk(p, ND_DO, next(p));
	n->body = parse_body(p);
	if (!accept_kw(p, KW_WHILE)) {
		perr(p, peek(p), "expected 'while' after the body of 'do', found %s",
		     tok_desc(p, peek(p)));
		sync(p);
		return n;
	}
	n->cond = parse_cond_paren(p, "while");
	if (!expect(p, P_SEMI, "after 'do ... while (...)'"))
		sync(p);
	return n;
}

/* for_stmt := 'for' '(' (declaration | [expr] ';') [expr] ';' [expr] ')' statement */
static Node *parse_for(Parser *p)
{
	Node *n = mk(p, ND_FOR, next(p));
	Token *open = peek(p);
	if (!expect(p, P_LPAREN, "after 'for'")) {
		sync(p);
		return n;
	}
	scope_push(p, NULL, false);
	if (accept(p, P_SEMI))
		n->init = NULL;
	else if (starts_decl(p))
		n->init = parse_decl_stmt(p);
	else
		n->init = parse_expr_stmt(p);
	if (!at(p, P_SEMI))
		n->cond = parse_expr_nested(p);
	expect(p, P_SEMI, "after the loop condition");
	if (!at(p, P_RPAREN))
		n->inc = parse_expr_nested(p);
	expect_close(p, P_RPAREN, open, "the for header");
	n->body = parse_body(p);
	scope_pop(p);
	return n;
}

/* switch_stmt := 'switch' '(' expr ')' statement */
static Node *parse_switch(Parser *p)
{
	Node *n = mk(p, ND_SWITCH, next(p));
	n->cond = parse_cond_paren(p, "switch");
	n->body = parse_body(p);
	return n;
}

/* The statement a label marks; none before a closing '}'. */
static Node *labelled(Parser *p)
{
	if (at(p, P_RBRACE))
		return mk(p, ND_NULL_STMT, peek(p));
	return parse_body(p);
}

/* case := 'case' cond_expr ['...' cond_expr] ':' statement
 *       | 'default' ':' statement */
static Node *parse_case(Parser *p)
{
	Token *kw = next(p);
	Node *n = mk(p, kw->id == KW_CASE ? ND_CASE : ND_DEFAULT, kw);
	if (kw->id == KW_CASE) {
		n->lhs = parse_cond(p);
		if (accept(p, P_ELLIPSIS))
			n->rhs = parse_cond(p);
	}
	if (!expectf(p, P_COLON, "after '%s'", keyword_names[kw->id])) {
		sync(p);
		return n;
	}
	n->body = labelled(p);
	return n;
}

/* jump := 'break' ';' | 'continue' ';' | 'goto' IDENT ';' | 'return' [expr] ';' */
static Node *parse_jump(Parser *p)
{
	Token *kw = next(p);
	static const NodeKind kinds[KW_COUNT_] = {
		[KW_BREAK] = ND_BREAK, [KW_CONTINUE] = ND_CONTINUE,
		[KW_GOTO] = ND_GOTO, [KW_RETURN] = ND_RETURN,
	};
	Node *n = mk(p, kinds[kw->id], kw);
	if (kw->id == KW_GOTO) {
		if (peek(p)->kind == TK_IDENT) {
			n->name_loc = peek(p)->loc;
			n->name = next(p)->text;
		} else {
			perr(p, peek(p), "expected a label name after 'goto', found %s",
			     tok_desc(p, peek(p)));
		}
	} else if (kw->id == KW_RETURN && !at(p, P_SEMI)) {
		n->lhs = parse_expr_nested(p);
	}
	if (!expectf(p, P_SEMI, "after '%s'", keyword_names[kw->id]))
		sync(p);
	return n;
}

/* pragma_stmt := PRAGMA statement; `#pragma unroll[(n)]` / `nounroll` set
 * the following loop's unroll (0: full, n, 1 for nounroll). */
static Node *parse_pragma(Parser *p)
{
	Token *t = next(p);
	bool loop = at_kw(p, KW_FOR) || at_kw(p, KW_WHILE) || at_kw(p, KW_DO);
	if (!loop) {
		stray_pragma(p, t);
		return at(p, P_RBRACE) ? NULL : parse_stmt(p);
	}
	Node *n = parse_stmt(p);
	if (n && t->id == PRAGMA_UNROLL)
		n->unroll = (int)t->ival;
	else if (n && t->id == PRAGMA_NOUNROLL)
		n->unroll = 1;
	return n;
}

/* label := IDENT ':' statement */
static Node *parse_label(Parser *p)
{
	Token *t = next(p);
	next(p);
	Node *n = mk(p, ND_LABEL, t);
	n->name = t->text;
	n->name_loc = t->loc;
	n->body = labelled(p);
	return n;
}

/* A statement that starts with a keyword; NULL if it is not one of them. */
static Node *keyword_stmt(Parser *p, Token *t)
{
	switch (t->id) {
	case KW_IF: return parse_if(p);
	case KW_FOR: return parse_for(p);
	case KW_WHILE: return parse_while(p);
	case KW_DO: return parse_do(p);
	case KW_SWITCH: return parse_switch(p);
	case KW_CASE: case KW_DEFAULT: return parse_case(p);
	case KW_BREAK: case KW_CONTINUE: case KW_GOTO: case KW_RETURN:
		return parse_jump(p);
	case KW_STATIC_ASSERT: return parse_static_assert(p);
	case KW_ASM: return parse_asm(p);
	case KW_USING: {
		Node *u = parse_using(p);
		if (!u || u->kind == ND_USING_NS)
			return u;
		Node *s = mk(p, ND_DECL_STMT, t);
		s->lhs = u;
		return s;
	}
	case KW_TEMPLATE:
		perr(p, t, "a template cannot be declared inside a function");
		sync(p);
		return NULL;
	default:
		return NULL;
	}
}

/* statement := block | if_stmt | for_stmt | while_stmt | do_stmt
 *            | switch_stmt | case | jump | label | pragma_stmt
 *            | static_assert_decl | asm_decl | declaration | expr_stmt | ';' */
static Node *stmt_inner(Parser *p)
{
	Token *t = peek(p);
	if (tok_is(t, P_LBRACE))
		return parse_block(p);
	if (tok_is(t, P_SEMI))
		return mk(p, ND_NULL_STMT, next(p));
	if (t->kind == TK_PRAGMA)
		return parse_pragma(p);
	if (t->kind == TK_KEYWORD) {
		Node *n = keyword_stmt(p, t);
		if (n || p->pos != (int)(t - p->toks))
			return n;
	}
	if (t->kind == TK_IDENT && tok_is(peek_n(p, 1), P_COLON))
		return parse_label(p);
	if (starts_decl(p))
		return parse_decl_stmt(p);
	return parse_expr_stmt(p);
}

static Node *parse_stmt(Parser *p)
{
	if (!enter(p)) {
		leave(p);
		return NULL;
	}
	Node *n = stmt_inner(p);
	leave(p);
	return n;
}

/* ------------------------------------------------------------------ entry */

static const char *const builtin_names[] = {
	"__cm_simdcf_any",
#define BUILTIN(id, name, ...) name,
#include "front/builtins.def"
#undef BUILTIN
};

/* unit := external_decls EOF */
Node *parse_unit(Arena *a, Token *toks, int ntok)
{
	if (ntok <= 0 || toks[ntok - 1].kind != TK_EOF) {
		Token *t = NEWN(a, Token, ntok + 1);
		if (ntok > 0)
			memcpy(t, toks, sizeof(Token) * (size_t)ntok);
		t[ntok].kind = TK_EOF;
		t[ntok].loc = ntok > 0 ? toks[ntok - 1].loc : (Loc){0};
		t[ntok].text = "";
		toks = t;
		ntok++;
	}
	Parser p = {.a = a, .toks = toks, .ntok = ntok};
	scope_push(&p, NULL, false);
	p.global = p.scope;
	for (size_t i = 0; i < sizeof builtin_names / sizeof *builtin_names; i++)
		map_put(&p.builtins, intern_cstr(builtin_names[i]), (void *)1);
	Node *u = node_new(a, ND_UNIT, toks[0].loc);
	parse_externals(&p, &u->args, 0, false);
	scope_pop(&p);
	map_free(&p.templates);
	map_free(&p.builtins);
	return u;
}
