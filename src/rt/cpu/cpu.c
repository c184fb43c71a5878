/* cpu.c — the CPU device: host memory, kernel libraries loaded with dlopen
 * (the C back end's output, checked against CMK_ABI_VERSION), run-time
 * builds through the cache, and the RtDeviceOps table.  Launches are in
 * sched.c.  Threads: all online cores, or $CMETAL_CPU_THREADS.  Stack a
 * CM thread may get: 256 MB, or $CMETAL_CPU_STACK_MAX_MB. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt/cpu/cpu.h"

static int thread_count(void)
{
	const char *env = getenv("CMETAL_CPU_THREADS");
	if (env && *env) {
		int n = atoi(env);
		if (n >= 1 && n <= 1024)
			return n;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

/* Above this a kernel's estimated frame is refused at launch (sched.c):
 * stacks are mapped without reserving memory, so the limit is on what a
 * group of fibers could touch, not on what it maps. */
#define CPU_STACK_MAX_MB 256

static size_t stack_max(void)
{
	const char *env = getenv("CMETAL_CPU_STACK_MAX_MB");
	long mb = env && *env ? atol(env) : CPU_STACK_MAX_MB;
	return (size_t)(mb >= 1 && mb <= 65536 ? mb : CPU_STACK_MAX_MB) << 20;
}

static void cpu_close(cmetal_device *dev)
{
	CpuDevice *c = dev->priv;
	int n = c->pool.n;
	cpu_pool_fini(&c->pool);
	for (int i = 0; i < n; i++)
		cpu_worker_free(&c->workers[i]);
	free(c->workers);
	vec_free(&c->svm);
	free(c);
}

/* ---- memory: plain host memory; SVM addresses are host addresses ---- */

/* Adds SVM allocation m to the sorted table of live ones. */
static void svm_track(CpuDevice *c, const RtMem *m)
{
	CmkSvmRange r = {m->addr, m->size};
	int i = c->svm.len;
	vec_push(&c->svm, r);
	for (; i > 0 && c->svm.data[i - 1].base > r.base; i--)
		c->svm.data[i] = c->svm.data[i - 1];
	c->svm.data[i] = r;
}

static void svm_untrack(CpuDevice *c, const RtMem *m)
{
	int i = 0;
	while (i < c->svm.len && c->svm.data[i].base != m->addr)
		i++;
	if (i == c->svm.len)
		return;
	memmove(&c->svm.data[i], &c->svm.data[i + 1], (size_t)(c->svm.len - i - 1) * sizeof *c->svm.data);
	c->svm.len--;
}

static cm_status cpu_mem_alloc(cmetal_device *dev, RtMem *m)
{
	/* 64-byte aligned, and rounded up so vector code may over-read safely */
	size_t n = (m->size + 63) / 64 * 64;
	m->host = aligned_alloc(64, n);
	if (!m->host)
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory allocating %zu bytes", m->size);
	memset(m->host, 0, n);
	m->host_owned = true;
	m->addr = (uint64_t)(uintptr_t)m->host;
	if (m->kind == RT_MEM_SVM)
		svm_track(dev->priv, m);
	return CM_SUCCESS;
}

static cm_status cpu_mem_alias(cmetal_device *dev, RtMem *m, void *host)
{
	m->host = host;
	m->host_owned = false;
	m->addr = (uint64_t)(uintptr_t)host;
	if (m->kind == RT_MEM_SVM)
		svm_track(dev->priv, m);
	return CM_SUCCESS;
}

static void cpu_mem_free(cmetal_device *dev, RtMem *m)
{
	if (m->kind == RT_MEM_SVM && m->host)
		svm_untrack(dev->priv, m);
	if (m->host_owned)
		free(m->host);
	m->host = NULL;
}

static cm_status cpu_mem_write(cmetal_device *dev, RtMem *m, size_t off, const void *src, size_t n)
{
	if (n)
		memcpy(m->host + off, src, n);
	return CM_SUCCESS;
}

static cm_status cpu_mem_read(cmetal_device *dev, RtMem *m, size_t off, void *dst, size_t n)
{
	if (n)
		memcpy(dst, m->host + off, n);
	return CM_SUCCESS;
}

static cm_status cpu_mem_map(cmetal_device *dev, RtMem *m, void **ptr)
{
	*ptr = m->host;
	return CM_SUCCESS;
}

static cm_status cpu_mem_unmap(cmetal_device *dev, RtMem *m)
{
	return CM_SUCCESS;
}

/* ---- programs ---- */

/* Rejects metadata the runtime could not use safely. */
static cm_status check_program_info(const char *path, const CmkProgramInfo *pi)
{
	if (pi->nkernels > 0 && !pi->kernels)
		return rt_fail(CM_INVALID_PROGRAM, "%s: cmk_program lists %u kernels but no table",
		               path, pi->nkernels);
	for (uint32_t i = 0; i < pi->nkernels; i++) {
		const CmkKernelInfo *k = &pi->kernels[i];
		if (!k->name || !k->entry || (k->nargs && !k->args))
			return rt_fail(CM_INVALID_PROGRAM, "%s: kernel %u has incomplete metadata",
			               path, i);
		for (uint32_t a = 0; a < k->nargs; a++)
			if (!k->args[a].name || k->args[a].size == 0 || k->args[a].size > 65536)
				return rt_fail(CM_INVALID_PROGRAM,
				               "%s: argument %u of kernel '%s' has bad metadata",
				               path, a, k->name);
	}
	return CM_SUCCESS;
}

/* True when path starts like what cmetal -t ptx writes (PTX text or the -c
 * container both start with "//@cmetal"): a program for the CUDA device. */
static bool is_gpu_program(const char *path)
{
	char head[10] = {0};
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t n = fread(head, 1, sizeof head - 1, f);
	fclose(f);
	return n == 9 && !strcmp(head, "//@cmetal");
}

static cm_status cpu_program_load(cmetal_device *dev, cmetal_program *p, const char *path)
{
	if (is_gpu_program(path))
		return rt_fail(CM_INVALID_PROGRAM,
		               "%s is a program for the CUDA device (cmetal -t ptx); the CPU device "
		               "loads the .so that cmetal -c -t c writes", path);
	/* a path, not a library name for dlopen's search ("k.so" is ./k.so) */
	char *local = strchr(path, '/') ? NULL : xmalloc(strlen(path) + 3);
	if (local)
		sprintf(local, "./%s", path);
	void *h = dlopen(local ? local : path, RTLD_NOW | RTLD_LOCAL);
	free(local);
	if (!h)
		return rt_fail(CM_INVALID_PROGRAM, "cannot load kernel library: %s", dlerror());
	const uint32_t *ver = dlsym(h, "cmk_abi_version");
	const CmkProgramInfo *pi = dlsym(h, "cmk_program");
	cm_status s = CM_SUCCESS;
	if (!ver || !pi)
		s = rt_fail(CM_INVALID_PROGRAM,
		            "%s is not a cmetal kernel library: it does not export %s", path,
		            ver ? "cmk_program" : "cmk_abi_version");
	else if (*ver != CMK_ABI_VERSION)
		s = rt_fail(CM_INVALID_PROGRAM,
		            "%s was built for kernel ABI version %u; this runtime needs version %d "
		            "(rebuild it with this cmetal)", path, *ver, CMK_ABI_VERSION);
	else
		s = check_program_info(path, pi);
	if (s) {
		dlclose(h);
		return s;
	}
	p->priv = h;
	p->nkernels = pi->nkernels;
	p->kernels = pi->kernels;
	return CM_SUCCESS;
}

static cm_status cpu_program_build(cmetal_device *dev, cmetal_program *p, const char *source,
                                   const char *options)
{
	Buf log = {0};
	cm_status s = rt_cache_build(dev, p, source, options, cpu_program_load, &log);
	p->log = xstrdup(log.len ? buf_cstr(&log) : "");
	buf_free(&log);
	return s;
}

static void cpu_program_free(cmetal_device *dev, cmetal_program *p)
{
	if (p->priv)
		dlclose(p->priv);
	p->priv = NULL;
}

static const RtDeviceOps cpu_ops = {
	.kind = "cpu",
	.concurrent_build = true,   /* the cache and dlopen share nothing of the device */
	.close = cpu_close,
	.mem_alloc = cpu_mem_alloc,
	.mem_alias = cpu_mem_alias,
	.mem_free = cpu_mem_free,
	.mem_write = cpu_mem_write,
	.mem_read = cpu_mem_read,
	.mem_map = cpu_mem_map,
	.mem_unmap = cpu_mem_unmap,
	.program_load = cpu_program_load,
	.program_build = cpu_program_build,
	.program_free = cpu_program_free,
	.run = cpu_run,
};

cm_status rt_cpu_open(cmetal_device *dev)
{
	CpuDevice *c = calloc(1, sizeof *c);
	int n = thread_count();
	if (c)
		c->workers = calloc((size_t)n, sizeof *c->workers);
	if (!c || !c->workers) {
		free(c);
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory opening the CPU device");
	}
	cpu_pool_init(&c->pool, n);
	c->stack_max = stack_max();
	for (int i = 0; i < n; i++)
		c->workers[i].id = i;
	dev->ops = &cpu_ops;
	dev->priv = c;
	snprintf(dev->name, sizeof dev->name, "cpu (%d thread%s)", n, n == 1 ? "" : "s");
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	dev->info[CMETAL_DEVICE_KIND] = 0;
	dev->info[CMETAL_DEVICE_COMPUTE_UNITS] = (uint64_t)n;
	dev->info[CMETAL_DEVICE_MEMORY] = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
	dev->info[CMETAL_DEVICE_MAX_GROUP_THREADS] = RT_MAX_GROUP_THREADS;
	dev->info[CMETAL_DEVICE_MAX_SLM] = RT_MAX_SLM;
	dev->info[CMETAL_DEVICE_THREADS] = (uint64_t)n;
	dev->info[CMETAL_DEVICE_HOST_SVM] = 1;
	return CM_SUCCESS;
}
