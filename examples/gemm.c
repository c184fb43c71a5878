/* gemm.c — a 128x128 single-precision matrix product with gemm.cm, checked
 * bit for bit against the same loop in C.
 *   ./gemm [cpu|cuda|auto] [examples-dir] */
#include "example.h"

enum { N = 128 };

int main(int argc, char **argv)
{
	cmetal_device *dev;
	cmetal_program *p = ex_build(argc, argv, "gemm.cm", "-DN=128", &dev);
	cmetal_kernel *k;
	TRY(cmetal_kernel_create(p, "gemm", &k));
	static float a[N * N], b[N * N], c[N * N], want[N * N];
	for (int i = 0; i < N * N; i++) {
		a[i] = (float)((i * 37) % 101) / 64.0f - 0.75f;
		b[i] = (float)((i * 53) % 97) / 32.0f - 1.5f;
	}
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			float s = 0;
			for (int q = 0; q < N; q++)
				s += a[i * N + q] * b[q * N + j];
			want[i * N + j] = s;
		}
	cmetal_buffer *ba, *bb, *bc;
	TRY(cmetal_buffer_create(dev, sizeof a, &ba));
	TRY(cmetal_buffer_create(dev, sizeof b, &bb));
	TRY(cmetal_buffer_create(dev, sizeof c, &bc));
	TRY(cmetal_buffer_write(ba, 0, sizeof a, a));
	TRY(cmetal_buffer_write(bb, 0, sizeof b, b));
	TRY(cmetal_kernel_set_arg_buffer(k, 0, ba));
	TRY(cmetal_kernel_set_arg_buffer(k, 1, bb));
	TRY(cmetal_kernel_set_arg_buffer(k, 2, bc));
	cmetal_event *ev;
	TRY(cmetal_launch_walker(k, N / 16, N, CMETAL_DEP_NONE, &ev));
	TRY(cmetal_event_wait(ev));
	TRY(cmetal_buffer_read(bc, 0, sizeof c, c));
	int bad = memcmp(c, want, sizeof c) != 0;
	printf("gemm on %s: %dx%d floats, %s\n", ex_device(dev), N, N,
	       bad ? "WRONG" : "matches C bit for bit");
	cmetal_event_release(ev);
	cmetal_buffer_release(ba);
	cmetal_buffer_release(bb);
	cmetal_buffer_release(bc);
	cmetal_kernel_release(k);
	cmetal_program_release(p);
	cmetal_device_close(dev);
	return bad;
}
