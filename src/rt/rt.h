/* rt.h — the runtime's internal header: the objects behind the public
 * handles of include/cmetal.h and the device vtable (RtDeviceOps) a device
 * (cpu/, later cuda/) implements.  The common layer (the files directly in
 * src/rt/) checks every argument and produces every user error; a device
 * only moves memory, loads programs and runs launches. */
#ifndef CMETAL_RT_H
#define CMETAL_RT_H

#include <pthread.h>
#include <stdbool.h>

#include "cmetal.h"
#include "rt/cmk_abi.h"
#include "util/util.h"

/* handle.c: what a handle names (see handle.c for the design). */
typedef enum {
	RT_OBJ_DEVICE = 1,
	RT_OBJ_PROGRAM,
	RT_OBJ_KERNEL,
	RT_OBJ_MEM,
	RT_OBJ_TASK,
	RT_OBJ_EVENT,
} RtObjKind;
/* The head of every object: its reference count and its destructor. */
typedef struct RtObj {
	_Atomic int refs;           /* the handle's + one per holder and call */
	RtObjKind kind;
	void (*destroy)(struct RtObj *o);
} RtObj;
void rt_obj_init(RtObj *o, RtObjKind kind, void (*destroy)(RtObj *));
/* A new handle for o (which keeps the reference rt_obj_init gave it);
 * NULL when out of memory. */
void *rt_handle_new(RtObj *o);
/* The object h names with a reference for the caller, or NULL when h is
 * not a live handle of that kind. */
RtObj *rt_handle_get(const void *h, RtObjKind kind);
/* Ends handle h: the object (whose handle reference the caller now owns
 * and must put), or NULL when h is not a live handle of that kind. */
RtObj *rt_handle_take(const void *h, RtObjKind kind);
/* A *_release call: ends handle h of kind, then drops held (the reference
 * the caller's get took) and the handle's; another thread's release of h
 * in between is CM_INVALID_HANDLE naming what. */
cm_status rt_handle_release(const void *h, RtObjKind kind, RtObj *held, const char *what);
void rt_ref(RtObj *o);
void rt_put(RtObj *o);               /* NULL is ignored */
/* Tests and benchmarks that look inside: the object behind a live handle
 * (no reference taken), or NULL. */
void *rt_object_of(const void *h);

/* error.c */
/* Records the message (this thread's last error) and returns s. */
cm_status rt_fail(cm_status s, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* A debug line "cmetal: ..." on stderr when $CMETAL_LOG is set (non-empty,
 * not "0"): the runtime's choices (thread mapping, register caps). */
void rt_log(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* occupancy.c: cmetal_kernel_occupancy on a resolved kernel (group launches
 * with threads {0, 0, 0} take its auto_group). */
cm_status rt_kernel_occupancy(cmetal_kernel *k, uint32_t group_threads, cmetal_occupancy *out);
/* Limits of the CM thread space. */
#define RT_MAX_GROUP_THREADS 1024u
/* SLM per group: the most any device accepts, an H100's or H200's opt-in
 * shared memory per CTA (the CPU device's limit; a CUDA device's is its
 * own, CMETAL_DEVICE_MAX_SLM) */
#define RT_MAX_SLM (227u * 1024u)
#define RT_MAX_WALKER 65535u

typedef struct RtDeviceOps RtDeviceOps;

/* Turns CM source into C (the in-process compiler); tests may replace it
 * per device.  path names the source in diagnostics and #line directives
 * (under -g a copy of the source saved there, so that a debugger can show
 * it; NULL: "program.cm").  deps gets the files the source #included
 * (PPOptions.deps), which the cache key covers.  Returns false with
 * diagnostics in log on failure. */
typedef bool (*RtTranslateFn)(const char *source, const char *path, const char *options,
                              Buf *c_out, Buf *deps, Buf *log);

struct cmetal_device {
	RtObj obj;
	pthread_mutex_t lock;       /* held around every ops call but a CPU
	                             * build (ops->concurrent_build) */
	_Atomic int nobjects;       /* live programs, memory objects, tasks */
	const RtDeviceOps *ops;
	void *priv;                 /* the device's own state */
	char name[64];
	cmetal_printf_fn printf_fn;
	void *printf_user;
	RtTranslateFn translate;    /* default: rt_translate_cm (compile.c) */
	/* cmetal_device_info's answers, indexed by cmetal_device_attr; the
	 * device's open fills them */
	uint64_t info[CMETAL_DEVICE_HOST_SVM + 1];
};

/* Memory objects: the three public kinds share one layout. */
typedef enum { RT_MEM_BUFFER, RT_MEM_SURF2D, RT_MEM_SVM } RtMemKind;
typedef struct RtMem {
	RtObj obj;
	RtMemKind kind;
	cmetal_device *dev;
	size_t size;                /* bytes */
	unsigned char *host;        /* CPU: the memory itself */
	bool host_owned;            /* false: aliases the user's memory */
	uint64_t addr;              /* SVM device address */
	uint32_t width, height;     /* 2D: pixels */
	uint32_t pitch, bpp, format;/* 2D: bytes per row, per pixel; CMK_FMT_* */
	bool borrowed;              /* cmetal_*_wrap: the caller's memory at addr,
	                             * never freed by the device */
	void *priv;                 /* device-private */
} RtMem;
struct cmetal_buffer { RtMem m; };
struct cmetal_surface2d { RtMem m; };
struct cmetal_svm { RtMem m; };

struct cmetal_program {
	RtObj obj;
	cmetal_device *dev;
	uint32_t nkernels;
	const CmkKernelInfo *kernels;/* the program's metadata (CPU: in the .so) */
	char *log;                  /* build diagnostics, malloc'd ("" if none) */
	void *priv;                 /* device-private (CPU: dlopen handle) */
};

/* One bound argument value as the user set it. */
typedef struct RtArg {
	bool set;
	RtMem *mem;                 /* surfaces and SVM via handle (held) */
	uint64_t svm_offset;
	unsigned char *value;       /* info->size bytes (scalars, vectors, SVM) */
	unsigned char *per_thread;  /* malloc'd: nthreads values of info->size
	                             * bytes (cmetal_kernel_set_arg_per_thread),
	                             * NULL when one value serves every thread */
	uint32_t nthreads;
} RtArg;

struct cmetal_kernel {
	RtObj obj;
	pthread_mutex_t lock;       /* the arguments */
	cmetal_program *prog;       /* held */
	const CmkKernelInfo *info;
	uint32_t index;             /* in prog->kernels */
	RtArg *args;                /* info->nargs */
	Arena *arena;               /* argument storage */
};

/* One entry of a task: a kernel, its captured arguments and its space. */
typedef enum { RT_LAUNCH_WALKER, RT_LAUNCH_GROUPS, RT_LAUNCH_SYNC } RtLaunchKind;
typedef struct RtLaunch {
	RtLaunchKind kind;
	cmetal_kernel *kernel;      /* held */
	const CmkKernelInfo *info;
	RtMem **held;               /* nargs: the memory of each surface and
	                             * SVM argument, held, or NULL */
	void **args;                /* args[i] -> value of argument i */
	unsigned char **per_thread; /* NULL, or per argument NULL or a table:
	                             * thread t reads args_size bytes at
	                             * per_thread[i] + t * info->args[i].size */
	uint32_t nper_thread;       /* arguments with a table */
	CmkSurface *surfaces;       /* slot i = argument i (when a surface) */
	uint32_t nsurfaces;
	uint32_t width, height;     /* walker */
	cmetal_dependency dep;
	uint32_t groups[3], threads[3];
	bool timed;                 /* an event wants this launch's time */
	/* results filled by the device's run */
	Buf printf_out;             /* in linear thread id order */
	char fault[512];            /* "" when no fault */
	double device_ms;           /* timed: kernel time from device events;
	                             * < 0: the device has none (host clock) */
} RtLaunch;

struct cmetal_task {
	RtObj obj;
	pthread_mutex_t lock;       /* entries; one run at a time */
	cmetal_device *dev;         /* held */
	Arena *arena;               /* captured arguments */
	VEC(RtLaunch *) entries;
};

struct cmetal_event {
	RtObj obj;
	cm_status status;
	double start_ms, end_ms;
};

/* What a device implements.  Every function gets valid, checked objects;
 * failures return a status after calling rt_fail. */
struct RtDeviceOps {
	const char *kind;           /* "cpu", "cuda" */
	bool concurrent_build;      /* program_build/load may run without the
	                             * device lock (they touch no device state) */
	void (*close)(cmetal_device *dev);
	/* memory: fill m->host (CPU) / m->addr and zero the contents */
	cm_status (*mem_alloc)(cmetal_device *dev, RtMem *m);
	cm_status (*mem_alias)(cmetal_device *dev, RtMem *m, void *host);
	void (*mem_free)(cmetal_device *dev, RtMem *m);
	cm_status (*mem_write)(cmetal_device *dev, RtMem *m, size_t off,
	                       const void *src, size_t n);
	cm_status (*mem_read)(cmetal_device *dev, RtMem *m, size_t off,
	                      void *dst, size_t n);
	cm_status (*mem_map)(cmetal_device *dev, RtMem *m, void **ptr);
	cm_status (*mem_unmap)(cmetal_device *dev, RtMem *m);
	/* programs: fill p->nkernels, p->kernels, p->log */
	cm_status (*program_load)(cmetal_device *dev, cmetal_program *p,
	                          const char *path);
	cm_status (*program_build)(cmetal_device *dev, cmetal_program *p,
	                           const char *source, const char *options);
	void (*program_free)(cmetal_device *dev, cmetal_program *p);
	/* cmetal_kernel_occupancy for group_threads (checked: 1 .. the
	 * device's maximum); NULL: the CPU device's answer */
	cm_status (*occupancy)(cmetal_device *dev, cmetal_kernel *k, uint32_t group_threads,
	                       cmetal_occupancy *out);
	/* runs one launch to completion (fills l->printf_out and l->fault) */
	cm_status (*run)(cmetal_device *dev, RtLaunch *l);
	/* optional, replaces run: runs ls[0], ls[1], ... (sync entries
	 * included) in order as one batch and returns when the batch is
	 * complete; the device decides where a batch ends (at most n entries,
	 * at least one).  *done gets the entries that completed, with their
	 * results filled as run fills them; on an error (rt_fail) ls[*done] is
	 * the entry that failed, or the batch failed as a whole (*done 0), and
	 * the task stops.  NULL: the common layer calls run once per entry. */
	cm_status (*run_batch)(cmetal_device *dev, RtLaunch **ls, uint32_t n, uint32_t *done);
};

/* device.c */
double rt_now_ms(void);
/* *dev gets the device handle h names, with a reference to put. */
cm_status rt_get_device(cmetal_device *h, cmetal_device **dev);
/* A new object of dev counts (and holds) the device; rt_device_drop ends
 * that when the object is destroyed. */
void rt_device_hold(cmetal_device *dev);
void rt_device_drop(cmetal_device *dev);
/* ops calls under the device lock */
void rt_dev_lock(cmetal_device *dev);
void rt_dev_unlock(cmetal_device *dev);

/* memory.c */
/* *m gets the memory object of kind that h names, with a reference. */
cm_status rt_get_mem(const void *h, RtMemKind kind, RtMem **m);

/* program.c */
cm_status rt_get_kernel(cmetal_kernel *h, cmetal_kernel **k);

/* compile.c */
/* The default translator: compile_to(..., "c") when the compiler is linked
 * in, else a CM_COMPILER_UNAVAILABLE-style failure. */
bool rt_translate_cm(const char *source, const char *path, const char *options,
                     Buf *c_out, Buf *deps, Buf *log);
bool rt_compiler_available(void);
/* (cuda) rt_translate_cm for any target of compile_to ("c", "ptx"). */
bool rt_compile_cm(const char *source, const char *options, const char *target, Buf *out,
                   Buf *log);
/* Test hook: replace the CM -> C step of a device (NULL restores it). */
void rt_device_set_translator(cmetal_device *dev, RtTranslateFn fn);

/* cache.c */
/* Loads the kernel library at path into p (the device's program_load). */
typedef cm_status (*RtLoadFn)(cmetal_device *dev, cmetal_program *p, const char *path);
/* Builds CM source into a kernel library through the cache directory and
 * loads it with load: a hit compiles nothing; a damaged entry is rebuilt;
 * an untrusted directory is not used (see cache.c).  log gets diagnostics
 * and notes. */
cm_status rt_cache_build(cmetal_device *dev, cmetal_program *p, const char *source,
                         const char *options, RtLoadFn load, Buf *log);

/* cpu/cpu.c */
cm_status rt_cpu_open(cmetal_device *dev);

/* cuda/cuda.c: opens CUDA device `ordinal` (fails with a clear message when
 * there is no driver or no device) */
cm_status rt_cuda_open(cmetal_device *dev, int ordinal);

#endif
