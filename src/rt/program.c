/* program.c — programs (built from CM source or loaded from a compiled
 * file) and kernels looked up in them by name.  The device fills the
 * kernel metadata (CmkKernelInfo); everything here reads only that. */
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"

static cm_status get_program(cmetal_program *h, cmetal_program **p)
{
	*p = NULL;
	if (!h)
		return rt_fail(CM_INVALID_HANDLE, "program handle is NULL");
	*p = (cmetal_program *)rt_handle_get(h, RT_OBJ_PROGRAM);
	if (!*p)
		return rt_fail(CM_INVALID_HANDLE,
		               "program handle is not a live program (released or wrong type)");
	return CM_SUCCESS;
}

/* The last reference (the handle's and every kernel's are gone). */
static void program_destroy(RtObj *o)
{
	cmetal_program *p = (cmetal_program *)o;
	cmetal_device *dev = p->dev;
	if (p->priv) {
		rt_dev_lock(dev);
		dev->ops->program_free(dev, p);
		rt_dev_unlock(dev);
	}
	free(p->log);
	free(p);
	rt_device_drop(dev);
}

/* Builds (source) or loads (path) a program on the device handle h.  A
 * CPU build runs outside the device lock: compiling takes seconds, and
 * the cache and the compiler are safe to share (cache.c, compile.c). */
static cm_status program_make(cmetal_device *h, const char *source, const char *path,
                              const char *options, cmetal_program **out)
{
	if (!out)
		return rt_fail(CM_INVALID_VALUE, "the output program pointer is NULL");
	*out = NULL;
	cmetal_device *dev;
	cm_status s = rt_get_device(h, &dev);
	if (s)
		return s;
	if (!source && !path) {
		rt_put(&dev->obj);
		return rt_fail(CM_INVALID_VALUE, "%s", options ? "cmetal_program_build: the source text is NULL"
		                                         : "cmetal_program_load: the path is NULL");
	}
	cmetal_program *p = calloc(1, sizeof *p);
	if (!p) {
		rt_put(&dev->obj);
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	}
	rt_obj_init(&p->obj, RT_OBJ_PROGRAM, program_destroy);
	p->dev = dev;
	bool lock = !dev->ops->concurrent_build;
	if (lock)
		rt_dev_lock(dev);
	s = source ? dev->ops->program_build(dev, p, source, options)
	           : dev->ops->program_load(dev, p, path);
	if (lock)
		rt_dev_unlock(dev);
	rt_device_hold(dev);
	rt_put(&dev->obj);      /* the program holds it now */
	if (!p->log)
		p->log = xstrdup("");
	if (!s && !(*out = rt_handle_new(&p->obj)))
		s = rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	if (s)
		rt_put(&p->obj);
	return s;
}

cm_status cmetal_program_build(cmetal_device *dev, const char *source,
                               const char *options, cmetal_program **out)
{
	return program_make(dev, source, NULL, options ? options : "", out);
}

cm_status cmetal_program_load(cmetal_device *dev, const char *path, cmetal_program **out)
{
	return program_make(dev, NULL, path, NULL, out);
}

/* What cmetal_program_build_log, _kernel_count and _kernel_name answer. */
static cm_status program_query(cmetal_program *h, const char *fn, uint32_t i,
                               const char **str, uint32_t *n)
{
	cmetal_program *p;
	cm_status s = get_program(h, &p);
	if (s)
		return s;
	if (!str && !n)
		s = rt_fail(CM_INVALID_VALUE, "%s: the output pointer is NULL", fn);
	else if (n)
		*n = p->nkernels;
	else if (i == UINT32_MAX)
		*str = p->log;
	else if (i >= p->nkernels)
		s = rt_fail(CM_INVALID_VALUE, "kernel index %u is out of range: the program has %u kernels",
		            i, p->nkernels);
	else
		*str = p->kernels[i].name;
	rt_put(&p->obj);
	return s;
}

cm_status cmetal_program_build_log(cmetal_program *p, const char **log)
{
	return program_query(p, "cmetal_program_build_log", UINT32_MAX, log, NULL);
}

cm_status cmetal_program_kernel_count(cmetal_program *p, uint32_t *n)
{
	return program_query(p, "cmetal_program_kernel_count", 0, NULL, n);
}

cm_status cmetal_program_kernel_name(cmetal_program *p, uint32_t i, const char **name)
{
	if (i == UINT32_MAX)
		i--;    /* out of range either way; UINT32_MAX means the log */
	return program_query(p, "cmetal_program_kernel_name", i, name, NULL);
}

/* Ends the user's handle; the program lives on while kernels hold it. */
cm_status cmetal_program_release(cmetal_program *h)
{
	cmetal_program *p;
	cm_status s = get_program(h, &p);
	if (s)
		return s;
	return rt_handle_release(h, RT_OBJ_PROGRAM, &p->obj, "program");
}

/* ---- kernels ---- */

cm_status rt_get_kernel(cmetal_kernel *h, cmetal_kernel **k)
{
	*k = NULL;
	if (!h)
		return rt_fail(CM_INVALID_HANDLE, "kernel handle is NULL");
	*k = (cmetal_kernel *)rt_handle_get(h, RT_OBJ_KERNEL);
	if (!*k)
		return rt_fail(CM_INVALID_HANDLE,
		               "kernel handle is not a live kernel (released or wrong type)");
	return CM_SUCCESS;
}

/* The last reference: the argument storage, what the arguments held, and
 * the kernel's hold on its program go. */
static void kernel_destroy(RtObj *o)
{
	cmetal_kernel *k = (cmetal_kernel *)o;
	for (uint32_t a = 0; a < k->info->nargs; a++) {
		free(k->args[a].per_thread);
		rt_put(k->args[a].mem ? &k->args[a].mem->obj : NULL);
	}
	arena_free(k->arena);
	pthread_mutex_destroy(&k->lock);
	cmetal_program *p = k->prog;
	free(k);
	rt_put(&p->obj);
}

static cmetal_kernel *kernel_new(cmetal_program *p, uint32_t i)
{
	const CmkKernelInfo *ki = &p->kernels[i];
	cmetal_kernel *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	rt_obj_init(&k->obj, RT_OBJ_KERNEL, kernel_destroy);
	pthread_mutex_init(&k->lock, NULL);
	rt_ref(&p->obj);
	k->prog = p;
	k->info = ki;
	k->index = i;
	k->arena = arena_new();
	k->args = NEWN(k->arena, RtArg, ki->nargs + 1);
	for (uint32_t a = 0; a < ki->nargs; a++)
		k->args[a].value = arena_alloc(k->arena, ki->args[a].size + 8);
	return k;
}

/* The index of kernel name in p (a template's instance "K<float>" too),
 * or p->nkernels with the error set. */
static uint32_t kernel_find(cmetal_program *p, const char *name)
{
	Buf sym = {0};
	kernel_symbol(&sym, name);
	uint32_t i = 0;
	while (i < p->nkernels && strcmp(p->kernels[i].name, name) != 0 &&
	       strcmp(p->kernels[i].name, buf_cstr(&sym)) != 0)
		i++;
	buf_free(&sym);
	if (i < p->nkernels)
		return i;
	Buf b = {0};
	for (uint32_t j = 0; j < p->nkernels; j++)
		buf_printf(&b, "%s'%s'", j ? ", " : "", p->kernels[j].name);
	rt_fail(CM_KERNEL_NOT_FOUND, "no kernel named '%s' in the program; it has %s",
	        name, p->nkernels ? buf_cstr(&b) : "no kernels");
	buf_free(&b);
	return i;
}

cm_status cmetal_kernel_create(cmetal_program *h, const char *name, cmetal_kernel **out)
{
	cmetal_program *p;
	cm_status s = get_program(h, &p);
	if (s)
		return s;
	if (!out || !name) {
		rt_put(&p->obj);
		return rt_fail(CM_INVALID_VALUE, "cmetal_kernel_create: %s is NULL",
		               name ? "the output pointer" : "the kernel name");
	}
	*out = NULL;
	uint32_t i = kernel_find(p, name);
	cmetal_kernel *k = i < p->nkernels ? kernel_new(p, i) : NULL;
	if (i >= p->nkernels)
		s = CM_KERNEL_NOT_FOUND;
	else if (!k || !(*out = rt_handle_new(&k->obj)))
		s = rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	if (s && k)
		rt_put(&k->obj);
	rt_put(&p->obj);
	return s;
}

/* Ends the user's handle; tasks holding the kernel keep it. */
cm_status cmetal_kernel_release(cmetal_kernel *h)
{
	cmetal_kernel *k;
	cm_status s = rt_get_kernel(h, &k);
	if (s)
		return s;
	return rt_handle_release(h, RT_OBJ_KERNEL, &k->obj, "kernel");
}
