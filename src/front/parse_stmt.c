/* parse_stmt.c — the parser's statements (parse.h; the tree shapes are in
 * parse.c's comment).
 *
 * A statement starting with a declaration (ps_starts_decl) is a DECL_STMT,
 * otherwise a keyword selects the rule, else it is an expression statement
 * or a label.  A `#pragma unroll[(n)]` / `nounroll` marks the loop after it.
 * Each statement recovers on its own: after an error ps_sync skips to the
 * next ';' or '}', so a block keeps parsing its following statements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static Node *parse_stmt(Parser *p);

/* block := '{' statement* '}'
 * Between statements the tokens before the previous one are freed (a
 * kernel may be most of the unit): a rule that holds a token across a
 * statement it parses keeps a copy (open here, parse_pragma's, and the
 * braced declarations' of parse_decl.c). */
Node *ps_block(Parser *p)
{
	Token open = *next(p);
	Node *b = mk(p, ND_BLOCK, &open);
	ps_scope_push(p, NULL, false);
	while (!at(p, P_RBRACE) && !at_eof(p) && ps_check_limit(p)) {
		int start = p->pos;
		tl_release(p->toks, start - 1);
		p->quiet = false;
		ps_push_if(p, &b->args, parse_stmt(p));
		if (p->pos == start)
			next(p);
	}
	ps_expect_close(p, P_RBRACE, &open, "the block");
	ps_scope_pop(p);
	return b;
}

/* A declaration as a statement: one DECL_STMT (see the file comment). */
static Node *parse_decl_stmt(Parser *p)
{
	Node *s = mk(p, ND_DECL_STMT, peek(p));
	NodeList items = {0};
	ps_declaration(p, &items, CTX_BLOCK, 0);
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
	if (t->kind == TK_IDENT && peek_n(p, 1)->kind == TK_IDENT && ps_lookup(p, t->text) == 0) {
		ps_perr(p, t, "unknown type name '%.*s'", t->len, t->text);
		ps_sync(p);
		return NULL;
	}
	Node *s = mk(p, ND_EXPR_STMT, t);
	s->lhs = ps_expr(p);
	if (!ps_expect(p, P_SEMI, "after expression"))
		ps_sync(p);
	return s;
}

/* cond := '(' expr ')'  after if / while / switch */
static Node *parse_cond_paren(Parser *p, const char *kw)
{
	Token *open = peek(p);
	if (!ps_expectf(p, P_LPAREN, "after '%s'", kw))
		return ps_err_expr(p);
	Node *e = ps_expr_nested(p);
	ps_expect_close(p, P_RPAREN, open, "the condition");
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
		ps_perr(p, peek(p), "expected 'while' after the body of 'do', found %s",
		     ps_tok_desc(p, peek(p)));
		ps_sync(p);
		return n;
	}
	n->cond = parse_cond_paren(p, "while");
	if (!ps_expect(p, P_SEMI, "after 'do ... while (...)'"))
		ps_sync(p);
	return n;
}

/* for_stmt := 'for' '(' (declaration | [expr] ';') [expr] ';' [expr] ')' statement */
static Node *parse_for(Parser *p)
{
	Node *n = mk(p, ND_FOR, next(p));
	Token *open = peek(p);
	if (!ps_expect(p, P_LPAREN, "after 'for'")) {
		ps_sync(p);
		return n;
	}
	ps_scope_push(p, NULL, false);
	if (accept(p, P_SEMI))
		n->init = NULL;
	else if (ps_starts_decl(p))
		n->init = parse_decl_stmt(p);
	else
		n->init = parse_expr_stmt(p);
	if (!at(p, P_SEMI))
		n->cond = ps_expr_nested(p);
	ps_expect(p, P_SEMI, "after the loop condition");
	if (!at(p, P_RPAREN))
		n->inc = ps_expr_nested(p);
	ps_expect_close(p, P_RPAREN, open, "the for header");
	n->body = parse_body(p);
	ps_scope_pop(p);
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
		n->lhs = ps_cond(p);
		if (accept(p, P_ELLIPSIS))
			n->rhs = ps_cond(p);
	}
	if (!ps_expectf(p, P_COLON, "after '%s'", keyword_names[kw->id])) {
		ps_sync(p);
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
			ps_perr(p, peek(p), "expected a label name after 'goto', found %s",
			     ps_tok_desc(p, peek(p)));
		}
	} else if (kw->id == KW_RETURN && !at(p, P_SEMI)) {
		n->lhs = ps_expr_nested(p);
	}
	if (!ps_expectf(p, P_SEMI, "after '%s'", keyword_names[kw->id]))
		ps_sync(p);
	return n;
}

/* pragma_stmt := PRAGMA statement; `#pragma unroll[(n)]` / `nounroll` set
 * the following loop's unroll (0: full, n, 1 for nounroll). */
static Node *parse_pragma(Parser *p)
{
	Token t = *next(p);   /* a copy: see ps_block */
	bool loop = at_kw(p, KW_FOR) || at_kw(p, KW_WHILE) || at_kw(p, KW_DO);
	if (!loop) {
		ps_stray_pragma(p, &t);
		return at(p, P_RBRACE) ? NULL : parse_stmt(p);
	}
	Node *n = parse_stmt(p);
	if (n && t.id == PRAGMA_UNROLL)
		n->unroll = (int)t.ival;
	else if (n && t.id == PRAGMA_NOUNROLL)
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
	case KW_STATIC_ASSERT: return ps_static_assert(p);
	case KW_ASM: return ps_asm(p);
	case KW_USING: {
		Node *u = ps_using(p);
		if (!u || u->kind == ND_USING_NS)
			return u;
		Node *s = mk(p, ND_DECL_STMT, t);
		s->lhs = u;
		return s;
	}
	case KW_TEMPLATE:
		ps_perr(p, t, "a template cannot be declared inside a function");
		ps_sync(p);
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
		return ps_block(p);
	if (tok_is(t, P_SEMI))
		return mk(p, ND_NULL_STMT, next(p));
	if (t->kind == TK_PRAGMA)
		return parse_pragma(p);
	if (t->kind == TK_KEYWORD) {
		int at_kw = p->pos;
		Node *n = keyword_stmt(p, t);
		if (n || p->pos != at_kw)
			return n;
	}
	if (t->kind == TK_IDENT && tok_is(peek_n(p, 1), P_COLON))
		return parse_label(p);
	if (ps_starts_decl(p))
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
