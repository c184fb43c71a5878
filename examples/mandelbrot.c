/* mandelbrot.c — a 256x192 Mandelbrot image with mandelbrot.cm; every
 * escape count must equal plain C's (both round each operation).
 *   ./mandelbrot [cpu|cuda|auto] [examples-dir] */
#include "example.h"

enum { W = 256, H = 192, MAXIT = 200 };

int main(int argc, char **argv)
{
	cmetal_device *dev;
	cmetal_program *p = ex_build(argc, argv, "mandelbrot.cm", "-DWIDTH=256 -DMAXIT=200", &dev);
	cmetal_kernel *k;
	TRY(cmetal_kernel_create(p, "mandelbrot", &k));
	static uint32_t out[W * H];
	float x0 = -2.25f, y0 = -1.125f, step = 3.0f / W;
	cmetal_buffer *bo;
	TRY(cmetal_buffer_create(dev, sizeof out, &bo));
	TRY(cmetal_kernel_set_arg_buffer(k, 0, bo));
	TRY(cmetal_kernel_set_arg(k, 1, sizeof x0, &x0));
	TRY(cmetal_kernel_set_arg(k, 2, sizeof y0, &y0));
	TRY(cmetal_kernel_set_arg(k, 3, sizeof step, &step));
	cmetal_event *ev;
	TRY(cmetal_launch_walker(k, W / 16, H, CMETAL_DEP_NONE, &ev));
	TRY(cmetal_event_wait(ev));
	TRY(cmetal_buffer_read(bo, 0, sizeof out, out));
	int bad = 0;
	long total = 0;
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			float cr = x0 + (float)x * step, ci = y0 + (float)y * step;
			float zr = 0, zi = 0;
			uint32_t n = 0;
			do {
				float t = zr * zr - zi * zi + cr;
				zi = 2.0f * zr * zi + ci;
				zr = t;
				n++;
			} while (zr * zr + zi * zi < 4.0f && n < MAXIT);
			bad += out[y * W + x] != n;
			total += n;
		}
	printf("mandelbrot on %s: %dx%d pixels, %ld iterations, %s\n", ex_device(dev), W, H,
	       total, bad ? "WRONG" : "matches C bit for bit");
	if (bad)
		printf("  %d pixels differ\n", bad);
	cmetal_event_release(ev);
	cmetal_buffer_release(bo);
	cmetal_kernel_release(k);
	cmetal_program_release(p);
	cmetal_device_close(dev);
	return bad != 0;
}
