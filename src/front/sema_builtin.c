/* sema_builtin.c — the builtin library: its names, its enums, and the
 * checking of calls to it.
 *
 * The library is native (builtins.def), not parsed headers.  A call is
 * resolved in four steps:
 *   1. the arguments are checked (sema_expr) and the template arguments
 *      folded;
 *   2. the rows that share the name are tried in table order, each
 *      argument against its one-letter parameter code, without
 *      diagnostics; the first row that fits wins.  If none fits, the row
 *      that fits longest is used to explain what is wrong;
 *   3. the arguments are converted as the codes say (ints, offsets, the
 *      saturation flag is folded into call->op);
 *   4. the row's family checker (ck_*) enforces the constraints of
 *      cm-language.md §6/§7 (block sizes, element counts, source counts)
 *      and computes the result type.
 * Requires: sema's expression interface (front.h, "Sema internals").
 * Produces: call->builtin, call->ty, call->targ_type, call->cargs, call->op
 * as described at the top of builtins.def.
 */
#include <limits.h>
#include <string.h>

#include "front.h"

enum {
	BF_NOSIMD = 1 << 0,     /* not inside SIMD control flow */
	BF_SIMDW = 1 << 1,      /* vector operands of the SIMD width there */
	BF_INT = 1 << 2,        /* integer operands */
	BF_FLOAT = 1 << 3,      /* floating operands (integers convert) */
	BF_UNSUP = 1 << 4,      /* recognized and rejected */
	BF_DEPRECATED = 1 << 5,
};

typedef enum {
	BR_VOID, BR_INT, BR_UINT, BR_USHORT, BR_BOOL, BR_UINT4,
	BR_T,           /* the template type */
	BR_MATH,        /* element-wise: shape of the operands, element T */
	BR_MATH_UINT,   /* element-wise, uint elements unless T is given */
	BR_REDUCE,      /* a scalar T */
	BR_UNPACK,      /* vector<T,N> */
} BiResult;

typedef struct BiCall BiCall;
typedef bool Checker(BiCall *c);

typedef struct {
	const char *name;
	const char *sig;
	BiResult res;
	Checker *ck;
	int flags;
	const char *desc;
} BiRow;

/* One resolved call being checked. */
struct BiCall {
	Sema *S;
	Node *call;
	int id;                 /* row */
	const BiRow *row;
	const char *pcodes;     /* parameter codes, '[' removed */
	Node **a;               /* arguments */
	int na;
	Type *T;                /* template type (given or defaulted) */
	int64_t N;              /* template integer */
	bool has_N;
	int64_t op;             /* atomic op */
	bool has_op;
	int64_t prec[2];        /* CmPrecisionType arguments, in order */
	int nprec;
	int64_t ns[2];          /* the first integer arguments, in order */
	int nn;
	Type *ty;               /* result computed by the checker */
};

#define BUILTIN(id, name, sig, res, ck, flags, desc) static Checker ck_##ck;
#include "front/builtins.def"
#undef BUILTIN

static const BiRow rows[BI_COUNT_] = {
#define BUILTIN(id, name, sig, res, ck, flags, desc)                          \
	[BI_##id] = { name, sig, res, ck_##ck, flags, desc },
#include "front/builtins.def"
#undef BUILTIN
};

/* ----------------------------------------------------------- builtin enums */

/* Atomic operations: name, value, source operands, float op. */
#define ATOMIC_OPS(X)                                                         \
	X(ADD, 0, 1, 0) X(SUB, 1, 1, 0) X(INC, 2, 0, 0) X(DEC, 3, 0, 0)       \
	X(MIN, 4, 1, 0) X(MAX, 5, 1, 0) X(XCHG, 6, 1, 0) X(CMPXCHG, 7, 2, 0)  \
	X(AND, 8, 1, 0) X(OR, 9, 1, 0) X(XOR, 10, 1, 0) X(MINSINT, 11, 1, 0)  \
	X(MAXSINT, 12, 1, 0) X(FMAX, 16, 1, 1) X(FMIN, 17, 1, 1)              \
	X(FCMPWR, 18, 2, 1) X(FADD, 19, 1, 1) X(FSUB, 20, 1, 1)               \
	X(PREDEC, 255, 0, 0)

typedef struct {
	const char *name;
	int64_t value;
} EnumVal;

static const EnumVal atomic_vals[] = {
#define X(n, v, s, f) { "ATOMIC_" #n, v },
	ATOMIC_OPS(X)
#undef X
	{ NULL, 0 }
};

static const EnumVal chmask_vals[] = {
	{ "CM_R_ENABLE", 1 }, { "CM_G_ENABLE", 2 }, { "CM_GR_ENABLE", 3 },
	{ "CM_B_ENABLE", 4 }, { "CM_BR_ENABLE", 5 }, { "CM_BG_ENABLE", 6 },
	{ "CM_BGR_ENABLE", 7 }, { "CM_A_ENABLE", 8 }, { "CM_AR_ENABLE", 9 },
	{ "CM_AG_ENABLE", 10 }, { "CM_AGR_ENABLE", 11 }, { "CM_AB_ENABLE", 12 },
	{ "CM_ABR_ENABLE", 13 }, { "CM_ABG_ENABLE", 14 },
	{ "CM_ABGR_ENABLE", 15 }, { NULL, 0 }
};

/* SLM masks name the enabled channels but encode the disabled ones. */
static const EnumVal slm_chmask_vals[] = {
	{ "SLM_R_ENABLE", 14 }, { "SLM_G_ENABLE", 13 }, { "SLM_GR_ENABLE", 12 },
	{ "SLM_B_ENABLE", 11 }, { "SLM_BR_ENABLE", 10 }, { "SLM_BG_ENABLE", 9 },
	{ "SLM_BGR_ENABLE", 8 }, { "SLM_A_ENABLE", 7 }, { "SLM_AR_ENABLE", 6 },
	{ "SLM_AG_ENABLE", 5 }, { "SLM_AGR_ENABLE", 4 }, { "SLM_AB_ENABLE", 3 },
	{ "SLM_ABR_ENABLE", 2 }, { "SLM_ABG_ENABLE", 1 },
	{ "SLM_ABGR_ENABLE", 0 }, { NULL, 0 }
};

static const EnumVal attrib_vals[] = {
	{ "GENX_NONE", 0 }, { "GENX_DWALIGNED", 1 }, { "GENX_MODIFIED", 2 },
	{ "GENX_TOP_FIELD", 3 }, { "GENX_BOTTOM_FIELD", 4 },
	{ "GENX_MODIFIED_DWALIGNED", 5 }, { "GENX_CONSTANT", 6 },
	{ "GENX_CONSTANT_DWALIGNED", 7 }, { "GENX_NUM_BUFFER_ATTRIB", 8 },
	{ NULL, 0 }
};

static const EnumVal plane_vals[] = {
	{ "GENX_SURFACE_Y_PLANE", 0 }, { "GENX_SURFACE_U_PLANE", 1 },
	{ "GENX_SURFACE_UV_PLANE", 1 }, { "GENX_SURFACE_V_PLANE", 2 },
	{ NULL, 0 }
};

static const EnumVal readsize_vals[] = {
	{ "CM_READ_1", 0 }, { "CM_READ_2", 1 }, { "CM_READ_4", 2 },
	{ "CM_READ_8", 3 }, { NULL, 0 }
};

/* DPAS operand precisions, Intel's order; DF (double) is cmetal's. */
static const EnumVal prec_vals[] = {
	{ "CM_PRECISION_U1", 0 }, { "CM_PRECISION_S1", 1 },
	{ "CM_PRECISION_U2", 2 }, { "CM_PRECISION_S2", 3 },
	{ "CM_PRECISION_U4", 4 }, { "CM_PRECISION_S4", 5 },
	{ "CM_PRECISION_U8", 6 }, { "CM_PRECISION_S8", 7 },
	{ "CM_PRECISION_BF", 8 }, { "CM_PRECISION_HF", 9 },
	{ "CM_PRECISION_TF32", 10 }, { "CM_PRECISION_DF", 16 },
	{ NULL, 0 }
};

static const EnumVal sat_vals[] = {
	{ "_GENX_NOSAT", 0 }, { "_GENX_SAT", 1 }, { NULL, 0 }
};

/* Plain int constants (fence masks, float control). */
static const EnumVal int_consts[] = {
	{ "CM_GLOBAL_COHERENT_FENCE", 1 }, { "CM_L3_FLUSH_INSTRUCTIONS", 2 },
	{ "CM_L3_FLUSH_TEXTURE_DATA", 4 }, { "CM_L3_FLUSH_CONSTANT_DATA", 8 },
	{ "CM_L3_FLUSH_RW_DATA", 0x10 }, { "CM_LOCAL_BARRIER", 0x20 },
	{ "CM_L1_FLUASH_RO_DATA", 0x40 }, { "CM_L1_FLUSH_RO_DATA", 0x40 },
	{ "CM_SW_BARRIER", 0x80 },
	{ "CM_RTE", 0 }, { "CM_RTP", 0x10 }, { "CM_RTN", 0x20 },
	{ "CM_RTZ", 0x30 }, { "CM_DENORM_FTZ", 0 },
	{ "CM_DENORM_D_ALLOW", 0x40 }, { "CM_DENORM_F_ALLOW", 0x80 },
	{ "CM_DENORM_HF_ALLOW", 0x400 }, { "CM_DENORM_ALLOW", 0x4c0 },
	{ "CM_FLOAT_MODE_IEEE", 0 }, { "CM_FLOAT_MODE_ALT", 1 },
	{ NULL, 0 }
};

/* The builtin enum types: name, enum class?, enumerators. */
static const struct {
	const char *name;
	bool enum_class;
	const EnumVal *vals;
} builtin_enums[] = {
	{ "CmAtomicOpType", true, atomic_vals },
	{ "ChannelMaskType", true, chmask_vals },
	{ "SLM_ChannelMaskType", true, slm_chmask_vals },
	{ "CmBufferAttrib", true, attrib_vals },
	{ "CmSurfacePlaneIndex", true, plane_vals },
	{ "CM_READ_SIZE", true, readsize_vals },
	{ "CmSaturation", false, sat_vals },
	{ "CmPrecisionType", true, prec_vals },
};

static const char *atomic_name(int64_t v)
{
	for (const EnumVal *e = atomic_vals; e->name; e++)
		if (e->value == v)
			return e->name;
	return "?";
}

static int atomic_nsrc(int64_t v)
{
#define X(n, val, s, f) if (v == val) return s;
	ATOMIC_OPS(X)
#undef X
	return 1;
}

static bool atomic_is_float(int64_t v)
{
#define X(n, val, s, f) if (v == val) return f;
	ATOMIC_OPS(X)
#undef X
	return false;
}

static Sym *new_sym(Arena *a, SymKind k, const char *name, Type *ty)
{
	Sym *s = NEW(a, Sym);
	s->kind = k;
	s->name = intern_cstr(name);
	s->ty = ty;
	return s;
}

static void declare_enum(Arena *a, Map *g, const char *name, bool cls,
                         const EnumVal *vals)
{
	Type *t = NULL;
	if (name) {
		t = ty_nominal(TY_ENUM, intern_cstr(name));
		t->enum_class = cls;
		Sym *ts = new_sym(a, SYM_TYPE, name, t);
		t->tag = ts;
		map_put(g, ts->name, ts);
	} else {
		t = ty_scalar(SK_INT);
	}
	for (const EnumVal *e = vals; e->name; e++) {
		Sym *s = new_sym(a, SYM_ENUM_CONST, e->name, t);
		s->cval = e->value;
		map_put(g, s->name, s);
	}
}

void sema_declare_builtins(Sema *S, Map *globals)
{
	Arena *a = sema_arena(S);
	for (int i = 1; i < BI_COUNT_; i++) {
		const char *nm = intern_cstr(rows[i].name);
		if (map_get(globals, nm))
			continue;
		Sym *s = new_sym(a, SYM_BUILTIN, nm, NULL);
		s->cval = i;    /* the first row of the name */
		map_put(globals, nm, s);
	}
	for (size_t i = 0; i < sizeof builtin_enums / sizeof *builtin_enums; i++)
		declare_enum(a, globals, builtin_enums[i].name,
		             builtin_enums[i].enum_class, builtin_enums[i].vals);
	declare_enum(a, globals, NULL, false, int_consts);
}

/* ------------------------------------------------------------- utilities */

static bool is_enum_named(const Type *t, const char *name)
{
	return t && t->kind == TY_ENUM && t->name && !strcmp(t->name, name);
}

/* The value of a constant argument (folded, or an enumerator). */
static bool const_val(const Node *e, int64_t *v)
{
	if (!e)
		return false;
	if (e->has_value) {
		*v = e->cval;
		return true;
	}
	if (e->kind == ND_INT_LIT || e->kind == ND_BOOL_LIT) {
		*v = (int64_t)e->ival;
		return true;
	}
	if (e->kind == ND_IDENT && e->sym && e->sym->kind == SYM_ENUM_CONST) {
		*v = e->sym->cval;
		return true;
	}
	if (e->kind == ND_CAST && e->implicit)
		return const_val(e->lhs ? e->lhs : e->args.len ? e->args.data[0] : NULL, v);
	return false;
}

static bool is_null_arg(const Node *e)
{
	int64_t v;
	if (e->kind == ND_NULLPTR || (e->ty && e->ty->kind == TY_NULLPTR))
		return true;
	return e->ty && e->ty->kind == TY_SCALAR && ty_is_integer(e->ty) &&
	       const_val(e, &v) && v == 0;
}

static bool is_vm(const Node *e) { return e->ty && ty_is_vm(e->ty); }

static bool is_arith_scalar(const Type *t)
{
	return t && (t->kind == TY_SCALAR || (t->kind == TY_ENUM && !t->enum_class));
}

static bool is_int_scalar(const Type *t)
{
	return is_arith_scalar(t) && (t->kind == TY_ENUM || ty_is_integer(t));
}

static int elems(const Node *e) { return ty_elems(e->ty); }
static Type *elem_of(const Node *e) { return ty_elem(ty_base(e->ty)); }
static int elem_size(const Node *e) { return elem_of(e)->size; }

/* t with its element type replaced (vectors stay vectors, matrices
 * matrices, scalars become e). */
static Type *with_elem(Type *t, Type *e)
{
	t = ty_base(t);
	if (t->kind == TY_VECTOR)
		return ty_vector(e, t->n);
	if (t->kind == TY_MATRIX)
		return ty_matrix(e, t->rows, t->cols);
	return e;
}

static const char *argwhat(BiCall *c, int i)
{
	return arena_printf(sema_arena(c->S), "argument %d of '%s'", i + 1,
	                    c->row->name);
}

/* Converts argument i to t (no-op when it already has that type). */
static void conv(BiCall *c, int i, Type *t)
{
	Node *e = c->a[i];
	if (!e->ty || ty_base(e->ty) == t)
		return;
	c->a[i] = sema_convert(c->S, e, t, false, argwhat(c, i));
}

/* Converts a VM or scalar argument to element type el, keeping its shape. */
static void conv_elem(BiCall *c, int i, Type *el)
{
	if (c->a[i]->ty)
		conv(c, i, with_elem(c->a[i]->ty, el));
}

static void bi_error(BiCall *c, const Node *at, const char *fmt, ...)
	PRINTF_LIKE(3, 4);
static void bi_error(BiCall *c, const Node *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	Buf b = { 0 };
	buf_printf(&b, "'%s' (%s): ", c->row->name, c->row->desc);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	Loc l = at ? at->loc : c->call->loc;
	diag_at(DIAG_ERROR, l, at ? (at->len > 0 ? at->len : 1) : 1, "%s",
	        buf_cstr(&b));
	buf_free(&b);
}

/* Index of the first argument whose code is one of `codes`, or -1. */
static int find_code(BiCall *c, const char *codes)
{
	for (int i = 0; c->pcodes[i] && c->pcodes[i] != '*' && i < c->na; i++)
		if (strchr(codes, c->pcodes[i]))
			return i;
	return -1;
}

/* ------------------------------------------------------ parameter codes */

static bool code_match(char code, const Node *e)
{
	Type *t = e->ty;
	if (ty_is_error(t))
		return true;    /* already diagnosed */
	switch (code) {
	case 'S': return t->kind == TY_SURFACE;
	case 'i': case 'u': case 'h': case 'b': case 'g': case 'k':
		return is_int_scalar(t);
	case 'a': return is_enum_named(t, "CmBufferAttrib");
	case 'o': return is_enum_named(t, "CmAtomicOpType");
	case 'c': return is_enum_named(t, "ChannelMaskType");
	case 'l': return is_enum_named(t, "SLM_ChannelMaskType");
	case 'p': return is_enum_named(t, "CmSurfacePlaneIndex");
	case 'z': return is_enum_named(t, "CM_READ_SIZE");
	case 'd': return ty_is_vm(t) && e->lvalue;
	case 'r': return (ty_is_vm(t) || is_arith_scalar(t)) && e->lvalue;
	case 'v': return ty_is_vm(t);
	case 'w': return ty_is_vm(t) && ty_is_integer(ty_elem(ty_base(t)));
	case 'x': return ty_is_vm(t) || is_arith_scalar(t);
	case 's': return is_arith_scalar(t);
	case 'e': return is_arith_scalar(t) && e->lvalue;
	case 'f': return is_int_scalar(t);
	case 'q': return e->kind == ND_STR_LIT;
	case 'y': return ty_is_vm(t) || ty_is_scalar(t);
	}
	return false;
}

static const char *code_desc(char code)
{
	switch (code) {
	case 'S': return "a SurfaceIndex";
	case 'i': case 'u': case 'h': case 'b': return "an integer";
	case 'g': return "an svmptr_t address";
	case 'k': return "an integer constant";
	case 'a': return "a CmBufferAttrib (DWALIGNED, MODIFIED, ...)";
	case 'o': return "a CmAtomicOpType (ATOMIC_ADD, ...)";
	case 'c': return "a ChannelMaskType (CM_R_ENABLE, ...)";
	case 'l': return "an SLM_ChannelMaskType (SLM_R_ENABLE, ...)";
	case 'p': return "a CmSurfacePlaneIndex";
	case 'z': return "a CM_READ_SIZE";
	case 'd': return "a matrix_ref or vector_ref";
	case 'r': return "a vector_ref or a scalar variable";
	case 'v': return "a vector or matrix";
	case 'w': return "a vector of integers";
	case 'x': return "a vector, matrix or arithmetic scalar";
	case 's': case 'e': return "an arithmetic scalar";
	case 'f': return "SAT or _GENX_NOSAT";
	case 'q': return "a string literal";
	case 'y': return "a vector, matrix or scalar";
	}
	return "?";
}

/* Strips '[' from the parameter codes; *min is the count before it. */
static const char *param_codes(Arena *a, const char *sig, int *min, int *max)
{
	const char *p = strchr(sig, ':');
	p = p ? p + 1 : sig;
	char *out = arena_strdup(a, p);
	int n = 0, opt = -1;
	bool star = false;
	for (const char *q = p; *q; q++) {
		if (*q == '[') {
			opt = n;
			continue;
		}
		if (*q == '*') {
			star = true;
			if (opt < 0)
				opt = n;
		}
		out[n++] = *q;
	}
	out[n] = 0;
	if (star)
		n--;
	*min = opt >= 0 ? opt : n;
	*max = star ? INT_MAX : n;
	return out;
}

/* How many leading arguments fit the row; -1 if the count does not. */
static int row_fit(Arena *a, int id, Node **args, int na)
{
	int min, max;
	const char *pc = param_codes(a, rows[id].sig, &min, &max);
	if (na < min || na > max)
		return -1;
	int i = 0;
	for (; i < na && pc[i] && pc[i] != '*'; i++)
		if (!code_match(pc[i], args[i]))
			return i;
	return na;
}

/* --------------------------------------------------- template arguments */

static TemplArg *call_targs(Node *call, int *n)
{
	if (call->has_targs || call->ntargs) {
		*n = call->ntargs;
		return call->targs;
	}
	if (call->lhs && node_class(call->lhs->kind) != NODE_BASIC && call->lhs->ntargs) {
		*n = call->lhs->ntargs;
		return call->lhs->targs;
	}
	*n = 0;
	return NULL;
}

/* Whether a template argument is a type (a type-id, or a name of one). */
static bool targ_is_type(Sema *S, const TemplArg *ta)
{
	if (ta->ts)
		return true;
	if (!ta->expr || ta->expr->kind != ND_IDENT)
		return false;
	Sym *s = sema_lookup(S, ta->expr->name);
	return s && s->kind == SYM_TYPE;
}

static bool tcode_is_type(char code) { return strchr("tTs", code) != NULL; }

/* The template part of a row's sig is one or more forms separated by '|',
 * in the order of Intel's header templates (cm-language.md §7): "t|Z"
 * accepts cm_sin<float>(x), cm_sin<8>(v) and cm_sin<2,4>(m).  A form
 * fits when each explicit argument has the kind of its code (a 'Z' takes
 * every remaining integer) and the codes left over are optional. */
static const char *pick_tform(BiCall *c, TemplArg *ta, int nt, int *len)
{
	const char *sig = c->row->sig, *colon = strchr(sig, ':');
	const char *f = sig;            /* the template part is [sig, end) */
	const char *end = colon ? colon : sig, *partial = NULL;
	int plen = 0;
	if (nt == 0 && f == end) {
		*len = 0;
		return f;
	}
	while (f < end) {
		const char *bar = memchr(f, '|', (size_t)(end - f));
		int n = (int)((bar ? bar : end) - f), i = 0, k = 0;
		for (; i < nt && k < n; k++) {
			if (f[k] == 'Z') {
				while (i < nt && !targ_is_type(c->S, &ta[i]))
					i++;
				continue;
			}
			if (tcode_is_type(f[k]) != targ_is_type(c->S, &ta[i]))
				break;
			i++;
		}
		bool rest_optional = true;
		for (int r = k; r < n; r++)
			if (strchr("TNOP", f[r]))
				rest_optional = false;
		if (i == nt && rest_optional) {
			*len = n;
			return f;
		}
		if (i == nt && !partial) {      /* fold_targs names what is missing */
			partial = f;
			plen = n;
		}
		f = bar ? bar + 1 : end;
	}
	*len = plen;
	return partial;
}

/* "<T>, <SZ> or <N1,N2>": the forms of a template part, for messages. */
static const char *tform_names(BiCall *c)
{
	const char *sig = c->row->sig, *colon = strchr(sig, ':');
	Buf b = { 0 };
	for (const char *p = sig; colon && p < colon; p++) {
		if (p == sig || p[-1] == '|')
			buf_printf(&b, "%s<", p == sig ? "" : " or ");
		switch (*p) {
		case 't': case 'T': buf_printf(&b, "T"); break;
		case 's': buf_printf(&b, "T1"); break;
		case 'N': case 'n': buf_printf(&b, "N"); break;
		case 'O': buf_printf(&b, "Op"); break;
		case 'P': buf_printf(&b, "Precision"); break;
		case 'Z': buf_printf(&b, "SZ | N1,N2"); break;
		}
		if (p + 1 < colon && p[1] != '|')
			buf_printf(&b, "%s", *p == '|' ? "" : ",");
		if (p + 1 == colon || p[1] == '|')
			buf_printf(&b, ">");
	}
	const char *r = arena_printf(sema_arena(c->S), "%s", buf_cstr(&b));
	buf_free(&b);
	return r;
}

/* The operand that explicit sizes and a source type describe: the first
 * vector or matrix operand, else the first arithmetic one (Intel's
 * overloads put the sized vector first or, swapped, after a scalar). */
static int shaped_operand(BiCall *c)
{
	int first = -1;
	/* cm_pln<SZ>(coefficients, src1, src2): SZ sizes src1 */
	for (int i = c->id == BI_PLN; i < c->na && c->pcodes[i] && c->pcodes[i] != '*'; i++) {
		if (!strchr("xvw", c->pcodes[i]))
			continue;
		if (is_vm(c->a[i]))
			return i;
		if (first < 0)
			first = i;
	}
	return first;
}

/* Explicit sizes (SZ, or N1,N2) fix the operand's element count: a vector
 * or matrix must have that many elements, a scalar is splatted (Intel's
 * parameter is a vector<T,SZ> that the scalar initializes); a source type
 * T1 converts the operand. */
static bool apply_shape(BiCall *c, int64_t size, bool has_size, Type *src)
{
	int i = shaped_operand(c);
	if (i < 0)
		die("template sizes on a builtin without an operand");
	Node *e = c->a[i];
	if (has_size && is_vm(e) && elems(e) != size) {
		bi_error(c, e, "the template arguments give %lld element%s, but argument %d "
		         "has %d ('%s')", (long long)size, size == 1 ? "" : "s", i + 1,
		         elems(e), ty_str(e->ty));
		return false;
	}
	Type *el = src ? src : elem_of(e);
	if (has_size && !is_vm(e) && size > 1) {
		if (size * el->size >= 4096) {
			bi_error(c, e, "the template arguments give %lld elements, more than a "
			         "vector may hold", (long long)size);
			return false;
		}
		conv(c, i, ty_vector(el, (int)size));
	} else if (src) {
		conv_elem(c, i, src);
	}
	return true;
}

static bool fold_targs(BiCall *c)
{
	int nt, len;
	TemplArg *ta = call_targs(c->call, &nt);
	const char *f = pick_tform(c, ta, nt, &len);
	if (!f) {
		const char *forms = tform_names(c);
		if (!*forms)
			error_at(ta[0].loc, "'%s' takes no template arguments", c->row->name);
		else
			error_at(nt ? ta[0].loc : c->call->loc, "the template arguments of '%s' "
			         "(%s) must be %s", c->row->name, c->row->desc, forms);
		return false;
	}
	int64_t size = 1;
	bool has_size = false;
	Type *src = NULL;
	for (int i = 0, k = 0; k < len; k++) {
		char code = f[k];
		if (i >= nt) {
			if (code == 'T' || code == 'N' || code == 'O' || code == 'P') {
				error_at(c->call->loc, "'%s' (%s) needs an explicit template "
				         "argument %d", c->row->name, c->row->desc, i + 1);
				return false;
			}
			continue;
		}
		const char *what = arena_printf(sema_arena(c->S),
		                                "template argument %d of '%s'", i + 1, c->row->name);
		if (code == 'Z') {
			for (; i < nt && !targ_is_type(c->S, &ta[i]); i++) {
				int64_t v;
				if (!sema_targ_int(c->S, &ta[i], what, &v))
					return false;
				if (v < 1 || v > 4096) {
					error_at(ta[i].loc, "%s must be a size from 1 to 4096, found %lld",
					         what, (long long)v);
					return false;
				}
				size *= v;
				has_size = true;
			}
			continue;
		}
		if (code == 't' || code == 'T' || code == 's') {
			Type *t = sema_targ_type(c->S, &ta[i], what);
			if (!t)
				return false;
			if (t->kind != TY_SCALAR || t->sk == SK_BOOL) {
				error_at(ta[i].loc, "%s must be a vector element type, found '%s'",
				         what, ty_str(t));
				return false;
			}
			if (code == 's')
				src = t;
			else
				c->T = t;
		} else if (code == 'O') {
			Node *x = ta[i].expr ? sema_expr(c->S, ta[i].expr) : NULL;
			if (!x || !is_enum_named(x->ty, "CmAtomicOpType") ||
			    !const_val(x, &c->op)) {
				error_at(ta[i].loc, "%s must be an atomic operation (ATOMIC_ADD, ...)",
				         what);
				return false;
			}
			c->has_op = true;
		} else if (code == 'P') {
			Node *x = ta[i].expr ? sema_expr(c->S, ta[i].expr) : NULL;
			if (!x || !is_enum_named(x->ty, "CmPrecisionType") ||
			    !const_val(x, &c->prec[c->nprec])) {
				error_at(ta[i].loc, "%s must be a precision (CM_PRECISION_HF, ...)",
				         what);
				return false;
			}
			c->nprec++;
		} else {
			if (!sema_targ_int(c->S, &ta[i], what, &c->N))
				return false;
			c->has_N = true;
			if (c->nn < 2)
				c->ns[c->nn++] = c->N;
		}
		i++;
	}
	return has_size || src ? apply_shape(c, size, has_size, src) : true;
}

/* ---------------------------------------------------------- the resolver */

static bool check_args_fit(BiCall *c)
{
	for (int i = 0; i < c->na && c->pcodes[i] && c->pcodes[i] != '*'; i++) {
		Node *e = c->a[i];
		char code = c->pcodes[i];
		if (code_match(code, e))
			continue;
		const char *extra = "";
		if ((code == 'd' || code == 'e') && code_match(code == 'd' ? 'v' : 's', e))
			extra = " (not an lvalue)";
		else if (code == 'd' && e->lvalue && is_arith_scalar(e->ty) &&
		         !strncmp(c->row->name, "cm_", 3))
			extra = "; declare it as a vector<T,1> (cmc needs a vector for a scalar result)";
		diag_at(DIAG_ERROR, e->loc, e->len > 0 ? e->len : 1,
		        "argument %d of '%s' (%s) must be %s, found '%s'%s", i + 1,
		        c->row->name, c->row->desc, code_desc(code), ty_str(e->ty), extra);
		return false;
	}
	return true;
}

/* Picks the row: the first that fits, else the best for diagnostics. */
static int pick_row(Sema *S, Node *call, int first, Node **args, int na, bool *fits)
{
	Arena *a = sema_arena(S);
	int best = -1, best_fit = -2, ncand = 0;
	for (int id = first; id < BI_COUNT_; id++) {
		if (strcmp(rows[id].name, rows[first].name))
			continue;
		ncand++;
		int f = row_fit(a, id, args, na);
		if (f == na) {
			*fits = true;
			return id;
		}
		if (f > best_fit) {
			best_fit = f;
			best = id;
		}
	}
	*fits = false;
	if (best_fit >= 0)
		return best;
	if (ncand == 1) {
		int min, max;
		param_codes(a, rows[first].sig, &min, &max);
		if (min == max)
			error_at(call->loc, "'%s' (%s) takes %d argument%s, found %d",
			         rows[first].name, rows[first].desc, min, min == 1 ? "" : "s", na);
		else if (max == INT_MAX)
			error_at(call->loc, "'%s' (%s) takes at least %d arguments, found %d",
			         rows[first].name, rows[first].desc, min, na);
		else
			error_at(call->loc, "'%s' (%s) takes %d to %d arguments, found %d",
			         rows[first].name, rows[first].desc, min, max, na);
	} else {
		error_at(call->loc, "no form of '%s' takes %d argument%s",
		         rows[first].name, na, na == 1 ? "" : "s");
	}
	return -1;
}

/* Converts the scalar arguments and folds the saturation flag. */
static bool convert_args(BiCall *c)
{
	bool ok = true;
	for (int i = 0; i < c->na && c->pcodes[i] && c->pcodes[i] != '*'; i++) {
		int64_t v;
		switch (c->pcodes[i]) {
		case 'i': conv(c, i, ty_scalar(SK_INT)); break;
		case 'u': conv(c, i, ty_scalar(SK_UINT)); break;
		case 'h': conv(c, i, ty_scalar(SK_USHORT)); break;
		case 'b': conv(c, i, ty_scalar(SK_UCHAR)); break;
		case 'g': conv(c, i, ty_scalar(SK_ULONG)); break;
		case 'k':
			if (!const_val(c->a[i], &v)) {
				error_at(c->a[i]->loc, "%s must be an integer constant expression",
				         argwhat(c, i));
				ok = false;
			}
			conv(c, i, ty_scalar(SK_UINT));
			break;
		case 'f':
			if (!const_val(c->a[i], &v) || v < 0 || v > 1) {
				error_at(c->a[i]->loc, "%s must be SAT or _GENX_NOSAT", argwhat(c, i));
				ok = false;
			} else {
				c->call->op = (int)v;
			}
			c->na = i;      /* the flag is always last */
			break;
		}
	}
	return ok;
}

/* SIMD control flow: forbidden calls, and operand widths. */
static bool check_simd(BiCall *c)
{
	int w = sema_simd_width(c->S);
	if (w <= 0)
		return true;
	if (c->row->flags & BF_NOSIMD) {
		error_at(c->call->loc, "'%s' (%s) is not allowed inside SIMD control flow",
		         c->row->name, c->row->desc);
		return false;
	}
	if (!(c->row->flags & BF_SIMDW))
		return true;
	const char *want = strchr(c->pcodes, 'w') ? "w" : "vdx";
	for (int i = 0; i < c->na && c->pcodes[i] && c->pcodes[i] != '*'; i++) {
		if (!strchr(want, c->pcodes[i]) || !is_vm(c->a[i]) || elems(c->a[i]) == w)
			continue;
		diag_at(DIAG_ERROR, c->a[i]->loc, 1,
		        "'%s' (%s) inside SIMD control flow must have the SIMD width %d; "
		        "argument %d has %d elements", c->row->name, c->row->desc, w,
		        i + 1, elems(c->a[i]));
		return false;
	}
	return true;
}

static Type *simple_result(BiCall *c)
{
	switch (c->row->res) {
	case BR_VOID: return ty_void();
	case BR_INT: return ty_scalar(SK_INT);
	case BR_UINT: return ty_scalar(SK_UINT);
	case BR_USHORT: return ty_scalar(SK_USHORT);
	case BR_BOOL: return ty_scalar(SK_BOOL);
	case BR_UINT4: return ty_vector(ty_scalar(SK_UINT), 4);
	case BR_T: return c->T ? c->T : ty_scalar(SK_INT);
	default: return ty_void();
	}
}

Node *sema_builtin_call(Sema *S, Node *call, Sym *bsym)
{
	Arena *ar = sema_arena(S);
	int first = (int)bsym->cval;
	call->call_kind = CALL_BUILTIN;
	call->ty = ty_error();      /* until the call checks out */
	if (first <= 0 || first >= BI_COUNT_)
		die("builtin symbol '%s' without a row", bsym->name);
	call->builtin = first;
	if (rows[first].flags & BF_UNSUP) {
		error_at(call->loc, "'%s' is not supported by cmetal (%s)",
		         rows[first].name, rows[first].desc);
		return call;
	}
	BiCall c = { .S = S, .call = call };
	c.na = call->args.len;
	c.a = NEWN(ar, Node *, c.na + 1);
	bool poisoned = false;
	for (int i = 0; i < c.na; i++) {
		c.a[i] = sema_expr(S, call->args.data[i]);
		if (ty_is_error(c.a[i]->ty))
			poisoned = true;
	}
	bool fits;
	int id = pick_row(S, call, first, c.a, c.na, &fits);
	if (id < 0)
		return call;
	c.id = id;
	c.row = &rows[id];
	int min, max;
	c.pcodes = param_codes(ar, c.row->sig, &min, &max);
	call->builtin = id;
	if (!fits && !poisoned)
		check_args_fit(&c);
	if (!fits || poisoned || !fold_targs(&c) || !convert_args(&c) || !check_simd(&c))
		goto out;
	if (c.row->flags & BF_DEPRECATED && c.row->ck != ck_label)
		warn_at(call->loc, "'%s' (%s) is deprecated", c.row->name, c.row->desc);
	if (!c.row->ck(&c))
		goto out;
	call->ty = c.ty ? c.ty : simple_result(&c);
	call->targ_type = c.T;
out:
	call->args.len = 0;
	for (int i = 0; i < c.na; i++)
		nl_push(ar, &call->args, c.a[i]);
	return call;
}

/* -------------------------------------------------------------- checkers */

static bool ck_none(BiCall *c) { return true; }

/* cm_local_id(dim) and friends: a constant dim is 0, 1 or 2. */
static bool ck_dim(BiCall *c)
{
	int64_t v;
	if (const_val(c->a[0], &v) && (v < 0 || v > 2)) {
		bi_error(c, c->a[0], "dimension %lld is not 0, 1 or 2", (long long)v);
		return false;
	}
	return true;
}

static bool ck_sbarrier(BiCall *c)
{
	int64_t v;
	if (const_val(c->a[0], &v) && v != 0 && v != 1) {
		bi_error(c, c->a[0], "the flag must be 1 (signal) or 0 (wait)");
		return false;
	}
	return true;
}

/* Block reads: at most 128 bytes. */
static bool ck_block_read(BiCall *c)
{
	Node *d = c->a[c->na - 1];
	int64_t at;
	int ai = find_code(c, "a");
	if (ai >= 0 && const_val(c->a[ai], &at) && (at == 3 || at == 4)) {
		bi_error(c, c->a[ai], "field attributes apply only to 2D media reads");
		return false;
	}
	if (ty_base(d->ty)->size > 128) {
		bi_error(c, d, "at most 128 bytes can be read; '%s' has %d",
		         ty_str(d->ty), ty_base(d->ty)->size);
		return false;
	}
	return true;
}

/* The last argument's size must be one of sizes[0..3] bytes. */
static bool ck_block_size(BiCall *c, const int sizes[4])
{
	Node *d = c->a[c->na - 1];
	int sz = ty_base(d->ty)->size;
	for (int k = 0; k < 4; k++)
		if (sz == sizes[k])
			return true;
	bi_error(c, d, "the block must be %d, %d, %d or %d bytes; '%s' has %d", sizes[0],
	         sizes[1], sizes[2], sizes[3], ty_str(d->ty), sz);
	return false;
}

/* Block writes (and SVM block reads): exactly 16, 32, 64 or 128 bytes. */
static bool ck_block_exact(BiCall *c)
{
	return ck_block_size(c, (const int[4]){16, 32, 64, 128});
}

/* HWord blocks: 1, 2, 4 or 8 registers of 32 bytes. */
static bool ck_hword(BiCall *c)
{
	return ck_block_size(c, (const int[4]){32, 64, 128, 256});
}

/* 2D media blocks: width in bytes, rows; cm-language.md §6.1. */
static bool ck_media(BiCall *c)
{
	Node *d = c->a[c->na - 1];
	Type *t = ty_base(d->ty);
	int rows_ = t->kind == TY_MATRIX ? t->rows : 1;
	int width = (t->kind == TY_MATRIX ? t->cols : t->n) * t->elem->size;
	int64_t at;
	int ai = find_code(c, "a");
	if (ai >= 0 && const_val(c->a[ai], &at) && at != 2 && at != 3 && at != 4 &&
	    at != 0) {
		bi_error(c, c->a[ai], "2D media blocks take GENX_MODIFIED, "
		         "GENX_TOP_FIELD or GENX_BOTTOM_FIELD");
		return false;
	}
	if (width > 64) {
		bi_error(c, d, "a block is at most 64 bytes wide; '%s' is %d",
		         ty_str(d->ty), width);
		return false;
	}
	int maxh = width <= 4 ? 64 : width <= 8 ? 32 : width <= 16 ? 16 :
	           width <= 32 ? 8 : 4;
	if (rows_ > maxh) {
		bi_error(c, d, "a block %d bytes wide has at most %d rows; '%s' has %d",
		         width, maxh, ty_str(d->ty), rows_);
		return false;
	}
	return true;
}

/* Offsets vector `oi` and data `di`: counts in `ok_n`, element sizes. */
static bool check_gather(BiCall *c, int oi, int di, const int *ok_n,
                         const char *ok_n_str, int max_esize, ScalarKind osk)
{
	Node *o = c->a[oi], *d = c->a[di];
	int n = elems(o);
	bool good = false;
	for (const int *p = ok_n; *p; p++)
		good |= *p == n;
	if (!good) {
		bi_error(c, o, "the offsets must have %s elements, found %d", ok_n_str, n);
		return false;
	}
	if (elems(d) != n) {
		bi_error(c, d, "argument %d has %d elements; the offsets have %d", di + 1,
		         elems(d), n);
		return false;
	}
	int es = elem_size(d);
	if (es > max_esize || es == 3) {
		bi_error(c, d, "elements of %d bytes cannot be gathered or scattered "
		         "('%s')", es, ty_str(d->ty));
		return false;
	}
	conv_elem(c, oi, ty_scalar(osk));
	return true;
}

static const int n_all[] = { 1, 2, 4, 8, 16, 32, 0 };
static const int n_slm[] = { 8, 16, 32, 0 };
static const int n_qw[] = { 8, 16, 0 };

static bool ck_scattered(BiCall *c)
{
	int oi = find_code(c, "w");
	return check_gather(c, oi, oi + 1, n_all, "1, 2, 4, 8, 16 or 32", 4, SK_UINT);
}

static bool ck_slm_scattered(BiCall *c)
{
	return check_gather(c, 1, 2, n_slm, "8, 16 or 32", 4, SK_UINT);
}

static bool ck_svm_scattered(BiCall *c)
{
	return check_gather(c, 0, 1, n_all, "1, 2, 4, 8, 16 or 32", 8, SK_ULONG);
}

static bool ck_qword(BiCall *c)
{
	if (elem_size(c->a[2]) != 8) {
		bi_error(c, c->a[2], "the elements must be 8 bytes; '%s'",
		         ty_str(c->a[2]->ty));
		return false;
	}
	return check_gather(c, 1, 2, n_qw, "8 or 16", 8, SK_UINT);
}

static bool ck_scalar_rw(BiCall *c)
{
	if (c->id == BI_READ_SCALAR && c->T->size > 4) {
		bi_error(c, NULL, "the element type must be 1, 2 or 4 bytes");
		return false;
	}
	return true;
}

static int popcount4(int64_t v)
{
	int n = 0;
	for (int i = 0; i < 4; i++)
		n += (int)(v >> i) & 1;
	return n;
}

/* Data of NCh channels × N addresses: a NCh×N matrix or NCh·N vector. */
static bool check_rgba(BiCall *c, int mi, int di, int oi, int nch, const int *ok_n)
{
	Node *d = c->a[di], *o = c->a[oi];
	int n = elems(o);
	bool good = false;
	for (const int *p = ok_n; *p; p++)
		good |= *p == n;
	if (!good) {
		bi_error(c, o, "the offsets must have 8, 16 or 32 elements, found %d", n);
		return false;
	}
	if (elems(d) != nch * n) {
		bi_error(c, d, "%d channels of %d addresses need %d elements; '%s' has %d",
		         nch, n, nch * n, ty_str(d->ty), elems(d));
		return false;
	}
	if (elem_size(d) != 4) {
		bi_error(c, d, "the elements must be 4 bytes; '%s'", ty_str(d->ty));
		return false;
	}
	(void)mi;
	conv_elem(c, oi, ty_scalar(c->id == BI_SVM_GATHER4 || c->id == BI_SVM_SCATTER4
	                           ? SK_ULONG : SK_UINT));
	return true;
}

static bool ck_untyped(BiCall *c)
{
	int mi = find_code(c, "c"), di = find_code(c, "dv"), oi;
	int64_t m;
	if (!const_val(c->a[mi], &m)) {
		bi_error(c, c->a[mi], "the channel mask must be a constant");
		return false;
	}
	c->call->cargs[1] = (int)m;
	c->call->ncargs = 2;
	if (c->id == BI_SVM_SCATTER4 && m != 1 && m != 3 && m != 7 && m != 15) {
		bi_error(c, c->a[mi], "only CM_R_ENABLE, CM_GR_ENABLE, CM_BGR_ENABLE and "
		         "CM_ABGR_ENABLE can be scattered");
		return false;
	}
	oi = c->id == BI_SVM_GATHER4 || c->id == BI_SVM_SCATTER4 ? 0 : di + 1;
	for (int i = oi + 1; c->id == BI_READ_TYPED || c->id == BI_WRITE_TYPED; i++) {
		if (i >= c->na)
			break;
		if (elems(c->a[i]) != elems(c->a[oi])) {
			bi_error(c, c->a[i], "the coordinate vectors must have equal lengths");
			return false;
		}
		conv_elem(c, i, ty_scalar(SK_UINT));
	}
	return check_rgba(c, mi, di, oi, popcount4(m), n_slm);
}

static bool ck_slm_rgba(BiCall *c)
{
	int64_t m;
	if (!const_val(c->a[3], &m)) {
		bi_error(c, c->a[3], "the channel mask must be a constant");
		return false;
	}
	c->call->cargs[1] = (int)m;
	c->call->ncargs = 2;
	return check_rgba(c, 3, 2, 1, popcount4(~m & 0xF), n_slm);
}

static bool ck_slm_load(BiCall *c)
{
	int64_t v;
	if (const_val(c->a[3], &v) && (v <= 0 || v % 256)) {
		bi_error(c, c->a[3], "the size must be a positive multiple of 256 bytes, "
		         "found %lld", (long long)v);
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- atomics */

/* Checks sources and destination of an atomic with `n` addresses.  srcs
 * and ret index c->a (ret < 0: none).  T is the element type. */
static bool check_atomic_data(BiCall *c, int n, int s0, int nsrc, int ret,
                              int src_elems)
{
	Type *T = c->T;
	if (!T) {
		Node *from = nsrc ? c->a[s0] : ret >= 0 ? c->a[ret] : NULL;
		T = from ? elem_of(from) :
		    ty_scalar(atomic_is_float(c->op) ? SK_FLOAT : SK_UINT);
		c->T = T;
	}
	if (atomic_is_float(c->op) ? T->sk != SK_FLOAT && T->sk != SK_HALF :
	    T->sk != SK_INT && T->sk != SK_UINT) {
		bi_error(c, NULL, "%s needs %s elements, found '%s'", atomic_name(c->op),
		         atomic_is_float(c->op) ? "float" : "int or uint", ty_str(T));
		return false;
	}
	for (int k = 0; k < nsrc; k++) {
		Node *s = c->a[s0 + k];
		if (!is_vm(s) || elems(s) != src_elems) {
			bi_error(c, s, "source %d must be a vector of %d elements, found '%s'",
			         k, src_elems, ty_str(s->ty));
			return false;
		}
		conv(c, s0 + k, ty_vector(T, src_elems));
	}
	if (ret >= 0) {
		Node *r = c->a[ret];
		if (!is_vm(r) || !r->lvalue || elems(r) != n || elem_of(r) != T) {
			bi_error(c, r, "the result must be an lvalue vector<%s,%d> (or NULL), "
			         "found '%s'", ty_str(T), n, ty_str(r->ty));
			return false;
		}
	}
	c->call->cargs[0] = (int)c->op;
	c->call->cargs[2] = ret >= 0;
	if (c->call->ncargs < 3)
		c->call->ncargs = 3;
	return true;
}

static bool check_addr_count(BiCall *c, Node *o, const int *ok, const char *ok_str)
{
	for (const int *p = ok; *p; p++)
		if (*p == elems(o))
			return true;
	bi_error(c, o, "the offsets must have %s elements, found %d", ok_str, elems(o));
	return false;
}

static bool wrong_nsrc(BiCall *c, int want, int found)
{
	bi_error(c, NULL, "%s takes %d source operand%s, found %d", atomic_name(c->op),
	         want, want == 1 ? "" : "s", found);
	return false;
}

/* write_atomic<Op[,T[,N]]>([mask,] s, eOff, src0.., [ret]) */
static bool ck_atomic(BiCall *c)
{
	int oi = c->id == BI_WRITE_ATOMIC_MASKED ? 2 : 1;
	Node *o = c->a[oi];
	if (!check_addr_count(c, o, n_all, "1, 2, 4, 8, 16 or 32"))
		return false;
	int n = elems(o);
	if (c->has_N && c->N != n) {
		bi_error(c, o, "N is %lld but the offsets have %d elements",
		         (long long)c->N, n);
		return false;
	}
	if (oi == 2 && elems(c->a[0]) != n) {
		bi_error(c, c->a[0], "the mask has %d elements; the offsets have %d",
		         elems(c->a[0]), n);
		return false;
	}
	int nsrc = atomic_nsrc(c->op), rest = c->na - oi - 1;
	if (rest != nsrc && rest != nsrc + 1)
		return wrong_nsrc(c, nsrc, rest > nsrc ? rest - 1 : rest);
	conv_elem(c, oi, ty_scalar(SK_UINT));
	return check_atomic_data(c, n, oi + 1, nsrc, rest > nsrc ? c->na - 1 : -1, n);
}

/* Drops argument i (a NULL result) from the list. */
static void drop_arg(BiCall *c, int i)
{
	memmove(&c->a[i], &c->a[i + 1], sizeof(Node *) * (size_t)(c->na - i - 1));
	c->na--;
}

/* Moves argument i to the end. */
static void move_last(BiCall *c, int i)
{
	Node *x = c->a[i];
	memmove(&c->a[i], &c->a[i + 1], sizeof(Node *) * (size_t)(c->na - i - 1));
	c->a[c->na - 1] = x;
}

static bool atomic_op_arg(BiCall *c, int i)
{
	if (!const_val(c->a[i], &c->op)) {
		bi_error(c, c->a[i], "the atomic operation must be a constant");
		return false;
	}
	c->has_op = true;
	return true;
}

/* Legacy write(s, op, gOff, eOff, [src], ret|NULL) and
 * cm_slm_atomic(slm, op, addr, dst|0, [src0, [src1]]). */
static bool ck_atomic_legacy(BiCall *c)
{
	bool slm = c->id == BI_SLM_ATOMIC;
	int oi = slm ? 2 : 3;
	if (!atomic_op_arg(c, 1))
		return false;
	Node *o = c->a[oi];
	if (!check_addr_count(c, o, slm ? n_slm : n_all,
	                      slm ? "8, 16 or 32" : "1, 2, 4, 8, 16 or 32"))
		return false;
	int n = elems(o), nsrc = atomic_nsrc(c->op), rest = c->na - oi - 1;
	conv_elem(c, oi, ty_scalar(slm ? SK_USHORT : SK_UINT));
	if (slm) {
		if (rest != nsrc + 1)
			return wrong_nsrc(c, nsrc, rest - 1);
		if (is_null_arg(c->a[oi + 1]))
			drop_arg(c, oi + 1);
		else
			move_last(c, oi + 1);
		bool has_ret = c->na - oi - 1 > nsrc;
		return check_atomic_data(c, n, oi + 1, nsrc, has_ret ? c->na - 1 : -1, n);
	}
	/* legacy: CMPXCHG passes both sources in one vector of 2N; INC, DEC
	 * and PREDEC may pass an ignored source before the result */
	int lsrc = nsrc ? 1 : 0;
	if (!nsrc && rest == 2)
		drop_arg(c, oi + 1), rest--;
	if (rest != lsrc && rest != lsrc + 1)
		return wrong_nsrc(c, lsrc, rest > lsrc ? rest - 1 : rest);
	if (rest > lsrc && is_null_arg(c->a[c->na - 1]))
		c->na--;
	bool has_ret = c->na - oi - 1 > lsrc;
	return check_atomic_data(c, n, oi + 1, lsrc, has_ret ? c->na - 1 : -1,
	                         nsrc == 2 ? 2 * n : n);
}

/* write_typed_atomic<Op[,T[,N]]>([mask,] s, ret, [src0, [src1,]] u[, v[, r[, lod]]])
 * (cm-language.md §6.2): N pixels of a typed surface, N of 1, 2, 4 or 8
 * as in Intel's header; the sources are as many as the operation takes and
 * the coordinates follow.  The result is moved last, as for the other
 * atomics. */
static bool ck_typed_atomic(BiCall *c)
{
	int si = c->id == BI_WRITE_TYPED_ATOMIC_MASKED ? 1 : 0;
	Node *ret = c->a[si + 1];
	if (!is_vm(ret)) {
		bi_error(c, ret, "the result must be a vector_ref, found '%s'", ty_str(ret->ty));
		return false;
	}
	int n = elems(ret);
	if (n != 1 && n != 2 && n != 4 && n != 8) {
		bi_error(c, ret, "the result (one element per pixel) must have 1, 2, 4 or 8 "
		         "elements, found %d", n);
		return false;
	}
	if (c->has_N && c->N != n) {
		bi_error(c, ret, "N is %lld but the result has %d elements", (long long)c->N, n);
		return false;
	}
	int nsrc = atomic_nsrc(c->op), ncoord = c->na - si - 2 - nsrc;
	if (ncoord < 1 || ncoord > 4) {
		bi_error(c, NULL, "%s takes %d source%s, then 1 to 4 coordinate vectors "
		         "(u, v, r, lod); found %d argument%s after the result",
		         atomic_name(c->op), nsrc, nsrc == 1 ? "" : "s", c->na - si - 2,
		         c->na - si - 2 == 1 ? "" : "s");
		return false;
	}
	if (si && elems(c->a[0]) != n) {
		bi_error(c, c->a[0], "the mask has %d elements; the result has %d",
		         elems(c->a[0]), n);
		return false;
	}
	for (int k = 0; k < ncoord; k++) {
		int i = si + 2 + nsrc + k;
		if (!is_vm(c->a[i]) || elems(c->a[i]) != n || !ty_is_integer(elem_of(c->a[i]))) {
			bi_error(c, c->a[i], "coordinate '%s' must be an integer vector of %d "
			         "elements, found '%s'", (const char *[]){"u", "v", "r", "lod"}[k], n,
			         ty_str(c->a[i]->ty));
			return false;
		}
		conv_elem(c, i, ty_scalar(SK_UINT));
	}
	move_last(c, si + 1);
	return check_atomic_data(c, n, si + 1, nsrc, c->na - 1, n);
}

/* cm_svm_atomic(op, addrs, dst, [src0, [src1]]) and svm_atomic<Op>(addrs, dst, ...) */
static bool ck_atomic_svm(BiCall *c)
{
	int oi = 0;
	if (c->id == BI_SVM_ATOMIC) {
		if (!atomic_op_arg(c, 0))
			return false;
		oi = 1;
	}
	Node *o = c->a[oi];
	if (!check_addr_count(c, o, n_all, "1, 2, 4, 8, 16 or 32"))
		return false;
	int n = elems(o), nsrc = atomic_nsrc(c->op), rest = c->na - oi - 1;
	if (rest != nsrc + 1)
		return wrong_nsrc(c, nsrc, rest - 1);
	conv_elem(c, oi, ty_scalar(SK_ULONG));
	if (is_null_arg(c->a[oi + 1]))
		drop_arg(c, oi + 1);
	else
		move_last(c, oi + 1);
	bool has_ret = c->na - oi - 1 > nsrc;
	return check_atomic_data(c, n, oi + 1, nsrc, has_ret ? c->na - 1 : -1, n);
}

/* ------------------------------------------------------------------ math */

/* The computation element type of operands: their common type, integers
 * promoted to at least int (results are exact before the final
 * conversion, cm-language.md §4.2). */
static Type *compute_elem(BiCall *c, int from, int *count, int *shape)
{
	Type *ct = NULL;
	*count = 1;
	*shape = -1;
	for (int i = from; i < c->na; i++) {
		if (!strchr("xvs", c->pcodes[i]))
			continue;
		Node *e = c->a[i];
		Type *el = elem_of(e);
		if (el->kind == TY_ENUM)
			el = ty_scalar(SK_INT);
		ct = ct ? sema_common_elem(ct, el) : el;
		if (is_vm(e) && *shape < 0) {
			*shape = i;
			*count = elems(e);
		}
	}
	if (!ct)
		ct = ty_scalar(SK_INT);
	if (ty_is_integer(ct) && ct->size < 4)
		ct = ty_scalar(SK_INT);
	if ((c->row->flags & BF_FLOAT) && ty_is_integer(ct))
		ct = ty_scalar(SK_FLOAT);
	return ct;
}

/* Element-wise operands from index `from`: equal counts, type classes,
 * conversion to the computation type; sets the result. */
static bool math_operands(BiCall *c, int from, Type *def)
{
	int count, shape;
	Type *ct = compute_elem(c, from, &count, &shape);
	for (int i = from; i < c->na; i++) {
		Node *e = c->a[i];
		if (!strchr("xvs", c->pcodes[i]))
			continue;
		if (is_vm(e) && elems(e) != count) {
			bi_error(c, e, "argument %d has %d elements, argument %d has %d",
			         i + 1, elems(e), shape + 1, count);
			return false;
		}
		if ((c->row->flags & BF_INT) && !ty_is_integer(elem_of(e)) &&
		    elem_of(e)->kind != TY_ENUM) {
			bi_error(c, e, "argument %d must have an integer type, found '%s'",
			         i + 1, ty_str(e->ty));
			return false;
		}
		conv_elem(c, i, ct);
	}
	Type *rt = c->T;
	if (!rt)
		rt = def ? def : c->row->res == BR_MATH_UINT ? ty_scalar(SK_UINT) : ct;
	c->T = rt;
	c->ty = shape >= 0 ? ty_vector(rt, count) : rt;
	return true;
}

static bool ck_math(BiCall *c) { return math_operands(c, 0, NULL); }

/* cm_addc / cm_subb: uint operands, carry destination of the same size. */
static bool ck_carry(BiCall *c)
{
	if (!math_operands(c, 0, ty_scalar(SK_UINT)))
		return false;
	Node *d = c->a[2];
	if (elems(d) != ty_elems(c->ty) || elem_of(d)->sk != SK_UINT) {
		if (ty_elems(c->ty) == 1)
			bi_error(c, d, "the carry must be a uint variable, found '%s'", ty_str(d->ty));
		else
			bi_error(c, d, "the carry must be a uint vector_ref of %d elements, found '%s'",
			         ty_elems(c->ty), ty_str(d->ty));
		return false;
	}
	conv(c, 0, with_elem(c->a[0]->ty, ty_scalar(SK_UINT)));
	conv(c, 1, with_elem(c->a[1]->ty, ty_scalar(SK_UINT)));
	return true;
}

/* cm_div / cm_imul / cm_sincos: a destination ref, then operands. */
static bool ck_divrem(BiCall *c)
{
	if (!math_operands(c, 1, NULL))
		return false;
	Node *d = c->a[0];
	if (elems(d) != ty_elems(c->ty)) {
		bi_error(c, d, "the first argument must have %d element%s (a vector_ref%s), "
		         "found '%s'", ty_elems(c->ty), ty_elems(c->ty) == 1 ? "" : "s",
		         ty_elems(c->ty) == 1 ? "<T,1> for scalars" : "", ty_str(d->ty));
		return false;
	}
	return true;
}

/* Tuple operations: dp*, line, lrp, pln, sad2. */
static bool ck_tuple(BiCall *c)
{
	int main_ = 0, mult = 4;
	switch (c->id) {
	case BI_LINE: main_ = 1; break;
	case BI_LINE_PQ: main_ = 2; break;
	case BI_PLN: main_ = 1; mult = 8; break;
	case BI_SAD2: case BI_SADA2: mult = 2; break;
	}
	if ((c->id == BI_LINE || c->id == BI_PLN) && elems(c->a[0]) != 4) {
		bi_error(c, c->a[0], "the coefficients must be a vector of 4 elements, "
		         "found '%s'", ty_str(c->a[0]->ty));
		return false;
	}
	Node *m = c->a[main_];
	if (elems(m) % mult) {
		bi_error(c, m, "the operand must have a multiple of %d elements; '%s' has %d",
		         mult, ty_str(m->ty), elems(m));
		return false;
	}
	int from = c->id == BI_LINE || c->id == BI_PLN ? 1 : 0;
	if (c->id == BI_LINE || c->id == BI_PLN)
		conv(c, 0, with_elem(c->a[0]->ty, ty_scalar(SK_FLOAT)));
	return math_operands(c, from, NULL);
}

/* Reductions: a VM operand, a scalar result. */
static bool ck_reduce(BiCall *c)
{
	Node *v = c->a[0];
	Type *el = elem_of(v);
	if (!c->T)
		c->T = ty_is_integer(el) && el->size < 4 ? ty_scalar(SK_INT) : el;
	c->ty = c->T;
	return true;
}

static bool ck_pack_mask(BiCall *c)
{
	Node *v = c->a[0];
	if (!ty_is_integer(elem_of(v)) || elems(v) > 32) {
		bi_error(c, v, "the mask must be an integer vector or matrix of at most 32 "
		         "elements, found '%s'", ty_str(v->ty));
		return false;
	}
	return true;
}

static bool ck_unpack_mask(BiCall *c)
{
	if (c->N != 8 && c->N != 16 && c->N != 32) {
		bi_error(c, NULL, "N must be 8, 16 or 32, found %lld", (long long)c->N);
		return false;
	}
	if (!c->T)
		c->T = ty_scalar(SK_USHORT);
	c->call->cargs[0] = (int)c->N;
	c->call->ncargs = 1;
	c->ty = ty_vector(c->T, (int)c->N);
	return true;
}

/* Legacy half conversions work on bit patterns held in ushort. */
static bool ck_half_cvt(BiCall *c)
{
	bool to32 = c->id == BI_F16TOF32;
	Type *from = ty_scalar(to32 ? SK_USHORT : SK_FLOAT);
	Type *to = ty_scalar(to32 ? SK_FLOAT : SK_USHORT);
	conv_elem(c, 0, from);
	c->T = to;
	c->ty = with_elem(c->a[0]->ty, to);
	if (c->ty->kind == TY_MATRIX)
		c->ty = ty_vector(to, c->ty->n);
	return true;
}

/* cm_dpas<P1, P2, depth, repeat[, T]>([src0,] src1, src2): the DPAS
 * shapes of docs/language.md.  With execution size E (8 or 16, from
 * src1's size), src1 holds depth x E dwords, src2 repeat x depth dwords
 * (elements packed into dwords along K), src0 and the result repeat x E
 * accumulators: int/uint for 8-bit integers, float for HF/BF/TF32, double
 * for cmetal's DF form (two dwords per double). */
static const char *prec_name(int64_t v)
{
	for (const EnumVal *e = prec_vals; e->name; e++)
		if (e->value == v)
			return e->name;
	return "?";
}

static bool prec_is_int(int64_t p) { return p == 6 || p == 7; }

/* The accumulator element type of precision p, or NULL (unsupported). */
static Type *dpas_acc(int64_t p)
{
	switch (p) {
	case 6: case 7: return ty_scalar(SK_INT);
	case 8: case 9: case 10: return ty_scalar(SK_FLOAT);
	case 16: return ty_scalar(SK_DOUBLE);
	default: return NULL;
	}
}

static bool dpas_precisions(BiCall *c)
{
	int64_t p1 = c->prec[0], p2 = c->prec[1];
	for (int k = 0; k < 2; k++)
		if (!dpas_acc(c->prec[k])) {
			bi_error(c, NULL, "precision %s is not supported (cmetal has U8, S8, BF, "
			         "HF, TF32 and DF)", prec_name(c->prec[k]));
			return false;
		}
	if (p1 != p2 && !(prec_is_int(p1) && prec_is_int(p2))) {
		bi_error(c, NULL, "src1 is %s but src2 is %s; only U8 and S8 may be mixed",
		         prec_name(p1), prec_name(p2));
		return false;
	}
	if (c->ns[0] != 8) {
		bi_error(c, NULL, "the systolic depth must be 8, found %lld", (long long)c->ns[0]);
		return false;
	}
	if (c->ns[1] < 1 || c->ns[1] > 8) {
		bi_error(c, NULL, "the repeat count must be 1 to 8, found %lld", (long long)c->ns[1]);
		return false;
	}
	return true;
}

/* Operand i (src1 or src2) must hold `dwords` dwords of packed elements. */
static bool dpas_operand(BiCall *c, int i, const char *name, int dwords, bool df)
{
	Node *e = c->a[i];
	Type *el = elem_of(e);
	if (df ? el->kind != TY_SCALAR || el->sk != SK_DOUBLE : el->size > 4) {
		bi_error(c, e, "%s must have %s, found '%s'", name,
		         df ? "double elements" : "elements of at most 4 bytes", ty_str(e->ty));
		return false;
	}
	if (elems(e) * el->size != dwords * 4) {
		bi_error(c, e, "%s must hold %d bytes (%d dwords), found '%s'", name, dwords * 4,
		         dwords, ty_str(e->ty));
		return false;
	}
	return true;
}

static bool ck_dpas(BiCall *c)
{
	if (!dpas_precisions(c))
		return false;
	int64_t p1 = c->prec[0], rc = c->ns[1], sd = 8;
	bool df = p1 == 16, acc = c->id == BI_DPAS;
	int i1 = acc ? 1 : 0;
	Node *b = c->a[i1];
	int bytes = elems(b) * elem_size(b);
	int es = bytes / (int)(4 * sd);
	if (es != 8 && es != 16) {
		bi_error(c, b, "src1 must hold depth x 8 or depth x 16 dwords (execution size "
		         "8 or 16), found '%s'", ty_str(b->ty));
		return false;
	}
	if (!dpas_operand(c, i1, "src1", (int)sd * es, df) ||
	    !dpas_operand(c, i1 + 1, "src2", (int)(sd * rc), df))
		return false;
	Type *at = dpas_acc(p1);
	int n = (int)(rc * es);
	if (acc) {
		Type *el = elem_of(c->a[0]);
		if (prec_is_int(p1) && el->kind == TY_SCALAR && el->sk == SK_UINT)
			at = el;
		if (el != at || elems(c->a[0]) != n) {
			bi_error(c, c->a[0], "src0 must be a vector<%s,%d> (repeat count x execution "
			         "size), found '%s'", ty_str(at), n, ty_str(c->a[0]->ty));
			return false;
		}
	} else if (c->T) {
		if (prec_is_int(p1) && c->T->sk == SK_UINT)
			at = c->T;
		if (c->T != at) {
			bi_error(c, NULL, "the result type must be %s for %s, found '%s'",
			         ty_str(at), prec_name(p1), ty_str(c->T));
			return false;
		}
	}
	c->T = at;
	c->ty = ty_vector(at, n);
	c->call->cargs[0] = (int)p1;
	c->call->cargs[1] = (int)c->prec[1];
	c->call->cargs[2] = (int)rc;
	c->call->ncargs = 3;
	return true;
}

/* cm_wgmma<P1, P2, N[, S]>(acc, slm_a, slm_b) (cmetal): HF or BF operands
 * of one precision, N 8..56 in steps of 8 (16 x N floats stay under CM's
 * 4096-byte limit), acc 16 x N floats; the result is a vector of them.  S,
 * the operands' swizzle: 0 (none, the default) or 128 (rows of 128 bytes,
 * Hopper's 128-byte swizzle); cargs[2]. */
static bool ck_wgmma(BiCall *c)
{
	int64_t p1 = c->prec[0], p2 = c->prec[1], n = c->ns[0];
	if ((p1 != 8 && p1 != 9) || p2 != p1) {
		bi_error(c, NULL, "the operands must be HF or BF, of one precision, found %s and "
		         "%s", prec_name(p1), prec_name(p2));
		return false;
	}
	if (n < 8 || n > 56 || n % 8) {
		bi_error(c, NULL, "N must be a multiple of 8 from 8 to 56 (a 16 x N float accumulator "
		         "stays under 4096 bytes), found %lld", (long long)n);
		return false;
	}
	int64_t sw = c->nn > 1 ? c->ns[1] : 0;
	if (sw != 0 && sw != 128) {
		bi_error(c, NULL, "the swizzle must be 0 (none) or 128 (128-byte rows, swizzled), "
		         "found %lld", (long long)sw);
		return false;
	}
	Type *f = ty_scalar(SK_FLOAT);
	if (elem_of(c->a[0]) != f || elems(c->a[0]) != 16 * n) {
		bi_error(c, c->a[0], "acc must be a matrix<float, 16, %lld> (16 x N floats), found '%s'",
		         (long long)n, ty_str(c->a[0]->ty));
		return false;
	}
	c->T = f;
	c->ty = ty_vector(f, (int)(16 * n));
	c->call->cargs[0] = (int)p1;
	c->call->cargs[1] = (int)n;
	c->call->cargs[2] = (int)sw;
	c->call->ncargs = 3;
	return true;
}

/* cm_slm_copy_async[<E>](slm, buf, off) (cmetal): elements of E = 4, 8
 * or 16 bytes (16 when not given; cargs[0]), 1 to 128 offsets (four
 * copies a lane of a warp at most). */
static bool ck_slm_copy(BiCall *c)
{
	int64_t e = c->has_N ? c->N : 16;
	if (e != 4 && e != 8 && e != 16) {
		bi_error(c, NULL, "the element size must be 4, 8 or 16 bytes, found %lld",
		         (long long)e);
		return false;
	}
	int n = elems(c->a[2]);
	if (n < 1 || n > 128) {
		bi_error(c, c->a[2], "the offsets must have 1 to 128 elements, found %d", n);
		return false;
	}
	c->call->cargs[0] = (int)e;
	c->call->ncargs = 1;
	return true;
}

/* cm_slm_copy_wait(n), cm_wgmma_wait(n) (cmetal): n 0..7, the groups
 * left in flight (cp.async.wait_group's range, taken for both). */
static bool ck_groups_wait(BiCall *c)
{
	int64_t v;
	if (const_val(c->a[0], &v) && (v < 0 || v > 7)) {
		bi_error(c, c->a[0], "the groups left in flight must be 0 to 7, found %lld",
		         (long long)v);
		return false;
	}
	return true;
}

/* A printf argument for conversion text (len bytes): an integer, a double
 * or (%s) a string literal, as fmt_scan says; false after an error. */
static bool ck_printf_arg(BiCall *c, int i, const char *text, int len, const FmtConv *fc,
                          bool star)
{
	Node *e = c->a[i];
	bool str = e->kind == ND_STR_LIT, fl = !str && ty_is_float(e->ty);
	bool fits = star ? !str && !fl : fc->kind == FMT_STR ? str : !str && fmt_fits(fc, fl);
	if (fits)
		return true;
	const char *want = star ? "an integer" : fc->kind == FMT_STR ? "a string literal"
	                   : fc->kind == FMT_FLOAT ? "a floating-point" : "an integer";
	if (str)
		bi_error(c, e, "%sformat '%.*s' expects %s argument, but argument %d is a string "
		         "literal", star ? "'*' in " : "", len, text, want, i + 1);
	else
		bi_error(c, e, "%sformat '%.*s' expects %s argument, but argument %d has type '%s'",
		         star ? "'*' in " : "", len, text, want, i + 1, ty_str(e->ty));
	return false;
}

/* printf: a literal format under 128 bytes, at most 64 scalar or string
 * literal arguments, each conversion of the format given an argument of
 * its kind (format.c); more arguments than it uses are a warning. */
static bool ck_printf(BiCall *c)
{
	Node *f = c->a[0];
	if (f->str_len >= 128) {
		bi_error(c, f, "the format string must be shorter than 128 bytes (it has %d)",
		         f->str_len);
		return false;
	}
	if (c->na - 1 > 64) {
		bi_error(c, c->a[65], "at most 64 arguments can be printed, found %d",
		         c->na - 1);
		return false;
	}
	for (int i = 1; i < c->na; i++) {
		Node *e = c->a[i];
		if (!ty_is_scalar(e->ty) && e->kind != ND_STR_LIT) {
			bi_error(c, e, "argument %d must be a scalar or a string literal, "
			         "found '%s'", i + 1, ty_str(e->ty));
			return false;
		}
	}
	int next = 1;
	for (const char *s = f->str, *end = f->str + f->str_len; s < end; ) {
		const char *pc = memchr(s, '%', (size_t)(end - s));
		if (!pc)
			break;
		FmtConv fc;
		s = pc + fmt_scan(pc, &fc);
		int len = (int)fc.len;
		if (fc.kind == FMT_INCOMPLETE) {
			bi_error(c, f, "the format ends in an incomplete conversion '%.*s'", len, pc);
			return false;
		}
		if (fc.kind == FMT_UNSUPPORTED || fc.kind == FMT_UNKNOWN) {
			bi_error(c, f, fc.kind == FMT_UNSUPPORTED ? "'%.*s' is not supported in a format"
			         : "unknown conversion '%.*s' in the format", len, pc);
			return false;
		}
		if (fc.kind == FMT_STR && (fc.width_star || fc.prec_star)) {
			bi_error(c, f, "'*' is not supported with %%s (in '%.*s')", len, pc);
			return false;
		}
		int need = fmt_nargs(&fc);
		if (next + need > c->na) {
			bi_error(c, f, "format '%.*s' expects a matching argument (the call has %d "
			         "after the format)", len, pc, c->na - 1);
			return false;
		}
		for (int k = 0; k < need; k++)
			if (!ck_printf_arg(c, next + k, pc, len, &fc, k < need - 1))
				return false;
		next += need;
	}
	if (next < c->na)
		diag_at(DIAG_WARNING, c->a[next]->loc, c->a[next]->len > 0 ? c->a[next]->len : 1,
		        "'printf' (formatted output): too many arguments for the format (it uses %d, "
		        "the call has %d)", next - 1, c->na - 1);
	return true;
}

static bool ck_label(BiCall *c)
{
	warn_at(c->call->loc, "cm_label is deprecated and ignored");
	return true;
}
