/* sema.h — the semantic checker's private interface (sema*.c only).
 *
 *   sema.c           the Sema state, scopes, symbols, type specifiers, the
 *                    entry sema_unit and the recursion check
 *   sema_decl.c      declarations, functions and kernels, the top level
 *   sema_template.c  template deduction and instantiation, overloads
 *   sema_stmt.c      statements, SIMD control flow, goto and labels
 *   sema_expr.c, sema_cm.c, sema_builtin.c share the functions declared in
 *   front.h's "Sema internals" section.
 */
#ifndef CMETAL_FRONT_SEMA_H
#define CMETAL_FRONT_SEMA_H

#include "front.h"


typedef struct Scope Scope;
struct Scope {
	Map names;
	Scope *up;
	const char *ns;           /* namespace scope: qualified prefix */
	int *block_end;           /* statement sequence number where the block ends */
};

typedef struct {
	Node *decl;               /* an initialized local declaration */
	int seq;
	int *block_end;
} DeclMark;

typedef struct {
	Node *node;
	int seq;
} Mark;

enum { BRK_LOOP, BRK_SIMD_LOOP, BRK_SWITCH };

typedef struct {
	int kind;
	int simd_width;           /* SIMD width where the statement was entered */
} Breakable;

typedef struct {
	Type *ty;                 /* controlling type */
	VEC(Node *) cases;
	Node *deflt;
} Switch;

/* Per-function checking state. */
typedef struct {
	Node *fn;
	Sym *sym;
	Type *ret;                /* NULL while an auto return type is not deduced */
	bool ret_auto;
	int seq;                  /* statements visited (for goto checks) */
	VEC(Breakable) brk;
	Switch *sw;
	int simd_width;
	Loc simd_loc;
	Map labels;               /* name -> Mark* */
	VEC(Mark) gotos;
	VEC(DeclMark) decls;
} FnCtx;

typedef struct {
	Sym *from, *to;
	Loc loc;
	int len;
} Edge;

/* SYM_TEMPLATE's private data (in sym->ir: lowering never sees templates). */
typedef struct {
	Scope *scope;             /* where the template was declared */
} TemplInfo;

struct Sema {
	Arena *a;
	const SemaOptions *opt;
	SemaOptions defopt;
	Node *unit;
	Scope *scope, *global;
	FnCtx *fx;
	int next_id, header_ids;
	VEC(const char *) using_ns;
	Map instances;            /* "id:f<args>" -> Sym* */
	VEC(Edge) edges;
	VEC(Scope *) kept;        /* namespace and binding scopes, freed at the end */
	int depth;                /* sema_expr and sema_stmt calls on the C stack */
	int inst_depth;           /* template instantiations on the C stack */
	int max_inst_depth;       /* the deepest in the current chain (notes) */
};

/* Instantiation limits.  The parser bounds the nesting inside one function;
 * an instantiation checks its body while the call that requested it is
 * being checked, so the C stack grows with the sum of the nesting along a
 * chain of instantiations: both are capped (see tests/rt/test_limits.c for
 * the stack this takes). */
enum { MAX_INST_DEPTH = 64, MAX_SEMA_DEPTH = 512 };

#define HEADER_IDS 1000000

static inline bool bad(const Node *e) { return !e || ty_is_error(e->ty); }

static inline int nlen(const char *s) { return s ? (int)strlen(s) : 1; }

static inline Loc name_loc(const Node *d) { return d->name_loc.line ? d->name_loc : d->loc; }

/* sema.c */
Scope *sema_push_scope(Sema *S);
void sema_pop_scope(Sema *S, bool keep);  /* keep: the scope outlives the walk */
Sym *sema_new_sym(Sema *S, SymKind k, const char *name, Type *ty, Loc loc, Node *decl);
void sema_enter(Sema *S, Sym *s);         /* into the current scope, no checks */
bool sema_declare(Sema *S, Sym *s);       /* sema_enter, or diagnose a redefinition */
bool sema_check_dim(Sema *S, Node *d, const char *what, int *out);

/* sema_decl.c */
void sema_top_decl(Sema *S, Node *d);
void sema_predeclare_types(Sema *S);
void sema_var_decl(Sema *S, Node *d, bool global);
void sema_typedef_decl(Sema *S, Node *d);
Type *sema_enum_decl(Sema *S, Node *d);
Type *sema_struct_decl(Sema *S, Node *d);
Type *sema_func_signature(Sema *S, Node *f, bool *ret_auto);
void sema_func_body(Sema *S, Node *f, Sym *sym, bool ret_auto);

/* sema_stmt.c */
void sema_stmt(Sema *S, Node *s);
void sema_stmt_static_assert(Sema *S, Node *s);
void sema_check_simd_width(Sema *S, Node *at, Type *t);
void sema_resolve_gotos(Sema *S);

#endif
