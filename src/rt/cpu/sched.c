/* sched.c — running one launch on the CPU device.
 *
 * Work items are groups (a thread-group space) or single threads (a media
 * walker, or the threads of groups that share nothing: a kernel without
 * barriers or SLM, whose group is only a numbering, so that a launch of a
 * few large groups still spreads over every worker and a worker the OS
 * stalls leaves its share to the others).  Pool workers take chunks of
 * items from an atomic counter.  A group of one thread, or of several
 * threads of a kernel without barriers, runs its threads one after another
 * on the worker's stack.  A group whose
 * kernel uses barriers runs its threads as fibers (mmap'd stacks, touched
 * only as deep as used, with a guard page, cached per worker and started
 * once with a ucontext, then switched with _setjmp/_longjmp): cm_barrier
 * parks the fiber and switches back to the group's scheduler, which
 * resumes all parked fibers once every live fiber has arrived.  So does a
 * kernel whose frame may not fit a worker's own stack (thread_stack).
 * Stacks are sized from the frame the C back end estimates for the kernel
 * (CmkKernelInfo.frame_size, every local in memory as at cc -O0): twice
 * that, at least FIBER_STACK; a kernel that would need more than the
 * device's limit is refused at launch, not run into its guard page.
 *
 * Walker dependencies are deadlock-free by ordering: items are handed out
 * in an order where every thread's dependencies come earlier (by x+y for a
 * wavefront, x+2y for the 26-degree one, x for horizontal, y for vertical),
 * and cm_wait blocks only on such earlier threads, which have been taken
 * by a worker and will signal or finish.
 *
 * printf text is recorded per worker with its thread id and merged in
 * linear thread id order after the launch; the fault kept is the one of
 * the lowest thread id. */
/* Fibers switch with _longjmp to another stack, which the fortified
 * __longjmp_chk takes for a corrupted stack and aborts. */
#undef _FORTIFY_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt/cpu/cpu.h"

/* The least stack a fiber gets, and all it gets for a kernel without a
 * frame estimate (hand-written ABI kernels): bench/cm/scan.cm's scan_tiles
 * built with -g (cc -O0, every value its own array) takes a 662 KB frame
 * (147 KB at -O2; estimated 833 KB): 256 KB overflowed. */
#define FIBER_STACK (1024u * 1024u)
/* A kernel whose estimated frame is above this runs on fibers even
 * without barriers: a pool thread's stack is the pthread default (8 MB on
 * glibc, less elsewhere) and the launching thread's is the caller's. */
#define INLINE_FRAME (1024u * 1024u)

#if defined(__SANITIZE_ADDRESS__)
#define RT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RT_ASAN 1
#endif
#endif
#ifdef RT_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
                                     size_t *size_old);
#endif

typedef struct CpuRun {
	cmetal_device *dev;
	RtLaunch *l;
	const CmkKernelInfo *ki;
	CpuWorker *workers;
	uint64_t nitems;            /* groups, or walker threads */
	uint32_t T;                 /* threads per group */
	bool split;                 /* an item is one thread of a group (T > 1) */
	size_t stack;               /* fibers: bytes of stack each (thread_stack) */
	uint32_t chunk;
	/* on a cache line of its own: every worker's fetch_add would otherwise
	 * evict the fields above, which every item reads */
	_Alignas(64) _Atomic uint64_t next;
	char next_pad[64 - sizeof(uint64_t)];
	uint32_t *order;            /* walker with dependencies: item -> thread */
	_Atomic unsigned char *done;/* walker: signaled or finished */
	bool fibers;
	pthread_mutex_t fault_mu;
	uint64_t fault_tid;
	bool faulted;
} CpuRun;

static _Thread_local CpuWorker *tls_worker;

/* ---- services ---- */

static void record_fault(CpuRun *r, uint64_t tid, const char *msg)
{
	pthread_mutex_lock(&r->fault_mu);
	if (!r->faulted || tid < r->fault_tid) {
		r->faulted = true;
		r->fault_tid = tid;
		snprintf(r->l->fault, sizeof r->l->fault, "%s", msg);
	}
	pthread_mutex_unlock(&r->fault_mu);
}

static void svc_fault(CmkThread *t, const char *what, int line)
{
	CpuThread *ct = (CpuThread *)t;
	char msg[512];
	snprintf(msg, sizeof msg, "kernel '%s' accessed out of bounds at line %d (%s) in thread %llu",
	         ct->run->ki->name, line, what ? what : "?", (unsigned long long)ct->tid);
	record_fault(ct->run, ct->tid, msg);
}

static void svc_print(CmkThread *t, const char *text, uint32_t len)
{
	CpuThread *ct = (CpuThread *)t;
	CpuWorker *w = ct->w;
	CpuPrint p = {ct->tid, (uint32_t)w->prints.len, w->text.len, len, &w->text};
	buf_putn(&w->text, text, len);
	vec_push(&w->prints, p);
}

/* The two switches, scheduler -> fiber (starting it the first time) and
 * fiber -> scheduler.  Plain _setjmp/_longjmp: swapcontext saves and
 * restores the signal mask, a system call on every switch, and was most of
 * a barrier's cost.  A fiber is entered with a ucontext once, its first
 * time (start_fiber), then only jumped to.  ASan cannot follow a _longjmp
 * between stacks it has been told about (its no-return handler looks at the
 * wrong stack), so ASan builds switch with swapcontext throughout. */
static void start_fiber(CpuFiber *f);
static void fiber_main(void);
#ifdef RT_ASAN
static void jump_to_fiber(CpuWorker *w, CpuFiber *f)
{
	if (!f->started) {
		long page = sysconf(_SC_PAGESIZE);
		f->started = true;
		getcontext(f->uc);
		f->uc->uc_stack.ss_sp = f->map + page;
		f->uc->uc_stack.ss_size = f->map_size - (size_t)page;
		f->uc->uc_link = NULL;
		makecontext(f->uc, fiber_main, 0);
	}
	swapcontext(&w->sched_uc, f->uc);
}

static void jump_to_sched(CpuWorker *w, CpuFiber *f)
{
	swapcontext(f->uc, &w->sched_uc);
}
#else
static void jump_to_fiber(CpuWorker *w, CpuFiber *f)
{
	if (!_setjmp(w->sched_jb)) {
		if (f->started)
			_longjmp(f->jb, 1);
		f->started = true;
		start_fiber(f);
	}
}

static void jump_to_sched(CpuWorker *w, CpuFiber *f)
{
	if (!_setjmp(f->jb))
		_longjmp(w->sched_jb, 1);
}
#endif

/* Switches from fiber i back to the group scheduler; returns when the
 * scheduler resumes the fiber. */
static void fiber_yield(CpuWorker *w, uint32_t i)
{
#ifdef RT_ASAN
	void *fake = NULL;
	__sanitizer_start_switch_fiber(&fake, w->sched_stack, w->sched_stack_size);
#endif
	jump_to_sched(w, &w->fibers[i]);
#ifdef RT_ASAN
	/* the scheduler may now run on another OS thread (worker 0 is the
	 * launching thread): take its stack afresh */
	__sanitizer_finish_switch_fiber(fake, &w->sched_stack, &w->sched_stack_size);
#endif
}

static void svc_barrier(CmkThread *t)
{
	CpuThread *ct = (CpuThread *)t;
	CpuWorker *w = ct->w;
	if (!w->in_fibers) {
		if (ct->run->T > 1)
			record_fault(ct->run, ct->tid, "cm_barrier called by a kernel whose metadata "
			             "says it uses no barrier (uses_barrier = 0)");
		return;
	}
	w->fibers[ct->fiber].state = FIB_BARRIER;
	fiber_yield(w, ct->fiber);
}

/* Walker dependencies of a pattern, in cm_wait mask-bit order. */
static int dep_offsets(cmetal_dependency d, int dx[4], int dy[4])
{
	static const int wx[] = {-1, -1, 0, 1}, wy[] = {0, -1, -1, -1};
	switch (d) {
	case CMETAL_DEP_WAVEFRONT: memcpy(dx, wx, sizeof wx); memcpy(dy, wy, sizeof wy); return 3;
	case CMETAL_DEP_WAVEFRONT26: memcpy(dx, wx, sizeof wx); memcpy(dy, wy, sizeof wy); return 4;
	case CMETAL_DEP_HORIZONTAL: dx[0] = -1; dy[0] = 0; return 1;
	case CMETAL_DEP_VERTICAL: dx[0] = 0; dy[0] = -1; return 1;
	case CMETAL_DEP_NONE: break;
	}
	return 0;
}

/* One more failed look at what another CM thread must change: spin a
 * little, then give the core away (that thread's OS thread may be waiting
 * for it: with more runnable threads than cores, spinning through a time
 * slice stalls both), then sleep. */
static void backoff(unsigned spins)
{
	if (spins < 64)
		return;
	if (spins < 4096)
		sched_yield();
	else
		usleep(50);
}

static void wait_for(_Atomic unsigned char *flag)
{
	for (unsigned spins = 0; !atomic_load_explicit(flag, memory_order_acquire); spins++)
		backoff(spins);
}

static void svc_wait(CmkThread *t, uint32_t mask)
{
	CpuThread *ct = (CpuThread *)t;
	CpuRun *r = ct->run;
	if (!r->done)
		return;
	int dx[4], dy[4], n = dep_offsets(r->l->dep, dx, dy);
	uint32_t w = r->l->width, h = r->l->height;
	for (int i = 0; i < n; i++) {
		if (mask & (1u << i))
			continue;
		int64_t x = (int64_t)t->origin[0] + dx[i], y = (int64_t)t->origin[1] + dy[i];
		if (x < 0 || y < 0 || x >= w || y >= h)
			continue;
		wait_for(&r->done[(uint64_t)y * w + (uint64_t)x]);
	}
}

/* Polls count from the first that read other values than the last one.
 * Each poll is a whole CM atomic (up to 32 locked operations), so fewer
 * polls than wait_for's loads pass before the backoff yields. */
static void svc_poll(CmkThread *t, uint64_t seen)
{
	CpuThread *ct = (CpuThread *)t;
	if (seen != ct->poll_seen || !ct->polls) {
		ct->poll_seen = seen;
		ct->polls = 1;
		return;
	}
	backoff(48 + ++ct->polls);
}

static void svc_signal(CmkThread *t)
{
	CpuThread *ct = (CpuThread *)t;
	if (ct->run->done)
		atomic_store_explicit(&ct->run->done[ct->tid], 1, memory_order_release);
}

static const CmkServices services = {
	.barrier = svc_barrier,
	.wait = svc_wait,
	.signal = svc_signal,
	.print = svc_print,
	.fault = svc_fault,
	.poll = svc_poll,
};

/* ---- per-worker memory ---- */

static unsigned char *grow(unsigned char **p, size_t *cap, size_t n)
{
	if (n > *cap) {
		free(*p);
		*p = malloc(n);
		*cap = *p ? n : 0;
	}
	return *p;
}

/* Maps fiber f's stack of `stack` bytes above a guard page; a fiber
 * started on a smaller stack (parked in fiber_main, between groups) is
 * dropped and starts afresh on the new one. */
static bool map_stack(CpuFiber *f, size_t stack)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t sz = stack + (size_t)page;
	void *m = mmap(NULL, sz, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return false;
	mprotect(m, (size_t)page, PROT_NONE);   /* guard page below the stack */
	if (f->map)
		munmap(f->map, f->map_size);
	f->map = m;
	f->map_size = sz;
	f->started = false;
	return true;
}

/* At least n fibers of at least `stack` bytes each. */
static bool ensure_fibers(CpuWorker *w, uint32_t n, size_t stack)
{
	if (n > w->nfibers) {
		CpuFiber *f = realloc(w->fibers, n * sizeof *f);
		if (!f)
			return false;
		w->fibers = f;
		for (uint32_t i = w->nfibers; i < n; i++) {
			f[i] = (CpuFiber){0};
#ifdef RT_ASAN
			/* its own allocation: this array moves, and a ucontext_t
			 * points into itself */
			if (!(f[i].uc = calloc(1, sizeof *f[i].uc)))
				return false;
#endif
			w->nfibers = i + 1;
		}
	}
	long page = sysconf(_SC_PAGESIZE);
	for (uint32_t i = 0; i < n; i++)
		if (w->fibers[i].map_size < stack + (size_t)page && !map_stack(&w->fibers[i], stack))
			return false;
	return true;
}

void cpu_worker_free(CpuWorker *w)
{
	for (uint32_t i = 0; i < w->nfibers; i++) {
		if (w->fibers[i].map)
			munmap(w->fibers[i].map, w->fibers[i].map_size);
		free(w->fibers[i].uc);
	}
	free(w->fibers);
	free(w->slm);
	free(w->globals);
	free(w->targs);
	vec_free(&w->prints);
	buf_free(&w->text);
}

/* ---- running threads ---- */

static void init_thread(CpuRun *r, CpuWorker *w, CpuThread *ct)
{
	RtLaunch *l = r->l;
	memset(ct, 0, sizeof *ct);
	ct->t.svc = &services;
	ct->t.rt = r;
	ct->t.args = l->args;
	ct->t.surfaces = l->surfaces;
	ct->t.nsurfaces = l->nsurfaces;
	ct->w = w;
	ct->run = r;
	for (int d = 0; d < 3; d++) {
		ct->t.local_size[d] = l->threads[d];
		ct->t.group_count[d] = l->groups[d];
	}
	ct->t.slm = w->slm;
	ct->t.slm_size = r->ki->slm_size;
	if (r->ki->checks_svm) {   /* the device lock keeps the table still */
		CpuDevice *c = r->dev->priv;
		ct->t.svm = c->svm.data;
		ct->t.nsvm = (uint32_t)c->svm.len;
	}
}

/* c = the coordinates of linear index i in an n[0] x n[1] x n[2] box.
 * The first row takes no division: a 1-D launch never divides (a 64-bit
 * division per id cost about 10% of spmv webbase/16's 2000 short threads,
 * 2026-11-28). */
static void unflatten(uint64_t i, const uint32_t n[3], uint32_t c[3])
{
	if (i < n[0]) {
		c[0] = (uint32_t)i, c[1] = c[2] = 0;
		return;
	}
	uint64_t q = i / n[0];
	c[0] = (uint32_t)(i - q * n[0]);
	c[1] = (uint32_t)(q % n[1]);
	c[2] = (uint32_t)(q / n[1]);
}

/* Steps local ids c to the group's next thread (x fastest). */
static void next_local(uint32_t c[3], const uint32_t n[3])
{
	if (++c[0] < n[0])
		return;
	c[0] = 0;
	if (++c[1] < n[1])
		return;
	c[1] = 0;
	c[2]++;
}

/* Gives the thread group ids g, local ids lid and linear id tid. */
static void set_ids(CpuThread *ct, const uint32_t g[3], const uint32_t lid[3], uint64_t tid)
{
	for (int d = 0; d < 3; d++) {
		ct->t.group_id[d] = g[d];
		ct->t.local_id[d] = lid[d];
	}
	/* a walker thread's coordinates; in group launches the group's, as the
	 * CUDA device gives (rt/cuda_abi.h), never a previous launch's */
	ct->t.origin[0] = g[0];
	ct->t.origin[1] = g[1];
	ct->tid = tid;
}

/* The body of every fiber, for ever: run the CM thread set up in its
 * CpuFiber, mark it done, switch back, and run the next one when resumed.
 * The worker is read from TLS once, at the start: a later group may resume
 * the fiber on another OS thread.  The fiber is found by index each time,
 * as ensure_fibers may move the array between launches. */
static void fiber_main(void)
{
	CpuWorker *w = tls_worker;
	uint32_t i = w->cur;
#ifdef RT_ASAN
	__sanitizer_finish_switch_fiber(NULL, &w->sched_stack, &w->sched_stack_size);
#endif
	for (;;) {
		CpuThread *th = &w->fibers[i].th;
		th->run->ki->entry(&th->t);
		w->fibers[i].state = FIB_DONE;
		fiber_yield(w, i);
	}
}

/* The first switch into a fiber: a ucontext on its stack, entered once;
 * control comes back through w->sched_jb, never through this frame. */
static __attribute__((unused)) void start_fiber(CpuFiber *f)
{
	long page = sysconf(_SC_PAGESIZE);
	ucontext_t from, to;
	getcontext(&to);
	to.uc_stack.ss_sp = f->map + page;
	to.uc_stack.ss_size = f->map_size - (size_t)page;
	to.uc_link = NULL;
	makecontext(&to, fiber_main, 0);
	swapcontext(&from, &to);
	abort();   /* fiber_main never returns */
}

static void switch_to_fiber(CpuWorker *w, uint32_t i)
{
	CpuFiber *f = &w->fibers[i];
	w->cur = i;
#ifdef RT_ASAN
	long page = sysconf(_SC_PAGESIZE);
	void *fake = NULL;
	__sanitizer_start_switch_fiber(&fake, f->map + page, f->map_size - (size_t)page);
#endif
	jump_to_fiber(w, f);
#ifdef RT_ASAN
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
}

static void thread_args(CpuRun *r, CpuWorker *w, CpuThread *ct);

/* Runs the T threads of group gi as fibers until all have finished.  A
 * walker launch (one thread an item) gets here only for a kernel too
 * large for the worker's stack: its per-thread arguments and done flag are
 * the single thread's. */
static void run_group_fibers(CpuRun *r, CpuWorker *w, uint64_t gi)
{
	uint32_t T = r->T, g[3], lid[3] = {0, 0, 0};
	size_t gsz = r->ki->globals_size;
	unflatten(gi, r->l->groups, g);
	for (uint32_t i = 0; i < T; i++, next_local(lid, r->l->threads)) {
		CpuFiber *f = &w->fibers[i];
		init_thread(r, w, &f->th);
		set_ids(&f->th, g, lid, gi * T + i);
		if (r->l->per_thread)
			thread_args(r, w, &f->th);
		f->th.fiber = i;
		f->th.t.globals = gsz ? w->globals + i * gsz : NULL;
		f->state = FIB_READY;
	}
	w->in_fibers = true;
	for (;;) {
		uint32_t live = 0;
		for (uint32_t i = 0; i < T; i++)
			if (w->fibers[i].state == FIB_READY)
				switch_to_fiber(w, i);
		for (uint32_t i = 0; i < T; i++)
			if (w->fibers[i].state == FIB_BARRIER) {
				w->fibers[i].state = FIB_READY;   /* everyone arrived */
				live++;
			}
		if (!live)
			break;
	}
	w->in_fibers = false;
	for (uint32_t i = 0; r->done && i < T; i++)
		atomic_store_explicit(&r->done[w->fibers[i].th.tid], 1, memory_order_release);
}

/* Points the thread's arguments with per-thread values at its own entry
 * of each table (walker launches only, so one thread per item). */
static void thread_args(CpuRun *r, CpuWorker *w, CpuThread *ct)
{
	RtLaunch *l = r->l;
	uint32_t n = r->ki->nargs;
	memcpy(w->targs, l->args, n * sizeof *w->targs);
	for (uint32_t i = 0; i < n; i++)
		if (l->per_thread[i])
			w->targs[i] = l->per_thread[i] + ct->tid * r->ki->args[i].size;
	ct->t.args = w->targs;
}

static bool ensure_targs(CpuWorker *w, uint32_t n)
{
	if (n <= w->targs_cap)
		return true;
	void **p = realloc(w->targs, n * sizeof *p);
	if (!p)
		return false;
	w->targs = p;
	w->targs_cap = n;
	return true;
}

/* Runs threads i0 .. i1-1 of group gi one after another on the worker's
 * stack, as ct: the worker's threads share one CpuThread, set up once per
 * launch (worker_job), as a kernel does not write its CmkThread and of
 * the runtime's fields only the ids and svc_poll's state change from
 * thread to thread. */
static void run_threads(CpuRun *r, CpuWorker *w, CpuThread *ct, uint64_t gi, uint32_t i0,
                        uint32_t i1)
{
	const CmkKernelInfo *ki = r->ki;
	uint32_t g[3], lid[3];
	unflatten(gi, r->l->groups, g);
	unflatten(i0, r->l->threads, lid);
	for (uint32_t i = i0; i < i1; i++, next_local(lid, r->l->threads)) {
		set_ids(ct, g, lid, gi * r->T + i);
		ct->poll_seen = 0;
		ct->polls = 0;
		if (r->l->per_thread)
			thread_args(r, w, ct);
		if (ki->globals_size) {
			memset(w->globals, 0, ki->globals_size);
			ct->t.globals = w->globals;
		}
		ki->entry(&ct->t);
		if (r->done)
			atomic_store_explicit(&r->done[ct->tid], 1, memory_order_release);
	}
}

/* Runs work item it (a group, or one walker thread). */
static void run_item(CpuRun *r, CpuWorker *w, CpuThread *ct, uint64_t it)
{
	const CmkKernelInfo *ki = r->ki;
	uint64_t gi = r->order ? r->order[it] : it;
	if (ki->slm_size)
		memset(w->slm, 0, ki->slm_size);
	if (r->fibers) {
		if (ki->globals_size)
			memset(w->globals, 0, (size_t)ki->globals_size * r->T);
		run_group_fibers(r, w, gi);
		return;
	}
	run_threads(r, w, ct, gi, 0, r->T);
}

/* Runs items [b, e).  Split items are single threads: each group's share
 * of the chunk runs in one run_threads. */
static void run_chunk(CpuRun *r, CpuWorker *w, CpuThread *ct, uint64_t b, uint64_t e)
{
	if (!r->split) {
		for (uint64_t it = b; it < e; it++)
			run_item(r, w, ct, it);
		return;
	}
	while (b < e) {
		uint64_t gi = b / r->T;
		uint32_t i0 = (uint32_t)(b - gi * r->T);
		uint64_t n = r->T - i0 < e - b ? r->T - i0 : e - b;
		run_threads(r, w, ct, gi, i0, i0 + (uint32_t)n);
		b += n;
	}
}

static void worker_job(void *ctx, int id)
{
	CpuRun *r = ctx;
	CpuWorker *w = &r->workers[id];
	tls_worker = w;
	size_t gcount = r->fibers ? r->T : 1;
	bool ok = (!r->ki->slm_size || grow(&w->slm, &w->slm_cap, r->ki->slm_size)) &&
	          (!r->ki->globals_size ||
	           grow(&w->globals, &w->globals_cap, r->ki->globals_size * gcount)) &&
	          (!r->fibers || ensure_fibers(w, r->T, r->stack)) &&
	          (!r->l->per_thread || ensure_targs(w, r->ki->nargs + 1));
	if (!ok) {
		record_fault(r, 0, "out of memory for thread stacks, SLM or globals");
		return;
	}
	CpuThread ct;
	init_thread(r, w, &ct);
	for (;;) {
		uint64_t b = atomic_fetch_add(&r->next, r->chunk);
		if (b >= r->nitems)
			break;
		run_chunk(r, w, &ct, b, b + r->chunk < r->nitems ? b + r->chunk : r->nitems);
	}
}

/* ---- launch set-up ---- */

/* Orders walker threads so that each one's dependencies come first. */
static uint32_t *walker_order(RtLaunch *l)
{
	uint32_t w = l->width, h = l->height;
	uint64_t n = (uint64_t)w * h, kmax;
	int kx = 1, ky = 1;
	switch (l->dep) {
	case CMETAL_DEP_WAVEFRONT26: ky = 2; break;
	case CMETAL_DEP_HORIZONTAL: ky = 0; break;
	case CMETAL_DEP_VERTICAL: kx = 0; break;
	default: break;
	}
	kmax = (uint64_t)kx * (w - 1) + (uint64_t)ky * (h - 1) + 1;
	uint32_t *order = malloc(n * sizeof *order);
	uint64_t *start = calloc(kmax + 1, sizeof *start);
	if (!order || !start) {
		free(order);
		free(start);
		return NULL;
	}
	for (uint32_t y = 0; y < h; y++)          /* counting sort by key */
		for (uint32_t x = 0; x < w; x++)
			start[(uint64_t)kx * x + (uint64_t)ky * y + 1]++;
	for (uint64_t k = 1; k <= kmax; k++)
		start[k] += start[k - 1];
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++)
			order[start[(uint64_t)kx * x + (uint64_t)ky * y]++] = y * w + x;
	free(start);
	return order;
}

/* Merges the workers' printf records in (thread id, order) order. */
static int cmp_print(const void *a, const void *b)
{
	const CpuPrint *p = a, *q = b;
	if (p->tid != q->tid)
		return p->tid < q->tid ? -1 : 1;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

static void collect_printf(CpuRun *r, int nworkers)
{
	VEC(CpuPrint) all = {0};
	for (int i = 0; i < nworkers; i++)
		for (int j = 0; j < r->workers[i].prints.len; j++)
			vec_push(&all, r->workers[i].prints.data[j]);
	if (all.len > 1)
		qsort(all.data, (size_t)all.len, sizeof *all.data, cmp_print);
	for (int i = 0; i < all.len; i++)
		buf_putn(&r->l->printf_out, all.data[i].text->data + all.data[i].off, all.data[i].len);
	vec_free(&all);
}

/* The stack a CM thread of ki gets on a fiber: twice the C back end's
 * estimate of its frame (the margin is cheap: stacks are touched only as
 * deep as used), at least FIBER_STACK, rounded to 64 KB. */
static size_t thread_stack(const CmkKernelInfo *ki)
{
	size_t s = (size_t)ki->frame_size * 2;
	s = s < FIBER_STACK ? FIBER_STACK : s;
	return (s + 0xffff) & ~(size_t)0xffff;
}

cm_status cpu_run(cmetal_device *dev, RtLaunch *l)
{
	CpuDevice *c = dev->priv;
	CpuRun r = {.dev = dev, .l = l, .ki = l->info, .workers = c->workers};
	r.T = l->threads[0] * l->threads[1] * l->threads[2];
	r.nitems = (uint64_t)l->groups[0] * l->groups[1] * l->groups[2];
	r.stack = thread_stack(r.ki);
	if (r.stack > c->stack_max)
		return rt_fail(CM_OUT_OF_RANGE, "kernel '%s' may need %zu MB of stack per CM thread "
		               "(twice its C frame as the C back end estimates it), above the CPU "
		               "device's limit of %zu MB ($CMETAL_CPU_STACK_MAX_MB); shrink its "
		               "live vectors or build it optimized (without -g)",
		               r.ki->name, r.stack >> 20, c->stack_max >> 20);
	r.fibers = (r.T > 1 && r.ki->uses_barrier) || r.ki->frame_size > INLINE_FRAME;
	pthread_mutex_init(&r.fault_mu, NULL);
	bool deps = l->kind == RT_LAUNCH_WALKER && l->dep != CMETAL_DEP_NONE;
	r.split = !r.fibers && r.T > 1 && !r.ki->slm_size && !deps;
	if (r.split)
		r.nitems *= r.T;
	if (deps) {
		r.order = walker_order(l);
		r.done = calloc(r.nitems, 1);
		if (!r.order || !r.done) {
			free(r.order);
			free((void *)r.done);
			pthread_mutex_destroy(&r.fault_mu);
			return rt_fail(CM_OUT_OF_MEMORY, "out of memory for a %ux%u thread space",
			               l->width, l->height);
		}
	}
	uint64_t per = r.nitems / ((uint64_t)c->pool.n * 8);
	r.chunk = deps || per < 1 ? 1 : per > 256 ? 256 : (uint32_t)per;
	for (int i = 0; i < c->pool.n; i++) {
		c->workers[i].prints.len = 0;
		c->workers[i].text.len = 0;
	}
	if (r.nitems == 1)   /* waking the pool would cost more than the launch */
		worker_job(&r, 0);
	else
		cpu_pool_run(&c->pool, worker_job, &r);
	collect_printf(&r, c->pool.n);
	free(r.order);
	free((void *)r.done);
	pthread_mutex_destroy(&r.fault_mu);
	return CM_SUCCESS;
}
