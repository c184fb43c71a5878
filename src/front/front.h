/* front.h — the front end: lexer, preprocessor, parser, sema.
 *
 *   text ─► lex.c ─► pp.c ─► Token[] ─► parse.c ─► Node (untyped AST)
 *        ─► sema*.c ─► Node (typed, resolved, templates instantiated)
 *
 * The parser builds a purely syntactic tree: names are strings and types
 * are TypeSpecs whose sizes are still expressions.  Sema resolves names to
 * Syms, TypeSpecs to Types, inserts implicit conversions (ND_CAST with
 * implicit set), folds template/select/format arguments to constants,
 * classifies calls (user function, builtin, element access, member) and
 * instantiates templates by cloning the template's body (ast_clone) and
 * checking the clone with the template parameters bound.  Lowering (src/ir)
 * reads only the typed tree.
 */
#ifndef CMETAL_FRONT_H
#define CMETAL_FRONT_H

#include "util/util.h"

/* ---------------------------------------------------------------- tokens */

#define TOKEN_KINDS(X)                                                        \
	X(EOF) X(IDENT) X(KEYWORD) X(INT) X(FLOAT) X(CHAR) X(STRING)          \
	X(PUNCT) X(PRAGMA) X(PPNUM) X(OTHER)

typedef enum {
#define X(n) TK_##n,
	TOKEN_KINDS(X)
#undef X
} TokKind;

/* Keywords.  CM's vector/matrix types are keywords: they are built into the
 * language, not library templates.  uchar/ushort/uint and the intN_t
 * typedefs are predeclared typedef names, not keywords. */
#define KEYWORDS(X)                                                           \
	X(VOID, "void") X(BOOL, "bool") X(CHAR, "char") X(SHORT, "short")     \
	X(INT, "int") X(LONG, "long") X(SIGNED, "signed")                     \
	X(UNSIGNED, "unsigned") X(FLOAT, "float") X(DOUBLE, "double")         \
	X(HALF, "half") X(CONST, "const") X(VOLATILE, "volatile")             \
	X(STATIC, "static") X(EXTERN, "extern") X(INLINE, "inline")           \
	X(TYPEDEF, "typedef") X(STRUCT, "struct") X(UNION, "union")           \
	X(ENUM, "enum") X(CLASS, "class") X(IF, "if") X(ELSE, "else")         \
	X(FOR, "for") X(WHILE, "while") X(DO, "do") X(SWITCH, "switch")       \
	X(CASE, "case") X(DEFAULT, "default") X(BREAK, "break")               \
	X(CONTINUE, "continue") X(GOTO, "goto") X(RETURN, "return")           \
	X(SIZEOF, "sizeof") X(TRUE, "true") X(FALSE, "false")                 \
	X(TEMPLATE, "template") X(TYPENAME, "typename") X(AUTO, "auto")       \
	X(CONSTEXPR, "constexpr") X(USING, "using")                           \
	X(NAMESPACE, "namespace") X(STATIC_ASSERT, "static_assert")           \
	X(STATIC_CAST, "static_cast") X(REINTERPRET_CAST, "reinterpret_cast") \
	X(CONST_CAST, "const_cast") X(ASM, "asm") X(REGISTER, "register")     \
	X(RESTRICT, "__restrict") X(DECLSPEC, "__declspec")                   \
	X(NULLPTR, "nullptr") X(VECTOR, "vector") X(MATRIX, "matrix")         \
	X(VECTOR_REF, "vector_ref") X(MATRIX_REF, "matrix_ref")               \
	X(SURFACEINDEX, "SurfaceIndex") X(SAMPLERINDEX, "SamplerIndex")       \
	X(VMEINDEX, "VmeIndex")

typedef enum {
	KW_NONE_,
#define X(n, s) KW_##n,
	KEYWORDS(X)
#undef X
	KW_COUNT_
} Keyword;

/* Punctuators; the lexer does maximal munch over this table.  There is no
 * "[[" or "]]" token (m[i[0]] must lex): the parser sees two brackets. */
#define PUNCTS(X)                                                             \
	X(LPAREN, "(") X(RPAREN, ")") X(LBRACKET, "[") X(RBRACKET, "]")       \
	X(LBRACE, "{") X(RBRACE, "}") X(SEMI, ";") X(COMMA, ",")              \
	X(DOT, ".") X(ARROW, "->") X(ELLIPSIS, "...") X(QUESTION, "?")        \
	X(COLON, ":") X(SCOPE, "::") X(PLUS, "+") X(MINUS, "-")               \
	X(STAR, "*") X(SLASH, "/") X(PERCENT, "%") X(AMP, "&") X(PIPE, "|")   \
	X(CARET, "^") X(TILDE, "~") X(NOT, "!") X(ASSIGN, "=") X(LT, "<")     \
	X(GT, ">") X(LE, "<=") X(GE, ">=") X(EQ, "==") X(NE, "!=")            \
	X(LSHIFT, "<<") X(RSHIFT, ">>") X(ANDAND, "&&") X(OROR, "||")         \
	X(INC, "++") X(DEC, "--") X(ADD_ASSIGN, "+=") X(SUB_ASSIGN, "-=")     \
	X(MUL_ASSIGN, "*=") X(DIV_ASSIGN, "/=") X(MOD_ASSIGN, "%=")           \
	X(AND_ASSIGN, "&=") X(OR_ASSIGN, "|=") X(XOR_ASSIGN, "^=")            \
	X(SHL_ASSIGN, "<<=") X(SHR_ASSIGN, ">>=") X(HASH, "#")                \
	X(HASHHASH, "##")

typedef enum {
	P_NONE_,
#define X(n, s) P_##n,
	PUNCTS(X)
#undef X
	P_COUNT_
} Punct;

/* Scalar element kinds, in conversion-rank order (C's usual arithmetic
 * conversions compare these).  Shared by types and literals. */
#define SCALAR_KINDS(X)                                                       \
	X(BOOL, "bool", 1) X(CHAR, "char", 1) X(UCHAR, "uchar", 1)            \
	X(SHORT, "short", 2) X(USHORT, "ushort", 2) X(INT, "int", 4)          \
	X(UINT, "uint", 4) X(LONG, "long long", 8)                            \
	X(ULONG, "unsigned long long", 8) X(HALF, "half", 2)                  \
	X(FLOAT, "float", 4) X(DOUBLE, "double", 8)

typedef enum {
#define X(n, s, b) SK_##n,
	SCALAR_KINDS(X)
#undef X
	SK_COUNT_
} ScalarKind;

typedef enum { PRAGMA_UNROLL = 1, PRAGMA_NOUNROLL } PragmaKind;

/* 56 bytes: the preprocessor copies tokens by value, and the parser's
 * tokens are in memory a block at a time and more (a few per source byte,
 * until the parser frees them), so keep it small. */
typedef struct Token {
	Loc loc;              /* where the user sees it (macro use site) */
	int len;
	const char *text;     /* spelling; interned for IDENT and KEYWORD */
	union {
		uint64_t ival;  /* INT / CHAR value; PRAGMA unroll count (0: full);
		                   TK_OTHER: the lexer's error */
		double fval;    /* FLOAT value */
		const char *str; /* STRING: decoded bytes (NUL-terminated) */
	};
	void *pp;             /* preprocessor-private (hide sets) */
	int id;               /* Keyword, Punct or PragmaKind by kind */
	int str_len;
	uint8_t kind;         /* TokKind */
	uint8_t lit;          /* ScalarKind of an INT/FLOAT/CHAR literal after suffixes */
	bool bol;             /* first token on its line */
	bool space;           /* white space before it */
} Token;
_Static_assert(sizeof(Token) == 56, "Token should stay 56 bytes");

/* Built-in headers (<cm/cm.h>, <cm/cmtl.h>): the text of the headers in include/cm,
 * embedded at build time.  NULL if `name` is not one of them. */
const char *cm_builtin_header(const char *name);

/* lex.c */
extern const char *keyword_names[KW_COUNT_];
extern const char *punct_names[P_COUNT_];
const char *scalar_name(ScalarKind k);
int scalar_size(ScalarKind k);
/* Splits one source file into tokens (no preprocessing).  Errors for bad
 * characters and unterminated literals go to the diagnostics. */
Token *lex_file(Arena *a, int file, int *ntok);
/* Converts a TK_PPNUM to TK_INT or TK_FLOAT; false (and a diagnostic) if
 * it is not a valid number. */
bool lex_convert_number(Token *t);
/* lex_file's engine, for the preprocessor: lexes `text` with locations in
 * `file`.  With quiet set, malformed tokens come back as TK_OTHER with no
 * diagnostic until lex_report(t) (text in #if 0 blocks may be anything). */
Token *lex_text(Arena *a, int file, const char *text, size_t len, bool quiet,
                int *ntok);
/* The same with the array malloc'd for the caller to free (the strings of
 * the tokens still live in a). */
Token *lex_text_owned(Arena *a, int file, const char *text, size_t len, bool quiet,
                      int *ntok);
/* The same a token at a time (the preprocessor reads files so, never
 * holding a whole file's tokens): lex_next gives the next token, and
 * TK_EOF at the end and after it.  The lexer lives in a. */
typedef struct Lexer Lexer;
Lexer *lex_open(Arena *a, int file, const char *text, size_t len, bool quiet);
void lex_next(Lexer *L, Token *t);
void lex_report(const Token *t);
const char *tok_str(Arena *a, const Token *t); /* spelling as a C string */

/* pp.c */
typedef struct {
	const char **include_dirs;    /* -I, searched in order */
	int n_include_dirs;
	const char **defines;         /* -D: "NAME" or "NAME=VALUE", in order with undefs */
	int n_defines;
	const char **undefs;          /* -U NAME */
	int n_undefs;
	const char *march;            /* persona for CM_GENX etc.; NULL: "SKL" */
	Buf *deps;                    /* when set: each file #include looked for, in
	                               * order, as dep_line() writes it (its hash or
	                               * "-" when absent); not the built-in headers */
	Arena *keep;                  /* where the source table's texts and file
	                               * names go (NULL: the preprocessor's arena):
	                               * diagnostics and -g read them after the
	                               * syntax tree is freed (target/compile.c) */
} PPOptions;

/* The preprocessed tokens: malloc'd blocks of TOK_BLOCK tokens that never
 * move, so that the parser can hold pointers to tokens and free the blocks
 * it has left behind (56 bytes a token, a few tokens per source byte). */
enum { TOK_BLOCK = 4096 };
typedef struct {
	Token **blocks;               /* a block freed by tl_release is NULL */
	int nblocks;
	int len;                      /* tokens */
	int released;                 /* blocks before this one are freed */
} TokenList;

static inline Token *tl_at(const TokenList *l, int i)
{
	return &l->blocks[i / TOK_BLOCK][i % TOK_BLOCK];
}
void tl_push(TokenList *l, const Token *t);
void tl_truncate(TokenList *l, int len);
void tl_release(TokenList *l, int before);     /* frees the blocks wholly before token `before` */
void tl_free(TokenList *l);

/* Reads and preprocesses `path` (or, if text is non-NULL, that text under
 * the name path) into *out (empty on entry), ending in TK_EOF; the tokens'
 * strings live in a.  False if the file cannot be read (diagnosed).
 * <cm/cm.h> and <cm/cmtl.h> are built in; cm.h is implicitly included
 * first. */
bool preprocess(Arena *a, const char *path, const char *text,
                const PPOptions *opt, TokenList *out);
/* Writes tokens as text (for cmetal -E), keeping line structure. */
void pp_print(const TokenList *toks, Buf *out);

/* pp_expr.c */
/* Evaluates an #if expression: n tokens, already macro-expanded, with
 * t[n] an EOF token at the end of the line.  False after an error
 * (reported); `leftover` is the message for tokens after the expression. */
bool pp_eval_int(const Token *t, int n, const char *leftover, uint64_t *value,
                 bool *is_unsigned);

/* ----------------------------------------------------------------- types */

typedef struct Type Type;
typedef struct Node Node;
typedef struct Sym Sym;

typedef enum {
	TY_VOID,
	TY_SCALAR,        /* sk */
	TY_ENUM,          /* an enum type; underlying int.  Builtin enums are enum classes */
	TY_SURFACE,       /* SurfaceIndex */
	TY_SAMPLER,       /* SamplerIndex */
	TY_VME,           /* VmeIndex */
	TY_VECTOR,        /* elem, n; is_ref for vector_ref */
	TY_MATRIX,        /* elem, rows, cols; is_ref for matrix_ref */
	TY_STRUCT,
	TY_ARRAY,         /* file-scope initializer arrays only: elem, n */
	TY_STRING,        /* a string literal (printf formats) */
	TY_FUNC,
	TY_NULLPTR,       /* `0`/NULL passed where a builtin allows "no result" */
} TypeKind;

typedef struct Field {
	const char *name;
	Type *ty;
	int offset;
	Loc loc;
} Field;

struct Type {
	TypeKind kind;
	ScalarKind sk;      /* TY_SCALAR */
	Type *elem;         /* vector/matrix element (a TY_SCALAR), array element */
	int n;              /* vector length, array length; matrix rows*cols */
	int rows, cols;     /* matrix */
	bool is_ref;        /* vector_ref / matrix_ref */
	bool is_const;
	int size, align;    /* bytes */
	const char *name;   /* struct / enum name */
	Field *fields;      /* struct */
	int nfields;
	bool enum_class;    /* builtin enums (CmAtomicOpType, ...) do not mix with int */
	Type *ret;          /* function */
	Type **params;
	int nparams;
	Sym *tag;           /* struct/enum declaration */
	Type *unqual;       /* type.c: const variant of a struct/enum -> the plain one */
	int nest;           /* struct: how deep structs nest in it, itself included */
};

/* Struct limits: lowering walks a struct's fields recursively and gives
 * every scalar, vector and matrix inside it a variable. */
enum { MAX_STRUCT_NEST = 256, MAX_STRUCT_BYTES = 1 << 20 };

/* type.c — types are hash-consed: equal types are the same pointer. */
Type *ty_void(void);
Type *ty_scalar(ScalarKind k);
Type *ty_vector(Type *elem, int n);
Type *ty_matrix(Type *elem, int rows, int cols);
Type *ty_as_ref(Type *t);          /* vector -> vector_ref, matrix -> matrix_ref */
Type *ty_base(Type *t);            /* drop ref and const */
Type *ty_with_const(Type *t, bool c);
Type *ty_array(Type *elem, int n);
Type *ty_surface(void);
Type *ty_sampler(void);
Type *ty_vme(void);
Type *ty_string(void);
Type *ty_nullptr(void);
Type *ty_error(void);               /* poison: an expression already diagnosed */
bool ty_is_error(const Type *t);
Type *ty_nominal(TypeKind k, const char *name); /* a new, distinct struct/enum type */
Type *ty_func(Type *ret, Type **params, int nparams);
bool ty_is_vm(const Type *t);       /* vector, matrix or a ref to one */
bool ty_is_scalar(const Type *t);   /* TY_SCALAR or TY_ENUM */
bool ty_is_integer(const Type *t);
bool ty_is_float(const Type *t);
int ty_elems(const Type *t);        /* element count of a VM; 1 for a scalar */
Type *ty_elem(Type *t);             /* element type of a VM; t for a scalar */
/* Writes the type as the user wrote it: "vector_ref<uint,16>". */
const char *ty_str(const Type *t);

/* ------------------------------------------------------------------- AST */

/* A type as written: sizes are still expressions, names are unresolved. */
typedef enum {
	TS_SCALAR,        /* sk */
	TS_VOID,
	TS_NAMED,         /* typedef, struct, enum or template type parameter: name */
	TS_VECTOR,        /* vector<elem, dims[0]> */
	TS_MATRIX,        /* matrix<elem, dims[0], dims[1]> */
	TS_VECTOR_REF,
	TS_MATRIX_REF,
	TS_SURFACE,
	TS_SAMPLER,
	TS_VME,
	TS_AUTO,
	TS_STRUCT_DEF,    /* struct { ... } written inline: def */
	TS_ENUM_DEF,      /* enum [name] { ... } written inline: def */
	TS_DECLTYPE_,     /* reserved */
} TypeSpecKind;

typedef struct TypeSpec {
	TypeSpecKind kind;
	Loc loc;
	ScalarKind sk;
	const char *name;         /* TS_NAMED (may be qualified "cmtl::x" interned) */
	struct TypeSpec *elem;    /* vector/matrix element */
	Node *dims[2];            /* size expressions */
	bool is_const;
	bool is_ref;              /* declared with & (C++ reference) */
	bool is_pointer;          /* declared with * (diagnosed by sema) */
	Node *def;                /* TS_STRUCT_DEF / TS_ENUM_DEF */
	Type *resolved;           /* set by sema */
} TypeSpec;

/* A template argument as written: a type or an expression.  Where the
 * parser cannot tell (a bare name that is neither a known type nor a
 * variable) it records an expression; sema checks the kind. */
typedef struct TemplArg {
	TypeSpec *ts;             /* a type argument, or NULL */
	Node *expr;               /* a value argument, or NULL */
	Loc loc;
} TemplArg;

typedef struct TemplParam {
	const char *name;
	bool is_type;             /* typename/class T */
	TypeSpec *ts;             /* type of a non-type parameter */
	TemplArg *def;            /* default argument, or NULL */
	Loc loc;
} TemplParam;

/* Declaration specifiers that apply to a declaration as a whole. */
enum {
	DS_STATIC = 1 << 0,
	DS_EXTERN = 1 << 1,
	DS_EXTERN_C = 1 << 2,     /* extern "C", either form */
	DS_INLINE = 1 << 3,
	DS_CONSTEXPR = 1 << 4,
	DS_TYPEDEF = 1 << 5,
	DS_GENX_MAIN = 1 << 6,    /* __declspec(genx_main): a kernel */
	DS_GENX = 1 << 7,         /* __declspec(genx) */
	DS_GENX_VOLATILE = 1 << 8,
	DS_STACKCALL = 1 << 9,
	DS_FLOAT_CONTROL = 1 << 10,
	DS_SIMT = 1 << 11,        /* rejected */
};

/* How an ND_CAST was written (its op).  Added by the parser. */
enum {
	CAST_C,                   /* (T)e; also sema's implicit conversions */
	CAST_FUNC,                /* T(args) or T{args} */
	CAST_STATIC,              /* static_cast<T>(e) */
	CAST_REINTERPRET,         /* reinterpret_cast<T>(e) */
	CAST_CONST,               /* const_cast<T>(e) */
};

#define NODE_KINDS(X)                                                         \
	/* expressions */                                                     \
	X(INT_LIT) X(FLOAT_LIT) X(BOOL_LIT) X(STR_LIT) X(NULLPTR)             \
	X(IDENT)        /* name; after sema: sym */                           \
	X(UNARY)        /* op: P_PLUS P_MINUS P_NOT P_TILDE; P_INC/P_DEC prefix */\
	X(POSTFIX)      /* op: P_INC P_DEC */                                 \
	X(BINARY)       /* op, lhs, rhs */                                    \
	X(ASSIGN)       /* op: P_ASSIGN or a compound P_*_ASSIGN */           \
	X(COND)         /* cond ? then : els */                               \
	X(COMMA)        /* lhs, rhs */                                        \
	X(CALL)         /* lhs(args); explicit targs when written f<...>(...) */\
	X(MEMBER_CALL)  /* lhs.name<targs>(args): select, format, merge, ... */\
	X(MEMBER)       /* lhs.name: struct field */                          \
	X(INDEX)        /* lhs[rhs] */                                        \
	X(CAST)         /* (T)e, T(args...), static_cast<T>(e); ts, args */   \
	X(SIZEOF)       /* sizeof(ts) or sizeof expr (lhs) */                 \
	X(INIT_LIST)    /* { args } */                                        \
	/* statements */                                                      \
	X(BLOCK)        /* { body } as args */                                \
	X(DECL_STMT)    /* args: VAR_DECLs; or a local enum/typedef (lhs) */  \
	X(EXPR_STMT)    /* lhs */                                             \
	X(IF)           /* cond, then, els; simd set by sema */               \
	X(FOR)          /* init (stmt), cond, inc, body */                    \
	X(WHILE)        /* cond, body */                                      \
	X(DO)           /* body, cond */                                      \
	X(SWITCH)       /* cond, body */                                      \
	X(CASE)         /* lhs (value), body; rhs: range end (GNU) unused */  \
	X(DEFAULT)      /* body */                                            \
	X(BREAK) X(CONTINUE)                                                  \
	X(GOTO)         /* name */                                            \
	X(LABEL)        /* name, body */                                      \
	X(RETURN)       /* lhs or NULL */                                     \
	X(NULL_STMT)                                                          \
	X(STATIC_ASSERT) /* lhs, str */                                       \
	X(ASM)          /* rejected by sema */                                \
	/* declarations */                                                    \
	X(VAR_DECL)     /* name, ts, array dims in args2, init (expr or     \
	                   INIT_LIST) or ctor args in args (T v(a, b)) */     \
	X(FUNC)         /* name, ts (return), params (VAR_DECLs), body */     \
	X(TYPEDEF)      /* name, ts; also `using name = type;` */             \
	X(STRUCT_DECL)  /* name, args: field VAR_DECLs */                     \
	X(ENUM_DECL)    /* name (may be NULL), args: ENUMERATORs */           \
	X(ENUMERATOR)   /* name, lhs (value expr or NULL) */                  \
	X(TEMPLATE)     /* tparams, lhs: the FUNC (or STRUCT_DECL) */         \
	X(INSTANTIATE)  /* template void f<args>(params); lhs: the FUNC     \
	                   (no body), targs: the explicit arguments */        \
	X(NAMESPACE)    /* name, args: declarations */                        \
	X(USING_NS)     /* using namespace name; */                           \
	X(UNIT)         /* args: top-level declarations */

typedef enum {
#define X(n) ND_##n,
	NODE_KINDS(X)
#undef X
	ND_COUNT_
} NodeKind;

/* CM members, classified by sema from MEMBER_CALL's name. */
#define CM_MEMBERS(X)                                                         \
	X(SELECT, "select") X(SELECT_ALL, "select_all") X(ISELECT, "iselect") \
	X(REPLICATE, "replicate") X(FORMAT, "format") X(MERGE, "merge")       \
	X(ROW, "row") X(COLUMN, "column") X(ANY, "any") X(ALL, "all")         \
	X(N_ELEMS, "n_elems") X(N_ROWS, "n_rows") X(N_COLS, "n_cols")         \
	X(GENX_SELECT, "genx_select")

typedef enum {
	MB_NONE_,
#define X(n, s) MB_##n,
	CM_MEMBERS(X)
#undef X
	MB_COUNT_
} CmMember;

/* How sema classified a CALL. */
typedef enum {
	CALL_UNRESOLVED,
	CALL_FUNC,        /* user function (or template instance): sym */
	CALL_BUILTIN,     /* builtin library function: builtin */
	CALL_ELEMENT,     /* v(i) or m(i, j) element access on a VM */
	CALL_CTOR,        /* rare: a call that is really a functional cast */
} CallKind;

typedef VEC(Node *) NodeList;

/* A unit holds about one node per 3 to 5 source bytes and the tree lives
 * until the end of the compilation, so a node is only as long as its kind
 * needs (node_size): the fields come in three layers.  Names, literals,
 * operators and simple statements (most nodes) end after the first;
 * calls, members, casts and lists (args) after the second; only control
 * flow and declarations carry the third.  Code that walks any node's fields
 * (ast_clone, the dump, lower_unroll.c) reads the second and third layers
 * only where node_class says they exist.  Within a layer, pointers come
 * first, then ints, then flags, so there is no padding. */
typedef enum {
	NODE_BASIC,               /* names, literals but strings, operators, EXPR_STMT,
	                             RETURN: the first layer */
	NODE_CALL,                /* CALL, MEMBER_CALL, MEMBER, INDEX, CAST, and the lists
	                             INIT_LIST, BLOCK, DECL_STMT: two */
	NODE_FULL,                /* the rest */
} NodeClass;

struct Node {
	/* every node */
	Type *ty;                 /* sema: the expression's type */
	Node *lhs, *rhs;
	const char *name;         /* identifier, member, declared name (interned) */
	Sym *sym;                 /* sema: IDENT, VAR_DECL, FUNC, CALL_FUNC target */
	union {
		uint64_t ival;    /* INT_LIT / BOOL_LIT value; ENUMERATOR value after sema */
		double fval;      /* FLOAT_LIT */
	};
	int64_t cval;             /* sema: constant value (has_value) of an integer ... */
	double cfval;             /* ... or a float expression */
	NodeKind kind;
	Loc loc;
	int len;                  /* columns the node's leading token spans (for carets) */
	int op;                   /* Punct for operators; cast kind for CAST */
	uint8_t lit;              /* ScalarKind: literal type */
	bool lvalue : 1;          /* sema: designates storage */
	bool implicit : 1;        /* sema: an inserted conversion */
	bool sat : 1;             /* sema: CAST saturates (vector<T,N>(x, SAT)) */
	bool has_targs : 1;       /* <...> was written (possibly empty) */
	bool template_kw : 1;     /* x.template select<...>() */
	bool enum_class : 1;      /* ENUM_DECL: enum class; ts: underlying type (parser) */
	bool simd : 1;            /* sema: IF / DO: SIMD control flow; BREAK/CONTINUE inside one */
	bool has_value : 1;       /* sema: constant expression value known (cval, cfval) */

	/* NODE_CALL and NODE_FULL nodes */
	NodeList args;            /* call args, block statements, list items */
	TypeSpec *ts;             /* declared / cast type */
	TemplArg *targs;          /* explicit template arguments */
	Type *targ_type;          /* sema: folded type template arg (format<T>, cm_sum<T>) */
	Loc name_loc;             /* the member's or declared name's */
	int ntargs;
	int builtin;              /* sema: Builtin id for CALL_BUILTIN */
	int cargs[4];             /* sema: folded constant template args (select sizes, ...) */
	uint8_t call_kind;        /* sema: CallKind */
	uint8_t member;           /* sema: CmMember of a MEMBER_CALL */
	uint8_t ncargs;

	/* NODE_FULL nodes */
	Node *cond, *then, *els;
	Node *init, *inc, *body;
	NodeList args2;           /* VAR_DECL array dimensions */
	NodeList params;          /* FUNC parameters (VAR_DECLs) */
	TemplParam *tparams;      /* TEMPLATE */
	const char *attr_type;    /* [[type("...")]] on a parameter */
	Node *ds_arg;             /* argument of __declspec(cm_float_control(x)),
	                             genx_volatile(n) or genx_SIMT(n) (parser) */
	const char *str;          /* STR_LIT bytes; STATIC_ASSERT message */
	Node *inst_of;            /* sema: FUNC instance: the TEMPLATE it came from */
	int ntparams;
	int dspec;                /* DS_* flags on declarations */
	int unroll;               /* loops: -1 none, 0 full, n times (from #pragma) */
	int str_len;
	int simd_width;           /* sema: SIMD IF / DO, BREAK / CONTINUE in one */
};
_Static_assert(offsetof(Node, args) == 96, "a NODE_BASIC node should stay 96 bytes");
_Static_assert(offsetof(Node, cond) == 176, "a NODE_CALL node should stay 176 bytes");
_Static_assert(sizeof(Node) == 320, "a full node should stay 320 bytes");

/* Builtin library functions: one table (builtins.def) feeds sema, lowering
 * and both back ends.  See that file for the row format. */
typedef enum {
	BI_NONE_,
#define BUILTIN(id, ...) BI_##id,
#include "front/builtins.def"
#undef BUILTIN
	BI_COUNT_
} Builtin;

/* Symbols: what a name denotes. */
typedef enum {
	SYM_VAR,          /* local variable */
	SYM_PARAM,
	SYM_GLOBAL,       /* file-scope variable: thread-private, or a const array */
	SYM_FUNC,
	SYM_TEMPLATE,     /* function template: decl is the ND_TEMPLATE */
	SYM_ENUM_CONST,
	SYM_TYPE,         /* typedef, struct, enum, template type parameter */
	SYM_BUILTIN,      /* builtin function name (one or more overloads) */
	SYM_VALUE,        /* bound non-type template parameter: cval */
} SymKind;

struct Sym {
	SymKind kind;
	const char *name;
	Type *ty;
	Loc loc;
	Node *decl;               /* declaring node */
	int64_t cval;             /* ENUM_CONST / VALUE */
	Sym *next_overload;       /* overloaded functions and templates */
	int id;                   /* unique per compilation (for dumps and lowering) */
	bool used, assigned;
	bool is_kernel;
	bool is_const_array;      /* const global array with initializer */
	void *ir;                 /* lowering's per-symbol data */
};

/* ast.c */
NodeClass node_class(NodeKind k);
size_t node_size(NodeKind k);                  /* bytes a node of kind k has */
Node *node_new(Arena *a, NodeKind k, Loc loc);
void nl_push(Arena *a, NodeList *l, Node *n);  /* never vec_push a NodeList */
int punct_compound_base(int op);               /* P_ADD_ASSIGN -> P_PLUS */
Node *ast_clone(Arena *a, const Node *n);      /* deep copy (for templates) */
TypeSpec *ts_clone(Arena *a, const TypeSpec *t);
extern const char *node_kind_names[ND_COUNT_];
extern const char *member_names[MB_COUNT_];

/* parse.c */
/* Parses preprocessed tokens into an ND_UNIT.  Syntax errors are
 * diagnosed and the parser resynchronizes at ';' or '}'; the result is
 * always a tree (possibly partial).  The tree keeps no token: the blocks
 * of toks before each top-level declaration are released as it goes. */
Node *parse_unit(Arena *a, TokenList *toks);

/* sema.c (+ sema_*.c) */
typedef struct {
	int max_vm_bytes;         /* largest vector/matrix; default 4096 (exclusive) */
	bool pedantic;
} SemaOptions;
/* Checks and annotates the unit in place.  Returns false if any error was
 * reported.  Template instances are appended to the unit as FUNC nodes with
 * inst_of set. */
bool sema_unit(Arena *a, Node *unit, const SemaOptions *opt);

/* Sema internals, shared by sema.c, sema_decl.c, sema_template.c and
 * sema_stmt.c (scopes, declarations, templates and overloads, statements;
 * their private header is sema.h), sema_expr.c (scalar and VM expressions,
 * promotion, conversion, constant folding), sema_cm.c (CM members and VM
 * initialization forms) and sema_builtin.c (the builtin library). */
typedef struct Sema Sema;                 /* defined in sema.h */
Node *sema_expr(Sema *S, Node *e);        /* checks e; returns it or its replacement */
Node *sema_expr_node(Sema *S, Node *e);   /* sema_expr's work (sema.c counts the depth) */
Node *sema_rvalue(Sema *S, Node *e);      /* sema_expr, then refs decay to values */
/* Converts e to `to`, inserting an implicit (or explicit) ND_CAST; `what`
 * names the context in messages ("argument 2 of cm_add"). */
Node *sema_convert(Sema *S, Node *e, Type *to, bool explicit_cast, const char *what);
/* Checks e and folds it to an integer constant; diagnoses "X must be an
 * integer constant expression" (X = what) and returns false otherwise. */
bool sema_const_int(Sema *S, Node *e, const char *what, int64_t *out);
Type *sema_typespec(Sema *S, TypeSpec *ts);
Type *sema_targ_type(Sema *S, TemplArg *ta, const char *what); /* a type template argument */
bool sema_targ_int(Sema *S, TemplArg *ta, const char *what, int64_t *out);
/* Usual arithmetic conversions of two element types (cm-language.md §4.1). */
Type *sema_common_elem(Type *a, Type *b);
int sema_simd_width(Sema *S);             /* 0 outside SIMD control flow */
Arena *sema_arena(Sema *S);
int sema_max_vm_bytes(Sema *S);           /* vectors and matrices are smaller */
/* The elements a select or replicate may span (offset of its last element
 * from its first): bounds region arithmetic everywhere after sema. */
enum { MAX_REGION_SPAN = 1 << 20 };
Sym *sema_lookup(Sema *S, const char *name);      /* sema.c: visible declaration or NULL */
Node *sema_call(Sema *S, Node *call, Sym *fn);    /* sema_template.c: call of a user function/template */
void sema_explicit_inst(Sema *S, Node *n);        /* sema_template.c: template void f<T>(...); */
/* sema_cm.c */
Node *sema_member_call(Sema *S, Node *e);                    /* x.select<...>(...), ... */
bool sema_vm_init(Sema *S, Node *decl, Type *t);             /* VAR_DECL of a VM type */
Node *sema_vm_cast(Sema *S, Node *cast, Type *t);            /* vector<T,N>(x[, SAT]) */
/* sema_builtin.c */
void sema_declare_builtins(Sema *S, Map *globals);           /* SYM_BUILTIN entries */
Node *sema_builtin_call(Sema *S, Node *call, Sym *builtin);  /* checks, sets builtin and ty */

/* dump.c */
/* Prints the checked tree, one node per line, indented, with types:
 * deterministic, for golden tests (cmetal --emit=ast). */
void ast_dump(const Node *unit, Buf *out);

/* front.c — the whole front end in one call. */
typedef struct {
	PPOptions pp;
	SemaOptions sema;
} FrontOptions;
/* Preprocesses, parses and checks a file.  Returns the checked unit, or
 * NULL when errors were reported (diag_state.errors > 0). */
Node *front_compile(Arena *a, const char *path, const char *text,
                    const FrontOptions *opt);

#endif
