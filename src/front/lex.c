/* lex.c — splits source text into tokens; converts numbers.
 *
 * contract: lex_text(file, text) returns every token of the text, ending in
 * TK_EOF, with loc (file, line, col of the first byte), bol (first token on
 * a line; a newline inside a block comment does not count), space (white
 * space or a comment before it).  Line splices (backslash-newline) vanish
 * anywhere, even inside tokens; such a token's text is a cleaned copy.
 * Numbers stay TK_PPNUM until lex_convert_number (the preprocessor pastes
 * and tests them first).  Identifiers and keywords are interned.  Malformed
 * input (a stray character, an unterminated literal) becomes a TK_OTHER
 * token whose ival says what is wrong; lex_report diagnoses it, and
 * lex_file does so at once.  An unterminated block comment is always
 * diagnosed.  Nothing here aborts on user input.
 */
#include <stdlib.h>
#include <string.h>

#include "front.h"

const char *keyword_names[KW_COUNT_] = {
#define X(n, s) [KW_##n] = s,
	KEYWORDS(X)
#undef X
};

const char *punct_names[P_COUNT_] = {
#define X(n, s) [P_##n] = s,
	PUNCTS(X)
#undef X
};

static const struct {
	const char *name;
	int size;
} scalars[SK_COUNT_] = {
#define X(n, s, b) [SK_##n] = {s, b},
	SCALAR_KINDS(X)
#undef X
};

const char *scalar_name(ScalarKind k) { return k < SK_COUNT_ ? scalars[k].name : "?"; }
int scalar_size(ScalarKind k) { return k < SK_COUNT_ ? scalars[k].size : 0; }

/* What a TK_OTHER token's ival means. */
enum { LEXERR_CHAR = 1, LEXERR_UNTERM_CHAR, LEXERR_UNTERM_STR, LEXERR_EMPTY_CHAR };

struct Lexer {
	Arena *a;
	int file;
	const char *p, *end;   /* p never rests on a line splice */
	uint32_t line, col;
	bool spliced;          /* a splice was skipped inside the current token */
	bool quiet;
	bool nl;               /* the next token is the first on its line */
};

static _Thread_local Map kw_map;   /* interned spelling -> Keyword */

static void init_keywords(void)
{
	if (kw_map.len)
		return;
	for (int k = 1; k < KW_COUNT_; k++)
		map_put(&kw_map, intern_cstr(keyword_names[k]), (void *)(intptr_t)k);
}

/* Length of a line splice at p (backslash, optional CR, newline), or 0. */
static int splice_len(const char *p, const char *end)
{
	if (p >= end || *p != '\\')
		return 0;
	if (p + 1 < end && p[1] == '\n')
		return 2;
	if (p + 2 < end && p[1] == '\r' && p[2] == '\n')
		return 3;
	return 0;
}

static void skip_splices(Lexer *L)
{
	for (int n; (n = splice_len(L->p, L->end));) {
		L->p += n;
		L->line++;
		L->col = 1;
		L->spliced = true;
	}
}

static int cur(Lexer *L) { return L->p < L->end ? (unsigned char)*L->p : 0; }

/* The character k places ahead of the current one, splices skipped. */
static int peek(Lexer *L, int k)
{
	const char *p = L->p;
	for (int i = 0; i <= k; i++) {
		for (int n; (n = splice_len(p, L->end));)
			p += n;
		if (p >= L->end)
			return 0;
		if (i < k)
			p++;
	}
	return (unsigned char)*p;
}

static void adv(Lexer *L)
{
	if (L->p >= L->end)
		return;
	if (*L->p == '\n') {
		L->line++;
		L->col = 1;
	} else {
		L->col++;
	}
	L->p++;
	skip_splices(L);
}

static bool is_ident_char(int c)
{
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c >= 0x80;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

/* Skips white space and comments; reports whether a newline was crossed
 * outside block comments and whether anything was skipped. */
static void skip_space(Lexer *L, bool *nl, bool *sp)
{
	for (;;) {
		int c = cur(L);
		if (c == '\n') {
			*nl = *sp = true;
			adv(L);
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			*sp = true;
			adv(L);
		} else if (c == '/' && peek(L, 1) == '/') {
			while (cur(L) && cur(L) != '\n')
				adv(L);
			*sp = true;
		} else if (c == '/' && peek(L, 1) == '*') {
			Loc at = {L->file, L->line, L->col};
			adv(L);
			adv(L);
			while (L->p < L->end && !(cur(L) == '*' && peek(L, 1) == '/'))
				adv(L);
			if (L->p >= L->end)
				diag_at(DIAG_ERROR, at, 2, "unterminated /* comment");
			adv(L);
			adv(L);
			*sp = true;
		} else if (c == 0 && L->p < L->end) {
			*sp = true;   /* stray NUL byte: treat as white space */
			adv(L);
		} else {
			return;
		}
	}
}

/* ---------------------------------------------------------- literals */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void put_utf8(Buf *b, uint32_t cp)
{
	if (cp < 0x80) {
		buf_putc(b, (char)cp);
	} else if (cp < 0x800) {
		buf_putc(b, (char)(0xC0 | cp >> 6));
		buf_putc(b, (char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		buf_putc(b, (char)(0xE0 | cp >> 12));
		buf_putc(b, (char)(0x80 | (cp >> 6 & 0x3F)));
		buf_putc(b, (char)(0x80 | (cp & 0x3F)));
	} else {
		buf_putc(b, (char)(0xF0 | (cp >> 18 & 7)));
		buf_putc(b, (char)(0x80 | (cp >> 12 & 0x3F)));
		buf_putc(b, (char)(0x80 | (cp >> 6 & 0x3F)));
		buf_putc(b, (char)(0x80 | (cp & 0x3F)));
	}
}

/* Decodes the body of a char or string literal (between the quotes,
 * splices already removed) into b. */
static void decode_escapes(const char *s, const char *e, Buf *b)
{
	while (s < e) {
		if (*s != '\\' || s + 1 >= e) {
			buf_putc(b, *s++);
			continue;
		}
		s++;
		int c = *s++, v;
		switch (c) {
		case 'n': buf_putc(b, '\n'); break;
		case 't': buf_putc(b, '\t'); break;
		case 'r': buf_putc(b, '\r'); break;
		case 'a': buf_putc(b, '\a'); break;
		case 'b': buf_putc(b, '\b'); break;
		case 'f': buf_putc(b, '\f'); break;
		case 'v': buf_putc(b, '\v'); break;
		case 'e': buf_putc(b, 27); break;
		case 'x':
			for (v = 0; s < e && hexval(*s) >= 0; s++)
				v = (v << 4 | hexval(*s)) & 0xFF;
			buf_putc(b, (char)v);
			break;
		case 'u': case 'U': {
			uint32_t cp = 0;
			for (int i = 0; i < (c == 'u' ? 4 : 8) && s < e && hexval(*s) >= 0; i++)
				cp = cp << 4 | (uint32_t)hexval(*s++);
			put_utf8(b, cp);
			break;
		}
		default:
			if (c >= '0' && c <= '7') {
				v = c - '0';
				for (int i = 1; i < 3 && s < e && *s >= '0' && *s <= '7'; i++)
					v = v * 8 + (*s++ - '0');
				buf_putc(b, (char)v);
			} else {
				buf_putc(b, (char)c);   /* \\ \' \" \? and unknown ones */
			}
		}
	}
}

/* Scans a quoted literal from the opening quote; false if unterminated
 * (the token then runs to the end of the line). */
static bool scan_quoted(Lexer *L, int q)
{
	adv(L);
	while (L->p < L->end && cur(L) != q && cur(L) != '\n') {
		if (cur(L) == '\\')
			adv(L);
		if (L->p < L->end && cur(L) != '\n')
			adv(L);
	}
	if (cur(L) != q)
		return false;
	adv(L);
	return true;
}

/* Fills a scanned char or string token's value. */
static void finish_quoted(Lexer *L, Token *t, int q)
{
	const char *s = memchr(t->text, q, (size_t)t->len);
	Buf b = {0};
	decode_escapes(s + 1, t->text + t->len - 1, &b);
	if (q == '"') {
		t->str = arena_strndup(L->a, b.data ? b.data : "", b.len);
		t->str_len = (int)b.len;
	} else if (b.len == 0) {
		t->kind = TK_OTHER;
		t->ival = LEXERR_EMPTY_CHAR;
	} else {
		/* 'a' is an int of the (signed) char value; 'ab' packs bytes as gcc */
		uint64_t v = 0;
		for (size_t i = 0; i < b.len; i++)
			v = v << 8 | (unsigned char)b.data[i];
		t->ival = b.len == 1 ? (uint64_t)(int64_t)(signed char)v
		                     : (uint64_t)(int64_t)(int32_t)(uint32_t)v;
		t->lit = SK_INT;
	}
	buf_free(&b);
}

/* ---------------------------------------------------------- tokens */

static int match_punct(Lexer *L)
{
	int best = 0, best_len = 0, c = cur(L);
	for (int k = 1; k < P_COUNT_; k++) {
		const char *s = punct_names[k];
		if ((unsigned char)s[0] != c)
			continue;
		int n = 0;
		while (s[n] && peek(L, n) == (unsigned char)s[n])
			n++;
		if (!s[n] && n > best_len) {
			best = k;
			best_len = n;
		}
	}
	for (int i = 0; i < best_len; i++)
		adv(L);
	return best;
}

static bool is_literal_prefix(const char *s, int n)
{
	return (n == 1 && (*s == 'L' || *s == 'u' || *s == 'U')) ||
	       (n == 2 && s[0] == 'u' && s[1] == '8');
}

/* Scans one token starting at the current (non-space) character. */
static void scan_token(Lexer *L, Token *t)
{
	int c = cur(L);
	if (is_digit(c) || (c == '.' && is_digit(peek(L, 1)))) {
		t->kind = TK_PPNUM;
		for (;;) {
			int d = cur(L);
			if ((d == 'e' || d == 'E' || d == 'p' || d == 'P') &&
			    (peek(L, 1) == '+' || peek(L, 1) == '-')) {
				adv(L);
				adv(L);
			} else if (is_ident_char(d) || d == '.') {
				adv(L);
			} else {
				return;
			}
		}
	}
	if (is_ident_char(c)) {
		const char *s = L->p;
		while (is_ident_char(cur(L)))
			adv(L);
		int q = cur(L);
		if ((q == '\'' || q == '"') && !L->spliced && is_literal_prefix(s, (int)(L->p - s)))
			c = q;
		else {
			t->kind = TK_IDENT;
			return;
		}
	}
	if (c == '\'' || c == '"') {
		bool ok = scan_quoted(L, c);
		t->kind = ok ? (c == '"' ? TK_STRING : TK_CHAR) : TK_OTHER;
		if (!ok)
			t->ival = c == '"' ? LEXERR_UNTERM_STR : LEXERR_UNTERM_CHAR;
		return;
	}
	int p = match_punct(L);
	if (p) {
		t->kind = TK_PUNCT;
		t->id = p;
		return;
	}
	adv(L);
	while (L->p < L->end && (cur(L) & 0xC0) == 0x80)
		adv(L);   /* keep a UTF-8 sequence in one token */
	t->kind = TK_OTHER;
	t->ival = LEXERR_CHAR;
}

/* Copies the token's bytes without line splices. */
static const char *clean_copy(Lexer *L, const char *s, const char *e, int *len)
{
	char *d = arena_alloc(L->a, (size_t)(e - s) + 1);
	int n = 0;
	while (s < e) {
		int k = splice_len(s, e);
		if (k)
			s += k;
		else
			d[n++] = *s++;
	}
	*len = n;
	return d;
}

static void finish_token(Lexer *L, Token *t, const char *s)
{
	if (L->spliced)
		t->text = clean_copy(L, s, L->p, &t->len);
	else {
		t->text = s;
		t->len = (int)(L->p - s);
	}
	if (t->kind == TK_IDENT) {
		t->text = intern(t->text, (size_t)t->len);
		int kw = (int)(intptr_t)map_get(&kw_map, t->text);
		if (kw) {
			t->kind = TK_KEYWORD;
			t->id = kw;
		}
	} else if (t->kind == TK_STRING) {
		finish_quoted(L, t, '"');
	} else if (t->kind == TK_CHAR) {
		finish_quoted(L, t, '\'');
	}
}

Lexer *lex_open(Arena *a, int file, const char *text, size_t len, bool quiet)
{
	init_keywords();
	Lexer *L = NEW(a, Lexer);
	*L = (Lexer){.a = a, .file = file, .p = text, .end = text + len, .line = 1, .col = 1,
	             .quiet = quiet, .nl = true};
	skip_splices(L);
	return L;
}

void lex_next(Lexer *L, Token *out)
{
	bool sp = false;
	skip_space(L, &L->nl, &sp);
	Token t = {.loc = {(uint32_t)L->file, L->line, L->col}, .bol = L->nl, .space = sp};
	if (L->p >= L->end) {
		t.kind = TK_EOF;
		t.text = "";
		*out = t;
		return;
	}
	const char *s = L->p;
	L->spliced = false;
	scan_token(L, &t);
	finish_token(L, &t, s);
	if (t.kind == TK_OTHER && !L->quiet)
		lex_report(&t);
	L->nl = false;
	*out = t;
}

Token *lex_text_owned(Arena *a, int file, const char *text, size_t len, bool quiet,
                      int *ntok)
{
	Lexer *L = lex_open(a, file, text, len, quiet);
	VEC(Token) out = {0};
	do {
		Token t;
		lex_next(L, &t);
		vec_push(&out, t);
	} while (vec_last(&out).kind != TK_EOF);
	*ntok = out.len;
	return xrealloc(out.data, sizeof(Token) * (size_t)out.len);
}

Token *lex_text(Arena *a, int file, const char *text, size_t len, bool quiet, int *ntok)
{
	Token *r = lex_text_owned(a, file, text, len, quiet, ntok);
	arena_adopt(a, r);   /* no copy: the array is the arena's now */
	return r;
}

Token *lex_file(Arena *a, int file, int *ntok)
{
	const SrcFile *f = src_get((uint32_t)file);
	if (!f)
		die("lex_file: no source file %d", file);
	return lex_text(a, file, f->text, f->len, false, ntok);
}

void lex_report(const Token *t)
{
	if (t->kind != TK_OTHER)
		return;
	switch (t->ival) {
	case LEXERR_UNTERM_CHAR:
		diag_at(DIAG_ERROR, t->loc, t->len, "missing terminating ' character");
		break;
	case LEXERR_UNTERM_STR:
		diag_at(DIAG_ERROR, t->loc, t->len, "missing terminating '\"' character");
		break;
	case LEXERR_EMPTY_CHAR:
		diag_at(DIAG_ERROR, t->loc, t->len, "empty character constant");
		break;
	default:
		if ((unsigned char)t->text[0] >= 0x20 && (unsigned char)t->text[0] < 0x7F)
			error_at(t->loc, "invalid character '%c' in source", t->text[0]);
		else
			error_at(t->loc, "invalid character (byte 0x%02x) in source",
			         (unsigned char)t->text[0]);
	}
}

const char *tok_str(Arena *a, const Token *t) { return arena_strndup(a, t->text, (size_t)t->len); }

/* ---------------------------------------------------------- numbers */

static bool bad_number(Token *t, const char *why)
{
	diag_at(DIAG_ERROR, t->loc, t->len, "%s '%.*s'", why, t->len, t->text);
	t->kind = TK_INT;
	t->ival = 0;
	t->lit = SK_INT;
	return false;
}

static bool is_float_text(const char *s, int n)
{
	bool hex = n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	for (int i = 0; i < n; i++) {
		if (s[i] == '.')
			return true;
		if (!hex && (s[i] == 'e' || s[i] == 'E'))
			return true;
		if (hex && (s[i] == 'p' || s[i] == 'P'))
			return true;
	}
	return false;
}

static bool convert_float(Token *t)
{
	char buf[128];
	if (t->len >= (int)sizeof buf)
		return bad_number(t, "invalid floating-point constant");
	memcpy(buf, t->text, (size_t)t->len);
	buf[t->len] = 0;
	char *end;
	double v = strtod(buf, &end);
	ScalarKind k = SK_DOUBLE;
	if (*end == 'f' || *end == 'F')
		k = SK_FLOAT, end++;
	else if (*end == 'l' || *end == 'L')
		end++;
	if (*end || end == buf)
		return bad_number(t, "invalid floating-point constant");
	t->kind = TK_FLOAT;
	t->fval = k == SK_FLOAT ? (double)(float)v : v;
	t->lit = k;
	return true;
}

/* Parses the digits of an integer; false on overflow or a bad digit.
 * *rest points at the suffix. */
static bool int_digits(const char *s, const char *e, uint64_t *val, const char **rest,
                       bool *overflow)
{
	int base = 10;
	if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	else if (e - s > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
		base = 2, s += 2;
	else if (s[0] == '0')
		base = 8;
	uint64_t v = 0;
	*overflow = false;
	const char *p = s;
	for (; p < e; p++) {
		int d = hexval(*p);
		if (d < 0 || (base != 16 && d >= 10))
			break;
		if (d >= base)
			return false;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			*overflow = true;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*val = v;
	*rest = p;
	return p > s || base == 8;
}

/* C's rule for the type of an integer literal, with long = long long. */
static ScalarKind int_type(uint64_t v, bool decimal, bool u, bool l)
{
	if (!u && !l && v <= INT32_MAX)
		return SK_INT;
	if (!l && v <= UINT32_MAX && (u || !decimal))
		return SK_UINT;
	if (!u && v <= INT64_MAX)
		return SK_LONG;
	return SK_ULONG;
}

bool lex_convert_number(Token *t)
{
	if (t->kind != TK_PPNUM)
		return t->kind == TK_INT || t->kind == TK_FLOAT;
	if (is_float_text(t->text, t->len))
		return convert_float(t);
	const char *e = t->text + t->len, *rest;
	uint64_t v;
	bool overflow;
	if (!int_digits(t->text, e, &v, &rest, &overflow))
		return bad_number(t, "invalid integer constant");
	bool u = false;
	int l = 0;
	for (const char *p = rest; p < e; p++) {
		if ((*p == 'u' || *p == 'U') && !u)
			u = true;
		else if ((*p == 'l' || *p == 'L') && l == 0) {
			l = 1;
			if (p + 1 < e && p[1] == *p)
				l = 2, p++;
		} else
			return bad_number(t, "invalid suffix on integer constant");
	}
	if (overflow)
		return bad_number(t, "integer constant is too large");
	bool decimal = !(t->text[0] == '0' && t->len > 1);
	t->kind = TK_INT;
	t->ival = v;
	t->lit = int_type(v, decimal, u, l > 0);
	return true;
}
