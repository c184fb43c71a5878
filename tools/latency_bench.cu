// latency_bench.cu — the latencies of docs/analyzer.md's machine table,
// measured on the GPU at hand (one warp alone, clock64 around a dependent
// chain, so each figure is one round trip with nothing else in flight):
//
//   nvcc -O2 -arch=sm_90 -o latency_bench tools/latency_bench.cu && ./latency_bench
//
// Not built by make (it needs nvcc).  The analyzer's latencies (the table
// `machines` in src/target/ptx/latency.c) come from its runs on two H100 SXM machines,
// 2026-11-27 (cycles): clock 1.975-1.980 GHz, DRAM 685-697 (347-352 ns),
// L2 368-379, atomic 338 / 511 (one word; 32 words of a line 347 / 521: the
// near or far L2 half), atomic exchange + fence 650-682, fence alone 630,
// shfl 26.0, ld.shared 29.0, FFMA 4.1; read bandwidth 5611 GB/s from an
// 8 MB set (L2), 3029-3076 from 128 MB and 2 GB (DRAM).  The contended lines (atomics that
// every warp aims at one line) are not in the model: 0.73-0.91 ns a warp
// atomic on one word (0.74-0.79 with the result used, a variant run
// once), 2.4-2.7 ns with 32 lanes on the line's 32 words.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
	printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

enum { STEPS = 4096 };

// p = next[p], loads that bypass L1 (ld.global.cg): L2 or DRAM latency.
__global__ void chase(const unsigned *next, unsigned start, long long *cyc, unsigned *sink)
{
	unsigned p = start;
	for (int i = 0; i < 64; i++)	// warm the TLB and, for small sets, L2
		p = __ldcg(next + p);
	long long t = clock64();
	for (int i = 0; i < STEPS; i++)
		p = __ldcg(next + p);
	*cyc = clock64() - t;
	*sink = p;
}

// p = atomicOr(&next[p], 0): a global atomic round trip (executed at L2);
// wide: all 32 lanes, each on its own word of one line, as a 32-wide poll.
__global__ void atomics(unsigned *next, long long *cyc, unsigned *sink, int wide)
{
	unsigned lane = threadIdx.x, p = 0;
	if (!wide && lane)
		return;
	for (int i = 0; i < 64; i++)
		p = __shfl_sync(wide ? ~0u : 1u, atomicOr(next + p + (wide ? lane : 0), 0u), 0);
	long long t = clock64();
	for (int i = 0; i < STEPS; i++)
		p = __shfl_sync(wide ? ~0u : 1u, atomicOr(next + p + (wide ? lane : 0), 0u), 0);
	if (!lane)
		*cyc = clock64() - t, *sink = p;
}

// fence.acq_rel.gpu (cm_fence), repeated, after an atomic exchange (the
// fence waits for it to complete) or alone (nothing outstanding).
__global__ void fences(unsigned *x, long long *cyc, int xchg)
{
	long long t = clock64();
	for (int i = 0; i < STEPS; i++) {
		if (xchg)
			atomicExch(x + (i & 31) * 32, i);
		asm volatile("fence.acq_rel.gpu;" ::: "memory");
	}
	*cyc = clock64() - t;
}

// Dependent chains: shuffles, shared loads, FMAs.
__global__ void chains(long long *cyc, float *sink)
{
	__shared__ unsigned s[1024];
	unsigned lane = threadIdx.x;
	for (int i = lane; i < 1024; i += 32)
		s[i] = (i * 33 + 7) & 1023;
	__syncwarp();
	unsigned v = lane, p = lane;
	long long t = clock64();
	for (int i = 0; i < STEPS; i++)
		v = __shfl_sync(~0u, v, (lane + 1) & 31);
	long long t1 = clock64();
	for (int i = 0; i < STEPS; i++)
		p = s[p];
	long long t2 = clock64();
	float x = lane, y = 1.0001f, z = 0.5f;
	for (int i = 0; i < STEPS; i++)
		x = fmaf(x, y, z);
	long long t3 = clock64();
	if (!lane) {
		cyc[0] = t1 - t, cyc[1] = t2 - t1, cyc[2] = t3 - t2;
		*sink = x + v + p;
	}
}

// Throughput of atomics that all warps aim at one line: `words` words of
// it (1: one address; 32: each lane its own word), 64 per warp.
__global__ void contended(unsigned *x, int words)
{
	unsigned lane = threadIdx.x;
	if (words == 1 && lane)
		return;
	for (int i = 0; i < 64; i++)
		atomicAdd(x + (words == 1 ? 0 : lane), 1u);
}

// Bandwidth: every SM streams a set of n float4 reps times, L1 bypassed
// (an 8 MB set stays in L2: the L2's bandwidth; 512 MB: the DRAM's).
__global__ void stream(const float4 *p, size_t n, int reps, float *sink)
{
	float4 a = make_float4(0, 0, 0, 0);
	size_t i0 = blockIdx.x * (size_t)blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
	for (int r = 0; r < reps; r++)
		for (size_t i = i0; i < n; i += step) {
			float4 v = __ldcg(p + i);
			a.x += v.x, a.y += v.y, a.z += v.z, a.w += v.w;
		}
	if (a.x + a.y + a.z + a.w == 1.2345f)
		*sink = a.x;
}

__global__ void spin(long long n, long long *cyc)
{
	long long t = clock64();
	while (clock64() - t < n)
		;
	*cyc = clock64() - t;
}

static double chase_set(unsigned *d, size_t words, size_t stride, long long *dc, unsigned *ds)
{
	unsigned *h = (unsigned *)malloc(words * 4);
	for (size_t i = 0; i < words; i++)
		h[i] = (unsigned)((i + stride) % words);
	CHECK(cudaMemcpy(d, h, words * 4, cudaMemcpyHostToDevice));
	free(h);
	long long c;
	chase<<<1, 1>>>(d, 0, dc, ds);
	CHECK(cudaMemcpy(&c, dc, 8, cudaMemcpyDeviceToHost));
	return (double)c / STEPS;
}

int main()
{
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, 0));
	printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
	size_t big = (size_t)1 << 28;	/* 1 GB of words */
	unsigned *d, *ds;
	long long *dc, c[3];
	float *df;
	CHECK(cudaMalloc(&d, big * 4));
	CHECK(cudaMalloc(&dc, 64));
	CHECK(cudaMalloc(&ds, 64));
	CHECK(cudaMalloc(&df, 64));

	// SM clock: a spin of 10^8 cycles against the wall clock
	cudaEvent_t e0, e1;
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	spin<<<1, 1>>>(1000000, dc);
	CHECK(cudaEventRecord(e0));
	spin<<<1, 1>>>(100000000, dc);
	CHECK(cudaEventRecord(e1));
	CHECK(cudaEventSynchronize(e1));
	float ms;
	CHECK(cudaEventElapsedTime(&ms, e0, e1));
	double ghz = 1e8 / (ms * 1e6);
	printf("SM clock while spinning: %.3f GHz\n", ghz);

	// DRAM: 1 GB, 4 KB + 128 B apart (a new page of DRAM every step, no
	// line reused); L2: 4 MB, 128 B + 4 apart, warmed by the first pass
	double dram = chase_set(d, big, 1056, dc, ds);
	printf("global load, DRAM (1 GB, 4224-byte steps): %.0f cycles, %.0f ns\n", dram, dram / ghz);
	double l2 = chase_set(d, (size_t)1 << 20, 33, dc, ds);
	l2 = chase_set(d, (size_t)1 << 20, 33, dc, ds);
	printf("global load, L2 (4 MB, 132-byte steps): %.0f cycles, %.0f ns\n", l2, l2 / ghz);

	CHECK(cudaMemset(d, 0, 1 << 20));
	atomics<<<1, 32>>>(d, dc, ds, 0);
	CHECK(cudaMemcpy(c, dc, 8, cudaMemcpyDeviceToHost));
	printf("global atomic, one lane: %.0f cycles\n", (double)c[0] / STEPS);
	atomics<<<1, 32>>>(d, dc, ds, 1);
	CHECK(cudaMemcpy(c, dc, 8, cudaMemcpyDeviceToHost));
	printf("global atomic, 32 lanes on one line: %.0f cycles\n", (double)c[0] / STEPS);
	fences<<<1, 1>>>(d, dc, 1);
	CHECK(cudaMemcpy(c, dc, 8, cudaMemcpyDeviceToHost));
	printf("atomic exchange + fence.acq_rel.gpu: %.0f cycles\n", (double)c[0] / STEPS);
	fences<<<1, 1>>>(d, dc, 0);
	CHECK(cudaMemcpy(c, dc, 8, cudaMemcpyDeviceToHost));
	printf("fence.acq_rel.gpu alone: %.0f cycles\n", (double)c[0] / STEPS);
	chains<<<1, 32>>>(dc, df);
	CHECK(cudaMemcpy(c, dc, 24, cudaMemcpyDeviceToHost));
	printf("shfl.sync chain: %.1f cycles\nld.shared chain: %.1f cycles\nfma chain: %.1f cycles\n",
	       (double)c[0] / STEPS, (double)c[1] / STEPS, (double)c[2] / STEPS);
	for (int mb = 8; mb <= 512; mb *= 64) {	/* the buffer holds 1 GB */
		size_t n = (size_t)mb << 16;	/* float4s */
		int reps = mb < 100 ? 50 : 3;
		stream<<<prop.multiProcessorCount * 8, 512>>>((const float4 *)d, n, 1, df);
		CHECK(cudaEventRecord(e0));
		stream<<<prop.multiProcessorCount * 8, 512>>>((const float4 *)d, n, reps, df);
		CHECK(cudaEventRecord(e1));
		CHECK(cudaEventSynchronize(e1));
		CHECK(cudaEventElapsedTime(&ms, e0, e1));
		printf("read bandwidth, %d MB set: %.0f GB/s\n", mb, (double)n * 16 * reps / ms / 1e6);
	}
	for (int words = 1; words <= 32; words += 31) {
		contended<<<4096, 32>>>(d, words);
		CHECK(cudaEventRecord(e0));
		contended<<<4096, 32>>>(d, words);
		CHECK(cudaEventRecord(e1));
		CHECK(cudaEventSynchronize(e1));
		CHECK(cudaEventElapsedTime(&ms, e0, e1));
		printf("contended atomics, %d word%s of one line: %.2f ns, %.1f cycles per warp atomic\n",
		       words, words > 1 ? "s" : "", ms * 1e6 / (4096 * 64), ms * 1e6 * ghz / (4096 * 64));
	}
	CHECK(cudaDeviceSynchronize());
	return 0;
}
