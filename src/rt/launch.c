/* launch.c — tasks, launches and events.  Adding an entry checks the thread
 * space (sizes, the 1024-thread group limit, the device's SLM limit) and that every
 * argument is set, then captures the arguments: values are copied, and
 * each surface argument i becomes surface slot i (CmkSurface geometry from
 * its buffer or 2D surface), so the kernel's SurfaceIndex value is i.
 * Running a task hands its entries to the device in order, one at a time
 * or, on a device that runs batches (RtDeviceOps.run_batch: the CUDA
 * device enqueues them back to back and synchronizes once), a batch at a
 * time; after each batch it emits the printf text of the entries that ran
 * and reports the first kernel fault. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"

static cm_status get_task(cmetal_task *h, cmetal_task **t)
{
	*t = NULL;
	if (!h)
		return rt_fail(CM_INVALID_HANDLE, "task handle is NULL");
	*t = (cmetal_task *)rt_handle_get(h, RT_OBJ_TASK);
	if (!*t)
		return rt_fail(CM_INVALID_HANDLE, "task handle is not a live task (released or wrong type)");
	return CM_SUCCESS;
}

static cm_status get_event(cmetal_event *h, cmetal_event **e)
{
	*e = NULL;
	if (!h)
		return rt_fail(CM_INVALID_HANDLE, "event handle is NULL");
	*e = (cmetal_event *)rt_handle_get(h, RT_OBJ_EVENT);
	if (!*e)
		return rt_fail(CM_INVALID_HANDLE, "event handle is not a live event (released or wrong type)");
	return CM_SUCCESS;
}

/* Drops what one entry holds: its kernel and its arguments' memory. */
static void launch_drop(RtLaunch *l)
{
	buf_free(&l->printf_out);
	for (uint32_t i = 0; l->held && i < l->info->nargs; i++)
		rt_put(l->held[i] ? &l->held[i]->obj : NULL);
	rt_put(l->kernel ? &l->kernel->obj : NULL);
}

/* The last reference: the entries and the task's hold on its device. */
static void task_destroy(RtObj *o)
{
	cmetal_task *t = (cmetal_task *)o;
	for (int i = 0; i < t->entries.len; i++)
		launch_drop(t->entries.data[i]);
	vec_free(&t->entries);
	arena_free(t->arena);
	pthread_mutex_destroy(&t->lock);
	cmetal_device *dev = t->dev;
	free(t);
	rt_device_drop(dev);
}

static cmetal_task *task_new(cmetal_device *dev)
{
	cmetal_task *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	rt_obj_init(&t->obj, RT_OBJ_TASK, task_destroy);
	pthread_mutex_init(&t->lock, NULL);
	rt_device_hold(dev);
	t->dev = dev;
	t->arena = arena_new();
	return t;
}

/* Publishes a new object: *out gets its handle, or o goes. */
static cm_status publish(RtObj *o, void **out)
{
	if ((*out = rt_handle_new(o)))
		return CM_SUCCESS;
	rt_put(o);
	return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
}

cm_status cmetal_task_create(cmetal_device *h, cmetal_task **out)
{
	if (!out)
		return rt_fail(CM_INVALID_VALUE, "cmetal_task_create: the output pointer is NULL");
	*out = NULL;
	cmetal_device *dev;
	cm_status s = rt_get_device(h, &dev);
	if (s)
		return s;
	cmetal_task *t = task_new(dev);
	rt_put(&dev->obj);
	if (!t)
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	return publish(&t->obj, (void **)out);
}

/* Ends the user's handle (a run in progress on another thread finishes
 * first: it holds the task). */
cm_status cmetal_task_release(cmetal_task *h)
{
	cmetal_task *t;
	cm_status s = get_task(h, &t);
	if (s)
		return s;
	return rt_handle_release(h, RT_OBJ_TASK, &t->obj, "task");
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
	l->held = NEWN(t->arena, RtMem *, ki->nargs + 1);
	l->surfaces = NEWN(t->arena, CmkSurface, ki->nargs + 1);
	l->nsurfaces = ki->nargs;
	for (uint32_t i = 0; i < ki->nargs; i++) {
		const RtArg *a = &k->args[i];
		const CmkArgInfo *ai = &ki->args[i];
		if (!a->set)
			return rt_fail(CM_ARGS_NOT_SET,
			               "argument %u '%s' of kernel '%s' is not set", i, ai->name, ki->name);
		if (a->mem) {      /* the entry holds it until the task goes */
			rt_ref(&a->mem->obj);
			l->held[i] = a->mem;
		}
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

/* Appends an entry for k (NULL: a sync) to t, with the kernel's arguments
 * as they are now; the entry holds the kernel and its memory. */
static cm_status add_entry(cmetal_task *t, cmetal_kernel *k, RtLaunch *tmpl)
{
	RtLaunch *l = NEW(t->arena, RtLaunch);
	*l = *tmpl;
	l->info = k ? k->info : NULL;
	cm_status s = CM_SUCCESS;
	if (k && k->prog->dev != t->dev)
		s = rt_fail(CM_INVALID_VALUE,
		            "kernel '%s' belongs to another device than the task", k->info->name);
	else if (k && k->info->slm_size > t->dev->info[CMETAL_DEVICE_MAX_SLM])
		s = rt_fail(CM_GROUP_TOO_LARGE,
		            "kernel '%s' needs %u bytes of SLM per group; the limit is %llu on "
		            "this device", k->info->name, k->info->slm_size,
		            (unsigned long long)t->dev->info[CMETAL_DEVICE_MAX_SLM]);
	if (s || !k) {
		if (!s)
			vec_push(&t->entries, l);
		return s;
	}
	rt_ref(&k->obj);
	l->kernel = k;
	pthread_mutex_lock(&k->lock);
	s = capture_args(t, k, l);
	pthread_mutex_unlock(&k->lock);
	if (s)
		launch_drop(l);
	else
		vec_push(&t->entries, l);
	return s;
}

static cm_status task_add_walker(cmetal_task *t, cmetal_kernel *k, uint32_t width,
                                 uint32_t height, cmetal_dependency dep)
{
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

/* A group launch with threads {0, 0, 0}: groups[] counts CM threads, and
 * the runtime groups them in rows of G along x (G from the device's
 * occupancy answer, auto_group; at most the x extent), rounding x up to a
 * multiple of G as any group launch does: the kernel checks its bounds.
 * Refused for a kernel that uses SLM or barriers, whose results depend on
 * which threads share a group. */
static cm_status auto_groups(cmetal_kernel *k, const uint32_t space[3], uint32_t groups[3],
                             uint32_t threads[3])
{
	if (k->info->slm_size || k->info->uses_barrier)
		return rt_fail(CM_INVALID_THREAD_SPACE,
		               "kernel '%s' uses %s: a launch of it must give its group size "
		               "(threads {0, 0, 0} leaves the grouping to the runtime)",
		               k->info->name, k->info->slm_size ? "SLM" : "a barrier");
	for (int d = 0; d < 3; d++)
		if (!space[d])
			return rt_fail(CM_INVALID_THREAD_SPACE,
			               "thread space of kernel '%s' has a zero size in dimension %d",
			               k->info->name, d);
	cmetal_occupancy oc;
	cm_status s = rt_kernel_occupancy(k, 1, &oc);
	if (s)
		return s;
	uint32_t g = oc.auto_group ? oc.auto_group : 1;
	if (g > space[0])
		g = space[0];
	groups[0] = (uint32_t)(((uint64_t)space[0] + g - 1) / g);
	groups[1] = space[1];
	groups[2] = space[2];
	threads[0] = g;
	threads[1] = threads[2] = 1;
	rt_log("kernel '%s': a group launch of %ux%ux%u CM threads left to the runtime: "
	       "groups of %u", k->info->name, space[0], space[1], space[2], g);
	return CM_SUCCESS;
}

static cm_status task_add_groups(cmetal_task *t, cmetal_kernel *k, const uint32_t groups_in[3],
                                 const uint32_t threads_in[3])
{
	if (!groups_in || !threads_in)
		return rt_fail(CM_INVALID_VALUE, "kernel '%s': the %s array is NULL",
		               k->info->name, groups_in ? "threads" : "groups");
	uint32_t groups[3], threads[3];
	memcpy(groups, groups_in, sizeof groups);
	memcpy(threads, threads_in, sizeof threads);
	if (!threads[0] && !threads[1] && !threads[2]) {
		cm_status s = auto_groups(k, groups_in, groups, threads);
		if (s)
			return s;
	}
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

/* Resolves the task and kernel handles of an add call. */
static cm_status get_task_kernel(cmetal_task *th, cmetal_kernel *kh, cmetal_task **t,
                                 cmetal_kernel **k)
{
	cm_status s = get_task(th, t);
	if (!s && (s = rt_get_kernel(kh, k)))
		rt_put(&(*t)->obj);
	return s;
}

#define TASK_ADD(call)                                                         \
	cmetal_task *t;                                                        \
	cmetal_kernel *k;                                                      \
	cm_status s = get_task_kernel(th, kh, &t, &k);                         \
	if (s)                                                                 \
		return s;                                                      \
	pthread_mutex_lock(&t->lock);                                          \
	s = call;                                                              \
	pthread_mutex_unlock(&t->lock);                                        \
	rt_put(&k->obj);                                                       \
	rt_put(&t->obj);                                                       \
	return s

cm_status cmetal_task_add_walker(cmetal_task *th, cmetal_kernel *kh, uint32_t width,
                                 uint32_t height, cmetal_dependency dep)
{
	TASK_ADD(task_add_walker(t, k, width, height, dep));
}

cm_status cmetal_task_add_groups(cmetal_task *th, cmetal_kernel *kh, const uint32_t groups[3],
                                 const uint32_t threads[3])
{
	TASK_ADD(task_add_groups(t, k, groups, threads));
}

cm_status cmetal_task_add_sync(cmetal_task *h)
{
	cmetal_task *t;
	cm_status s = get_task(h, &t);
	if (s)
		return s;
	RtLaunch l = {.kind = RT_LAUNCH_SYNC};
	pthread_mutex_lock(&t->lock);
	s = add_entry(t, NULL, &l);
	pthread_mutex_unlock(&t->lock);
	rt_put(&t->obj);
	return s;
}

/* Hands printf text to the device's callback (called with no runtime lock
 * held, so it may call the runtime), else to stdout. */
static void emit_printf(cmetal_device *dev, Buf *out)
{
	if (out->len == 0)
		return;
	rt_dev_lock(dev);
	cmetal_printf_fn fn = dev->printf_fn;
	void *user = dev->printf_user;
	rt_dev_unlock(dev);
	if (fn) {
		fn(user, out->data, out->len);
	} else {
		flockfile(stdout);
		fwrite(out->data, 1, out->len, stdout);
		fflush(stdout);
		funlockfile(stdout);
	}
}

/* Runs ls[0], ... of a task under the device lock: a batch of up to n
 * entries where the device runs batches, else the first entry; *done gets
 * how many completed. */
static cm_status run_batch(cmetal_device *dev, RtLaunch **ls, uint32_t n, uint32_t *done)
{
	cm_status s = CM_SUCCESS;
	*done = 0;
	if (!dev->ops->run_batch && ls[0]->kind == RT_LAUNCH_SYNC) {
		*done = 1;   /* entries already run one after another */
		return s;
	}
	rt_dev_lock(dev);
	if (dev->ops->run_batch)
		s = dev->ops->run_batch(dev, ls, n, done);
	else if (!(s = dev->ops->run(dev, ls[0])))
		*done = 1;
	rt_dev_unlock(dev);
	if (!s && !*done)
		die("device '%s' ran a batch of no entries", dev->ops->kind);
	return s;
}

/* The kernel times a task's entries add up to. */
typedef struct {
	double ms;
	bool all;                   /* every entry had a device time */
} RunTime;

/* The report of the fault of ls[i], the first of a batch of done
 * entries: entries after it that already ran are counted. */
static cm_status fault_status(RtLaunch **ls, uint32_t i, uint32_t done)
{
	uint32_t later = 0;
	for (uint32_t j = i + 1; j < done; j++)
		later += ls[j]->kind != RT_LAUNCH_SYNC;
	if (!later)
		return rt_fail(CM_KERNEL_FAULT, "%s", ls[i]->fault);
	return rt_fail(CM_KERNEL_FAULT, "%s (%u more launch%s of the task, enqueued with it, "
	               "had already run)", ls[i]->fault, later, later == 1 ? "" : "es");
}

/* After a batch that returned s: the printf text of the done entries in
 * order, their kernel times, and the first fault, which comes before
 * any failure of a later entry. */
static cm_status after_batch(cmetal_device *dev, RtLaunch **ls, uint32_t done, cm_status s,
                             RunTime *time)
{
	cm_status fs = CM_SUCCESS;
	for (uint32_t i = 0; i < done; i++) {
		RtLaunch *l = ls[i];
		if (l->kind == RT_LAUNCH_SYNC)
			continue;
		emit_printf(dev, &l->printf_out);
		if (l->device_ms < 0)
			time->all = false;
		else
			time->ms += l->device_ms;
		if (!fs && l->fault[0])
			fs = fault_status(ls, i, done);
	}
	return fs ? fs : s;
}

static void event_destroy(RtObj *o)
{
	free(o);
}

/* Runs t's entries in order (t locked); ev: an event for the run. */
static cm_status task_run(cmetal_task *t, cmetal_event **ev)
{
	if (ev)
		*ev = NULL;
	RtLaunch **ls = t->entries.data;
	uint32_t n = (uint32_t)t->entries.len;
	for (uint32_t i = 0; i < n; i++) {
		ls[i]->printf_out.len = 0;
		ls[i]->fault[0] = '\0';
		ls[i]->device_ms = -1.0;
		ls[i]->timed = ev != NULL;
	}
	cm_status s = CM_SUCCESS;
	double start = rt_now_ms();
	/* devices with their own timers (CUDA events) report each launch's
	 * kernel time; the event then holds their sum, else (and after a
	 * failure) the host clock */
	RunTime time = {0.0, true};
	for (uint32_t i = 0, done = 0; i < n && !s; i += done) {
		s = run_batch(t->dev, ls + i, n - i, &done);
		s = after_batch(t->dev, ls + i, done, s, &time);
	}
	double end = rt_now_ms();
	if (time.all && n && !s)
		end = start + time.ms;
	if (ev) {
		cmetal_event *e = calloc(1, sizeof *e);
		if (!e)
			return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
		rt_obj_init(&e->obj, RT_OBJ_EVENT, event_destroy);
		e->status = s;
		e->start_ms = start;
		e->end_ms = end;
		cm_status es = publish(&e->obj, (void **)ev);
		if (es)
			return es;
	}
	return s;
}

cm_status cmetal_task_run(cmetal_task *h, cmetal_event **ev)
{
	cmetal_task *t;
	cm_status s = get_task(h, &t);
	if (s)
		return s;
	pthread_mutex_lock(&t->lock);
	s = task_run(t, ev);
	pthread_mutex_unlock(&t->lock);
	rt_put(&t->obj);
	return s;
}

/* A one-entry task of its own, gone before returning. */
static cm_status launch_one(cmetal_kernel *h, RtLaunch *spec, cmetal_event **ev)
{
	cmetal_kernel *k;
	cm_status s = rt_get_kernel(h, &k);
	if (s)
		return s;
	cmetal_task *t = task_new(k->prog->dev);
	if (!t) {
		rt_put(&k->obj);
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	}
	if (spec->kind == RT_LAUNCH_WALKER)
		s = task_add_walker(t, k, spec->width, spec->height, spec->dep);
	else
		s = task_add_groups(t, k, spec->groups, spec->threads);
	if (!s)
		s = task_run(t, ev);
	rt_put(&t->obj);
	rt_put(&k->obj);
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

cm_status cmetal_event_wait(cmetal_event *h)
{
	cmetal_event *e;
	cm_status s = get_event(h, &e);
	if (s)
		return s;
	s = e->status;
	rt_put(&e->obj);
	return s;
}

cm_status cmetal_event_elapsed_ms(cmetal_event *h, double *ms)
{
	cmetal_event *e;
	cm_status s = get_event(h, &e);
	if (s)
		return s;
	if (!ms)
		s = rt_fail(CM_INVALID_VALUE, "cmetal_event_elapsed_ms: the output pointer is NULL");
	else
		*ms = e->end_ms - e->start_ms;
	rt_put(&e->obj);
	return s;
}

cm_status cmetal_event_release(cmetal_event *h)
{
	cmetal_event *e;
	cm_status s = get_event(h, &e);
	if (s)
		return s;
	return rt_handle_release(h, RT_OBJ_EVENT, &e->obj, "event");
}
