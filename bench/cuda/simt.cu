/* simt.cu — CUDA C ports of the SIMT OpenCL baselines in bench/simt (impl
 * "cuda-simt"), for a GPU host without OpenCL: the same algorithms, work
 * decomposition, SLM use and barriers, kernel for kernel.  The transpose is
 * the Harris SLM-tiled kernel.  Comments on the algorithms are in the .cl
 * files. */
#include <stdio.h>

#include "cubench.h"

static unsigned blocks(size_t n, unsigned b)
{
	return (unsigned)((n + b - 1) / b);
}

/* linear.cl */
__global__ void k_linear(const uint8_t *in, uint8_t *out, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int s0 = 0, s1 = 0, s2 = 0;
	if (x >= w || y >= h)
		return;
	for (int dy = -1; dy <= 1; dy++) {
		int yy = min(max(y + dy, 0), h - 1);
		for (int dx = -1; dx <= 1; dx++) {
			int xx = min(max(x + dx, 0), w - 1);
			const uint8_t *p = in + ((size_t)yy * w + xx) * 3;
			s0 += p[0], s1 += p[1], s2 += p[2];
		}
	}
	uint8_t *o = out + ((size_t)y * w + x) * 3;
	o[0] = (uint8_t)((s0 + 4) / 9);
	o[1] = (uint8_t)((s1 + 4) / 9);
	o[2] = (uint8_t)((s2 + 4) / 9);
}

static void linear(const uint8_t *in, uint8_t *out, int w, int h, Scratch *s)
{
	dim3 b(32, 8), g(blocks(w, 32), blocks(h, 8));
	k_linear<<<g, b>>>(in, out, w, h);
}

/* bitonic.cl */
__global__ void k_bitonic(uint32_t *a, uint32_t j, uint32_t k)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	uint32_t lo = ((i & ~(j - 1)) << 1) | (i & (j - 1)), hi = lo + j;
	uint32_t x = a[lo], y = a[hi];
	bool up = (lo & k) == 0;
	if ((x > y) == up)
		a[lo] = y, a[hi] = x;
}

static uint32_t *bitonic(uint32_t *keys, uint32_t *alt, size_t n, Scratch *s)
{
	size_t half = n / 2;
	unsigned b = half < 256 ? (unsigned)half : 256;
	for (uint32_t k = 2; k <= n; k <<= 1)
		for (uint32_t j = k >> 1; j > 0; j >>= 1)
			k_bitonic<<<blocks(half, b), b>>>(keys, j, k);
	return keys;
}

/* histogram.cl */
__global__ void k_hist(const uint32_t *data, size_t n4, uint32_t *hist)
{
	__shared__ uint32_t lh[256];
	for (int b = threadIdx.x; b < 256; b += blockDim.x)
		lh[b] = 0;
	__syncthreads();
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint32_t v = data[i];
		atomicAdd(&lh[v & 255], 1u);
		atomicAdd(&lh[(v >> 8) & 255], 1u);
		atomicAdd(&lh[(v >> 16) & 255], 1u);
		atomicAdd(&lh[v >> 24], 1u);
	}
	__syncthreads();
	for (int b = threadIdx.x; b < 256; b += blockDim.x)
		if (lh[b])
			atomicAdd(&hist[b], lh[b]);
}

static void histogram(const uint8_t *d, size_t n, uint32_t *hist, Scratch *s)
{
	int sms;
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	size_t n4 = n / 4;
	unsigned g = (unsigned)sms * 8;
	if (g > blocks(n4, 256))
		g = blocks(n4, 256);
	CK(cudaMemsetAsync(hist, 0, 1024));
	k_hist<<<g, 256>>>((const uint32_t *)d, n4, hist);
}

/* kmeans.cl: D and K are template parameters (build options there). */
enum { CHUNK = 4096 };

template <int D, int K>
__global__ void k_assign(const float *pts, int n, const float *cent,
			 int *member, int *changed)
{
	__shared__ float c[K * D];
	for (int t = threadIdx.x; t < K * D; t += blockDim.x)
		c[t] = cent[t];
	__syncthreads();
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float x[D];
	for (int d = 0; d < D; d++)
		x[d] = pts[(size_t)i * D + d];
	float best = 0;
	int arg = 0;
	for (int k = 0; k < K; k++) {
		float dist = 0;
		for (int d = 0; d < D; d++) {
			float t = x[d] - c[k * D + d];
			dist += t * t;
		}
		if (k == 0 || dist < best)
			best = dist, arg = k;
	}
	if (member[i] != arg) {
		member[i] = arg;
		*changed = 1;
	}
}

template <int D, int K>
__global__ void k_accum(const float *pts, int n, const int *member,
			float *psum, int *pcount)
{
	__shared__ float sum[K * D];
	__shared__ int cnt[K];
	int lid = threadIdx.x, lsz = blockDim.x, g = blockIdx.x;
	for (int t = lid; t < K * D; t += lsz)
		sum[t] = 0;
	for (int t = lid; t < K; t += lsz)
		cnt[t] = 0;
	__syncthreads();
	int end = min(n, (g + 1) * CHUNK);
	for (int i = g * CHUNK + lid; i < end; i += lsz) {
		int m = member[i];
		atomicAdd(&cnt[m], 1);
		for (int d = 0; d < D; d++)
			atomicAdd(&sum[m * D + d], pts[(size_t)i * D + d]);
	}
	__syncthreads();
	for (int t = lid; t < K * D; t += lsz)
		psum[(size_t)g * K * D + t] = sum[t];
	for (int t = lid; t < K; t += lsz)
		pcount[g * K + t] = cnt[t];
}

template <int D, int K>
__global__ void k_update(const float *psum, const int *pcount, int ngroups,
			 float *cent)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= K * D)
		return;
	float s = 0;
	int c = 0;
	for (int g = 0; g < ngroups; g++) {
		s += psum[(size_t)g * K * D + t];
		c += pcount[g * K + t / D];
	}
	if (c)
		cent[t] = s / c;
}

template <int D, int K>
static int km_run(const float *pts, int n, float *cent, int *member, int conv,
		  Scratch *s)
{
	int ngroups = (n + CHUNK - 1) / CHUNK, iters = 0, changed = 1;
	char *mem = (char *)s->get(sizeof(float) * ngroups * K * D +
				   sizeof(int) * ngroups * K + 16);
	int *dchanged = (int *)mem;
	float *psum = (float *)(mem + 16);
	int *pcount = (int *)(psum + (size_t)ngroups * K * D);
	while (changed && iters < 100) {
		CK(cudaMemsetAsync(dchanged, 0, 4));
		k_assign<D, K><<<blocks(n, 256), 256>>>(pts, n, cent, member, dchanged);
		k_accum<D, K><<<ngroups, 256>>>(pts, n, member, psum, pcount);
		k_update<D, K><<<blocks(K * D, 64), 64>>>(psum, pcount, ngroups, cent);
		iters++;
		if (!conv)
			break;
		CK(cudaMemcpy(&changed, dchanged, 4, cudaMemcpyDeviceToHost));
	}
	return iters;
}

static int kmeans(const float *pts, int n, int d, int k, float *cent,
		  int *member, int conv, Scratch *s)
{
	if (d == 4 && k == 16)
		return km_run<4, 16>(pts, n, cent, member, conv, s);
	if (d == 4 && k == 64)
		return km_run<4, 64>(pts, n, cent, member, conv, s);
	if (d == 16 && k == 16)
		return km_run<16, 16>(pts, n, cent, member, conv, s);
	if (d == 16 && k == 64)
		return km_run<16, 64>(pts, n, cent, member, conv, s);
	bench_die("cuda-simt kmeans: no instance for D=%d K=%d", d, k);
	return 0;
}

/* spmv.cl */
__global__ void k_spmv(int rows, const int *rowptr, const int *col,
		       const float *val, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float s = 0;
	if (i >= rows)
		return;
	for (int j = rowptr[i]; j < rowptr[i + 1]; j++)
		s += val[j] * x[col[j]];
	y[i] = s;
}

static void spmv(int rows, int cols, long nnz, const int *rowptr,
		 const int *col, const float *val, const float *x, float *y,
		 Scratch *s)
{
	k_spmv<<<blocks(rows, 256), 256>>>(rows, rowptr, col, val, x, y);
}

/* transpose.cl (Harris) */
enum { TILE = 32, ROWS = 8 };
__global__ void k_transpose(const float *in, float *out, int n)
{
	__shared__ float tile[TILE][TILE + 1];
	int tx = threadIdx.x, ty = threadIdx.y;
	int x = blockIdx.x * TILE + tx, y = blockIdx.y * TILE + ty;
	for (int j = 0; j < TILE; j += ROWS)
		tile[ty + j][tx] = in[(size_t)(y + j) * n + x];
	__syncthreads();
	x = blockIdx.y * TILE + tx;
	y = blockIdx.x * TILE + ty;
	for (int j = 0; j < TILE; j += ROWS)
		out[(size_t)(y + j) * n + x] = tile[tx][ty + j];
}

static void transpose(const float *in, float *out, int n, Scratch *s)
{
	k_transpose<<<dim3(n / TILE, n / TILE), dim3(TILE, ROWS)>>>(in, out, n);
}

/* gemm.cl */
template <class T>
__global__ void __launch_bounds__(256) k_gemm(int n, T alpha, const T *A,
					      const T *B, T beta, T *C)
{
	enum { TS = 64, TK = 16, WPT = 4 };
	__shared__ T As[TK][TS];
	__shared__ T Bs[TK][TS];
	int tx = threadIdx.x, ty = threadIdx.y, lid = ty * 16 + tx;
	int col0 = blockIdx.x * TS, row0 = blockIdx.y * TS;
	T acc[WPT][WPT] = {};
	for (int k0 = 0; k0 < n; k0 += TK) {
		for (int l = 0; l < 4; l++) {
			int e = lid + l * 256;
			int r = e / TK, c = e % TK;
			As[c][r] = A[(size_t)(row0 + r) * n + k0 + c];
			int kr = e / TS, cc = e % TS;
			Bs[kr][cc] = B[(size_t)(k0 + kr) * n + col0 + cc];
		}
		__syncthreads();
		for (int k = 0; k < TK; k++) {
			T a[WPT], b[WPT];
			for (int i = 0; i < WPT; i++)
				a[i] = As[k][ty + 16 * i];
			for (int j = 0; j < WPT; j++)
				b[j] = Bs[k][tx + 16 * j];
			for (int i = 0; i < WPT; i++)
				for (int j = 0; j < WPT; j++)
					acc[i][j] += a[i] * b[j];
		}
		__syncthreads();
	}
	for (int i = 0; i < WPT; i++)
		for (int j = 0; j < WPT; j++) {
			size_t o = (size_t)(row0 + ty + 16 * i) * n + col0 + tx + 16 * j;
			C[o] = alpha * acc[i][j] + beta * C[o];
		}
}

static void sgemm(int n, float alpha, const float *a, const float *b,
		  float beta, float *c, Scratch *s)
{
	k_gemm<float><<<dim3(n / 64, n / 64), dim3(16, 16)>>>(n, alpha, a, b, beta, c);
}

static void dgemm(int n, double alpha, const double *a, const double *b,
		  double beta, double *c, Scratch *s)
{
	k_gemm<double><<<dim3(n / 64, n / 64), dim3(16, 16)>>>(n, alpha, a, b, beta, c);
}

/* scan.cl: T is uint32_t (int32 with wrap-around) or float. */
enum { WG = 256, BLK = 2 * WG };

template <class T>
__global__ void k_scan_block(const T *in, T *out, T *sums, uint32_t n)
{
	__shared__ T s[BLK];
	uint32_t lid = threadIdx.x, g = blockIdx.x;
	uint32_t i0 = g * BLK + lid, i1 = i0 + WG, off = 1;
	T a = i0 < n ? in[i0] : 0, b = i1 < n ? in[i1] : 0;
	s[lid] = a;
	s[lid + WG] = b;
	for (uint32_t d = BLK >> 1; d > 0; d >>= 1) {
		__syncthreads();
		if (lid < d)
			s[off * (2 * lid + 2) - 1] += s[off * (2 * lid + 1) - 1];
		off <<= 1;
	}
	__syncthreads();
	if (lid == 0) {
		sums[g] = s[BLK - 1];
		s[BLK - 1] = 0;
	}
	for (uint32_t d = 1; d < BLK; d <<= 1) {
		off >>= 1;
		__syncthreads();
		if (lid < d) {
			uint32_t ai = off * (2 * lid + 1) - 1, bi = off * (2 * lid + 2) - 1;
			T t = s[ai];
			s[ai] = s[bi];
			s[bi] += t;
		}
	}
	__syncthreads();
	if (i0 < n)
		out[i0] = s[lid] + a;
	if (i1 < n)
		out[i1] = s[lid + WG] + b;
}

template <class T> __global__ void k_scan_add(T *out, const T *sums, uint32_t n)
{
	uint32_t g = blockIdx.x, i0 = g * BLK + threadIdx.x, i1 = i0 + WG;
	if (g == 0)
		return;
	T add = sums[g - 1];
	if (i0 < n)
		out[i0] += add;
	if (i1 < n)
		out[i1] += add;
}

/* Scans n elements of in into out; level sums live in scratch at sums. */
template <class T> static void scan_level(const T *in, T *out, size_t n, T *sums)
{
	unsigned nb = blocks(n, BLK);
	k_scan_block<T><<<nb, WG>>>(in, out, sums, (uint32_t)n);
	if (nb == 1)
		return;
	scan_level<T>(sums, sums, nb, sums + nb + 1);
	k_scan_add<T><<<nb, WG>>>(out, sums, (uint32_t)n);
}

template <class T> static void scan(const T *in, T *out, size_t n, Scratch *s)
{
	size_t total = 0, m = n;
	do {
		m = (m + BLK - 1) / BLK;
		total += m + 1;
	} while (m > 1);
	scan_level<T>(in, out, n, (T *)s->get(total * sizeof(T)));
}

static void scan_i(const int32_t *in, int32_t *out, size_t n, Scratch *s)
{
	scan<uint32_t>((const uint32_t *)in, (uint32_t *)out, n, s);
}

static void scan_f(const float *in, float *out, size_t n, Scratch *s)
{
	scan<float>(in, out, n, s);
}

const Impl simt_impls[] = {
	{ "linear", "cuda-simt", (void *)linear },
	{ "bitonic", "cuda-simt", (void *)bitonic },
	{ "histogram", "cuda-simt", (void *)histogram },
	{ "kmeans", "cuda-simt", (void *)kmeans },
	{ "spmv", "cuda-simt", (void *)spmv },
	{ "transpose", "cuda-simt", (void *)transpose },
	{ "sgemm", "cuda-simt", (void *)sgemm },
	{ "dgemm", "cuda-simt", (void *)dgemm },
	{ "scan-i32", "cuda-simt", (void *)scan_i },
	{ "scan-f32", "cuda-simt", (void *)scan_f },
	{ NULL, NULL, NULL },
};
