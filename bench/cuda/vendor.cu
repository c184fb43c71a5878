/* vendor.cu — what a CUDA user would pick instead of writing a kernel:
 * CUB (radix and merge sort, histogram, inclusive scan), cuSPARSE (CSR SpMV,
 * generic API), cuBLAS (SGEMM/DGEMM; geam for transpose), NPP (box filter,
 * when bench/Makefile found NPP), plus the device-to-device copy bandwidth
 * and peak FP32/FP64 FMA rate the report relates results to.
 * HGEMM is cublasGemmEx, fp16 inputs, fp32 output and accumulation.
 * SGEMM runs with CUBLAS_DEFAULT_MATH: full FP32, no TF32 tensor cores
 * (unless NVIDIA_TF32_OVERRIDE=1 is set in the environment, which gpu.sh
 * clears). */
#include <cublas_v2.h>
#include <cusparse.h>
#include <cub/cub.cuh>
#include <stdio.h>
#include <string.h>

#include "cubench.h"

#define CB(call) do { if ((call) != CUBLAS_STATUS_SUCCESS) bench_die("%s failed", #call); } while (0)
#define CS(call) do { if ((call) != CUSPARSE_STATUS_SUCCESS) bench_die("%s failed", #call); } while (0)

static cublasHandle_t blas(void)
{
	static cublasHandle_t h;
	if (!h) {
		CB(cublasCreate(&h));
		CB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
	}
	return h;
}

/* CUB: every call is made twice, once to size the temporary storage. */
static uint32_t *cub_radix(uint32_t *keys, uint32_t *alt, size_t n, Scratch *s)
{
	cub::DoubleBuffer<uint32_t> db(keys, alt);
	size_t bytes = 0;
	CK(cub::DeviceRadixSort::SortKeys(NULL, bytes, db, (int)n));
	CK(cub::DeviceRadixSort::SortKeys(s->get(bytes), bytes, db, (int)n));
	return db.Current();
}

struct Less {
	__device__ bool operator()(uint32_t a, uint32_t b) const { return a < b; }
};

static uint32_t *cub_merge(uint32_t *keys, uint32_t *alt, size_t n, Scratch *s)
{
	size_t bytes = 0;
	CK(cub::DeviceMergeSort::SortKeys(NULL, bytes, keys, (int64_t)n, Less()));
	CK(cub::DeviceMergeSort::SortKeys(s->get(bytes), bytes, keys, (int64_t)n, Less()));
	return keys;
}

static void cub_hist(const uint8_t *d, size_t n, uint32_t *hist, Scratch *s)
{
	size_t bytes = 0;
	CK(cub::DeviceHistogram::HistogramEven(NULL, bytes, d, hist, 257, 0, 256,
					       (int64_t)n));
	CK(cub::DeviceHistogram::HistogramEven(s->get(bytes), bytes, d, hist, 257,
					       0, 256, (int64_t)n));
}

template <class T> static void cub_scan(const T *in, T *out, size_t n, Scratch *s)
{
	size_t bytes = 0;
	CK(cub::DeviceScan::InclusiveSum(NULL, bytes, in, out, (int64_t)n));
	CK(cub::DeviceScan::InclusiveSum(s->get(bytes), bytes, in, out, (int64_t)n));
}

static void cub_scan_i(const int32_t *in, int32_t *out, size_t n, Scratch *s)
{
	cub_scan(in, out, n, s);
}

static void cub_scan_f(const float *in, float *out, size_t n, Scratch *s)
{
	cub_scan(in, out, n, s);
}

/* cuSPARSE keeps its descriptors between calls; the matrix pointers are
 * reset on every call because the harness rotates copies. */
static void cusparse_spmv(int rows, int cols, long nnz, const int *rowptr,
			  const int *col, const float *val, const float *x,
			  float *y, Scratch *s)
{
	static cusparseHandle_t h;
	static cusparseSpMatDescr_t A;
	static cusparseDnVecDescr_t X, Y;
	static const float *lastx;
	static float *lasty;
	static int lastrows;
	static long lastnnz;
	float one = 1, zero = 0;
	size_t bytes = 0;
	if (!h)
		CS(cusparseCreate(&h));
	if (!A || lastrows != rows || lastnnz != nnz || lastx != x || lasty != y) {
		if (A) {
			cusparseDestroySpMat(A);
			cusparseDestroyDnVec(X);
			cusparseDestroyDnVec(Y);
		}
		CS(cusparseCreateCsr(&A, rows, cols, nnz, (void *)rowptr, (void *)col,
				     (void *)val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
				     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
		CS(cusparseCreateDnVec(&X, cols, (void *)x, CUDA_R_32F));
		CS(cusparseCreateDnVec(&Y, rows, y, CUDA_R_32F));
		lastrows = rows, lastnnz = nnz, lastx = x, lasty = y;
	}
	CS(cusparseCsrSetPointers(A, (void *)rowptr, (void *)col, (void *)val));
	CS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X,
				   &zero, Y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT,
				   &bytes));
	CS(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y,
			CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, s->get(bytes + 1)));
}

/* Row-major C = alpha A B + beta C is column-major C' = alpha B' A' + beta C'. */
static void cublas_sgemm(int n, float alpha, const float *a, const float *b,
			 float beta, float *c, Scratch *s)
{
	CB(cublasSgemm(blas(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, b, n, a,
		       n, &beta, c, n));
}

static void cublas_dgemm(int n, double alpha, const double *a, const double *b,
			 double beta, double *c, Scratch *s)
{
	CB(cublasDgemm(blas(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, b, n, a,
		       n, &beta, c, n));
}

/* fp16 A and B, fp32 C and accumulation (CUBLAS_COMPUTE_32F): what the CM
 * hgemm computes (cm_dpas HF: fp16 products summed in fp32). */
static void cublas_hgemm(int n, const uint16_t *a, const uint16_t *b, float *c, Scratch *s)
{
	float one = 1;
	CB(cublasGemmEx(blas(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, CUDA_R_16F, n,
			a, CUDA_R_16F, n, &one, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
			CUBLAS_GEMM_DEFAULT));
}

static void cublas_transpose(const float *in, float *out, int n, Scratch *s)
{
	float one = 1, zero = 0;
	CB(cublasSgeam(blas(), CUBLAS_OP_T, CUBLAS_OP_N, n, n, &one, in, n, &zero,
		       out, n, out, n));
}

#ifdef HAVE_NPP
void npp_box3(const uint8_t *in, uint8_t *out, int w, int h);	/* npp.cu */
static void npp_linear(const uint8_t *in, uint8_t *out, int w, int h, Scratch *s)
{
	npp_box3(in, out, w, h);
}
#endif

const Impl vendor_impls[] = {
#ifdef HAVE_NPP
	{ "linear", "npp", (void *)npp_linear, 1, 1 },
#endif
	{ "bitonic", "cub-radix", (void *)cub_radix },
	{ "bitonic", "cub-merge", (void *)cub_merge },
	{ "histogram", "cub", (void *)cub_hist },
	{ "spmv", "cusparse", (void *)cusparse_spmv },
	{ "transpose", "cublas-geam", (void *)cublas_transpose },
	{ "sgemm", "cublas", (void *)cublas_sgemm },
	{ "dgemm", "cublas", (void *)cublas_dgemm },
	{ "hgemm", "cublas", (void *)cublas_hgemm },
	{ "scan-i32", "cub", (void *)cub_scan_i },
	{ "scan-f32", "cub", (void *)cub_scan_f },
	{ NULL, NULL, NULL },
};

const char *vendor_notes(void)
{
#ifdef HAVE_NPP
	return "vendor: CUB, cuBLAS (CUBLAS_DEFAULT_MATH, no TF32), cuSPARSE, NPP";
#else
	return "vendor: CUB, cuBLAS (CUBLAS_DEFAULT_MATH, no TF32), cuSPARSE; NPP not found at build time";
#endif
}

/* Peak FMA: 8 independent chains per thread, ITER iterations each. */
template <class T> __global__ void fma_peak(T *out, T seed)
{
	enum { ITER = 4096 };
	T a[8];
	for (int i = 0; i < 8; i++)
		a[i] = seed + threadIdx.x + i;
	T m = (T)0.999999, c = (T)1e-7;
#pragma unroll 4
	for (int it = 0; it < ITER; it++)
#pragma unroll
		for (int i = 0; i < 8; i++)
			a[i] = a[i] * m + c;
	T s = 0;
	for (int i = 0; i < 8; i++)
		s += a[i];
	if (s == (T)-1)	/* never true: keeps the chains alive */
		out[threadIdx.x] = s;
}

template <class T>
static void peak(const char *device, const char *size, int blocks)
{
	BenchCase c = { "peak", size, 0, 0, { 0 } };
	T *out;
	cudaEvent_t a, b;
	double t[100];
	int reps = bench_reps();
	CK(cudaMalloc(&out, 1024 * sizeof(T)));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	fma_peak<T><<<blocks, 256>>>(out, (T)1);
	for (int r = 0; r < reps; r++) {
		float ms;
		CK(cudaEventRecord(a));
		fma_peak<T><<<blocks, 256>>>(out, (T)1);
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		t[r] = ms;
	}
	double flops = 2.0 * 8 * 4096 * 256.0 * blocks;
	csv_row(&c, device, "fma", median(t, reps), flops / 1e9, "GFLOP/s", "yes");
	cudaFree(out);
	cudaEventDestroy(a), cudaEventDestroy(b);
}

void vendor_copy_peak(const char *device, int full)
{
	size_t bytes = (size_t)(full ? 1024 : 64) << 20;
	BenchCase c = { "copy", full ? "1GB" : "64MB", 0, 0, { 0 } };
	char *x, *y;
	cudaEvent_t a, b;
	double t[100];
	int reps = bench_reps(), sms;
	CK(cudaMalloc(&x, bytes));
	CK(cudaMalloc(&y, bytes));
	CK(cudaMemset(x, 1, bytes));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	CK(cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice));
	for (int r = 0; r < reps; r++) {
		float ms;
		CK(cudaEventRecord(a));
		CK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice));
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		t[r] = ms;
	}
	csv_row(&c, device, "cudaMemcpy", median(t, reps), 2.0 * bytes / 1e9, "GB/s", "yes");
	cudaFree(x), cudaFree(y);
	cudaEventDestroy(a), cudaEventDestroy(b);
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	peak<float>(device, "fp32", sms * 32);
	peak<double>(device, "fp64", sms * 32);
}
