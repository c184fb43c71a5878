/* map.c — open-addressing hash map keyed by interned string pointers. */
#include <stdlib.h>

#include "util.h"

static size_t slot_of(const char *key, int cap)
{
	uintptr_t k = (uintptr_t)key;
	k ^= k >> 17;
	k *= 0x9E3779B97F4A7C15ull;
	return (size_t)(k >> 20) & (size_t)(cap - 1);
}

#define TOMB ((const char *)1)

void *map_get(const Map *m, const char *key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (size_t)(m->cap - 1)) {
		if (m->keys[i] == key)
			return m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
}

static void rehash(Map *m, int cap)
{
	Map n = {xcalloc((size_t)cap, sizeof(char *)), xcalloc((size_t)cap, sizeof(void *)), cap, 0};
	for (int i = 0; i < m->cap; i++)
		if (m->keys[i] && m->keys[i] != TOMB)
			map_put(&n, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = n;
}

void map_put(Map *m, const char *key, void *val)
{
	if (2 * (m->len + 1) > m->cap)
		rehash(m, m->cap ? m->cap * 2 : 16);
	size_t tomb = (size_t)-1;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (size_t)(m->cap - 1)) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return;
		}
		if (m->keys[i] == TOMB && tomb == (size_t)-1)
			tomb = i;
		if (!m->keys[i]) {
			if (tomb != (size_t)-1)
				i = tomb;
			m->keys[i] = key;
			m->vals[i] = val;
			m->len++;
			return;
		}
	}
}

bool map_del(Map *m, const char *key)
{
	if (!m->cap)
		return false;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (size_t)(m->cap - 1)) {
		if (m->keys[i] == key) {
			m->keys[i] = TOMB;
			m->vals[i] = NULL;
			return true;
		}
		if (!m->keys[i])
			return false;
	}
}

void map_free(Map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->len = 0;
}
