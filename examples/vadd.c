/* vadd.c — the cmetal runtime demo: builds a CM kernel from source at run
 * time, runs it over a thread-group space, checks the result and prints
 * the time.  Runs on the GPU when one works, else on the CPU.
 *   cc -Iinclude examples/vadd.c build/libcmetal.a -lpthread -ldl -lm -o vadd
 *   ./vadd [cpu|cuda|auto] */
#include <stdio.h>
#include <stdlib.h>

#include "cmetal.h"

static const char *source =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void vadd(SurfaceIndex a [[type(\"buffer_t\")]],\n"
	"                                  SurfaceIndex b [[type(\"buffer_t\")]],\n"
	"                                  SurfaceIndex c [[type(\"buffer_t\")]])\n"
	"{\n"
	"    unsigned off = cm_linear_global_id() * N * sizeof(float);\n"
	"    vector<float, N> x, y;\n"
	"    read(a, off, x);\n"
	"    read(b, off, y);\n"
	"    write(c, off, x + y);\n"
	"}\n";

#define TRY(call)                                                              \
	do {                                                                   \
		cm_status s_ = (call);                                         \
		if (s_ != CM_SUCCESS) {                                        \
			fprintf(stderr, "%s failed (%s):\n%s\n", #call,        \
			        cmetal_status_name(s_), cmetal_last_error());  \
			return 1;                                              \
		}                                                              \
	} while (0)

int main(int argc, char **argv)
{
	enum { N = 32, THREADS = 4096, LEN = N * THREADS };
	cmetal_device *dev;
	TRY(cmetal_device_open(argc > 1 ? argv[1] : "auto", &dev));
	const char *name;
	TRY(cmetal_device_name(dev, &name));
	cmetal_program *prog;
	TRY(cmetal_program_build(dev, source, "-DN=32 -O2", &prog));
	cmetal_kernel *k;
	TRY(cmetal_kernel_create(prog, "vadd", &k));

	float *a = malloc(LEN * sizeof *a), *b = malloc(LEN * sizeof *b), *c = malloc(LEN * sizeof *c);
	for (int i = 0; i < LEN; i++) {
		a[i] = (float)i;
		b[i] = (float)(2 * i);
	}
	cmetal_buffer *ba, *bb, *bc;
	TRY(cmetal_buffer_create(dev, LEN * sizeof(float), &ba));
	TRY(cmetal_buffer_create(dev, LEN * sizeof(float), &bb));
	TRY(cmetal_buffer_create(dev, LEN * sizeof(float), &bc));
	TRY(cmetal_buffer_write(ba, 0, LEN * sizeof(float), a));
	TRY(cmetal_buffer_write(bb, 0, LEN * sizeof(float), b));
	TRY(cmetal_kernel_set_arg_buffer(k, 0, ba));
	TRY(cmetal_kernel_set_arg_buffer(k, 1, bb));
	TRY(cmetal_kernel_set_arg_buffer(k, 2, bc));

	cmetal_event *ev;
	TRY(cmetal_launch_groups(k, (uint32_t[3]){THREADS / 16, 1, 1}, (uint32_t[3]){16, 1, 1}, &ev));
	double ms;
	TRY(cmetal_event_elapsed_ms(ev, &ms));
	TRY(cmetal_buffer_read(bc, 0, LEN * sizeof(float), c));
	int bad = 0;
	for (int i = 0; i < LEN; i++)
		bad += c[i] != (float)(3 * i);
	printf("vadd on %s: %d elements, %.3f ms, %s\n", name, LEN, ms, bad ? "WRONG" : "correct");

	cmetal_event_release(ev);
	cmetal_buffer_release(ba);
	cmetal_buffer_release(bb);
	cmetal_buffer_release(bc);
	cmetal_kernel_release(k);
	cmetal_program_release(prog);
	cmetal_device_close(dev);
	free(a);
	free(b);
	free(c);
	return bad != 0;
}
