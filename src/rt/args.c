/* args.c — kernel arguments, checked against the kernel's CmkArgInfo:
 * index in range, kind (by value, surface, SVM), size, and for surfaces the
 * [[type("...")]] the parameter declares (buffer_t vs image2d_t).  Every
 * message names the argument: "argument 1 'n' of kernel 'k' ...". */
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"

static const char *kind_text(uint32_t kind)
{
	switch (kind) {
	case CMK_ARG_SCALAR: return "a scalar";
	case CMK_ARG_VECTOR: return "a vector/matrix";
	case CMK_ARG_SURFACE: return "a SurfaceIndex";
	case CMK_ARG_SAMPLER: return "a SamplerIndex";
	case CMK_ARG_SVM: return "an svmptr_t";
	}
	return "an argument of unknown kind";
}

/* Binds m (whose reference the argument takes over; NULL for values) and
 * drops what the argument held before. */
static void arg_hold(RtArg *a, RtMem *m)
{
	RtMem *old = a->mem;
	a->mem = m;
	a->set = true;
	if (old)
		rt_put(&old->obj);
}

/* Checks the index; *ai gets the argument's metadata. */
static cm_status arg_lookup(cmetal_kernel *k, uint32_t index, const CmkArgInfo **ai)
{
	if (index >= k->info->nargs)
		return rt_fail(CM_INVALID_ARG_INDEX,
		               "kernel '%s' has %u argument%s; index %u is out of range",
		               k->info->name, k->info->nargs, k->info->nargs == 1 ? "" : "s", index);
	*ai = &k->info->args[index];
	return CM_SUCCESS;
}

static cm_status wrong_kind(cmetal_kernel *k, uint32_t index, const CmkArgInfo *ai,
                            const char *got, const char *hint)
{
	return rt_fail(CM_INVALID_ARG_KIND,
	               "argument %u '%s' of kernel '%s' is %s; got %s%s",
	               index, ai->name, k->info->name, kind_text(ai->kind), got, hint);
}

static cm_status kernel_arg_count(cmetal_kernel *k, uint32_t *n)
{
	if (!n)
		return rt_fail(CM_INVALID_VALUE, "cmetal_kernel_arg_count: the output pointer is NULL");
	*n = k->info->nargs;
	return CM_SUCCESS;
}

static cm_status kernel_arg_info(cmetal_kernel *k, uint32_t index, const char **name,
                                 cmetal_arg_kind *kind, uint32_t *size)
{
	const CmkArgInfo *ai = NULL;
	cm_status s = arg_lookup(k, index, &ai);
	if (s)
		return s;
	if (name)
		*name = ai->name;
	if (kind)
		*kind = (cmetal_arg_kind)ai->kind;
	if (size)
		*size = ai->size;
	return CM_SUCCESS;
}

/* The public element codes are the ABI's. */
_Static_assert((int)CMETAL_ELEM_I32 == (int)CMK_ELEM_I32 && (int)CMETAL_ELEM_F64 == (int)CMK_ELEM_F64,
               "cmetal_elem_type must match CMK_ELEM_*");

static cm_status kernel_arg_type(cmetal_kernel *k, uint32_t index, cmetal_elem_type *elem,
                                 const char **type_attr)
{
	const CmkArgInfo *ai = NULL;
	cm_status s = arg_lookup(k, index, &ai);
	if (s)
		return s;
	bool by_value = ai->kind == CMK_ARG_SCALAR || ai->kind == CMK_ARG_VECTOR;
	if (elem)
		*elem = by_value && ai->elem <= CMK_ELEM_F64 ? (cmetal_elem_type)ai->elem
		                                             : CMETAL_ELEM_NONE;
	if (type_attr)
		*type_attr = ai->kind == CMK_ARG_SURFACE && ai->type_attr ? ai->type_attr : "";
	return CM_SUCCESS;
}

static cm_status kernel_set_arg(cmetal_kernel *k, uint32_t index, size_t size, const void *value)
{
	const CmkArgInfo *ai = NULL;
	cm_status s = arg_lookup(k, index, &ai);
	if (s)
		return s;
	if (ai->kind == CMK_ARG_SURFACE)
		return wrong_kind(k, index, ai, "a value",
		                  " (bind it with cmetal_kernel_set_arg_buffer or _surface2d)");
	if (ai->kind == CMK_ARG_SAMPLER)
		return rt_fail(CM_UNSUPPORTED,
		               "argument %u '%s' of kernel '%s' is a SamplerIndex: samplers are not supported",
		               index, ai->name, k->info->name);
	if (!value)
		return rt_fail(CM_INVALID_VALUE, "argument %u '%s' of kernel '%s': the value pointer is NULL",
		               index, ai->name, k->info->name);
	if (size != ai->size)
		return rt_fail(CM_INVALID_ARG_SIZE,
		               "argument %u '%s' of kernel '%s' is %s of %u bytes; got %zu bytes",
		               index, ai->name, k->info->name, kind_text(ai->kind), ai->size, size);
	RtArg *a = &k->args[index];
	memcpy(a->value, value, size);
	arg_hold(a, NULL);
	free(a->per_thread);
	a->per_thread = NULL;
	return CM_SUCCESS;
}

static cm_status kernel_set_arg_per_thread(cmetal_kernel *k, uint32_t index, uint32_t nthreads,
                                           size_t size, const void *values)
{
	const CmkArgInfo *ai = NULL;
	cm_status s = arg_lookup(k, index, &ai);
	if (s)
		return s;
	if (ai->kind == CMK_ARG_SURFACE || ai->kind == CMK_ARG_SAMPLER)
		return wrong_kind(k, index, ai, "per-thread values",
		                  " (only scalars, vectors and svmptr_t take per-thread values)");
	if (!values || nthreads == 0)
		return rt_fail(CM_INVALID_VALUE, "argument %u '%s' of kernel '%s': %s",
		               index, ai->name, k->info->name,
		               values ? "per-thread values for 0 threads" : "the values pointer is NULL");
	if (size != ai->size)
		return rt_fail(CM_INVALID_ARG_SIZE,
		               "argument %u '%s' of kernel '%s' is %s of %u bytes; got per-thread "
		               "values of %zu bytes", index, ai->name, k->info->name,
		               kind_text(ai->kind), ai->size, size);
	unsigned char *t = malloc((size_t)nthreads * size);
	if (!t)
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory for %u per-thread values of %zu bytes",
		               nthreads, size);
	memcpy(t, values, (size_t)nthreads * size);
	RtArg *a = &k->args[index];
	free(a->per_thread);
	a->per_thread = t;
	a->nthreads = nthreads;
	arg_hold(a, NULL);
	return CM_SUCCESS;
}

/* Memory of another device than the kernel's cannot be bound: its bytes
 * live in the other device's memory (a CPU buffer's host array is not a
 * CUDA allocation, and two CUDA devices are two contexts). */
static cm_status same_device(const cmetal_kernel *k, uint32_t index, const CmkArgInfo *ai,
                             const RtMem *m, const char *what)
{
	if (m->dev == k->prog->dev)
		return CM_SUCCESS;
	return rt_fail(CM_INVALID_VALUE,
	               "argument %u '%s' of kernel '%s': %s belongs to another device ('%s') than "
	               "the kernel's program ('%s')", index, ai->name, k->info->name, what,
	               m->dev ? m->dev->name : "?", k->prog->dev ? k->prog->dev->name : "?");
}

/* Binds a surface argument; want is the CMK_SURF_* the memory provides. */
static cm_status set_surface(cmetal_kernel *k, uint32_t index, const void *h, RtMemKind kind)
{
	const CmkArgInfo *ai = NULL;
	cm_status s = arg_lookup(k, index, &ai);
	if (s)
		return s;
	const char *what = kind == RT_MEM_BUFFER ? "a buffer" : "a 2D surface";
	if (ai->kind != CMK_ARG_SURFACE)
		return wrong_kind(k, index, ai, what, "");
	RtMem *m = h ? (RtMem *)rt_handle_get(h, RT_OBJ_MEM) : NULL;
	if (!m || m->kind != kind) {
		rt_put(m ? &m->obj : NULL);
		return rt_fail(CM_INVALID_HANDLE,
		               "argument %u '%s' of kernel '%s': %s handle is %s",
		               index, ai->name, k->info->name, what + 2,
		               h ? "not live (released or wrong type)" : "NULL");
	}
	uint32_t want = kind == RT_MEM_BUFFER ? CMK_SURF_BUFFER : CMK_SURF_IMAGE2D;
	if ((s = same_device(k, index, ai, m, what)))
		;
	else if (ai->surf != CMK_SURF_ANY && ai->surf != want)
		s = rt_fail(CM_INVALID_ARG_KIND,
		            "argument %u '%s' of kernel '%s' is declared [[type(\"%s\")]]; got %s",
		            index, ai->name, k->info->name, ai->type_attr ? ai->type_attr : "?", what);
	if (s) {
		rt_put(&m->obj);
		return s;
	}
	arg_hold(&k->args[index], m);   /* the kernel holds the memory */
	return CM_SUCCESS;
}

static cm_status kernel_set_arg_buffer(cmetal_kernel *k, uint32_t index, cmetal_buffer *buf)
{
	return set_surface(k, index, buf, RT_MEM_BUFFER);
}

static cm_status kernel_set_arg_surface2d(cmetal_kernel *k, uint32_t index, cmetal_surface2d *surf)
{
	return set_surface(k, index, surf, RT_MEM_SURF2D);
}

static cm_status kernel_set_arg_svm(cmetal_kernel *k, uint32_t index, cmetal_svm *svm,
                                    uint64_t offset)
{
	const CmkArgInfo *ai = NULL;
	cm_status s = arg_lookup(k, index, &ai);
	if (s)
		return s;
	if (ai->kind != CMK_ARG_SVM)
		return wrong_kind(k, index, ai, "an SVM allocation", "");
	RtMem *m = svm ? (RtMem *)rt_handle_get(svm, RT_OBJ_MEM) : NULL;
	if (!m || m->kind != RT_MEM_SVM) {
		rt_put(m ? &m->obj : NULL);
		return rt_fail(CM_INVALID_HANDLE, "argument %u '%s' of kernel '%s': SVM handle is %s",
		               index, ai->name, k->info->name,
		               svm ? "not live (freed or wrong type)" : "NULL");
	}
	if ((s = same_device(k, index, ai, m, "the SVM allocation")))
		;
	else if (offset > m->size)
		s = rt_fail(CM_OUT_OF_RANGE,
		            "argument %u '%s' of kernel '%s': offset %llu is past the end of a %zu-byte SVM allocation",
		            index, ai->name, k->info->name, (unsigned long long)offset, m->size);
	if (s) {
		rt_put(&m->obj);
		return s;
	}
	uint64_t addr = m->addr + offset;
	if (ai->size == 4)
		*(uint32_t *)k->args[index].value = (uint32_t)addr;
	else
		memcpy(k->args[index].value, &addr, ai->size < 8 ? ai->size : 8);
	arg_hold(&k->args[index], m);   /* the kernel holds the allocation */
	free(k->args[index].per_thread);
	k->args[index].per_thread = NULL;
	return CM_SUCCESS;
}

/* ---- the public calls: each holds the kernel and its lock ---- */

#define KERNEL_CALL(call)                                                      \
	cmetal_kernel *k;                                                      \
	cm_status s = rt_get_kernel(h, &k);                                    \
	if (s)                                                                 \
		return s;                                                      \
	pthread_mutex_lock(&k->lock);                                          \
	s = call;                                                              \
	pthread_mutex_unlock(&k->lock);                                        \
	rt_put(&k->obj);                                                       \
	return s

cm_status cmetal_kernel_arg_count(cmetal_kernel *h, uint32_t *n)
{
	KERNEL_CALL(kernel_arg_count(k, n));
}

cm_status cmetal_kernel_arg_info(cmetal_kernel *h, uint32_t index, const char **name,
                                 cmetal_arg_kind *kind, uint32_t *size)
{
	KERNEL_CALL(kernel_arg_info(k, index, name, kind, size));
}

cm_status cmetal_kernel_arg_type(cmetal_kernel *h, uint32_t index, cmetal_elem_type *elem,
                                 const char **type_attr)
{
	KERNEL_CALL(kernel_arg_type(k, index, elem, type_attr));
}

cm_status cmetal_kernel_set_arg(cmetal_kernel *h, uint32_t index, size_t size, const void *value)
{
	KERNEL_CALL(kernel_set_arg(k, index, size, value));
}

cm_status cmetal_kernel_set_arg_per_thread(cmetal_kernel *h, uint32_t index, uint32_t nthreads,
                                           size_t size, const void *values)
{
	KERNEL_CALL(kernel_set_arg_per_thread(k, index, nthreads, size, values));
}

cm_status cmetal_kernel_set_arg_buffer(cmetal_kernel *h, uint32_t index, cmetal_buffer *buf)
{
	KERNEL_CALL(kernel_set_arg_buffer(k, index, buf));
}

cm_status cmetal_kernel_set_arg_surface2d(cmetal_kernel *h, uint32_t index,
                                          cmetal_surface2d *surf)
{
	KERNEL_CALL(kernel_set_arg_surface2d(k, index, surf));
}

cm_status cmetal_kernel_set_arg_svm(cmetal_kernel *h, uint32_t index, cmetal_svm *svm,
                                    uint64_t offset)
{
	KERNEL_CALL(kernel_set_arg_svm(k, index, svm, offset));
}
