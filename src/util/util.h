/* util.h — the utility layer: arenas, growable arrays, interned strings,
 * hash maps, source files and diagnostics.  Every other layer includes it. */
#ifndef CMETAL_UTIL_H
#define CMETAL_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define NORETURN __attribute__((noreturn))
#else
#define PRINTF_LIKE(f, a)
#define NORETURN
#endif

/* arena.c */
/* An arena hands out memory that lives until the arena is freed.  Name arenas
 * after what they live for (one per compilation, one per kernel, ...). */
typedef struct Arena Arena;
Arena *arena_new(void);
Arena *arena_child(Arena *parent);                 /* freed with parent at the latest */
void arena_reset(Arena *a);                        /* frees what it holds; stays usable */
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t size);          /* zeroed, 16-aligned */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) PRINTF_LIKE(2, 3);
size_t arena_bytes(const Arena *a);                /* bytes reserved so far */
void arena_adopt(Arena *a, void *malloced);       /* freed with the arena */
#define NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define NEWN(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* Growable array of any type, malloc-backed: `VEC(int) v = {0};`.
 * vec_push may move the data; free with vec_free. */
#define VEC(T) struct { T *data; int len, cap; }
#define vec_push(v, x)                                                        \
	do {                                                                  \
		if ((v)->len == (v)->cap)                                     \
			vec_grow_((void **)&(v)->data, &(v)->cap,             \
			          sizeof(*(v)->data));                        \
		(v)->data[(v)->len++] = (x);                                  \
	} while (0)
#define vec_free(v) (free((v)->data), (v)->data = NULL, (v)->len = (v)->cap = 0)
#define vec_last(v) ((v)->data[(v)->len - 1])
void vec_grow_(void **data, int *cap, size_t elem);

/* Growable byte buffer for building text. */
typedef struct {
	char *data;
	size_t len, cap;
} Buf;
void buf_putc(Buf *b, char c);
void buf_puts(Buf *b, const char *s);
void buf_putn(Buf *b, const char *s, size_t n);
void buf_reserve(Buf *b, size_t extra);   /* room for extra more bytes and a NUL */
void buf_printf(Buf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
char *buf_cstr(Buf *b);   /* NUL-terminated view (still owned by b) */
void buf_free(Buf *b);

/* str.c */
/* Interned strings live for the whole process: equal strings give the same
 * pointer, so names compare with ==. */
const char *intern(const char *s, size_t n);
const char *intern_cstr(const char *s);
uint64_t hash_bytes(const void *p, size_t n);      /* FNV-1a 64 */
uint64_t hash_more(uint64_t h, const void *p, size_t n); /* continues hash_bytes' h */
/* One line of a dependency list (PPOptions.deps): "<hash_bytes of text, 16
 * hex digits> <path>\n", or "- <path>\n" when text is NULL (looked for,
 * not there). */
void dep_line(Buf *b, const char *path, const char *text, size_t len);
/* The symbol of a kernel in generated C and PTX.  A template kernel's
 * instance ("K<float, 8>", as a host spells it; spaces and the usual type
 * spellings such as "unsigned int" or "uint32_t" do not matter) becomes an
 * identifier ("K_Lfloat_C8_R": '_' doubled, '<' _L, '>' _R, ',' _C,
 * ' ' _S, '-' _N, others _xHH); a plain name is itself. */
void kernel_symbol(Buf *out, const char *name);
/* The canonical spelling kernel_symbol encodes ("K<uint,8>"). */
void kernel_canonical_name(Buf *out, const char *name);
char *xstrdup(const char *s);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *read_file(const char *path, size_t *len);    /* malloc'd, NUL-ended; NULL on error */

/* format.c: kernel printf formats (sema, lowering, C back end, CUDA) */
#define FMT_MAX_NUM 4096          /* widths and precisions are capped here */
#define FMT_TEXT_MAX 1023         /* the bytes one printf call prints, at most */
#define FMT_SPEC_MAX 40
typedef enum {
	FMT_INT,                  /* d i: an integer, printed signed */
	FMT_UINT,                 /* u o x X */
	FMT_CHAR,                 /* c: an integer */
	FMT_FLOAT,                /* f F e E g G a A: a double */
	FMT_STR,                  /* s: a string literal (folded in by the lowering) */
	FMT_PERCENT,              /* %% */
	FMT_UNSUPPORTED,          /* p n */
	FMT_UNKNOWN,              /* any other letter */
	FMT_INCOMPLETE,           /* the format ends inside the conversion */
} FmtKind;
typedef struct {
	size_t len;               /* characters from the '%' */
	FmtKind kind;
	char conv;                /* the letter; 0 when incomplete */
	unsigned flags;           /* bit i: "-+ #0'"[i] */
	bool has_width, width_star, has_prec, prec_star;
	int width, prec;          /* when given as digits */
	bool wide;                /* l ll j z t q L: the value is 64-bit */
	int nh;                   /* h or hh on an integer */
} FmtConv;
typedef enum { FMT_MISSING, FMT_WRONG_TYPE, FMT_NOT_PRINTABLE } FmtProblem;
/* Reads the conversion at s[0] == '%'; returns its length. */
size_t fmt_scan(const char *s, FmtConv *c);
/* Arguments it reads: its '*'s (ints), then its value (none for %% and an
 * incomplete one). */
int fmt_nargs(const FmtConv *c);
/* Replaces the '*'s with the values given (a negative width is '-'). */
void fmt_resolve(FmtConv *c, long long width, long long prec);
/* The canonical snprintf spec of a printable conversion. */
void fmt_spec(const FmtConv *c, char out[FMT_SPEC_MAX]);
/* True when a value (a double when is_float, else an integer) fits it. */
bool fmt_fits(const FmtConv *c, bool is_float);
/* What a conversion that cannot be printed prints: "<%d: missing argument>"
 * with text the conversion as written. */
void fmt_marker(Buf *out, const char *text, const FmtConv *c, FmtProblem p);

/* map.c */
/* Hash map from interned string (pointer identity) to void*. */
typedef struct {
	const char **keys;
	void **vals;
	int cap, len;
} Map;
void *map_get(const Map *m, const char *key);
void map_put(Map *m, const char *key, void *val);
bool map_del(Map *m, const char *key);
void map_free(Map *m);

/* diag.c */
/* A source location.  file indexes the source-file table; line and col are
 * 1-based (col counts bytes).  file 0 is "<none>". */
typedef struct {
	uint32_t file;
	uint32_t line;
	uint32_t col;
} Loc;

typedef struct {
	const char *name;     /* as shown in diagnostics */
	const char *text;     /* whole contents, NUL-terminated */
	size_t len;
	int64_t line_shift;   /* line N of the text is reported as N + line_shift (#line) */
	int64_t seen_line;    /* diag.c: the line it last printed (0: none), which starts */
	size_t seen_off;      /* at text[seen_off] */
} SrcFile;

int src_add(const char *name, const char *text, size_t len); /* returns id */
int src_add_shifted(const char *name, const char *text, size_t len, int64_t line_shift);
const SrcFile *src_get(uint32_t file);
void src_reset(void);

typedef enum { DIAG_NOTE, DIAG_WARNING, DIAG_ERROR } DiagLevel;

/* Where diagnostics go.  By default they are printed to stderr; a library
 * user may capture them into a buffer instead. */
typedef struct {
	int errors, warnings;
	int error_limit;      /* stop reporting (and signal) after this many; 0 = 20 */
	bool werror, no_warnings, color;
	Buf *capture;         /* if set, text goes here instead of stderr */
} DiagState;
extern _Thread_local DiagState diag_state;  /* per thread: compiles may run concurrently */

/* file:line:col: level: message, the source line, and a caret under col
 * (carets under `len` columns when len > 1).  Notes attach to the last
 * error or warning. */
void diag_at(DiagLevel lv, Loc loc, int len, const char *fmt, ...) PRINTF_LIKE(4, 5);
void diag_vat(DiagLevel lv, Loc loc, int len, const char *fmt, va_list ap);
#define error_at(loc, ...) diag_at(DIAG_ERROR, (loc), 1, __VA_ARGS__)
#define warn_at(loc, ...) diag_at(DIAG_WARNING, (loc), 1, __VA_ARGS__)
#define note_at(loc, ...) diag_at(DIAG_NOTE, (loc), 1, __VA_ARGS__)
bool diag_too_many(void);          /* true once the error limit is reached */
void diag_reset(void);

/* Internal invariant failures (compiler bugs, not user errors).  They
 * abort, except inside a library call that set die_trap: the runtime
 * compiles programs inside the user's process, which must survive a
 * compiler bug, so there die() reports through the trap instead. */
typedef struct {
	jmp_buf jb;
	char msg[512];
} DieTrap;
extern _Thread_local DieTrap *die_trap;
NORETURN void die_(const char *file, int line, const char *fmt, ...) PRINTF_LIKE(3, 4);
#define die(...) die_(__FILE__, __LINE__, __VA_ARGS__)
#define ASSERT(c) ((c) ? (void)0 : die("assertion failed: %s", #c))

#endif
