/* str.c — interned strings, allocation wrappers, file reading.
 * The intern table is per thread so that concurrent compilations in one
 * process (the runtime builds programs at run time) do not share state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s);
	char *p = xmalloc(n + 1);
	memcpy(p, s, n + 1);
	return p;
}

uint64_t hash_more(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}

uint64_t hash_bytes(const void *p, size_t n)
{
	return hash_more(1469598103934665603ull, p, n);
}

void dep_line(Buf *b, const char *path, const char *text, size_t len)
{
	if (text)
		buf_printf(b, "%016llx %s\n", (unsigned long long)hash_bytes(text, len), path);
	else
		buf_printf(b, "- %s\n", path);
}

typedef struct {
	char **slots;
	size_t cap, len;
	Arena *mem;
} InternTable;
static _Thread_local InternTable itab;

static const char *intern_insert(char **slots, size_t cap, char *s)
{
	size_t i = hash_bytes(s, strlen(s)) & (cap - 1);
	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = s;
	return s;
}

const char *intern(const char *s, size_t n)
{
	if (!itab.cap) {
		itab.cap = 4096;
		itab.slots = xcalloc(itab.cap, sizeof(char *));
		itab.mem = arena_new();
	}
	size_t i = hash_bytes(s, n) & (itab.cap - 1);
	for (char *t; (t = itab.slots[i]); i = (i + 1) & (itab.cap - 1))
		if (strncmp(t, s, n) == 0 && t[n] == 0)
			return t;
	if (2 * (itab.len + 1) > itab.cap) {
		size_t nc = itab.cap * 2;
		char **ns = xcalloc(nc, sizeof(char *));
		for (size_t k = 0; k < itab.cap; k++)
			if (itab.slots[k])
				intern_insert(ns, nc, itab.slots[k]);
		free(itab.slots);
		itab.slots = ns;
		itab.cap = nc;
	}
	itab.len++;
	return intern_insert(itab.slots, itab.cap, arena_strndup(itab.mem, s, n));
}

const char *intern_cstr(const char *s) { return intern(s, strlen(s)); }

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	Buf b = {0};
	char tmp[65536];
	size_t n;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		buf_putn(&b, tmp, n);
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		buf_free(&b);
		return NULL;
	}
	if (len)
		*len = b.len;
	buf_cstr(&b);
	return b.data;
}

/* ---- kernel symbols ---------------------------------------------------- */

/* Spellings of a scalar type that a host may write in a kernel name, and
 * the one the compiler's instance names use (front.h SCALAR_KINDS). */
static const char *const type_synonyms[][2] = {
	{"unsigned int", "uint"}, {"unsigned", "uint"}, {"uint32_t", "uint"},
	{"unsigned short", "ushort"}, {"unsigned short int", "ushort"},
	{"uint16_t", "ushort"}, {"unsigned char", "uchar"}, {"uint8_t", "uchar"},
	{"signed char", "char"}, {"int8_t", "char"}, {"signed", "int"},
	{"signed int", "int"}, {"int32_t", "int"}, {"short int", "short"},
	{"int16_t", "short"}, {"long long int", "long long"}, {"int64_t", "long long"},
	{"unsigned long long int", "unsigned long long"},
	{"uint64_t", "unsigned long long"},
};

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* Appends a run of words (already single-spaced), mapped to its
 * canonical spelling. */
static void put_words(Buf *b, const char *w, size_t n)
{
	for (size_t i = 0; i < sizeof type_synonyms / sizeof type_synonyms[0]; i++)
		if (strlen(type_synonyms[i][0]) == n && !strncmp(type_synonyms[i][0], w, n)) {
			buf_puts(b, type_synonyms[i][1]);
			return;
		}
	buf_putn(b, w, n);
}

/* Words are gathered into runs ("unsigned long long"), single-spaced;
 * punctuation is copied and spaces around it dropped. */
void kernel_canonical_name(Buf *out, const char *name)
{
	Buf words = {0};
	for (const char *s = name;; s++) {
		if (word_char(*s)) {
			buf_putc(&words, *s);
			continue;
		}
		if (*s == ' ' || *s == '\t' || *s == '\n') {
			const char *t = s;
			while (*t == ' ' || *t == '\t' || *t == '\n')
				t++;
			if (words.len && word_char(*t))
				buf_putc(&words, ' ');
			s = t - 1;
			continue;
		}
		if (words.len)
			put_words(out, words.data, words.len);
		words.len = 0;
		if (!*s)
			break;
		buf_putc(out, *s);
	}
	buf_free(&words);
}

void kernel_symbol(Buf *out, const char *name)
{
	if (!strchr(name, '<')) {
		buf_puts(out, name);
		return;
	}
	Buf c = {0};
	kernel_canonical_name(&c, name);
	for (size_t i = 0; i < c.len; i++) {
		char ch = c.data[i];
		switch (ch) {
		case '_': buf_puts(out, "__"); break;
		case '<': buf_puts(out, "_L"); break;
		case '>': buf_puts(out, "_R"); break;
		case ',': buf_puts(out, "_C"); break;
		case ' ': buf_puts(out, "_S"); break;
		case '-': buf_puts(out, "_N"); break;
		default:
			if (word_char(ch))
				buf_putc(out, ch);
			else
				buf_printf(out, "_x%02X", (unsigned char)ch);
		}
	}
	buf_free(&c);
}
