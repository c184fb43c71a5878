// mma_peak.cu: tensor-core issue rate per mma.sync shape on this GPU.
// Each warp runs CH independent accumulator chains for IT iterations;
// operands stay in registers, so only the tensor pipe is measured.
#include <cstdio>
#include <cuda_runtime.h>
#define IT 4096
#define CH 8
template <int S> __device__ void step(double *acc, const double *a, const double *b);
// S = 0: m8n8k4 (256 MAC), 1: m16n8k4 (512), 2: m16n8k8 (1024), 3: m16n8k16 (2048)
template <> __device__ void step<0>(double *c, const double *a, const double *b) {
	asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1},{%2},{%3},{%0,%1};"
		: "+d"(c[0]), "+d"(c[1]) : "d"(a[0]), "d"(b[0]));
}
template <> __device__ void step<1>(double *c, const double *a, const double *b) {
	asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3},{%4,%5},{%6},{%0,%1,%2,%3};"
		: "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3]) : "d"(a[0]), "d"(a[1]), "d"(b[0]));
}
template <> __device__ void step<2>(double *c, const double *a, const double *b) {
	asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3},{%4,%5,%6,%7},{%8,%9},{%0,%1,%2,%3};"
		: "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3]) : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
template <> __device__ void step<3>(double *c, const double *a, const double *b) {
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3},{%4,%5,%6,%7,%8,%9,%10,%11},{%12,%13,%14,%15},{%0,%1,%2,%3};"
		: "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
		: "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
		  "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
template <int S> __global__ void kd(double *out, double seed) {
	double a[8], b[4], c[CH][4];
	for (int i = 0; i < 8; i++) a[i] = seed * (threadIdx.x + i);
	for (int i = 0; i < 4; i++) b[i] = seed * (threadIdx.x - i);
	for (int j = 0; j < CH; j++) for (int i = 0; i < 4; i++) c[j][i] = 0;
	for (int it = 0; it < IT; it++)
#pragma unroll
		for (int j = 0; j < CH; j++) step<S>(c[j], a, b);
	double s = 0;
	for (int j = 0; j < CH; j++) for (int i = 0; i < 4; i++) s += c[j][i];
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void kh(float *out, unsigned seed) {
	unsigned a[4], b[2]; float c[CH][4];
	for (int i = 0; i < 4; i++) a[i] = seed * (threadIdx.x + i);
	for (int i = 0; i < 2; i++) b[i] = seed * (threadIdx.x - i);
	for (int j = 0; j < CH; j++) for (int i = 0; i < 4; i++) c[j][i] = 0;
	for (int it = 0; it < IT; it++)
#pragma unroll
		for (int j = 0; j < CH; j++)
			asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3},{%4,%5,%6,%7},{%8,%9},{%0,%1,%2,%3};"
				: "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
				: "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
	float s = 0;
	for (int j = 0; j < CH; j++) for (int i = 0; i < 4; i++) s += c[j][i];
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template <class F> static void timeit(const char *name, double mac, F launch) {
	cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
	launch(); cudaDeviceSynchronize();
	float best = 1e30f, all[7];
	for (int r = 0; r < 7; r++) {
		cudaEventRecord(e0); launch(); cudaEventRecord(e1); cudaEventSynchronize(e1);
		cudaEventElapsedTime(&all[r], e0, e1);
	}
	for (int i = 0; i < 7; i++) for (int j = i + 1; j < 7; j++) if (all[j] < all[i]) { float t = all[i]; all[i] = all[j]; all[j] = t; }
	(void)best;
	printf("%-26s median %.3f ms  %.1f TFLOPS\n", name, all[3], 2 * mac / (all[3] * 1e-3) / 1e12);
}
int main() {
	int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
	cudaDeviceProp pr; cudaGetDeviceProperties(&pr, 0);
	printf("# %s, %d SMs\n", pr.name, sms);
	const int blocks = sms * 8, threads = 256; // 64 warps an SM
	double *od; float *of; cudaMalloc(&od, blocks * threads * 8); cudaMalloc(&of, blocks * threads * 4);
	double warps = blocks * threads / 32.0, per = warps * IT * CH;
	const char *nm[4] = { "f64 m8n8k4", "f64 m16n8k4", "f64 m16n8k8", "f64 m16n8k16" };
	double mac[4] = { 256, 512, 1024, 2048 };
	timeit(nm[0], per * mac[0], [&] { kd<0><<<blocks, threads>>>(od, 1.0); });
	timeit(nm[1], per * mac[1], [&] { kd<1><<<blocks, threads>>>(od, 1.0); });
	timeit(nm[2], per * mac[2], [&] { kd<2><<<blocks, threads>>>(od, 1.0); });
	timeit(nm[3], per * mac[3], [&] { kd<3><<<blocks, threads>>>(od, 1.0); });
	timeit("f16->f32 m16n8k16", per * 2048, [&] { kh<<<blocks, threads>>>(of, 1u); });
	cudaError_t e = cudaGetLastError();
	printf("# %s\n", cudaGetErrorString(e));
	return 0;
}
