/* driver.c — loads the CUDA driver at run time: dlopen("libcuda.so.1"),
 * one dlsym per entry of CU_FUNCS (cuda.h), then cuInit(0).  This happens
 * once per process (the driver cannot be unloaded safely); the outcome,
 * success or the reason for failure, is kept and repeated to every later
 * caller.  No toolkit header or library is involved. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "rt/cuda/cuda.h"

static CuDriver drv;
static bool drv_ok;
static char drv_why[512];
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;

/* Resolves every entry point; false with drv_why set on a missing one. */
static bool resolve(void *lib)
{
#define CU_RESOLVE(name, sym, params)                                                 \
	*(void **)&drv.name = dlsym(lib, sym);                                        \
	if (!drv.name) {                                                              \
		snprintf(drv_why, sizeof drv_why,                                     \
		         "the CUDA driver libcuda.so.1 is too old: it has no %s", sym);  \
		return false;                                                         \
	}
	CU_FUNCS(CU_RESOLVE)
#undef CU_RESOLVE
	*(void **)&drv.LaunchKernelEx = dlsym(lib, "cuLaunchKernelEx");  /* optional */
	*(void **)&drv.FuncSetAttribute = dlsym(lib, "cuFuncSetAttribute");  /* optional */
	return true;
}

static void load(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		snprintf(drv_why, sizeof drv_why, "no CUDA driver found: %s",
		         e ? e : "libcuda.so.1 cannot be loaded");
		return;
	}
	if (!resolve(lib)) {
		dlclose(lib);
		return;
	}
	drv.lib = lib;
	CUresult r = drv.Init(0);
	if (r != CUDA_SUCCESS) {
		const char *name = NULL, *text = NULL;
		drv.GetErrorName(r, &name);
		drv.GetErrorString(r, &text);
		snprintf(drv_why, sizeof drv_why, "no CUDA device: cuInit returned %d %s (%s)",
		         r, name ? name : "", text ? text : "unknown error");
		return;
	}
	if (drv.DriverGetVersion(&drv.version) != CUDA_SUCCESS)
		drv.version = 0;
	drv_ok = true;
}

const CuDriver *cu_driver(void)
{
	pthread_once(&drv_once, load);
	if (!drv_ok) {
		rt_fail(CM_DEVICE_NOT_FOUND, "%s", drv_why);
		return NULL;
	}
	return &drv;
}

const char *cu_errtext(CUresult r)
{
	static _Thread_local char text[256];
	const char *name = NULL, *desc = NULL;
	if (drv_ok) {
		drv.GetErrorName(r, &name);
		drv.GetErrorString(r, &desc);
	}
	snprintf(text, sizeof text, "%s (%s)", name ? name : "CUDA error",
	         desc ? desc : "no description");
	if (!name)
		snprintf(text, sizeof text, "CUDA error %d", r);
	return text;
}

cm_status cu_fail(CUresult r, cm_status status, const char *what)
{
	return rt_fail(status, "%s: %s", what, cu_errtext(r));
}
