/* cuda.h — the CUDA device's internal header: the slice of the CUDA driver
 * API it uses (declared here from the public driver API documentation and
 * loaded with dlopen("libcuda.so.1"), so building cmetal needs no CUDA
 * toolkit), and the device's state, sectioned by the file implementing it.
 *
 * How RtMem fields are used by this device:
 *   m->addr   the device address (CUdeviceptr) of the memory;
 *   m->host   the same address as a pointer: launch.c copies it into
 *             CmkSurface.base, and our run turns it back into the
 *             CudaSurface.base of rt/cuda_abi.h.  Never dereferenced.
 *   m->priv   a CudaMem: the user's memory for host-aliasing buffers, the
 *             host copy while a buffer is mapped.
 * Host-aliasing buffers (cmetal_buffer_create_host) are a device copy kept
 * in step at launch boundaries: host -> device before every launch that
 * binds them, device -> host after it (and the host waits for that copy
 * before anything else runs).  Between launches the user's memory is the
 * truth (buffer read/write/map go straight to it).
 */
#ifndef CMETAL_RT_CUDA_H
#define CMETAL_RT_CUDA_H

#include "rt/cuda_abi.h"
#include "rt/rt.h"
#include "target/ptx/occupancy.h"

/* ---- the driver API (types and values from the CUDA driver API docs) ---- */

typedef int CUresult;                    /* CUDA_SUCCESS = 0 */
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;  /* 64-bit builds only */
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_PTX = 218,
	CUDA_ERROR_NOT_FOUND = 500,
};
enum {                                   /* CUjit_option */
	CU_JIT_MAX_REGISTERS = 0,
	CU_JIT_INFO_LOG_BUFFER = 3,
	CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
	CU_JIT_ERROR_LOG_BUFFER = 5,
	CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
	CU_JIT_LOG_VERBOSE = 12,
	CU_JIT_GENERATE_LINE_INFO = 13,
};
enum {                                   /* CUdevice_attribute */
	CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
	CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
	CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
	CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};
enum {                                   /* CUfunction_attribute */
	CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
	CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
	CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
	CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
	CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};
enum { CU_LIMIT_PRINTF_FIFO_SIZE = 1 };  /* CUlimit */
enum { CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4 };  /* CUlaunchAttributeID */

/* cuLaunchKernelEx's launch attribute: an id padded to 8 bytes, then a
 * 64-byte union of which we use the cluster dimensions. */
typedef struct CUlaunchAttribute {
	int id;
	char pad[8 - sizeof(int)];
	union {
		char pad[64];
		struct { unsigned x, y, z; } clusterDim;
	} value;
} CUlaunchAttribute;

/* cuLaunchKernelEx's configuration. */
typedef struct CUlaunchConfig {
	unsigned gridDimX, gridDimY, gridDimZ;
	unsigned blockDimX, blockDimY, blockDimZ;
	unsigned sharedMemBytes;
	CUstream hStream;
	CUlaunchAttribute *attrs;
	unsigned numAttrs;
} CUlaunchConfig;
enum { CU_MEMHOSTALLOC_DEVICEMAP = 2 };

/* The X-macro of every driver entry point used: X(field, symbol, return
 * type, parameters).  Symbols are the versioned names the driver exports
 * (cuMemAlloc_v2 ...), as cuda.h maps the plain names to them. */
#define CU_FUNCS(X)                                                                  \
	X(Init, "cuInit", (unsigned flags))                                          \
	X(DriverGetVersion, "cuDriverGetVersion", (int *v))                          \
	X(GetErrorString, "cuGetErrorString", (CUresult e, const char **s))          \
	X(GetErrorName, "cuGetErrorName", (CUresult e, const char **s))              \
	X(DeviceGetCount, "cuDeviceGetCount", (int *n))                              \
	X(DeviceGet, "cuDeviceGet", (CUdevice *d, int ordinal))                      \
	X(DeviceGetName, "cuDeviceGetName", (char *name, int len, CUdevice d))       \
	X(DeviceGetAttribute, "cuDeviceGetAttribute", (int *v, int attr, CUdevice d)) \
	X(DeviceTotalMem, "cuDeviceTotalMem_v2", (size_t *bytes, CUdevice d))        \
	X(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext *c, CUdevice d)) \
	X(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice d))     \
	X(CtxSetCurrent, "cuCtxSetCurrent", (CUcontext c))                           \
	X(CtxSynchronize, "cuCtxSynchronize", (void))                                \
	X(CtxSetLimit, "cuCtxSetLimit", (int limit, size_t value))                   \
	X(MemAlloc, "cuMemAlloc_v2", (CUdeviceptr *p, size_t n))                     \
	X(MemFree, "cuMemFree_v2", (CUdeviceptr p))                                  \
	X(MemHostAlloc, "cuMemHostAlloc", (void **p, size_t n, unsigned flags))      \
	X(MemFreeHost, "cuMemFreeHost", (void *p))                                   \
	X(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2",                   \
	  (CUdeviceptr *d, void *p, unsigned flags))                                 \
	X(MemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr d, const void *s, size_t n))   \
	X(MemcpyDtoH, "cuMemcpyDtoH_v2", (void *d, CUdeviceptr s, size_t n))         \
	X(MemcpyDtoD, "cuMemcpyDtoD_v2", (CUdeviceptr d, CUdeviceptr s, size_t n))   \
	X(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2",                                   \
	  (CUdeviceptr d, const void *s, size_t n, CUstream st))                     \
	X(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2",                                   \
	  (void *d, CUdeviceptr s, size_t n, CUstream st))                           \
	X(MemsetD8, "cuMemsetD8_v2", (CUdeviceptr d, unsigned char v, size_t n))     \
	X(MemsetD8Async, "cuMemsetD8Async", (CUdeviceptr d, unsigned char v, size_t n, \
	                                     CUstream st))                           \
	X(ModuleLoadDataEx, "cuModuleLoadDataEx", (CUmodule *m, const void *image,   \
	  unsigned nopt, int *opts, void **vals))                                    \
	X(ModuleUnload, "cuModuleUnload", (CUmodule m))                              \
	X(ModuleGetFunction, "cuModuleGetFunction", (CUfunction *f, CUmodule m,      \
	                                             const char *name))              \
	X(FuncGetAttribute, "cuFuncGetAttribute", (int *v, int attr, CUfunction f))  \
	X(LaunchKernel, "cuLaunchKernel", (CUfunction f, unsigned gx, unsigned gy,   \
	  unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shmem,        \
	  CUstream st, void **params, void **extra))                                 \
	X(StreamCreate, "cuStreamCreate", (CUstream *st, unsigned flags))            \
	X(StreamDestroy, "cuStreamDestroy_v2", (CUstream st))                        \
	X(StreamSynchronize, "cuStreamSynchronize", (CUstream st))                   \
	X(EventCreate, "cuEventCreate", (CUevent *e, unsigned flags))                \
	X(EventDestroy, "cuEventDestroy_v2", (CUevent e))                            \
	X(EventRecord, "cuEventRecord", (CUevent e, CUstream st))                    \
	X(EventSynchronize, "cuEventSynchronize", (CUevent e))                       \
	X(EventElapsedTime, "cuEventElapsedTime", (float *ms, CUevent a, CUevent b))

/* driver.c */
typedef struct CuDriver {
	void *lib;                  /* dlopen handle, kept for the process */
	int version;                /* cuDriverGetVersion: 12040 = 12.4 */
#define CU_FIELD(name, sym, params) CUresult (*name) params;
	CU_FUNCS(CU_FIELD)
#undef CU_FIELD
	/* CUDA 12.0 and later (cluster launches); NULL on older drivers */
	CUresult (*LaunchKernelEx)(const CUlaunchConfig *cfg, CUfunction f, void **params,
	                           void **extra);
	/* to launch with more than 48 KB of dynamic shared memory; may be NULL */
	CUresult (*FuncSetAttribute)(CUfunction f, int attr, int value);
} CuDriver;

/* Loads libcuda.so.1 and calls cuInit once per process; NULL after an
 * rt_fail (CM_DEVICE_NOT_FOUND) that says why. */
const CuDriver *cu_driver(void);
/* "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for a result. */
const char *cu_errtext(CUresult r);
/* rt_fail(status, "<what>: <error text>") when r is not CUDA_SUCCESS. */
cm_status cu_fail(CUresult r, cm_status status, const char *what);

/* ---- the device ---- */

typedef struct CudaMem {
	void *user;                 /* host-aliasing buffers: the user's memory */
	void *mapped;               /* device buffers while mapped: a host copy */
	struct CudaMem *next_alias; /* the device's list of host-aliasing buffers */
	RtMem *m;
} CudaMem;

/* Launches enqueued between two synchronizations at most (batch.c): the
 * fault record has a slot for each, and the timing events a pair. */
#define CUDA_BATCH_MAX 64u

/* Memory freed once the batch's launches are done with it (batch.c). */
typedef struct CudaDefer {
	CUdeviceptr dev;            /* cuMemFree, or 0 */
	void *host;                 /* cuMemFreeHost, or NULL */
} CudaDefer;

typedef struct CudaDevice {
	const CuDriver *cu;
	CUdevice dev;
	CUcontext ctx;
	CUstream stream;
	int ordinal, cc_major, cc_minor, nsm;
	pthread_mutex_t run_mu;     /* one batch of launches at a time (shared
	                               launch state, events, staging) */
	bool lost;                  /* a kernel faulted: the context is unusable */
	char lost_why[256];
	CudaMem *aliases;           /* host-aliasing buffers, newest first */
	/* the fault records (rt/cuda_abi.h "Faults"), one per launch of a
	 * batch (CUDA_BATCH_MAX): pinned host memory the GPU writes through a
	 * mapped address (fault_dev); when mapping fails, device memory copied
	 * back into fault_host at the end of the batch */
	volatile uint64_t *fault_host;
	CUdeviceptr fault_dev;
	bool fault_mapped;
	/* cm_wait scratch: ticket (4 bytes, padded to 256) then one flag per
	 * thread; grown on demand, never shrunk */
	CUdeviceptr wait_mem;
	size_t wait_cap;
	/* the printf buffer (rt/cuda_abi.h "printf"): a CudaPrintf head and
	 * printf_cap bytes of records; made by the first launch of a kernel
	 * that prints, doubled (to a limit) after a launch overflows it */
	CUdeviceptr printf_mem;
	size_t printf_cap;
	unsigned char *printf_host;  /* host copy of the records (malloc'd) */
	CUevent ev[2 * CUDA_BATCH_MAX]; /* start/end of timed launch i of a
	                               batch: ev[2i], ev[2i + 1]; made lazily */
	/* batch.c: the host side of the uploads of a batch (launch blocks)
	 * is copied into pinned staging memory that stays untouched until the
	 * batch's synchronization; memory replaced during a batch (a grown
	 * buffer, a grown staging area) is freed after it */
	unsigned char *stage;
	size_t stage_cap, stage_used;
	CudaDefer *defer;
	uint32_t ndefer, defer_cap;
	OccArch arch;               /* per-SM limits: the driver's attributes over
	                               the table of the compute capability */
} CudaDevice;

/* One printf call of a program (a "//@cmetal printf" metadata line). */
typedef struct CudaFormat {
	const char *text;           /* the format, unescaped */
	const char *kinds;          /* CUDA_PF_* letters, one per argument */
	uint32_t nargs;
} CudaFormat;

/* Per kernel of a program: what a launch needs, cached. */
typedef struct CudaKernel {
	CUfunction fn;
	void **params;              /* 1 + nargs pointers for cuLaunchKernel */
	CudaLaunchParam lparam;     /* what params[0] points at */
	CudaSurfaceParam *sparams;  /* per argument: a surface's .param, which
	                               params[1 + i] points at (rt/cuda_abi.h) */
	uint32_t param_surfaces;    /* the first this many surface arguments
	                               take a CudaSurfaceParam ("param_surfaces";
	                               UINT32_MAX: all) */
	CUdeviceptr block;          /* device copy of image: CudaLaunch, surfaces */
	unsigned char *image;       /* last uploaded launch block (host) */
	size_t image_len;           /* CUDA_L_BYTES + nargs * CUDA_S_BYTES */
	bool image_valid;           /* image is what block holds on the device */
	unsigned char *next;        /* this launch's block, built before upload */
	int regs, local_bytes;      /* cuFuncGetAttribute, for reports */
	int max_threads;            /* per CTA, as the kernel's registers allow */
	int shared_bytes;           /* static shared memory (the group's SLM) */
	uint32_t walker_warps;      /* thread-space launches: CM threads per
	                               CTA, chosen on first use (occupancy.c) */
	uint32_t raise_warps;       /* group launches of this many warps per CTA
	                               were decided (module.c cuda_raise_program): */
	struct CudaProgram *raise_prog; /* launched from this register-capped
	                               variant for occupancy; NULL: the program */
	bool uses_printf;           /* the kernel has printf calls */
	bool checks;                /* built with -fbounds-check: it may fault,
	                               and a task waits for it (batch.c) */
	bool split;                 /* its groups may run as several CTAs
	                               (metadata "split 1"; occupancy.c) */
	uint32_t split_noted[3];    /* the group shape whose split was logged */
	uint32_t scratch;           /* per-CM-thread SLM scratch bytes: dynamic
	                               shared memory of scratch * CM threads per CTA */
	uint32_t lanes;             /* lanes per CM thread: 32, or W when 32/W
	                               CM threads share a warp ("lanes W") */
	uint32_t dyn_slm;           /* the SLM in dynamic shared memory, rounded to
	                               16 ("dynamic_slm 1"); the scratch follows */
	uint32_t dyn_max;           /* dynamic shared memory the function allows */
	CUfunction narrow_fn;       /* NAME$narrow (target/ptx/variant.c): launched
	                               when an image argument's pixels are
	                               narrower than narrow_eb bytes; NULL: none */
	uint32_t narrow_eb;         /* metadata "narrow E" */
	int narrow_max_threads;     /* per CTA, as narrow_fn's registers allow */
	uint32_t narrow_dyn_max;    /* dyn_max of narrow_fn */
	bool wgmma;                 /* it has cm_wgmma ("wgmma 1"): groups of
	                               whole warpgroups only (launch.c) */
	const char *thread_args;    /* "2,3": arguments read from per-thread
	                               tables (metadata "thread_args"); NULL */
	CUdeviceptr targ_mem;       /* those tables on the device, grown on demand */
	size_t targ_cap;
	CUdeviceptr *targ_addr;     /* per argument: its table's address, which
	                               params[1 + i] then points at */
} CudaKernel;

/* A program built again with -fthread-args for one kernel's launches. */
typedef struct CudaVariant {
	char *key;                  /* "KERNEL:I,J" (malloc'd) */
	struct CudaProgram *prog;
	struct CudaVariant *next;
} CudaVariant;

typedef struct CudaProgram {
	Arena *arena;               /* metadata, names, kernel state */
	CUmodule mod;
	CmkKernelInfo *infos;       /* p->kernels */
	CudaKernel *ks;             /* parallel to infos */
	uint32_t n;
	CUdeviceptr blocks;         /* one allocation for every kernel's block */
	CudaFormat *fmts;           /* printf calls, by module-wide index */
	uint32_t nfmts;
	bool *prints;               /* per kernel: it has printf calls */
	bool *checks;               /* per kernel: built with -fbounds-check */
	bool *split;                /* per kernel: "split 1" */
	uint32_t *scratch;          /* per kernel: per-CM-thread scratch bytes */
	uint32_t *narrow;           /* per kernel: "narrow E" (0: none) */
	bool *dslm;                 /* per kernel: "dynamic_slm 1" */
	bool *wgmma;                /* per kernel: "wgmma 1" */
	uint32_t *lanes;            /* per kernel: lanes per CM thread */
	char *ptx;                  /* the module text (malloc'd), for tools */
	void *cubin;                /* loaded from a container: ptxas's output
	                               (malloc'd), tried before the PTX */
	size_t cubin_len;
	/* groups of more than 32 CM threads (rt/cuda_abi.h "Clusters") */
	bool cluster_mode;          /* this PTX has "//@cmetal cluster 1" */
	char *source, *options;     /* built from source: to build the cluster
	                               variant (malloc'd); NULL when loaded */
	struct CudaProgram *cluster;/* that variant, built by the first launch
	                               that needs it (module.c) */
	const char **targs;         /* per kernel: metadata "thread_args" list */
	uint32_t *psurf;            /* per kernel: metadata "param_surfaces" */
	CudaVariant *variants;      /* per-thread argument and register-cap variants */
	char **old_logs;            /* build logs replaced by longer ones (a
	                               register-cap variant's note), kept until
	                               the program goes: callers may hold them */
	uint32_t nold_logs;
} CudaProgram;

/* cuda.c */
/* Makes the device's context current on the calling OS thread (cheap when
 * it already is); fails when the context was lost to a fault. */
cm_status cuda_enter(CudaDevice *c);

/* binary.c: the container of `cmetal -c -t ptx` (rt/cuda_abi.h
 * "Binaries"); the pointers point into the data parsed. */
typedef struct {
	const char *ptx;            /* required */
	size_t ptx_len;
	const void *cubin;          /* NULL when there is none */
	size_t cubin_len;
	char arch[32];              /* the cubin's, "sm_90" */
} CudaBinary;
bool cuda_is_binary(const char *data, size_t len);
/* false with the reason in err when the container is damaged. */
bool cuda_binary_parse(const char *data, size_t len, CudaBinary *out, Buf *err);

/* module.c */
cm_status cuda_program_load(cmetal_device *dev, cmetal_program *p, const char *path);
cm_status cuda_program_build(cmetal_device *dev, cmetal_program *p, const char *source,
                             const char *options);
void cuda_program_free(cmetal_device *dev, cmetal_program *p);
/* The program to launch a group of more than 32 CM threads with: cp when
 * its PTX is in cluster mode, else the cluster variant, built from the
 * program's source on first use and cached; an rt_fail that says why
 * otherwise (a GPU before sm_90, a program loaded from plain PTX, a build
 * error). */
cm_status cuda_cluster_program(CudaDevice *c, CudaProgram *cp, CudaProgram **out);
/* The program to launch kernel `kernel` of cp with the per-thread
 * arguments of list ("2,3", "" for none): cp when its PTX reads exactly
 * those per thread, else a variant built from the source with
 * -fthread-args and cached; an rt_fail that says why otherwise. */
cm_status cuda_thread_args_program(CudaDevice *c, CudaProgram *cp, uint32_t kernel,
                                   const char *list, CudaProgram **out);
/* The program to launch a group of `warps` CM threads of kernel `kernel`
 * with when its CTA needs more registers than the SM has: cp's PTX
 * JIT-compiled again with CU_JIT_MAX_REGISTERS set to the largest count
 * that fits (cached per count); the build log of p gets a note with the
 * registers and spills of the result. */
cm_status cuda_regcap_program(CudaDevice *c, cmetal_program *p, CudaProgram *cp,
                              uint32_t kernel, uint32_t warps, CudaProgram **out);
/* The program to launch a group of `warps` CM threads of kernel `kernel`
 * with when registers limit how many such CTAs an SM holds: cp's PTX
 * JIT-compiled with the largest register cap that makes half as many
 * warps again resident (occupancy.c cuda_raise_cap), when it spills at most
 * CUDA_RAISE_SPILL bytes per lane more than cp; else cp.  Decided once per
 * kernel and CTA size, with a note in p's build log; a failed build keeps
 * cp.  CMETAL_OCCUPANCY_CAP=0 in the environment turns it off. */
CudaProgram *cuda_raise_program(CudaDevice *c, cmetal_program *p, CudaProgram *cp,
                                uint32_t kernel, uint32_t warps);
#define CUDA_RAISE_SPILL 16
/* Parses the "//@cmetal" metadata lines of rt/cuda_abi.h at the top of a
 * PTX text into infos (arena), and when cp is not NULL the printf formats
 * into cp->fmts / cp->nfmts / cp->prints; false with the reason in err. */
bool cuda_parse_metadata(Arena *a, const char *ptx, CmkKernelInfo **infos, uint32_t *n,
                         CudaProgram *cp, Buf *err);

/* launch.c: one launch of a batch */
/* What a launch enqueued leaves for after the synchronization. */
typedef struct CudaQueued {
	RtLaunch *l;
	const CudaProgram *cp;      /* the program it runs (printf formats) */
	bool timed;                 /* between events ev[2 slot], ev[2 slot + 1] */
	bool prints;                /* printf records to collect */
	bool host_after;            /* the host must wait for it before anything
	                               else runs (printf, host-aliasing buffers,
	                               a fault it may report): the batch ends
	                               with it */
} CudaQueued;
/* Enqueues launch l as launch `slot` of the batch on c->stream: geometry
 * and variants, launch block, uploads, the kernel, the copies back; the
 * host waits for none of it.  Fails (rt_fail) when l cannot launch. */
cm_status cuda_enqueue(CudaDevice *c, RtLaunch *l, uint32_t slot, CudaQueued *q);
/* After the batch's synchronization: the kernel time, the fault record
 * (read and cleared) and the printf text of the launch in `slot`. */
cm_status cuda_finish(CudaDevice *c, const CudaQueued *q, uint32_t slot);
/* The error r of a launch or of the kernels of a batch, `who` ("kernel
 * 'k'"); a sticky one loses the context. */
cm_status cuda_kernel_error(CudaDevice *c, const char *who, CUresult r, const char *when);

/* batch.c: running the entries of a task (RtDeviceOps.run_batch) */
cm_status cuda_run_batch(cmetal_device *dev, RtLaunch **ls, uint32_t n, uint32_t *done);
/* A copy of src[0, n) in the staging memory, untouched until the batch's
 * synchronization: the source of an asynchronous upload; NULL after an
 * rt_fail. */
const void *cuda_stage(CudaDevice *c, const void *src, size_t n);
/* Frees device memory p once the launches enqueued so far are done. */
void cuda_free_later(CudaDevice *c, CUdeviceptr p);
/* Makes the timing events of launch `slot` of a batch; false when the
 * driver gives none. */
bool cuda_slot_events(CudaDevice *c, uint32_t slot);
/* Frees what end-of-batch frees (cuda.c closes the device with it). */
void cuda_batch_release(CudaDevice *c);

/* occupancy.c: the calculator (target/ptx/occupancy.c) with the device's
 * limits and a loaded kernel's registers and shared memory */
void cuda_arch_init(CudaDevice *c);         /* c->arch, after the cc is known */
void cuda_kernel_occ(const CudaDevice *c, const CudaKernel *k, uint32_t warps, OccResult *r);
/* CM threads per CTA of a thread-space launch: 1 when the kernel uses SLM
 * or a barrier (each CM thread is its own group), else those of the
 * smallest CTA with the best occupancy (32 / k->lanes per warp); cached in
 * k->walker_warps and logged (rt_log). */
uint32_t cuda_walker_warps(CudaDevice *c, CudaKernel *k, const CmkKernelInfo *ki);
/* Warps of a CTA of n CM threads of k: n, or n * W / 32 rounded up when
 * 32/W CM threads share a warp. */
uint32_t cuda_cta_warps(const CudaKernel *k, uint64_t n);
/* The split of a group launch of threads[0..2] CM threads per group
 * (rt/cuda_abi.h "Split groups"): target/ptx/occupancy.c occ_split's with
 * this GPU's limits, or {0, 0} when k may not be split (no "split 1";
 * CMETAL_SPLIT_GROUPS=0 in the environment).  groups (NULL: no launch)
 * bounds the grid.  Returns the CM threads of a CTA. */
uint32_t cuda_split(const CudaDevice *c, const CudaKernel *k, const uint32_t threads[3],
                    const uint32_t groups[3], uint32_t split[2]);
/* The register cap with which an SM holds twice the warps of k's CTAs
 * of warps (target/ptx/occupancy.c occ_raise_cap), when registers limit
 * them, at most a quarter below k's registers; 0: none, or turned off
 * (CMETAL_OCCUPANCY_CAP=0). */
uint32_t cuda_raise_cap(const CudaDevice *c, const CudaKernel *k, uint32_t warps);
cm_status cuda_occupancy(cmetal_device *dev, cmetal_kernel *k, uint32_t group_threads,
                         cmetal_occupancy *out);

/* printf.c: the host side of kernel printf */
/* Appends the text of the records in rec[0, used) (rt/cuda_abi.h
 * "printf") to out, in (thread, claim order) order, each formatted as the
 * CPU device's snprintf would; false when a record is malformed (the rest
 * is skipped). */
bool cuda_printf_format(const CudaFormat *fmts, uint32_t nfmts, const unsigned char *rec,
                        size_t used, Buf *out);
/* One record: format f with its 8-byte argument slots. */
void cuda_printf_one(const CudaFormat *f, const unsigned char *args, Buf *out);

#endif
