/* cpu.h — the CPU device's internal header: the OS thread pool (pool.c),
 * per-worker state with its fibers (sched.c), and the device (cpu.c). */
#ifndef CMETAL_RT_CPU_H
#define CMETAL_RT_CPU_H

#include <ucontext.h>

#include "rt/rt.h"

/* pool.c */
/* A fixed set of OS threads that run one job at a time: fn(ctx, worker)
 * is called once on every worker (worker 0 is the caller's thread). */
typedef void (*CpuJobFn)(void *ctx, int worker);
typedef struct CpuPool {
	pthread_mutex_t mu;
	pthread_cond_t start, done;
	int n;                      /* workers, the caller included */
	pthread_t *threads;         /* n - 1, started on first use */
	bool started, quit;
	uint64_t gen;               /* job generation */
	int running;                /* pool threads still in the job */
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
} CpuThread;

enum { FIB_READY, FIB_BARRIER, FIB_DONE };
typedef struct CpuFiber {
	ucontext_t ctx;
	unsigned char *map;         /* mmap'd: guard page + stack */
	size_t map_size;
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
	ucontext_t sched;           /* the group scheduler's context */
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
	CpuWorker *workers;         /* pool.n */
	VEC(CmkSvmRange) svm;       /* live SVM allocations, sorted by base
	                             * (changed under the device lock): what a
	                             * checking build's SVM accesses may touch */
} CpuDevice;

cm_status cpu_run(cmetal_device *dev, RtLaunch *l);
void cpu_worker_free(CpuWorker *w);

#endif
