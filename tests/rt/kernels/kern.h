/* kern.h — helpers for the hand-written kernels of the runtime tests.  They
 * follow src/rt/cmk_abi.h exactly as the C back end's output does, with the
 * CM memory semantics done by hand: 1D reads past the end give 0 and writes
 * are dropped (and reported through svc->fault), 2D reads clamp. */
#ifndef KERN_H
#define KERN_H

#include <stdio.h>
#include <string.h>

#include "cmk_abi.h"

#define ARG(t, i, T) (*(const T *)(t)->args[i])
#define SURF(t, i) (&(t)->surfaces[ARG(t, i, uint32_t)])

static inline uint32_t ld32(CmkThread *t, CmkSurface *s, uint64_t off, int line)
{
	uint32_t v = 0;
	if (off + 4 > s->size) {
		t->svc->fault(t, "read past the end of a buffer", line);
		return 0;
	}
	memcpy(&v, s->base + off, 4);
	return v;
}

static inline void st32(CmkThread *t, CmkSurface *s, uint64_t off, uint32_t v, int line)
{
	if (off + 4 > s->size) {
		char what[96];
		snprintf(what, sizeof what, "write of 4 bytes at offset %llu of a %llu-byte buffer",
		         (unsigned long long)off, (unsigned long long)s->size);
		t->svc->fault(t, what, line);
		return;
	}
	memcpy(s->base + off, &v, 4);
}

/* A 2D media read of one pixel: coordinates clamp to the edge. */
static inline uint32_t ld2d(CmkSurface *s, int64_t xbytes, int64_t y)
{
	if (xbytes < 0)
		xbytes = 0;
	if (xbytes > (int64_t)s->width - s->bpp)
		xbytes = s->width - s->bpp;
	if (y < 0)
		y = 0;
	if (y >= s->height)
		y = s->height - 1;
	uint32_t v = 0;
	memcpy(&v, s->base + (uint64_t)y * s->pitch + (uint64_t)xbytes, s->bpp < 4 ? s->bpp : 4);
	return v;
}

static inline void st2d(CmkSurface *s, int64_t xbytes, int64_t y, uint32_t v)
{
	if (xbytes < 0 || y < 0 || xbytes + s->bpp > s->width || y >= s->height)
		return;   /* dropped */
	memcpy(s->base + (uint64_t)y * s->pitch + (uint64_t)xbytes, &v, s->bpp < 4 ? s->bpp : 4);
}

static inline uint32_t linear_local(const CmkThread *t)
{
	return t->local_id[0] + t->local_size[0] * (t->local_id[1] + t->local_size[1] * t->local_id[2]);
}

static inline uint32_t linear_group(const CmkThread *t)
{
	return t->group_id[0] + t->group_count[0] * (t->group_id[1] + t->group_count[1] * t->group_id[2]);
}

#endif
