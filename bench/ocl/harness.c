/* harness.c — OpenCL plumbing for the SIMT baselines: picks the default
 * device (PoCL on the CPU here, NVIDIA's OpenCL on the GPU host), builds
 * programs from the bench/simt kernel files and times spans of kernels with profiling
 * events.  API failures end the harness with the call and its error code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl.h"

void cl_check(cl_int err, const char *file, int line, const char *what)
{
	if (err != CL_SUCCESS)
		bench_die("%s:%d: %s failed: %d", file, line, what, (int)err);
}

static void info_str(cl_device_id d, cl_device_info what, char *buf, size_t n)
{
	if (clGetDeviceInfo(d, what, n, buf, NULL) != CL_SUCCESS)
		snprintf(buf, n, "?");
}

void ocl_init(Ocl *o, const char *kdir)
{
	cl_uint np = 0;
	cl_device_type type;
	cl_int err;
	char name[200], pname[100], pver[256], dver[100];
	memset(o, 0, sizeof *o);
	o->kdir = kdir;
	CL_CHECK(clGetPlatformIDs(1, &o->plat, &np));
	if (!np)
		bench_die("no OpenCL platform");
	CL_CHECK(clGetDeviceIDs(o->plat, CL_DEVICE_TYPE_DEFAULT, 1, &o->dev, NULL));
	o->ctx = clCreateContext(NULL, 1, &o->dev, NULL, NULL, &err);
	CL_CHECK(err);
	o->q = clCreateCommandQueue(o->ctx, o->dev, CL_QUEUE_PROFILING_ENABLE, &err);
	CL_CHECK(err);
	CL_CHECK(clGetDeviceInfo(o->dev, CL_DEVICE_TYPE, sizeof type, &type, NULL));
	CL_CHECK(clGetDeviceInfo(o->dev, CL_DEVICE_MAX_COMPUTE_UNITS,
				 sizeof(cl_uint), &np, NULL));
	o->units = (int)np;
	o->is_gpu = !(type & CL_DEVICE_TYPE_CPU);
	info_str(o->dev, CL_DEVICE_NAME, name, sizeof name);
	info_str(o->dev, CL_DRIVER_VERSION, dver, sizeof dver);
	if (clGetPlatformInfo(o->plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL))
		snprintf(pname, sizeof pname, "?");
	if (clGetPlatformInfo(o->plat, CL_PLATFORM_VERSION, sizeof pver, pver, NULL))
		snprintf(pver, sizeof pver, "?");
	if (o->is_gpu)
		snprintf(o->device, sizeof o->device, "gpu:%s", name);
	else
		snprintf(o->device, sizeof o->device, "cpu:%s", cpu_name());
	snprintf(o->driver, sizeof o->driver, "%s / %s / device %s / driver %s",
		 pname, pver, name, dver);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *s;
	if (!f)
		bench_die("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = malloc((size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n)
		bench_die("cannot read %s", path);
	s[n] = 0;
	fclose(f);
	return s;
}

cl_program ocl_build(Ocl *o, const char *file, const char *opts)
{
	char path[1024], *src;
	cl_int err;
	cl_program p;
	snprintf(path, sizeof path, "%s/%s", o->kdir, file);
	src = read_file(path);
	p = clCreateProgramWithSource(o->ctx, 1, (const char **)&src, NULL, &err);
	CL_CHECK(err);
	if (clBuildProgram(p, 1, &o->dev, opts ? opts : "", NULL, NULL) != CL_SUCCESS) {
		static char log[16384];
		clGetProgramBuildInfo(p, o->dev, CL_PROGRAM_BUILD_LOG, sizeof log,
				      log, NULL);
		bench_die("building %s (%s) failed:\n%s", path, opts ? opts : "", log);
	}
	free(src);
	return p;
}

cl_kernel ocl_kernel(cl_program p, const char *name)
{
	cl_int err;
	cl_kernel k = clCreateKernel(p, name, &err);
	CL_CHECK(err);
	return k;
}

cl_mem ocl_buf(Ocl *o, size_t bytes, const void *init)
{
	cl_int err;
	cl_mem b = clCreateBuffer(o->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	CL_CHECK(err);
	if (init)
		CL_CHECK(clEnqueueWriteBuffer(o->q, b, CL_TRUE, 0, bytes, init,
					      0, NULL, NULL));
	return b;
}

void ocl_read(Ocl *o, cl_mem b, void *dst, size_t bytes)
{
	CL_CHECK(clEnqueueReadBuffer(o->q, b, CL_TRUE, 0, bytes, dst, 0, NULL, NULL));
}

void ocl_copy(Ocl *o, cl_mem src, cl_mem dst, size_t bytes)
{
	CL_CHECK(clEnqueueCopyBuffer(o->q, src, dst, 0, 0, bytes, 0, NULL, NULL));
}

size_t round_up(size_t x, size_t m)
{
	return (x + m - 1) / m * m;
}

void ocl_launch(Ocl *o, cl_kernel k, int dims, const size_t *global,
		const size_t *local, Span *s)
{
	size_t g[3];
	cl_event ev;
	int i;
	for (i = 0; i < dims; i++)
		g[i] = local ? round_up(global[i], local[i]) : global[i];
	CL_CHECK(clEnqueueNDRangeKernel(o->q, k, (cl_uint)dims, NULL, g, local,
					0, NULL, s ? &ev : NULL));
	if (!s)
		return;
	if (!s->first) {
		s->first = ev;
		return;
	}
	if (s->last)
		clReleaseEvent(s->last);
	s->last = ev;
}

double span_ms(Ocl *o, Span *s)
{
	cl_ulong t0, t1;
	cl_event last = s->last ? s->last : s->first;
	CL_CHECK(clFinish(o->q));
	CL_CHECK(clGetEventProfilingInfo(s->first, CL_PROFILING_COMMAND_START,
					 sizeof t0, &t0, NULL));
	CL_CHECK(clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END,
					 sizeof t1, &t1, NULL));
	clReleaseEvent(s->first);
	if (s->last)
		clReleaseEvent(s->last);
	s->first = s->last = NULL;
	return (double)(t1 - t0) / 1e6;
}
