/* cmetal.h — the public C API of libcmetal, the cmetal runtime.
 *
 * The model is OpenCL / Level Zero done simply: opaque handles; every call
 * returns a cm_status, and on failure cmetal_last_error() gives a sentence
 * that names the problem (the text is per OS thread).  Nothing in the
 * library exits or aborts on a user error.
 *
 *   cmetal_device *dev;
 *   cmetal_device_open("auto", &dev);            // "cpu", "cuda", "cuda:N"
 *   cmetal_program *prog;
 *   cmetal_program_build(dev, source, "-DN=4", &prog);
 *   cmetal_kernel *k;
 *   cmetal_kernel_create(prog, "vadd", &k);
 *   cmetal_buffer *buf;
 *   cmetal_buffer_create(dev, 4096, &buf);       // zero-filled
 *   cmetal_kernel_set_arg_buffer(k, 0, buf);
 *   cmetal_kernel_set_arg(k, 1, sizeof n, &n);
 *   cmetal_launch_groups(k, (uint32_t[3]){32, 1, 1},
 *                        (uint32_t[3]){1, 1, 1}, NULL);
 *   cmetal_buffer_read(buf, 0, 4096, host);
 *
 * docs/runtime.md shows every part of the API by example.
 */
#ifndef CMETAL_H
#define CMETAL_H

#include <stddef.h>
#include <stdint.h>

/* The version of this header (Semantic Versioning; CHANGELOG.md).  The
 * library that a program runs with says its own with cmetal_version().
 * CMETAL_VERSION is one number for #if: 0.1.0 is 100, 1.2.3 is 10203. */
#define CMETAL_VERSION_MAJOR 0
#define CMETAL_VERSION_MINOR 1
#define CMETAL_VERSION_PATCH 0
#define CMETAL_VERSION_STRING "0.1.0"
#define CMETAL_VERSION                                                         \
	(CMETAL_VERSION_MAJOR * 10000 + CMETAL_VERSION_MINOR * 100 + CMETAL_VERSION_PATCH)

/* libcmetal.so exports exactly what this header declares (the library is
 * built with -fvisibility=hidden). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif
#ifdef __cplusplus
extern "C" {
#endif

/* Status codes.  CM_SUCCESS is 0; everything else is an error whose detail
 * is in cmetal_last_error(). */
#define CMETAL_STATUS_LIST(X)                                                  \
	X(CM_SUCCESS, "success")                                               \
	X(CM_INVALID_HANDLE, "invalid handle")                                 \
	X(CM_INVALID_VALUE, "invalid value")                                   \
	X(CM_DEVICE_NOT_FOUND, "device not found")                             \
	X(CM_OUT_OF_MEMORY, "out of memory")                                   \
	X(CM_OUT_OF_RANGE, "out of range")                                     \
	X(CM_INVALID_FORMAT, "invalid surface format")                         \
	X(CM_INVALID_PROGRAM, "invalid program")                               \
	X(CM_BUILD_FAILED, "build failed")                                     \
	X(CM_COMPILER_UNAVAILABLE, "compiler not available")                   \
	X(CM_KERNEL_NOT_FOUND, "kernel not found")                             \
	X(CM_INVALID_ARG_INDEX, "invalid argument index")                      \
	X(CM_INVALID_ARG_SIZE, "invalid argument size")                        \
	X(CM_INVALID_ARG_KIND, "invalid argument kind")                        \
	X(CM_ARGS_NOT_SET, "kernel arguments not set")                         \
	X(CM_INVALID_THREAD_SPACE, "invalid thread space")                     \
	X(CM_GROUP_TOO_LARGE, "thread group too large")                        \
	X(CM_KERNEL_FAULT, "kernel fault")                                     \
	X(CM_UNSUPPORTED, "unsupported")                                       \
	X(CM_IO_ERROR, "input/output error")

typedef enum cm_status {
#define CMETAL_X(name, text) name,
	CMETAL_STATUS_LIST(CMETAL_X)
#undef CMETAL_X
} cm_status;

/* Opaque handles. */
typedef struct cmetal_device cmetal_device;
typedef struct cmetal_program cmetal_program;
typedef struct cmetal_kernel cmetal_kernel;
typedef struct cmetal_buffer cmetal_buffer;       /* 1D surface (buffer_t) */
typedef struct cmetal_surface2d cmetal_surface2d; /* 2D surface (image2d_t) */
typedef struct cmetal_svm cmetal_svm;             /* SVM allocation (svmptr_t) */
typedef struct cmetal_task cmetal_task;
typedef struct cmetal_event cmetal_event;

/* ---- version ---- */
/* The version of the library in use, "0.1.0"; stores its parts where the
 * pointers are not NULL.  It may be newer than the header a program was
 * compiled with (same major version: compatible). */
const char *cmetal_version(int *major, int *minor, int *patch);

/* ---- errors ---- */
/* The message of the most recent failing call made by this OS thread. */
const char *cmetal_last_error(void);
/* "CM_INVALID_VALUE" etc.; "CM_UNKNOWN_STATUS" for other values. */
const char *cmetal_status_name(cm_status s);

/* ---- devices ---- */
/* name: "cpu", "cuda", "cuda:N" or "auto" (the GPU when one works, else the
 * CPU).  NULL means "auto", or $CMETAL_DEVICE when that is set. */
cm_status cmetal_device_open(const char *name, cmetal_device **dev);
cm_status cmetal_device_close(cmetal_device *dev);
/* A short description ("cpu (8 threads)"); valid until close. */
cm_status cmetal_device_name(cmetal_device *dev, const char **name);

/* What cmetal_device_info reports, each as a uint64_t: the device query. */
typedef enum {
	CMETAL_DEVICE_KIND = 1,          /* 0: the CPU device, 1: a CUDA device */
	CMETAL_DEVICE_ORDINAL,           /* N of "cuda:N"; 0 on the CPU */
	CMETAL_DEVICE_COMPUTE_UNITS,     /* CPU: worker threads; CUDA: SMs */
	CMETAL_DEVICE_MEMORY,            /* bytes: the host's RAM; the GPU's memory */
	CMETAL_DEVICE_CC_MAJOR,          /* CUDA compute capability; 0 on the CPU */
	CMETAL_DEVICE_CC_MINOR,
	CMETAL_DEVICE_MAX_GROUP_THREADS, /* most CM threads a group may have (1024
	                                  * on the CPU; 256 on sm_90+ GPUs, else 32) */
	CMETAL_DEVICE_MAX_SLM,           /* most bytes of SLM a group may have */
	CMETAL_DEVICE_THREADS,           /* CM threads running at once: the CPU's
	                                  * OS threads; a GPU's SMs x 64 warps */
	CMETAL_DEVICE_MAX_WALKER,        /* largest walker width and height */
	CMETAL_DEVICE_HOST_SVM,          /* 1: SVM addresses are host addresses the
	                                  * host may dereference (the CPU device) */
} cmetal_device_attr;
/* One property of the device; an unknown attr is CM_INVALID_VALUE. */
cm_status cmetal_device_info(cmetal_device *dev, cmetal_device_attr attr,
                             uint64_t *value);

/* Kept for compatibility: the same answers as cmetal_device_info
 * (CMETAL_DEVICE_THREADS, _MAX_GROUP_THREADS, _MAX_SLM, _MAX_WALKER,
 * _HOST_SVM, and _KIND as is_gpu) in one struct.  New code asks
 * cmetal_device_info. */
typedef struct cmetal_device_caps {
	uint32_t threads;           /* CM threads running at once: the CPU's OS
	                             * threads; a GPU's SMs x 64 warps */
	uint32_t max_group_threads; /* CM threads per thread group (1024 on the
	                             * CPU; 256 on sm_90 GPUs, else 32) */
	uint32_t slm_size;          /* bytes of SLM per group */
	uint32_t max_walker;        /* largest walker width and height */
	uint32_t host_svm;          /* 1: SVM addresses are host addresses the
	                             * host may dereference (the CPU device) */
	uint32_t is_gpu;
} cmetal_device_caps;
cm_status cmetal_device_get_caps(cmetal_device *dev, cmetal_device_caps *caps);

/* Where kernel printf output goes after each launch: fn(user, text, len) is
 * called once per launch with the output of all threads, ordered by linear
 * thread id.  fn == NULL restores the default (stdout). */
typedef void (*cmetal_printf_fn)(void *user, const char *text, size_t len);
cm_status cmetal_device_set_printf(cmetal_device *dev, cmetal_printf_fn fn,
                                   void *user);

/* ---- programs ---- */
/* Compiles CM source at run time.  options: "-DN=4 -I dir -O2 -g" (the
 * cmetal command line's options).  Builds are cached (see docs/runtime.md):
 * an unchanged program is not compiled again.  On a compile error the
 * status is CM_BUILD_FAILED and cmetal_last_error() holds the diagnostics. */
cm_status cmetal_program_build(cmetal_device *dev, const char *source,
                               const char *options, cmetal_program **prog);
/* Loads a compiled program: on the CPU device the .so of `cmetal -c -t c`
 * (or any cc -shared of the C of `cmetal -S -t c`); on the CUDA device the
 * binary of `cmetal -c -t ptx` (a cubin when ptxas was found, with its PTX)
 * or the PTX text of `cmetal -S -t ptx`. */
cm_status cmetal_program_load(cmetal_device *dev, const char *path,
                              cmetal_program **prog);
/* The build's diagnostics (warnings), "" when there were none. */
cm_status cmetal_program_build_log(cmetal_program *prog, const char **log);
cm_status cmetal_program_kernel_count(cmetal_program *prog, uint32_t *n);
cm_status cmetal_program_kernel_name(cmetal_program *prog, uint32_t i,
                                     const char **name);
/* Releases the user's reference: kernels still alive keep the program. */
cm_status cmetal_program_release(cmetal_program *prog);

/* ---- the compiler ---- */
/* Compiles CM source to text for a target without a device: "ptx" (what
 * the CUDA device loads), "c" (what the CPU device builds) or "ir"; or
 * gives the text of `cmetal --occupancy` ("occupancy") or `cmetal
 * --analyze` ("analyze") for the PTX of the options' -march.  On
 * success *out is a malloc'd NUL-terminated text and *len its length; the
 * diagnostics (warnings, or the errors of a failed compile) are in *log
 * (malloc'd, "" when none; pass NULL to ignore).  free() both. */
cm_status cmetal_compile(const char *source, const char *options,
                         const char *target, char **out, size_t *len, char **log);

/* ---- kernels and arguments ---- */
cm_status cmetal_kernel_create(cmetal_program *prog, const char *name,
                               cmetal_kernel **k);
cm_status cmetal_kernel_release(cmetal_kernel *k);

/* Argument kinds, as cmetal_kernel_arg_info reports them. */
typedef enum {
	CMETAL_ARG_SCALAR = 1,
	CMETAL_ARG_VECTOR,
	CMETAL_ARG_SURFACE,
	CMETAL_ARG_SAMPLER,
	CMETAL_ARG_SVM,
} cmetal_arg_kind;
cm_status cmetal_kernel_arg_count(cmetal_kernel *k, uint32_t *n);
cm_status cmetal_kernel_arg_info(cmetal_kernel *k, uint32_t index,
                                 const char **name, cmetal_arg_kind *kind,
                                 uint32_t *size);
/* Element types of scalar and vector/matrix arguments. */
typedef enum {
	CMETAL_ELEM_NONE = 0,            /* surfaces, samplers, svmptr_t */
	CMETAL_ELEM_I8, CMETAL_ELEM_U8, CMETAL_ELEM_I16, CMETAL_ELEM_U16,
	CMETAL_ELEM_I32, CMETAL_ELEM_U32, CMETAL_ELEM_I64, CMETAL_ELEM_U64,
	CMETAL_ELEM_F16, CMETAL_ELEM_F32, CMETAL_ELEM_F64,
} cmetal_elem_type;
/* The rest of an argument's declared type: the element type of a scalar or
 * vector/matrix (a vector has size / element-size elements), and the
 * [[type("...")]] text of a surface ("" when none).  Either output may be
 * NULL. */
cm_status cmetal_kernel_arg_type(cmetal_kernel *k, uint32_t index,
                                 cmetal_elem_type *elem, const char **type_attr);

/* A by-value argument (scalar, vector/matrix, or an svmptr_t given as its
 * 8-byte address); size must be the parameter's size exactly. */
cm_status cmetal_kernel_set_arg(cmetal_kernel *k, uint32_t index, size_t size,
                                const void *value);
/* A SurfaceIndex argument bound to a buffer or a 2D surface.  Memory
 * arguments must come from the kernel's device (else CM_INVALID_VALUE). */
cm_status cmetal_kernel_set_arg_buffer(cmetal_kernel *k, uint32_t index,
                                       cmetal_buffer *buf);
cm_status cmetal_kernel_set_arg_surface2d(cmetal_kernel *k, uint32_t index,
                                          cmetal_surface2d *surf);
/* An svmptr_t argument: the allocation's address plus offset bytes. */
cm_status cmetal_kernel_set_arg_svm(cmetal_kernel *k, uint32_t index,
                                    cmetal_svm *svm, uint64_t offset);

/* Per-thread values of a by-value argument (scalar, vector or svmptr_t)
 * for walker launches: thread t (linear id y * width + x) reads the size
 * bytes at values + t * size, for t < nthreads; size is the parameter's
 * size.  The values are copied.  A launch must have exactly nthreads
 * threads (else CM_INVALID_THREAD_SPACE); a thread-group launch refuses
 * per-thread arguments.  cmetal_kernel_set_arg on the index makes the
 * argument one value for all threads again. */
cm_status cmetal_kernel_set_arg_per_thread(cmetal_kernel *k, uint32_t index,
                                           uint32_t nthreads, size_t size,
                                           const void *values);

/* ---- occupancy (docs/runtime.md "Occupancy") ---- */
/* How a group of group_threads CM threads of the kernel fills the device.
 * On a CUDA device a CM thread is a warp and a group a CTA (a group of more
 * than 32 CM threads spans a cluster: the numbers are then per CTA of it);
 * the limits are the GPU's (driver attributes), the registers and shared
 * memory the loaded kernel's.  On the CPU device every group runs on one
 * worker in turn: ctas_per_sm 1, warps_per_sm = max_warps_per_sm =
 * group_threads, percent 100, limiter "cpu", registers -1. */
typedef struct cmetal_occupancy {
	uint32_t ctas_per_sm;      /* groups (CTAs) resident on one SM at once */
	uint32_t warps_per_sm;     /* CM threads (warps) resident on one SM */
	uint32_t max_warps_per_sm;
	uint32_t percent;          /* warps_per_sm * 100 / max_warps_per_sm */
	const char *limiter;       /* "warps", "CTAs", "registers", "shared memory", "cpu" */
	int32_t registers;         /* per lane (per CUDA thread); -1 unknown */
	uint32_t register_cap;     /* non-zero: a launch of this group runs a
	                              variant limited to this many registers: the
	                              kernel needs more than an SM has for the
	                              group (it may spill; the build log says so
	                              once it is built), or an earlier launch found
	                              that the cap lets one more CTA share an SM
	                              and spills little (the figures above are the
	                              variant's) */
	uint32_t auto_group;       /* CM threads per CTA a thread-space
	                              (cmetal_launch_walker) launch of this kernel
	                              uses: the smallest with the best occupancy */
	uint32_t cta_threads;      /* CM threads per CTA a group launch of
	                              group_threads (along x) runs: fewer when
	                              the runtime splits the group into several
	                              CTAs to hold more warps on an SM (kernels
	                              without SLM or barriers; the figures above
	                              are the split's) */
} cmetal_occupancy;
cm_status cmetal_kernel_occupancy(cmetal_kernel *k, uint32_t group_threads,
                                  cmetal_occupancy *out);

/* ---- buffers (1D surfaces) ---- */
cm_status cmetal_buffer_create(cmetal_device *dev, size_t size,
                               cmetal_buffer **buf);   /* zero-filled */
/* A buffer that aliases host memory: kernels read and write ptr[0..size)
 * (on the CPU device directly; the memory must outlive the buffer). */
cm_status cmetal_buffer_create_host(cmetal_device *dev, void *ptr, size_t size,
                                    cmetal_buffer **buf);
/* A buffer over memory the caller owns and keeps alive, without copying:
 * on the CPU device a host address, on a CUDA device a device address of
 * the device's (primary) context, as cuMemAlloc, CuPy or PyTorch give.
 * Releasing the buffer leaves the memory alone. */
cm_status cmetal_buffer_wrap(cmetal_device *dev, uint64_t addr, size_t size,
                             cmetal_buffer **buf);
cm_status cmetal_buffer_size(cmetal_buffer *buf, size_t *size);
/* The address kernels access: a host address on the CPU device, a device
 * address on a CUDA device (for a host-aliasing buffer, its device copy). */
cm_status cmetal_buffer_address(cmetal_buffer *buf, uint64_t *addr);
cm_status cmetal_buffer_write(cmetal_buffer *buf, size_t offset, size_t size,
                              const void *src);
cm_status cmetal_buffer_read(cmetal_buffer *buf, size_t offset, size_t size,
                             void *dst);
/* Host access to the whole buffer until unmap. */
cm_status cmetal_buffer_map(cmetal_buffer *buf, void **ptr);
cm_status cmetal_buffer_unmap(cmetal_buffer *buf);
cm_status cmetal_buffer_release(cmetal_buffer *buf);

/* ---- 2D surfaces ---- */
typedef enum {
	CMETAL_FMT_A8 = 1,
	CMETAL_FMT_R8G8B8A8,
	CMETAL_FMT_A8R8G8B8,
	CMETAL_FMT_R32F,
	CMETAL_FMT_R32_UINT,
	CMETAL_FMT_R32_SINT,
	CMETAL_FMT_R16_UINT,
	CMETAL_FMT_R8_UINT,
	CMETAL_FMT_R32G32B32A32F,
} cmetal_format;
/* width and height in pixels; zero-filled; the runtime picks the pitch. */
cm_status cmetal_surface2d_create(cmetal_device *dev, uint32_t width,
                                  uint32_t height, cmetal_format format,
                                  cmetal_surface2d **surf);
/* The pitch the runtime gives a surface of this width and format (rows
 * padded to 64 bytes): allocate host memory for
 * cmetal_surface2d_create_host with it. */
cm_status cmetal_surface2d_pitch(uint32_t width, cmetal_format format,
                                 uint32_t *pitch);
/* A 2D surface that aliases host memory of pitch * height bytes (pitch 0:
 * the runtime's pitch, as cmetal_surface2d_pitch gives; otherwise at least
 * width * bpp).  Kernels use ptr itself on the CPU device; the CUDA device
 * copies it in before and out after each launch that binds it.  The memory
 * must outlive the surface. */
cm_status cmetal_surface2d_create_host(cmetal_device *dev, void *ptr,
                                       uint32_t width, uint32_t height,
                                       cmetal_format format, uint32_t pitch,
                                       cmetal_surface2d **surf);
/* A 2D surface over memory the caller owns, as cmetal_buffer_wrap: height
 * rows of width pixels, row y at addr + y * pitch (pitch >= width * bpp). */
cm_status cmetal_surface2d_wrap(cmetal_device *dev, uint64_t addr,
                                uint32_t width, uint32_t height, uint32_t pitch,
                                cmetal_format format, cmetal_surface2d **surf);
/* pitch: bytes between rows; bpp: bytes per pixel. */
cm_status cmetal_surface2d_info(cmetal_surface2d *surf, uint32_t *width,
                                uint32_t *height, uint32_t *pitch,
                                uint32_t *bpp);
/* Whole-surface copies; host_pitch is the bytes between rows in host
 * memory (0 = width * bpp, tightly packed). */
cm_status cmetal_surface2d_write(cmetal_surface2d *surf, const void *src,
                                 size_t host_pitch);
cm_status cmetal_surface2d_read(cmetal_surface2d *surf, void *dst,
                                size_t host_pitch);
cm_status cmetal_surface2d_release(cmetal_surface2d *surf);

/* ---- SVM ---- */
cm_status cmetal_svm_alloc(cmetal_device *dev, size_t size, cmetal_svm **svm);
/* The device address kernels use as svmptr_t. */
cm_status cmetal_svm_address(cmetal_svm *svm, uint64_t *addr);
cm_status cmetal_svm_write(cmetal_svm *svm, size_t offset, size_t size,
                           const void *src);
cm_status cmetal_svm_read(cmetal_svm *svm, size_t offset, size_t size,
                          void *dst);
cm_status cmetal_svm_free(cmetal_svm *svm);

/* ---- launches ---- */
/* Media-walker dependencies between the threads of a walker space.
 * cm_wait() in thread (x, y) blocks until each thread it depends on has
 * called cm_signal() or finished; bit i of cm_wait's mask drops the i-th
 * dependency in the order listed. */
typedef enum {
	CMETAL_DEP_NONE = 0,
	CMETAL_DEP_WAVEFRONT,     /* (x-1,y), (x-1,y-1), (x,y-1) */
	CMETAL_DEP_WAVEFRONT26,   /* (x-1,y), (x-1,y-1), (x,y-1), (x+1,y-1) */
	CMETAL_DEP_HORIZONTAL,    /* (x-1,y) */
	CMETAL_DEP_VERTICAL,      /* (x,y-1) */
} cmetal_dependency;

/* A task runs its entries in order; on the CPU device each entry completes
 * before the next starts.  Arguments are captured when an entry is added,
 * so one kernel may be added several times with different arguments. */
cm_status cmetal_task_create(cmetal_device *dev, cmetal_task **task);
/* width x height threads; get_thread_origin_x/y give (x, y). */
cm_status cmetal_task_add_walker(cmetal_task *task, cmetal_kernel *k,
                                 uint32_t width, uint32_t height,
                                 cmetal_dependency dep);
/* groups[0..2] groups of threads[0..2] threads (at most 1024 per group).
 * threads {0, 0, 0}: groups[] counts CM threads and the runtime picks the
 * group (rows of cmetal_occupancy.auto_group along x, x rounded up to a
 * multiple; refused for kernels with SLM or barriers). */
cm_status cmetal_task_add_groups(cmetal_task *task, cmetal_kernel *k,
                                 const uint32_t groups[3],
                                 const uint32_t threads[3]);
/* Later entries see all memory effects of earlier ones. */
cm_status cmetal_task_add_sync(cmetal_task *task);
/* Runs the task; the first kernel fault (an out-of-bounds access found by
 * a build with -fbounds-check) stops it with CM_KERNEL_FAULT.  ev may be NULL. */
cm_status cmetal_task_run(cmetal_task *task, cmetal_event **ev);
cm_status cmetal_task_release(cmetal_task *task);

/* One-kernel shorthands for a task of one entry. */
cm_status cmetal_launch_walker(cmetal_kernel *k, uint32_t width,
                               uint32_t height, cmetal_dependency dep,
                               cmetal_event **ev);
cm_status cmetal_launch_groups(cmetal_kernel *k, const uint32_t groups[3],
                               const uint32_t threads[3], cmetal_event **ev);

/* ---- events ---- */
/* Waits for the work; returns that work's status. */
cm_status cmetal_event_wait(cmetal_event *ev);
/* Milliseconds from the start of the first entry to the end of the last. */
cm_status cmetal_event_elapsed_ms(cmetal_event *ev, double *ms);
cm_status cmetal_event_release(cmetal_event *ev);

#ifdef __cplusplus
}
#endif
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
