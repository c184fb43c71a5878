/* arena.c — region allocation, growable arrays and text buffers.
 * An arena is a list of large chunks; allocation bumps a pointer and
 * everything is released at once by arena_free. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct Chunk {
	struct Chunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
} Chunk;

typedef struct Adopted {
	struct Adopted *next;
	void *p;
} Adopted;

struct Arena {
	Chunk *head;
	size_t total;
	Adopted *adopted;   /* malloc'd blocks handed over by arena_adopt */
	Arena *children;    /* made by arena_child: freed with this one */
	Arena *sibling;     /* the next child of this one's parent */
};

Arena *arena_new(void) { return xcalloc(1, sizeof(Arena)); }

/* An arena that is freed with its parent at the latest; in between,
 * arena_reset gives its memory back (a kernel's IR, once it is emitted). */
Arena *arena_child(Arena *parent)
{
	Arena *c = arena_new();
	c->sibling = parent->children;
	parent->children = c;
	return c;
}

void arena_reset(Arena *a)
{
	for (Adopted *d = a->adopted, *n; d; d = n) {
		n = d->next;   /* d lives in a chunk */
		free(d->p);
	}
	a->adopted = NULL;
	for (Chunk *c = a->head, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	a->head = NULL;
	a->total = 0;
}

void arena_free(Arena *a)
{
	if (!a)
		return;
	for (Arena *c = a->children, *n; c; c = n) {
		n = c->sibling;
		arena_free(c);
	}
	arena_reset(a);
	free(a);
}

void *arena_alloc(Arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	Chunk *c = a->head;
	if (!c || c->used + size > c->size) {
		size_t cs = size > 60000 ? size : 64 * 1024 - sizeof(Chunk);
		c = xmalloc(sizeof(Chunk) + cs);
		c->size = cs;
		c->used = 0;
		c->next = a->head;
		a->head = c;
		a->total += cs;
	}
	void *p = c->data + c->used;
	c->used += size;
	memset(p, 0, size);
	return p;
}

size_t arena_bytes(const Arena *a) { return a->total; }

/* Lets a malloc'd block (a grown VEC's data) live as long as the arena
 * without copying it. */
void arena_adopt(Arena *a, void *p)
{
	Adopted *d = NEW(a, Adopted);
	d->p = p;
	d->next = a->adopted;
	a->adopted = d;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...)
{
	va_list ap, aq;
	va_start(ap, fmt);
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = arena_alloc(a, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, aq);
	va_end(aq);
	return p;
}

void vec_grow_(void **data, int *cap, size_t elem)
{
	int nc = *cap ? *cap * 2 : 8;
	*data = xrealloc(*data, (size_t)nc * elem);
	*cap = nc;
}

void buf_reserve(Buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t nc = b->cap ? b->cap * 2 : 256;
	while (nc < b->len + extra + 1)
		nc *= 2;
	b->data = xrealloc(b->data, nc);
	b->cap = nc;
}

void buf_putn(Buf *b, const char *s, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = 0;
}

void buf_putc(Buf *b, char c) { buf_putn(b, &c, 1); }
void buf_puts(Buf *b, const char *s) { buf_putn(b, s, strlen(s)); }

void buf_vprintf(Buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	buf_reserve(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_printf(Buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *buf_cstr(Buf *b)
{
	buf_reserve(b, 0);
	b->data[b->len] = 0;
	return b->data;
}

void buf_free(Buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
