/* test_cuda.c — the CUDA device in three settings, picked by argv[1]:
 *   host  whatever this machine has: without a driver, opening "cuda" must
 *         fail with a clear message and "auto" must give the CPU; with a
 *         GPU, a CM kernel is built from source, run and checked.
 *   fake  libcuda.so.1 is tests/gpu/fake_cuda.c (LD_LIBRARY_PATH): memory,
 *         zeroing, 2D surfaces, host-aliasing buffers, .ptx loading and its
 *         metadata, launch blocks and geometry, faults, JIT error logs.
 * Usage: test_cuda host|fake WORK_DIR */
#include <dlfcn.h>
#include <stdlib.h>

#include "../rt/check.h"
#include "fake_check.h"
#include "fake_cuda.h"
#include "rt/cuda/cuda.h"

static const char *work;


/* ---- host: no driver, or a real GPU ---- */

static const char *gpu_src =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void fill(SurfaceIndex out [[type(\"buffer_t\")]], int v)\n"
	"{\n"
	"\tvector<int, 16> x = v;\n"
	"\tx += cm_group_id(0);\n"
	"\twrite(out, cm_group_id(0) * 64, x);\n"
	"}\n";

/* cmetal_kernel_occupancy against the driver's own calculator
 * (cuOccupancyMaxActiveBlocksPerMultiprocessor) for every group size;
 * returns as MUST does (an int, for clang's -Wreturn-type). */
static int gpu_occupancy(cmetal_program *p, cmetal_kernel *k)
{
	typedef CUresult (*OccFn)(int *n, CUfunction f, int block, size_t dyn);
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	OccFn fn = lib ? (OccFn)dlsym(lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor") : NULL;
	if (!fn) {
		check("gpu/occupancy_vs_driver", 0, "the driver has no "
		      "cuOccupancyMaxActiveBlocksPerMultiprocessor");
		return 0;
	}
	/* handles are not pointers: the objects behind them */
	const cmetal_program *po = rt_object_of(p);
	const cmetal_kernel *ko = rt_object_of(k);
	const CudaKernel *ck = &((CudaProgram *)po->priv)->ks[ko->index];
	char why[256] = "";
	int ok = 1;
	for (uint32_t g = 1; g <= 32 && ok; g++) {
		cmetal_occupancy oc;
		int n = -1;
		MUST(cmetal_kernel_occupancy(k, g, &oc));
		/* a group of g CM threads is a CTA of g * lanes threads
		 * (narrow threads are packed into warps) */
		fn(&n, ck->fn, (int)((ck->lanes ? ck->lanes : 32) * g), (size_t)ck->scratch * g);
		ok = n == (int)oc.ctas_per_sm;
		snprintf(why, sizeof why, "group %u: driver %d CTAs per SM, cmetal %u (%s, %d registers)",
		         g, n, oc.ctas_per_sm, oc.limiter, oc.registers);
	}
	check("gpu/occupancy_vs_driver", ok, why);
	return 0;
}

static int gpu_smoke(cmetal_device *dev)
{
	const char *name;
	MUST(cmetal_device_name(dev, &name));
	printf("    device: %s\n", name);
	cmetal_program *p;
	cm_status s = cmetal_program_build(dev, gpu_src, "", &p);
	check("gpu/build", s == CM_SUCCESS, cmetal_last_error());
	if (s)
		return 1;
	cmetal_kernel *k;
	cmetal_buffer *b;
	int v = 7, out[64];
	MUST(cmetal_kernel_create(p, "fill", &k));
	MUST(cmetal_buffer_create(dev, sizeof out, &b));
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	MUST(cmetal_kernel_set_arg(k, 1, sizeof v, &v));
	s = cmetal_launch_groups(k, (uint32_t[3]){4, 1, 1}, (uint32_t[3]){1, 1, 1}, NULL);
	check("gpu/launch", s == CM_SUCCESS, cmetal_last_error());
	MUST(cmetal_buffer_read(b, 0, sizeof out, out));
	int bad = -1;
	for (int i = 0; i < 64 && bad < 0; i++)
		if (out[i] != v + i / 16)
			bad = i;
	char why[128];
	snprintf(why, sizeof why, "out[%d] = %d", bad, bad >= 0 ? out[bad] : 0);
	check("gpu/result", bad < 0, why);
	gpu_occupancy(p, k);
	cmetal_buffer_release(b);
	cmetal_kernel_release(k);
	cmetal_program_release(p);
	return 0;
}

static int host_main(void)
{
	cmetal_device *dev = NULL;
	cm_status s = cmetal_device_open("cuda", &dev);
	if (s == CM_SUCCESS) {
		check("gpu/open", 1, NULL);
		gpu_smoke(dev);
		cmetal_device_close(dev);
		MUST(cmetal_device_open("auto", &dev));
		const char *name;
		MUST(cmetal_device_name(dev, &name));
		check("gpu/auto_is_cuda", !strncmp(name, "cuda:0", 6), name);
		cmetal_device_close(dev);
		return check_failures;
	}
	const char *msg = cmetal_last_error();
	int clear = strstr(msg, "no CUDA driver found: libcuda.so.1") ||
	            strstr(msg, "no CUDA device: cuInit returned");
	char why[1024];
	snprintf(why, sizeof why, "status %s, message: %s", cmetal_status_name(s), msg);
	check("gpu/no_driver_message", s == CM_DEVICE_NOT_FOUND && clear, why);
	s = cmetal_device_open("cuda:1", &dev);
	check("gpu/no_driver_ordinal", s == CM_DEVICE_NOT_FOUND, cmetal_last_error());
	check_err("gpu/bad_ordinal", cmetal_device_open("cuda:x", &dev), CM_INVALID_VALUE,
	          "cuda:N", NULL);
	MUST(cmetal_device_open("auto", &dev));
	const char *name;
	MUST(cmetal_device_name(dev, &name));
	check("gpu/auto_falls_back_to_cpu", !strncmp(name, "cpu", 3), name);
	cmetal_device_close(dev);
	/* the CPU device still works after the failed CUDA open */
	MUST(cmetal_device_open("cpu", &dev));
	cmetal_buffer *b;
	uint32_t x = 0;
	MUST(cmetal_buffer_create(dev, 64, &b));
	MUST(cmetal_buffer_read(b, 0, 4, &x));
	check("gpu/cpu_still_works", x == 0, NULL);
	cmetal_buffer_release(b);
	cmetal_device_close(dev);
	return check_failures;
}

/* ---- fake: the whole device against fake_cuda.c ---- */

/* hungry: 255 registers per lane in the fake driver */
static const char *hungry_ptx =
	"//@cmetal abi 6\n"
	"//@cmetal kernel hungry slm 0 barrier 0 wait 0 simd 16 shuffles 0\n"
	"//@cmetal arg out 3 4 0 1 \"buffer_t\"\n"
	"//@cmetal arg v 1 4 5 0 \"\"\n"
	"// generated by hand\n"
	".version 8.0\n.target sm_90\n.address_size 64\n";

static const char *bad_ptx =
	"//@cmetal abi 6\n"                       /* 1 */
	"//@cmetal kernel k slm 0 barrier 0 wait 0 simd 1 shuffles 0\n"
	".version 8.0\n"
	".file 1 \"k.cm\"\n"
	".visible .entry k(.param .align 8 .b8 k_launch[48]) {\n"  /* 5 */
	"\t.loc 1 12 3\n"
	"\tBADPTX;\n"                              /* 7 */
	"}\n";

static char *write_file(const char *name, const char *text)
{
	return write_file_in(work, name, text);
}

static void fake_metadata(void)
{
	Arena *a = arena_new();
	Buf err = {0};
	CmkKernelInfo *ki;
	uint32_t n = 0;
	CudaProgram cp = {0};
	bool ok = cuda_parse_metadata(a, fake_ptx, &ki, &n, &cp, &err);
	check("gpu/fake_metadata", ok && n == 5 && !strcmp(ki[0].name, "fill") &&
	      ki[0].nargs == 2 && ki[0].args[0].kind == CMK_ARG_SURFACE &&
	      !strcmp(ki[0].args[0].type_attr, "buffer_t") && ki[0].args[1].size == 4 &&
	      ki[1].nargs == 1 && ki[0].simd_width == 16, err.len ? buf_cstr(&err) : "fields");
	check("gpu/fake_metadata_printf", ok && cp.nfmts == 2 && cp.prints[3] && !cp.prints[0] &&
	      !strcmp(cp.fmts[0].text, "t=%d \"half\"\t%.2f\n") && !strcmp(cp.fmts[0].kinds, "id") &&
	      !strcmp(cp.fmts[1].text, "big %llu%%!\n") && cp.fmts[1].nargs == 1,
	      ok ? cp.fmts[0].text : buf_cstr(&err));
	err.len = 0;
	ok = cuda_parse_metadata(a, "//@cmetal abi 99\n", &ki, &n, NULL, &err);
	check("gpu/fake_metadata_abi", !ok && strstr(buf_cstr(&err), "version 99"),
	      buf_cstr(&err));
	/* PTX of the previous ABI (a 40-byte launch parameter: no split groups) */
	err.len = 0;
	ok = cuda_parse_metadata(a, "//@cmetal abi 5\n", &ki, &n, NULL, &err);
	check("gpu/fake_metadata_abi_old", !ok && strstr(buf_cstr(&err), "version 5") &&
	      strstr(buf_cstr(&err), "compile it again"), buf_cstr(&err));
	/* param_surfaces: the surfaces past it are slots (rt/cuda_abi.h) */
	err.len = 0;
	CudaProgram ps = {0};
	ok = cuda_parse_metadata(a, "//@cmetal abi 6\n//@cmetal kernel x slm 0 barrier 0 wait 0 "
	                         "simd 0 shuffles 0 param_surfaces 101\n//@cmetal kernel y slm 0 "
	                         "barrier 0 wait 0 simd 0 shuffles 0\n", &ki, &n, &ps, &err);
	check("gpu/fake_metadata_param_surfaces", ok && n == 2 && ps.psurf &&
	      ps.psurf[0] == 101 && ps.psurf[1] == UINT32_MAX, ok ? "values" : buf_cstr(&err));
	err.len = 0;
	ok = cuda_parse_metadata(a, "//@cmetal abi 6\n//@cmetal kernel x slm\n", &ki, &n, NULL, &err);
	check("gpu/fake_metadata_bad_line", !ok && strstr(buf_cstr(&err), "line 2"),
	      buf_cstr(&err));
	/* the per-warp SLM scratch of the PTX back end's shared-memory layouts */
	err.len = 0;
	CudaProgram sp = {0};
	ok = cuda_parse_metadata(a, "//@cmetal abi 6\n//@cmetal kernel x slm 0 barrier 0 wait 0 "
	                         "simd 0 shuffles 2 scratch 2048\n//@cmetal kernel y slm 0 "
	                         "barrier 0 wait 0 simd 0 shuffles 0\n", &ki, &n, &sp, &err);
	check("gpu/fake_metadata_scratch", ok && n == 2 && sp.scratch && sp.scratch[0] == 2048 &&
	      sp.scratch[1] == 0, ok ? "values" : buf_cstr(&err));
	err.len = 0;
	ok = cuda_parse_metadata(a, "//@cmetal abi 6\n//@cmetal kernel x slm 0 barrier 0 wait 0 "
	                         "simd 0 shuffles 2 scratch 99999\n", &ki, &n, NULL, &err);
	check("gpu/fake_metadata_scratch_too_big", !ok && strstr(buf_cstr(&err), "line 2"),
	      buf_cstr(&err));
	buf_free(&err);
	arena_free(a);
}

/* Memory: zeroing, round trips, 2D surfaces, map, SVM addresses. */
static int fake_memory(cmetal_device *dev)
{
	cmetal_buffer *b;
	unsigned char z[100], in[100];
	MUST(cmetal_buffer_create(dev, 100, &b));
	MUST(cmetal_buffer_read(b, 0, 100, z));
	int zero = 1;
	for (int i = 0; i < 100; i++)
		zero &= z[i] == 0;
	check("gpu/fake_zeroed", zero, NULL);
	for (int i = 0; i < 100; i++)
		in[i] = (unsigned char)i;
	MUST(cmetal_buffer_write(b, 10, 50, in));
	MUST(cmetal_buffer_read(b, 0, 100, z));
	check("gpu/fake_roundtrip", z[9] == 0 && z[10] == 0 && z[59] == 49 && z[60] == 0, NULL);
	unsigned char *m;
	MUST(cmetal_buffer_map(b, (void **)&m));
	m[0] = 77;
	MUST(cmetal_buffer_unmap(b));
	MUST(cmetal_buffer_read(b, 0, 1, z));
	check("gpu/fake_map", z[0] == 77, NULL);
	cmetal_buffer_release(b);

	cmetal_surface2d *s;
	uint32_t px[3 * 5], back[3 * 5], pitch;
	for (int i = 0; i < 15; i++)
		px[i] = 1000u + (uint32_t)i;
	MUST(cmetal_surface2d_create(dev, 3, 5, CMETAL_FMT_R32_UINT, &s));
	MUST(cmetal_surface2d_info(s, NULL, NULL, &pitch, NULL));
	MUST(cmetal_surface2d_write(s, px, 0));
	MUST(cmetal_surface2d_read(s, back, 0));
	check("gpu/fake_surface2d", !memcmp(px, back, sizeof px) && pitch == 64, NULL);
	cmetal_surface2d_release(s);

	cmetal_svm *v;
	uint64_t addr;
	MUST(cmetal_svm_alloc(dev, 256, &v));
	MUST(cmetal_svm_address(v, &addr));
	check("gpu/fake_svm_address", addr != 0 && addr % 16 == 0, NULL);
	cmetal_svm_free(v);
	return 0;
}

/* printf text collected through the device's callback */
static Buf printed;
static void on_print(void *user, const char *text, size_t len)
{
	(void)user;
	buf_putn(&printed, text, len);
}

/* printf records become the CPU device's text, in thread order; an
 * overflow is reported and the next launch has room; device events time
 * the launch. */
static int fake_printf_launches(cmetal_device *dev, cmetal_program *p, cmetal_buffer *b)
{
	cmetal_kernel *pf;
	int n = 1;
	MUST(cmetal_kernel_create(p, "pf", &pf));
	MUST(cmetal_kernel_set_arg_buffer(pf, 0, b));
	MUST(cmetal_kernel_set_arg(pf, 1, 4, &n));
	MUST(cmetal_device_set_printf(dev, on_print, NULL));
	printed.len = 0;
	cmetal_event *ev;
	MUST(cmetal_launch_groups(pf, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){2, 1, 1}, &ev));
	Buf want = {0};
	for (int t = 0; t < 4; t++)
		buf_printf(&want, "t=%d \"half\"\t%.2f\nbig %llu%%!\n", t, t * 0.5,
		           (unsigned long long)t << 33);
	check("gpu/fake_printf_order", printed.len == want.len &&
	      !memcmp(printed.data, want.data, want.len), buf_cstr(&printed));
	double ms = 0;
	MUST(cmetal_event_elapsed_ms(ev, &ms));
	check("gpu/fake_event_device_time", ms == 0.5, "not the cuEventElapsedTime value");
	cmetal_event_release(ev);
	n = 10000;   /* 4 threads x 10000 x 40 bytes: past the first 1 MB, within 2 */
	MUST(cmetal_kernel_set_arg(pf, 1, 4, &n));
	printed.len = 0;
	MUST(cmetal_launch_groups(pf, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){2, 1, 1}, NULL));
	const char *tail = printed.len > 300 ? buf_cstr(&printed) + printed.len - 300 : "";
	check("gpu/fake_printf_overflow", strstr(tail, "printed more than the") &&
	      !strstr(tail, "malformed") && !strncmp(buf_cstr(&printed), "t=1 ", 4), tail);
	printed.len = 0;
	MUST(cmetal_launch_groups(pf, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){2, 1, 1}, NULL));
	check("gpu/fake_printf_grows", !strstr(buf_cstr(&printed), "printed more than the") &&
	      strstr(buf_cstr(&printed), "t=3 \"half\"\t1.50\n"), NULL);
	MUST(cmetal_device_set_printf(dev, NULL, NULL));
	buf_free(&want);
	buf_free(&printed);
	cmetal_kernel_release(pf);
	return 0;
}

/* The host formatter against snprintf on one set of arguments. */
static void fake_printf_format(void)
{
	static const char *const fmts[] = {
		"%d|%5d|%-5d|%05d|%+d|% d|%x|%X|%#o|%c|%%", "%u %lld %llx %llu %lu %hd %hhu",
		"%f %.3f %10.2e %g %G %a %-8.1f|", "%*d|%-*d|%.*f|%*.*f", "no conversions\n",
	};
	int32_t i = -42;
	long long q = -1234567890123LL;
	double d = 3.14159;
	Buf got = {0};
	char want[1024];
	CudaFormat f;
	unsigned char a[8 * 16];
	for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
		int64_t iv = i, qv = q, w = 7, pr = 2, ch = 'A';
		got.len = 0;
		memset(a, 0, sizeof a);
		switch (k) {
		case 0:
			for (int m = 0; m < 10; m++)
				memcpy(a + 8 * m, m == 9 ? &ch : &iv, 8);
			f = (CudaFormat){fmts[k], "iiiiiiiiii", 10};
			snprintf(want, sizeof want, fmts[k], i, i, i, i, i, i, i, i, i, 'A');
			break;
		case 1:
			memcpy(a, &iv, 8), memcpy(a + 8, &qv, 8), memcpy(a + 16, &qv, 8);
			memcpy(a + 24, &qv, 8), memcpy(a + 32, &qv, 8), memcpy(a + 40, &iv, 8);
			memcpy(a + 48, &iv, 8);
			f = (CudaFormat){fmts[k], "ilLLLii", 7};
			snprintf(want, sizeof want, fmts[k], (unsigned)i, q, (unsigned long long)q,
			         (unsigned long long)q, (unsigned long)q, (short)i, (unsigned char)i);
			break;
		case 2:
			for (int m = 0; m < 7; m++)
				memcpy(a + 8 * m, &d, 8);
			f = (CudaFormat){fmts[k], "ddddddd", 7};
			snprintf(want, sizeof want, fmts[k], d, d, d, d, d, d, d);
			break;
		case 3:
			memcpy(a, &w, 8), memcpy(a + 8, &iv, 8), memcpy(a + 16, &w, 8);
			memcpy(a + 24, &iv, 8), memcpy(a + 32, &pr, 8), memcpy(a + 40, &d, 8);
			memcpy(a + 48, &w, 8), memcpy(a + 56, &pr, 8), memcpy(a + 64, &d, 8);
			f = (CudaFormat){fmts[k], "iiiiidiid", 9};
			snprintf(want, sizeof want, fmts[k], 7, i, 7, i, 2, d, 7, 2, d);
			break;
		default:
			f = (CudaFormat){fmts[k], "", 0};
			snprintf(want, sizeof want, "%s", fmts[k]);
		}
		cuda_printf_one(&f, a, &got);
		char name[64];
		snprintf(name, sizeof name, "gpu/printf_format_%zu", k);
		check(name, !strcmp(buf_cstr(&got), want), buf_cstr(&got));
	}
	buf_free(&got);
}

/* Groups of more than 32 CM threads: cluster launches (rt/cuda_abi.h
 * "Clusters") of a cluster-mode PTX, and of the variant a program built
 * from source gets on demand. */
static int fake_cluster_launches(cmetal_device *dev, FakeStats *st)
{
	Buf text = {0};
	buf_puts(&text, "//@cmetal abi 6\n//@cmetal cluster 1\n");
	buf_puts(&text, strchr(fake_ptx, '\n') + 1);
	cmetal_program *p;
	cmetal_kernel *fill;
	cmetal_buffer *b;
	int v = 7, n0 = st->cluster_launches;
	MUST(cmetal_program_load(dev, write_file("cluster.ptx", buf_cstr(&text)), &p));
	buf_free(&text);
	MUST(cmetal_kernel_create(p, "fill", &fill));
	MUST(cmetal_buffer_create(dev, 4096, &b));
	MUST(cmetal_kernel_set_arg_buffer(fill, 0, b));
	MUST(cmetal_kernel_set_arg(fill, 1, 4, &v));
	/* 66 CM threads: 3 CTAs of 22 warps */
	MUST(cmetal_launch_groups(fill, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){33, 2, 1}, NULL));
	check("gpu/fake_cluster_ptx", filled(b, 132, 7) && st->cluster_launches == n0 + 1, NULL);
	/* 256 = 8 x 32; a small group of a cluster-mode PTX is a cluster of one */
	MUST(cmetal_launch_groups(fill, (uint32_t[3]){3, 1, 1}, (uint32_t[3]){16, 4, 4}, NULL));
	check("gpu/fake_cluster_256", filled(b, 768, 7) && st->cluster_launches == n0 + 2, NULL);
	MUST(cmetal_launch_groups(fill, (uint32_t[3]){5, 1, 1}, (uint32_t[3]){2, 3, 1}, NULL));
	check("gpu/fake_cluster_of_one", filled(b, 30, 7) && st->cluster_launches == n0 + 2, NULL);
	check_err("gpu/fake_cluster_too_large",
	          cmetal_launch_groups(fill, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){257, 1, 1}, NULL),
	          CM_GROUP_TOO_LARGE, "at most 256", NULL);
	cmetal_kernel_release(fill);
	MUST(cmetal_program_release(p));

	/* built from source (one CM thread per warp: not packed): fill uses no
	 * SLM or barrier, so a group of 40 runs as 8 CTAs of 5 (split groups:
	 * 60 warps an SM, as CTAs of 20, the smallest CTA), no cluster; without
	 * splitting (CMETAL_SPLIT_GROUPS=0), the first big group builds the
	 * cluster variant (2 CTAs of 20) */
	cm_status s = cmetal_program_build(dev, gpu_src, "-fno-warp-packing", &p);
	check("gpu/fake_cluster_build", s == CM_SUCCESS, cmetal_last_error());
	if (s == CM_SUCCESS) {
		MUST(cmetal_kernel_create(p, "fill", &fill));
		MUST(cmetal_kernel_set_arg_buffer(fill, 0, b));
		MUST(cmetal_kernel_set_arg(fill, 1, 4, &v));
		MUST(cmetal_launch_groups(fill, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){4, 1, 1}, NULL));
		check("gpu/fake_small_group_plain", filled(b, 8, 7) &&
		      st->cluster_launches == n0 + 2, NULL);
		int l0 = st->launches;
		cmetal_occupancy oc, o24, o32, o7;
		/* the policy at 32 registers (64 warps an SM): 24 (2 CTAs, 48
		 * warps) splits into CTAs of 3 (63); 32 (64 warps) and 7 (no power
		 * of two divides it) stay whole */
		MUST(cmetal_kernel_occupancy(fill, 24, &o24));
		MUST(cmetal_kernel_occupancy(fill, 32, &o32));
		MUST(cmetal_kernel_occupancy(fill, 7, &o7));
		check("gpu/fake_split_policy", o24.cta_threads == 3 && o24.warps_per_sm == 63 &&
		      o32.cta_threads == 32 && o32.warps_per_sm == 64 && o7.cta_threads == 7,
		      NULL);
		MUST(cmetal_kernel_occupancy(fill, 40, &oc));
		MUST(cmetal_launch_groups(fill, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){40, 1, 1},
		                          NULL));
		check("gpu/fake_split_group", filled(b, 80, 7) && oc.cta_threads == 5 &&
		      st->cluster_launches == n0 + 2 && st->launches == l0 + 1 &&
		      st->last_grid[0] == 16 && st->last_block[0] == 32 * 5, NULL);
		setenv("CMETAL_SPLIT_GROUPS", "0", 1);
		MUST(cmetal_kernel_occupancy(fill, 40, &oc));
		for (int k = 0; k < 2; k++)
			MUST(cmetal_launch_groups(fill, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){40, 1, 1},
			                          NULL));
		check("gpu/fake_cluster_variant", filled(b, 80, 7) && oc.cta_threads == 20 &&
		      st->cluster_launches == n0 + 4, NULL);
		unsetenv("CMETAL_SPLIT_GROUPS");
		cmetal_kernel_release(fill);
		MUST(cmetal_program_release(p));
	}
	/* packed (fill has no vector wider than one element: 32 CM threads a
	 * warp), a group of 40 is one CTA of 2 warps, no cluster */
	s = cmetal_program_build(dev, gpu_src, "", &p);
	check("gpu/fake_packed_build", s == CM_SUCCESS, cmetal_last_error());
	if (s == CM_SUCCESS) {
		MUST(cmetal_kernel_create(p, "fill", &fill));
		MUST(cmetal_kernel_set_arg_buffer(fill, 0, b));
		MUST(cmetal_kernel_set_arg(fill, 1, 4, &v));
		MUST(cmetal_launch_groups(fill, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){40, 1, 1},
		                          NULL));
		check("gpu/fake_packed_no_cluster", filled(b, 80, 7) &&
		      st->cluster_launches == n0 + 4, NULL);
		cmetal_kernel_release(fill);
		MUST(cmetal_program_release(p));
	}
	cmetal_buffer_release(b);
	return 0;
}

/* A group whose CTA needs more registers than an SM has runs a variant
 * with a register cap (built once, noted in the build log); the
 * occupancy query says so, and picks the walker's CTA size. */
static int fake_register_cap(cmetal_device *dev, int *maxreg_loads)
{
	cmetal_program *p;
	MUST(cmetal_program_load(dev, write_file("hungry.ptx", hungry_ptx), &p));
	cmetal_kernel *k;
	MUST(cmetal_kernel_create(p, "hungry", &k));
	cmetal_occupancy oc;
	char why[256];
	MUST(cmetal_kernel_occupancy(k, 32, &oc));
	snprintf(why, sizeof why, "cap %u, regs %d, %u CTAs, %u%%, %s", oc.register_cap,
	         oc.registers, oc.ctas_per_sm, oc.percent, oc.limiter);
	check("gpu/fake_occupancy_cap", oc.register_cap == 64 && oc.registers == 255 &&
	      oc.ctas_per_sm == 1 && oc.percent == 50 && !strcmp(oc.limiter, "registers"), why);
	MUST(cmetal_kernel_occupancy(k, 8, &oc));
	snprintf(why, sizeof why, "cap %u, %u CTAs, %u%%, %s", oc.register_cap, oc.ctas_per_sm,
	         oc.percent, oc.limiter);
	check("gpu/fake_occupancy_no_cap", oc.register_cap == 0 && oc.ctas_per_sm == 1 &&
	      oc.percent == 12 && !strcmp(oc.limiter, "registers") && oc.auto_group == 1, why);
	check_err("gpu/fake_occupancy_zero", cmetal_kernel_occupancy(k, 0, &oc), CM_INVALID_VALUE,
	          "1 to", NULL);
	cmetal_buffer *b;
	uint32_t out[64] = {0};
	int v = 7, loads = *maxreg_loads;
	MUST(cmetal_buffer_create(dev, sizeof out, &b));
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	MUST(cmetal_kernel_set_arg(k, 1, 4, &v));
	MUST(cmetal_launch_groups(k, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){8, 1, 1}, NULL));
	check("gpu/fake_fits_uncapped", *maxreg_loads == loads, "a fitting group was capped");
	cm_status s = cmetal_launch_groups(k, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){32, 1, 1},
	                                   NULL);
	check("gpu/fake_capped_launch", s == CM_SUCCESS, cmetal_last_error());
	MUST(cmetal_buffer_read(b, 0, sizeof out, out));
	check("gpu/fake_capped_result", out[0] == 7 && out[63] == 70 && *maxreg_loads == loads + 1,
	      NULL);
	const char *log = NULL;
	MUST(cmetal_program_build_log(p, &log));
	check("gpu/fake_capped_log", strstr(log, "at most 64 registers") && strstr(log, "spill") &&
	      strstr(log, "512 bytes of local memory"), log);
	MUST(cmetal_launch_groups(k, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){32, 1, 1}, NULL));
	const char *log2 = NULL;
	MUST(cmetal_program_build_log(p, &log2));
	check("gpu/fake_capped_cached", *maxreg_loads == loads + 1 && log2 == log,
	      "the capped variant was built again");
	cmetal_buffer_release(b);
	cmetal_kernel_release(k);
	MUST(cmetal_program_release(p));
	return 0;
}

/* A group launch whose CTAs registers limit to fewer per SM than the
 * other limits allow runs a variant capped for one more CTA when it
 * spills little (snug: 40 registers, at 32 two 32-warp CTAs fit, 8 bytes
 * of spills), not when it spills more (tight: 64 bytes), not when
 * CMETAL_OCCUPANCY_CAP=0; each decided once. */
static int fake_raise_cap(cmetal_device *dev, int *maxreg_loads)
{
	static const char *names[] = {"snug", "tight", "snug"};
	for (int i = 0; i < 3; i++) {
		char ptx[512], path[32], test[64];
		snprintf(ptx, sizeof ptx, "//@cmetal abi 6\n//@cmetal kernel %s slm 0 barrier 0 "
		         "wait 0 simd 16 shuffles 0\n//@cmetal arg out 3 4 0 1 \"buffer_t\"\n"
		         "//@cmetal arg v 1 4 5 0 \"\"\n.version 8.0\n.target sm_90\n"
		         ".address_size 64\n", names[i]);
		snprintf(path, sizeof path, "raise%d.ptx", i);
		if (i == 2)
			setenv("CMETAL_OCCUPANCY_CAP", "0", 1);
		cmetal_program *p;
		cmetal_kernel *k;
		cmetal_buffer *b;
		cmetal_occupancy oc;
		uint32_t out[64] = {0};
		int v = 5, loads = *maxreg_loads;
		MUST(cmetal_program_load(dev, write_file(path, ptx), &p));
		MUST(cmetal_kernel_create(p, names[i], &k));
		MUST(cmetal_buffer_create(dev, sizeof out, &b));
		MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
		MUST(cmetal_kernel_set_arg(k, 1, 4, &v));
		for (int n = 0; n < 2; n++)
			MUST(cmetal_launch_groups(k, (uint32_t[3]){2, 1, 1}, (uint32_t[3]){32, 1, 1},
			                          NULL));
		MUST(cmetal_buffer_read(b, 0, sizeof out, out));
		MUST(cmetal_kernel_occupancy(k, 32, &oc));
		const char *log = NULL;
		MUST(cmetal_program_build_log(p, &log));
		char why[512];
		snprintf(why, sizeof why, "variants built %d, cap %u, %u CTAs; log: %s",
		         *maxreg_loads - loads, oc.register_cap, oc.ctas_per_sm, log ? log : "");
		bool used = i == 0, ok = out[0] == 5 && out[63] == 68;
		if (i < 2)
			ok = ok && *maxreg_loads == loads + 1 &&
			     strstr(log, "at most 32 (CU_JIT_MAX_REGISTERS)") &&
			     strstr(log, used ? "launched from that variant" : "spills too much");
		else
			ok = ok && *maxreg_loads == loads && !strstr(log, "CU_JIT_MAX_REGISTERS");
		ok = ok && oc.register_cap == (used ? 32u : 0u) && oc.ctas_per_sm == (used ? 2u : 1u);
		snprintf(test, sizeof test, "gpu/fake_raise_%s", i == 0 ? "used" : i == 1 ?
		         "spills" : "off");
		check(test, ok, why);
		unsetenv("CMETAL_OCCUPANCY_CAP");
		cmetal_buffer_release(b);
		cmetal_kernel_release(k);
		MUST(cmetal_program_release(p));
	}
	return 0;
}

/* A full fault record (rt/cuda_abi.h "Faults": line, kind, CM thread) is
 * reported in the CPU device's words, then cleared; the same through the
 * device-memory record that is read back when mapping is not used. */
static int fake_fault_records(cmetal_device *dev, cmetal_program *p, cmetal_buffer *b)
{
	cmetal_kernel *k;
	MUST(cmetal_kernel_create(p, "oobk", &k));
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	check_err("gpu/fake_fault_record", cmetal_launch_groups(k, (uint32_t[3]){3, 1, 1},
	          (uint32_t[3]){2, 1, 1}, NULL), CM_KERNEL_FAULT,
	          "kernel 'oobk' accessed out of bounds at line 7 (scatter out of bounds) in thread 5",
	          NULL);
	cmetal_kernel *fill;
	MUST(cmetal_kernel_create(p, "fill", &fill));
	MUST(cmetal_kernel_set_arg_buffer(fill, 0, b));
	int v = 1;
	MUST(cmetal_kernel_set_arg(fill, 1, 4, &v));
	check("gpu/fake_fault_record_cleared", cmetal_launch_groups(fill, (uint32_t[3]){1, 1, 1},
	      (uint32_t[3]){1, 1, 1}, NULL) == CM_SUCCESS, cmetal_last_error());
	cmetal_kernel_release(fill);
	cmetal_kernel_release(k);

	/* the unmapped record: device memory copied back after the launch */
	cmetal_device *d2;
	cmetal_program *p2;
	cmetal_buffer *b2;
	setenv("CMETAL_CUDA_FAULT_DEVICE", "1", 1);
	MUST(cmetal_device_open("cuda", &d2));
	unsetenv("CMETAL_CUDA_FAULT_DEVICE");
	MUST(cmetal_program_load(d2, write_file("fake.ptx", fake_ptx), &p2));
	MUST(cmetal_buffer_create(d2, 64, &b2));
	MUST(cmetal_kernel_create(p2, "oobk", &k));
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b2));
	check_err("gpu/fake_fault_record_device", cmetal_launch_groups(k, (uint32_t[3]){1, 1, 1},
	          (uint32_t[3]){1, 1, 1}, NULL), CM_KERNEL_FAULT,
	          "at line 7 (scatter out of bounds) in thread 0", NULL);
	check_err("gpu/fake_fault_record_device_again", cmetal_launch_groups(k,
	          (uint32_t[3]){4, 1, 1}, (uint32_t[3]){1, 1, 1}, NULL), CM_KERNEL_FAULT,
	          "in thread 3", NULL);
	cmetal_kernel_release(k);
	cmetal_buffer_release(b2);
	cmetal_program_release(p2);
	cmetal_device_close(d2);
	return 0;
}

static int fake_launches(cmetal_device *dev, FakeStats *st)
{
	cmetal_program *p;
	MUST(cmetal_program_load(dev, write_file("fake.ptx", fake_ptx), &p));
	uint32_t n = 0;
	MUST(cmetal_program_kernel_count(p, &n));
	check("gpu/fake_load", n == 5, NULL);
	cmetal_kernel *fill, *walk, *oob;
	MUST(cmetal_kernel_create(p, "fill", &fill));
	MUST(cmetal_kernel_create(p, "walk", &walk));
	MUST(cmetal_kernel_create(p, "oob", &oob));
	cmetal_buffer *b;
	uint32_t out[16] = {0};
	int v = 100;
	MUST(cmetal_buffer_create(dev, 10 * 4, &b));
	MUST(cmetal_kernel_set_arg_buffer(fill, 0, b));
	MUST(cmetal_kernel_set_arg(fill, 1, 4, &v));
	MUST(cmetal_launch_groups(fill, (uint32_t[3]){3, 1, 1}, (uint32_t[3]){2, 2, 1}, NULL));
	MUST(cmetal_buffer_read(b, 0, 40, out));
	check("gpu/fake_groups", out[0] == 100 && out[9] == 109, NULL);
	int up = st->uploads;
	MUST(cmetal_launch_groups(fill, (uint32_t[3]){3, 1, 1}, (uint32_t[3]){2, 2, 1}, NULL));
	check("gpu/fake_lean_relaunch", st->uploads == up, "a repeated launch uploaded its block");
	v = 5;
	MUST(cmetal_kernel_set_arg(fill, 1, 4, &v));
	MUST(cmetal_launch_groups(fill, (uint32_t[3]){3, 1, 1}, (uint32_t[3]){2, 2, 1}, NULL));
	MUST(cmetal_buffer_read(b, 0, 40, out));
	check("gpu/fake_new_args", out[0] == 5 && out[9] == 14, NULL);
	/* threads {0, 0, 0}: rows of the runtime's group (auto_group: 2 for
	 * fill's 32 registers) along x, x rounded up to a multiple of it */
	cmetal_occupancy ao;
	MUST(cmetal_kernel_occupancy(fill, 1, &ao));
	MUST(cmetal_launch_groups(fill, (uint32_t[3]){5, 1, 1}, (uint32_t[3]){0, 0, 0}, NULL));
	check("gpu/fake_auto_groups", ao.auto_group == 2 && filled(b, 6, 5), NULL);
	check_err("gpu/fake_group_too_large",
	          cmetal_launch_groups(fill, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){33, 1, 1}, NULL),
	          CM_GROUP_TOO_LARGE, "warp", "-fcluster-slm", NULL);

	/* thread-space launches: CTAs of the size with the best occupancy (32
	 * registers on the fake sm_90: 2 warps give 32 CTAs of 64 warps) */
	cmetal_occupancy oc;
	MUST(cmetal_kernel_occupancy(walk, 4, &oc));
	check("gpu/fake_occupancy_walker", oc.auto_group == 2 && oc.ctas_per_sm == 16 &&
	      oc.percent == 100 && oc.registers == 32 && !strcmp(oc.limiter, "warps"), NULL);

	/* a host-aliasing buffer sees the kernel's writes after the launch */
	uint32_t host[16] = {0};
	cmetal_buffer *hb;
	MUST(cmetal_buffer_create_host(dev, host, sizeof host, &hb));
	MUST(cmetal_kernel_set_arg_buffer(walk, 0, hb));
	MUST(cmetal_launch_walker(walk, 5, 3, CMETAL_DEP_NONE, NULL));
	check("gpu/fake_walker_alias", host[0] == 0 && host[1] == 1000 && host[5] == 1 &&
	      host[14] == 4002 && host[15] == 0, NULL);
	MUST(cmetal_launch_walker(walk, 2, 2, CMETAL_DEP_WAVEFRONT, NULL));
	check("gpu/fake_walker_deps", host[3] == 1001, NULL);

	MUST(cmetal_kernel_set_arg_buffer(oob, 0, b));
	check_err("gpu/fake_fault", cmetal_launch_groups(oob, (uint32_t[3]){1, 1, 1},
	          (uint32_t[3]){1, 1, 1}, NULL), CM_KERNEL_FAULT, "oob", "line 42", NULL);
	MUST(cmetal_launch_groups(fill, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){1, 1, 1}, NULL));
	check("gpu/fake_fault_cleared", 1, NULL);
	fake_fault_records(dev, p, b);

	fake_printf_launches(dev, p, b);
	fake_cluster_launches(dev, st);
	cmetal_buffer_release(hb);
	cmetal_buffer_release(b);
	cmetal_kernel_release(fill);
	cmetal_kernel_release(walk);
	cmetal_kernel_release(oob);
	MUST(cmetal_program_release(p));

	/* a run-time build: the real compiler's PTX and metadata, the fake JIT */
	cmetal_program *built;
	uint32_t nargs = 0;
	cmetal_arg_kind kind = 0;
	cm_status s = cmetal_program_build(dev, gpu_src, "-DUNUSED=1", &built);
	check("gpu/fake_build", s == CM_SUCCESS, cmetal_last_error());
	if (s == CM_SUCCESS) {
		MUST(cmetal_kernel_create(built, "fill", &fill));
		MUST(cmetal_kernel_arg_count(fill, &nargs));
		MUST(cmetal_kernel_arg_info(fill, 0, NULL, &kind, NULL));
		check("gpu/fake_build_metadata", nargs == 2 && kind == CMETAL_ARG_SURFACE, NULL);
		cmetal_kernel_release(fill);
		cmetal_program_release(built);
	}
	check_err("gpu/fake_build_error", cmetal_program_build(dev, "int broken( {\n", "", &built),
	          CM_BUILD_FAILED, "build failed", "program.cm:1:", NULL);

	cmetal_program *bad;
	check_err("gpu/fake_jit_log", cmetal_program_load(dev, write_file("bad.ptx", bad_ptx), &bad),
	          CM_BUILD_FAILED, "JIT rejected", "line 7", "from k.cm:12", NULL);
	check_err("gpu/fake_not_cmetal_ptx",
	          cmetal_program_load(dev, write_file("plain.ptx", ".version 8.0\n"), &bad),
	          CM_INVALID_PROGRAM, "no '//@cmetal abi' line", NULL);
	check_err("gpu/fake_missing_file", cmetal_program_load(dev, "/nonexistent.ptx", &bad),
	          CM_IO_ERROR, "cannot read", NULL);
	return 0;
}

/* Run-time builds target the GPU's own architecture when the back end
 * knows it (the fake driver reports $FAKE_CUDA_CC), else the newest below. */
static void fake_native_march(void *lib)
{
	static const char *cases[][2] = {
		{"9.0", "sm_90"}, {"10.0", "sm_100"}, {"10.3", "sm_103"}, {"12.0", "sm_120"},
		{"12.1", "sm_121"}, {"12.9", "sm_121"}, {"8.8", "sm_87"}, {"8.2", "sm_80"},
	};
	const char *last = dlsym(lib, "fake_last_target");
	if (!last) {
		check("gpu/fake_native_march", 0, "the fake driver has no fake_last_target");
		return;
	}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		setenv("FAKE_CUDA_CC", cases[i][0], 1);
		cmetal_device *dev;
		cmetal_program *p;
		char name[64], what[96];
		snprintf(name, sizeof name, "gpu/fake_march_cc%s", cases[i][0]);
		snprintf(what, sizeof what, "built for %s, not %s", last, cases[i][1]);
		if (cmetal_device_open("cuda", &dev) != CM_SUCCESS) {
			check("gpu/fake_native_march", 0, cmetal_last_error());
			continue;
		}
		cm_status s = cmetal_program_build(dev, gpu_src, "", &p);
		check(name, s == CM_SUCCESS && !strcmp(last, cases[i][1]),
		      s == CM_SUCCESS ? what : cmetal_last_error());
		if (s == CM_SUCCESS)
			cmetal_program_release(p);
		cmetal_device_close(dev);
	}
	unsetenv("FAKE_CUDA_CC");
}

/* SLM over 48 KB is dynamic shared memory (rt/cuda_abi.h dynamic_slm):
 * the device's limit is its opt-in shared memory per CTA (227 KB on
 * sm_90), and a launch whose SLM and back-end scratch exceed it is refused
 * with a message, before the driver sees it. */
static const char big_slm_src[] =
	"extern \"C\" _GENX_MAIN_ void big(SurfaceIndex ix, SurfaceIndex o)\n"
	"{\n"
	"	cm_slm_init(226 * 1024);\n"
	"	vector<ushort, 64> idx;\n"
	"	read(ix, 0, idx);\n"
	"	vector<uint, 64> y;\n"
	"	cm_slm_block_read(0, 0, y.select<32, 1>(0));\n"
	"	cm_slm_block_read(0, 128, y.select<32, 1>(32));\n"
	"	vector<uint, 64> z = y.iselect(idx);\n"
	"	write(o, 0, z.select<32, 1>(0));\n"
	"}\n";

static int fake_big_slm(cmetal_device *dev)
{
	uint64_t max = 0;
	MUST(cmetal_device_info(dev, CMETAL_DEVICE_MAX_SLM, &max));
	check("gpu/fake_max_slm", max == 227 * 1024, NULL);
	cmetal_program *p;
	cmetal_kernel *k;
	cmetal_buffer *b;
	cm_status s = cmetal_program_build(dev, big_slm_src, "", &p);
	check("gpu/fake_big_slm_build", s == CM_SUCCESS, cmetal_last_error());
	if (s)
		return 1;
	MUST(cmetal_kernel_create(p, "big", &k));
	MUST(cmetal_buffer_create(dev, 256, &b));
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	MUST(cmetal_kernel_set_arg_buffer(k, 1, b));
	check_err("gpu/fake_big_slm_scratch",
	          cmetal_launch_groups(k, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){8, 1, 1}, NULL),
	          CM_GROUP_TOO_LARGE, "bytes of shared memory per CTA (231424 of SLM and",
	          "this device allows at most 232448", NULL);
	cmetal_buffer_release(b);
	cmetal_kernel_release(k);
	return cmetal_program_release(p);
}

/* A kernel with cm_wgmma (metadata "wgmma 1") runs on whole warpgroups:
 * groups of 6 CM threads, or a thread space, are refused with a message. */
static const char wgmma_src[] =
	"extern \"C\" _GENX_MAIN_ void wg(SurfaceIndex o)\n"
	"{\n"
	"	cm_slm_init(4096);\n"
	"	matrix<float, 16, 8> acc = 0;\n"
	"	acc = cm_wgmma<CM_PRECISION_HF, CM_PRECISION_HF, 8>(acc, 0, 2048);\n"
	"	write(o, 0, acc.row(0));\n"
	"}\n";

static int fake_wgmma_groups(cmetal_device *dev)
{
	cmetal_program *p;
	cmetal_kernel *k;
	cmetal_buffer *b;
	cm_status s = cmetal_program_build(dev, wgmma_src, "", &p);
	check("gpu/fake_wgmma_build", s == CM_SUCCESS, cmetal_last_error());
	if (s)
		return 1;
	MUST(cmetal_kernel_create(p, "wg", &k));
	MUST(cmetal_buffer_create(dev, 256, &b));
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	check_err("gpu/fake_wgmma_group_of_6",
	          cmetal_launch_groups(k, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){6, 1, 1}, NULL),
	          CM_INVALID_THREAD_SPACE, "a group of 6 CM threads is not whole warpgroups", NULL);
	check_err("gpu/fake_wgmma_walker", cmetal_launch_walker(k, 4, 1, CMETAL_DEP_NONE, NULL),
	          CM_INVALID_THREAD_SPACE, "uses cm_wgmma", "not as a thread space", NULL);
	check("gpu/fake_wgmma_group_of_8",
	      cmetal_launch_groups(k, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){8, 1, 1}, NULL) ==
	      CM_SUCCESS, cmetal_last_error());
	cmetal_buffer_release(b);
	cmetal_kernel_release(k);
	return cmetal_program_release(p);
}

static int fake_main(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	FakeStats *st = lib ? dlsym(lib, "fake_stats") : NULL;
	if (!st) {
		check("gpu/fake_driver_loaded", 0, "libcuda.so.1 is not the fake driver");
		return 1;
	}
	fake_metadata();
	fake_printf_format();
	fake_native_march(lib);
	cmetal_device *dev;
	MUST(cmetal_device_open("cuda", &dev));
	const char *name;
	MUST(cmetal_device_name(dev, &name));
	check("gpu/fake_open", strstr(name, "FakeGPU") && strstr(name, "sm_90"), name);
	fake_memory(dev);
	fake_launches(dev, st);
	fake_big_slm(dev);
	fake_wgmma_groups(dev);
	int *maxreg_loads = dlsym(lib, "fake_maxreg_loads");
	if (maxreg_loads)
		fake_register_cap(dev, maxreg_loads), fake_raise_cap(dev, maxreg_loads);
	else
		check("gpu/fake_maxreg_counter", 0, "the fake driver has no fake_maxreg_loads");
	MUST(cmetal_device_close(dev));
	check("gpu/fake_frees_all", st->allocs == st->frees, NULL);
	check_err("gpu/fake_bad_ordinal", cmetal_device_open("cuda:3", &dev), CM_DEVICE_NOT_FOUND,
	          "no CUDA device 3", NULL);
	MUST(cmetal_device_open("auto", &dev));
	MUST(cmetal_device_name(dev, &name));
	check("gpu/fake_auto_is_cuda", !strncmp(name, "cuda:0", 6), name);
	cmetal_device_close(dev);
	return check_failures;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_cuda host|fake WORK_DIR\n");
		return 2;
	}
	work = argv[2];
	return !strcmp(argv[1], "fake") ? fake_main() : host_main();
}
