/* parse.h — the parser's private interface (parse*.c only).
 *
 *   parse.c       the parser's state, token helpers, diagnostics and error
 *                 recovery, scopes of type names, token classification, and
 *                 the entry parse_unit (its file comment is the parser's
 *                 contract: grammar subset, recovery, locations, tree shapes)
 *   parse_expr.c  expressions: primaries, literals and strings, casts,
 *                 template argument lists, members and member calls,
 *                 operators by precedence climbing, initializer lists
 *   parse_type.c  type and declaration specifiers: scalar keywords, vector
 *                 and matrix types, attributes, __declspec, struct and enum
 *                 specifiers, pointer/reference operators, type names
 *   parse_decl.c  declarations: declarators, functions and parameters,
 *                 initializers, templates, using, static_assert, asm,
 *                 namespaces, the external declarations of a unit
 *   parse_stmt.c  statements: blocks, control flow, labels, jumps, and
 *                 pragmas on loops (#pragma unroll)
 *
 * Functions shared between the files carry the ps_ prefix (a rule's ps_X is
 * parse_X in its grammar comment); the token helpers, the
 * recursion guard and node creation are inline here.
 */
#ifndef CMETAL_FRONT_PARSE_H
#define CMETAL_FRONT_PARSE_H

#include "front.h"

enum { MAX_DEPTH = 512 };
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
	TokenList *toks;      /* blocks behind the current top-level declaration are freed */
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

/* ---------------------------------------------------------------- tokens */

static inline Token *peek(Parser *p) { return tl_at(p->toks, p->pos); }

static inline Token *peek_n(Parser *p, int k)
{
	int i = p->pos + k;
	return tl_at(p->toks, i < p->ntok ? i : p->ntok - 1);
}

static inline Token *next(Parser *p)
{
	Token *t = tl_at(p->toks, p->pos);
	if (t->kind != TK_EOF)
		p->pos++;
	return t;
}

static inline bool tok_is(const Token *t, Punct c) { return t->kind == TK_PUNCT && t->id == (int)c; }
static inline bool tok_kw(const Token *t, Keyword k) { return t->kind == TK_KEYWORD && t->id == (int)k; }
static inline bool at(Parser *p, Punct c) { return tok_is(peek(p), c); }
static inline bool at_kw(Parser *p, Keyword k) { return tok_kw(peek(p), k); }
static inline bool at_eof(Parser *p) { return peek(p)->kind == TK_EOF; }

static inline bool accept(Parser *p, Punct c)
{
	if (!at(p, c))
		return false;
	next(p);
	return true;
}

static inline bool accept_kw(Parser *p, Keyword k)
{
	if (!at_kw(p, k))
		return false;
	next(p);
	return true;
}

/* --------------------------------------------- recursion guard and nodes */

/* Recursion guard: every recursive rule enters and leaves.  A loop that
 * builds a left-deep tree (binary operators, commas, postfix operators)
 * enters once per node it adds and leaves them all at its end, so depth
 * bounds the tree's depth as well as the parser's recursion: every later
 * walk over the tree recurses at most about MAX_DEPTH times. */
static inline bool enter(Parser *p)
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

static inline void leave(Parser *p) { p->depth--; }

static inline Node *mk(Parser *p, NodeKind k, const Token *t)
{
	Node *n = node_new(p->a, k, t->loc);
	n->len = t->len > 0 ? t->len : 1;
	return n;
}

/* parse.c */
bool ps_close_angle(Parser *p);       /* one '>' of template arguments */
const char *ps_tok_desc(Parser *p, const Token *t);
void ps_perr(Parser *p, const Token *t, const char *fmt, ...) PRINTF_LIKE(3, 4);
bool ps_expect(Parser *p, Punct c, const char *ctx);
bool ps_expectf(Parser *p, Punct c, const char *ctx, const char *name);
void ps_skip_to_close(Parser *p, Punct close);
bool ps_expect_close(Parser *p, Punct close, const Token *open, const char *what);
void ps_sync(Parser *p);               /* resynchronize after an error */
bool ps_check_limit(Parser *p);
Node *ps_err_expr(Parser *p);
TypeSpec *ps_ts_new(Parser *p, TypeSpecKind k, const Token *t);
TypeSpec *ps_ts_copy(Parser *p, const TypeSpec *t);
void ps_scope_push(Parser *p, const char *ns, bool is_template);
void ps_scope_pop(Parser *p);
const char *ps_current_ns(Parser *p);
const char *ps_qualify(const char *ns, const char *name);
void ps_declare(Parser *p, const char *name, int what);
int ps_lookup(Parser *p, const char *name);   /* NAME_TYPE / NAME_VALUE / 0 */
const char *ps_take_qualname(Parser *p, Node *n);
bool ps_is_scalar_kw(int kw);
bool ps_is_type_kw(int kw);
bool ps_starts_type_at(Parser *p, int k);
bool ps_at_attr(Parser *p);
bool ps_starts_decl(Parser *p);
bool ps_is_template_name(Parser *p, const char *name);
bool ps_is_cm_member(const Token *t);

/* parse_expr.c */
Node *ps_expr_nested(Parser *p);       /* inside brackets: '>' is an operator */
void ps_args(Parser *p, NodeList *out);
void ps_targs(Parser *p, Node *n, const char *what);
Node *ps_string(Parser *p);
Node *ps_paren(Parser *p);
Node *ps_cond(Parser *p);
Node *ps_assign(Parser *p);
Node *ps_expr(Parser *p);
Node *ps_init_list(Parser *p);

/* parse_type.c */
const char *ps_attrs(Parser *p);
void ps_decl_specs(Parser *p, DeclSpec *ds);
void ps_ptr_ops(Parser *p, TypeSpec *ts);
TypeSpec *ps_type_name(Parser *p);

/* parse_decl.c */
void ps_declaration(Parser *p, NodeList *out, DeclCtx ctx, int extra);
Node *ps_using(Parser *p);
Node *ps_static_assert(Parser *p);
Node *ps_asm(Parser *p);
void ps_externals(Parser *p, NodeList *out, int extra, bool braced);
void ps_stray_pragma(Parser *p, const Token *t);
void ps_push_if(Parser *p, NodeList *out, Node *n);

/* parse_stmt.c */
Node *ps_block(Parser *p);

#endif
