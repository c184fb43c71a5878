/* launch.c — tasks, launches and events.  Adding an entry checks the thread
 * space (sizes, the 1024-thread group limit, 64 KB of SLM) and that every
 * argument is set, then captures the arguments: values are copied, and
 * each surface argument i becomes surface slot i (CmkSurface geometry from
 * its buffer or 2D surface), so the kernel's SurfaceIndex value is i.
 * Running a task hands each entry to the device in order, then emits the
 * printf text and reports the first kernel fault. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"

static cm_status check_task(cmetal_task *t)
{
	if (!t)
		return rt_fail(CM_INVALID_HANDLE, "task handle is NULL");
	if (t->magic != RT_MAGIC_TASK)
		return rt_fail(CM_INVALID_HANDLE, "task handle is not a live task (released or wrong type)");
	return CM_SUCCESS;
}

static cm_status check_event(cmetal_event *e)
{
	if (!e)
		return rt_fail(CM_INVALID_HANDLE, "event handle is NULL");
	if (e->magic != RT_MAGIC_EVENT)
		return rt_fail(CM_INVALID_HANDLE, "event handle is not a live event (released or wrong type)");
	return CM_SUCCESS;
}

cm_status cmetal_task_create(cmetal_device *dev, cmetal_task **out)
{
	cm_status s = rt_check_device(dev);
	if (s)
		return s;
	if (!out)
		return rt_fail(CM_INVALID_VALUE, "cmetal_task_create: the output pointer is NULL");
	cmetal_task *t = calloc(1, sizeof *t);
	if (!t)
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	t->magic = RT_MAGIC_TASK;
	t->dev = dev;
	t->arena = arena_new();
	*out = t;
	return CM_SUCCESS;
}

cm_status cmetal_task_release(cmetal_task *t)
{
	cm_status s = check_task(t);
	if (s)
		return s;
	for (int i = 0; i < t->entries.len; i++)
		buf_free(&t->entries.data[i]->printf_out);
	vec_free(&t->entries);
	arena_free(t->arena);
	t->magic = RT_MAGIC_DEAD;
	free(t);
	return CM_SUCCESS;
}

/* The CmkSurface view of a bound memory object. */
static void surface_of(const RtMem *m, CmkSurface *s)
{
	s->base = m->host;
	s->size = m->size;
	s->format = m->format;
	if (m->kind == RT_MEM_SURF2D) {
		s->width = m->width * m->bpp;
		s->height = m->height;
		s->pitch = m->pitch;
		s->bpp = m->bpp;
		s->is2d = 1;
	} else {
		s->width = m->size > UINT32_MAX ? UINT32_MAX : (uint32_t)m->size;
		s->height = 1;
		s->pitch = s->width;
		s->bpp = 1;
		s->is2d = 0;
	}
}

/* Copies argument i's per-thread table into l, which must be a walker
 * launch of exactly as many threads as the table has values. */
static cm_status capture_per_thread(cmetal_task *t, cmetal_kernel *k, RtLaunch *l, uint32_t i)
{
	const RtArg *a = &k->args[i];
	const CmkArgInfo *ai = &k->info->args[i];
	if (l->kind != RT_LAUNCH_WALKER)
		return rt_fail(CM_INVALID_THREAD_SPACE,
		               "argument %u '%s' of kernel '%s' has per-thread values, which only a "
		               "thread space (walker) launch takes, not a thread-group launch",
		               i, ai->name, k->info->name);
	uint64_t n = (uint64_t)l->width * l->height;
	if (n != a->nthreads)
		return rt_fail(CM_INVALID_THREAD_SPACE,
		               "argument %u '%s' of kernel '%s' has per-thread values for %u threads; "
		               "the thread space %ux%u has %llu", i, ai->name, k->info->name,
		               a->nthreads, l->width, l->height, (unsigned long long)n);
	if (!l->per_thread)
		l->per_thread = NEWN(t->arena, unsigned char *, k->info->nargs + 1);
	size_t bytes = (size_t)a->nthreads * ai->size;
	l->per_thread[i] = arena_alloc(t->arena, bytes + 8);
	memcpy(l->per_thread[i], a->per_thread, bytes);
	l->nper_thread++;
	return CM_SUCCESS;
}

/* Copies the kernel's current arguments into l (task arena). */
static cm_status capture_args(cmetal_task *t, cmetal_kernel *k, RtLaunch *l)
{
	const CmkKernelInfo *ki = k->info;
	l->args = NEWN(t->arena, void *, ki->nargs + 1);
	l->surfaces = NEWN(t->arena, CmkSurface, ki->nargs + 1);
	l->nsurfaces = ki->nargs;
	for (uint32_t i = 0; i < ki->nargs; i++) {
		const RtArg *a = &k->args[i];
		const CmkArgInfo *ai = &ki->args[i];
		if (!a->set)
			return rt_fail(CM_ARGS_NOT_SET,
			               "argument %u '%s' of kernel '%s' is not set", i, ai->name, ki->name);
		if (a->mem && a->mem->magic != RT_MAGIC_MEM)
			return rt_fail(CM_INVALID_HANDLE,
			               "argument %u '%s' of kernel '%s' is bound to a released surface",
			               i, ai->name, ki->name);
		unsigned char *v = arena_alloc(t->arena, ai->size + 8);
		if (ai->kind == CMK_ARG_SURFACE) {
			uint32_t slot = i;
			memcpy(v, &slot, sizeof slot);
			surface_of(a->mem, &l->surfaces[i]);
		} else {
			memcpy(v, a->value, ai->size);
		}
		l->args[i] = v;
		if (a->per_thread) {
			cm_status s = capture_per_thread(t, k, l, i);
			if (s)
				return s;
		}
	}
	return CM_SUCCESS;
}

static cm_status add_entry(cmetal_task *t, cmetal_kernel *k, RtLaunch *tmpl)
{
	RtLaunch *l = NEW(t->arena, RtLaunch);
	*l = *tmpl;
	l->kernel = k;
	l->info = k ? k->info : NULL;
	if (k) {
		if (k->prog->dev != t->dev)
			return rt_fail(CM_INVALID_VALUE,
			               "kernel '%s' belongs to another device than the task", k->info->name);
		if (k->info->slm_size > RT_MAX_SLM)
			return rt_fail(CM_GROUP_TOO_LARGE,
			               "kernel '%s' needs %u bytes of SLM per group; the limit is %u",
			               k->info->name, k->info->slm_size, RT_MAX_SLM);
		cm_status s = capture_args(t, k, l);
		if (s)
			return s;
	}
	vec_push(&t->entries, l);
	return CM_SUCCESS;
}

cm_status cmetal_task_add_walker(cmetal_task *t, cmetal_kernel *k, uint32_t width,
                                 uint32_t height, cmetal_dependency dep)
{
	cm_status s = check_task(t);
	if (!s)
		s = rt_check_kernel(k);
	if (s)
		return s;
	if (width == 0 || height == 0 || width > RT_MAX_WALKER || height > RT_MAX_WALKER)
		return rt_fail(CM_INVALID_THREAD_SPACE,
		               "thread space %ux%u of kernel '%s' is out of range: width and height "
		               "must be 1..%u", width, height, k->info->name, RT_MAX_WALKER);
	if ((unsigned)dep > CMETAL_DEP_VERTICAL)
		return rt_fail(CM_INVALID_VALUE, "unknown dependency pattern %d", (int)dep);
	RtLaunch l = {.kind = RT_LAUNCH_WALKER, .width = width, .height = height, .dep = dep,
	              .groups = {width, height, 1}, .threads = {1, 1, 1}};
	return add_entry(t, k, &l);
}

cm_status cmetal_task_add_groups(cmetal_task *t, cmetal_kernel *k, const uint32_t groups[3],
                                 const uint32_t threads[3])
{
	cm_status s = check_task(t);
	if (!s)
		s = rt_check_kernel(k);
	if (s)
		return s;
	if (!groups || !threads)
		return rt_fail(CM_INVALID_VALUE, "kernel '%s': the %s array is NULL",
		               k->info->name, groups ? "threads" : "groups");
	uint64_t ng = 1, nt = 1;
	for (int d = 0; d < 3; d++) {
		if (groups[d] == 0 || threads[d] == 0)
			return rt_fail(CM_INVALID_THREAD_SPACE,
			               "thread-group space of kernel '%s' has a zero size in dimension %d "
			               "(groups %ux%ux%u, threads %ux%ux%u)", k->info->name, d,
			               groups[0], groups[1], groups[2], threads[0], threads[1], threads[2]);
		ng *= groups[d];
		nt *= threads[d];
	}
	if (nt > RT_MAX_GROUP_THREADS)
		return rt_fail(CM_GROUP_TOO_LARGE,
		               "a group of %ux%ux%u = %llu threads is too large for kernel '%s': "
		               "the limit is %u threads per group", threads[0], threads[1], threads[2],
		               (unsigned long long)nt, k->info->name, RT_MAX_GROUP_THREADS);
	if (ng > UINT32_MAX || ng * nt > UINT32_MAX)
		return rt_fail(CM_INVALID_THREAD_SPACE,
		               "thread-group space of kernel '%s' is out of range: %llu groups of %llu "
		               "threads exceed 2^32 threads", k->info->name,
		               (unsigned long long)ng, (unsigned long long)nt);
	RtLaunch l = {.kind = RT_LAUNCH_GROUPS};
	memcpy(l.groups, groups, sizeof l.groups);
	memcpy(l.threads, threads, sizeof l.threads);
	return add_entry(t, k, &l);
}

cm_status cmetal_task_add_sync(cmetal_task *t)
{
	cm_status s = check_task(t);
	if (s)
		return s;
	RtLaunch l = {.kind = RT_LAUNCH_SYNC};
	return add_entry(t, NULL, &l);
}

static void emit_printf(cmetal_device *dev, Buf *out)
{
	if (out->len == 0)
		return;
	if (dev->printf_fn) {
		dev->printf_fn(dev->printf_user, out->data, out->len);
	} else {
		fwrite(out->data, 1, out->len, stdout);
		fflush(stdout);
	}
}

static cm_status run_entry(cmetal_device *dev, RtLaunch *l)
{
	if (l->kind == RT_LAUNCH_SYNC)
		return CM_SUCCESS;  /* entries already run one after another */
	l->printf_out.len = 0;
	l->fault[0] = '\0';
	l->device_ms = -1.0;
	cm_status s = dev->ops->run(dev, l);
	emit_printf(dev, &l->printf_out);
	if (!s && l->fault[0])
		s = rt_fail(CM_KERNEL_FAULT, "%s", l->fault);
	return s;
}

cm_status cmetal_task_run(cmetal_task *t, cmetal_event **ev)
{
	cm_status s = check_task(t);
	if (s)
		return s;
	if (ev)
		*ev = NULL;
	double start = rt_now_ms();
	/* devices with their own timers (CUDA events) report each launch's
	 * kernel time; the event then holds their sum, else the host clock */
	double device_ms = 0.0;
	bool device_timed = true;
	for (int i = 0; i < t->entries.len && !s; i++) {
		RtLaunch *l = t->entries.data[i];
		l->timed = ev != NULL;
		s = run_entry(t->dev, l);
		if (l->kind != RT_LAUNCH_SYNC && l->device_ms < 0)
			device_timed = false;
		else if (l->kind != RT_LAUNCH_SYNC)
			device_ms += l->device_ms;
	}
	double end = rt_now_ms();
	if (device_timed && t->entries.len)
		end = start + device_ms;
	if (ev) {
		cmetal_event *e = calloc(1, sizeof *e);
		if (!e)
			return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
		*e = (cmetal_event){RT_MAGIC_EVENT, s, start, end};
		*ev = e;
	}
	return s;
}

/* A one-entry task, released before returning. */
static cm_status launch_one(cmetal_kernel *k, RtLaunch *spec, cmetal_event **ev)
{
	cm_status s = rt_check_kernel(k);
	if (s)
		return s;
	cmetal_task *t;
	s = cmetal_task_create(k->prog->dev, &t);
	if (s)
		return s;
	if (spec->kind == RT_LAUNCH_WALKER)
		s = cmetal_task_add_walker(t, k, spec->width, spec->height, spec->dep);
	else
		s = cmetal_task_add_groups(t, k, spec->groups, spec->threads);
	if (!s)
		s = cmetal_task_run(t, ev);
	cmetal_task_release(t);
	return s;
}

cm_status cmetal_launch_walker(cmetal_kernel *k, uint32_t width, uint32_t height,
                               cmetal_dependency dep, cmetal_event **ev)
{
	RtLaunch spec = {.kind = RT_LAUNCH_WALKER, .width = width, .height = height, .dep = dep};
	return launch_one(k, &spec, ev);
}

cm_status cmetal_launch_groups(cmetal_kernel *k, const uint32_t groups[3],
                               const uint32_t threads[3], cmetal_event **ev)
{
	if (!groups || !threads)
		return rt_fail(CM_INVALID_VALUE, "cmetal_launch_groups: the %s array is NULL",
		               groups ? "threads" : "groups");
	RtLaunch spec = {.kind = RT_LAUNCH_GROUPS};
	memcpy(spec.groups, groups, sizeof spec.groups);
	memcpy(spec.threads, threads, sizeof spec.threads);
	return launch_one(k, &spec, ev);
}

cm_status cmetal_event_wait(cmetal_event *e)
{
	cm_status s = check_event(e);
	return s ? s : e->status;
}

cm_status cmetal_event_elapsed_ms(cmetal_event *e, double *ms)
{
	cm_status s = check_event(e);
	if (s)
		return s;
	if (!ms)
		return rt_fail(CM_INVALID_VALUE, "cmetal_event_elapsed_ms: the output pointer is NULL");
	*ms = e->end_ms - e->start_ms;
	return CM_SUCCESS;
}

cm_status cmetal_event_release(cmetal_event *e)
{
	cm_status s = check_event(e);
	if (s)
		return s;
	e->magic = RT_MAGIC_DEAD;
	free(e);
	return CM_SUCCESS;
}
