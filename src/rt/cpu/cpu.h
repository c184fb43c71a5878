/* cpu.h — the CPU device's internal header: the OS thread pool (pool.c),
 * per-worker state with its fibers (sched.c), and the device (cpu.c). */
#ifndef CMETAL_RT_CPU_H
#define CMETAL_RT_CPU_H

#include <setjmp.h>
#include <stdatomic.h>
#include <ucontext.h>

#include "rt/rt.h"

/* pool.c */
/* A fixed set of OS threads that run one job at a time: fn(ctx, worker)
 * is called on the caller's thread (worker 0) and on every pool thread that
 * wakes before the caller's call returns, at most once each; fn must take
 * its work from something shared, as any of them may find none left. */
typedef void (*CpuJobFn)(void *ctx, int worker);
typedef struct CpuPool {
	pthread_mutex_t mu;
	pthread_cond_t start, done;
	int n;                      /* workers, the caller included */
	uint64_t spin_ns;           /* spin before sleeping ($CMETAL_CPU_SPIN_US) */
	pthread_t *threads;         /* n - 1, started on first use */
	bool started, quit;
	_Atomic uint64_t gen;       /* job generation (and quit) */
	_Atomic uint64_t job;       /* generation, closed bit, threads inside
	                             * (pool.c: job_enter) */
	CpuJobFn fn;
	void *ctx;
} CpuPool;
void cpu_pool_init(CpuPool *p, int n);
void cpu_pool_run(CpuPool *p, CpuJobFn fn, void *ctx);
void cpu_pool_fini(CpuPool *p);

/* sched.c */
struct CpuRun;
struct CpuWorker;

/* One CM thread; the kernel sees the CmkThread at its start. */
typedef struct CpuThread {
	CmkThread t;
	struct CpuWorker *w;
	struct CpuRun *run;
	uint64_t tid;               /* linear thread id in the launch */
	uint32_t fiber;             /* index in w->fibers when in fiber mode */
	uint64_t poll_seen;         /* svc_poll: the last values polled, */
	uint32_t polls;             /* and how many polls in a row read them */
} CpuThread;

enum { FIB_READY, FIB_BARRIER, FIB_DONE };
typedef struct CpuFiber {
	jmp_buf jb;                 /* where the fiber is parked */
	bool started;               /* has run fiber_main on its stack */
	ucontext_t *uc;             /* ASan builds only: they swapcontext */
	unsigned char *map;         /* mmap'd: guard page + stack */
	size_t map_size;            /* the guard page included */
	int state;
	CpuThread th;
} CpuFiber;

typedef struct {
	uint64_t tid;
	uint32_t seq;               /* order within the worker */
	size_t off, len;            /* in the worker's text */
	Buf *text;
} CpuPrint;

typedef struct CpuWorker {
	int id;
	CpuFiber *fibers;           /* stacks cached across launches */
	uint32_t nfibers;
	jmp_buf sched_jb;           /* the group scheduler, while a fiber runs */
	ucontext_t sched_uc;        /* the same in ASan builds */
	uint32_t cur;               /* running fiber */
	bool in_fibers;
	unsigned char *slm, *globals;
	size_t slm_cap, globals_cap;
	void **targs;               /* per-thread arguments: the running
	                             * thread's argument pointers */
	uint32_t targs_cap;
	VEC(CpuPrint) prints;
	Buf text;
	const void *sched_stack;    /* ASan fiber bookkeeping */
	size_t sched_stack_size;
} CpuWorker;

typedef struct CpuDevice {
	CpuPool pool;
	size_t stack_max;           /* bytes of stack a CM thread may get (sched.c) */
	CpuWorker *workers;         /* pool.n */
	VEC(CmkSvmRange) svm;       /* live SVM allocations, sorted by base
	                             * (changed under the device lock): what a
	                             * checking build's SVM accesses may touch */
} CpuDevice;

cm_status cpu_run(cmetal_device *dev, RtLaunch *l);
void cpu_worker_free(CpuWorker *w);

#endif
