/* ocl.h — the OpenCL harness: a thin layer over the OpenCL 1.2 API
 * (harness.c) and one runner per workload (workloads.c) that builds the
 * SIMT kernel from bench/simt/, checks it against the C reference on fresh
 * inputs, then times it with profiling events and prints a CSV row. */
#ifndef CMETAL_BENCH_OCL_H
#define CMETAL_BENCH_OCL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "bench.h"

typedef struct Ocl {
	cl_platform_id plat;
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q;
	int is_gpu, units;
	char device[320];	/* CSV device column: "cpu:<model>" or "gpu:<name>" */
	char driver[800];	/* platform, version and driver version */
	const char *kdir;	/* directory of the .cl files */
} Ocl;

/* A span of enqueued commands: the first event's start to the last's end. */
typedef struct Span {
	cl_event first, last;
} Span;

/* harness.c */
/* CL_CHECK(call) is an expression: it ends the harness on an error code. */
void cl_check(cl_int err, const char *file, int line, const char *what);
#define CL_CHECK(call) cl_check((call), __FILE__, __LINE__, #call)
#define ARG(k, i, x) CL_CHECK(clSetKernelArg((k), (i), sizeof(x), &(x)))

void ocl_init(Ocl *o, const char *kdir);
cl_program ocl_build(Ocl *o, const char *file, const char *opts);
cl_kernel ocl_kernel(cl_program p, const char *name);
cl_mem ocl_buf(Ocl *o, size_t bytes, const void *init);
void ocl_read(Ocl *o, cl_mem b, void *dst, size_t bytes);
void ocl_copy(Ocl *o, cl_mem src, cl_mem dst, size_t bytes);
/* Enqueues k over `dims` dimensions (global rounded up to local), adding
 * it to span s (which may be NULL). */
void ocl_launch(Ocl *o, cl_kernel k, int dims, const size_t *global,
		const size_t *local, Span *s);
double span_ms(Ocl *o, Span *s);	/* finishes the queue, releases s */
size_t round_up(size_t x, size_t m);

/* workloads.c */
void ocl_run_case(Ocl *o, const BenchCase *c);
void ocl_run_copy(Ocl *o, int full);

#endif
