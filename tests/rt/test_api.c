/* test_api.c — every misuse of the API returns an error code and a message
 * that names the problem.  Usage: test_api KERNEL_DIR */
#include <stdbool.h>
#include <stdlib.h>

#include "check.h"

static char path[4096];

static const char *lib(const char *dir, const char *name)
{
	snprintf(path, sizeof path, "%s/%s.so", dir, name);
	return path;
}

/* CM semantics by default: a block write past the end of a buffer is
 * dropped and the run succeeds; -fbounds-check reports it. */
static const char oob_src[] =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void oob(SurfaceIndex b [[type(\"buffer_t\")]])\n"
	"{\n"
	"	vector<uint, 8> v = 5;\n"
	"	write(b, 48, v);\n"     /* bytes 48..79 of a 64-byte buffer */
	"}\n";

static int oob_run(cmetal_device *dev, const char *options, cm_status *st, uint32_t *out)
{
	cmetal_program *p = NULL;
	cmetal_kernel *k = NULL;
	cmetal_buffer *b = NULL;
	MUST(cmetal_program_build(dev, oob_src, options, &p));
	MUST(cmetal_kernel_create(p, "oob", &k));
	MUST(cmetal_buffer_create(dev, 64, &b));
	MUST(cmetal_buffer_write(b, 0, 64, out));
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	uint32_t one[3] = {1, 1, 1};
	*st = cmetal_launch_groups(k, one, one, NULL);
	MUST(cmetal_buffer_read(b, 0, 64, out));
	MUST(cmetal_buffer_release(b));
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_program_release(p));
	return 0;
}

static int oob_semantics(cmetal_device *dev)
{
	uint32_t out[16] = {0};
	cm_status st = CM_SUCCESS;
	if (oob_run(dev, "", &st, out))
		return 1;
	check("api_oob_write_dropped_by_default", st == CM_SUCCESS && out[11] == 0 &&
	      out[12] == 5 && out[15] == 5, cmetal_status_name(st));
	memset(out, 0, sizeof out);
	if (oob_run(dev, "-fbounds-check", &st, out))
		return 1;
	check_err("api_oob_write_reported_with_bounds_check", st, CM_KERNEL_FAULT,
	          "kernel 'oob' accessed out of bounds", NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	cmetal_device *dev = NULL, *dummy = NULL;
	cmetal_program *prog = NULL, *p2 = NULL;
	cmetal_kernel *k = NULL, *mixed = NULL, *kx = NULL;
	cmetal_buffer *buf = NULL, *bx = NULL;
	cmetal_surface2d *img = NULL, *sx = NULL;
	cmetal_svm *svm = NULL;
	cmetal_task *task = NULL;

	check_err("api_open_unknown_device", cmetal_device_open("tpu", &dummy),
	          CM_DEVICE_NOT_FOUND, "unknown device 'tpu'", NULL);
	check_err("api_open_bad_cuda_ordinal", cmetal_device_open("cuda:x", &dummy),
	          CM_INVALID_VALUE, "cuda:N", NULL);
	/* Where a GPU works (the device machine), "cuda" opens and "auto" picks
	 * it; elsewhere both say why and fall back.  Either way the rest of
	 * this file tests the CPU device, which loads .so kernel libraries. */
	bool have_gpu = cmetal_device_open("cuda", &dummy) == CM_SUCCESS;
	if (have_gpu)
		cmetal_device_close(dummy);
	else
		check_err("api_open_cuda_unavailable", cmetal_device_open("cuda", &dummy),
		          CM_DEVICE_NOT_FOUND, "CUDA", NULL);
	check_err("api_open_null_out", cmetal_device_open("cpu", NULL), CM_INVALID_VALUE,
	          "output pointer is NULL", NULL);
	MUST(cmetal_device_open("auto", &dev));
	const char *dn;
	MUST(cmetal_device_name(dev, &dn));
	if (have_gpu)
		check("api_auto_picks_cuda", strncmp(dn, "cuda", 4) == 0, dn);
	else
		check("api_auto_falls_back_to_cpu", strncmp(dn, "cpu", 3) == 0, dn);
	cmetal_device_close(dev);
	MUST(cmetal_device_open("cpu", &dev));

	check_err("api_null_device", cmetal_buffer_create(NULL, 16, &bx), CM_INVALID_HANDLE,
	          "device handle is NULL", NULL);
	check_err("api_wrong_handle_type", cmetal_device_close((cmetal_device *)&path),
	          CM_INVALID_HANDLE, "not a live device", NULL);
	check_err("api_zero_buffer", cmetal_buffer_create(dev, 0, &bx), CM_INVALID_VALUE,
	          "0 bytes", NULL);

	check_err("api_load_missing_file", cmetal_program_load(dev, "/nonexistent/k.so", &p2),
	          CM_INVALID_PROGRAM, "cannot load kernel library", "/nonexistent/k.so", NULL);
	check_err("api_wrong_abi_version", cmetal_program_load(dev, lib(dir, "badabi"), &p2),
	          CM_INVALID_PROGRAM, "ABI version 45", "needs version 4", NULL);
	check_err("api_not_a_kernel_library", cmetal_program_load(dev, lib(dir, "noabi"), &p2),
	          CM_INVALID_PROGRAM, "not a cmetal kernel library", "cmk_abi_version", NULL);
	MUST(cmetal_program_load(dev, lib(dir, "basic"), &prog));

	check_err("api_unknown_kernel", cmetal_kernel_create(prog, "vadd", &kx),
	          CM_KERNEL_NOT_FOUND, "no kernel named 'vadd'", "'walker_ids'", "'reduce'", NULL);
	check_err("api_null_program", cmetal_kernel_create(NULL, "add", &kx), CM_INVALID_HANDLE,
	          "program handle is NULL", NULL);
	MUST(cmetal_kernel_create(prog, "add", &k));
	MUST(cmetal_kernel_create(prog, "mixed", &mixed));
	MUST(cmetal_buffer_create(dev, 64, &buf));
	MUST(cmetal_surface2d_create(dev, 8, 8, CMETAL_FMT_R32_UINT, &img));
	MUST(cmetal_svm_alloc(dev, 64, &svm));

	int n = 5;
	long long big = 5;
	check_err("api_arg_index_out_of_range", cmetal_kernel_set_arg(k, 2, 4, &n),
	          CM_INVALID_ARG_INDEX, "kernel 'add' has 2 arguments", "index 2", NULL);
	check_err("api_arg_wrong_size", cmetal_kernel_set_arg(k, 1, sizeof big, &big),
	          CM_INVALID_ARG_SIZE, "argument 1 'v' of kernel 'add'", "4 bytes", "got 8 bytes", NULL);
	check_err("api_arg_value_for_surface", cmetal_kernel_set_arg(k, 0, 4, &n),
	          CM_INVALID_ARG_KIND, "argument 0 'buf'", "SurfaceIndex", NULL);
	check_err("api_arg_buffer_for_scalar", cmetal_kernel_set_arg_buffer(k, 1, buf),
	          CM_INVALID_ARG_KIND, "argument 1 'v' of kernel 'add' is a scalar", "got a buffer", NULL);
	check_err("api_arg_image_for_buffer_t", cmetal_kernel_set_arg_surface2d(mixed, 0, img),
	          CM_INVALID_ARG_KIND, "argument 0 'buf'", "buffer_t", "got a 2D surface", NULL);
	check_err("api_arg_buffer_for_image2d_t", cmetal_kernel_set_arg_buffer(mixed, 3, buf),
	          CM_INVALID_ARG_KIND, "argument 3 'img'", "image2d_t", NULL);
	check_err("api_arg_svm_for_scalar", cmetal_kernel_set_arg_svm(mixed, 1, svm, 0),
	          CM_INVALID_ARG_KIND, "argument 1 'n'", "scalar", NULL);
	check_err("api_arg_null_buffer", cmetal_kernel_set_arg_buffer(k, 0, NULL),
	          CM_INVALID_HANDLE, "argument 0 'buf'", "NULL", NULL);
	check_err("api_arg_vector_size", cmetal_kernel_set_arg(mixed, 4, 8, &big),
	          CM_INVALID_ARG_SIZE, "argument 4 'v'", "vector/matrix of 16 bytes", NULL);
	check_err("api_null_kernel", cmetal_kernel_set_arg(NULL, 0, 4, &n), CM_INVALID_HANDLE,
	          "kernel handle is NULL", NULL);
	{	/* memory of another device (a second CPU device here) */
		cmetal_device *dev2 = NULL;
		cmetal_buffer *b2 = NULL;
		cmetal_svm *s2 = NULL;
		MUST(cmetal_device_open("cpu", &dev2));
		MUST(cmetal_buffer_create(dev2, 64, &b2));
		MUST(cmetal_svm_alloc(dev2, 64, &s2));
		check_err("api_arg_buffer_of_other_device", cmetal_kernel_set_arg_buffer(k, 0, b2),
		          CM_INVALID_VALUE, "argument 0 'buf'", "another device", NULL);
		check_err("api_arg_svm_of_other_device", cmetal_kernel_set_arg_svm(mixed, 2, s2, 0),
		          CM_INVALID_VALUE, "argument 2 'p'", "another device", NULL);
		MUST(cmetal_buffer_release(b2));
		MUST(cmetal_svm_free(s2));
		MUST(cmetal_device_close(dev2));
	}

	MUST(cmetal_kernel_set_arg_buffer(k, 0, buf));
	check_err("api_launch_without_all_args", cmetal_launch_walker(k, 4, 1, CMETAL_DEP_NONE, NULL),
	          CM_ARGS_NOT_SET, "argument 1 'v' of kernel 'add' is not set", NULL);
	MUST(cmetal_kernel_set_arg(k, 1, 4, &n));
	check_err("api_walker_zero_width", cmetal_launch_walker(k, 0, 4, CMETAL_DEP_NONE, NULL),
	          CM_INVALID_THREAD_SPACE, "0x4", "out of range", NULL);
	check_err("api_walker_too_wide", cmetal_launch_walker(k, 70000, 1, CMETAL_DEP_NONE, NULL),
	          CM_INVALID_THREAD_SPACE, "70000x1", "1..65535", NULL);
	uint32_t g1[3] = {1, 1, 1}, t2048[3] = {64, 32, 1}, t0[3] = {4, 0, 1};
	check_err("api_group_too_large", cmetal_launch_groups(k, g1, t2048, NULL),
	          CM_GROUP_TOO_LARGE, "2048 threads", "limit is 1024", NULL);
	check_err("api_group_zero_dim", cmetal_launch_groups(k, g1, t0, NULL),
	          CM_INVALID_THREAD_SPACE, "zero size in dimension 1", NULL);
	uint32_t ghuge[3] = {65536, 65536, 2};
	check_err("api_group_space_too_large", cmetal_launch_groups(k, ghuge, g1, NULL),
	          CM_INVALID_THREAD_SPACE, "exceed 2^32", NULL);
	cmetal_kernel *bs;
	MUST(cmetal_kernel_create(prog, "big_slm", &bs));
	MUST(cmetal_kernel_set_arg(bs, 0, 4, &n));
	check_err("api_slm_too_large", cmetal_launch_groups(bs, g1, g1, NULL), CM_GROUP_TOO_LARGE,
	          "300000 bytes of SLM", "the limit is 232448 on this device", NULL);
	MUST(cmetal_kernel_release(bs));

	check_err("api_bad_surface_format", cmetal_surface2d_create(dev, 8, 8, (cmetal_format)77, &sx),
	          CM_INVALID_FORMAT, "bad surface format 77", NULL);
	check_err("api_bad_surface_size", cmetal_surface2d_create(dev, 0, 8, CMETAL_FMT_A8, &sx),
	          CM_INVALID_VALUE, "0x8", NULL);
	char host[128];
	check_err("api_read_past_end", cmetal_buffer_read(buf, 32, 64, host), CM_OUT_OF_RANGE,
	          "read of 64 bytes at offset 32", "64-byte buffer", NULL);
	check_err("api_write_past_end", cmetal_buffer_write(buf, 65, 0, host), CM_OUT_OF_RANGE,
	          "offset 65", NULL);
	check_err("api_svm_read_past_end", cmetal_svm_read(svm, 0, 65, host), CM_OUT_OF_RANGE,
	          "SVM allocation", NULL);
	check_err("api_buffer_as_surface2d", cmetal_surface2d_release((cmetal_surface2d *)buf),
	          CM_INVALID_HANDLE, "not a live 2D surface", NULL);
	check_err("api_null_task", cmetal_task_run(NULL, NULL), CM_INVALID_HANDLE,
	          "task handle is NULL", NULL);
	check_err("api_null_event", cmetal_event_elapsed_ms(NULL, NULL), CM_INVALID_HANDLE,
	          "event handle is NULL", NULL);
	MUST(cmetal_task_create(dev, &task));
	check_err("api_bad_dependency", cmetal_task_add_walker(task, k, 4, 4, (cmetal_dependency)9),
	          CM_INVALID_VALUE, "dependency pattern 9", NULL);
	MUST(cmetal_task_release(task));
	check_err("api_build_cm_syntax_error", cmetal_program_build(dev, "int x = ;\n", "", &p2),
	          CM_BUILD_FAILED, "build failed", "program.cm:1:9: error:", "^", NULL);
	check_err("api_build_unknown_option", cmetal_program_build(dev, "int x;\n", "-O2 -Zfoo", &p2),
	          CM_BUILD_FAILED, "unknown build option '-Zfoo'", NULL);
	check_err("api_build_null_source", cmetal_program_build(dev, NULL, "", &p2),
	          CM_INVALID_VALUE, "source text is NULL", NULL);
	oob_semantics(dev);
	if (p2)
		cmetal_program_release(p2);
	int vmaj = -1, vmin = -1, vpat = -1;
	const char *vs = cmetal_version(&vmaj, &vmin, &vpat);
	char vbuf[64];
	snprintf(vbuf, sizeof vbuf, "%d.%d.%d", vmaj, vmin, vpat);
	check("api_version", vs && !strcmp(vs, CMETAL_VERSION_STRING) && !strcmp(vbuf, vs) &&
	      vmaj == CMETAL_VERSION_MAJOR && vmin == CMETAL_VERSION_MINOR &&
	      vpat == CMETAL_VERSION_PATCH && cmetal_version(NULL, NULL, NULL) == vs &&
	      CMETAL_VERSION == vmaj * 10000 + vmin * 100 + vpat, vs);
	check("api_status_names", strcmp(cmetal_status_name(CM_GROUP_TOO_LARGE), "CM_GROUP_TOO_LARGE") == 0 &&
	      strcmp(cmetal_status_name((cm_status)999), "CM_UNKNOWN_STATUS") == 0, NULL);

	MUST(cmetal_kernel_release(k));
	MUST(cmetal_kernel_release(mixed));
	check_err("api_release_null_buffer", cmetal_buffer_release(bx), CM_INVALID_HANDLE, "NULL", NULL);
	MUST(cmetal_buffer_release(buf));
	MUST(cmetal_surface2d_release(img));
	MUST(cmetal_svm_free(svm));
	MUST(cmetal_program_release(prog));
	MUST(cmetal_device_close(dev));
	/* the compiler through the public API */
	{
		const char *src = "extern \"C\" _GENX_MAIN_ void k(SurfaceIndex o [[type(\"buffer_t\")]])\n"
		                  "{ vector<int, 8> v = 1; write(o, 0, v); }\n";
		char *text = NULL, *clog = NULL;
		size_t n = 0;
		check("api_compile_ptx", cmetal_compile(src, "-O2", "ptx", &text, &n, &clog) == CM_SUCCESS &&
		      text && n > 0 && strstr(text, ".entry k"), cmetal_last_error());
		free(text);
		free(clog);
		check("api_compile_c", cmetal_compile(src, NULL, "c", &text, &n, NULL) == CM_SUCCESS &&
		      strstr(text, "cmk_program"), cmetal_last_error());
		free(text);
		check_err("api_compile_error", cmetal_compile("void f() { x = 1; }", "", "ptx", &text,
		          &n, &clog), CM_BUILD_FAILED, "undeclared identifier 'x'", NULL);
		check("api_compile_error_log", clog && strstr(clog, "program.cm:1:12"), clog);
		free(clog);
		check("api_compile_occupancy", cmetal_compile(src, "-march=sm_86", "occupancy", &text,
		      &n, NULL) == CM_SUCCESS && strstr(text, "kernel k (sm_86)") &&
		      strstr(text, "warps/SM") && !strstr(text, "instruction mix"), cmetal_last_error());
		free(text);
		check("api_compile_analyze", cmetal_compile(src, NULL, "analyze", &text, &n, NULL) ==
		      CM_SUCCESS && strstr(text, "kernel k (sm_90)") && strstr(text, "instruction mix") &&
		      strstr(text, "bound by"), cmetal_last_error());
		free(text);
		check_err("api_compile_bad_target", cmetal_compile(src, "", "spirv", &text, &n, NULL),
		          CM_INVALID_VALUE, "unknown target 'spirv'", NULL);
	}
	return check_failures != 0;
}
