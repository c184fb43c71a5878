/* npp.cu — NPP's 3x3 box filter on RGB8 (nppiFilterBox_8u_C3R_Ctx), built
 * only where bench/Makefile can compile and link this file (it is its own
 * probe: with -DNPP_PROBE it has a main).  NPP reads every source pixel
 * under the mask and has no border mode, so only the interior, one pixel
 * in from each edge, is produced; its rounding is NPP's own, so the harness
 * checks the interior within 1. */
#include <npp.h>
#include <stdint.h>

#include "cubench.h"

void npp_box3(const uint8_t *in, uint8_t *out, int w, int h)
{
	static NppStreamContext ctx;
	static int ready;
	if (!ready) {
		cudaDeviceProp p;
		int dev = 0;
		CK(cudaGetDevice(&dev));
		CK(cudaGetDeviceProperties(&p, dev));
		ctx.hStream = 0;
		ctx.nCudaDeviceId = dev;
		ctx.nMultiProcessorCount = p.multiProcessorCount;
		ctx.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
		ctx.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
		ctx.nSharedMemPerBlock = p.sharedMemPerBlock;
		ctx.nCudaDevAttrComputeCapabilityMajor = p.major;
		ctx.nCudaDevAttrComputeCapabilityMinor = p.minor;
		ctx.nStreamFlags = 0;
		ready = 1;
	}
	int step = w * 3;
	size_t off = (size_t)step + 3;
	NppiSize roi = { w - 2, h - 2 }, mask = { 3, 3 };
	NppiPoint anchor = { 1, 1 };
	if (nppiFilterBox_8u_C3R_Ctx(in + off, step, out + off, step, roi, mask,
				     anchor, ctx) != NPP_SUCCESS)
		bench_die("nppiFilterBox_8u_C3R_Ctx failed");
}

#ifdef NPP_PROBE
void bench_die(const char *fmt, ...) {}
void cuda_check(cudaError_t e, const char *file, int line, const char *what) {}
int main(void) { return 0; }
#endif
