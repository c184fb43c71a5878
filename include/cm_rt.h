/* cm_rt.h — Intel's CM host API (the classes of its legacy CM runtime)
 * over libcmetal, so that a host written for Intel's runtime builds against
 * cmetal with only its include path changed.  Header-only C++11 over the C
 * API of cmetal.h, which this header puts in namespace cmetal (include
 * cm_rt.h instead of cmetal.h, not both).
 *
 *   CmDevice *dev;  unsigned version;
 *   CreateCmDevice(dev, version);            // $CMETAL_DEVICE, else auto
 *   std::string code = cm::util::isa::loadFile("linear_genx.isa");
 *   CmProgram *prog;
 *   dev->LoadProgram(const_cast<char *>(code.data()), code.size(), prog);
 *   CmKernel *k;  dev->CreateKernel(prog, "linear", k);
 *   ...
 *
 * LoadProgram takes CM source text, the PTX `cmetal -t ptx` writes (CUDA
 * device) or a kernel library built from `cmetal -t c` (CPU device); it
 * tells them apart by their first bytes.  docs/runtime.md "Intel's host
 * API" lists what differs from Intel's runtime and why.  Every call
 * returns CM_SUCCESS or one of Intel's negative codes; cmetal's sentence
 * for the last failure is cmetal::cmetal_last_error(). */
#ifndef CMETAL_CM_RT_H
#define CMETAL_CM_RT_H

#ifdef CMETAL_H
#error "include cm_rt.h instead of cmetal.h (it provides the C API as cmetal::...)"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h> /* __rdtsc, which Intel's headers also provide */
#endif

#include <string>
#include <vector>

namespace cmetal {
#include "cmetal.h"
}

/* ---- types and codes of Intel's API ---- */

typedef int INT;
typedef unsigned int UINT;
typedef unsigned int DWORD;
typedef unsigned char BYTE;
typedef long long INT64;
typedef unsigned long long UINT64;

enum {
	CM_SUCCESS = 0,
	CM_FAILURE = -1,
	CM_NOT_IMPLEMENTED = -2,
	CM_SURFACE_ALLOCATION_FAILURE = -3,
	CM_OUT_OF_HOST_MEMORY = -4,
	CM_SURFACE_FORMAT_NOT_SUPPORTED = -5,
	CM_INVALID_ARG_INDEX = -9,
	CM_INVALID_ARG_VALUE = -10,
	CM_INVALID_ARG_SIZE = -11,
	CM_INVALID_THREAD_INDEX = -12,
	CM_INVALID_WIDTH = -13,
	CM_INVALID_HEIGHT = -14,
	CM_INVALID_DEPTH = -15,
	CM_INVALID_COMMON_ISA = -16,
	CM_EXCEED_MAX_KERNEL_PER_ENQUEUE = -21,
	CM_INVALID_THREAD_SPACE = -25,
	CM_JITDLL_LOAD_FAILURE = -27,
	CM_JIT_COMPILE_FAILURE = -28,
	CM_INVALID_THREAD_GROUP_SPACE = -30,
	CM_THREAD_ARG_NOT_ALLOWED = -31,
	CM_EXCEED_MAX_SLM_SIZE = -34,
	CM_NOT_SET_KERNEL_ARGUMENT = -53,
	CM_KERNEL_THREADSPACE_NOT_SET = -67,
	CM_INVALID_KERNEL_THREADSPACE = -68,
	CM_FAILED_TO_ALLOCATE_SVM_BUFFER = -79,
	CM_NULL_POINTER = -90,
	CM_INVALID_CAP_NAME = -101,
	CM_NO_SUPPORTED_ADAPTER = -106,
	CM_INTERNAL_ERROR_CODE_OFFSET = -10000, /* codes below are internal */
};

/* Surface formats: the numbers of Intel's Linux runtime (VA / D3D codes). */
typedef enum {
	CM_SURFACE_FORMAT_UNKNOWN = 0,
	CM_SURFACE_FORMAT_A8R8G8B8 = 21,
	CM_SURFACE_FORMAT_X8R8G8B8 = 22,
	CM_SURFACE_FORMAT_A8 = 28,
	CM_SURFACE_FORMAT_A8B8G8R8 = 32,
	CM_SURFACE_FORMAT_P8 = 41,
	CM_SURFACE_FORMAT_L8 = 50,
	CM_SURFACE_FORMAT_R16_UINT = 57,
	CM_SURFACE_FORMAT_R8_UINT = 62,
	CM_SURFACE_FORMAT_R32F = 114,
	CM_SURFACE_FORMAT_A32B32G32R32F = 116,
	CM_SURFACE_FORMAT_R32_UINT = 0x10001,   /* cmetal's own numbers */
	CM_SURFACE_FORMAT_R32_SINT = 0x10002,
	CM_SURFACE_FORMAT_NV12 = 0x3231564E,    /* 'NV12' */
} CM_SURFACE_FORMAT;

typedef enum {
	CM_NONE_DEPENDENCY = 0,
	CM_WAVEFRONT = 1,
	CM_WAVEFRONT26 = 2,
	CM_VERTICAL_DEPENDENCY = 3,
	CM_HORIZONTAL_DEPENDENCY = 4,
	CM_WAVEFRONT26Z = 5,
	CM_WAVEFRONT26ZI = 8,
} CM_DEPENDENCY_PATTERN;

typedef enum {
	CM_STATUS_QUEUED = 0,
	CM_STATUS_FLUSHED = 1,
	CM_STATUS_FINISHED = 2,
	CM_STATUS_STARTED = 3,
} CM_STATUS;

/* Capabilities, in the order of Intel's enum; GetCaps answers those
 * marked (all UINT): the rest give CM_INVALID_CAP_NAME. */
typedef enum {
	CAP_KERNEL_COUNT_PER_TASK,          /* answered */
	CAP_KERNEL_BINARY_SIZE,
	CAP_SAMPLER_COUNT,                  /* answered: 0 */
	CAP_SAMPLER_COUNT_PER_KERNEL,       /* answered: 0 */
	CAP_BUFFER_COUNT,
	CAP_SURFACE2D_COUNT,
	CAP_SURFACE3D_COUNT,
	CAP_SURFACE_COUNT_PER_KERNEL,
	CAP_ARG_COUNT_PER_KERNEL,
	CAP_ARG_SIZE_PER_KERNEL,
	CAP_USER_DEFINED_THREAD_COUNT_PER_TASK,       /* answered */
	CAP_HW_THREAD_COUNT,                          /* answered */
	CAP_SURFACE2D_FORMAT_COUNT,
	CAP_SURFACE2D_FORMATS,
	CAP_SURFACE3D_FORMAT_COUNT,
	CAP_SURFACE3D_FORMATS,
	CAP_VME_STATE_COUNT,
	CAP_GPU_PLATFORM,
	CAP_GT_PLATFORM,
	CAP_MIN_FREQUENCY,
	CAP_MAX_FREQUENCY,
	CAP_L3_CONFIG,
	CAP_GPU_CURRENT_FREQUENCY,
	CAP_USER_DEFINED_THREAD_COUNT_PER_TASK_NO_THREAD_ARG, /* answered */
	CAP_USER_DEFINED_THREAD_COUNT_PER_MEDIA_WALKER,       /* answered */
	CAP_USER_DEFINED_THREAD_COUNT_PER_THREAD_GROUP,       /* answered */
	CAP_SURFACE2DUP_COUNT,
	CAP_PLATFORM_INFO,
	CAP_MAX_BUFFER_SIZE,                /* answered (bytes) */
	CAP_SLM_SIZE = 0x1000,              /* cmetal: SLM bytes per group */
} CM_DEVICE_CAP_NAME;

/* What Intel's Linux runtime headers give its hosts besides the classes:
 * the Windows names its examples are written with, the aligned allocator,
 * the API level constant, the "no event wanted" marker and the wall clock
 * its example hosts time themselves with. */
#define _tmain main
#define _TCHAR char
#define __int64 long long
#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif
#define CM_1_0 100
#define CM_NO_EVENT ((CmEvent *)(-1))

inline void *CM_ALIGNED_MALLOC(size_t size, size_t alignment)
{
	void *p = nullptr;
	if (alignment < sizeof(void *))
		alignment = sizeof(void *);
	return posix_memalign(&p, alignment, size) ? nullptr : p;
}
inline void CM_ALIGNED_FREE(void *memory) { free(memory); }

/* seconds, wall clock */
inline double getTimeStamp()
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

#define CM_KERNEL_FUNCTION2(...) #__VA_ARGS__
#define CM_KERNEL_FUNCTION(...) CM_KERNEL_FUNCTION2(__VA_ARGS__)
#define _NAME(...) #__VA_ARGS__
#define CM_MAX_TIMEOUT 2
#define CM_SVM_ACCESS_FLAG_DEFAULT 0

class CmDevice;
class CmKernel;

namespace cmrt_detail {

/* Intel's code for a cmetal status. */
inline int code(cmetal::cm_status s)
{
	using namespace cmetal;
	switch (s) {
	case cmetal::CM_SUCCESS: return ::CM_SUCCESS;
	case CM_INVALID_HANDLE: return CM_NULL_POINTER;
	case CM_INVALID_VALUE: case CM_OUT_OF_RANGE: case CM_INVALID_ARG_KIND:
		return ::CM_INVALID_ARG_VALUE;
	case CM_DEVICE_NOT_FOUND: return CM_NO_SUPPORTED_ADAPTER;
	case CM_OUT_OF_MEMORY: return CM_OUT_OF_HOST_MEMORY;
	case CM_INVALID_FORMAT: return CM_SURFACE_FORMAT_NOT_SUPPORTED;
	case CM_INVALID_PROGRAM: return CM_INVALID_COMMON_ISA;
	case CM_BUILD_FAILED: return CM_JIT_COMPILE_FAILURE;
	case CM_COMPILER_UNAVAILABLE: return CM_JITDLL_LOAD_FAILURE;
	case cmetal::CM_INVALID_ARG_INDEX: return ::CM_INVALID_ARG_INDEX;
	case cmetal::CM_INVALID_ARG_SIZE: return ::CM_INVALID_ARG_SIZE;
	case CM_ARGS_NOT_SET: return CM_NOT_SET_KERNEL_ARGUMENT;
	case cmetal::CM_INVALID_THREAD_SPACE: return ::CM_INVALID_THREAD_SPACE;
	case CM_GROUP_TOO_LARGE: return CM_INVALID_THREAD_GROUP_SPACE;
	case CM_UNSUPPORTED: return ::CM_NOT_IMPLEMENTED;
	default: return ::CM_FAILURE;
	}
}

/* What a SurfaceIndex names: a memory object that binds itself. */
class Bindable {
public:
	virtual ~Bindable() {}
	virtual cmetal::cm_status bind(cmetal::cmetal_kernel *k, uint32_t index) = 0;
};

} // namespace cmrt_detail

/* A surface's index as kernels take it (SetKernelArg with
 * sizeof(SurfaceIndex)); it remembers its surface. */
class SurfaceIndex {
public:
	SurfaceIndex() : index(0), owner(nullptr) {}
	explicit SurfaceIndex(unsigned int n) : index(n), owner(nullptr) {}
	virtual ~SurfaceIndex() {}
	virtual unsigned int get_data(void) { return index; }
	cmrt_detail::Bindable *surface() const { return owner; }
	void set(unsigned int n, cmrt_detail::Bindable *b) { index = n; owner = b; }

private:
	unsigned int index;
	cmrt_detail::Bindable *owner;
};

namespace cmrt_detail {

/* The base of the surface classes: its index and its device. */
class Surface : public Bindable {
public:
	Surface(CmDevice *d, unsigned int n) : dev(d) { idx.set(n, this); }
	INT GetIndex(SurfaceIndex *&index) { index = &idx; return ::CM_SUCCESS; }
	CmDevice *device() const { return dev; }

protected:
	CmDevice *dev;
	SurfaceIndex idx;
};

inline bool fits(UINT64 have, size_t need) { return have >= (UINT64)need; }

} // namespace cmrt_detail

class CmEvent {
public:
	INT GetStatus(CM_STATUS &status) { status = CM_STATUS_FINISHED; return ::CM_SUCCESS; }
	/* nanoseconds from the start of the task's first kernel to the end of
	 * its last (GPU timers on the CUDA device) */
	INT GetExecutionTime(UINT64 &time) { time = ns; return ::CM_SUCCESS; }
	INT WaitForTaskFinished(DWORD timeout_ms = 0xFFFFFFFFu) { (void)timeout_ms; return result; }
	CmEvent(INT r, UINT64 t) : result(r), ns(t) {}

private:
	INT result;
	UINT64 ns;
};

class CmBuffer : public cmrt_detail::Surface {
public:
	CmBuffer(CmDevice *d, unsigned int n, cmetal::cmetal_buffer *b, size_t size)
	        : Surface(d, n), buf(b), bytes(size) {}
	~CmBuffer() { cmetal::cmetal_buffer_release(buf); }
	INT WriteSurface(const unsigned char *sys, CmEvent *event, UINT64 sys_size = ~0ull)
	{
		(void)event;
		if (!sys)
			return CM_NULL_POINTER;
		if (!cmrt_detail::fits(sys_size, bytes))
			return ::CM_INVALID_ARG_SIZE;
		return cmrt_detail::code(cmetal::cmetal_buffer_write(buf, 0, bytes, sys));
	}
	INT ReadSurface(unsigned char *sys, CmEvent *event, UINT64 sys_size = ~0ull)
	{
		(void)event;
		if (!sys)
			return CM_NULL_POINTER;
		if (!cmrt_detail::fits(sys_size, bytes))
			return ::CM_INVALID_ARG_SIZE;
		return cmrt_detail::code(cmetal::cmetal_buffer_read(buf, 0, bytes, sys));
	}
	/* fills the buffer with a 32-bit value */
	INT InitSurface(const DWORD value, CmEvent *event)
	{
		(void)event;
		std::vector<DWORD> v((bytes + 3) / 4, value);
		return cmrt_detail::code(cmetal::cmetal_buffer_write(buf, 0, bytes, v.data()));
	}
	cmetal::cm_status bind(cmetal::cmetal_kernel *k, uint32_t i) override
	{
		return cmetal::cmetal_kernel_set_arg_buffer(k, i, buf);
	}

protected:
	cmetal::cmetal_buffer *buf;
	size_t bytes;
};

/* A buffer over the host's memory (kernels see it between launches). */
class CmBufferUP : public CmBuffer {
public:
	CmBufferUP(CmDevice *d, unsigned int n, cmetal::cmetal_buffer *b, size_t size)
	        : CmBuffer(d, n, b, size) {}
};

/* Host-visible memory whose address kernels take as svmptr_t.  On the
 * CUDA device the host memory is a copy kept in step at every Enqueue. */
class CmBufferSVM : public cmrt_detail::Surface {
public:
	CmBufferSVM(CmDevice *d, unsigned int n, cmetal::cmetal_svm *s, void *host, size_t size,
	            bool shadow)
	        : Surface(d, n), svm(s), sys(host), bytes(size), copy(shadow) {}
	~CmBufferSVM()
	{
		cmetal::cmetal_svm_free(svm);
		if (copy)
			free(sys);
	}
	INT GetAddress(void *&addr) { addr = sys; return ::CM_SUCCESS; }
	cmetal::cm_status bind(cmetal::cmetal_kernel *k, uint32_t i) override
	{
		return cmetal::cmetal_kernel_set_arg_svm(k, i, svm, 0);
	}
	/* the allocation holding host address p, with p's offset */
	bool holds(const void *p, uint64_t *off) const
	{
		uintptr_t a = (uintptr_t)p, b = (uintptr_t)sys;
		if (a < b || a > b + bytes)
			return false;
		*off = a - b;
		return true;
	}
	cmetal::cmetal_svm *handle() const { return svm; }
	cmetal::cm_status to_device() { return copy ? cmetal::cmetal_svm_write(svm, 0, bytes, sys) : cmetal::CM_SUCCESS; }
	cmetal::cm_status to_host() { return copy ? cmetal::cmetal_svm_read(svm, 0, bytes, sys) : cmetal::CM_SUCCESS; }

private:
	cmetal::cmetal_svm *svm;
	void *sys;
	size_t bytes;
	bool copy;
};

class CmSurface2D : public cmrt_detail::Surface {
public:
	CmSurface2D(CmDevice *d, unsigned int n, cmetal::cmetal_surface2d *s, size_t row, UINT h)
	        : Surface(d, n), surf(s), row_bytes(row), rows(h) {}
	~CmSurface2D() { cmetal::cmetal_surface2d_release(surf); }
	/* host rows tightly packed */
	INT WriteSurface(const unsigned char *sys, CmEvent *event, UINT64 sys_size = ~0ull)
	{
		return WriteSurfaceStride(sys, event, (UINT)row_bytes, sys_size);
	}
	INT ReadSurface(unsigned char *sys, CmEvent *event, UINT64 sys_size = ~0ull)
	{
		return ReadSurfaceStride(sys, event, (UINT)row_bytes, sys_size);
	}
	/* host rows `stride` bytes apart */
	INT WriteSurfaceStride(const unsigned char *sys, CmEvent *event, const UINT stride,
	                       UINT64 sys_size = ~0ull)
	{
		(void)event;
		if (!sys)
			return CM_NULL_POINTER;
		if (!cmrt_detail::fits(sys_size, (size_t)stride * (rows - 1) + row_bytes))
			return ::CM_INVALID_ARG_SIZE;
		return cmrt_detail::code(cmetal::cmetal_surface2d_write(surf, sys, stride));
	}
	INT ReadSurfaceStride(unsigned char *sys, CmEvent *event, const UINT stride,
	                      UINT64 sys_size = ~0ull)
	{
		(void)event;
		if (!sys)
			return CM_NULL_POINTER;
		if (!cmrt_detail::fits(sys_size, (size_t)stride * (rows - 1) + row_bytes))
			return ::CM_INVALID_ARG_SIZE;
		return cmrt_detail::code(cmetal::cmetal_surface2d_read(surf, sys, stride));
	}
	cmetal::cm_status bind(cmetal::cmetal_kernel *k, uint32_t i) override
	{
		return cmetal::cmetal_kernel_set_arg_surface2d(k, i, surf);
	}

protected:
	cmetal::cmetal_surface2d *surf;
	size_t row_bytes;
	UINT rows;
};

/* A 2D surface over the host's memory, rows GetSurface2DInfo's pitch apart. */
class CmSurface2DUP : public CmSurface2D {
public:
	CmSurface2DUP(CmDevice *d, unsigned int n, cmetal::cmetal_surface2d *s, size_t row, UINT h)
	        : CmSurface2D(d, n, s, row, h) {}
};

class CmProgram {
public:
	explicit CmProgram(cmetal::cmetal_program *p) : prog(p) {}
	~CmProgram() { cmetal::cmetal_program_release(prog); }
	cmetal::cmetal_program *handle() const { return prog; }

private:
	cmetal::cmetal_program *prog;
};

/* A media-walker space: width x height threads, thread (x, y) has
 * get_thread_origin_x/y() = (x, y) and linear id y * width + x. */
class CmThreadSpace {
public:
	CmThreadSpace(UINT w, UINT h) : width(w), height(h), dep(cmetal::CMETAL_DEP_NONE) {}
	INT SelectThreadDependencyPattern(CM_DEPENDENCY_PATTERN p)
	{
		switch (p) {
		case CM_NONE_DEPENDENCY: dep = cmetal::CMETAL_DEP_NONE; return ::CM_SUCCESS;
		case CM_WAVEFRONT: dep = cmetal::CMETAL_DEP_WAVEFRONT; return ::CM_SUCCESS;
		case CM_WAVEFRONT26: dep = cmetal::CMETAL_DEP_WAVEFRONT26; return ::CM_SUCCESS;
		case CM_VERTICAL_DEPENDENCY: dep = cmetal::CMETAL_DEP_VERTICAL; return ::CM_SUCCESS;
		case CM_HORIZONTAL_DEPENDENCY: dep = cmetal::CMETAL_DEP_HORIZONTAL; return ::CM_SUCCESS;
		default: return ::CM_NOT_IMPLEMENTED;   /* the 26Z patterns */
		}
	}
	UINT width, height;
	cmetal::cmetal_dependency dep;
};

/* grp_w x grp_h x grp_d groups of thrd_w x thrd_h x thrd_d threads. */
class CmThreadGroupSpace {
public:
	CmThreadGroupSpace(UINT tw, UINT th, UINT td, UINT gw, UINT gh, UINT gd)
	        : threads{tw, th, td}, groups{gw, gh, gd} {}
	uint32_t threads[3], groups[3];
};

class CmKernel {
public:
	CmKernel(cmetal::cmetal_kernel *k, CmDevice *d) : kern(k), dev(d), count(0), ts(nullptr),
	        tgs(nullptr)
	{
		uint32_t n = 0;
		cmetal::cmetal_kernel_arg_count(k, &n);
		per_thread.resize(n);
	}
	~CmKernel() { cmetal::cmetal_kernel_release(kern); }
	INT SetKernelArg(UINT index, size_t size, const void *value);
	/* thread_id: the linear id (y * width + x) in the thread space */
	INT SetThreadArg(UINT thread_id, UINT index, size_t size, const void *value)
	{
		cmetal::cmetal_arg_kind kind;
		uint32_t want = 0;
		cmetal::cm_status s = cmetal::cmetal_kernel_arg_info(kern, index, nullptr, &kind,
		                                                     &want);
		if (s)
			return cmrt_detail::code(s);
		if (!value)
			return CM_NULL_POINTER;
		if (kind == cmetal::CMETAL_ARG_SURFACE || kind == cmetal::CMETAL_ARG_SAMPLER)
			return ::CM_NOT_IMPLEMENTED;   /* per-thread surfaces: not in cmetal */
		if (size != want)
			return ::CM_INVALID_ARG_SIZE;
		if (count && thread_id >= count)
			return ::CM_INVALID_THREAD_INDEX;
		PerThread &p = per_thread[index];
		size_t n = count ? count : thread_id + 1;
		if (p.size != size || p.set.size() < n) {
			p.values.resize(n * size);
			p.set.resize(n, false);
			p.size = size;
		}
		memcpy(&p.values[thread_id * size], value, size);
		p.set[thread_id] = true;
		return ::CM_SUCCESS;
	}
	INT SetThreadCount(UINT n)
	{
		count = n;
		return ::CM_SUCCESS;
	}
	INT AssociateThreadSpace(CmThreadSpace *&space)
	{
		ts = space;
		tgs = nullptr;
		return ::CM_SUCCESS;
	}
	INT AssociateThreadGroupSpace(CmThreadGroupSpace *&space)
	{
		tgs = space;
		ts = nullptr;
		return ::CM_SUCCESS;
	}

	/* for CmQueue: hands the per-thread values of n threads to the C API
	 * (n = 0: a thread-group launch, which takes none) */
	INT prepare(uint64_t n)
	{
		for (size_t i = 0; i < per_thread.size(); i++) {
			PerThread &p = per_thread[i];
			if (!p.size)
				continue;
			if (!n)
				return CM_THREAD_ARG_NOT_ALLOWED;
			if (p.set.size() < n)
				return CM_NOT_SET_KERNEL_ARGUMENT;
			for (uint64_t t = 0; t < n; t++)
				if (!p.set[t])
					return CM_NOT_SET_KERNEL_ARGUMENT;
			cmetal::cm_status s = cmetal::cmetal_kernel_set_arg_per_thread(
			        kern, (uint32_t)i, (uint32_t)n, p.size, p.values.data());
			if (s)
				return cmrt_detail::code(s);
		}
		return ::CM_SUCCESS;
	}
	cmetal::cmetal_kernel *handle() const { return kern; }
	UINT thread_count() const { return count; }
	CmThreadSpace *space() const { return ts; }
	CmThreadGroupSpace *group_space() const { return tgs; }

private:
	struct PerThread {
		PerThread() : size(0) {}
		size_t size;                    /* 0: the argument is shared */
		std::vector<unsigned char> values;
		std::vector<bool> set;
	};
	cmetal::cmetal_kernel *kern;
	CmDevice *dev;
	UINT count;
	CmThreadSpace *ts;
	CmThreadGroupSpace *tgs;
	std::vector<PerThread> per_thread;
};

class CmTask {
public:
	INT AddKernel(CmKernel *k)
	{
		if (!k)
			return CM_NULL_POINTER;
		entries.push_back(k);
		return ::CM_SUCCESS;
	}
	/* later kernels see the memory effects of earlier ones (always so) */
	INT AddSync() { entries.push_back(nullptr); return ::CM_SUCCESS; }
	INT Reset() { entries.clear(); return ::CM_SUCCESS; }
	std::vector<CmKernel *> entries;    /* nullptr: a sync */
};

class CmQueue {
public:
	explicit CmQueue(CmDevice *d) : dev(d) {}
	/* Runs the task to completion: each kernel over ts, or its own thread
	 * space, or its thread count (a 1D space); *event tells the result
	 * and time.  Arguments are taken as they are now. */
	INT Enqueue(CmTask *task, CmEvent *&event, const CmThreadSpace *ts = nullptr)
	{
		return run(task, event, ts, nullptr);
	}
	INT EnqueueWithGroup(CmTask *task, CmEvent *&event, const CmThreadGroupSpace *tgs = nullptr)
	{
		return run(task, event, nullptr, tgs);
	}
	/* Copies between a 2D surface and host memory (rows tightly packed,
	 * or `stride` bytes apart), at once; event as for Enqueue. */
	INT EnqueueCopyCPUToGPU(CmSurface2D *surface, const unsigned char *sys, CmEvent *&event)
	{
		return copy_done(surface ? surface->WriteSurface(sys, nullptr) : CM_NULL_POINTER, event);
	}
	INT EnqueueCopyGPUToCPU(CmSurface2D *surface, unsigned char *sys, CmEvent *&event)
	{
		return copy_done(surface ? surface->ReadSurface(sys, nullptr) : CM_NULL_POINTER, event);
	}
	INT EnqueueCopyCPUToGPUFullStride(CmSurface2D *surface, const unsigned char *sys,
	                                  const UINT stride, const UINT height_stride,
	                                  const UINT option, CmEvent *&event)
	{
		(void)height_stride;
		(void)option;
		return copy_done(surface ? surface->WriteSurfaceStride(sys, nullptr, stride)
		                         : CM_NULL_POINTER, event);
	}
	INT EnqueueCopyGPUToCPUFullStride(CmSurface2D *surface, unsigned char *sys,
	                                  const UINT stride, const UINT height_stride,
	                                  const UINT option, CmEvent *&event)
	{
		(void)height_stride;
		(void)option;
		return copy_done(surface ? surface->ReadSurfaceStride(sys, nullptr, stride)
		                         : CM_NULL_POINTER, event);
	}
	INT DestroyEvent(CmEvent *&event)
	{
		if (event == CM_NO_EVENT) {
			event = nullptr;
			return ::CM_SUCCESS;
		}
		delete event;
		event = nullptr;
		return ::CM_SUCCESS;
	}

private:
	/* the event of a finished operation, none when CM_NO_EVENT was passed */
	static INT copy_done(INT r, CmEvent *&event)
	{
		if (event != CM_NO_EVENT)
			event = new CmEvent(r, 0);
		return r;
	}
	INT run(CmTask *task, CmEvent *&event, const CmThreadSpace *ts,
	        const CmThreadGroupSpace *tgs);
	INT add(cmetal::cmetal_task *t, CmKernel *k, const CmThreadSpace *ts,
	        const CmThreadGroupSpace *tgs);
	CmDevice *dev;
};

class CmDevice {
public:
	explicit CmDevice(cmetal::cmetal_device *d) : dev(d), next_index(1)
	{
		caps.threads = query(cmetal::CMETAL_DEVICE_THREADS);
		caps.max_group_threads = query(cmetal::CMETAL_DEVICE_MAX_GROUP_THREADS);
		caps.slm_size = query(cmetal::CMETAL_DEVICE_MAX_SLM);
		caps.max_walker = query(cmetal::CMETAL_DEVICE_MAX_WALKER);
		caps.host_svm = query(cmetal::CMETAL_DEVICE_HOST_SVM);
	}
	~CmDevice()
	{
		for (size_t i = 0; i < queues.size(); i++)
			delete queues[i];
		cmetal::cmetal_device_close(dev);
	}

	/* code: CM source text, PTX from cmetal -t ptx (CUDA device), or a
	 * kernel library built from cmetal -t c (CPU device).  options are
	 * Intel's JIT options and are not used. */
	INT LoadProgram(void *code, const UINT size, CmProgram *&program, const char *options = nullptr)
	{
		(void)options;
		program = nullptr;
		if (!code || !size)
			return CM_INVALID_COMMON_ISA;
		const char *c = (const char *)code;
		cmetal::cmetal_program *p = nullptr;
		cmetal::cm_status s;
		if ((size >= 4 && !memcmp(c, "\x7f" "ELF", 4)) ||
		    (size >= 13 && !memcmp(c, "//@cmetal abi", 13)) ||
		    (size >= 16 && !memcmp(c, "//@cmetal binary", 16)))
			s = load_binary(c, size, c[0] == 0x7f ? ".so" : c[10] == 'b' ? ".cmbin" : ".ptx", &p);
		else
			s = cmetal::cmetal_program_build(dev, std::string(c, size).c_str(), "", &p);
		if (s)
			return cmrt_detail::code(s);
		program = new CmProgram(p);
		return ::CM_SUCCESS;
	}
	INT DestroyProgram(CmProgram *&program) { return destroy(program); }

	/* Kernel printf: after InitPrintBuffer the output of every task is
	 * kept (in thread order) until FlushPrintBuffer writes it to stdout or
	 * FlushPrintBufferIntoFile to a file, emptying it; before, it goes to
	 * stdout after each task.  size is Intel's buffer size, not used: the
	 * buffer grows as needed. */
	INT InitPrintBuffer(size_t size = 1024 * 1024)
	{
		(void)size;
		return cmrt_detail::code(cmetal::cmetal_device_set_printf(dev, keep_printed, &printed));
	}
	INT FlushPrintBuffer() { return flush_printed(stdout); }
	INT FlushPrintBufferIntoFile(const char *path)
	{
		if (!path)
			return CM_NULL_POINTER;
		FILE *f = fopen(path, "w");
		if (!f)
			return ::CM_FAILURE;
		INT r = flush_printed(f);
		return fclose(f) && !r ? ::CM_FAILURE : r;
	}

	INT CreateKernel(CmProgram *program, const char *name, CmKernel *&kernel,
	                 const char *options = nullptr)
	{
		(void)options;
		kernel = nullptr;
		if (!program || !name)
			return CM_NULL_POINTER;
		cmetal::cmetal_kernel *k = nullptr;
		cmetal::cm_status s = cmetal::cmetal_kernel_create(program->handle(), name, &k);
		if (s)
			return cmrt_detail::code(s);
		kernel = new CmKernel(k, this);
		return ::CM_SUCCESS;
	}
	INT DestroyKernel(CmKernel *&kernel) { return destroy(kernel); }

	INT CreateBuffer(UINT size, CmBuffer *&buffer)
	{
		cmetal::cmetal_buffer *b = nullptr;
		buffer = nullptr;
		cmetal::cm_status s = cmetal::cmetal_buffer_create(dev, size, &b);
		if (s)
			return s == cmetal::CM_OUT_OF_MEMORY ? CM_SURFACE_ALLOCATION_FAILURE : cmrt_detail::code(s);
		buffer = new CmBuffer(this, next_index++, b, size);
		return ::CM_SUCCESS;
	}
	INT CreateBufferUP(UINT size, void *sys, CmBufferUP *&buffer)
	{
		cmetal::cmetal_buffer *b = nullptr;
		buffer = nullptr;
		cmetal::cm_status s = cmetal::cmetal_buffer_create_host(dev, sys, size, &b);
		if (s)
			return cmrt_detail::code(s);
		buffer = new CmBufferUP(this, next_index++, b, size);
		return ::CM_SUCCESS;
	}
	INT CreateBufferSVM(UINT size, void *&sys, UINT access_flag, CmBufferSVM *&buffer)
	{
		(void)access_flag;
		buffer = nullptr;
		cmetal::cmetal_svm *m = nullptr;
		cmetal::cm_status s = cmetal::cmetal_svm_alloc(dev, size, &m);
		if (s)
			return CM_FAILED_TO_ALLOCATE_SVM_BUFFER;
		uint64_t addr = 0;
		cmetal::cmetal_svm_address(m, &addr);
		bool shadow = !caps.host_svm;
		void *host = shadow ? calloc(1, size) : (void *)(uintptr_t)addr;
		if (!host) {
			cmetal::cmetal_svm_free(m);
			return CM_FAILED_TO_ALLOCATE_SVM_BUFFER;
		}
		if (sys && sys != host)
			return ::CM_NOT_IMPLEMENTED;   /* SVM over the host's own memory */
		sys = host;
		buffer = new CmBufferSVM(this, next_index++, m, host, size, shadow);
		svms.push_back(buffer);
		return ::CM_SUCCESS;
	}
	INT CreateSurface2D(UINT width, UINT height, CM_SURFACE_FORMAT format, CmSurface2D *&surface)
	{
		surface = nullptr;
		cmetal::cmetal_format f;
		UINT rows = height, bpp;
		INT r = format_of(format, &f, &rows, &bpp);
		if (r)
			return r;
		cmetal::cmetal_surface2d *s2 = nullptr;
		cmetal::cm_status s = cmetal::cmetal_surface2d_create(dev, width, rows, f, &s2);
		if (s)
			return size_code(s, width, height);
		surface = new CmSurface2D(this, next_index++, s2, (size_t)width * bpp, rows);
		return ::CM_SUCCESS;
	}
	INT CreateSurface2DUP(UINT width, UINT height, CM_SURFACE_FORMAT format, void *sys,
	                      CmSurface2DUP *&surface)
	{
		surface = nullptr;
		cmetal::cmetal_format f;
		UINT rows = height, bpp, pitch = 0, physical = 0;
		INT r = format_of(format, &f, &rows, &bpp);
		if (!r)
			r = GetSurface2DInfo(width, height, format, pitch, physical);
		if (r)
			return r;
		cmetal::cmetal_surface2d *s2 = nullptr;
		cmetal::cm_status s = cmetal::cmetal_surface2d_create_host(dev, sys, width, rows, f,
		                                                           pitch, &s2);
		if (s)
			return size_code(s, width, height);
		surface = new CmSurface2DUP(this, next_index++, s2, (size_t)width * bpp, rows);
		return ::CM_SUCCESS;
	}
	/* the pitch and size of host memory for CreateSurface2DUP */
	INT GetSurface2DInfo(UINT width, UINT height, CM_SURFACE_FORMAT format, UINT &pitch,
	                     UINT &physical_size)
	{
		cmetal::cmetal_format f;
		UINT rows = height, bpp;
		INT r = format_of(format, &f, &rows, &bpp);
		if (r)
			return r;
		uint32_t p = 0;
		cmetal::cm_status s = cmetal::cmetal_surface2d_pitch(width, f, &p);
		if (s)
			return size_code(s, width, height);
		pitch = p;
		physical_size = p * rows;
		return ::CM_SUCCESS;
	}
	INT DestroySurface(CmBuffer *&s) { return destroy(s); }
	INT DestroySurface(CmSurface2D *&s) { return destroy(s); }
	INT DestroyBufferUP(CmBufferUP *&s) { return destroy(s); }
	INT DestroySurface2DUP(CmSurface2DUP *&s) { return destroy(s); }
	INT DestroyBufferSVM(CmBufferSVM *&s)
	{
		for (size_t i = 0; i < svms.size(); i++)
			if (svms[i] == s)
				svms.erase(svms.begin() + (long)i);
		return destroy(s);
	}

	INT CreateThreadSpace(UINT width, UINT height, CmThreadSpace *&space)
	{
		space = nullptr;
		if (!width || width > caps.max_walker)
			return CM_INVALID_WIDTH;
		if (!height || height > caps.max_walker)
			return CM_INVALID_HEIGHT;
		space = new CmThreadSpace(width, height);
		return ::CM_SUCCESS;
	}
	INT DestroyThreadSpace(CmThreadSpace *&space) { return destroy(space); }
	INT CreateThreadGroupSpace(UINT thrd_w, UINT thrd_h, UINT grp_w, UINT grp_h,
	                           CmThreadGroupSpace *&space)
	{
		return CreateThreadGroupSpaceEx(thrd_w, thrd_h, 1, grp_w, grp_h, 1, space);
	}
	INT CreateThreadGroupSpaceEx(UINT thrd_w, UINT thrd_h, UINT thrd_d, UINT grp_w, UINT grp_h,
	                             UINT grp_d, CmThreadGroupSpace *&space)
	{
		space = nullptr;
		if (!thrd_w || !thrd_h || !thrd_d || !grp_w || !grp_h || !grp_d ||
		    (uint64_t)thrd_w * thrd_h * thrd_d > caps.max_group_threads)
			return ::CM_INVALID_THREAD_GROUP_SPACE;
		space = new CmThreadGroupSpace(thrd_w, thrd_h, thrd_d, grp_w, grp_h, grp_d);
		return ::CM_SUCCESS;
	}
	INT DestroyThreadGroupSpace(CmThreadGroupSpace *&space) { return destroy(space); }

	INT CreateTask(CmTask *&task) { task = new CmTask; return ::CM_SUCCESS; }
	INT DestroyTask(CmTask *&task) { return destroy(task); }
	/* one queue per device, as Intel's runtime gives */
	INT CreateQueue(CmQueue *&queue)
	{
		if (queues.empty())
			queues.push_back(new CmQueue(this));
		queue = queues[0];
		return ::CM_SUCCESS;
	}

	/* value gets a UINT (CAP_MAX_BUFFER_SIZE: a size_t if it has room) */
	INT GetCaps(CM_DEVICE_CAP_NAME name, size_t &size, void *value)
	{
		uint64_t v;
		switch (name) {
		case CAP_KERNEL_COUNT_PER_TASK: v = 1024; break;
		case CAP_SAMPLER_COUNT: case CAP_SAMPLER_COUNT_PER_KERNEL: v = 0; break;
		case CAP_HW_THREAD_COUNT: v = caps.threads; break;
		case CAP_USER_DEFINED_THREAD_COUNT_PER_TASK:
		case CAP_USER_DEFINED_THREAD_COUNT_PER_TASK_NO_THREAD_ARG:
		case CAP_USER_DEFINED_THREAD_COUNT_PER_MEDIA_WALKER:
			v = (uint64_t)caps.max_walker * caps.max_walker; break;
		case CAP_USER_DEFINED_THREAD_COUNT_PER_THREAD_GROUP: v = caps.max_group_threads; break;
		case CAP_SLM_SIZE: v = caps.slm_size; break;
		case CAP_MAX_BUFFER_SIZE: v = (uint64_t)4 << 30; break;
		default: return CM_INVALID_CAP_NAME;
		}
		if (!value)
			return CM_NULL_POINTER;
		if (size >= 8 && name == CAP_MAX_BUFFER_SIZE) {
			memcpy(value, &v, 8);
			size = 8;
			return ::CM_SUCCESS;
		}
		if (size < 4)
			return ::CM_FAILURE;
		uint32_t u = v > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)v;
		memcpy(value, &u, 4);
		size = 4;
		return ::CM_SUCCESS;
	}

	/* for the other classes */
	cmetal::cmetal_device *handle() const { return dev; }
	/* binds svmptr_t argument i to the SVM buffer holding host address p */
	bool bind_svm(cmetal::cmetal_kernel *k, uint32_t i, const void *p, cmetal::cm_status *s)
	{
		uint64_t off = 0;
		for (size_t j = 0; j < svms.size(); j++)
			if (svms[j]->holds(p, &off)) {
				*s = cmetal::cmetal_kernel_set_arg_svm(k, i, svms[j]->handle(), off);
				return true;
			}
		return false;
	}
	cmetal::cm_status svm_sync(bool to_device)
	{
		for (size_t j = 0; j < svms.size(); j++) {
			cmetal::cm_status s = to_device ? svms[j]->to_device() : svms[j]->to_host();
			if (s)
				return s;
		}
		return cmetal::CM_SUCCESS;
	}

private:
	template <class T> INT destroy(T *&p)
	{
		if (!p)
			return CM_NULL_POINTER;
		delete p;
		p = nullptr;
		return ::CM_SUCCESS;
	}
	/* cmetal's format, rows (NV12: a Y plane then a half-height UV plane)
	 * and bytes per pixel of an Intel format */
	static INT format_of(CM_SURFACE_FORMAT f, cmetal::cmetal_format *out, UINT *rows, UINT *bpp)
	{
		using namespace cmetal;
		*bpp = 4;
		switch (f) {
		case CM_SURFACE_FORMAT_A8R8G8B8: case CM_SURFACE_FORMAT_X8R8G8B8:
			*out = CMETAL_FMT_A8R8G8B8; return ::CM_SUCCESS;
		case CM_SURFACE_FORMAT_A8B8G8R8: *out = CMETAL_FMT_R8G8B8A8; return ::CM_SUCCESS;
		case CM_SURFACE_FORMAT_R32F: *out = CMETAL_FMT_R32F; return ::CM_SUCCESS;
		case CM_SURFACE_FORMAT_R32_UINT: *out = CMETAL_FMT_R32_UINT; return ::CM_SUCCESS;
		case CM_SURFACE_FORMAT_R32_SINT: *out = CMETAL_FMT_R32_SINT; return ::CM_SUCCESS;
		case CM_SURFACE_FORMAT_A32B32G32R32F:
			*out = CMETAL_FMT_R32G32B32A32F; *bpp = 16; return ::CM_SUCCESS;
		case CM_SURFACE_FORMAT_R16_UINT: *out = CMETAL_FMT_R16_UINT; *bpp = 2; return ::CM_SUCCESS;
		case CM_SURFACE_FORMAT_A8: *out = CMETAL_FMT_A8; *bpp = 1; return ::CM_SUCCESS;
		case CM_SURFACE_FORMAT_R8_UINT: case CM_SURFACE_FORMAT_P8: case CM_SURFACE_FORMAT_L8:
			*out = CMETAL_FMT_R8_UINT; *bpp = 1; return ::CM_SUCCESS;
		case CM_SURFACE_FORMAT_NV12:
			if (*rows % 2)
				return CM_INVALID_HEIGHT;
			*out = CMETAL_FMT_R8_UINT;
			*bpp = 1;
			*rows = *rows / 2 * 3;
			return ::CM_SUCCESS;
		default: return CM_SURFACE_FORMAT_NOT_SUPPORTED;
		}
	}
	static INT size_code(cmetal::cm_status s, UINT width, UINT height)
	{
		if (s == cmetal::CM_INVALID_VALUE)
			return !width || width > 16384 ? CM_INVALID_WIDTH :
			       !height || height > 16384 ? CM_INVALID_HEIGHT : ::CM_INVALID_ARG_VALUE;
		return s == cmetal::CM_OUT_OF_MEMORY ? CM_SURFACE_ALLOCATION_FAILURE
		                                     : cmrt_detail::code(s);
	}
	static void keep_printed(void *user, const char *text, size_t len)
	{
		((std::string *)user)->append(text, len);
	}
	INT flush_printed(FILE *f)
	{
		bool ok = fwrite(printed.data(), 1, printed.size(), f) == printed.size();
		printed.clear();
		return ok && !fflush(f) ? ::CM_SUCCESS : ::CM_FAILURE;
	}

	/* a .so or .ptx given in memory: written to a private temporary file
	 * and loaded from there */
	cmetal::cm_status load_binary(const char *c, size_t n, const char *ext,
	                              cmetal::cmetal_program **p)
	{
		const char *tmp = getenv("TMPDIR");
		std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/cmrt-XXXXXX";
		std::vector<char> d(dir.begin(), dir.end());
		d.push_back('\0');
		if (!mkdtemp(d.data()))
			return cmetal::CM_IO_ERROR;
		std::string path = std::string(d.data()) + "/program" + ext;
		FILE *f = fopen(path.c_str(), "wb");
		bool ok = f && fwrite(c, 1, n, f) == n;
		if (f)
			ok = !fclose(f) && ok;
		cmetal::cm_status s = ok ? cmetal::cmetal_program_load(dev, path.c_str(), p)
		                         : cmetal::CM_IO_ERROR;
		remove(path.c_str());
		rmdir(d.data());
		return s;
	}

	/* One answer of cmetal_device_info (0 if the device cannot say). */
	uint64_t query(cmetal::cmetal_device_attr attr)
	{
		uint64_t v = 0;
		cmetal::cmetal_device_info(dev, attr, &v);
		return v;
	}

	cmetal::cmetal_device *dev;
	struct {
		uint64_t threads, max_group_threads, slm_size, max_walker, host_svm;
	} caps;                       /* the device's limits, asked once */
	unsigned int next_index;
	std::string printed;  /* kernel printf kept since InitPrintBuffer */
	std::vector<CmBufferSVM *> svms;
	std::vector<CmQueue *> queues;
};

/* SurfaceIndex arguments bind their surface; an svmptr_t argument given a
 * host address inside a CmBufferSVM binds that buffer; others are values. */
inline INT CmKernel::SetKernelArg(UINT index, size_t size, const void *value)
{
	cmetal::cmetal_arg_kind kind;
	uint32_t want = 0;
	cmetal::cm_status s = cmetal::cmetal_kernel_arg_info(kern, index, nullptr, &kind, &want);
	if (s)
		return cmrt_detail::code(s);
	if (!value)
		return CM_NULL_POINTER;
	if (index < per_thread.size())
		per_thread[index] = PerThread();
	if (kind == cmetal::CMETAL_ARG_SURFACE) {
		if (size != sizeof(SurfaceIndex))
			return ::CM_INVALID_ARG_SIZE;
		cmrt_detail::Bindable *b = ((const SurfaceIndex *)value)->surface();
		return b ? cmrt_detail::code(b->bind(kern, index)) : ::CM_INVALID_ARG_VALUE;
	}
	if (kind == cmetal::CMETAL_ARG_SVM && size == sizeof(void *) && size == want) {
		const void *p;
		memcpy(&p, value, sizeof p);
		if (dev->bind_svm(kern, index, p, &s))
			return cmrt_detail::code(s);
	}
	return cmrt_detail::code(cmetal::cmetal_kernel_set_arg(kern, index, size, value));
}

/* One kernel of a task over its space: the queue's, the kernel's own, or
 * its thread count as a walker of width * height = count threads. */
inline INT CmQueue::add(cmetal::cmetal_task *t, CmKernel *k, const CmThreadSpace *ts,
                        const CmThreadGroupSpace *tgs)
{
	if (!tgs && !ts) {
		ts = k->space();
		tgs = ts ? nullptr : k->group_space();
	}
	if (tgs) {
		INT r = k->prepare(0);
		if (r)
			return r;
		return cmrt_detail::code(cmetal::cmetal_task_add_groups(t, k->handle(), tgs->groups,
		                                                        tgs->threads));
	}
	uint32_t w, h;
	cmetal::cmetal_dependency dep = cmetal::CMETAL_DEP_NONE;
	if (ts) {
		w = ts->width;
		h = ts->height;
		dep = ts->dep;
		if (k->thread_count() && k->thread_count() != (uint64_t)w * h)
			return CM_INVALID_KERNEL_THREADSPACE;
	} else {
		uint32_t n = k->thread_count();
		if (!n)
			return CM_KERNEL_THREADSPACE_NOT_SET;
		for (w = n < 65535 ? n : 65535; w > 1 && n % w; w--)
			;
		h = n / w;
		if (h > 65535)
			return ::CM_INVALID_THREAD_SPACE;
	}
	INT r = k->prepare((uint64_t)w * h);
	if (r)
		return r;
	return cmrt_detail::code(cmetal::cmetal_task_add_walker(t, k->handle(), w, h, dep));
}

inline INT CmQueue::run(CmTask *task, CmEvent *&event, const CmThreadSpace *ts,
                        const CmThreadGroupSpace *tgs)
{
	bool want_event = event != CM_NO_EVENT;
	if (want_event)
		event = nullptr;
	if (!task)
		return CM_NULL_POINTER;
	cmetal::cmetal_task *t = nullptr;
	cmetal::cm_status s = cmetal::cmetal_task_create(dev->handle(), &t);
	if (s)
		return cmrt_detail::code(s);
	INT r = ::CM_SUCCESS;
	for (size_t i = 0; i < task->entries.size() && !r; i++)
		r = task->entries[i] ? add(t, task->entries[i], ts, tgs)
		                     : cmrt_detail::code(cmetal::cmetal_task_add_sync(t));
	cmetal::cmetal_event *ev = nullptr;
	double ms = 0;
	if (!r && !(r = cmrt_detail::code(dev->svm_sync(true)))) {
		s = cmetal::cmetal_task_run(t, &ev);
		if (ev)
			cmetal::cmetal_event_elapsed_ms(ev, &ms);
		cmetal::cm_status s2 = dev->svm_sync(false);
		r = cmrt_detail::code(s ? s : s2);
	}
	if (ev)
		cmetal::cmetal_event_release(ev);
	cmetal::cmetal_task_release(t);
	if (want_event)
		event = new CmEvent(r, (UINT64)(ms * 1e6));
	return r;
}

/* Opens the device $CMETAL_DEVICE names ("cpu", "cuda", ...), else the GPU
 * when one works, else the CPU.  version gets 0x700 (the API level whose
 * classes this header provides); display and options are not used. */
inline INT CreateCmDevice(CmDevice *&device, UINT &version, void *display = nullptr,
                          UINT options = 0)
{
	(void)display;
	(void)options;
	device = nullptr;
	version = 0x700;
	cmetal::cmetal_device *d = nullptr;
	cmetal::cm_status s = cmetal::cmetal_device_open(nullptr, &d);
	if (s)
		return cmrt_detail::code(s);
	device = new CmDevice(d);
	return ::CM_SUCCESS;
}

inline INT DestroyCmDevice(CmDevice *&device)
{
	if (!device)
		return CM_NULL_POINTER;
	delete device;
	device = nullptr;
	return ::CM_SUCCESS;
}

#endif
