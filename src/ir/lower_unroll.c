/* lower_unroll.c — full unrolling of constant-trip `for` loops, done while
 * lowering.
 *
 * requires: a checked ND_FOR; produces: the body lowered once per
 * iteration, straight-line, with the induction variable a constant in each
 * copy, so the region offsets it feeds become constants (fold) instead of
 * runtime offsets.  A loop qualifies when
 *   - its init sets one integer variable i to a constant,
 *   - its condition compares i with a constant (< <= > >= !=),
 *   - its increment is i++, ++i, i--, --i, i += C or i -= C,
 *   - its body never assigns i and has no break, continue, goto, label or
 *     return (they would need the loop's blocks),
 * and either `#pragma unroll` (full, or a count >= the trip count) marks it,
 * or it is unmarked, runs at most AUTO_TRIPS times and i is used as a
 * region offset (select / element / index arguments) in the body.
 * `#pragma nounroll` (and unroll(1)) keeps the loop.  Copies are bounded by
 * MAX_NODES AST nodes in all.  Anything else is lowered as a loop
 * (lower.c), so this only ever removes branches. */
#include <string.h>

#include "ir/lower.h"

enum { MAX_TRIPS = 256, AUTO_TRIPS = 16, MAX_NODES = 20000 };

typedef struct {
	Sym *iv;           /* the induction variable */
	bool bad;          /* assigns iv, or leaves the body */
	bool region_use;   /* iv is used inside a region or index argument */
	int nodes;
} Scan;

static Node *strip(Node *e)
{
	while (e && e->kind == ND_CAST && e->implicit && e->lhs)
		e = e->lhs;
	return e;
}

static bool is_iv(Node *e, Sym *iv)
{
	e = strip(e);
	return e && e->kind == ND_IDENT && e->sym == iv;
}

static bool mentions(Node *e, Sym *iv);

static bool list_mentions(NodeList *nl, Sym *iv)
{
	for (int i = 0; i < nl->len; i++)
		if (mentions(nl->data[i], iv))
			return true;
	return false;
}

static bool mentions(Node *e, Sym *iv)
{
	if (!e)
		return false;
	if (e->kind == ND_IDENT)
		return e->sym == iv;
	if (mentions(e->lhs, iv) || mentions(e->rhs, iv))
		return true;
	if (node_class(e->kind) == NODE_BASIC)
		return false;
	return list_mentions(&e->args, iv) || (node_class(e->kind) == NODE_FULL &&
	       (mentions(e->cond, iv) || mentions(e->then, iv) || mentions(e->els, iv)));
}

static void scan(Scan *s, Node *n);

static void scan_list(Scan *s, NodeList *nl)
{
	for (int i = 0; i < nl->len; i++)
		scan(s, nl->data[i]);
}

static void scan(Scan *s, Node *n)
{
	if (!n || s->bad)
		return;
	s->nodes++;
	switch (n->kind) {
	case ND_BREAK: case ND_CONTINUE: case ND_GOTO: case ND_LABEL: case ND_RETURN:
	case ND_SWITCH: case ND_CASE: case ND_DEFAULT:
		s->bad = true;
		return;
	case ND_ASSIGN:
		if (is_iv(n->lhs, s->iv))
			s->bad = true;
		break;
	case ND_UNARY: case ND_POSTFIX:
		if ((n->op == P_INC || n->op == P_DEC) && is_iv(n->lhs, s->iv))
			s->bad = true;
		break;
	case ND_MEMBER_CALL:
		if (list_mentions(&n->args, s->iv))
			s->region_use = true;
		break;
	case ND_CALL:
		if (n->call_kind == CALL_ELEMENT && list_mentions(&n->args, s->iv))
			s->region_use = true;
		break;
	case ND_INDEX:
		if (mentions(n->rhs, s->iv))
			s->region_use = true;
		break;
	default:
		break;
	}
	scan(s, n->lhs);
	scan(s, n->rhs);
	if (node_class(n->kind) == NODE_BASIC)
		return;
	if (node_class(n->kind) == NODE_FULL) {
		scan(s, n->cond);
		scan(s, n->then);
		scan(s, n->els);
		scan(s, n->init);
		scan(s, n->inc);
		scan(s, n->body);
	}
	scan_list(s, &n->args);
}

/* The variable and constant start of `int i = C` or `i = C`. */
static Sym *init_var(Node *init, int64_t *start)
{
	if (!init)
		return NULL;
	if (init->kind == ND_DECL_STMT && init->args.len == 1)
		init = init->args.data[0];
	if (init->kind == ND_VAR_DECL) {
		Node *v = init->init;
		if (!v && init->args.len)
			v = init->args.data[0];
		if (!init->sym || !v || !v->has_value || !ty_is_scalar(init->sym->ty) ||
		    ty_is_float(init->sym->ty))
			return NULL;
		*start = v->cval;
		return init->sym;
	}
	if (init->kind == ND_EXPR_STMT)
		init = init->lhs;
	if (init && init->kind == ND_ASSIGN && init->op == P_ASSIGN && init->rhs &&
	    init->rhs->has_value) {
		Node *x = strip(init->lhs);
		if (x && x->kind == ND_IDENT && x->sym && ty_is_scalar(x->sym->ty) &&
		    !ty_is_float(x->sym->ty)) {
			*start = init->rhs->cval;
			return x->sym;
		}
	}
	return NULL;
}

/* The step of i++, ++i, i--, --i, i += C, i -= C; 0 if not one of them. */
static int64_t step_of(Node *inc, Sym *iv)
{
	if (!inc || !is_iv(inc->lhs, iv))
		return 0;
	if (inc->kind == ND_UNARY || inc->kind == ND_POSTFIX)
		return inc->op == P_INC ? 1 : inc->op == P_DEC ? -1 : 0;
	if (inc->kind == ND_ASSIGN && inc->rhs && inc->rhs->has_value)
		return inc->op == P_ADD_ASSIGN ? inc->rhs->cval :
		       inc->op == P_SUB_ASSIGN ? -inc->rhs->cval : 0;
	return 0;
}

static bool holds(int op, int64_t v, int64_t bound)
{
	switch (op) {
	case P_LT: return v < bound;
	case P_LE: return v <= bound;
	case P_GT: return v > bound;
	case P_GE: return v >= bound;
	case P_NE: return v != bound;
	default: return false;
	}
}

/* Iterations of the loop, or -1 when not a constant below MAX_TRIPS. */
static int trips(Node *cond, Sym *iv, int64_t start, int64_t step)
{
	if (!cond || cond->kind != ND_BINARY || !is_iv(cond->lhs, iv) || !cond->rhs ||
	    !cond->rhs->has_value || step == 0)
		return -1;
	int64_t v = start;
	int n = 0;
	while (holds(cond->op, v, cond->rhs->cval)) {
		if (++n > MAX_TRIPS)
			return -1;
		v += step;
		if (v > INT32_MAX || v < INT32_MIN)
			return -1;
	}
	return n;
}

bool lw_unroll(L *l, Node *n)
{
	if (n->kind != ND_FOR || n->unroll == 1)
		return false;
	int64_t start = 0;
	Sym *iv = init_var(n->init, &start);
	if (!iv)
		return false;
	int64_t step = step_of(n->inc, iv);
	int t = trips(n->cond, iv, start, step);
	if (t < 0)
		return false;
	Scan s = {.iv = iv};
	scan(&s, n->body);
	if (s.bad || (int64_t)s.nodes * t > MAX_NODES)
		return false;
	bool want = n->unroll == 0 || (n->unroll > 1 && n->unroll >= t) ||
	            (n->unroll < 0 && t <= AUTO_TRIPS && s.region_use);
	if (!want)
		return false;
	lw_stmt(l, n->init);
	for (int k = 0; k < t; k++) {
		lw_stmt(l, n->body);
		lw_expr(l, n->inc);
	}
	return true;
}
