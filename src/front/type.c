/* type.c — the type universe.
 *
 * Types are hash-consed: every constructor looks the structural key up in
 * a per-thread table, so equal types are the same pointer and sema compares
 * types with ==.  Struct and enum types are nominal (ty_nominal makes a new
 * one each time); their const variants are hash-consed on the plain type.
 * Types are malloc'd and live for the thread (the runtime may compile from
 * several threads at once, so the tables are _Thread_local).  ty_str
 * prints a type the way a CM user writes it, for diagnostics and dumps.
 */
#include <stdlib.h>
#include <string.h>

#include "front.h"

static const char *const sk_names[SK_COUNT_] = {
#define X(n, s, b) s,
	SCALAR_KINDS(X)
#undef X
};

static const int sk_sizes[SK_COUNT_] = {
#define X(n, s, b) b,
	SCALAR_KINDS(X)
#undef X
};

/* The hash-consing table: open addressing over Type pointers. */
static _Thread_local struct {
	Type **slots;
	size_t cap, len;
} tab;

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t ty_hash(const Type *t)
{
	uint64_t h = (uint64_t)t->kind;
	h = mix(h, (uint64_t)t->sk);
	h = mix(h, (uint64_t)(uintptr_t)t->elem);
	h = mix(h, (uint64_t)t->n);
	h = mix(h, (uint64_t)t->rows * 131u + (uint64_t)t->cols);
	h = mix(h, (uint64_t)t->is_ref * 2u + (uint64_t)t->is_const);
	h = mix(h, (uint64_t)(uintptr_t)t->unqual);
	h = mix(h, (uint64_t)(uintptr_t)t->ret);
	for (int i = 0; i < t->nparams; i++)
		h = mix(h, (uint64_t)(uintptr_t)t->params[i]);
	return h;
}

static bool ty_same_key(const Type *a, const Type *b)
{
	if (a->kind != b->kind || a->sk != b->sk || a->elem != b->elem ||
	    a->n != b->n || a->rows != b->rows || a->cols != b->cols ||
	    a->is_ref != b->is_ref || a->is_const != b->is_const ||
	    a->unqual != b->unqual || a->ret != b->ret ||
	    a->nparams != b->nparams)
		return false;
	for (int i = 0; i < a->nparams; i++)
		if (a->params[i] != b->params[i])
			return false;
	return true;
}

static void tab_insert(Type *t)
{
	size_t i = ty_hash(t) & (tab.cap - 1);
	while (tab.slots[i])
		i = (i + 1) & (tab.cap - 1);
	tab.slots[i] = t;
}

/* Returns the canonical copy of `key`, creating it on first use. */
static Type *intern_type(const Type *key)
{
	if (2 * (tab.len + 1) > tab.cap) {
		Type **old = tab.slots;
		size_t oc = tab.cap;
		tab.cap = oc ? oc * 2 : 256;
		tab.slots = xcalloc(tab.cap, sizeof(Type *));
		for (size_t i = 0; i < oc; i++)
			if (old[i])
				tab_insert(old[i]);
		free(old);
	}
	for (size_t i = ty_hash(key) & (tab.cap - 1); tab.slots[i];
	     i = (i + 1) & (tab.cap - 1))
		if (ty_same_key(tab.slots[i], key))
			return tab.slots[i];
	Type *t = xmalloc(sizeof *t);
	*t = *key;
	if (key->nparams) {
		t->params = xmalloc(sizeof(Type *) * (size_t)key->nparams);
		memcpy(t->params, key->params, sizeof(Type *) * (size_t)key->nparams);
	}
	tab_insert(t);
	tab.len++;
	return t;
}

Type *ty_void(void)
{
	return intern_type(&(Type){.kind = TY_VOID, .size = 0, .align = 1});
}

Type *ty_scalar(ScalarKind k)
{
	int sz = sk_sizes[k];
	return intern_type(&(Type){.kind = TY_SCALAR, .sk = k, .size = sz, .align = sz});
}

static Type *opaque(TypeKind k)
{
	return intern_type(&(Type){.kind = k, .size = 4, .align = 4});
}

Type *ty_surface(void) { return opaque(TY_SURFACE); }
Type *ty_sampler(void) { return opaque(TY_SAMPLER); }
Type *ty_vme(void) { return opaque(TY_VME); }
Type *ty_string(void) { return opaque(TY_STRING); }
Type *ty_nullptr(void) { return opaque(TY_NULLPTR); }

/* The error type is a void with a distinct key (n = -1). */
Type *ty_error(void)
{
	return intern_type(&(Type){.kind = TY_VOID, .n = -1, .align = 1});
}

bool ty_is_error(const Type *t) { return !t || t == ty_error(); }

Type *ty_vector(Type *elem, int n)
{
	elem = ty_base(elem);
	return intern_type(&(Type){.kind = TY_VECTOR, .elem = elem, .n = n,
	                           .size = elem->size * n, .align = elem->align});
}

Type *ty_matrix(Type *elem, int rows, int cols)
{
	elem = ty_base(elem);
	return intern_type(&(Type){.kind = TY_MATRIX, .elem = elem, .n = rows * cols,
	                           .rows = rows, .cols = cols,
	                           .size = elem->size * rows * cols,
	                           .align = elem->align});
}

Type *ty_array(Type *elem, int n)
{
	return intern_type(&(Type){.kind = TY_ARRAY, .elem = elem, .n = n,
	                           .size = elem->size * n, .align = elem->align});
}

Type *ty_func(Type *ret, Type **params, int nparams)
{
	return intern_type(&(Type){.kind = TY_FUNC, .ret = ret, .params = params,
	                           .nparams = nparams, .align = 1});
}

Type *ty_nominal(TypeKind k, const char *name)
{
	/* nominal types are not hash-consed; they live with the type tables */
	static _Thread_local Arena *nominal_mem;
	if (!nominal_mem)
		nominal_mem = arena_new();
	Type *t = NEW(nominal_mem, Type);
	t->kind = k;
	t->name = name;
	t->size = t->align = 4;
	return t;
}

Type *ty_with_const(Type *t, bool c)
{
	if (!t || t->is_const == c || ty_is_error(t))
		return t;
	Type key = *t;
	key.is_const = c;
	if (t->kind == TY_STRUCT || t->kind == TY_ENUM) {
		Type *plain = t->unqual ? t->unqual : t;
		if (!c)
			return plain;
		key = *plain;
		key.is_const = true;
		key.unqual = plain;
	}
	return intern_type(&key);
}

Type *ty_as_ref(Type *t)
{
	if (!t || (t->kind != TY_VECTOR && t->kind != TY_MATRIX) || t->is_ref)
		return t;
	Type key = *t;
	key.is_ref = true;
	return intern_type(&key);
}

Type *ty_base(Type *t)
{
	if (!t || (!t->is_ref && !t->is_const))
		return t;
	if (t->kind == TY_STRUCT || t->kind == TY_ENUM)
		return t->unqual ? t->unqual : t;
	Type key = *t;
	key.is_ref = false;
	key.is_const = false;
	return intern_type(&key);
}

bool ty_is_vm(const Type *t)
{
	return t && (t->kind == TY_VECTOR || t->kind == TY_MATRIX);
}

bool ty_is_scalar(const Type *t)
{
	return t && (t->kind == TY_SCALAR || t->kind == TY_ENUM);
}

bool ty_is_integer(const Type *t)
{
	if (!t)
		return false;
	if (t->kind == TY_ENUM)
		return true;
	return t->kind == TY_SCALAR && t->sk <= SK_ULONG;
}

bool ty_is_float(const Type *t)
{
	return t && t->kind == TY_SCALAR && t->sk >= SK_HALF;
}

int ty_elems(const Type *t)
{
	return ty_is_vm(t) ? t->n : 1;
}

Type *ty_elem(Type *t)
{
	return ty_is_vm(t) ? t->elem : t;
}

static void put_type(Buf *b, const Type *t)
{
	if (!t) {
		buf_puts(b, "<null>");
		return;
	}
	if (t->is_const && t->kind != TY_FUNC)
		buf_puts(b, "const ");
	switch (t->kind) {
	case TY_VOID:
		buf_puts(b, t->n < 0 ? "<error>" : "void");
		break;
	case TY_SCALAR:
		buf_puts(b, sk_names[t->sk]);
		break;
	case TY_ENUM:
		buf_printf(b, "enum %s", t->name ? t->name : "<anonymous>");
		break;
	case TY_STRUCT:
		buf_printf(b, "struct %s", t->name ? t->name : "<anonymous>");
		break;
	case TY_SURFACE:
		buf_puts(b, "SurfaceIndex");
		break;
	case TY_SAMPLER:
		buf_puts(b, "SamplerIndex");
		break;
	case TY_VME:
		buf_puts(b, "VmeIndex");
		break;
	case TY_STRING:
		buf_puts(b, "const char *");
		break;
	case TY_NULLPTR:
		buf_puts(b, "nullptr_t");
		break;
	case TY_VECTOR:
		buf_puts(b, t->is_ref ? "vector_ref<" : "vector<");
		put_type(b, t->elem);
		buf_printf(b, ",%d>", t->n);
		break;
	case TY_MATRIX:
		buf_puts(b, t->is_ref ? "matrix_ref<" : "matrix<");
		put_type(b, t->elem);
		buf_printf(b, ",%d,%d>", t->rows, t->cols);
		break;
	case TY_ARRAY:
		put_type(b, t->elem);
		buf_printf(b, "[%d]", t->n);
		break;
	case TY_FUNC:
		put_type(b, t->ret);
		buf_puts(b, " (");
		for (int i = 0; i < t->nparams; i++) {
			if (i)
				buf_puts(b, ", ");
			put_type(b, t->params[i]);
		}
		buf_puts(b, ")");
		break;
	}
}

/* The text is interned, so it lives as long as the thread's strings. */
const char *ty_str(const Type *t)
{
	Buf b = {0};
	put_type(&b, t);
	const char *s = intern(b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}
