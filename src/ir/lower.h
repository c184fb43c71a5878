/* lower.h — the lowering's private interface (lower*.c only).
 *
 *   lower.c          driver: kernels and their metadata, SSA construction
 *                    (Braun et al.), statements, scalar and SIMD control
 *                    flow, inlining of calls, clean-up of the CFG
 *   lower_expr.c     expressions: values, conversions, operators, lvalues as
 *                    regions of a variable (LRef), CM members
 *   lower_builtin.c  the builtin library (builtins.def rows) to CMIR
 *   lower_unroll.c   full unrolling of constant-trip loops
 *
 * A variable (Var) is one SSA-tracked whole value: a vector of n elements
 * (n = 1 for scalars).  Partial writes go through an LRef: a 2D affine view
 * of a variable, possibly reinterpreted (format), whose element (r, c) is
 * element base + r*rs + c*cs (+ roff at run time) of the variable viewed as
 * `view` elements.  An LRef maps one-to-one onto an IrRegion.
 */
#ifndef CMETAL_IR_LOWER_H
#define CMETAL_IR_LOWER_H

#include "front/front.h"
#include "ir/ir.h"

typedef struct Var {
	IrType ty;            /* the whole value */
	Inst **defs;          /* current definition per block id, from defs_base */
	uint32_t ndefs, defs_base;
	const char *name;
	bool user;            /* a CM variable or parameter (-g names the values
	                         written to it); false for the lowering's own */
} Var;

/* What a symbol stands for in the kernel being lowered. */
typedef struct LRef {
	Var *var;
	Elem view;            /* element type the region counts in */
	int rows, cols;       /* shape (rows == 1 for a vector view) */
	int32_t base, rs, cs; /* element (r,c) = base + r*rs + c*cs */
	Inst *roff;           /* runtime offset (view elements, i32) or NULL */
	bool is_matrix;
} LRef;

typedef struct Binding {
	uint32_t gen;         /* the kernel lowering that made it */
	bool is_ref;          /* a reference: lr; otherwise the whole var */
	LRef lr;
	Inst *konst;          /* const arrays: their value */
	struct Binding **fields; /* struct values: one binding per field (a
	                            struct field has fields of its own) */
	int nfields;
} Binding;

/* A loop or switch: where break and continue go. */
typedef struct Jump {
	struct Jump *up;
	struct Block *brk, *cont;
	bool simd;            /* SIMD do-while: break/continue clear channels */
	Var *brk_mask, *cont_mask;
} Jump;

/* An inlined call: where return goes. */
typedef struct Frame {
	struct Frame *up;
	Block *ret;
	Var *retvar;
	Type *rty;
} Frame;

/* Inlining limits.  Calls are inlined while their caller is lowered, so the
 * C stack grows with the sum of the nesting along a chain of calls (the
 * parser bounds it within one function): both are capped. */
enum { MAX_INLINE_DEPTH = 64, MAX_LOWER_DEPTH = 512 };

/* Every call is inlined, so a kernel can grow exponentially with the depth
 * of its calls: inlining stops past this many values. */
enum { MAX_KERNEL_VALUES = 1 << 20 };

typedef struct L {
	Arena *a;
	Module *m;
	Func *f;
	IrBuilder B;
	uint32_t gen;
	Node *unit;
	Node **cglobals;       /* the unit's const vector/matrix globals with
	                        * a value (init_const_globals), found once */
	int ncglobals;
	Jump *jump;
	Frame *frame;
	Inst *smask;          /* SIMD CF: the static execution mask, or NULL */
	Jump *simd_loop;      /* innermost SIMD loop */
	int simd_width;
	int depth;            /* inlining depth */
	int nest;             /* lw_expr and lw_stmt calls on the C stack */
	bool too_big;         /* MAX_KERNEL_VALUES reached (reported) */
	Map labels;           /* goto labels of the current function body */
	bool unmasked;        /* between cm_unmask_begin and _end */
	uint32_t slm_next;    /* cm_slm_alloc's bump pointer */
	bool debug;           /* -g: values carry their variable's name */
} L;

/* lower.c */
Block *lw_block(L *l);
void lw_set_block(L *l, Block *b);
void lw_seal_block(L *l, Block *b);   /* all its predecessors are known */
void lw_br(L *l, Block *to);
void lw_cbr(L *l, Inst *cond, Block *t, Block *f);
bool lw_terminated(L *l);
Var *lw_var(L *l, IrType ty, const char *name);
Var *lw_user_var(L *l, IrType ty, const char *name);   /* a CM variable */
Inst *lw_read(L *l, Var *v);
void lw_write(L *l, Var *v, Inst *val);
Binding *lw_bind(L *l, Sym *s);
void lw_stmt(L *l, Node *n);
Inst *lw_call(L *l, Node *call);      /* user function, inlined */
Inst *lw_mask(L *l);                  /* current execution mask or NULL */

/* lower_expr.c */
Elem lw_promote(Elem e);                 /* small integers and bool compute as int */
Elem lw_common(Elem a, Elem b);          /* the usual arithmetic conversions */
Elem lw_elem(Type *t);
IrType lw_type(Type *t);
Inst *lw_expr(L *l, Node *e);         /* rvalue (refs read) */
Inst *lw_cond(L *l, Node *e);         /* scalar i1 */
Inst *lw_coerce(L *l, Inst *v, IrType to, bool sat);
Inst *lw_array_fit(L *l, Inst *v, uint32_t n);
Inst *lw_conv_elem(L *l, Inst *v, Elem to, bool sat);
Inst *lw_int(L *l, Elem e, int64_t v);
bool lw_lref(L *l, Node *e, LRef *out);  /* false: not an lvalue */
LRef lw_whole(Var *v, Type *t);
Inst *lw_lref_read(L *l, const LRef *r);
void lw_lref_write(L *l, const LRef *r, Inst *val);
uint32_t lw_lref_n(const LRef *r);
IrType lw_lref_type(const LRef *r);
Inst *lw_const_array(L *l, Sym *s);
Inst *lw_splat(L *l, Inst *v, uint32_t n);
Inst *lw_bool_vec(L *l, Inst *v);     /* nonzero -> i1 vector */
void lw_assign_to(L *l, Node *dst, Inst *val);
/* Structs: a struct value is one Var per (nested) field. */
void lw_struct_new(L *l, Binding *b, Type *t, const char *name);
Binding *lw_struct_ref(L *l, Node *e);   /* storage of a struct lvalue or NULL */
void lw_struct_copy(L *l, Binding *dst, Binding *src);
void lw_struct_init(L *l, Binding *b, Node *init);  /* = expr or {...} */

/* lower_unroll.c: lowers a constant-trip for loop fully unrolled (marked
 * #pragma unroll, or short with its counter used as a region offset);
 * false (nothing emitted) when it does not qualify. */
bool lw_unroll(L *l, Node *n);

/* lower_builtin.c */
Inst *lw_builtin(L *l, Node *call);

#endif
