/* test_query.c — the queries and wrappers that bindings (python/) build on:
 * cmetal_device_info, cmetal_kernel_arg_type, cmetal_buffer_wrap,
 * cmetal_buffer_address and cmetal_surface2d_wrap, and group launches
 * that leave the group size to the runtime, on the CPU device.
 * Usage: test_query */
#include <stdlib.h>

#include "check.h"

static const char sig_src[] =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void sig(SurfaceIndex buf [[type(\"buffer_t\")]],\n"
	"    SurfaceIndex img [[type(\"image2d_t\")]], SurfaceIndex any, int n, float f,\n"
	"    vector<short, 4> v, svmptr_t p, double d, uchar c, matrix<uint, 2, 3> m)\n"
	"{\n"
	"}\n"
	"extern \"C\" _GENX_MAIN_ void fill(SurfaceIndex b [[type(\"buffer_t\")]], int v)\n"
	"{\n"
	"	vector<int, 8> x = v;\n"
	"	write(b, 0, x);\n"
	"}\n"
	"extern \"C\" _GENX_MAIN_ void twice(SurfaceIndex img [[type(\"image2d_t\")]])\n"
	"{\n"
	"	matrix<float, 4, 4> m;\n"
	"	read(img, 0, 0, m);\n"
	"	m = m * 2.0f;\n"
	"	write(img, 0, 0, m);\n"
	"}\n"
	"extern \"C\" _GENX_MAIN_ void ids(SurfaceIndex b [[type(\"buffer_t\")]], int w)\n"
	"{\n"
	"	int x = cm_group_id(0) * cm_local_size(0) + cm_local_id(0);\n"
	"	int y = cm_group_id(1) * cm_local_size(1) + cm_local_id(1);\n"
	"	vector<int, 8> v = 0;\n"
	"	v(0) = y * w + x + 1;\n"
	"	v(1) = cm_local_size(0);\n"
	"	if (x < w)\n"
	"		write(b, (y * w + x) * 32, v);\n"
	"}\n"
	"extern \"C\" _GENX_MAIN_ void shared(SurfaceIndex b [[type(\"buffer_t\")]])\n"
	"{\n"
	"	cm_slm_init(64);\n"
	"}\n";

static int device_info(cmetal_device *dev)
{
	uint64_t v[CMETAL_DEVICE_HOST_SVM + 1] = {0};
	for (int a = CMETAL_DEVICE_KIND; a <= CMETAL_DEVICE_HOST_SVM; a++)
		MUST(cmetal_device_info(dev, (cmetal_device_attr)a, &v[a]));
	const char *name;
	MUST(cmetal_device_name(dev, &name));
	char want[64];
	snprintf(want, sizeof want, "cpu (%llu thread",
	         (unsigned long long)v[CMETAL_DEVICE_COMPUTE_UNITS]);
	check("query_device_info_cpu",
	      v[CMETAL_DEVICE_KIND] == 0 && v[CMETAL_DEVICE_ORDINAL] == 0 &&
	      v[CMETAL_DEVICE_COMPUTE_UNITS] >= 1 && strncmp(name, want, strlen(want)) == 0 &&
	      v[CMETAL_DEVICE_MEMORY] >= (64u << 20) && v[CMETAL_DEVICE_CC_MAJOR] == 0 &&
	      v[CMETAL_DEVICE_MAX_GROUP_THREADS] == 1024 && v[CMETAL_DEVICE_MAX_SLM] == 232448 &&
	      v[CMETAL_DEVICE_THREADS] == v[CMETAL_DEVICE_COMPUTE_UNITS] &&
	      v[CMETAL_DEVICE_MAX_WALKER] == 65535 && v[CMETAL_DEVICE_HOST_SVM] == 1,
	      name);
	/* cmetal_device_get_caps is a view of the same answers */
	cmetal_device_caps caps;
	MUST(cmetal_device_get_caps(dev, &caps));
	check("query_device_caps_same", caps.threads == v[CMETAL_DEVICE_THREADS] &&
	      caps.max_group_threads == v[CMETAL_DEVICE_MAX_GROUP_THREADS] &&
	      caps.slm_size == v[CMETAL_DEVICE_MAX_SLM] &&
	      caps.max_walker == v[CMETAL_DEVICE_MAX_WALKER] &&
	      caps.host_svm == v[CMETAL_DEVICE_HOST_SVM] && caps.is_gpu == 0, NULL);
	uint64_t x;
	check_err("query_device_info_unknown", cmetal_device_info(dev, (cmetal_device_attr)99, &x),
	          CM_INVALID_VALUE, "unknown device attribute 99", NULL);
	check_err("query_device_info_null", cmetal_device_info(dev, CMETAL_DEVICE_KIND, NULL),
	          CM_INVALID_VALUE, "output pointer is NULL", NULL);
	check_err("query_device_info_no_device", cmetal_device_info(NULL, CMETAL_DEVICE_KIND, &x),
	          CM_INVALID_HANDLE, "device handle is NULL", NULL);
	return 0;
}

static int arg_types(cmetal_program *prog)
{
	static const struct { cmetal_arg_kind kind; uint32_t size; cmetal_elem_type elem;
	                      const char *attr; } want[] = {
		{CMETAL_ARG_SURFACE, 4, CMETAL_ELEM_NONE, "buffer_t"},
		{CMETAL_ARG_SURFACE, 4, CMETAL_ELEM_NONE, "image2d_t"},
		{CMETAL_ARG_SURFACE, 4, CMETAL_ELEM_NONE, ""},
		{CMETAL_ARG_SCALAR, 4, CMETAL_ELEM_I32, ""},
		{CMETAL_ARG_SCALAR, 4, CMETAL_ELEM_F32, ""},
		{CMETAL_ARG_VECTOR, 8, CMETAL_ELEM_I16, ""},
		{CMETAL_ARG_SCALAR, 8, CMETAL_ELEM_U64, ""},   /* svmptr_t is a uint64 */
		{CMETAL_ARG_SCALAR, 8, CMETAL_ELEM_F64, ""},
		{CMETAL_ARG_SCALAR, 1, CMETAL_ELEM_U8, ""},
		{CMETAL_ARG_VECTOR, 24, CMETAL_ELEM_U32, ""},
	};
	cmetal_kernel *k;
	MUST(cmetal_kernel_create(prog, "sig", &k));
	uint32_t n = 0;
	MUST(cmetal_kernel_arg_count(k, &n));
	int ok = n == sizeof want / sizeof want[0];
	char why[256] = "";
	for (uint32_t i = 0; ok && i < n; i++) {
		const char *name, *attr;
		cmetal_arg_kind kind;
		uint32_t size;
		cmetal_elem_type elem;
		MUST(cmetal_kernel_arg_info(k, i, &name, &kind, &size));
		MUST(cmetal_kernel_arg_type(k, i, &elem, &attr));
		ok = kind == want[i].kind && size == want[i].size && elem == want[i].elem &&
		     strcmp(attr, want[i].attr) == 0;
		snprintf(why, sizeof why, "argument %u '%s': kind %d size %u elem %d attr '%s'",
		         i, name, kind, size, elem, attr);
	}
	check("query_arg_type", ok, why);
	MUST(cmetal_kernel_arg_type(k, 0, NULL, NULL));
	check_err("query_arg_type_index", cmetal_kernel_arg_type(k, n, NULL, NULL),
	          CM_INVALID_ARG_INDEX, "has 10 arguments; index 10 is out of range", NULL);
	MUST(cmetal_kernel_release(k));
	return 0;
}

/* cmetal_kernel_occupancy on the CPU device: its documented answer, and
 * group sizes outside 1 .. the device's maximum refused. */
static int occupancy(cmetal_program *prog)
{
	cmetal_kernel *k;
	MUST(cmetal_kernel_create(prog, "sig", &k));
	cmetal_occupancy oc;
	MUST(cmetal_kernel_occupancy(k, 16, &oc));
	check("query_occupancy_cpu", oc.ctas_per_sm == 1 && oc.warps_per_sm == 16 &&
	      oc.max_warps_per_sm == 16 && oc.percent == 100 && !strcmp(oc.limiter, "cpu") &&
	      oc.registers == -1 && oc.register_cap == 0 && oc.auto_group == 1, NULL);
	check_err("query_occupancy_zero", cmetal_kernel_occupancy(k, 0, &oc), CM_INVALID_VALUE,
	          "a group of 0 CM threads", NULL);
	check_err("query_occupancy_huge", cmetal_kernel_occupancy(k, 5000, &oc), CM_INVALID_VALUE,
	          "takes 1 to 1024", NULL);
	check_err("query_occupancy_null", cmetal_kernel_occupancy(k, 1, NULL), CM_INVALID_VALUE,
	          "NULL", NULL);
	MUST(cmetal_kernel_release(k));
	return 0;
}

/* A wrapped host array is the buffer itself: the kernel writes it. */
static int buffer_wrap(cmetal_device *dev, cmetal_program *prog)
{
	int *host = calloc(8, sizeof *host);
	cmetal_kernel *k;
	cmetal_buffer *b, *own;
	MUST(cmetal_kernel_create(prog, "fill", &k));
	MUST(cmetal_buffer_wrap(dev, (uint64_t)(uintptr_t)host, 8 * sizeof *host, &b));
	int v = 7;
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	MUST(cmetal_kernel_set_arg(k, 1, sizeof v, &v));
	MUST(cmetal_launch_walker(k, 1, 1, CMETAL_DEP_NONE, NULL));
	uint64_t addr = 0;
	MUST(cmetal_buffer_address(b, &addr));
	check("query_buffer_wrap", host[0] == 7 && host[7] == 7 && addr == (uintptr_t)host,
	      "the kernel did not write the wrapped memory");
	MUST(cmetal_buffer_release(b));   /* leaves host alone */
	host[0] = 1;
	MUST(cmetal_buffer_create(dev, 64, &own));
	void *p;
	MUST(cmetal_buffer_map(own, &p));
	MUST(cmetal_buffer_address(own, &addr));
	check("query_buffer_address", addr && addr == (uintptr_t)p, "address != mapped pointer");
	MUST(cmetal_buffer_unmap(own));
	MUST(cmetal_buffer_release(own));
	free(host);
	cmetal_buffer *bad;
	check_err("query_buffer_wrap_null", cmetal_buffer_wrap(dev, 0, 16, &bad),
	          CM_INVALID_VALUE, "the address is 0", NULL);
	check_err("query_buffer_wrap_empty", cmetal_buffer_wrap(dev, 64, 0, &bad),
	          CM_INVALID_VALUE, "cannot create a buffer of 0 bytes", NULL);
	check_err("query_buffer_address_null", cmetal_buffer_address(NULL, &addr),
	          CM_INVALID_HANDLE, "buffer handle is NULL", NULL);
	MUST(cmetal_kernel_release(k));
	return 0;
}

/* A 5x3 R32F surface over host rows 8 floats apart: the kernel doubles the
 * 4x4 block at the origin; column 4 and the padding stay as they were. */
static int surface_wrap(cmetal_device *dev, cmetal_program *prog)
{
	enum { W = 5, H = 3, PITCH = 8 };
	float *host = malloc(((H - 1) * PITCH + W) * sizeof *host);  /* last row unpadded */
	for (int i = 0; i < (H - 1) * PITCH + W; i++)
		host[i] = (float)i;
	cmetal_kernel *k;
	cmetal_surface2d *s;
	MUST(cmetal_kernel_create(prog, "twice", &k));
	MUST(cmetal_surface2d_wrap(dev, (uint64_t)(uintptr_t)host, W, H, PITCH * sizeof(float),
	                           CMETAL_FMT_R32F, &s));
	uint32_t w, h, pitch, bpp;
	MUST(cmetal_surface2d_info(s, &w, &h, &pitch, &bpp));
	MUST(cmetal_kernel_set_arg_surface2d(k, 0, s));
	MUST(cmetal_launch_walker(k, 1, 1, CMETAL_DEP_NONE, NULL));
	int ok = w == W && h == H && pitch == PITCH * 4 && bpp == 4;
	for (int y = 0; y < H; y++)
		for (int x = 0; x < (y < H - 1 ? PITCH : W); x++) {
			float v = (float)(y * PITCH + x);
			ok &= host[y * PITCH + x] == (x < 4 ? 2 * v : v);
		}
	check("query_surface2d_wrap", ok, "wrong pixels after the kernel");
	MUST(cmetal_surface2d_release(s));
	cmetal_surface2d *bad;
	check_err("query_surface2d_wrap_pitch",
	          cmetal_surface2d_wrap(dev, (uint64_t)(uintptr_t)host, W, H, 16, CMETAL_FMT_R32F,
	                                &bad),
	          CM_INVALID_VALUE, "pitch 16 is less than a row of the 5x3 surface", NULL);
	check_err("query_surface2d_wrap_format",
	          cmetal_surface2d_wrap(dev, (uint64_t)(uintptr_t)host, W, H, 32, (cmetal_format)77,
	                                &bad),
	          CM_INVALID_FORMAT, "bad surface format 77", NULL);
	check_err("query_surface2d_wrap_null",
	          cmetal_surface2d_wrap(dev, 0, W, H, 32, CMETAL_FMT_R32F, &bad),
	          CM_INVALID_VALUE, "the address is 0", NULL);
	MUST(cmetal_kernel_release(k));
	free(host);
	return 0;
}

/* Threads {0, 0, 0}: groups[] counts CM threads and the runtime groups
 * them (rows of auto_group along x, x rounded up: the kernel checks w);
 * refused for a kernel with SLM and for an empty dimension. */
static int auto_groups(cmetal_device *dev, cmetal_program *prog)
{
	enum { W = 37, H = 3 };
	cmetal_kernel *k, *slm;
	cmetal_buffer *b;
	int w = W, *out;
	uint32_t space[3] = {W, H, 1}, zero[3] = {0, 0, 0};
	MUST(cmetal_kernel_create(prog, "ids", &k));
	MUST(cmetal_buffer_create(dev, W * H * 32, &b));
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	MUST(cmetal_kernel_set_arg(k, 1, sizeof w, &w));
	MUST(cmetal_launch_groups(k, space, zero, NULL));
	cmetal_occupancy oc;
	MUST(cmetal_kernel_occupancy(k, 1, &oc));
	MUST(cmetal_buffer_map(b, (void **)&out));
	int ok = 1;
	for (int i = 0; i < W * H; i++)
		ok &= out[8 * i] == i + 1 && out[8 * i + 1] == (int)oc.auto_group;
	check("query_auto_groups", ok, "a CM thread of the 37x3 space wrote a wrong id");
	MUST(cmetal_buffer_unmap(b));
	MUST(cmetal_kernel_create(prog, "shared", &slm));
	MUST(cmetal_kernel_set_arg_buffer(slm, 0, b));
	check_err("query_auto_groups_slm", cmetal_launch_groups(slm, space, zero, NULL),
	          CM_INVALID_THREAD_SPACE, "kernel 'shared' uses SLM: a launch of it must give "
	          "its group size", NULL);
	space[1] = 0;
	check_err("query_auto_groups_empty", cmetal_launch_groups(k, space, zero, NULL),
	          CM_INVALID_THREAD_SPACE, "has a zero size in dimension 1", NULL);
	MUST(cmetal_kernel_release(slm));
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_buffer_release(b));
	return 0;
}

int main(void)
{
	cmetal_device *dev;
	cmetal_program *prog;
	MUST(cmetal_device_open("cpu", &dev));
	MUST(cmetal_program_build(dev, sig_src, "", &prog));
	device_info(dev);
	arg_types(prog);
	occupancy(prog);
	buffer_wrap(dev, prog);
	surface_wrap(dev, prog);
	auto_groups(dev, prog);
	MUST(cmetal_program_release(prog));
	MUST(cmetal_device_close(dev));
	return check_failures != 0;
}
