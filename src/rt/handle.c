/* handle.c — the public handles and the objects' reference counts.
 *
 * A handle is not a pointer to its object: it encodes a slot of one global
 * table and the slot's generation, (generation << 32) | (slot + 1).  Looking
 * a handle up takes the table's lock, checks the slot, its generation and
 * the object's kind, and takes a reference on the object before unlocking,
 * so the object stays alive for the whole call even if another thread
 * releases the handle meanwhile.  Releasing a handle bumps the slot's
 * generation, so the old value never names anything again (a reused slot
 * has a new generation): a released, garbage or wrong-kind handle is
 * CM_INVALID_HANDLE, found without reading any object's memory.
 *
 * Every object starts with an RtObj.  Its count holds one reference for the
 * handle and one for each holder: a kernel holds its program, a kernel's
 * bound surface and SVM arguments hold their memory, a task's entries hold
 * their kernels and memory, every program, memory object and task holds its
 * device.  The last rt_put destroys the object, which puts what it held. */
#include <stdatomic.h>
#include <stdlib.h>

#include "rt/rt.h"

_Static_assert(sizeof(void *) == 8, "handles encode a slot and a generation in 64 bits");

typedef struct {
	RtObj *obj;                 /* NULL: free */
	uint32_t gen;               /* bumped on release */
	uint32_t next_free;         /* free list, slot + 1 (0: end) */
} Slot;

static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
static Slot *slots;
static uint32_t nslots, cap, free_head;

static void *encode(uint32_t slot, uint32_t gen)
{
	return (void *)(uintptr_t)(((uint64_t)gen << 32) | ((uint64_t)slot + 1));
}

void rt_obj_init(RtObj *o, RtObjKind kind, void (*destroy)(RtObj *))
{
	atomic_init(&o->refs, 1);
	o->kind = kind;
	o->destroy = destroy;
}

void *rt_handle_new(RtObj *o)
{
	pthread_mutex_lock(&table_mu);
	uint32_t i;
	if (free_head) {
		i = free_head - 1;
		free_head = slots[i].next_free;
	} else {
		if (nslots == cap) {
			uint32_t ncap = cap ? cap * 2 : 256;
			Slot *n = ncap > cap ? realloc(slots, ncap * sizeof *n) : NULL;
			if (!n) {
				pthread_mutex_unlock(&table_mu);
				return NULL;
			}
			slots = n;
			cap = ncap;
		}
		i = nslots++;
		slots[i].gen = 1;
	}
	slots[i].obj = o;
	slots[i].next_free = 0;
	void *h = encode(i, slots[i].gen);
	pthread_mutex_unlock(&table_mu);
	return h;
}

/* The slot of h when it names a live object of kind (table locked). */
static Slot *lookup(const void *h, RtObjKind kind)
{
	uint64_t v = (uint64_t)(uintptr_t)h;
	uint32_t i = (uint32_t)v, gen = (uint32_t)(v >> 32);
	if (i == 0 || i > nslots)
		return NULL;
	Slot *s = &slots[i - 1];
	if (!s->obj || s->gen != gen || s->obj->kind != kind)
		return NULL;
	return s;
}

RtObj *rt_handle_get(const void *h, RtObjKind kind)
{
	pthread_mutex_lock(&table_mu);
	Slot *s = lookup(h, kind);
	RtObj *o = s ? s->obj : NULL;
	if (o)
		atomic_fetch_add(&o->refs, 1);
	pthread_mutex_unlock(&table_mu);
	return o;
}

RtObj *rt_handle_take(const void *h, RtObjKind kind)
{
	pthread_mutex_lock(&table_mu);
	Slot *s = lookup(h, kind);
	RtObj *o = s ? s->obj : NULL;
	if (s) {
		uint32_t i = (uint32_t)(s - slots);
		s->obj = NULL;
		/* generation 0 is never handed out, so a wrap skips it */
		s->gen = s->gen == UINT32_MAX ? 1 : s->gen + 1;
		s->next_free = free_head;
		free_head = i + 1;
	}
	pthread_mutex_unlock(&table_mu);
	return o;
}

cm_status rt_handle_release(const void *h, RtObjKind kind, RtObj *held, const char *what)
{
	RtObj *o = rt_handle_take(h, kind);
	rt_put(held);
	rt_put(o);
	return o ? CM_SUCCESS
	         : rt_fail(CM_INVALID_HANDLE, "%s handle was released by another thread", what);
}

void rt_ref(RtObj *o)
{
	atomic_fetch_add(&o->refs, 1);
}

void rt_put(RtObj *o)
{
	if (o && atomic_fetch_sub(&o->refs, 1) == 1)
		o->destroy(o);
}

void *rt_object_of(const void *h)
{
	uint64_t v = (uint64_t)(uintptr_t)h;
	uint32_t i = (uint32_t)v, gen = (uint32_t)(v >> 32);
	pthread_mutex_lock(&table_mu);
	RtObj *o = i && i <= nslots && slots[i - 1].gen == gen ? slots[i - 1].obj : NULL;
	pthread_mutex_unlock(&table_mu);
	return o;
}
