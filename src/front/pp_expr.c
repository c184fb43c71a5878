/* pp_expr.c — the evaluator of #if / #elif expressions.
 *
 * contract: pp_eval_int(t, n, ...) evaluates the n tokens of an #if line
 * (or a #pragma unroll count) after pp.c has replaced `defined` and
 * expanded macros (t[n] is an EOF token that locates "end of line" errors).  Remaining identifiers are 0 (`true`
 * is 1).  Values are 64-bit with C's signedness rules: an unsigned operand
 * makes the operation unsigned; shifts and division never hit undefined
 * behaviour (division by zero is diagnosed unless in an unevaluated
 * operand of &&, || or ?:).  The first error is reported with its location
 * and the call returns false; tokens left over are an error too, with the
 * caller's message.
 *
 * Grammar (precedence climbing over C's binary operator levels):
 *     cond    := binary ['?' cond ':' cond]
 *     binary  := unary (binop binary)*
 *     unary   := ('+' | '-' | '!' | '~') unary | primary
 *     primary := number | char | name | '(' cond (',' cond)* ')'
 */
#include <stdint.h>

#include "front.h"

static bool is_punct(const Token *t, Punct p) { return t->kind == TK_PUNCT && t->id == (int)p; }
static bool is_name(const Token *t) { return t->kind == TK_IDENT || t->kind == TK_KEYWORD; }

typedef struct {
	uint64_t v;
	bool u;   /* unsigned */
} PVal;

typedef struct {
	const Token *t;
	int n, i;
	int skip;      /* inside an unevaluated operand */
	int depth;     /* ev_unary and ev_cond calls on the C stack */
	bool err;
} Expr;

enum { MAX_PP_EXPR_DEPTH = 256 };

/* The recursion guard of ev_unary and ev_cond: false (and an error) when
 * the expression nests deeper than MAX_PP_EXPR_DEPTH. */
static bool ev_enter(Expr *e)
{
	if (++e->depth <= MAX_PP_EXPR_DEPTH)
		return true;
	if (!e->err) {
		const Token *t = &e->t[e->i < e->n ? e->i : e->n];
		diag_at(DIAG_ERROR, t->loc, t->len ? t->len : 1,
		        "preprocessor expression nests too deeply (more than %d levels)",
		        MAX_PP_EXPR_DEPTH);
	}
	e->err = true;
	e->i = e->n;
	return false;
}

static PVal ev_cond(Expr *e);

static void ev_error(Expr *e, const Token *at, const char *msg)
{
	if (!e->err)
		diag_at(DIAG_ERROR, at->loc, at->len ? at->len : 1, "%s", msg);
	e->err = true;
}

static const Token *ev_peek(Expr *e) { return &e->t[e->i < e->n ? e->i : e->n]; }

static PVal ev_primary(Expr *e)
{
	const Token *t = ev_peek(e);
	if (e->i >= e->n) {
		ev_error(e, &e->t[e->n], "expected value in expression");
		return (PVal){0, false};
	}
	e->i++;
	if (is_punct(t, P_LPAREN)) {
		PVal v = ev_cond(e);
		while (e->i < e->n && is_punct(ev_peek(e), P_COMMA)) {
			e->i++;
			v = ev_cond(e);
		}
		if (!is_punct(ev_peek(e), P_RPAREN) || e->i >= e->n)
			ev_error(e, ev_peek(e), "expected ')' in preprocessor expression");
		else
			e->i++;
		return v;
	}
	if (t->kind == TK_PPNUM || t->kind == TK_INT) {
		Token c = *t;
		if (!lex_convert_number(&c)) {
			e->err = true;
			return (PVal){0, false};
		}
		if (c.kind == TK_FLOAT) {
			ev_error(e, t, "floating point literal in preprocessor expression");
			return (PVal){0, false};
		}
		return (PVal){c.ival, c.lit == SK_UINT || c.lit == SK_ULONG};
	}
	if (t->kind == TK_CHAR)
		return (PVal){t->ival, false};
	if (is_name(t))
		return (PVal){t->kind == TK_KEYWORD && t->id == KW_TRUE, false};
	e->i--;
	if (t->kind == TK_OTHER)
		lex_report(t), e->err = true;
	ev_error(e, t, "invalid token at start of a preprocessor expression");
	e->i++;
	return (PVal){0, false};
}

static PVal unary_inner(Expr *e);

static PVal ev_unary(Expr *e)
{
	PVal v = {0, false};
	if (ev_enter(e))
		v = unary_inner(e);
	e->depth--;
	return v;
}

static PVal unary_inner(Expr *e)
{
	const Token *t = ev_peek(e);
	if (e->i < e->n && t->kind == TK_PUNCT) {
		int op = t->id;
		if (op == P_PLUS || op == P_MINUS || op == P_NOT || op == P_TILDE) {
			e->i++;
			PVal v = ev_unary(e);
			if (op == P_MINUS)
				v.v = 0 - v.v;
			else if (op == P_TILDE)
				v.v = ~v.v;
			else if (op == P_NOT)
				v = (PVal){!v.v, false};
			return v;
		}
	}
	return ev_primary(e);
}

static int binary_prec(const Token *t)
{
	if (t->kind != TK_PUNCT)
		return -1;
	switch (t->id) {
	case P_OROR: return 1;
	case P_ANDAND: return 2;
	case P_PIPE: return 3;
	case P_CARET: return 4;
	case P_AMP: return 5;
	case P_EQ: case P_NE: return 6;
	case P_LT: case P_GT: case P_LE: case P_GE: return 7;
	case P_LSHIFT: case P_RSHIFT: return 8;
	case P_PLUS: case P_MINUS: return 9;
	case P_STAR: case P_SLASH: case P_PERCENT: return 10;
	}
	return -1;
}

static PVal ev_divide(Expr *e, const Token *op, PVal a, PVal b, bool u)
{
	if (b.v == 0) {
		if (!e->skip)
			ev_error(e, op, "division by zero in preprocessor expression");
		return (PVal){0, u};
	}
	bool mod = op->id == P_PERCENT;
	if (u)
		return (PVal){mod ? a.v % b.v : a.v / b.v, true};
	int64_t x = (int64_t)a.v, y = (int64_t)b.v;
	if (x == INT64_MIN && y == -1)
		return (PVal){mod ? 0 : a.v, false};
	return (PVal){(uint64_t)(mod ? x % y : x / y), false};
}

static PVal ev_shift(PVal a, PVal b, bool left)
{
	uint64_t n = b.v;
	bool neg = !a.u && (int64_t)a.v < 0;
	if (!b.u && (int64_t)b.v < 0)
		n = 0;
	if (n >= 64)
		return (PVal){!left && neg ? UINT64_MAX : 0, a.u};
	if (left)
		return (PVal){a.v << n, a.u};
	if (a.u || !neg)
		return (PVal){a.v >> n, a.u};
	return (PVal){~(~a.v >> n), false};
}

static bool ev_less(PVal a, PVal b, bool u)
{
	return u ? a.v < b.v : (int64_t)a.v < (int64_t)b.v;
}

static PVal ev_apply(Expr *e, const Token *op, PVal a, PVal b)
{
	bool u = a.u || b.u;
	switch (op->id) {
	case P_PIPE: return (PVal){a.v | b.v, u};
	case P_CARET: return (PVal){a.v ^ b.v, u};
	case P_AMP: return (PVal){a.v & b.v, u};
	case P_EQ: return (PVal){a.v == b.v, false};
	case P_NE: return (PVal){a.v != b.v, false};
	case P_LT: return (PVal){ev_less(a, b, u), false};
	case P_GT: return (PVal){ev_less(b, a, u), false};
	case P_LE: return (PVal){!ev_less(b, a, u), false};
	case P_GE: return (PVal){!ev_less(a, b, u), false};
	case P_LSHIFT: return ev_shift(a, b, true);
	case P_RSHIFT: return ev_shift(a, b, false);
	case P_PLUS: return (PVal){a.v + b.v, u};
	case P_MINUS: return (PVal){a.v - b.v, u};
	case P_STAR: return (PVal){a.v * b.v, u};
	default: return ev_divide(e, op, a, b, u);
	}
}

/* binary := unary (op binary)*, by precedence climbing; && and || skip
 * (do not diagnose) their unevaluated right side. */
static PVal ev_binary(Expr *e, int min_prec)
{
	PVal a = ev_unary(e);
	for (;;) {
		const Token *op = ev_peek(e);
		int prec = e->i < e->n ? binary_prec(op) : -1;
		if (prec < min_prec)
			return a;
		e->i++;
		bool logical = op->id == P_ANDAND || op->id == P_OROR;
		bool dead = logical && (op->id == P_ANDAND ? !a.v : a.v);
		e->skip += dead;
		PVal b = ev_binary(e, prec + 1);
		e->skip -= dead;
		if (logical)
			a = (PVal){op->id == P_ANDAND ? a.v && b.v : a.v || b.v, false};
		else
			a = ev_apply(e, op, a, b);
	}
}

static PVal cond_inner(Expr *e);

static PVal ev_cond(Expr *e)
{
	PVal v = {0, false};
	if (ev_enter(e))
		v = cond_inner(e);
	e->depth--;
	return v;
}

static PVal cond_inner(Expr *e)
{
	PVal c = ev_binary(e, 1);
	if (e->i >= e->n || !is_punct(ev_peek(e), P_QUESTION))
		return c;
	e->i++;
	e->skip += !c.v;
	PVal a = ev_cond(e);
	e->skip -= !c.v;
	if (e->i >= e->n || !is_punct(ev_peek(e), P_COLON)) {
		ev_error(e, ev_peek(e), "expected ':' in preprocessor expression");
		return a;
	}
	e->i++;
	e->skip += !!c.v;
	PVal b = ev_cond(e);
	e->skip -= !!c.v;
	PVal r = c.v ? a : b;
	r.u = a.u || b.u;
	return r;
}

bool pp_eval_int(const Token *t, int n, const char *leftover, uint64_t *value,
                 bool *is_unsigned)
{
	Expr e = {.t = t, .n = n};
	PVal v = ev_cond(&e);
	if (!e.err && e.i < e.n)
		ev_error(&e, &e.t[e.i], leftover);
	*value = v.v;
	*is_unsigned = v.u;
	return !e.err;
}
