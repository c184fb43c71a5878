/* occupancy.c — cmetal_kernel_occupancy (the device answers; the CPU
 * device's answer is here) and rt_log, the runtime's debug lines. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"

void rt_log(const char *fmt, ...)
{
	const char *env = getenv("CMETAL_LOG");
	if (!env || !*env || !strcmp(env, "0"))
		return;
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "cmetal: %s\n", line);
}

cm_status rt_kernel_occupancy(cmetal_kernel *k, uint32_t group_threads, cmetal_occupancy *out)
{
	if (!out)
		return rt_fail(CM_INVALID_VALUE, "cmetal_kernel_occupancy: the output pointer is NULL");
	cmetal_device *dev = k->prog->dev;
	uint64_t max = dev->info[CMETAL_DEVICE_MAX_GROUP_THREADS];
	if (!group_threads || group_threads > max)
		return rt_fail(CM_INVALID_VALUE, "cmetal_kernel_occupancy: a group of %u CM threads; "
		               "this device takes 1 to %llu", group_threads, (unsigned long long)max);
	memset(out, 0, sizeof *out);
	if (dev->ops->occupancy) {
		rt_dev_lock(dev);
		cm_status s = dev->ops->occupancy(dev, k, group_threads, out);
		rt_dev_unlock(dev);
		return s;
	}
	/* the CPU device: each group runs on one worker at a time */
	*out = (cmetal_occupancy){1, group_threads, group_threads, 100, "cpu", -1, 0, 1,
	                          group_threads};
	return CM_SUCCESS;
}

cm_status cmetal_kernel_occupancy(cmetal_kernel *h, uint32_t group_threads,
                                  cmetal_occupancy *out)
{
	cmetal_kernel *k;
	cm_status s = rt_get_kernel(h, &k);
	if (s)
		return s;
	s = rt_kernel_occupancy(k, group_threads, out);
	rt_put(&k->obj);
	return s;
}
