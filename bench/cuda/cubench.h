/* cubench.h — the CUDA harness (cudabench).  main.cu holds one driver per
 * workload: it makes the shared inputs, uploads them (nrot rotated copies
 * for inputs under 128 MB), and for every implementation registered for the
 * workload runs it once, checks the result against the C reference, then
 * times bench_reps() runs with CUDA events and prints the median as CSV.
 * Implementations live in vendor.cu (CUB, cuBLAS, cuSPARSE, NPP) and
 * simt.cu (CUDA ports of the SIMT OpenCL kernels of bench/simt, impl
 * "cuda-simt"); each is a function over device pointers.  Scratch is
 * device memory an implementation may size during its first (untimed)
 * run and reuse afterwards. */
#ifndef CMETAL_BENCH_CUBENCH_H
#define CMETAL_BENCH_CUBENCH_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "bench.h"

void cuda_check(cudaError_t e, const char *file, int line, const char *what);
#define CK(call) cuda_check((call), __FILE__, __LINE__, #call)

struct Scratch {
	void *p;
	size_t bytes;
	void *get(size_t n)	/* grows only in untimed runs */
	{
		if (n > bytes) {
			if (p)
				CK(cudaFree(p));
			CK(cudaMalloc(&p, n));
			bytes = n;
		}
		return p;
	}
};

/* Signatures of an implementation of each workload (device pointers). */
typedef void LinearFn(const uint8_t *in, uint8_t *out, int w, int h, Scratch *s);
typedef uint32_t *SortFn(uint32_t *keys, uint32_t *alt, size_t n, Scratch *s);
typedef void HistFn(const uint8_t *d, size_t n, uint32_t *hist, Scratch *s);
/* cent starts as the first K points and member as -1; returns iterations */
typedef int KmeansFn(const float *pts, int n, int d, int k, float *cent,
		     int *member, int conv, Scratch *s);
typedef void SpmvFn(int rows, int cols, long nnz, const int *rowptr,
		    const int *col, const float *val, const float *x, float *y,
		    Scratch *s);
typedef void TransposeFn(const float *in, float *out, int n, Scratch *s);
typedef void SgemmFn(int n, float alpha, const float *a, const float *b,
		     float beta, float *c, Scratch *s);
typedef void DgemmFn(int n, double alpha, const double *a, const double *b,
		     double beta, double *c, Scratch *s);
/* C += A B: A, B fp16 (bit patterns), C fp32 */
typedef void HgemmFn(int n, const uint16_t *a, const uint16_t *b, float *c, Scratch *s);
typedef void ScanIFn(const int32_t *in, int32_t *out, size_t n, Scratch *s);
typedef void ScanFFn(const float *in, float *out, size_t n, Scratch *s);

/* One registered implementation.  interior: only pixels at least one away
 * from the border are produced (NPP's box filter has no border mode) and
 * tol is the allowed per-byte difference there. */
struct Impl {
	const char *workload;	/* bench case workload name */
	const char *name;	/* CSV impl column */
	void *fn;		/* one of the *Fn types above */
	int interior, tol;
};

/* vendor.cu, simt.cu: tables ending with a null entry */
extern const Impl vendor_impls[];
extern const Impl simt_impls[];
void vendor_copy_peak(const char *device, int full);
const char *vendor_notes(void);

#endif
