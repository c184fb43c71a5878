/* ast.c — node construction, deep copies (template instantiation checks a
 * fresh copy of the template's body) and the name tables for dumps. */
#include <string.h>

#include "front.h"

#if defined(__SANITIZE_ADDRESS__)
#define AST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AST_ASAN 1
#endif
#endif

const char *node_kind_names[ND_COUNT_] = {
#define X(n) #n,
	NODE_KINDS(X)
#undef X
};

const char *member_names[MB_COUNT_] = {
	"",
#define X(n, s) s,
	CM_MEMBERS(X)
#undef X
};

NodeClass node_class(NodeKind k)
{
	switch (k) {
	case ND_IDENT: case ND_INT_LIT: case ND_FLOAT_LIT: case ND_BOOL_LIT: case ND_NULLPTR:
	case ND_UNARY: case ND_POSTFIX: case ND_BINARY: case ND_ASSIGN: case ND_COMMA:
	case ND_EXPR_STMT: case ND_RETURN:
		return NODE_BASIC;
	case ND_CALL: case ND_MEMBER_CALL: case ND_MEMBER: case ND_INDEX: case ND_CAST:
	case ND_INIT_LIST: case ND_BLOCK: case ND_DECL_STMT:
		return NODE_CALL;
	default:
		return NODE_FULL;
	}
}

size_t node_size(NodeKind k)
{
	switch (node_class(k)) {
	case NODE_BASIC: return offsetof(Node, args);
	case NODE_CALL: return offsetof(Node, cond);
	default: return sizeof(Node);
	}
}

/* A node of kind k.  Under AddressSanitizer each node is a malloc block of
 * its own, so that a field outside its class is an overflow that ASan
 * reports (run with ASAN_OPTIONS=redzone=256 to cover the whole Node). */
static Node *node_alloc(Arena *a, NodeKind k)
{
#ifdef AST_ASAN
	Node *n = xcalloc(1, node_size(k));
	arena_adopt(a, n);
	return n;
#else
	return arena_alloc(a, node_size(k));
#endif
}

/* Sema turns a CALL of a type into a CAST: kinds change only within a
 * class, so a node never outgrows its allocation. */
Node *node_new(Arena *a, NodeKind k, Loc loc)
{
	Node *n = node_alloc(a, k);
	n->kind = k;
	n->loc = loc;
	if (node_class(k) == NODE_FULL)
		n->unroll = -1;
	return n;
}

/* Node lists live in the arena like the nodes: growing copies the array
 * and leaves the old one to the arena. */
void nl_push(Arena *a, NodeList *l, Node *n)
{
	if (l->len == l->cap) {
		int nc = l->cap ? l->cap * 2 : 4;
		Node **d = NEWN(a, Node *, nc);
		if (l->len)
			memcpy(d, l->data, sizeof(Node *) * (size_t)l->len);
		l->data = d;
		l->cap = nc;
	}
	l->data[l->len++] = n;
}

static TemplArg *targs_clone(Arena *a, const TemplArg *t, int n)
{
	if (!t)
		return NULL;
	TemplArg *c = NEWN(a, TemplArg, n > 0 ? n : 1);
	for (int i = 0; i < n; i++) {
		c[i].loc = t[i].loc;
		c[i].ts = ts_clone(a, t[i].ts);
		c[i].expr = ast_clone(a, t[i].expr);
	}
	return c;
}

TypeSpec *ts_clone(Arena *a, const TypeSpec *t)
{
	if (!t)
		return NULL;
	TypeSpec *c = NEW(a, TypeSpec);
	*c = *t;
	c->elem = ts_clone(a, t->elem);
	c->dims[0] = ast_clone(a, t->dims[0]);
	c->dims[1] = ast_clone(a, t->dims[1]);
	c->def = ast_clone(a, t->def);
	c->resolved = NULL;
	return c;
}

static void list_clone(Arena *a, NodeList *dst, const NodeList *src)
{
	memset(dst, 0, sizeof *dst);
	if (!src->len)
		return;
	for (int i = 0; i < src->len; i++)
		nl_push(a, dst, ast_clone(a, src->data[i]));
}

/* Copies the syntactic tree.  Sema results are cleared so the copy can be
 * checked again under other template arguments. */
Node *ast_clone(Arena *a, const Node *n)
{
	if (!n)
		return NULL;
	NodeClass k = node_class(n->kind);
	Node *c = node_alloc(a, n->kind);
	memcpy(c, n, node_size(n->kind));
	c->lhs = ast_clone(a, n->lhs);
	c->rhs = ast_clone(a, n->rhs);
	c->ty = NULL;
	c->sym = NULL;
	c->lvalue = false;
	c->has_value = false;
	if (k == NODE_BASIC)
		return c;
	list_clone(a, &c->args, &n->args);
	c->ts = ts_clone(a, n->ts);
	c->targs = targs_clone(a, n->targs, n->ntargs);
	c->call_kind = CALL_UNRESOLVED;
	c->builtin = 0;
	c->member = MB_NONE_;
	c->ncargs = 0;
	c->targ_type = NULL;
	if (k == NODE_CALL)
		return c;
	c->cond = ast_clone(a, n->cond);
	c->then = ast_clone(a, n->then);
	c->els = ast_clone(a, n->els);
	c->init = ast_clone(a, n->init);
	c->inc = ast_clone(a, n->inc);
	c->body = ast_clone(a, n->body);
	list_clone(a, &c->args2, &n->args2);
	list_clone(a, &c->params, &n->params);
	if (n->tparams) {
		c->tparams = NEWN(a, TemplParam, n->ntparams);
		memcpy(c->tparams, n->tparams, sizeof(TemplParam) * (size_t)n->ntparams);
	}
	return c;
}

/* The operator of a compound assignment: P_ADD_ASSIGN -> P_PLUS, ...;
 * P_NONE_ for any other punctuator. */
int punct_compound_base(int op)
{
	switch (op) {
	case P_ADD_ASSIGN: return P_PLUS;
	case P_SUB_ASSIGN: return P_MINUS;
	case P_MUL_ASSIGN: return P_STAR;
	case P_DIV_ASSIGN: return P_SLASH;
	case P_MOD_ASSIGN: return P_PERCENT;
	case P_AND_ASSIGN: return P_AMP;
	case P_OR_ASSIGN: return P_PIPE;
	case P_XOR_ASSIGN: return P_CARET;
	case P_SHL_ASSIGN: return P_LSHIFT;
	case P_SHR_ASSIGN: return P_RSHIFT;
	default: return P_NONE_;
	}
}
