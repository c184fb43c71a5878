/* test_stack.c — CPU device stacks sized from the kernel's frame.  A
 * kernel of 600 live-in-turn 2 KB matrices built with -g (cc -O0, every
 * value its own slot: a 2.4 MB frame by gcc -fstack-usage, 3.1 MB as the C
 * back end estimates it) runs as groups of 4 fibers (it has a barrier),
 * whose stacks were a fixed 1 MB: it ran into the guard page.  Then the
 * same kernel without barrier threads (one thread a group: fibers only
 * because of its frame), and the same launch on a device whose limit
 * ($CMETAL_CPU_STACK_MAX_MB=4) is below the 6.3 MB it gets: refused with
 * CM_OUT_OF_RANGE and a message, not a crash.  CPU device only.
 * Usage: test_stack */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { STEPS = 600, G = 3, T = 4 };

/* The kernel's source: m_i = m_{i-1} * 0.5 + i, STEPS times, from the
 * thread's local id + 1, then (with barrier) a barrier, then 8 elements
 * out per thread. */
static char *source(int barrier)
{
	size_t cap = 64 * STEPS + 1024, n = 0;
	char *s = malloc(cap);
	n += (size_t)snprintf(s + n, cap - n,
	                      "#include <cm/cm.h>\n"
	                      "extern \"C\" _GENX_MAIN_ void big(SurfaceIndex o [[type(\"buffer_t\")]])\n"
	                      "{\n\tmatrix<float, 16, 32> m0 = cm_local_id(0) + 1.0f;\n");
	for (int i = 1; i <= STEPS; i++)
		n += (size_t)snprintf(s + n, cap - n,
		                      "\tmatrix<float, 16, 32> m%d = m%d * 0.5f + %d.0f;\n", i, i - 1, i);
	snprintf(s + n, cap - n,
	         "%s\tvector<float, 8> r = m%d.row(3).select<8, 1>(0);\n"
	         "\twrite(o, (cm_group_id(0) * cm_local_size(0) + cm_local_id(0)) * 32, r);\n}\n",
	         barrier ? "\tcm_barrier();\n" : "", STEPS);
	return s;
}

/* Launches big as G groups of t threads on dev; "" when every thread wrote
 * the model's value, else why not. */
static const char *run(cmetal_device *dev, cmetal_kernel *k, uint32_t t, cm_status *st)
{
	static char why[256];
	float out[G * T * 8];
	cmetal_buffer *b;
	*st = cmetal_buffer_create(dev, sizeof out, &b);
	if (*st)
		return cmetal_last_error();
	*st = cmetal_kernel_set_arg_buffer(k, 0, b);
	if (!*st)
		*st = cmetal_launch_groups(k, (uint32_t[3]){G, 1, 1}, (uint32_t[3]){t, 1, 1}, NULL);
	if (!*st)
		*st = cmetal_buffer_read(b, 0, sizeof out, out);
	cmetal_buffer_release(b);
	if (*st)
		return cmetal_last_error();
	for (uint32_t i = 0; i < G * t; i++) {
		float x = (float)(i % t) + 1.0f;
		for (int s = 1; s <= STEPS; s++)
			x = x * 0.5f + (float)s;
		for (int e = 0; e < 8; e++)
			if (out[i * 8 + e] != x) {
				snprintf(why, sizeof why, "thread %u element %d: %.9g, expected %.9g", i, e,
				         out[i * 8 + e], x);
				return why;
			}
	}
	return "";
}

/* Builds the kernel (with or without its barrier) on dev with -g. */
static cmetal_kernel *build(cmetal_device *dev, int barrier, cmetal_program **p)
{
	char *src = source(barrier);
	cmetal_kernel *k = NULL;
	if (cmetal_program_build(dev, src, "-g", p) || cmetal_kernel_create(*p, "big", &k))
		printf("FAIL rt/stack_build\n    %s\n", cmetal_last_error());
	free(src);
	return k;
}

int main(void)
{
	cmetal_device *dev, *small;
	cmetal_program *p, *q;
	cm_status st;
	const char *why;
	MUST(cmetal_device_open("cpu", &dev));
	cmetal_kernel *k = build(dev, 1, &p), *k1 = build(dev, 0, &q);
	if (!k || !k1)
		return 1;
	why = run(dev, k, T, &st);
	check("stack_big_frame_fibers", !*why, why);
	why = run(dev, k1, 1, &st);
	check("stack_big_frame_no_barrier", !*why, why);
	cmetal_kernel_release(k);
	cmetal_kernel_release(k1);
	cmetal_program_release(p);
	cmetal_program_release(q);

	setenv("CMETAL_CPU_STACK_MAX_MB", "4", 1);
	MUST(cmetal_device_open("cpu", &small));
	unsetenv("CMETAL_CPU_STACK_MAX_MB");
	if (!(k = build(small, 1, &p)))
		return 1;
	run(small, k, T, &st);
	check_err("stack_over_limit", st, CM_OUT_OF_RANGE, "'big'", "MB of stack", "limit of 4 MB",
	          NULL);
	cmetal_kernel_release(k);
	cmetal_program_release(p);
	cmetal_device_close(small);
	cmetal_device_close(dev);
	return check_failures != 0;
}
