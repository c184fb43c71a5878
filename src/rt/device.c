/* device.c — opening and closing devices.  A device name picks the
 * implementation: "cpu" (cpu/cpu.c), "cuda"/"cuda:N" (cuda/cuda.c), "auto"
 * (the GPU when one works, else the CPU). */
#include <dlfcn.h>
#include <stdatomic.h>
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

cm_status rt_get_device(cmetal_device *h, cmetal_device **dev)
{
	*dev = NULL;
	if (!h)
		return rt_fail(CM_INVALID_HANDLE, "device handle is NULL");
	RtObj *o = rt_handle_get(h, RT_OBJ_DEVICE);
	if (!o)
		return rt_fail(CM_INVALID_HANDLE,
		               "device handle is not a live device (closed or wrong type)");
	*dev = (cmetal_device *)o;
	return CM_SUCCESS;
}

void rt_device_hold(cmetal_device *dev)
{
	rt_ref(&dev->obj);
	atomic_fetch_add(&dev->nobjects, 1);
}

void rt_device_drop(cmetal_device *dev)
{
	atomic_fetch_sub(&dev->nobjects, 1);
	rt_put(&dev->obj);
}

void rt_dev_lock(cmetal_device *dev)
{
	pthread_mutex_lock(&dev->lock);
}

void rt_dev_unlock(cmetal_device *dev)
{
	pthread_mutex_unlock(&dev->lock);
}

/* The last reference: the device's own state goes. */
static void device_destroy(RtObj *o)
{
	cmetal_device *dev = (cmetal_device *)o;
	dev->ops->close(dev);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
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
	rt_obj_init(&dev->obj, RT_OBJ_DEVICE, device_destroy);
	pthread_mutex_init(&dev->lock, NULL);
	dev->translate = rt_translate_cm;
	dev->info[CMETAL_DEVICE_MAX_WALKER] = RT_MAX_WALKER;
	cm_status s = open_named(dev, name);
	if (s != CM_SUCCESS) {
		pthread_mutex_destroy(&dev->lock);
		free(dev);
		return s;
	}
	*out = rt_handle_new(&dev->obj);
	if (!*out) {
		rt_put(&dev->obj);
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory opening device '%s'", name);
	}
	return CM_SUCCESS;
}

/* Closing refuses while the device has live objects (they would hold it
 * open anyway): the message counts them.  A call still running on the
 * device from another thread keeps it until that call returns. */
cm_status cmetal_device_close(cmetal_device *h)
{
	cmetal_device *dev;
	cm_status s = rt_get_device(h, &dev);
	if (s)
		return s;
	int n = atomic_load(&dev->nobjects);
	if (n > 0) {
		rt_put(&dev->obj);
		return rt_fail(CM_INVALID_VALUE,
		               "cannot close device '%s': %d objects made on it (programs, "
		               "buffers, 2D surfaces, SVM allocations, tasks; a kernel keeps its "
		               "program) are still alive; release them first", dev->name, n);
	}
	RtObj *o = rt_handle_take(h, RT_OBJ_DEVICE);
	rt_put(&dev->obj);
	rt_put(o);          /* the handle's reference (NULL: closed meanwhile) */
	if (!o)
		return rt_fail(CM_INVALID_HANDLE, "device handle was closed by another thread");
	return CM_SUCCESS;
}

cm_status cmetal_device_name(cmetal_device *h, const char **name)
{
	cmetal_device *dev;
	cm_status s = rt_get_device(h, &dev);
	if (s)
		return s;
	if (!name)
		s = rt_fail(CM_INVALID_VALUE, "cmetal_device_name: the output pointer is NULL");
	else
		*name = dev->name;  /* lives as long as the device */
	rt_put(&dev->obj);
	return s;
}

cm_status cmetal_device_info(cmetal_device *h, cmetal_device_attr attr, uint64_t *value)
{
	cmetal_device *dev;
	cm_status s = rt_get_device(h, &dev);
	if (s)
		return s;
	if (!value)
		s = rt_fail(CM_INVALID_VALUE, "cmetal_device_info: the output pointer is NULL");
	else if (attr < CMETAL_DEVICE_KIND || attr > CMETAL_DEVICE_HOST_SVM)
		s = rt_fail(CM_INVALID_VALUE,
		            "unknown device attribute %d: expected one of the CMETAL_DEVICE_* values",
		            (int)attr);
	else
		*value = dev->info[attr];
	rt_put(&dev->obj);
	return s;
}

cm_status cmetal_device_set_printf(cmetal_device *h, cmetal_printf_fn fn, void *user)
{
	cmetal_device *dev;
	cm_status s = rt_get_device(h, &dev);
	if (s)
		return s;
	rt_dev_lock(dev);
	dev->printf_fn = fn;
	dev->printf_user = user;
	rt_dev_unlock(dev);
	rt_put(&dev->obj);
	return CM_SUCCESS;
}

/* The compatibility form of cmetal_device_info (cmetal.h). */
cm_status cmetal_device_get_caps(cmetal_device *h, cmetal_device_caps *caps)
{
	cmetal_device *dev;
	cm_status s = rt_get_device(h, &dev);
	if (s)
		return s;
	if (!caps) {
		rt_put(&dev->obj);
		return rt_fail(CM_INVALID_VALUE, "cmetal_device_get_caps: the output pointer is NULL");
	}
	const uint64_t *in = dev->info;   /* fixed at open: no lock */
	*caps = (cmetal_device_caps){
		.threads = (uint32_t)in[CMETAL_DEVICE_THREADS],
		.max_group_threads = (uint32_t)in[CMETAL_DEVICE_MAX_GROUP_THREADS],
		.slm_size = (uint32_t)in[CMETAL_DEVICE_MAX_SLM],
		.max_walker = (uint32_t)in[CMETAL_DEVICE_MAX_WALKER],
		.host_svm = (uint32_t)in[CMETAL_DEVICE_HOST_SVM],
		.is_gpu = in[CMETAL_DEVICE_KIND] == 1,
	};
	rt_put(&dev->obj);
	return CM_SUCCESS;
}

/* Takes the public handle (tests call it); a bad handle is ignored. */
void rt_device_set_translator(cmetal_device *h, RtTranslateFn fn)
{
	cmetal_device *dev;
	if (rt_get_device(h, &dev))
		return;
	rt_dev_lock(dev);
	dev->translate = fn ? fn : rt_translate_cm;
	rt_dev_unlock(dev);
	rt_put(&dev->obj);
}
