/* cmk_abi.h — the contract between kernels compiled for the CPU and the
 * CPU runtime.  The C back end pastes this header verbatim at the top of
 * every C file it writes (so generated code needs nothing but libc), and the
 * runtime includes it to run those kernels.  Change CMK_ABI_VERSION with
 * any layout change: the runtime refuses a kernel library of another
 * version.
 *
 * A compiled program is a shared library exporting
 *     const uint32_t cmk_abi_version;              (== CMK_ABI_VERSION)
 *     const CmkProgramInfo cmk_program;
 * The runtime runs one CM thread by filling a CmkThread and calling the
 * kernel's entry.  Threads of one group run as fibers on one OS thread, so
 * the services (barrier, wait) may switch to another fiber and back.
 */
#ifndef CMK_ABI_H
#define CMK_ABI_H

#include <stdint.h>

#define CMK_ABI_VERSION 4   /* 3: CmkServices.poll, 4: CmkKernelInfo.frame_size */

/* What a kernel argument is, as the runtime must bind it. */
enum {
	CMK_ARG_SCALAR = 1,   /* by value: size bytes (int, float, ...) */
	CMK_ARG_VECTOR,       /* by value: size bytes, a vector/matrix */
	CMK_ARG_SURFACE,      /* SurfaceIndex: the value is a uint32 surface slot */
	CMK_ARG_SAMPLER,      /* SamplerIndex (unsupported at run time) */
	CMK_ARG_SVM,          /* svmptr_t: a 64-bit device address */
};

/* The [[type("...")]] of a surface argument, as the runtime checks it. */
enum {
	CMK_SURF_ANY = 0,     /* no attribute given */
	CMK_SURF_BUFFER,      /* buffer_t */
	CMK_SURF_IMAGE1D,
	CMK_SURF_IMAGE2D,     /* image2d_t, image2d_media_block_t */
	CMK_SURF_IMAGE3D,
};

typedef struct CmkArgInfo {
	const char *name;
	uint32_t kind;        /* CMK_ARG_* */
	uint32_t size;        /* bytes of the value the runtime passes */
	uint32_t elem;        /* scalars/vectors: element kind, CMK_ELEM_* */
	uint32_t surf;        /* surfaces: CMK_SURF_* */
	const char *type_attr;/* the [[type("...")]] text or "" */
} CmkArgInfo;

enum {
	CMK_ELEM_NONE = 0, CMK_ELEM_I8, CMK_ELEM_U8, CMK_ELEM_I16, CMK_ELEM_U16,
	CMK_ELEM_I32, CMK_ELEM_U32, CMK_ELEM_I64, CMK_ELEM_U64, CMK_ELEM_F16,
	CMK_ELEM_F32, CMK_ELEM_F64,
};

struct CmkThread;
typedef void (*CmkEntry)(struct CmkThread *t);

typedef struct CmkKernelInfo {
	const char *name;
	CmkEntry entry;
	uint32_t nargs;
	const CmkArgInfo *args;
	uint32_t slm_size;    /* bytes from cm_slm_init (a constant); 0 if none */
	uint32_t globals_size;/* bytes of thread-private globals (zeroed per thread) */
	uint32_t uses_barrier;/* needs fibers: cm_barrier, cm_slm_load */
	uint32_t uses_wait;   /* cm_wait / cm_signal dependencies */
	uint32_t simd_width;  /* informational */
	uint32_t checks_svm;  /* built with bounds checks: the runtime must fill
	                       * CmkThread.svm (its SVM accesses test it) */
	uint32_t frame_size;  /* bytes of stack one CM thread may take: the C
	                       * back end's estimate (every local in memory, as
	                       * cc -O0 keeps them); 0: unknown, the default stack */
} CmkKernelInfo;

typedef struct CmkProgramInfo {
	uint32_t nkernels;
	const CmkKernelInfo *kernels;
} CmkProgramInfo;

/* Surface formats (2D surfaces give bytes per pixel through them). */
enum {
	CMK_FMT_BUFFER = 0,   /* 1D byte buffer */
	CMK_FMT_A8,           /* 1 byte per pixel */
	CMK_FMT_R8G8B8A8,     /* 4 */
	CMK_FMT_A8R8G8B8,     /* 4 */
	CMK_FMT_R32F,         /* 4 */
	CMK_FMT_R32_UINT,     /* 4 */
	CMK_FMT_R32_SINT,     /* 4 */
	CMK_FMT_R16_UINT,     /* 2 */
	CMK_FMT_R8_UINT,      /* 1 */
	CMK_FMT_R32G32B32A32F,/* 16 */
};

/* A bound surface.  1D: base and size; reads past size give 0 and writes
 * are dropped.  2D: width (bytes) x height rows of pitch bytes; media block
 * reads clamp coordinates to the edge, writes outside are dropped. */
typedef struct CmkSurface {
	unsigned char *base;
	uint64_t size;        /* bytes addressable from base */
	uint32_t width;       /* 2D: row width in bytes; 1D: = size (clamped) */
	uint32_t height;      /* 2D: rows; 1D: 1 */
	uint32_t pitch;       /* 2D: bytes between rows */
	uint32_t format;      /* CMK_FMT_* */
	uint32_t bpp;         /* bytes per pixel/element (1 for buffers) */
	uint32_t is2d;
} CmkSurface;

/* One live SVM allocation: bytes [base, base + size).  A kernel built
 * with bounds checks gets the device's live allocations sorted by base;
 * an SVM access outside all of them reads 0, drops its write and faults. */
typedef struct CmkSvmRange {
	uint64_t base, size;
} CmkSvmRange;

/* Functions the runtime offers a running kernel. */
typedef struct CmkServices {
	void (*barrier)(struct CmkThread *t);              /* cm_barrier */
	void (*wait)(struct CmkThread *t, uint32_t mask);  /* cm_wait */
	void (*signal)(struct CmkThread *t);               /* cm_signal */
	/* printf: text already formatted by the kernel; appended to the
	 * program's printf buffer in one piece. */
	void (*print)(struct CmkThread *t, const char *text, uint32_t len);
	/* An out-of-range access the kernel detected (bounds-checked builds);
	 * the runtime records the first one per launch for the user. */
	void (*fault)(struct CmkThread *t, const char *what, int line);
	/* A global atomic that changes nothing (or, xor, add or sub of zeros)
	 * ran and read values whose hash is seen: a kernel polling flags that
	 * another CM thread sets.  The same values read again and again mean
	 * that thread has not run: the runtime gives up the core to it. */
	void (*poll)(struct CmkThread *t, uint64_t seen);
} CmkServices;

typedef struct CmkThread {
	const CmkServices *svc;
	void *rt;                     /* runtime-private */
	void *const *args;            /* args[i] points at argument i's value */
	CmkSurface *surfaces;         /* indexed by SurfaceIndex slot */
	uint32_t nsurfaces;
	uint32_t origin[2];           /* get_thread_origin_x/y (media walker) */
	uint32_t color;               /* get_color */
	uint32_t group_id[3];         /* cm_group_id */
	uint32_t local_id[3];         /* cm_local_id */
	uint32_t local_size[3];       /* cm_local_size */
	uint32_t group_count[3];      /* cm_group_count */
	unsigned char *slm;           /* shared by the group */
	uint32_t slm_size;
	unsigned char *globals;       /* thread-private globals, globals_size bytes */
	const CmkSvmRange *svm;       /* checks_svm kernels: live SVM allocations, */
	uint32_t nsvm;                /* sorted by base, disjoint; else NULL, 0 */
} CmkThread;

#endif
