/* linear.c — runs linear.cm over a 240x120-byte image (80x120 RGB pixels),
 * one thread per 6x24-byte output block, hpos/vpos given per thread, and
 * compares every byte with the C reference (reads past the right or
 * bottom edge give the edge byte, as CM's 2D reads do).
 *   ./linear [cpu|cuda|auto] [examples-dir] */
#include "example.h"

enum { W = 240, H = 120, TW = W / 24, TH = H / 6, NT = TW * TH };

static int at(const unsigned char *img, int x, int y)
{
	x = x < W ? x : W - 1;
	y = y < H ? y : H - 1;
	return img[y * W + x];
}

int main(int argc, char **argv)
{
	cmetal_device *dev;
	cmetal_program *p = ex_build(argc, argv, "linear.cm", "", &dev);
	cmetal_kernel *k;
	TRY(cmetal_kernel_create(p, "linear", &k));
	static unsigned char img[W * H], out[W * H], want[W * H];
	for (int i = 0; i < W * H; i++)
		img[i] = (unsigned char)((i * 7919u) >> 3);
	cmetal_surface2d *si, *so;
	TRY(cmetal_surface2d_create(dev, W, H, CMETAL_FMT_A8, &si));
	TRY(cmetal_surface2d_create(dev, W, H, CMETAL_FMT_A8, &so));
	TRY(cmetal_surface2d_write(si, img, 0));
	uint32_t hpos[NT], vpos[NT];
	for (int t = 0; t < NT; t++)
		hpos[t] = (uint32_t)(t % TW), vpos[t] = (uint32_t)(t / TW);
	TRY(cmetal_kernel_set_arg_surface2d(k, 0, si));
	TRY(cmetal_kernel_set_arg_surface2d(k, 1, so));
	TRY(cmetal_kernel_set_arg_per_thread(k, 2, NT, sizeof hpos[0], hpos));
	TRY(cmetal_kernel_set_arg_per_thread(k, 3, NT, sizeof vpos[0], vpos));
	cmetal_event *ev;
	TRY(cmetal_launch_walker(k, TW, TH, CMETAL_DEP_NONE, &ev));
	TRY(cmetal_event_wait(ev));
	TRY(cmetal_surface2d_read(so, out, 0));
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			float m = (float)at(img, x + 3, y + 1);
			for (int dy = 0; dy < 3; dy++)
				for (int dx = 0; dx < 9; dx += 3)
					if (dy != 1 || dx != 3)
						m += (float)at(img, x + dx, y + dy);
			want[y * W + x] = (unsigned char)(m * 0.1111f);
		}
	int bad = 0;
	for (int i = 0; i < W * H; i++)
		bad += out[i] != want[i];
	printf("linear on %s: %dx%d bytes, %d threads, %s\n", ex_device(dev), W, H, NT,
	       bad ? "WRONG" : "matches C");
	cmetal_event_release(ev);
	cmetal_surface2d_release(si);
	cmetal_surface2d_release(so);
	cmetal_kernel_release(k);
	cmetal_program_release(p);
	cmetal_device_close(dev);
	return bad != 0;
}
