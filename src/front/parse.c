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

#include "parse.h"

/* ---------------------------------------------------------------- tokens */

/* Consumes one '>' of a template argument list, splitting '>>', '>=' and
 * '>>=' so that `vector<vector<int,2>,2>`-like nesting works. */
bool ps_close_angle(Parser *p)
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
const char *ps_tok_desc(Parser *p, const Token *t)
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

void ps_perr(Parser *p, const Token *t, const char *fmt, ...)
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
bool ps_expect(Parser *p, Punct c, const char *ctx)
{
	if (accept(p, c))
		return true;
	Token *t = peek(p), where = *t;
	Token *prev = p->pos > 0 ? tl_at(p->toks, p->pos - 1) : NULL;
	if (c == P_SEMI && prev && (t->loc.line != prev->loc.line || t->kind == TK_EOF)) {
		where.loc = prev->loc;
		where.loc.col += (uint32_t)prev->len;
		where.len = 1;
	}
	ps_perr(p, &where, "expected '%s' %s, found %s", punct_names[c], ctx, ps_tok_desc(p, t));
	return false;
}

/* ps_expect() with a context naming something: ctx is a format with one %s
 * (built only when the message is needed). */
bool ps_expectf(Parser *p, Punct c, const char *ctx, const char *name)
{
	if (at(p, c))
		return ps_expect(p, c, ctx);
	return ps_expect(p, c, arena_printf(p->a, ctx, name));
}

/* Skips tokens up to the closer matching an opener already consumed:
 * '}' is searched to its match; ')' and ']' stop before ';', '{' or '}'. */
void ps_skip_to_close(Parser *p, Punct close)
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
bool ps_expect_close(Parser *p, Punct close, const Token *open, const char *what)
{
	if (accept(p, close))
		return true;
	if (!p->quiet && !p->fatal) {
		ps_perr(p, peek(p), "unbalanced '%s' in %s: expected '%s', found %s",
		     punct_names[close == P_RPAREN ? P_LPAREN : close == P_RBRACKET
		                 ? P_LBRACKET : P_LBRACE],
		     what, punct_names[close], ps_tok_desc(p, peek(p)));
		note_at(open->loc, "the '%.*s' is here", open->len, open->text);
	}
	ps_skip_to_close(p, close);
	return false;
}

/* Resynchronizes after an error: skips to just after the next ';' at this
 * nesting level, or after a balanced {...}, or to just before a '}' that
 * closes the enclosing block. */
void ps_sync(Parser *p)
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
bool ps_check_limit(Parser *p)
{
	if (!p->fatal && !diag_too_many())
		return true;
	p->fatal = true;
	p->pos = p->ntok - 1;
	return false;
}

/* ------------------------------------------------------- nodes and scopes */

/* A placeholder expression after a syntax error (sema never sees it). */
Node *ps_err_expr(Parser *p) { return mk(p, ND_INT_LIT, peek(p)); }

TypeSpec *ps_ts_new(Parser *p, TypeSpecKind k, const Token *t)
{
	TypeSpec *ts = NEW(p->a, TypeSpec);
	ts->kind = k;
	ts->loc = t->loc;
	return ts;
}

TypeSpec *ps_ts_copy(Parser *p, const TypeSpec *t)
{
	TypeSpec *c = NEW(p->a, TypeSpec);
	*c = *t;
	return c;
}

void ps_scope_push(Parser *p, const char *ns, bool is_template)
{
	Scope *s = NEW(p->a, Scope);
	s->up = p->scope;
	s->ns = ns;
	s->is_template = is_template;
	p->scope = s;
}

void ps_scope_pop(Parser *p)
{
	Scope *s = p->scope;
	map_free(&s->names);
	p->scope = s->up;
}

/* The innermost namespace's qualified name, or NULL at global scope. */
const char *ps_current_ns(Parser *p)
{
	for (Scope *s = p->scope; s; s = s->up)
		if (s->ns)
			return s->ns;
	return NULL;
}

const char *ps_qualify(const char *ns, const char *name)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "%s::%s", ns, name);
	return intern(buf, n < (int)sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Records what `name` denotes in the innermost non-template scope; names
 * declared in a namespace are also visible qualified from everywhere. */
void ps_declare(Parser *p, const char *name, int what)
{
	if (!name)
		return;
	Scope *s = p->scope;
	while (s->is_template && s->up)
		s = s->up;
	map_put(&s->names, name, (void *)(intptr_t)what);
	if (s->ns)
		map_put(&p->global->names, ps_qualify(s->ns, name), (void *)(intptr_t)what);
}

int ps_lookup(Parser *p, const char *name)
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
const char *ps_take_qualname(Parser *p, Node *n)
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

bool ps_is_scalar_kw(int kw)
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

bool ps_is_type_kw(int kw)
{
	switch (kw) {
	case KW_VECTOR: case KW_MATRIX: case KW_VECTOR_REF: case KW_MATRIX_REF:
	case KW_SURFACEINDEX: case KW_SAMPLERINDEX: case KW_VMEINDEX: case KW_AUTO:
	case KW_STRUCT: case KW_CLASS: case KW_UNION: case KW_ENUM:
	case KW_TYPENAME: case KW_CONST: case KW_VOLATILE:
		return true;
	default:
		return ps_is_scalar_kw(kw);
	}
}

/* Does the token at offset k start a type? */
bool ps_starts_type_at(Parser *p, int k)
{
	Token *t = peek_n(p, k);
	if (t->kind == TK_KEYWORD)
		return ps_is_type_kw(t->id);
	int n;
	const char *name = qualname_at(p, k, &n);
	return name && ps_lookup(p, name) == NAME_TYPE;
}

bool ps_at_attr(Parser *p)
{
	return at(p, P_LBRACKET) && tok_is(peek_n(p, 1), P_LBRACKET);
}

/* Does a declaration start here (at statement level)?  A type followed
 * directly by '(' (`uint(x)`, `float(y)`) is a functional cast instead. */
bool ps_starts_decl(Parser *p)
{
	Token *t = peek(p);
	if (t->kind == TK_KEYWORD) {
		switch (t->id) {
		case KW_STATIC: case KW_EXTERN: case KW_INLINE: case KW_CONSTEXPR:
		case KW_REGISTER: case KW_TYPEDEF: case KW_DECLSPEC: case KW_RESTRICT:
			return true;
		}
		return ps_is_type_kw(t->id) &&
		       !(ps_is_scalar_kw(t->id) && tok_is(peek_n(p, 1), P_LPAREN));
	}
	if (ps_at_attr(p))
		return true;
	int n;
	const char *name = qualname_at(p, 0, &n);
	return name && ps_lookup(p, name) == NAME_TYPE && !tok_is(peek_n(p, n), P_LPAREN);
}

/* Names after which '<' starts template arguments. */
bool ps_is_template_name(Parser *p, const char *name)
{
	if (ps_lookup(p, name) == NAME_VALUE)
		return false;
	return map_get(&p->templates, name) || map_get(&p->builtins, name);
}

bool ps_is_cm_member(const Token *t)
{
	for (int i = 1; i < MB_COUNT_; i++)
		if ((int)strlen(member_names[i]) == t->len &&
		    !memcmp(member_names[i], t->text, (size_t)t->len))
			return true;
	return false;
}

/* ------------------------------------------------------------------ entry */

static const char *const builtin_names[] = {
	"__cm_simdcf_any",
#define BUILTIN(id, name, ...) name,
#include "front/builtins.def"
#undef BUILTIN
};

/* unit := external_decls EOF */
Node *parse_unit(Arena *a, TokenList *toks)
{
	if (toks->len <= 0 || tl_at(toks, toks->len - 1)->kind != TK_EOF) {
		Token eof = {.kind = TK_EOF, .text = ""};
		if (toks->len > 0)
			eof.loc = tl_at(toks, toks->len - 1)->loc;
		tl_push(toks, &eof);
	}
	Parser p = {.a = a, .toks = toks, .ntok = toks->len};
	ps_scope_push(&p, NULL, false);
	p.global = p.scope;
	for (size_t i = 0; i < sizeof builtin_names / sizeof *builtin_names; i++)
		map_put(&p.builtins, intern_cstr(builtin_names[i]), (void *)1);
	Node *u = node_new(a, ND_UNIT, tl_at(toks, 0)->loc);
	ps_externals(&p, &u->args, 0, false);
	ps_scope_pop(&p);
	map_free(&p.templates);
	map_free(&p.builtins);
	return u;
}
