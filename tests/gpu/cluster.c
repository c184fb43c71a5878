/* cluster.c — thread groups of 33..256 CM threads (on CUDA: thread-block
 * clusters, rt/cuda_abi.h "Clusters"), on the device named by argv[1]
 * ("cpu" always; "cuda" on a GPU): 3D local ids, group ids, SLM written by
 * every thread and read by another after cm_barrier, and SLM atomics from
 * every thread.  Each shape checks every CM thread's record against what
 * the CM semantics say (8 lanes each add lid + 1 to one SLM word).
 * Prints "ok NAME" / "FAIL NAME" lines.
 * Usage: cluster DEVICE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmetal.h"

static const char *src =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void big(SurfaceIndex o [[type(\"buffer_t\")]])\n"
	"{\n"
	"\tcm_slm_init(16384);\n"
	"\tuint buf = cm_slm_alloc(16384);\n"
	"\tuint lid = cm_linear_local_id();\n"
	"\tuint n = cm_local_size(0) * cm_local_size(1) * cm_local_size(2);\n"
	"\tvector<uint, 8> off, x;\n"
	"\tfor (int i = 0; i < 8; i++) {\n"
	"\t\toff(i) = lid * 8 + i;\n"
	"\t\tx(i) = lid * 100 + i;\n"
	"\t}\n"
	"\tcm_slm_write(buf, off, x);\n"
	"\tif (lid == 0) {\n"
	"\t\tvector<uint, 8> z = 0;\n"
	"\t\tcm_slm_block_write(buf, 8192, z);\n"
	"\t}\n"
	"\tcm_barrier();\n"
	"\tvector<uint, 8> noff = off + ((lid + 1) % n) * 8 - lid * 8;\n"
	"\tvector<uint, 8> y;\n"
	"\tcm_slm_read(buf, noff, y);\n"
	"\tvector<ushort, 8> aoff = 2048;\n"
	"\tvector<uint, 8> add = lid + 1, ret;\n"
	"\tcm_slm_atomic(buf, ATOMIC_ADD, aoff, ret, add);\n"
	"\tcm_barrier();\n"
	"\tvector<uint, 8> c;\n"
	"\tcm_slm_block_read(buf, 8192, c);\n"
	"\tvector<uint, 8> r;\n"
	"\tr(0) = y(7);\n"
	"\tr(1) = cm_local_id(0);\n"
	"\tr(2) = cm_local_id(1);\n"
	"\tr(3) = cm_local_id(2);\n"
	"\tr(4) = cm_group_id(0);\n"
	"\tr(5) = cm_linear_group_id();\n"
	"\tr(6) = c(0);\n"
	"\tr(7) = n;\n"
	"\twrite(o, cm_linear_global_id() * 32, r);\n"
	"}\n";

static int failures;

static void check(const char *name, int ok, const char *why)
{
	printf("%s gpu/cluster_%s%s%s\n", ok ? "ok" : "FAIL", name, ok || !why ? "" : ": ",
	       ok || !why ? "" : why);
	failures += !ok;
}

/* One launch of `groups` groups of lx x ly x lz threads, checked. */
static void shape(cmetal_kernel *k, cmetal_device *dev, uint32_t groups, uint32_t lx,
                  uint32_t ly, uint32_t lz)
{
	char name[64], why[256] = "";
	snprintf(name, sizeof name, "%ux%ux%u_x%u", lx, ly, lz, groups);
	uint32_t n = lx * ly * lz, total = groups * n;
	uint32_t *out = calloc(total, 32);
	cmetal_buffer *b = NULL;
	cm_status s = cmetal_buffer_create(dev, (size_t)total * 32, &b);
	if (!s)
		s = cmetal_kernel_set_arg_buffer(k, 0, b);
	if (!s)
		s = cmetal_launch_groups(k, (uint32_t[3]){groups, 1, 1}, (uint32_t[3]){lx, ly, lz},
		                         NULL);
	if (!s)
		s = cmetal_buffer_read(b, 0, (size_t)total * 32, out);
	if (s) {
		check(name, 0, cmetal_last_error());
	} else {
		for (uint32_t g = 0; g < groups && !why[0]; g++)
			for (uint32_t t = 0; t < n && !why[0]; t++) {
				/* cm_linear_global_id: global x fastest */
				uint32_t gx = g * lx + t % lx, W = groups * lx;
				const uint32_t *r = &out[(gx + t / lx % ly * W + t / (lx * ly) * W * ly) * 8];
				uint32_t want[8] = {((t + 1) % n) * 100 + 7, t % lx, t / lx % ly, t / (lx * ly),
				                    g, g, 8 * (n * (n + 1) / 2), n};
				for (int i = 0; i < 8; i++)
					if (r[i] != want[i]) {
						snprintf(why, sizeof why, "group %u thread %u field %d: %u, "
						         "expected %u", g, t, i, r[i], want[i]);
						break;
					}
			}
		check(name, !why[0], why);
	}
	if (b)
		cmetal_buffer_release(b);
	free(out);
}

int main(int argc, char **argv)
{
	cmetal_device *dev;
	cmetal_program *p;
	cmetal_kernel *k;
	if (argc < 2) {
		fprintf(stderr, "usage: cluster DEVICE\n");
		return 2;
	}
	if (cmetal_device_open(argv[1], &dev)) {
		check("open", 0, cmetal_last_error());
		return 1;
	}
	if (cmetal_program_build(dev, src, "", &p) || cmetal_kernel_create(p, "big", &k)) {
		check("build", 0, cmetal_last_error());
		return 1;
	}
	shape(k, dev, 3, 32, 1, 1);    /* an ordinary CTA */
	shape(k, dev, 3, 33, 1, 1);    /* two CTAs of 17 warps, one padding */
	shape(k, dev, 2, 8, 4, 2);     /* 64 in 3D */
	shape(k, dev, 2, 128, 1, 1);
	shape(k, dev, 5, 40, 3, 1);    /* 120: 4 CTAs of 30 */
	shape(k, dev, 2, 16, 4, 4);    /* 256: 8 CTAs of 32 */
	shape(k, dev, 3, 4, 2, 1);     /* small again: the ordinary module */
	cmetal_kernel_release(k);
	cmetal_program_release(p);
	cmetal_device_close(dev);
	return failures != 0;
}
