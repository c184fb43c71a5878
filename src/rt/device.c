/* device.c — opening and closing devices.  A device name picks the
 * implementation: "cpu" (cpu/cpu.c), "cuda"/"cuda:N" (cuda/cuda.c), "auto"
 * (the GPU when one works, else the CPU). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt/rt.h"

double rt_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

cm_status rt_check_device(cmetal_device *dev)
{
	if (!dev)
		return rt_fail(CM_INVALID_HANDLE, "device handle is NULL");
	if (dev->magic != RT_MAGIC_DEVICE)
		return rt_fail(CM_INVALID_HANDLE,
		               "device handle is not a live device (closed or wrong type)");
	return CM_SUCCESS;
}

/* rt_cuda_open (cuda/cuda.c) fails with a clear message when there is no
 * driver or no GPU; "auto" then falls back to the CPU. */
static cm_status open_named(cmetal_device *dev, const char *name)
{
	if (strcmp(name, "cpu") == 0)
		return rt_cpu_open(dev);
	if (strcmp(name, "cuda") == 0)
		return rt_cuda_open(dev, 0);
	if (strncmp(name, "cuda:", 5) == 0) {
		char *end;
		long n = strtol(name + 5, &end, 10);
		if (name[5] == '\0' || *end || n < 0 || n > 1024)
			return rt_fail(CM_INVALID_VALUE,
			               "bad device name '%s': expected cuda:N with N a device number", name);
		return rt_cuda_open(dev, (int)n);
	}
	if (strcmp(name, "auto") == 0) {
		if (rt_cuda_open(dev, 0) == CM_SUCCESS)
			return CM_SUCCESS;
		return rt_cpu_open(dev);
	}
	return rt_fail(CM_DEVICE_NOT_FOUND,
	               "unknown device '%s': expected cpu, cuda, cuda:N or auto", name);
}

cm_status cmetal_device_open(const char *name, cmetal_device **out)
{
	if (!out)
		return rt_fail(CM_INVALID_VALUE, "cmetal_device_open: the output pointer is NULL");
	*out = NULL;
	if (!name) {
		name = getenv("CMETAL_DEVICE");
		if (!name || !*name)
			name = "auto";
	}
	cmetal_device *dev = calloc(1, sizeof *dev);
	if (!dev)
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory opening device '%s'", name);
	dev->magic = RT_MAGIC_DEVICE;
	dev->translate = rt_translate_cm;
	cm_status s = open_named(dev, name);
	if (s != CM_SUCCESS) {
		free(dev);
		return s;
	}
	*out = dev;
	return CM_SUCCESS;
}

cm_status cmetal_device_close(cmetal_device *dev)
{
	cm_status s = rt_check_device(dev);
	if (s)
		return s;
	dev->ops->close(dev);
	dev->magic = RT_MAGIC_DEAD;
	free(dev);
	return CM_SUCCESS;
}

cm_status cmetal_device_name(cmetal_device *dev, const char **name)
{
	cm_status s = rt_check_device(dev);
	if (s)
		return s;
	if (!name)
		return rt_fail(CM_INVALID_VALUE, "cmetal_device_name: the output pointer is NULL");
	*name = dev->name;
	return CM_SUCCESS;
}

cm_status cmetal_device_info(cmetal_device *dev, cmetal_device_attr attr, uint64_t *value)
{
	cm_status s = rt_check_device(dev);
	if (s)
		return s;
	if (!value)
		return rt_fail(CM_INVALID_VALUE, "cmetal_device_info: the output pointer is NULL");
	if (attr < CMETAL_DEVICE_KIND || attr > CMETAL_DEVICE_MAX_SLM)
		return rt_fail(CM_INVALID_VALUE,
		               "unknown device attribute %d: expected one of the CMETAL_DEVICE_* values",
		               (int)attr);
	*value = dev->info[attr];
	return CM_SUCCESS;
}

cm_status cmetal_device_set_printf(cmetal_device *dev, cmetal_printf_fn fn, void *user)
{
	cm_status s = rt_check_device(dev);
	if (s)
		return s;
	dev->printf_fn = fn;
	dev->printf_user = user;
	return CM_SUCCESS;
}

cm_status cmetal_device_get_caps(cmetal_device *dev, cmetal_device_caps *caps)
{
	cm_status s = rt_check_device(dev);
	if (s)
		return s;
	if (!caps)
		return rt_fail(CM_INVALID_VALUE, "cmetal_device_get_caps: the output pointer is NULL");
	*caps = (cmetal_device_caps){.max_group_threads = RT_MAX_GROUP_THREADS,
	                             .slm_size = RT_MAX_SLM, .max_walker = RT_MAX_WALKER};
	dev->ops->caps(dev, caps);
	return CM_SUCCESS;
}

void rt_device_set_translator(cmetal_device *dev, RtTranslateFn fn)
{
	dev->translate = fn ? fn : rt_translate_cm;
}
