/* c.h — the C back end's internal interface.
 *
 * Every SSA value becomes one C local named v<id> (or the storage of the
 * value it updates in place, see c_store): a scalar for n = 1, an array of
 * n elements otherwise.  Under -g a value assigned to a CM variable names
 * its local after it, v<id>_<name> (Inst.name), for the debugger.  i1 is uint8_t, f16 is uint16_t holding the bits.
 * Element loops are plain counted loops with constant bounds, which gcc
 * and clang vectorize at -O2 -march=native. */
#ifndef CMETAL_TARGET_C_H
#define CMETAL_TARGET_C_H

#include "target/target.h"

typedef struct {
	Buf *out;
	Func *f;
	const EmitOptions *o;
	uint32_t *store;      /* by value id: id of the C variable holding it */
	bool *inl;            /* by value id: computed inside its user's element
	                         loop (bale.c), no variable of its own */
	bool *direct;         /* by value id: a block read its users read in
	                         place, through a pointer (direct.c) */
	int line;             /* source line of the instruction being emitted */
	const char **names;   /* -g: by C variable id, the CM variable it
	                         holds (v12_acc), or NULL */
	Arena *tmp;           /* the text of the instruction being emitted
	                         (expressions, element indices): reset after
	                         it, so nothing in it is kept */
	/* The element loop being emitted, for the inlined reads in it (ops.c,
	 * region_at): */
	uint32_t loop_w;      /* nonzero: `for r, for c < loop_w`, k = r * loop_w + c */
	const Inst *loop_wr;  /* the wrregion whose loop it is (x its index), or NULL */
	uint64_t frame;       /* bytes of the kernel's C locals so far (declare) */
} CGen;

/* prelude.c */
extern const char c_prelude_text[];
/* gen/cmk_abi.c (embed_abi.sh) */
extern const char c_abi_text[];

/* emit.c */
const char *c_type(Elem e);                 /* "int32_t" */
const char *c_suffix(Elem e);               /* "i32" */
void c_name(CGen *g, const Inst *v);        /* appends v<store>[_name] */
/* Appends element k of v as a value of its compute type (f16 as float);
 * scalars broadcast.  k is a C expression. */
void c_rd(CGen *g, const Inst *v, const char *k);
/* Appends the lvalue of element k of v's storage. */
void c_lv(CGen *g, const Inst *v, const char *k);
/* Appends element k of v in its storage type: c_lv, or for a value
 * computed in its user's loop its expression. */
void c_val(CGen *g, const Inst *v, const char *k);
/* Appends the C expression converting x (of compute type `from`) to
 * `to`, with CM's conversion rules (ir.h, Oconv). */
void c_conv(CGen *g, Elem from, Elem to, bool sat, const char *x);

/* True when v is a kernel argument of surface kind defined in the entry
 * block: emit_arg gives it s<id>, its CmkMem, looked up once. */
bool c_surface_arg(CGen *g, const Inst *v);

/* storage.c — by value id, the id of the C variable that holds it (wrregion
 * chains and phi webs share one variable where their lives allow). */
uint32_t *c_assign_storage(Func *f, bool keep_names);
/* bale.c — by value id, whether the value is computed inside the element
 * loop of its only user (g->store must be set). */
bool *c_bale(CGen *g, Func *f);
/* direct.c — by value id, whether the block read is read in place
 * (g->store and g->inl must be set). */
bool *c_direct(CGen *g, Func *f);
/* ops.c — arithmetic, conversions, regions, reductions, math. */
bool c_emit_op(CGen *g, const Inst *i);
/* Element kx of an element-wise op or constant-offset rdregion v, as a C
 * expression in v's storage type. */
char *c_inline_expr(CGen *g, const Inst *v, const char *kx);
/* mem.c — memory families, synchronisation, thread ids, printf. */
bool c_emit_mem(CGen *g, const Inst *i);

#endif
