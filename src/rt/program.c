/* program.c — programs (built from CM source or loaded from a compiled
 * file) and kernels looked up in them by name.  The device fills the
 * kernel metadata (CmkKernelInfo); everything here reads only that. */
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"

static cm_status check_program(cmetal_program *p)
{
	if (!p)
		return rt_fail(CM_INVALID_HANDLE, "program handle is NULL");
	if (p->magic != RT_MAGIC_PROGRAM)
		return rt_fail(CM_INVALID_HANDLE,
		               "program handle is not a live program (released or wrong type)");
	return CM_SUCCESS;
}

static cm_status program_new(cmetal_device *dev, cmetal_program **out, cmetal_program **p)
{
	cm_status s = rt_check_device(dev);
	if (s)
		return s;
	if (!out)
		return rt_fail(CM_INVALID_VALUE, "the output program pointer is NULL");
	*out = NULL;
	*p = calloc(1, sizeof **p);
	if (!*p)
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	(*p)->magic = RT_MAGIC_PROGRAM;
	(*p)->dev = dev;
	return CM_SUCCESS;
}

/* Finishes program_new: on failure frees what the device left behind. */
static cm_status program_done(cm_status s, cmetal_program *p, cmetal_program **out)
{
	if (s) {
		if (p->priv)
			p->dev->ops->program_free(p->dev, p);
		free(p->log);
		free(p);
		return s;
	}
	if (!p->log)
		p->log = xstrdup("");
	*out = p;
	return CM_SUCCESS;
}

cm_status cmetal_program_build(cmetal_device *dev, const char *source,
                               const char *options, cmetal_program **out)
{
	cmetal_program *p;
	cm_status s = program_new(dev, out, &p);
	if (s)
		return s;
	if (!source) {
		free(p);
		return rt_fail(CM_INVALID_VALUE, "cmetal_program_build: the source text is NULL");
	}
	s = dev->ops->program_build(dev, p, source, options ? options : "");
	return program_done(s, p, out);
}

cm_status cmetal_program_load(cmetal_device *dev, const char *path, cmetal_program **out)
{
	cmetal_program *p;
	cm_status s = program_new(dev, out, &p);
	if (s)
		return s;
	if (!path) {
		free(p);
		return rt_fail(CM_INVALID_VALUE, "cmetal_program_load: the path is NULL");
	}
	s = dev->ops->program_load(dev, p, path);
	return program_done(s, p, out);
}

cm_status cmetal_program_build_log(cmetal_program *p, const char **log)
{
	cm_status s = check_program(p);
	if (s)
		return s;
	if (!log)
		return rt_fail(CM_INVALID_VALUE, "cmetal_program_build_log: the output pointer is NULL");
	*log = p->log;
	return CM_SUCCESS;
}

cm_status cmetal_program_kernel_count(cmetal_program *p, uint32_t *n)
{
	cm_status s = check_program(p);
	if (s)
		return s;
	if (!n)
		return rt_fail(CM_INVALID_VALUE, "cmetal_program_kernel_count: the output pointer is NULL");
	*n = p->nkernels;
	return CM_SUCCESS;
}

cm_status cmetal_program_kernel_name(cmetal_program *p, uint32_t i, const char **name)
{
	cm_status s = check_program(p);
	if (s)
		return s;
	if (!name)
		return rt_fail(CM_INVALID_VALUE, "cmetal_program_kernel_name: the output pointer is NULL");
	if (i >= p->nkernels)
		return rt_fail(CM_INVALID_VALUE, "kernel index %u is out of range: the program has %u kernels",
		               i, p->nkernels);
	*name = p->kernels[i].name;
	return CM_SUCCESS;
}

cm_status cmetal_program_release(cmetal_program *p)
{
	cm_status s = check_program(p);
	if (s)
		return s;
	if (p->nrefs)
		return rt_fail(CM_INVALID_VALUE,
		               "cannot release a program while %d of its kernels are alive", p->nrefs);
	p->dev->ops->program_free(p->dev, p);
	free(p->log);
	p->magic = RT_MAGIC_DEAD;
	free(p);
	return CM_SUCCESS;
}

/* ---- kernels ---- */

cm_status cmetal_kernel_create(cmetal_program *p, const char *name, cmetal_kernel **out)
{
	cm_status s = check_program(p);
	if (s)
		return s;
	if (!out || !name)
		return rt_fail(CM_INVALID_VALUE, "cmetal_kernel_create: %s is NULL",
		               name ? "the output pointer" : "the kernel name");
	*out = NULL;
	Buf sym = {0};
	kernel_symbol(&sym, name);      /* "K<float>" names a template's instance */
	for (uint32_t i = 0; i < p->nkernels; i++) {
		const CmkKernelInfo *ki = &p->kernels[i];
		if (strcmp(ki->name, name) != 0 && strcmp(ki->name, buf_cstr(&sym)) != 0)
			continue;
		buf_free(&sym);
		cmetal_kernel *k = calloc(1, sizeof *k);
		if (!k)
			return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
		k->magic = RT_MAGIC_KERNEL;
		k->prog = p;
		k->info = ki;
		k->index = i;
		k->arena = arena_new();
		k->args = NEWN(k->arena, RtArg, ki->nargs + 1);
		for (uint32_t a = 0; a < ki->nargs; a++)
			k->args[a].value = arena_alloc(k->arena, ki->args[a].size + 8);
		p->nrefs++;
		*out = k;
		return CM_SUCCESS;
	}
	buf_free(&sym);
	Buf b = {0};
	for (uint32_t i = 0; i < p->nkernels; i++)
		buf_printf(&b, "%s'%s'", i ? ", " : "", p->kernels[i].name);
	s = rt_fail(CM_KERNEL_NOT_FOUND, "no kernel named '%s' in the program; it has %s",
	            name, p->nkernels ? buf_cstr(&b) : "no kernels");
	buf_free(&b);
	return s;
}

cm_status cmetal_kernel_release(cmetal_kernel *k)
{
	cm_status s = rt_check_kernel(k);
	if (s)
		return s;
	k->prog->nrefs--;
	for (uint32_t a = 0; a < k->info->nargs; a++)
		free(k->args[a].per_thread);
	arena_free(k->arena);
	k->magic = RT_MAGIC_DEAD;
	free(k);
	return CM_SUCCESS;
}
