/* fake_cuda.c — a stand-in libcuda.so.1 for testing the CUDA device on a
 * machine without a GPU.  "Device memory" is host memory (a device pointer
 * is the host address), copies are memcpy, and cuLaunchKernel runs a few
 * kernels written here in C that read the launch block exactly as the PTX
 * back end's kernels do (rt/cuda_abi.h).  Kernels:
 *   fill(SurfaceIndex out, int v)  every CM thread t: out[t] = v + t (u32)
 *   walk(SurfaceIndex out)         walker: out[linear] = x * 1000 + y
 *   oob(SurfaceIndex out)          reports a fault at line 42 (a line
 *                                  alone, as a fault hook writes it)
 *   oobk(SurfaceIndex out)         a full fault record (rt/cuda_abi.h
 *                                  "Faults"): a scatter at line 7 by the
 *                                  last CM thread of the launch
 *   pf(SurfaceIndex out, int n)    every CM thread t, last thread first,
 *                                  n times: printf 0 (t, t * 0.5) and
 *                                  printf 1 ((uint64)t << 33), as records
 *                                  in the launch's printf buffer
 *   hungry(SurfaceIndex out, int v) as fill, with 255 registers per lane
 *                                  (or the module's CU_JIT_MAX_REGISTERS):
 *                                  a CTA past the register file fails with
 *                                  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
 *   snug(SurfaceIndex out, int v)  as fill, with 40 registers per lane
 *                                  (with a CU_JIT_MAX_REGISTERS below 40:
 *                                  that many, and 8 bytes of local memory)
 *   tight(SurfaceIndex out, int v) as snug, with 64 bytes of local memory
 *                                  when capped
 *   any other name                 runs its PTX in the simulator
 *                                  (ptxsim.h) when the module defines
 *                                  it, else does nothing ("missing" is
 *                                  not found); so does hungry when its
 *                                  module defines it (the exec tests'
 *                                  register-hungry kernel), keeping its
 *                                  register count
 * A simulated launch that fails (an instruction the simulator does not
 * know, an address outside every allocation, a deadlock, ...) prints the
 * simulator's message on stderr and the wait that ran it returns
 * CUDA_ERROR_INVALID_VALUE, whose text (cuGetErrorString) is that
 * message (see the stream below): the runtime reports it
 * as a refused launch and keeps the context, so a test run goes on with
 * the next test (a sticky error would lose the device for all of them).
 * Allocations are registered with the simulator, which refuses any global
 * access outside them.  $FAKE_CUDA_NO_SIM turns the simulator off (every
 * kernel without a hand-written body does nothing, launches cost nothing:
 * the runtime's microbenchmarks).
 * cuLaunchKernelEx takes cluster launches (rt/cuda_abi.h "Clusters"): it
 * checks the cluster dimension against the grid, the block against the
 * launch block's cta_warps and local sizes (no CTA without a real CM
 * thread), and runs fill over the real CM threads of every group.
 * cuModuleLoadDataEx rejects a PTX containing "BADPTX" with a JIT-style
 * error log naming PTX line 7.  Counters (fake_stats) let a test check
 * that a repeated launch uploads nothing.  An ELF image (a cubin) counts
 * in fake_cubin_loads, and is refused as CUDA_ERROR_NO_BINARY_FOR_GPU when
 * $FAKE_CUDA_NO_CUBIN is set (a cubin for another GPU).  The device is
 * compute capability 9.0, or $FAKE_CUDA_CC ("12.0"); fake_last_target
 * holds the .target of the last PTX loaded.
 *
 * The stream is a queue, as on a GPU: the asynchronous calls (cuMemcpy*Async,
 * cuMemsetD8Async, cuLaunchKernel[Ex], cuEventRecord) only append work, and
 * the work runs in order when the host waits for it (cuStreamSynchronize,
 * cuCtxSynchronize, cuEventSynchronize, and the synchronous copies and
 * memsets, which wait for the stream first as the legacy NULL stream does).
 * So a copy reads its host source when it runs, not when it is queued, and a
 * launch copies its parameters when it is queued (the driver's contract):
 * host memory reused before the wait shows up as wrong results.  A launch
 * checks its shape when queued (lanes, registers, cluster dimensions) and
 * its launch block when it runs; a failure while running drops the rest of
 * the queue and is returned by the wait.  Time is a clock of the stream:
 * each kernel takes 0.5 ms and each queued copy or memset 0.25 ms, and an
 * event records the clock when it runs (cuEventElapsedTime before both
 * events ran is CUDA_ERROR_NOT_READY).  fake_stats counts the host's waits
 * on the stream (waits), and frees of memory while work was queued
 * (frees_pending, after which the queue is drained as cuMemFree does).
 * fake_inject makes the Nth launch from now fail: launch_fail at the call
 * (CUDA_ERROR_INVALID_VALUE), run_fail while running (CUDA_ERROR_ILLEGAL_
 * ADDRESS, sticky on a GPU; here returned by the next wait only). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_cuda.h"
#include "ptxsim.h"
#include "rt/cuda_abi.h"

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

FakeStats fake_stats;
FakeInject fake_inject;

static int ctx_obj, stream_obj;
/* A module remembers its register cap; its functions point back at it. */
#define NNAMES 9
typedef struct {
	int maxreg;
	char *ptx;                /* the module's text (NULL for a cubin) */
	PsModule *sim;            /* its kernels for the simulator, parsed once */
} FakeModule;
typedef struct {
	const char *name;         /* the hand-written kernel, or "other" */
	FakeModule *mod;
	unsigned lanes;
	char real[128];           /* the kernel's own name */
} FakeFunc;
static const char *names[] = {"fill", "walk", "oob", "pf", "hungry", "oobk", "snug", "tight",
                              "other"};
static FakeModule mods[256];
static FakeFunc funcs[256][NNAMES];
static int nmods;
int fake_maxreg_loads;   /* modules loaded with CU_JIT_MAX_REGISTERS */

CUresult cuInit(unsigned f) { return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 12040; return 0; }
static char sim_err[1024];   /* the last failed simulation's message */
CUresult cuGetErrorString(CUresult e, const char **s)
{
	*s = (e == 1 || e == 700) && sim_err[0] ? sim_err : "fake error";
	return 0;
}
CUresult cuGetErrorName(CUresult e, const char **s) { *s = "CUDA_ERROR_FAKE"; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int o) { *d = o; return 0; }
CUresult cuDeviceGetName(char *n, int len, int d) { strncpy(n, "FakeGPU", len); return 0; }
CUresult cuDeviceGetAttribute(int *v, int attr, int d)
{
	const char *cc = getenv("FAKE_CUDA_CC");
	int major = cc ? atoi(cc) : 9, minor = cc && strchr(cc, '.') ? atoi(strchr(cc, '.') + 1) : 0;
	*v = attr == 75 ? major : attr == 76 ? minor : attr == 16 ? 132 : 0;
	return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *b, int d) { *b = (size_t)1 << 30; return 0; }
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { *c = &ctx_obj; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int d) { return 0; }
CUresult cuCtxSetCurrent(void *c) { return 0; }
CUresult cuCtxSetLimit(int l, size_t v) { return 0; }
/* ---- the stream: queued work, run in order when the host waits ---- */

typedef struct FakeEvent { double t; bool done; } FakeEvent;
typedef enum { Q_COPY, Q_SET, Q_KERNEL, Q_EVENT } QKind;
typedef struct {
	QKind kind;
	void *dst;                /* copy, set */
	const void *src;
	size_t n;
	unsigned char v;
	FakeEvent *ev;            /* event */
	FakeFunc *fn;             /* kernel */
	unsigned grid[3], block[3], shmem;
	unsigned cx;              /* cuLaunchKernelEx's cluster size; 0: cuLaunchKernel */
	void **params;            /* pointers into blob: the values as queued */
	unsigned char *blob;
	int fail;                 /* fake_inject.run_fail: the error it runs into */
} QOp;
static QOp *queue;
static int qlen, qcap;
static double fake_clock;     /* ms: the stream's time */
static pthread_mutex_t qmu = PTHREAD_MUTEX_INITIALIZER;
static CUresult run_kernel(QOp *op);

static void push(QOp op)
{
	pthread_mutex_lock(&qmu);
	if (qlen == qcap) {
		qcap = qcap ? 2 * qcap : 64;
		queue = realloc(queue, sizeof *queue * (size_t)qcap);
		if (!queue)
			abort();
	}
	queue[qlen++] = op;
	pthread_mutex_unlock(&qmu);
}

/* Runs the queue; the first failure drops the rest and is returned. */
static CUresult drain(void)
{
	CUresult r = 0;
	pthread_mutex_lock(&qmu);
	for (int i = 0; i < qlen; i++) {
		QOp *op = &queue[i];
		if (!r && op->kind == Q_COPY)
			memmove(op->dst, op->src, op->n), fake_clock += 0.25;
		else if (!r && op->kind == Q_SET)
			memset(op->dst, op->v, op->n), fake_clock += 0.25;
		else if (!r && op->kind == Q_EVENT)
			op->ev->t = fake_clock, op->ev->done = true;
		else if (!r && op->kind == Q_KERNEL)
			r = run_kernel(op), fake_clock += 0.5;
		free(op->blob);
	}
	qlen = 0;
	pthread_mutex_unlock(&qmu);
	return r;
}

/* A call that waits for the stream. */
static CUresult wait_stream(void)
{
	fake_stats.waits++;
	return drain();
}

/* A free: cuMemFree waits for the queued work first. */
static void drain_for_free(void)
{
	pthread_mutex_lock(&qmu);
	bool pending = qlen > 0;
	pthread_mutex_unlock(&qmu);
	fake_stats.frees_pending += pending;
	drain();
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	void *m = malloc(n);
	if (!m)
		return 2;
	memset(m, 0xAB, n);  /* garbage: the runtime must zero it */
	*p = (CUdeviceptr)(uintptr_t)m;
	ps_region(*p, n, true);
	fake_stats.allocs++;
	return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p)
{
	drain_for_free();
	ps_region(p, 0, false);
	free((void *)(uintptr_t)p);
	fake_stats.frees++;
	return 0;
}
CUresult cuMemHostAlloc(void **p, size_t n, unsigned f)
{
	*p = calloc(1, n);
	if (*p)
		ps_region((uint64_t)(uintptr_t)*p, n, true);
	return *p ? 0 : 2;
}
CUresult cuMemFreeHost(void *p)
{
	drain_for_free();
	ps_region((uint64_t)(uintptr_t)p, 0, false);
	free(p);
	return 0;
}
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p, unsigned f)
{
	*d = (CUdeviceptr)(uintptr_t)p;
	return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n)
{
	CUresult r = wait_stream();
	memcpy((void *)(uintptr_t)d, s, n);
	return r;
}
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n)
{
	CUresult r = wait_stream();
	memcpy(d, (void *)(uintptr_t)s, n);
	return r;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n)
{
	CUresult r = wait_stream();
	memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
	return r;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, void *st)
{
	fake_stats.uploads++;
	push((QOp){.kind = Q_COPY, .dst = (void *)(uintptr_t)d, .src = s, .n = n});
	return 0;
}
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *st)
{
	push((QOp){.kind = Q_COPY, .dst = d, .src = (const void *)(uintptr_t)s, .n = n});
	return 0;
}
CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n)
{
	CUresult r = wait_stream();
	memset((void *)(uintptr_t)d, v, n);
	return r;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void *st)
{
	push((QOp){.kind = Q_SET, .dst = (void *)(uintptr_t)d, .v = v, .n = n});
	return 0;
}
int fake_cubin_loads;
char fake_last_target[32];

/* A new module with the cap of the options (CU_JIT_MAX_REGISTERS = 0);
 * a capped one writes a ptxas-style line to the info log (option 3). */
static void *new_module(unsigned n, int *opts, void **vals)
{
	FakeModule *fm = &mods[nmods < 255 ? nmods++ : 255];
	fm->maxreg = 0;
	fm->ptx = NULL;
	fm->sim = NULL;
	for (unsigned i = 0; i < n; i++)
		if (opts[i] == 0)
			fm->maxreg = (int)(uintptr_t)vals[i];
	for (unsigned i = 0; fm->maxreg && i < n; i++)
		if (opts[i] == 3)
			strcpy(vals[i], "ptxas info    : Function properties for hungry\n"
			       "    512 bytes stack frame, 480 bytes spill stores, 480 bytes spill loads");
	fake_maxreg_loads += fm->maxreg != 0;
	return fm;
}

/* Lanes per CM thread of kernel name: 32, or the metadata's "lanes W"
 * when the PTX back end packed 32/W CM threads to a warp. */
static unsigned lanes_of(const char *ptx, const char *name)
{
	char pat[300];
	snprintf(pat, sizeof pat, "//@cmetal kernel %s ", name);
	const char *k = ptx ? strstr(ptx, pat) : NULL, *e = k ? strchr(k, '\n') : NULL;
	const char *l = k ? strstr(k, " lanes ") : NULL;
	return l && (!e || l < e) && atoi(l + 7) > 0 ? (unsigned)atoi(l + 7) : 32;
}

CUresult cuModuleLoadDataEx(void **m, const void *image, unsigned n, int *opts, void **vals)
{
	if (!memcmp(image, "\177ELF", 4)) {
		if (getenv("FAKE_CUDA_NO_CUBIN"))
			return 209;  /* CUDA_ERROR_NO_BINARY_FOR_GPU */
		fake_cubin_loads++;
		*m = new_module(0, NULL, NULL);
		return 0;
	}
	const char *t = strstr(image, ".target ");
	if (t)
		snprintf(fake_last_target, sizeof fake_last_target, "%.*s",
		         (int)strcspn(t + 8, " \n,"), t + 8);
	if (!strstr(image, "BADPTX")) {
		FakeModule *fm = new_module(n, opts, vals);
		size_t len = strlen(image) + 1;
		fm->ptx = malloc(len);     /* kept for lanes_of; a fake leaks it */
		if (fm->ptx)
			memcpy(fm->ptx, image, len);
		*m = fm;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		if (opts[i] == 5)  /* CU_JIT_ERROR_LOG_BUFFER */
			strcpy(vals[i], "ptxas application ptx input, line 7; error   : "
			       "Unknown symbol 'BADPTX'\nptxas fatal   : Ptx assembly aborted");
	return 218;  /* CUDA_ERROR_INVALID_PTX */
}
CUresult cuModuleUnload(void *m) { return 0; }
/* The function of kernel name (without a hand-written body) in module m:
 * the same one for the same name, as the driver does. */
static FakeFunc *other_func(void *m, const char *name)
{
	static FakeFunc others[8192];
	static int nothers;
	for (int i = 0; i < nothers; i++)
		if (others[i].mod == m && !strcmp(others[i].real, name))
			return &others[i];
	return nothers < 8192 ? &others[nothers++] : NULL;
}

CUresult cuModuleGetFunction(void **f, void *m, const char *name)
{
	if (!strcmp(name, "missing"))
		return 500;  /* CUDA_ERROR_NOT_FOUND */
	size_t i = 0;
	while (i < NNAMES - 1 && strcmp(names[i], name))
		i++;
	FakeFunc *fn = &funcs[(FakeModule *)m - mods][i];
	if (i == NNAMES - 1)   /* "other": one function per module and name */
		fn = other_func(m, name);
	if (!fn)
		return 2;   /* CUDA_ERROR_OUT_OF_MEMORY */
	*fn = (FakeFunc){names[i], m, lanes_of(((FakeModule *)m)->ptx, name), ""};
	snprintf(fn->real, sizeof fn->real, "%s", name);
	*f = fn;
	return 0;
}

static bool snug(const FakeFunc *fn)
{
	return !strcmp(fn->name, "snug") || !strcmp(fn->name, "tight");
}

/* Registers per lane: 32; 255 for hungry and 40 for snug and tight,
 * unless their module's cap is lower. */
static int fake_regs(const FakeFunc *fn)
{
	int want = !strcmp(fn->name, "hungry") ? 255 : snug(fn) ? 40 : 32;
	if (want == 32)
		return 32;
	return fn->mod->maxreg && fn->mod->maxreg < want ? fn->mod->maxreg : want;
}

CUresult cuFuncGetAttribute(int *v, int attr, void *f)
{
	const FakeFunc *fn = f;
	*v = attr == 4 ? fake_regs(fn) : attr == 0 ? 1024 : 0;
	if (attr == 3 && (snug(fn) || !strcmp(fn->name, "hungry")) && fn->mod->maxreg &&
	    fake_regs(fn) == fn->mod->maxreg)
		/* CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: the spills */
		*v = !strcmp(fn->name, "hungry") ? 512 : !strcmp(fn->name, "snug") ? 8 : 64;
	return 0;
}

/* The surface of slot `slot` in the launch's table. */
static CudaSurface *surface(const CudaLaunch *l, uint32_t slot)
{
	if (slot >= l->nsurfaces)
		return NULL;
	return (CudaSurface *)(uintptr_t)l->surfaces + slot;
}

/* The surface of a hand-written kernel's surface argument p (its
 * CudaSurfaceParam: every surface of fake_ptx has one); NULL, failing the
 * launch, when the descriptor there is not the table's. */
static CudaSurface *param_surface(const CudaLaunch *l, const void *p)
{
	CudaSurfaceParam sp;
	memcpy(&sp, p, sizeof sp);
	CudaSurface *s = surface(l, sp.slot);
	if (!s || sp.base != s->base || sp.size != s->size || sp.width != s->width ||
	    sp.height != s->height || sp.pitch != s->pitch || sp.bpp != s->bpp)
		return NULL;
	return s;
}

static void put32(CudaSurface *s, uint64_t index, uint32_t v)
{
	if (s && (index + 1) * 4 <= s->size)  /* CM: writes past the end are dropped */
		memcpy((unsigned char *)(uintptr_t)s->base + index * 4, &v, 4);
}

/* Claims a record of 8 + 8 * nargs bytes as the PTX does; NULL when the
 * launch has no buffer or the record does not fit. */
static unsigned char *claim(const CudaLaunch *l, uint32_t fmt, uint32_t thread, int nargs)
{
	if (!l->printf_buf)
		return NULL;
	CudaPrintf *h = (CudaPrintf *)(uintptr_t)l->printf_buf;
	uint64_t size = 8 + 8 * (uint64_t)nargs, old = h->used;
	h->used += size;
	if (old + size > l->printf_cap) {
		uint32_t end = UINT32_MAX;
		if (old + 8 <= l->printf_cap)
			memcpy((unsigned char *)(uintptr_t)l->printf_buf + CUDA_P_RECORDS + old, &end, 4);
		h->overflow = 1;
		return NULL;
	}
	unsigned char *r = (unsigned char *)(uintptr_t)l->printf_buf + CUDA_P_RECORDS + old;
	memcpy(r, &fmt, 4);
	memcpy(r + 4, &thread, 4);
	return r + 8;
}

static void fake_printf(const CudaLaunch *l, uint64_t warps, int n)
{
	for (uint64_t t = warps; t-- > 0; )
		for (int k = 0; k < n; k++) {
			unsigned char *a = claim(l, 0, (uint32_t)t, 2);
			if (a) {
				int64_t i = (int32_t)t;
				double d = (double)t * 0.5;
				memcpy(a, &i, 8);
				memcpy(a + 8, &d, 8);
			}
			if ((a = claim(l, 1, (uint32_t)t, 1))) {
				uint64_t u = t << 33;
				memcpy(a, &u, 8);
			}
		}
}

/* Whether the CudaLaunchParam at p, kernelParams[0], agrees with the
 * launch block it points at (rt/cuda_abi.h "Kernel entry"). */
static bool same_launch(const void *p, const CudaLaunch *l)
{
	CudaLaunchParam lp;
	memcpy(&lp, p, sizeof lp);
	bool ok = lp.kind == l->kind && lp.threads_per_cta == l->threads_per_cta &&
	          lp.nthreads == l->nthreads && lp.cta_warps == l->cta_warps &&
	          lp.width == l->width &&
	          !memcmp(lp.local, l->local, sizeof lp.local);
	if (!ok)
		fprintf(stderr, "fake_cuda: the launch parameter disagrees with the launch block\n");
	return ok;
}

/* The module's kernels for the simulator when fn runs there, else NULL:
 * any kernel without a hand-written body, and hungry, whose module
 * defines it. */
static PsModule *sim_module(FakeFunc *fn)
{
	if (strcmp(fn->name, "other") && strcmp(fn->name, "hungry"))
		return NULL;
	if (getenv("FAKE_CUDA_NO_SIM"))
		return NULL;
	FakeModule *fm = fn->mod;
	if (!fm->ptx)
		return NULL;
	if (!fm->sim)
		fm->sim = ps_load(fm->ptx);
	return ps_has_kernel(fm->sim, fn->real) ? fm->sim : NULL;
}

/* Runs fn's PTX; 0, or CUDA_ERROR_INVALID_VALUE with the message. */
static CUresult simulate(FakeFunc *fn, PsModule *sm, const unsigned grid[3],
                         const unsigned block[3], unsigned shmem, void **params)
{
	PsLaunch pl = {{grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]}, shmem,
	               params};
	if (ps_launch(sm, fn->real, &pl, sim_err, sizeof sim_err))
		return 0;
	fprintf(stderr, "%s\n", sim_err);
	return 1;
}

/* The bytes of each parameter of fn (n of them), as the launch passes
 * them: the simulator's .param sizes, or the hand-written kernels' (the
 * launch parameter, out's descriptor, and an int for those that take one);
 * 0 for a kernel with no body. */
static int param_sizes(FakeFunc *fn, PsModule *sm, size_t *sizes, int max)
{
	if (sm) {
		for (int i = 0; i < sm->nks; i++) {
			const PsKernel *k = &sm->ks[i];
			if (strcmp(k->name, fn->real))
				continue;
			for (int j = 0; j < k->nparams && j < max; j++)
				sizes[j] = sm->syms[k->params[j]].size;
			return k->nparams < max ? k->nparams : max;
		}
		return 0;
	}
	if (!strcmp(fn->name, "other"))
		return 0;
	sizes[0] = CUDA_LP_BYTES;
	sizes[1] = CUDA_SP_BYTES;
	sizes[2] = 4;
	bool value = !strcmp(fn->name, "fill") || !strcmp(fn->name, "hungry") || snug(fn) ||
	             !strcmp(fn->name, "pf");
	return value ? 3 : 2;
}

/* Copies the parameter values into op (the driver takes them at the call). */
static void copy_params(QOp *op, void **params)
{
	size_t sizes[512], total = 0;
	int n = param_sizes(op->fn, sim_module(op->fn), sizes, 512);
	for (int i = 0; i < n; i++)
		total += (sizes[i] + 15) / 16 * 16;
	op->blob = malloc(sizeof(void *) * (size_t)(n + 1) + total);
	if (!op->blob)
		abort();
	op->params = (void **)op->blob;
	unsigned char *at = op->blob + sizeof(void *) * (size_t)(n + 1);
	for (int i = 0; i < n; i++) {
		memcpy(at, params[i], sizes[i]);
		op->params[i] = at;
		at += (sizes[i] + 15) / 16 * 16;
	}
	op->params[n] = NULL;
}

/* fake_inject: whether this launch is the one counted down to. */
static bool injected(int *count)
{
	return *count > 0 && --*count == 0;
}

/* Queues a launch whose shape was checked. */
static CUresult queue_launch(FakeFunc *fn, const unsigned grid[3], const unsigned block[3],
                             unsigned shmem, unsigned cx, void **params)
{
	if (injected(&fake_inject.launch_fail)) {
		snprintf(sim_err, sizeof sim_err, "fake_cuda: an injected launch failure");
		return 1;
	}
	QOp op = {.kind = Q_KERNEL, .fn = fn, .shmem = shmem, .cx = cx};
	memcpy(op.grid, grid, sizeof op.grid);
	memcpy(op.block, block, sizeof op.block);
	if (injected(&fake_inject.run_fail))
		op.fail = 700;  /* CUDA_ERROR_ILLEGAL_ADDRESS */
	copy_params(&op, params);
	fake_stats.launches++;
	fake_stats.cluster_launches += cx != 0;
	memcpy(fake_stats.last_grid, grid, sizeof fake_stats.last_grid);
	memcpy(fake_stats.last_block, block, sizeof fake_stats.last_block);
	push(op);
	return 0;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shmem, void *st, void **params,
                        void **extra)
{
	FakeFunc *fn = f;
	sim_err[0] = 0;
	if (bx % fn->lanes || !bx)
		return 1;  /* a CM thread is a warp, or lanes lanes of one */
	uint64_t cta = ((uint64_t)bx * by * bz + 31) / 32, per_warp = ((uint64_t)fake_regs(fn) * 32 + 255) / 256 * 256;
	if (per_warp * ((cta + 3) / 4 * 4) > 65536)
		return 701;  /* CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES */
	return queue_launch(fn, (unsigned[3]){gx, gy, gz}, (unsigned[3]){bx, by, bz}, shmem, 0,
	                    params);
}

/* Runs a cuLaunchKernel's kernel: its launch block as it is now. */
static CUresult run_plain(QOp *op)
{
	FakeFunc *fn = op->fn;
	void **params = op->params;
	PsModule *sm = sim_module(fn);
	if (!strcmp(fn->name, "other") && !sm)
		return 0;   /* no hand-written body, the simulator off */
	const CudaLaunch *l = (const CudaLaunch *)(uintptr_t)*(CUdeviceptr *)params[0];
	if (!same_launch(params[0], l))
		return 1;
	if (sm)
		return simulate(fn, sm, op->grid, op->block, op->shmem, params);
	uint64_t warps = (uint64_t)op->grid[0] * op->grid[1] * op->grid[2] *
	                 (op->block[0] / fn->lanes) * op->block[1] * op->block[2];  /* CM threads */
	CudaSurface *out = param_surface(l, params[1]);   /* fake_ptx: argument 0 */
	if (!out) {
		fprintf(stderr, "fake_cuda: argument 0 of %s is not its surface's CudaSurfaceParam\n",
		        fn->name);
		return 1;
	}
	if (!strcmp(fn->name, "fill") || !strcmp(fn->name, "hungry") || snug(fn)) {
		if (l->kind != CUDA_LAUNCH_GROUPS)
			return 1;
		int v = *(int *)params[2];
		for (uint64_t t = 0; t < warps; t++)
			put32(out, t, (uint32_t)(v + (int)t));
	} else if (!strcmp(fn->name, "walk")) {
		if (l->kind != CUDA_LAUNCH_WALKER || warps < l->nthreads ||
		    warps - l->nthreads >= l->threads_per_cta ||
		    op->block[0] != fn->lanes * l->threads_per_cta)
			return 1;
		for (uint32_t t = 0; t < l->nthreads; t++)
			put32(out, t, (t % l->width) * 1000 + t / l->width);
	} else if (!strcmp(fn->name, "pf")) {
		fake_printf(l, warps, *(int *)params[2]);
	} else if (!strcmp(fn->name, "oob")) {
		if (l->fault)
			*(uint32_t *)(uintptr_t)l->fault = 42;
	} else if (!strcmp(fn->name, "oobk")) {
		if (l->fault)
			*(uint64_t *)(uintptr_t)l->fault = (uint64_t)(warps - 1) << 32 |
			        CUDA_FAULT_FULL | (uint32_t)CUDA_FAULT_SCATTER << 24 | 7;
	}
	return 0;
}
/* cuLaunchKernelEx's structures, as the driver API documents them. */
typedef struct {
	int id;
	char pad[4];
	union {
		char pad[64];
		struct { unsigned x, y, z; } clusterDim;
	} value;
} FakeAttr;
typedef struct {
	unsigned gx, gy, gz, bx, by, bz, shmem;
	void *stream;
	FakeAttr *attrs;
	unsigned nattrs;
} FakeConfig;

CUresult cuLaunchKernelEx(const FakeConfig *cfg, void *f, void **params, void **extra)
{
	FakeFunc *fn = f;
	unsigned cx = 1;
	sim_err[0] = 0;
	for (unsigned i = 0; i < cfg->nattrs; i++)
		if (cfg->attrs[i].id == 4) {  /* CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION */
			cx = cfg->attrs[i].value.clusterDim.x;
			if (cfg->attrs[i].value.clusterDim.y != 1 || cfg->attrs[i].value.clusterDim.z != 1)
				return 1;
		}
	if (!cx || cx > 8 || cfg->gx % cx || cfg->by != 1 || cfg->bz != 1)
		return 1;  /* CUDA_ERROR_INVALID_VALUE */
	PsModule *sm = sim_module(fn);
	if (sm && cx > 1) {
		snprintf(sim_err, sizeof sim_err, "ptxsim: kernel %s: cluster launches (%u CTAs a "
		         "cluster) are not simulated", fn->real, cx);
		fprintf(stderr, "%s\n", sim_err);
		return 1;
	}
	return queue_launch(fn, (unsigned[3]){cfg->gx, cfg->gy, cfg->gz},
	                    (unsigned[3]){cfg->bx, cfg->by, cfg->bz}, cfg->shmem, cx, params);
}

/* Runs a cuLaunchKernelEx's kernel: the launch block must describe the
 * cluster (no CTA without a real CM thread). */
static CUresult run_cluster(QOp *op)
{
	FakeFunc *fn = op->fn;
	void **params = op->params;
	unsigned cx = op->cx;
	const CudaLaunch *l = (const CudaLaunch *)(uintptr_t)*(CUdeviceptr *)params[0];
	if (!same_launch(params[0], l))
		return 1;
	PsModule *sm = sim_module(fn);
	if (sm)
		return simulate(fn, sm, op->grid, op->block, op->shmem, params);
	uint64_t g = (uint64_t)l->local[0] * l->local[1] * l->local[2];
	if (l->kind != CUDA_LAUNCH_GROUPS || op->block[0] != 32 * l->cta_warps ||
	    (uint64_t)cx * l->cta_warps < g || (uint64_t)(cx - 1) * l->cta_warps >= g)
		return 1;  /* CUDA_ERROR_INVALID_VALUE */
	if (!strcmp(fn->name, "fill")) {
		CudaSurface *out = param_surface(l, params[1]);
		if (!out)
			return 1;
		int v = *(int *)params[2];
		uint64_t n = (uint64_t)op->grid[0] / cx * op->grid[1] * op->grid[2] * g;
		for (uint64_t t = 0; t < n; t++)
			put32(out, t, (uint32_t)(v + (int)t));
	}
	return 0;
}

static CUresult run_kernel(QOp *op)
{
	if (op->fail) {
		snprintf(sim_err, sizeof sim_err, "fake_cuda: kernel %s: an injected fault while "
		         "running", op->fn->real);
		return op->fail;
	}
	return op->cx ? run_cluster(op) : run_plain(op);
}

CUresult cuStreamCreate(void **s, unsigned f) { *s = &stream_obj; return 0; }
CUresult cuStreamDestroy_v2(void *s) { drain(); return 0; }
CUresult cuStreamSynchronize(void *s)
{
	fake_stats.syncs++;
	return wait_stream();
}
CUresult cuEventCreate(void **e, unsigned f)
{
	*e = calloc(1, sizeof(FakeEvent));
	return *e ? 0 : 2;
}
CUresult cuEventDestroy_v2(void *e)
{
	drain();
	free(e);
	return 0;
}
CUresult cuEventRecord(void *e, void *s)
{
	((FakeEvent *)e)->done = false;
	push((QOp){.kind = Q_EVENT, .ev = e});
	return 0;
}
CUresult cuEventSynchronize(void *e) { return wait_stream(); }
CUresult cuCtxSynchronize(void) { return wait_stream(); }
CUresult cuEventElapsedTime(float *ms, void *a, void *b)
{
	const FakeEvent *x = a, *y = b;
	if (!x->done || !y->done)
		return 600;  /* CUDA_ERROR_NOT_READY */
	*ms = (float)(y->t - x->t);
	return 0;
}
