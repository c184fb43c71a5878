/* reduce.c — sums 64 groups x 16 threads x 64 values with reduce.cm (SLM
 * and a barrier per group) and checks each group's total.
 *   ./reduce [cpu|cuda|auto] [examples-dir] */
#include "example.h"

enum { GROUP = 16, GROUPS = 64, PER = 64, N = GROUPS * GROUP * PER };

int main(int argc, char **argv)
{
	cmetal_device *dev;
	cmetal_program *p = ex_build(argc, argv, "reduce.cm", "", &dev);
	cmetal_kernel *k;
	TRY(cmetal_kernel_create(p, "reduce", &k));
	static uint32_t in[N], out[GROUPS * 4];
	for (int i = 0; i < N; i++)
		in[i] = (uint32_t)(i * 2654435761u) >> 12;
	cmetal_buffer *bi, *bo;
	TRY(cmetal_buffer_create(dev, sizeof in, &bi));
	TRY(cmetal_buffer_create(dev, sizeof out, &bo));
	TRY(cmetal_buffer_write(bi, 0, sizeof in, in));
	TRY(cmetal_kernel_set_arg_buffer(k, 0, bi));
	TRY(cmetal_kernel_set_arg_buffer(k, 1, bo));
	cmetal_event *ev;
	TRY(cmetal_launch_groups(k, (uint32_t[3]){GROUPS, 1, 1}, (uint32_t[3]){GROUP, 1, 1}, &ev));
	TRY(cmetal_event_wait(ev));
	TRY(cmetal_buffer_read(bo, 0, sizeof out, out));
	int bad = 0;
	for (int g = 0; g < GROUPS; g++) {
		uint32_t s = 0;
		for (int i = 0; i < GROUP * PER; i++)
			s += in[g * GROUP * PER + i];
		bad += out[g * 4] != s;
	}
	printf("reduce on %s: %d values in %d groups of %d threads, %s\n", ex_device(dev), N,
	       GROUPS, GROUP, bad ? "WRONG" : "matches C");
	cmetal_event_release(ev);
	cmetal_buffer_release(bi);
	cmetal_buffer_release(bo);
	cmetal_kernel_release(k);
	cmetal_program_release(p);
	cmetal_device_close(dev);
	return bad != 0;
}
