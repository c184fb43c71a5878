/* diag.c — the source-file table and the one entry point for diagnostics.
 * A diagnostic prints `file:line:col: level: message`, the source line and
 * a caret (or a run of carets) under the columns it is about.  After
 * error_limit errors further ones are counted but not printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

_Thread_local DiagState diag_state;
static _Thread_local VEC(SrcFile) files;
static _Thread_local bool suppress_notes; /* the last error was past the limit */

int src_add_shifted(const char *name, const char *text, size_t len, int64_t line_shift)
{
	if (files.len == 0)
		vec_push(&files, ((SrcFile){"<none>", "", 0, 0}));
	vec_push(&files, ((SrcFile){name, text, len, line_shift}));
	return files.len - 1;
}

int src_add(const char *name, const char *text, size_t len)
{
	return src_add_shifted(name, text, len, 0);
}

const SrcFile *src_get(uint32_t file)
{
	if ((int)file >= files.len)
		return NULL;
	return &files.data[file];
}

void src_reset(void) { vec_free(&files); }

/* The start of line `line` of f (or its end): found from the line printed
 * last, forwards or backwards, so the many diagnostics of a long file (a
 * warning per redefined macro) cost their distance, not the file's length
 * each (4 MB with 4,900 warnings took 7 s). */
static const char *line_start(SrcFile *f, int64_t line)
{
	const char *p = f->text, *end = f->text + f->len;
	int64_t l = 1;
	if (f->seen_line >= 1 && f->seen_off <= f->len) {
		p = f->text + f->seen_off;
		l = f->seen_line;
		for (; l > line && p > f->text; l--)      /* back to the start of line l - 1 */
			for (p--; p > f->text && p[-1] != '\n'; p--)
				;
	}
	for (; l < line && p < end; p++)
		if (*p == '\n')
			l++;
	if (l == line) {
		f->seen_line = l;
		f->seen_off = (size_t)(p - f->text);
	}
	return p;
}

static void emit_line(Buf *out, SrcFile *f, Loc loc, int len)
{
	if (!f || !f->text || loc.line == 0 || (int64_t)loc.line - f->line_shift < 1)
		return;
	int64_t line = (int64_t)loc.line - f->line_shift;
	const char *p = line_start(f, line), *end = f->text + f->len;
	const char *eol = p;
	while (eol < end && *eol != '\n')
		eol++;
	if (p >= end && p == eol)
		return;
	buf_putn(out, p, (size_t)(eol - p));
	buf_putc(out, '\n');
	/* keep tabs so the caret lines up under tab-indented code */
	for (uint32_t c = 1; c < loc.col && p + c - 1 < eol; c++)
		buf_putc(out, p[c - 1] == '\t' ? '\t' : ' ');
	buf_putc(out, '^');
	for (int i = 1; i < len; i++)
		buf_putc(out, '~');
	buf_putc(out, '\n');
}

void diag_vat(DiagLevel lv, Loc loc, int len, const char *fmt, va_list ap)
{
	static const char *names[] = {"note", "warning", "error"};
	DiagState *d = &diag_state;
	int limit = d->error_limit ? d->error_limit : 20;
	if (lv == DIAG_WARNING && d->werror)
		lv = DIAG_ERROR;
	if (lv == DIAG_WARNING && d->no_warnings)
		return;
	if (lv == DIAG_NOTE && suppress_notes)
		return;
	if (lv == DIAG_ERROR && d->errors++ >= limit) {
		suppress_notes = true;
		return;
	}
	if (lv == DIAG_WARNING)
		d->warnings++;
	suppress_notes = false;
	Buf out = {0};
	SrcFile *f = (int)loc.file < files.len ? &files.data[loc.file] : NULL;
	if (f && loc.file)
		buf_printf(&out, "%s:%u:%u: ", f->name, loc.line, loc.col);
	buf_printf(&out, "%s: ", names[lv]);
	buf_vprintf(&out, fmt, ap);
	buf_putc(&out, '\n');
	if (loc.file)
		emit_line(&out, f, loc, len);
	if (lv == DIAG_ERROR && d->errors == limit)
		buf_printf(&out, "fatal error: too many errors emitted, stopping now\n");
	if (d->capture)
		buf_putn(d->capture, out.data, out.len);
	else
		fputs(buf_cstr(&out), stderr);
	buf_free(&out);
}

void diag_at(DiagLevel lv, Loc loc, int len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vat(lv, loc, len, fmt, ap);
	va_end(ap);
}

bool diag_too_many(void)
{
	int limit = diag_state.error_limit ? diag_state.error_limit : 20;
	return diag_state.errors >= limit;
}

void diag_reset(void)
{
	Buf *cap = diag_state.capture;
	int limit = diag_state.error_limit;
	memset(&diag_state, 0, sizeof diag_state);
	diag_state.capture = cap;
	diag_state.error_limit = limit;
	suppress_notes = false;
}

_Thread_local DieTrap *die_trap;

void die_(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (die_trap) {
		DieTrap *t = die_trap;
		die_trap = NULL;
		int n = snprintf(t->msg, sizeof t->msg, "internal compiler error at %s:%d: ",
		                 file, line);
		if (n > 0 && (size_t)n < sizeof t->msg)
			vsnprintf(t->msg + n, sizeof t->msg - (size_t)n, fmt, ap);
		va_end(ap);
		longjmp(t->jb, 1);
	}
	fprintf(stderr, "cmetal: internal error at %s:%d: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}
