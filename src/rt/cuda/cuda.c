/* cuda.c — the CUDA device: opening a GPU (the driver's primary context
 * and one non-blocking stream), memory, and the RtDeviceOps table.
 * Programs are in module.c, launches in launch.c and batch.c.
 *
 * Memory: every buffer, 2D surface and SVM allocation is one cuMemAlloc
 * block, zeroed at creation; 2D surfaces use the pitch memory.c chose (rows
 * padded to 64 bytes), so they need no pitched allocation.  An SVM address
 * is the device address.  Host-aliasing buffers are a device copy synced at
 * launch boundaries (see cuda.h).  Mapping a device buffer gives a host
 * copy that unmap writes back.
 *
 * The fault records the kernels write (rt/cuda_abi.h "Faults"), one per
 * launch of a batch, are pinned host memory mapped into the device when the
 * driver allows it, so checking them after a batch costs no copy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/cuda/cuda.h"


/* The context this OS thread made current, valid while its generation is
 * the latest: every open and close starts a new generation, since a
 * primary context released and retained again may keep its handle. */
static _Thread_local CUcontext current;
static _Thread_local unsigned current_gen;
static _Atomic unsigned generation = 1;

cm_status cuda_enter(CudaDevice *c)
{
	if (c->lost)
		return rt_fail(CM_KERNEL_FAULT,
		               "the CUDA device is unusable after an earlier kernel fault (%s); "
		               "close it and open it again", c->lost_why);
	unsigned gen = generation;
	if (current == c->ctx && current_gen == gen)
		return CM_SUCCESS;
	CUresult r = c->cu->CtxSetCurrent(c->ctx);
	if (r)
		return cu_fail(r, CM_DEVICE_NOT_FOUND, "cuCtxSetCurrent");
	current = c->ctx;
	current_gen = gen;
	return CM_SUCCESS;
}

/* Frees what open_gpu set up, in reverse order. */
static void release(CudaDevice *c)
{
	const CuDriver *cu = c->cu;
	generation++;
	if (c->ctx && cu->CtxSetCurrent(c->ctx) == CUDA_SUCCESS) {
		if (c->wait_mem)
			cu->MemFree(c->wait_mem);
		if (c->printf_mem)
			cu->MemFree(c->printf_mem);
		for (uint32_t i = 0; i < 2 * CUDA_BATCH_MAX; i++)
			if (c->ev[i])
				cu->EventDestroy(c->ev[i]);
		cuda_batch_release(c);
		if (c->fault_mapped)
			cu->MemFreeHost((void *)c->fault_host);
		else if (c->fault_dev)
			cu->MemFree(c->fault_dev);
		if (c->stream)
			cu->StreamDestroy(c->stream);
	}
	if (!c->fault_mapped)
		free((void *)c->fault_host);
	free(c->printf_host);
	if (c->ctx)
		cu->DevicePrimaryCtxRelease(c->dev);
	pthread_mutex_destroy(&c->run_mu);
	free(c);
}

static void cuda_close(cmetal_device *dev)
{
	CudaDevice *c = dev->priv;
	if (!c->lost && cuda_enter(c) == CM_SUCCESS)
		c->cu->CtxSynchronize();
	release(c);
	dev->priv = NULL;
}

/* The fault records, one per launch of a batch: mapped pinned memory,
 * else device memory. */
static cm_status fault_word(CudaDevice *c)
{
	const CuDriver *cu = c->cu;
	const size_t bytes = CUDA_BATCH_MAX * sizeof(uint64_t);
	void *h = NULL;
	if (!getenv("CMETAL_CUDA_FAULT_DEVICE") &&
	    cu->MemHostAlloc(&h, bytes, CU_MEMHOSTALLOC_DEVICEMAP) == CUDA_SUCCESS) {
		if (cu->MemHostGetDevicePointer(&c->fault_dev, h, 0) == CUDA_SUCCESS) {
			memset(h, 0, bytes);
			c->fault_host = h;
			c->fault_mapped = true;
			return CM_SUCCESS;
		}
		cu->MemFreeHost(h);
	}
	c->fault_host = calloc(CUDA_BATCH_MAX, sizeof(uint64_t));
	if (!c->fault_host)
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory opening the CUDA device");
	CUresult r = cu->MemAlloc(&c->fault_dev, bytes);
	if (!r)
		r = cu->MemsetD8(c->fault_dev, 0, bytes);
	return r ? cu_fail(r, CM_OUT_OF_MEMORY, "allocating the CUDA fault record") : CM_SUCCESS;
}

/* Device `ordinal`: context, stream, attributes, fault record. */
static cm_status open_gpu(CudaDevice *c, int ordinal)
{
	const CuDriver *cu = c->cu;
	int n = 0;
	CUresult r = cu->DeviceGetCount(&n);
	if (r)
		return cu_fail(r, CM_DEVICE_NOT_FOUND, "no CUDA device: cuDeviceGetCount");
	if (ordinal >= n)
		return rt_fail(CM_DEVICE_NOT_FOUND, "no CUDA device %d: the driver sees %d device%s",
		               ordinal, n, n == 1 ? "" : "s");
	c->ordinal = ordinal;
	generation++;
	if ((r = cu->DeviceGet(&c->dev, ordinal)))
		return cu_fail(r, CM_DEVICE_NOT_FOUND, "cuDeviceGet");
	if ((r = cu->DevicePrimaryCtxRetain(&c->ctx, c->dev))) {
		c->ctx = NULL;
		return cu_fail(r, CM_DEVICE_NOT_FOUND, "cannot create a CUDA context");
	}
	cm_status s = cuda_enter(c);
	if (s)
		return s;
	cu->DeviceGetAttribute(&c->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, c->dev);
	cu->DeviceGetAttribute(&c->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, c->dev);
	cu->DeviceGetAttribute(&c->nsm, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, c->dev);
	if (c->cc_major < 8)
		return rt_fail(CM_DEVICE_NOT_FOUND,
		               "CUDA device %d has compute capability %d.%d; cmetal's PTX needs 8.0 "
		               "or newer", ordinal, c->cc_major, c->cc_minor);
	cuda_arch_init(c);
	/* launches go to a blocking stream: ordered after the synchronous
	 * copies and memsets, which use the NULL stream */
	if ((r = cu->StreamCreate(&c->stream, 0)))
		return cu_fail(r, CM_DEVICE_NOT_FOUND, "cuStreamCreate");
	return fault_word(c);
}

/* ---- memory ---- */

static CudaMem *mem_priv(RtMem *m)
{
	if (!m->priv) {
		CudaMem *cm = calloc(1, sizeof *cm);
		if (!cm)
			return NULL;
		cm->m = m;
		m->priv = cm;
	}
	return m->priv;
}

static cm_status cuda_mem_alloc(cmetal_device *dev, RtMem *m)
{
	CudaDevice *c = dev->priv;
	cm_status s = cuda_enter(c);
	if (s)
		return s;
	CUdeviceptr p = 0;
	CUresult r = c->cu->MemAlloc(&p, m->size);
	if (r)
		return rt_fail(CM_OUT_OF_MEMORY, "cannot allocate %zu bytes on the GPU: %s",
		               m->size, cu_errtext(r));
	if ((r = c->cu->MemsetD8(p, 0, m->size))) {
		c->cu->MemFree(p);
		return cu_fail(r, CM_OUT_OF_MEMORY, "zeroing new GPU memory");
	}
	m->addr = p;
	m->host = (unsigned char *)(uintptr_t)p;
	m->host_owned = true;
	return CM_SUCCESS;
}

static cm_status cuda_mem_alias(cmetal_device *dev, RtMem *m, void *host)
{
	CudaDevice *c = dev->priv;
	CudaMem *cm = mem_priv(m);
	if (!cm)
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	cm_status s = cuda_mem_alloc(dev, m);
	if (s) {
		free(cm);
		m->priv = NULL;
		return s;
	}
	m->host_owned = false;
	cm->user = host;
	cm->next_alias = c->aliases;
	c->aliases = cm;
	return CM_SUCCESS;
}

static void unlink_alias(CudaDevice *c, CudaMem *cm)
{
	for (CudaMem **pp = &c->aliases; *pp; pp = &(*pp)->next_alias)
		if (*pp == cm) {
			*pp = cm->next_alias;
			return;
		}
}

static void cuda_mem_free(cmetal_device *dev, RtMem *m)
{
	CudaDevice *c = dev->priv;
	CudaMem *cm = m->priv;
	if (cm) {
		if (cm->user)
			unlink_alias(c, cm);
		free(cm->mapped);
		free(cm);
		m->priv = NULL;
	}
	/* after a fault the context is gone, and its memory with it; wrapped
	 * memory belongs to the caller */
	if (m->addr && !m->borrowed && !c->lost && cuda_enter(c) == CM_SUCCESS)
		c->cu->MemFree(m->addr);
	m->addr = 0;
	m->host = NULL;
}

/* Host-aliasing buffers and mapped buffers are served from host memory. */
static unsigned char *host_side(RtMem *m)
{
	CudaMem *cm = m->priv;
	if (!cm)
		return NULL;
	return cm->user ? cm->user : cm->mapped;
}

static cm_status cuda_mem_write(cmetal_device *dev, RtMem *m, size_t off, const void *src,
                                size_t n)
{
	CudaDevice *c = dev->priv;
	unsigned char *h = host_side(m);
	if (h) {
		if (n)
			memcpy(h + off, src, n);
		return CM_SUCCESS;
	}
	cm_status s = cuda_enter(c);
	if (s || !n)
		return s;
	CUresult r = c->cu->MemcpyHtoD(m->addr + off, src, n);
	return r ? cu_fail(r, CM_IO_ERROR, "copying to the GPU") : CM_SUCCESS;
}

static cm_status cuda_mem_read(cmetal_device *dev, RtMem *m, size_t off, void *dst, size_t n)
{
	CudaDevice *c = dev->priv;
	unsigned char *h = host_side(m);
	if (h) {
		if (n)
			memcpy(dst, h + off, n);
		return CM_SUCCESS;
	}
	cm_status s = cuda_enter(c);
	if (s || !n)
		return s;
	CUresult r = c->cu->MemcpyDtoH(dst, m->addr + off, n);
	return r ? cu_fail(r, CM_IO_ERROR, "copying from the GPU") : CM_SUCCESS;
}

static cm_status cuda_mem_map(cmetal_device *dev, RtMem *m, void **ptr)
{
	CudaMem *cm = mem_priv(m);
	if (!cm)
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	if (cm->user || cm->mapped) {
		*ptr = cm->user ? cm->user : cm->mapped;
		return CM_SUCCESS;
	}
	unsigned char *h = malloc(m->size);
	if (!h)
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory mapping a %zu-byte buffer", m->size);
	cm_status s = cuda_mem_read(dev, m, 0, h, m->size);
	if (s) {
		free(h);
		return s;
	}
	cm->mapped = h;
	*ptr = h;
	return CM_SUCCESS;
}

static cm_status cuda_mem_unmap(cmetal_device *dev, RtMem *m)
{
	CudaMem *cm = m->priv;
	if (!cm || !cm->mapped)
		return CM_SUCCESS;
	unsigned char *h = cm->mapped;
	cm->mapped = NULL;  /* so the write below goes to the device */
	cm_status s = cuda_mem_write(dev, m, 0, h, m->size);
	free(h);
	return s;
}

static const RtDeviceOps cuda_ops = {
	.kind = "cuda",
	.close = cuda_close,
	.mem_alloc = cuda_mem_alloc,
	.mem_alias = cuda_mem_alias,
	.mem_free = cuda_mem_free,
	.mem_write = cuda_mem_write,
	.mem_read = cuda_mem_read,
	.mem_map = cuda_mem_map,
	.mem_unmap = cuda_mem_unmap,
	.program_load = cuda_program_load,
	.program_build = cuda_program_build,
	.program_free = cuda_program_free,
	.occupancy = cuda_occupancy,
	.run_batch = cuda_run_batch,
};

cm_status rt_cuda_open(cmetal_device *dev, int ordinal)
{
	const CuDriver *cu = cu_driver();
	if (!cu)
		return CM_DEVICE_NOT_FOUND;  /* cu_driver said why */
	CudaDevice *c = calloc(1, sizeof *c);
	if (!c)
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory opening the CUDA device");
	c->cu = cu;
	pthread_mutex_init(&c->run_mu, NULL);
	cm_status s = open_gpu(c, ordinal);
	if (s) {
		release(c);
		return s;
	}
	char name[48] = "";
	cu->DeviceGetName(name, sizeof name, c->dev);
	dev->ops = &cuda_ops;
	dev->priv = c;
	snprintf(dev->name, sizeof dev->name, "cuda:%d (%s, sm_%d%d)", ordinal, name,
	         c->cc_major, c->cc_minor);
	size_t mem = 0;
	cu->DeviceTotalMem(&mem, c->dev);
	dev->info[CMETAL_DEVICE_KIND] = 1;
	dev->info[CMETAL_DEVICE_ORDINAL] = (uint64_t)ordinal;
	dev->info[CMETAL_DEVICE_COMPUTE_UNITS] = (uint64_t)c->nsm;
	dev->info[CMETAL_DEVICE_MEMORY] = mem;
	dev->info[CMETAL_DEVICE_CC_MAJOR] = (uint64_t)c->cc_major;
	dev->info[CMETAL_DEVICE_CC_MINOR] = (uint64_t)c->cc_minor;
	/* a group of more than 32 CM threads is a cluster launch (launch.c) */
	dev->info[CMETAL_DEVICE_MAX_GROUP_THREADS] =
		c->cc_major >= 9 && cu->LaunchKernelEx ? 256 : 32;
	/* the opt-in shared memory per CTA (launch.c places SLM over 48 KB in
	 * the dynamic window), at most what the CPU device accepts */
	dev->info[CMETAL_DEVICE_MAX_SLM] =
		c->arch.smem_per_cta < RT_MAX_SLM ? c->arch.smem_per_cta : RT_MAX_SLM;
	/* 64 resident warps per SM (sm_80 and newer) */
	dev->info[CMETAL_DEVICE_THREADS] = (uint64_t)c->nsm * 64u;
	dev->info[CMETAL_DEVICE_HOST_SVM] = 0;
	return CM_SUCCESS;
}
