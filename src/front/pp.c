/* pp.c — the C preprocessor, with CM's predefined macros and pragmas.
 *
 * contract: preprocess(path) lexes the file (lex_next) and returns the
 * token stream after directives and macro expansion, ending in TK_EOF:
 * numbers converted to TK_INT/TK_FLOAT, adjacent string literals joined,
 * #pragma unroll/nounroll and _Pragma("unroll") turned into TK_PRAGMA
 * tokens.  A token from a macro body takes the location of the macro use
 * (arguments keep their own).  The predefined macros live in a generated
 * file "<built-in>" that also includes <cm/cm.h>; built-in headers are
 * named "<cm/cm.h>" etc., and pp_print leaves out tokens from files whose
 * name starts with '<' (cmetal includes them again anyway).
 *
 * Algorithm: a stack of frames, each a token array being read: source
 * files (where directives are processed; a window of the file's tokens,
 * lexed as they are read, ftok) and macro expansions.  raw_next
 * reads the top frame, runs directives, pops finished frames; expand_next
 * expands macros on top of it with hide sets (Prosser's algorithm): a
 * token cannot be expanded by a macro in its hide set.  A function-like
 * macro's arguments are collected with raw_next, so they may cross the
 * end of an expansion; each is fully expanded on its own (expand_list)
 * except next to # and ##.  #if lines get `defined` replaced and are
 * macro-expanded here, then evaluated by pp_eval_int (pp_expr.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"

#define MAX_INCLUDE_DEPTH 200
#define MAX_EXPAND_DEPTH 200
#define MAX_EXPAND_TOKENS (1 << 20)

typedef struct HideSet {
	const char *name;
	struct HideSet *next;
	struct HideSet *jump;    /* a list further down, for tail_at (Myers' skew lists) */
	int len;
} HideSet;

typedef enum { PPB_NONE, PPB_FILE, PPB_LINE, PPB_COUNTER } BuiltinMacro;

typedef struct {
	const char *name;
	bool fn, variadic;
	const char **params;     /* variadic: the last one is the ... parameter */
	int nparams;
	const Token *body;
	int nbody;
	Loc loc;
	BuiltinMacro builtin;
} Macro;

typedef struct {
	Loc loc;                 /* the #if */
	bool taken;              /* a group of this #if was (or is being) included */
	bool has_else;
} Cond;

typedef struct {
	const Token *toks;
	int pos, n;
	Token *owned;            /* malloc'd toks, freed when the frame pops */
	bool is_file;            /* directives are processed; toks is a window
	                            of the file's tokens (ftok), n of them */
	Lexer *lx;               /* file: lexes the tokens after the window */
	Token *win;              /* file: the window (malloc'd), win == toks */
	int cap;
	uint32_t file;           /* file: its id in the source table */
	const char *path;        /* file: the path it was opened under */
	int cond_base;           /* file: its first entry in PP.conds */
	uint32_t alias;          /* #line: file id that locations map to (0: none) */
	int line_delta;
} Frame;

typedef struct {
	Arena *a;
	Arena *keep;             /* the source table's texts and names (PPOptions.keep) */
	const PPOptions *opt;
	VEC(Frame) frames;
	VEC(Cond) conds;
	Map macros;              /* name -> Macro* */
	Map once;                /* #pragma once keys */
	int counter;
	int depth;               /* include nesting */
	int expand_depth;        /* expand_list calls on the C stack */
	int expand_live;         /* the tokens they expand */
	bool expand_too_deep;    /* reported */
} PP;

static Token expand_next(PP *pp);
static bool directive(PP *pp, Token *out);

/* ---------------------------------------------------------- helpers */

static bool tok_is(const Token *t, const char *s)
{
	size_t n = strlen(s);
	return (size_t)t->len == n && !memcmp(t->text, s, n);
}

static bool is_punct(const Token *t, Punct p) { return t->kind == TK_PUNCT && t->id == (int)p; }
static bool is_name(const Token *t) { return t->kind == TK_IDENT || t->kind == TK_KEYWORD; }

static bool hs_has(const HideSet *h, const char *name)
{
	for (; h; h = h->next)
		if (h->name == name)
			return true;
	return false;
}

static int hs_len(const HideSet *h) { return h ? h->len : 0; }

static HideSet *hs_add(PP *pp, HideSet *h, const char *name)
{
	if (hs_has(h, name))
		return h;
	HideSet *n = NEW(pp->a, HideSet);
	n->name = name;
	n->next = h;
	n->len = hs_len(h) + 1;
	n->jump = h;
	if (h && h->jump && hs_len(h) - hs_len(h->jump) == hs_len(h->jump) - hs_len(h->jump->jump))
		n->jump = h->jump->jump;
	return n;
}

/* The tail of h that is len names long, in O(log) steps. */
static const HideSet *tail_at(const HideSet *h, int len)
{
	while (hs_len(h) > len)
		h = h->jump && hs_len(h->jump) >= len ? h->jump : h->next;
	return h;
}

/* Hide sets are immutable lists that share tails, and within a chain of
 * expansions one is usually a tail of the other (a token from an outer
 * expansion meets the set of an inner one): then the union is the longer
 * list, found in O(log n), where adding names one by one (each add a
 * search) made a chain of n macros cost O(n^3). */
static HideSet *hs_union(PP *pp, HideSet *a, HideSet *b)
{
	if (hs_len(b) <= hs_len(a) && tail_at(a, hs_len(b)) == b)
		return a;
	if (hs_len(a) < hs_len(b) && tail_at(b, hs_len(a)) == a)
		return b;
	for (; a; a = a->next)
		b = hs_add(pp, b, a->name);
	return b;
}

static HideSet *hs_inter(PP *pp, HideSet *a, HideSet *b)
{
	if (a == b)   /* the name and ')' came from the same expansion */
		return a;
	HideSet *r = NULL;
	for (; a; a = a->next)
		if (hs_has(b, a->name))
			r = hs_add(pp, r, a->name);
	return r;
}

typedef VEC(Token) TokVec;

static void push_range(TokVec *out, const Token *t, int n)
{
	for (int i = 0; i < n; i++)
		vec_push(out, t[i]);
}

/* Lexes generated text (a pasted token, a string, __LINE__) placed at loc. */
static const Token *lex_at(PP *pp, const char *text, size_t len, Loc loc, int *n)
{
	char *copy = arena_strndup(pp->a, text, len);
	Token *t = lex_text(pp->a, (int)loc.file, copy, len, true, n);
	for (int i = 0; i < *n; i++)
		t[i].loc = loc;
	(*n)--;   /* drop the EOF */
	return t;
}

static Token make_tok(PP *pp, const char *text, Loc loc)
{
	int n;
	const Token *t = lex_at(pp, text, strlen(text), loc, &n);
	if (n != 1)
		die("make_tok: '%s' is not one token", text);
	return t[0];
}

/* ---------------------------------------------------------- frames */

static void push_frame(PP *pp, Frame f) { vec_push(&pp->frames, f); }

static void pop_frames_to(PP *pp, int depth)
{
	while (pp->frames.len > depth)
		free(pp->frames.data[--pp->frames.len].owned);
}

/* Pushes a malloc'd token buffer that the frame then owns. */
static void push_owned(PP *pp, Token *t, int n)
{
	push_frame(pp, (Frame){.toks = t, .n = n, .owned = t});
}

static void push_tokens(PP *pp, const Token *t, int n)
{
	push_frame(pp, (Frame){.toks = t, .n = n});
}

static void unget(PP *pp, Token t)
{
	Token *c = NEW(pp->a, Token);
	*c = t;
	push_tokens(pp, c, 1);
}

/* Token i of file frame f's window, lexing up to it: a file is never in
 * memory as tokens, only the window from the token before the current
 * one (compact) to the furthest one read ahead (a directive's line). */
static const Token *ftok(Frame *f, int i)
{
	while (i >= f->n) {
		if (f->n == f->cap) {
			f->cap = f->cap ? 2 * f->cap : 1024;
			f->win = xrealloc(f->win, sizeof(Token) * (size_t)f->cap);
			f->toks = f->win;
		}
		lex_next(f->lx, &f->win[f->n++]);
	}
	return &f->win[i];
}

/* Drops the tokens of file frame f before the one before the current
 * one; only where no pointer into the window is held. */
static void compact(Frame *f)
{
	enum { SLACK = 1024 };
	if (f->pos <= SLACK)
		return;
	int drop = f->pos - 1;
	memmove(f->win, f->win + drop, sizeof(Token) * (size_t)(f->n - drop));
	f->n -= drop;
	f->pos -= drop;
}

/* The i-th token of a file frame, with #line applied. */
static Token file_tok(Frame *f, int i)
{
	Token t = *ftok(f, i);
	if (f->alias) {
		t.loc.file = f->alias;
		t.loc.line = (uint32_t)((int)t.loc.line + f->line_delta);
	}
	return t;
}

/* Ends a source file: diagnoses open conditionals and pops it (except
 * the main file, which keeps returning EOF). */
static bool end_file(PP *pp)
{
	Frame *f = &vec_last(&pp->frames);
	for (int i = f->cond_base; i < pp->conds.len; i++)
		diag_at(DIAG_ERROR, pp->conds.data[i].loc, 3, "unterminated conditional directive");
	pp->conds.len = f->cond_base;
	if (pp->frames.len == 1)
		return false;
	free(f->win);
	pp->frames.len--;
	pp->depth--;
	return true;
}

static Token raw_next(PP *pp)
{
	for (;;) {
		Frame *f = &vec_last(&pp->frames);
		if (!f->is_file) {
			if (f->pos < f->n)
				return f->toks[f->pos++];
			pop_frames_to(pp, pp->frames.len - 1);
			continue;
		}
		compact(f);
		const Token *t = ftok(f, f->pos);
		if (t->kind == TK_EOF) {
			if (end_file(pp))
				continue;
			return file_tok(f, f->pos);
		}
		if (t->bol && is_punct(t, P_HASH)) {
			Token out;
			if (directive(pp, &out))
				return out;
			continue;
		}
		return file_tok(f, f->pos++);
	}
}

static TokVec expand_tokens(PP *pp, const Token *t, int n)
{
	Token *buf = xmalloc(sizeof(Token) * (size_t)(n + 1));
	if (n)
		memcpy(buf, t, sizeof(Token) * (size_t)n);
	buf[n] = (Token){.kind = TK_EOF, .text = ""};
	int depth = pp->frames.len;
	push_owned(pp, buf, n + 1);
	TokVec out = {0};
	for (;;) {
		Token x = expand_next(pp);
		if (x.kind == TK_EOF)
			break;
		vec_push(&out, x);
	}
	pop_frames_to(pp, depth);
	return out;
}

/* Fully macro-expands a token list on its own.  A macro's arguments are
 * expanded so while the call is being expanded: a recursion as deep as the
 * calls nest in the arguments, each level holding copies of its tokens.
 * Both are capped (MAX_EXPAND_DEPTH levels, MAX_EXPAND_TOKENS tokens in
 * all); past a cap the list is returned unexpanded. */
static TokVec expand_list(PP *pp, const Token *t, int n)
{
	if (pp->expand_depth >= MAX_EXPAND_DEPTH || pp->expand_live + n > MAX_EXPAND_TOKENS) {
		if (!pp->expand_too_deep && n) {
			if (pp->expand_depth >= MAX_EXPAND_DEPTH)
				diag_at(DIAG_ERROR, t->loc, t->len ? t->len : 1,
				        "macro arguments nest too deeply (more than %d levels)",
				        MAX_EXPAND_DEPTH);
			else
				diag_at(DIAG_ERROR, t->loc, t->len ? t->len : 1,
				        "macro arguments are too large (more than %d tokens being expanded)",
				        MAX_EXPAND_TOKENS);
		}
		pp->expand_too_deep = true;
		TokVec out = {0};
		push_range(&out, t, n);
		return out;
	}
	pp->expand_live += n;
	pp->expand_depth++;
	TokVec out = expand_tokens(pp, t, n);
	pp->expand_depth--;
	pp->expand_live -= n;
	return out;
}

/* ---------------------------------------------------------- macros */

static int param_index(const Macro *m, const Token *t)
{
	if (!m->fn || !is_name(t))
		return -1;
	for (int i = 0; i < m->nparams; i++)
		if (m->params[i] == t->text)
			return i;
	return -1;
}

typedef struct {
	const Token *toks;
	int n;
	TokVec expanded;
	bool done;
} Arg;

typedef VEC(Arg) ArgVec;

static Token stringize(PP *pp, const Arg *arg, Loc loc)
{
	Buf b = {0};
	buf_putc(&b, '"');
	for (int i = 0; i < arg->n; i++) {
		const Token *t = &arg->toks[i];
		if (i && t->space)
			buf_putc(&b, ' ');
		bool quoted = t->kind == TK_STRING || t->kind == TK_CHAR || t->kind == TK_OTHER;
		for (int k = 0; k < t->len; k++) {
			if (quoted && (t->text[k] == '"' || t->text[k] == '\\'))
				buf_putc(&b, '\\');
			buf_putc(&b, t->text[k]);
		}
	}
	buf_putc(&b, '"');
	Token r = make_tok(pp, buf_cstr(&b), loc);
	buf_free(&b);
	return r;
}

/* Pastes l ## r; on failure diagnoses and keeps l (r is appended by the
 * caller's *ok check). */
static Token paste(PP *pp, const Token *l, const Token *r, Loc at, bool *ok)
{
	Buf b = {0};
	buf_putn(&b, l->text, (size_t)l->len);
	buf_putn(&b, r->text, (size_t)r->len);
	int n;
	const Token *t = lex_at(pp, b.data, b.len, l->loc, &n);
	*ok = n == 1 && t[0].kind != TK_OTHER;
	if (!*ok) {
		diag_at(DIAG_ERROR, at, 2, "pasting formed '%s', an invalid preprocessing token",
		        buf_cstr(&b));
		buf_free(&b);
		return *l;
	}
	buf_free(&b);
	Token x = t[0];
	x.space = l->space;
	x.bol = l->bol;
	x.pp = l->pp;
	return x;
}

/* Applies b ## ... : rhs is the body token after ##. */
static void subst_paste(PP *pp, const Macro *m, Arg *args, const Token *hh,
                        const Token *rhs, TokVec *out, bool *lhs_empty)
{
	int pi = param_index(m, rhs);
	const Token *r = rhs;
	int rn = 1;
	if (pi >= 0) {
		r = args[pi].toks;
		rn = args[pi].n;
	}
	/* GNU: , ## __VA_ARGS__ drops the comma when the variadic part is empty */
	if (m->variadic && pi == m->nparams - 1 && out->len && !*lhs_empty &&
	    is_punct(&vec_last(out), P_COMMA)) {
		if (rn == 0)
			out->len--;
		push_range(out, r, rn);
		*lhs_empty = false;
		return;
	}
	if (*lhs_empty || !out->len) {
		push_range(out, r, rn);
		*lhs_empty = rn == 0;
		return;
	}
	if (rn == 0)
		return;
	bool ok;
	Token x = paste(pp, &vec_last(out), &r[0], hh->loc, &ok);
	if (ok)
		vec_last(out) = x;
	else
		vec_push(out, r[0]);
	push_range(out, r + 1, rn - 1);
}

/* Replaces parameters in m's body (Prosser's subst). */
static TokVec subst(PP *pp, const Macro *m, Arg *args, Loc use)
{
	TokVec out = {0};
	bool lhs_empty = false;
	for (int i = 0; i < m->nbody; i++) {
		const Token *b = &m->body[i];
		int pi;
		if (m->fn && is_punct(b, P_HASH) && i + 1 < m->nbody &&
		    (pi = param_index(m, &m->body[i + 1])) >= 0) {
			Token s = stringize(pp, &args[pi], use);
			s.space = b->space;
			vec_push(&out, s);
			lhs_empty = false;
			i++;
			continue;
		}
		if (is_punct(b, P_HASHHASH) && i + 1 < m->nbody) {
			subst_paste(pp, m, args, b, &m->body[i + 1], &out, &lhs_empty);
			i++;
			continue;
		}
		pi = param_index(m, b);
		if (pi < 0) {
			Token t = *b;
			t.loc = use;
			vec_push(&out, t);
			lhs_empty = false;
			continue;
		}
		Arg *a = &args[pi];
		int start = out.len;
		if (i + 1 < m->nbody && is_punct(&m->body[i + 1], P_HASHHASH)) {
			push_range(&out, a->toks, a->n);
			lhs_empty = a->n == 0;
		} else {
			if (!a->done) {
				a->expanded = expand_list(pp, a->toks, a->n);
				a->done = true;
			}
			push_range(&out, a->expanded.data, a->expanded.len);
			lhs_empty = false;
		}
		if (out.len > start)
			out.data[start].space = b->space;
	}
	return out;
}

/* Pushes an expansion: sets hide sets, and gives its first token the
 * spacing of the macro name. */
static void push_expansion(PP *pp, TokVec *v, const Token *name, HideSet *hs)
{
	for (int i = 0; i < v->len; i++)
		v->data[i].pp = hs_union(pp, hs, v->data[i].pp);
	if (v->len) {
		v->data[0].space = name->space;
		v->data[0].bol = name->bol;
	}
	push_owned(pp, v->data, v->len);
	*v = (TokVec){0};
}

static void expand_builtin(PP *pp, const Macro *m, const Token *name)
{
	char buf[64];
	Token t;
	if (m->builtin == PPB_LINE) {
		snprintf(buf, sizeof buf, "%u", name->loc.line);
		t = make_tok(pp, buf, name->loc);
	} else if (m->builtin == PPB_COUNTER) {
		snprintf(buf, sizeof buf, "%d", pp->counter++);
		t = make_tok(pp, buf, name->loc);
	} else {
		const SrcFile *f = src_get(name->loc.file);
		Arg a = {0};
		Token s = {.kind = TK_STRING};
		s.text = f ? f->name : "";
		s.len = (int)strlen(s.text);
		a.toks = &s;
		a.n = 1;
		t = stringize(pp, &a, name->loc);
	}
	t.space = name->space;
	t.bol = name->bol;
	TokVec v = {0};
	vec_push(&v, t);
	push_expansion(pp, &v, name, name->pp);
}

/* Reads a macro call's arguments after the '('; false at end of input. */
static bool collect_args(PP *pp, const Macro *m, ArgVec *args, Token *rparen)
{
	TokVec cur = {0};
	int depth = 0;
	for (;;) {
		Token t = raw_next(pp);
		if (t.kind == TK_EOF) {
			unget(pp, t);
			vec_free(&cur);
			return false;
		}
		if (depth == 0 && is_punct(&t, P_RPAREN)) {
			*rparen = t;
			break;
		}
		bool last = m->variadic && args->len == m->nparams - 1;
		if (depth == 0 && is_punct(&t, P_COMMA) && !last) {
			vec_push(args, ((Arg){cur.data, cur.len}));
			cur = (TokVec){0};
			continue;
		}
		if (is_punct(&t, P_LPAREN))
			depth++;
		else if (is_punct(&t, P_RPAREN))
			depth--;
		vec_push(&cur, t);
	}
	vec_push(args, ((Arg){cur.data, cur.len}));
	return true;
}

static bool arity_ok(const Macro *m, ArgVec *args, const Token *name)
{
	if (m->nparams == 0 && args->len == 1 && args->data[0].n == 0)
		args->len = 0;
	if (m->variadic && args->len == m->nparams - 1)
		vec_push(args, ((Arg){NULL, 0}));   /* F(a) for F(x, ...) */
	if (args->len == m->nparams)
		return true;
	int want = m->nparams - m->variadic;
	diag_at(DIAG_ERROR, name->loc, name->len, "macro '%s' expects %s%d argument%s, got %d",
	        m->name, m->variadic ? "at least " : "", want, want == 1 ? "" : "s",
	        args->len);
	return false;
}

/* Expands the function-like macro m named by `name`; false if no '('
 * follows (then the name is an ordinary identifier). */
static void free_args(ArgVec *args)
{
	for (int i = 0; i < args->len; i++) {
		free((void *)args->data[i].toks);
		vec_free(&args->data[i].expanded);
	}
	vec_free(args);
}

static bool expand_call(PP *pp, const Macro *m, const Token *name)
{
	Token lp = raw_next(pp);
	if (!is_punct(&lp, P_LPAREN)) {
		unget(pp, lp);
		return false;
	}
	ArgVec args = {0};
	Token rparen;
	if (!collect_args(pp, m, &args, &rparen)) {
		diag_at(DIAG_ERROR, name->loc, name->len, "unterminated call to macro '%s'", m->name);
		free_args(&args);
		return true;
	}
	if (!arity_ok(m, &args, name)) {
		free_args(&args);
		return true;
	}
	TokVec v = subst(pp, m, args.data, name->loc);
	free_args(&args);
	HideSet *hs = hs_add(pp, hs_inter(pp, name->pp, rparen.pp), m->name);
	push_expansion(pp, &v, name, hs);
	return true;
}

/* _Pragma("...") : the string's contents as a #pragma line. */
static bool do_pragma_op(PP *pp, const Token *kw, Token *out);

static Token expand_next(PP *pp)
{
	for (;;) {
		Token t = raw_next(pp);
		if (!is_name(&t))
			return t;
		if (t.kind == TK_IDENT && tok_is(&t, "_Pragma")) {
			Token p;
			if (do_pragma_op(pp, &t, &p))
				return p;
			continue;
		}
		Macro *m = map_get(&pp->macros, t.text);
		if (!m || hs_has(t.pp, t.text))
			return t;
		if (m->builtin) {
			expand_builtin(pp, m, &t);
			continue;
		}
		if (m->fn) {
			if (!expand_call(pp, m, &t))
				return t;
			continue;
		}
		TokVec v = subst(pp, m, NULL, t.loc);
		push_expansion(pp, &v, &t, hs_add(pp, t.pp, m->name));
	}
}

/* ---------------------------------------------------------- #if */

/* Replaces `defined X` and `defined(X)` by 1 or 0. */
static TokVec replace_defined(PP *pp, const Token *t, int n, bool *ok)
{
	TokVec out = {0};
	for (int i = 0; i < n; i++) {
		if (!(t[i].kind == TK_IDENT && tok_is(&t[i], "defined"))) {
			vec_push(&out, t[i]);
			continue;
		}
		int k = i + 1;
		bool paren = k < n && is_punct(&t[k], P_LPAREN);
		k += paren;
		if (k >= n || !is_name(&t[k]) || (paren && (k + 1 >= n || !is_punct(&t[k + 1], P_RPAREN)))) {
			const Token *at = k < n ? &t[k] : &t[i];
			diag_at(DIAG_ERROR, at->loc, at->len, "macro name missing or malformed after 'defined'");
			*ok = false;
			return out;
		}
		Token v = make_tok(pp, map_get(&pp->macros, t[k].text) ? "1" : "0", t[i].loc);
		vec_push(&out, v);
		i = k + paren;
	}
	return out;
}

/* Evaluates the tokens of an #if/#elif line; errors count as false. */
static bool eval_if(PP *pp, const Token *t, int n, const Token *dir)
{
	if (n == 0) {
		diag_at(DIAG_ERROR, dir->loc, dir->len, "#%.*s with no expression", dir->len, dir->text);
		return false;
	}
	bool ok = true;
	TokVec d = replace_defined(pp, t, n, &ok);
	if (!ok) {
		vec_free(&d);
		return false;
	}
	TokVec x = expand_list(pp, d.data, d.len);
	vec_free(&d);
	Token end = {.kind = TK_EOF, .loc = t[n - 1].loc, .text = ""};
	end.loc.col += (uint32_t)t[n - 1].len;
	vec_push(&x, end);
	uint64_t v;
	bool u;
	bool r = pp_eval_int(x.data, x.len - 1, "token is not a valid binary operator in a "
	                     "preprocessor subexpression", &v, &u);
	vec_free(&x);
	return r && v;
}

/* ---------------------------------------------------------- directives */

typedef struct {
	Token name;        /* the directive name (or the # of a null directive) */
	const Token *args; /* the rest of the line, #line applied */
	int n;
} Line;

/* Reads the directive line at the current '#' of the top file frame. */
static Line read_line(PP *pp)
{
	Frame *f = &vec_last(&pp->frames);
	Token hash = file_tok(f, f->pos++);
	Line l = {.name = hash};
	if (ftok(f, f->pos)->bol || ftok(f, f->pos)->kind == TK_EOF)
		return l;
	l.name = file_tok(f, f->pos++);
	int start = f->pos;
	while (!ftok(f, f->pos)->bol && ftok(f, f->pos)->kind != TK_EOF)
		f->pos++;
	l.n = f->pos - start;
	if (f->alias) {
		Token *c = NEWN(pp->a, Token, l.n + 1);
		for (int i = 0; i < l.n; i++)
			c[i] = file_tok(f, start + i);
		l.args = c;
	} else {
		l.args = &f->win[start];   /* valid until the window moves */
	}
	return l;
}

static void extra_tokens(const Line *l, int from)
{
	if (l->n > from)
		diag_at(DIAG_WARNING, l->args[from].loc, l->args[from].len,
		        "extra tokens at end of #%.*s directive", l->name.len, l->name.text);
}

/* Skips lines until the #elif/#else/#endif that closes the current group,
 * leaving the frame at its '#'.  Its callers' lines are read: the window
 * may move. */
static void skip_group(PP *pp)
{
	Frame *f = &vec_last(&pp->frames);
	int depth = 0;
	for (;; f->pos++) {
		compact(f);
		ftok(f, f->pos + 1);
		const Token *t = &f->win[f->pos];
		if (t->kind == TK_EOF)
			return;
		if (!t->bol || !is_punct(t, P_HASH) || t[1].bol || t[1].kind == TK_EOF)
			continue;
		const Token *d = &t[1];
		if (tok_is(d, "if") || tok_is(d, "ifdef") || tok_is(d, "ifndef"))
			depth++;
		else if (tok_is(d, "endif") && depth > 0)
			depth--;
		else if (depth == 0 && (tok_is(d, "elif") || tok_is(d, "else") || tok_is(d, "endif")))
			return;
	}
}

static void do_if(PP *pp, const Line *l, int kind)
{
	bool v;
	if (kind == 0) {
		v = eval_if(pp, l->args, l->n, &l->name);
	} else if (l->n == 0 || !is_name(&l->args[0])) {
		diag_at(DIAG_ERROR, l->n ? l->args[0].loc : l->name.loc, 1, "macro name missing");
		v = false;
	} else {
		v = (map_get(&pp->macros, l->args[0].text) != NULL) == (kind == 1);
		extra_tokens(l, 1);
	}
	vec_push(&pp->conds, ((Cond){l->name.loc, v, false}));
	if (!v)
		skip_group(pp);
}

static Cond *open_cond(PP *pp, const Line *l)
{
	Frame *f = &vec_last(&pp->frames);
	if (pp->conds.len <= f->cond_base) {
		diag_at(DIAG_ERROR, l->name.loc, l->name.len, "#%.*s without #if", l->name.len,
		        l->name.text);
		return NULL;
	}
	return &vec_last(&pp->conds);
}

static void do_elif(PP *pp, const Line *l)
{
	Cond *c = open_cond(pp, l);
	if (!c)
		return;
	if (c->has_else)
		diag_at(DIAG_ERROR, l->name.loc, l->name.len, "#elif after #else");
	if (c->taken) {
		skip_group(pp);
		return;
	}
	c->taken = eval_if(pp, l->args, l->n, &l->name);
	if (!c->taken)
		skip_group(pp);
}

static void do_else(PP *pp, const Line *l)
{
	Cond *c = open_cond(pp, l);
	if (!c)
		return;
	extra_tokens(l, 0);
	if (c->has_else) {
		diag_at(DIAG_ERROR, l->name.loc, l->name.len, "#else after #else");
		note_at(c->loc, "the #if is here");
	}
	c->has_else = true;
	if (c->taken) {
		skip_group(pp);
		return;
	}
	c->taken = true;
}

static void do_endif(PP *pp, const Line *l)
{
	if (open_cond(pp, l)) {
		extra_tokens(l, 0);
		pp->conds.len--;
	}
}

/* ---- #define */

static bool same_body(const Macro *a, const Macro *b)
{
	if (a->fn != b->fn || a->variadic != b->variadic || a->nparams != b->nparams ||
	    a->nbody != b->nbody || a->builtin != b->builtin)
		return false;
	for (int i = 0; i < a->nparams; i++)
		if (a->params[i] != b->params[i])
			return false;
	for (int i = 0; i < a->nbody; i++) {
		const Token *x = &a->body[i], *y = &b->body[i];
		if (x->len != y->len || memcmp(x->text, y->text, (size_t)x->len) ||
		    (i && x->space != y->space))
			return false;
	}
	return true;
}

static void define(PP *pp, Macro *m)
{
	Macro *old = map_get(&pp->macros, m->name);
	if (old && !same_body(old, m)) {
		diag_at(DIAG_WARNING, m->loc, (int)strlen(m->name), "'%s' macro redefined", m->name);
		if (old->loc.file)
			note_at(old->loc, "previous definition is here");
	}
	map_put(&pp->macros, m->name, m);
}

/* Parses "(a, b, ...)" after a function-like macro's name; returns the
 * index of the first body token, or -1 after a diagnostic. */
static int parse_params(PP *pp, const Line *l, Macro *m)
{
	VEC(const char *) ps = {0};
	int i = 2;
	for (;; i++) {
		const Token *t = i < l->n ? &l->args[i] : NULL;
		if (t && is_punct(t, P_RPAREN) && ps.len == 0 && i == 2)
			break;
		if (t && is_punct(t, P_ELLIPSIS)) {
			vec_push(&ps, intern_cstr("__VA_ARGS__"));
			m->variadic = true;
			t = ++i < l->n ? &l->args[i] : NULL;
		} else if (t && is_name(t)) {
			vec_push(&ps, t->text);
			if (i + 1 < l->n && is_punct(&l->args[i + 1], P_ELLIPSIS))
				m->variadic = true, i++;
			t = ++i < l->n ? &l->args[i] : NULL;
		} else {
			t = NULL;
		}
		if (t && is_punct(t, P_RPAREN))
			break;
		if (!t || !is_punct(t, P_COMMA) || m->variadic) {
			const Token *at = i < l->n ? &l->args[i] : &l->args[l->n - 1];
			diag_at(DIAG_ERROR, at->loc, at->len, "invalid macro parameter list");
			vec_free(&ps);
			return -1;
		}
	}
	m->params = NEWN(pp->a, const char *, ps.len + 1);
	if (ps.len)
		memcpy(m->params, ps.data, sizeof(char *) * (size_t)ps.len);
	m->nparams = ps.len;
	vec_free(&ps);
	return i + 1;
}

static bool check_body(const Macro *m)
{
	const Token *b = m->body;
	int n = m->nbody;
	if (n && (is_punct(&b[0], P_HASHHASH) || is_punct(&b[n - 1], P_HASHHASH))) {
		const Token *t = is_punct(&b[0], P_HASHHASH) ? &b[0] : &b[n - 1];
		diag_at(DIAG_ERROR, t->loc, 2, "'##' cannot appear at either end of a macro expansion");
		return false;
	}
	for (int i = 0; m->fn && i < n; i++)
		if (is_punct(&b[i], P_HASH) && (i + 1 >= n || param_index(m, &b[i + 1]) < 0)) {
			error_at(b[i].loc, "'#' is not followed by a macro parameter");
			return false;
		}
	return true;
}

static void do_define(PP *pp, const Line *l)
{
	if (l->n == 0 || !is_name(&l->args[0])) {
		const Token *at = l->n ? &l->args[0] : &l->name;
		diag_at(DIAG_ERROR, at->loc, at->len, "macro name must be an identifier");
		return;
	}
	const Token *name = &l->args[0];
	if (tok_is(name, "defined")) {
		diag_at(DIAG_ERROR, name->loc, name->len, "'defined' cannot be used as a macro name");
		return;
	}
	Macro *m = NEW(pp->a, Macro);
	m->name = name->text;
	m->loc = name->loc;
	int body = 1;
	if (l->n > 1 && is_punct(&l->args[1], P_LPAREN) && !l->args[1].space) {
		m->fn = true;
		if ((body = parse_params(pp, l, m)) < 0)
			return;
	}
	/* a copy: the line is in the file's window, which moves on */
	m->nbody = l->n - body;
	Token *b = NEWN(pp->a, Token, m->nbody + 1);
	if (m->nbody)
		memcpy(b, l->args + body, sizeof(Token) * (size_t)m->nbody);
	m->body = b;
	if (check_body(m))
		define(pp, m);
}

static void do_undef(PP *pp, const Line *l)
{
	if (l->n == 0 || !is_name(&l->args[0])) {
		const Token *at = l->n ? &l->args[0] : &l->name;
		diag_at(DIAG_ERROR, at->loc, at->len, "macro name must be an identifier");
		return;
	}
	extra_tokens(l, 1);
	map_del(&pp->macros, l->args[0].text);
}

/* ---- #include */

static const char *dir_of(PP *pp, const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? arena_strndup(pp->a, path, (size_t)(slash - path + 1)) : "";
}

/* Pushes a source file (text stays alive in the arena). */
static void push_file(PP *pp, const char *name, const char *text, size_t len)
{
	int id = src_add(name, text, len);
	push_frame(pp, (Frame){.is_file = true, .lx = lex_open(pp->a, id, text, len, true),
	                       .file = (uint32_t)id, .path = name, .cond_base = pp->conds.len});
	pp->depth++;
}

static const char *once_key(PP *pp, const char *path)
{
	if (path[0] == '<')
		return intern_cstr(path);
	char *r = realpath(path, NULL);
	const char *k = intern_cstr(r ? r : path);
	free(r);
	return k;
}

/* Opens `name` (as written) for #include; false if it is nowhere. */
static bool open_include(PP *pp, const char *name, bool quoted)
{
	VEC(const char *) cands = {0};
	const Frame *f = &vec_last(&pp->frames);
	if (name[0] == '/')
		vec_push(&cands, name);
	else {
		if (quoted && f->path[0] != '<')
			vec_push(&cands, arena_printf(pp->keep, "%s%s", dir_of(pp, f->path), name));
		for (int i = 0; i < pp->opt->n_include_dirs; i++) {
			const char *d = pp->opt->include_dirs[i];
			size_t n = strlen(d);
			vec_push(&cands, arena_printf(pp->keep, "%s%s%s", d, n && d[n - 1] == '/' ? "" : "/", name));
		}
	}
	for (int i = 0; i < cands.len; i++) {
		size_t len;
		char *text = read_file(cands.data[i], &len);
		if (pp->opt->deps)
			dep_line(pp->opt->deps, cands.data[i], text, text ? len : 0);
		if (!text)
			continue;
		const char *path = cands.data[i];
		if (!map_get(&pp->once, once_key(pp, path))) {
			char *copy = arena_strndup(pp->keep, text, len);
			push_file(pp, path, copy, len);
		}
		free(text);
		vec_free(&cands);
		return true;
	}
	vec_free(&cands);
	const char *b = cm_builtin_header(name);
	if (!b)
		return false;
	const char *path = arena_printf(pp->keep, "<%s>", name);
	if (!map_get(&pp->once, intern_cstr(path)))
		push_file(pp, path, b, strlen(b));
	return true;
}

/* The file name of an #include line: "x" or <x>, after macro expansion if
 * it is neither. */
static const char *include_name(PP *pp, const Token *t, int n, bool *quoted, bool expanded)
{
	if (n && t[0].kind == TK_STRING && t[0].len >= 2 && t[0].text[0] == '"') {
		*quoted = true;
		return arena_strndup(pp->a, t[0].text + 1, (size_t)t[0].len - 2);
	}
	if (n && is_punct(&t[0], P_LT)) {
		Buf b = {0};
		int i = 1;
		for (; i < n && !is_punct(&t[i], P_GT); i++) {
			if (i > 1 && t[i].space)
				buf_putc(&b, ' ');
			buf_putn(&b, t[i].text, (size_t)t[i].len);
		}
		const char *r = i < n && b.len ? arena_strdup(pp->a, buf_cstr(&b)) : NULL;
		buf_free(&b);
		*quoted = false;
		return r;
	}
	if (n && !expanded) {
		TokVec x = expand_list(pp, t, n);
		const char *r = include_name(pp, x.data, x.len, quoted, true);
		vec_free(&x);
		return r;
	}
	return NULL;
}

static void do_include(PP *pp, const Line *l)
{
	bool quoted = false;
	const char *name = include_name(pp, l->args, l->n, &quoted, false);
	const Token *at = l->n ? &l->args[0] : &l->name;
	int span = at->len;   /* <a/b.h> is several tokens: underline them all */
	if (l->n > 1 && l->args[l->n - 1].loc.line == at->loc.line &&
	    l->args[l->n - 1].loc.file == at->loc.file)
		span = (int)(l->args[l->n - 1].loc.col - at->loc.col) + l->args[l->n - 1].len;
	if (span < 1)
		span = at->len;
	if (!name) {
		diag_at(DIAG_ERROR, at->loc, at->len, "#include expects \"FILENAME\" or <FILENAME>");
		return;
	}
	if (pp->depth > MAX_INCLUDE_DEPTH) {
		diag_at(DIAG_ERROR, at->loc, span, "#include nested more than %d deep",
		        MAX_INCLUDE_DEPTH);
		return;
	}
	if (!open_include(pp, name, quoted))
		diag_at(DIAG_ERROR, at->loc, span, "cannot open include file '%s'", name);
}

/* ---- #line, #error, #pragma */

/* Makes the following lines of the current file report as line `line` of
 * `name`: an alias of the file's text whose lines are shifted, so that
 * diagnostics still show the right source line under the reported number
 * (no copy of the text: a #line costs the same whatever its number). */
static void set_line(PP *pp, const Line *l, uint64_t line, const char *name)
{
	Frame *f = &vec_last(&pp->frames);
	const SrcFile *phys = src_get(f->file);
	const Token *last = ftok(f, f->pos - 1);
	int next_phys = (int)last->loc.line + 1;
	int delta = (int)line - next_phys;
	const SrcFile *cur = src_get(f->alias ? f->alias : f->file);
	if (!name)
		name = cur->name;
	f->alias = (uint32_t)src_add_shifted(name, phys->text, phys->len, delta);
	f->line_delta = delta;
}

static void do_line(PP *pp, const Line *l, bool gnu)
{
	TokVec x = expand_list(pp, l->args, l->n);
	Token num = {0};
	if (x.len)
		num = x.data[0];
	if (!x.len || num.kind != TK_PPNUM || !lex_convert_number(&num) || num.kind != TK_INT ||
	    num.ival > INT_MAX / 2) {
		const Token *at = l->n ? &l->args[0] : &l->name;
		diag_at(DIAG_ERROR, at->loc, at->len, "#line directive requires a positive integer argument");
		vec_free(&x);
		return;
	}
	const char *name = NULL;
	if (x.len > 1 && x.data[1].kind == TK_STRING)
		name = arena_strdup(pp->keep, x.data[1].str);
	else if (x.len > 1 && !gnu)
		diag_at(DIAG_ERROR, x.data[1].loc, x.data[1].len, "invalid filename for #line directive");
	vec_free(&x);
	set_line(pp, l, num.ival, name);
}

static void do_message(const Line *l, DiagLevel lv)
{
	Buf b = {0};
	for (int i = 0; i < l->n; i++) {
		if (i && l->args[i].space)
			buf_putc(&b, ' ');
		buf_putn(&b, l->args[i].text, (size_t)l->args[i].len);
	}
	diag_at(lv, l->name.loc, l->name.len, "%s", buf_cstr(&b));
	buf_free(&b);
}

/* The count of #pragma unroll: empty (full), (n) or n. */
static bool unroll_count(PP *pp, const Token *t, int n, uint64_t *count, const Token *at)
{
	*count = 0;
	if (n == 0)
		return true;
	bool paren = is_punct(&t[0], P_LPAREN);
	if (paren && !(n >= 3 && is_punct(&t[n - 1], P_RPAREN))) {
		diag_at(DIAG_ERROR, t[0].loc, 1, "expected ')' in #pragma unroll");
		return false;
	}
	TokVec x = expand_list(pp, t + paren, n - 2 * paren);
	Token end = {.kind = TK_EOF, .loc = t[n - 1].loc, .text = ""};
	vec_push(&x, end);
	uint64_t v;
	bool u;
	bool ok = pp_eval_int(x.data, x.len - 1, "expected end of #pragma unroll argument", &v, &u);
	vec_free(&x);
	if (!ok)
		return false;
	if ((!u && (int64_t)v <= 0) || v == 0 || v > INT_MAX) {
		diag_at(DIAG_ERROR, t[paren].loc, t[paren].len,
		        "invalid value in #pragma unroll; expected a positive integer");
		return false;
	}
	*count = v;
	return true;
}

/* Handles the tokens of a pragma; true (and *out) if it is one the parser
 * sees. */
static bool pragma(PP *pp, const Token *t, int n, Loc loc, Token *out)
{
	if (n == 0)
		return false;
	bool unroll = tok_is(&t[0], "unroll"), nounroll = tok_is(&t[0], "nounroll");
	if (tok_is(&t[0], "once")) {
		const Frame *f = &vec_last(&pp->frames);
		map_put(&pp->once, once_key(pp, f->path), (void *)1);
		return false;
	}
	if (!unroll && !nounroll)
		return false;   /* cm_nonstrict and unknown pragmas are ignored */
	*out = (Token){.kind = TK_PRAGMA, .loc = loc, .bol = true, .space = true,
	               .text = t[0].text, .len = t[0].len};
	out->id = unroll ? PRAGMA_UNROLL : PRAGMA_NOUNROLL;
	if (nounroll) {
		if (n > 1)
			diag_at(DIAG_WARNING, t[1].loc, t[1].len, "extra tokens at end of #pragma nounroll");
		return true;
	}
	return unroll_count(pp, t + 1, n - 1, &out->ival, &t[0]);
}

static bool do_pragma_op(PP *pp, const Token *kw, Token *out)
{
	Token a = expand_next(pp), s = a, b = a;
	if (is_punct(&a, P_LPAREN)) {
		s = expand_next(pp);
		if (s.kind == TK_STRING)
			b = expand_next(pp);
	}
	if (!is_punct(&a, P_LPAREN) || s.kind != TK_STRING || !is_punct(&b, P_RPAREN)) {
		diag_at(DIAG_ERROR, kw->loc, kw->len, "_Pragma takes a parenthesized string literal");
		return false;
	}
	int n;
	const Token *t = lex_at(pp, s.str, (size_t)s.str_len, kw->loc, &n);
	return pragma(pp, t, n, kw->loc, out);
}

/* Runs the directive at the current '#'; true if it produced a token. */
static bool directive(PP *pp, Token *out)
{
	Line l = read_line(pp);
	const Token *d = &l.name;
	if (is_punct(d, P_HASH))
		return false;   /* the null directive */
	if (tok_is(d, "define")) do_define(pp, &l);
	else if (tok_is(d, "undef")) do_undef(pp, &l);
	else if (tok_is(d, "include") || tok_is(d, "include_next") || tok_is(d, "import"))
		do_include(pp, &l);
	else if (tok_is(d, "if")) do_if(pp, &l, 0);
	else if (tok_is(d, "ifdef")) do_if(pp, &l, 1);
	else if (tok_is(d, "ifndef")) do_if(pp, &l, 2);
	else if (tok_is(d, "elif")) do_elif(pp, &l);
	else if (tok_is(d, "else")) do_else(pp, &l);
	else if (tok_is(d, "endif")) do_endif(pp, &l);
	else if (tok_is(d, "line")) do_line(pp, &l, false);
	else if (tok_is(d, "error")) do_message(&l, DIAG_ERROR);
	else if (tok_is(d, "warning")) do_message(&l, DIAG_WARNING);
	else if (tok_is(d, "pragma")) return pragma(pp, l.args, l.n, l.name.loc, out);
	else if (d->kind == TK_PPNUM) {
		/* GNU line marker: # 12 "file" flags.  The number joins the
		 * arguments (a copy: after #line they are not in the file's
		 * array, so l.args - 1 is not the number). */
		Token *t = NEWN(pp->a, Token, l.n + 1);
		t[0] = *d;
		if (l.n)
			memcpy(t + 1, l.args, sizeof(Token) * (size_t)l.n);
		Line g = {*d, t, l.n + 1};
		do_line(pp, &g, true);
	} else
		diag_at(DIAG_ERROR, d->loc, d->len, "invalid preprocessing directive '#%.*s'",
		        d->len, d->text);
	return false;
}

/* ---------------------------------------------------------- predefined */

static const struct {
	const char *name;
	int genx;
	const char *gen;      /* the CM_GEN* / CM_XE* macro */
	const char *alias;    /* another accepted spelling */
} personas[] = {
	{"HSW", 750, "CM_GEN7_5", "gen7_5"}, {"BDW", 800, "CM_GEN8", "gen8"},
	{"CHV", 850, "CM_GEN8_5", "gen8_5"}, {"SKL", 900, "CM_GEN9", "gen9"},
	{"BXT", 920, "CM_GEN9", NULL},       {"KBL", 950, "CM_GEN9_5", "gen9_5"},
	{"GLK", 970, "CM_GEN9_5", NULL},     {"ICLLP", 1150, "CM_GEN11", "gen11"},
	{"ICL", 1150, "CM_GEN11", NULL},     {"TGLLP", 1200, "CM_GEN12", "gen12"},
	{"TGL", 1200, "CM_GEN12", "gen12lp"}, {"RKL", 1201, "CM_GEN12", NULL},
	{"DG1", 1210, "CM_GEN12", NULL},     {"ADLP", 1220, "CM_GEN12", NULL},
	{"ADLS", 1230, "CM_GEN12", NULL},    {"ADLN", 1240, "CM_GEN12", NULL},
	{"XEHP_SDV", 1270, "CM_XEHP", "xehp"}, {"DG2", 1271, "CM_XEHPG", "xehpg"},
	{"MTL", 1275, "CM_XELPG", "xelpg"},  {"PVC", 1280, "CM_XEHPC", "xehpc"},
	{"PVCXT", 1280, "CM_XEHPC", NULL},
};

static int find_persona(const char *march)
{
	if (!march)
		return 3;   /* SKL */
	for (int i = 0; i < (int)(sizeof personas / sizeof personas[0]); i++) {
		char num[16];
		snprintf(num, sizeof num, "%d", personas[i].genx);
		if (!strcasecmp(march, personas[i].name) || !strcmp(march, num) ||
		    (personas[i].alias && !strcasecmp(march, personas[i].alias)))
			return i;
	}
	error_at((Loc){0}, "unknown CM target '%s'", march);
	return 3;
}

static char *predefined_text(const PPOptions *o)
{
	int p = find_persona(o->march);
	Buf b = {0};
	buf_printf(&b, "#define __CM\n#define __CMC\n#define __cmetal__ 1\n"
	               "#define __cplusplus 201703L\n"
	               "#define CM_GENX %d\n#define CM_GENX_REVID %d\n#define %s\n"
	               "#define CM_HAS_LONG_LONG 1\n#define CM_HAS_DOUBLE 1\n"
	               "#define CM_HAS_IEEE_DIV_SQRT 1\n#define CM_HAS_BIT_ROTATE 1\n",
	           personas[p].genx, !strcmp(personas[p].name, "PVCXT") ? 5 : 0,
	           personas[p].gen);
	for (int i = 0; i < o->n_defines; i++) {
		const char *d = o->defines[i], *eq = strchr(d, '=');
		if (eq)
			buf_printf(&b, "#define %.*s %s\n", (int)(eq - d), d, eq + 1);
		else
			buf_printf(&b, "#define %s 1\n", d);
	}
	for (int i = 0; i < o->n_undefs; i++)
		buf_printf(&b, "#undef %s\n", o->undefs[i]);
	buf_puts(&b, "#ifndef CM_PTRSIZE\n#define CM_PTRSIZE 64\n#endif\n"
	             "#include <cm/cm.h>\n");
	return buf_cstr(&b);
}

static void define_builtin(PP *pp, const char *name, BuiltinMacro k)
{
	Macro *m = NEW(pp->a, Macro);
	m->name = intern_cstr(name);
	m->builtin = k;
	map_put(&pp->macros, m->name, m);
}

/* ---------------------------------------------------------- token lists */

void tl_push(TokenList *l, const Token *t)
{
	if (l->len == l->nblocks * TOK_BLOCK) {
		l->blocks = xrealloc(l->blocks, sizeof(Token *) * (size_t)(l->nblocks + 1));
		l->blocks[l->nblocks++] = xmalloc(sizeof(Token) * TOK_BLOCK);
	}
	*tl_at(l, l->len++) = *t;
}

void tl_truncate(TokenList *l, int len)
{
	l->len = len;
	int keep = (len + TOK_BLOCK - 1) / TOK_BLOCK;
	for (int b = keep; b < l->nblocks; b++)
		free(l->blocks[b]);
	l->nblocks = keep;
}

void tl_release(TokenList *l, int before)
{
	for (; l->released < before / TOK_BLOCK; l->released++) {
		free(l->blocks[l->released]);
		l->blocks[l->released] = NULL;
	}
}

void tl_free(TokenList *l)
{
	for (int b = 0; b < l->nblocks; b++)
		free(l->blocks[b]);
	free(l->blocks);
	*l = (TokenList){0};
}

/* ---------------------------------------------------------- driver */

/* Joins adjacent string literals and converts numbers. */
static void finish(PP *pp, TokenList *v)
{
	int w = 0;
	for (int i = 0; i < v->len; i++) {
		Token t = *tl_at(v, i);
		t.pp = NULL;
		if (t.kind == TK_PPNUM)
			lex_convert_number(&t);
		if (t.kind == TK_STRING && w && tl_at(v, w - 1)->kind == TK_STRING) {
			Token *l = tl_at(v, w - 1);
			char *s = arena_alloc(pp->a, (size_t)(l->str_len + t.str_len) + 1);
			memcpy(s, l->str, (size_t)l->str_len);
			memcpy(s + l->str_len, t.str, (size_t)t.str_len);
			l->str = s;
			l->str_len += t.str_len;
			l->text = arena_printf(pp->a, "%.*s %.*s", l->len, l->text, t.len, t.text);
			l->len = (int)strlen(l->text);
			continue;
		}
		*tl_at(v, w++) = t;
	}
	tl_truncate(v, w);
}

bool preprocess(Arena *a, const char *path, const char *text, const PPOptions *opt,
                TokenList *out)
{
	static const PPOptions none;
	PP pp = {.a = a, .opt = opt ? opt : &none};
	pp.keep = pp.opt->keep ? pp.opt->keep : a;
	size_t len = 0;
	if (text) {
		len = strlen(text);
	} else {
		char *t = read_file(path, &len);
		if (!t) {
			error_at((Loc){0}, "cannot open file '%s'", path);
			return false;
		}
		text = arena_strndup(pp.keep, t, len);
		free(t);
	}
	define_builtin(&pp, "__FILE__", PPB_FILE);
	define_builtin(&pp, "__LINE__", PPB_LINE);
	define_builtin(&pp, "__COUNTER__", PPB_COUNTER);
	push_file(&pp, path, text, len);
	char *pre_text = predefined_text(pp.opt);
	const char *pre = arena_strdup(pp.keep, pre_text);
	free(pre_text);
	push_file(&pp, "<built-in>", pre, strlen(pre));
	for (;;) {
		Token t = expand_next(&pp);
		if (t.kind == TK_OTHER) {
			lex_report(&t);
			continue;
		}
		tl_push(out, &t);
		if (t.kind == TK_EOF)
			break;
	}
	finish(&pp, out);
	for (int i = 0; i < pp.frames.len; i++)
		if (pp.frames.data[i].is_file)
			free(pp.frames.data[i].win);
	vec_free(&pp.frames);
	vec_free(&pp.conds);
	map_free(&pp.macros);
	map_free(&pp.once);
	return true;
}

/* ---------------------------------------------------------- -E output */

static bool ident_char(int c)
{
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c >= 0x80;
}

/* Whether printing b right after a would lex differently. */
static bool needs_space(const Token *a, const Token *b)
{
	int x = (unsigned char)a->text[a->len - 1], y = (unsigned char)b->text[0];
	if (ident_char(x) && (ident_char(y) || y == '\'' || y == '"'))
		return true;
	bool num = a->kind == TK_INT || a->kind == TK_FLOAT || a->kind == TK_PPNUM;
	if (num && (y == '.' || y == '+' || y == '-'))
		return true;
	if (x == '.' && y >= '0' && y <= '9')
		return true;
	if (a->kind != TK_PUNCT || b->kind != TK_PUNCT)
		return false;
	if ((x == '/' && (y == '/' || y == '*')))
		return true;
	for (int k = 1; k < P_COUNT_; k++) {
		const char *s = punct_names[k];
		for (int i = 0; s[i] && s[i + 1]; i++)
			if ((unsigned char)s[i] == x && (unsigned char)s[i + 1] == y)
				return true;
	}
	return false;
}

static bool hidden_file(uint32_t file)
{
	const SrcFile *f = src_get(file);
	return f && f->name[0] == '<';
}

void pp_print(const TokenList *toks, Buf *out)
{
	uint32_t file = 0, line = 1;
	const Token *prev = NULL;
	for (int i = 0; i < toks->len; i++) {
		const Token *t = tl_at(toks, i);
		if (t->kind == TK_EOF || hidden_file(t->loc.file))
			continue;
		if (t->loc.file != file || t->loc.line > line + 8) {
			if (prev)
				buf_putc(out, '\n');
			file = t->loc.file;
			line = t->loc.line;
			buf_printf(out, "# %u \"%s\"\n", line, src_get(file)->name);
			prev = NULL;
		}
		for (; line < t->loc.line; line++) {
			buf_putc(out, '\n');
			prev = NULL;
		}
		if (t->kind == TK_PRAGMA) {
			if (prev)
				buf_putc(out, '\n'), line++;
			buf_printf(out, "#pragma %s", t->id == PRAGMA_UNROLL ? "unroll" : "nounroll");
			if (t->ival)
				buf_printf(out, "(%llu)", (unsigned long long)t->ival);
			buf_putc(out, '\n');
			line++;
			prev = NULL;
			continue;
		}
		if (prev && (t->space || needs_space(prev, t)))
			buf_putc(out, ' ');
		buf_putn(out, t->text, (size_t)t->len);
		prev = t;
	}
	if (prev)
		buf_putc(out, '\n');
}
