/* parse_expr.c — the parser's expressions (parse.h; the tree shapes are in
 * parse.c's comment).
 *
 * Precedence climbing for binary operators over a recursive-descent unary /
 * postfix / primary layer.  What parse.c's name tables know decides the
 * C++ ambiguities: `T(x)` and `(T)x` are casts when T names a type, `f<`
 * opens template arguments only for a function template, a builtin or a
 * CM member (`.select<...>`, `.template f<...>`); while p->no_gt is set a
 * '>' ends the expression instead of comparing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static Node *parse_unary(Parser *p);

/* An expression inside brackets: '>' is an operator again. */
Node *ps_expr_nested(Parser *p)
{
	bool save = p->no_gt;
	p->no_gt = false;
	Node *e = ps_expr(p);
	p->no_gt = save;
	return e;
}

/* args := '(' [assign_expr (',' assign_expr)*] ')' */
void ps_args(Parser *p, NodeList *out)
{
	Token *open = next(p);
	bool save = p->no_gt;
	p->no_gt = false;
	if (!at(p, P_RPAREN)) {
		for (;;) {
			nl_push(p->a, out, ps_assign(p));
			if (!accept(p, P_COMMA))
				break;
		}
	}
	p->no_gt = save;
	ps_expect_close(p, P_RPAREN, open, "the argument list");
}

/* template_args := '<' [template_arg (',' template_arg)*] '>'
 * template_arg := type_name | cond_expr with no top-level '>' */
void ps_targs(Parser *p, Node *n, const char *what)
{
	VEC(TemplArg) v = {0};
	bool save = p->no_gt;
	next(p);
	n->has_targs = true;
	if (!ps_close_angle(p)) {
		for (;;) {
			TemplArg ta = {.loc = peek(p)->loc};
			if (ps_starts_type_at(p, 0)) {
				ta.ts = ps_type_name(p);
			} else {
				p->no_gt = true;
				ta.expr = ps_cond(p);
				p->no_gt = save;
			}
			vec_push(&v, ta);
			if (!accept(p, P_COMMA))
				break;
		}
		if (!ps_close_angle(p))
			ps_perr(p, peek(p), "expected '>' to close the template argument list of '%s', found %s",
			     what, ps_tok_desc(p, peek(p)));
	}
	n->ntargs = v.len;
	n->targs = NEWN(p->a, TemplArg, v.len ? v.len : 1);
	if (v.len)
		memcpy(n->targs, v.data, sizeof(TemplArg) * (size_t)v.len);
	vec_free(&v);
}

/* string := STRING+  (adjacent literals concatenate) */
Node *ps_string(Parser *p)
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
	n->ts = ps_type_name(p);
	if (at(p, P_LPAREN))
		ps_args(p, &n->args);
	else if (at(p, P_LBRACE))
		n->args = ps_init_list(p)->args;
	else
		ps_perr(p, peek(p), "expected '(' after a type name in an expression, found %s",
		     ps_tok_desc(p, peek(p)));
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
	if (!ps_expectf(p, P_LT, "after '%s'", what))
		return n;
	bool save = p->no_gt;
	p->no_gt = false;
	n->ts = ps_type_name(p);
	p->no_gt = save;
	if (!ps_close_angle(p)) {
		ps_perr(p, peek(p), "expected '>' to close the template argument list of '%s', found %s",
		     what, ps_tok_desc(p, peek(p)));
		return n;
	}
	Token *open = peek(p);
	if (!ps_expectf(p, P_LPAREN, "after '%s<...>'", what))
		return n;
	nl_push(p->a, &n->args, ps_expr_nested(p));
	ps_expect_close(p, P_RPAREN, open, "the cast");
	return n;
}

/* name_expr := qualified_name [template_args '(' args ')'] */
static Node *parse_name_expr(Parser *p)
{
	Token *t = peek(p);
	Node *id = mk(p, ND_IDENT, t);
	id->name = ps_take_qualname(p, id);
	if (!at(p, P_LT) || !ps_is_template_name(p, id->name))
		return id;
	Node *c = mk(p, ND_CALL, t);
	c->len = id->len;
	c->lhs = id;
	ps_targs(p, c, id->name);
	if (at(p, P_LPAREN))
		ps_args(p, &c->args);
	else
		ps_perr(p, peek(p), "expected '(' after the template arguments of '%s', found %s",
		     id->name, ps_tok_desc(p, peek(p)));
	return c;
}

/* paren_expr := '(' expr ')' */
Node *ps_paren(Parser *p)
{
	Token *open = next(p);
	Node *e = ps_expr_nested(p);
	ps_expect_close(p, P_RPAREN, open, "the expression");
	return e;
}

static Node *parse_literal(Parser *p)
{
	Token *t = peek(p);
	if (t->kind == TK_PPNUM && !lex_convert_number(t)) {
		next(p);
		p->quiet = true;   /* lex_convert_number reported it */
		return ps_err_expr(p);
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
		return ps_string(p);
	case TK_IDENT:
		return ps_starts_type_at(p, 0) ? parse_functional_cast(p) : parse_name_expr(p);
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
		if (ps_is_type_kw(t->id))
			return parse_functional_cast(p);
		break;
	case TK_PUNCT:
		if (t->id == P_LPAREN)
			return ps_paren(p);
		if (t->id == P_LBRACE)
			return ps_init_list(p);
		if (t->id == P_SCOPE)
			return ps_starts_type_at(p, 0) ? parse_functional_cast(p) : parse_name_expr(p);
		break;
	default:
		break;
	}
	ps_perr(p, t, "expected an expression, found %s", ps_tok_desc(p, t));
	return ps_err_expr(p);
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
		ps_perr(p, nt, "expected a member name after '%s', found %s",
		     punct_names[dot->id], ps_tok_desc(p, nt));
		return e;
	}
	next(p);
	bool targs = at(p, P_LT) && (tkw || ps_is_cm_member(nt));
	Node *n = mk(p, targs || at(p, P_LPAREN) ? ND_MEMBER_CALL : ND_MEMBER, nt);
	n->op = dot->id;
	n->lhs = e;
	n->name = nt->text;
	n->name_loc = nt->loc;
	n->template_kw = tkw;
	if (targs)
		ps_targs(p, n, nt->text);
	if (at(p, P_LPAREN))
		ps_args(p, &n->args);
	else if (targs)
		ps_perr(p, peek(p), "expected '(' after the template arguments of '%s', found %s",
		     n->name, ps_tok_desc(p, peek(p)));
	return n;
}

/* postfix := primary ('(' args ')' | '[' expr ']' | member | '++' | '--')* */
static Node *parse_postfix(Parser *p, Node *e)
{
	int depth = p->depth;
	for (;; enter(p)) {
		Token *t = peek(p);
		if (tok_is(t, P_LPAREN)) {
			Node *c = mk(p, ND_CALL, t);
			c->loc = e->loc;
			c->len = e->len;
			c->lhs = e;
			ps_args(p, &c->args);
			e = c;
		} else if (tok_is(t, P_LBRACKET)) {
			Node *n = mk(p, ND_INDEX, next(p));
			n->lhs = e;
			n->rhs = ps_expr_nested(p);
			ps_expect_close(p, P_RBRACKET, t, "the subscript");
			e = n;
		} else if (tok_is(t, P_DOT) || tok_is(t, P_ARROW)) {
			e = parse_member(p, e);
		} else if (tok_is(t, P_INC) || tok_is(t, P_DEC)) {
			Node *n = mk(p, ND_POSTFIX, next(p));
			n->op = t->id;
			n->lhs = e;
			e = n;
		} else {
			p->depth = depth;
			return e;
		}
	}
}

/* sizeof_expr := 'sizeof' '(' type_name ')' | 'sizeof' unary_expr */
static Node *parse_sizeof(Parser *p)
{
	Node *n = mk(p, ND_SIZEOF, next(p));
	if (at(p, P_LPAREN) && ps_starts_type_at(p, 1)) {
		Token *open = next(p);
		bool save = p->no_gt;
		p->no_gt = false;
		n->ts = ps_type_name(p);
		p->no_gt = save;
		ps_expect_close(p, P_RPAREN, open, "the sizeof");
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
	n->ts = ps_type_name(p);
	p->no_gt = save;
	ps_expect_close(p, P_RPAREN, open, "the cast");
	nl_push(p->a, &n->args, parse_unary(p));
	return n;
}

/* After '(' and the start of a type: a C cast `(T)x`, or a parenthesized
 * expression that starts with a functional cast, `(T(x) - 1)` or
 * `(vector<int, 4>(v) & 7)`?  A cast when the first '(', '{' or ')' outside
 * template arguments is the closing ')'. */
static bool paren_is_cast(Parser *p)
{
	int angle = 0, paren = 0;
	for (int k = 1;; k++) {
		Token *t = peek_n(p, k);
		if (t->kind == TK_EOF)
			return true;
		if (t->kind != TK_PUNCT)
			continue;
		switch (t->id) {
		case P_LPAREN:
			if (paren == 0 && angle <= 0)
				return false;
			paren++;
			break;
		case P_RPAREN:
			if (paren == 0)
				return true;
			paren--;
			break;
		case P_LBRACE:
			if (paren == 0 && angle <= 0)
				return false;
			break;
		case P_SEMI:
			return true;
		case P_LT:
			angle += paren == 0;
			break;
		case P_GT:
			angle -= paren == 0;
			break;
		case P_RSHIFT:
			angle -= paren == 0 ? 2 : 0;
			break;
		default:
			break;
		}
	}
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
			if (ps_starts_type_at(p, 1) && paren_is_cast(p))
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
		return ps_err_expr(p);
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
	int depth = p->depth;
	Node *lhs = parse_unary(p);
	for (;;) {
		Token *t = peek(p);
		int prec = binary_prec(p, t);
		if (!prec || prec < minprec || !enter(p)) {
			p->depth = depth;
			return lhs;
		}
		next(p);
		Node *n = mk(p, ND_BINARY, t);
		n->op = t->id;
		n->lhs = lhs;
		n->rhs = parse_binary(p, prec + 1);
		lhs = n;
	}
}

/* cond_expr := binary ['?' expr ':' assign_expr] */
Node *ps_cond(Parser *p)
{
	Node *c = parse_binary(p, 1);
	if (!at(p, P_QUESTION))
		return c;
	Node *n = mk(p, ND_COND, next(p));
	n->cond = c;
	n->then = ps_expr_nested(p);
	if (!ps_expect(p, P_COLON, "in the conditional expression"))
		return n;
	if (enter(p))
		n->els = ps_assign(p);
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
static Node *assign_inner(Parser *p)
{
	Node *lhs = ps_cond(p);
	Token *t = peek(p);
	if (t->kind != TK_PUNCT || !is_assign_op(t->id))
		return lhs;
	Node *n = mk(p, ND_ASSIGN, next(p));
	n->op = t->id;
	n->lhs = lhs;
	if (enter(p))
		n->rhs = ps_assign(p);
	else
		n->rhs = ps_err_expr(p);
	leave(p);
	return n;
}

Node *ps_assign(Parser *p)
{
	Node *n = enter(p) ? assign_inner(p) : ps_err_expr(p);
	leave(p);
	return n;
}

/* expr := assign_expr (',' assign_expr)* */
Node *ps_expr(Parser *p)
{
	int depth = p->depth;
	Node *e = ps_assign(p);
	while (at(p, P_COMMA) && enter(p)) {
		Node *c = mk(p, ND_COMMA, next(p));
		c->lhs = e;
		c->rhs = ps_assign(p);
		e = c;
	}
	p->depth = depth;
	return e;
}

/* init_list := '{' [init (',' init)* [',']] '}'   init := init_list | assign_expr */
Node *ps_init_list(Parser *p)
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
		nl_push(p->a, &n->args, at(p, P_LBRACE) ? ps_init_list(p) : ps_assign(p));
		if (!accept(p, P_COMMA))
			break;
	}
	p->no_gt = save;
	ps_expect_close(p, P_RBRACE, open, "the initializer list");
	leave(p);
	return n;
}
