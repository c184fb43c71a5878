/* test_thread_args.c — per-thread kernel arguments
 * (cmetal_kernel_set_arg_per_thread), built from CM source on
 * $CMETAL_DEVICE (default cpu): the paper's Algorithm 2 'linear' 3x3 filter
 * with hpos/vpos given per thread, in a shuffled order, against a C
 * reference and against the same filter reading get_thread_origin_x/y;
 * a vector and a 64-bit per-thread argument; capture at task time; the
 * errors.  Also the 2D surface that aliases host memory and the device
 * caps.  Usage: test_thread_args */
#include <stdlib.h>

#include "check.h"

static cmetal_device *dev;
static cmetal_program *prog;
static char why[512];

/* Algorithm 2: one thread filters a tile of 8x6 RGB pixels (24x6 bytes). */
#define FILTER_BODY                                                             \
	"	matrix<uchar, 8, 32> in;\n"                                          \
	"	matrix<uchar, 6, 24> out;\n"                                         \
	"	matrix<float, 6, 24> m;\n"                                           \
	"	read(ibuf, hpos * 24, vpos * 6, in);\n"                              \
	"	m = in.select<6, 1, 24, 1>(1, 3);\n"                                 \
	"	m += in.select<6, 1, 24, 1>(0, 0);\n"                                \
	"	m += in.select<6, 1, 24, 1>(0, 3);\n"                                \
	"	m += in.select<6, 1, 24, 1>(0, 6);\n"                                \
	"	m += in.select<6, 1, 24, 1>(1, 0);\n"                                \
	"	m += in.select<6, 1, 24, 1>(1, 6);\n"                                \
	"	m += in.select<6, 1, 24, 1>(2, 0);\n"                                \
	"	m += in.select<6, 1, 24, 1>(2, 3);\n"                                \
	"	m += in.select<6, 1, 24, 1>(2, 6);\n"                                \
	"	out = m * 0.111f;\n"                                                 \
	"	write(obuf, hpos * 24 + 3, vpos * 6 + 1, out);\n"

static const char *source =
	"extern \"C\" _GENX_MAIN_ void linear(SurfaceIndex ibuf [[type(\"image2d_t uchar\")]],\n"
	"    SurfaceIndex obuf [[type(\"image2d_t uchar\")]], uint hpos, uint vpos)\n"
	"{\n" FILTER_BODY "}\n"
	"extern \"C\" _GENX_MAIN_ void linear_walker(SurfaceIndex ibuf [[type(\"image2d_t uchar\")]],\n"
	"    SurfaceIndex obuf [[type(\"image2d_t uchar\")]])\n"
	"{\n"
	"	uint hpos = get_thread_origin_x(), vpos = get_thread_origin_y();\n"
	FILTER_BODY "}\n"
	"extern \"C\" _GENX_MAIN_ void vec(SurfaceIndex out [[type(\"buffer_t\")]],\n"
	"    vector<int, 4> v, long long w, int slot)\n"
	"{\n"
	"	vector<int, 8> r;\n"
	"	r.select<4, 1>(0) = v * 3;\n"
	"	r.select<2, 1>(4) = vector<int, 2>(w & 0xffffffff);\n"
	"	r.select<2, 1>(6) = vector<int, 2>(w >> 32);\n"
	"	write(out, slot * 32, r);\n"
	"}\n";

/* The filter in C: thread (tx, ty) of the walker, edge-clamped reads,
 * writes outside the image dropped. */
static void filter_ref(const unsigned char *in, unsigned char *out, int W, int H, int tx,
                       int ty)
{
	for (int r = 0; r < 6; r++)
		for (int c = 0; c < 24; c++) {
			int sum = 0;
			for (int dy = 0; dy < 3; dy++)
				for (int dx = 0; dx < 3; dx++) {
					int y = ty * 6 + r + dy, x = tx * 24 + c + dx * 3;
					y = y < H ? y : H - 1;
					x = x < W ? x : W - 1;
					sum += in[y * W + x];
				}
			int oy = ty * 6 + 1 + r, ox = tx * 24 + 3 + c;
			if (oy < H && ox < W)
				out[oy * W + ox] = (unsigned char)(int)((float)sum * 0.111f);
		}
}

static cmetal_kernel *kernel(const char *name)
{
	cmetal_kernel *k = NULL;
	if (cmetal_kernel_create(prog, name, &k) != CM_SUCCESS)
		printf("FAIL rt/kernel_%s\n    %s\n", name, cmetal_last_error());
	return k;
}

static double run_ms(cmetal_kernel *k, uint32_t nx, uint32_t ny)
{
	cmetal_event *ev = NULL;
	double ms = -1;
	if (cmetal_launch_walker(k, nx, ny, CMETAL_DEP_NONE, &ev) == CM_SUCCESS)
		cmetal_event_elapsed_ms(ev, &ms);
	if (ev)
		cmetal_event_release(ev);
	return ms;
}

/* The filter with per-thread hpos/vpos, threads given tiles in a shuffled
 * order; then the walker version; both against the reference. */
static int test_linear(uint32_t nx, uint32_t ny, int timed)
{
	int W = (int)nx * 24, H = (int)ny * 6, n = (int)(nx * ny);
	unsigned char *img = malloc((size_t)W * H), *ref = calloc((size_t)W * H, 1);
	unsigned char *got = malloc((size_t)W * H);
	uint32_t *hpos = malloc(n * 4u), *vpos = malloc(n * 4u);
	int *perm = malloc(n * sizeof *perm);
	for (int i = 0; i < W * H; i++)
		img[i] = (unsigned char)(i * 37 + i / W * 11);
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)((unsigned)(i * 7919 + 13) % (unsigned)(i + 1)), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (int t = 0; t < n; t++) {
		hpos[t] = (uint32_t)perm[t] % nx;
		vpos[t] = (uint32_t)perm[t] / nx;
	}
	for (int ty = 0; ty < (int)ny; ty++)
		for (int tx = 0; tx < (int)nx; tx++)
			filter_ref(img, ref, W, H, tx, ty);
	cmetal_surface2d *si, *so;
	MUST(cmetal_surface2d_create(dev, (uint32_t)W, (uint32_t)H, CMETAL_FMT_R8_UINT, &si));
	MUST(cmetal_surface2d_create(dev, (uint32_t)W, (uint32_t)H, CMETAL_FMT_R8_UINT, &so));
	MUST(cmetal_surface2d_write(si, img, 0));
	cmetal_kernel *k = kernel("linear"), *kw = kernel("linear_walker");
	if (!k || !kw)
		return 1;
	MUST(cmetal_kernel_set_arg_surface2d(k, 0, si));
	MUST(cmetal_kernel_set_arg_surface2d(k, 1, so));
	MUST(cmetal_kernel_set_arg_per_thread(k, 2, (uint32_t)n, 4, hpos));
	MUST(cmetal_kernel_set_arg_per_thread(k, 3, (uint32_t)n, 4, vpos));
	MUST(cmetal_launch_walker(k, nx, ny, CMETAL_DEP_NONE, NULL));
	MUST(cmetal_surface2d_read(so, got, 0));
	char name[64];
	snprintf(name, sizeof name, "thread_args_linear_%ux%u", nx, ny);
	int bad = -1;
	for (int i = 0; i < W * H && bad < 0; i++)
		if (got[i] != ref[i])
			bad = i;
	snprintf(why, sizeof why, "byte (%d, %d): got %d, want %d", bad % W, bad / W,
	         bad >= 0 ? got[bad] : 0, bad >= 0 ? ref[bad] : 0);
	check(name, bad < 0, why);

	unsigned char *zero = calloc((size_t)W * H, 1);
	MUST(cmetal_surface2d_write(so, zero, 0));
	MUST(cmetal_kernel_set_arg_surface2d(kw, 0, si));
	MUST(cmetal_kernel_set_arg_surface2d(kw, 1, so));
	MUST(cmetal_launch_walker(kw, nx, ny, CMETAL_DEP_NONE, NULL));
	MUST(cmetal_surface2d_read(so, got, 0));
	snprintf(name, sizeof name, "thread_args_linear_walker_%ux%u", nx, ny);
	check(name, memcmp(got, ref, (size_t)W * H) == 0, "the walker version differs");
	if (timed) {
		/* the per-thread version should cost what the walker one does:
		 * reported, not checked (a shared machine's timings vary) */
		double a = 1e30, b = 1e30;
		for (int r = 0; r < 5; r++) {
			double x = run_ms(k, nx, ny), y = run_ms(kw, nx, ny);
			a = x < a ? x : a;
			b = y < b ? y : b;
		}
		printf("    (%ux%u threads: per-thread args %.3f ms, walker origin %.3f ms)\n",
		       nx, ny, a, b);
	}
	free(zero);
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_kernel_release(kw));
	MUST(cmetal_surface2d_release(si));
	MUST(cmetal_surface2d_release(so));
	free(img), free(ref), free(got), free(hpos), free(vpos), free(perm);
	return 0;
}

/* A vector and a 64-bit argument per thread, plus one shared value; the
 * table is captured when the task entry is added. */
static int test_vector_args(void)
{
	enum { N = 12 };
	int32_t v[N][4], slot[N];
	int64_t w[N];
	for (int t = 0; t < N; t++) {
		for (int j = 0; j < 4; j++)
			v[t][j] = t * 10 + j;
		w[t] = ((int64_t)(t + 1) << 32) | (uint32_t)(1000 + t);
		slot[t] = N - 1 - t;
	}
	cmetal_buffer *out;
	MUST(cmetal_buffer_create(dev, N * 32, &out));
	cmetal_kernel *k = kernel("vec");
	if (!k)
		return 1;
	MUST(cmetal_kernel_set_arg_buffer(k, 0, out));
	MUST(cmetal_kernel_set_arg_per_thread(k, 1, N, 16, v));
	int64_t one = 7;
	MUST(cmetal_kernel_set_arg(k, 2, 8, &one));
	MUST(cmetal_kernel_set_arg_per_thread(k, 2, N, 8, w));
	MUST(cmetal_kernel_set_arg_per_thread(k, 3, N, 4, slot));
	cmetal_task *task;
	MUST(cmetal_task_create(dev, &task));
	MUST(cmetal_task_add_walker(task, k, 4, 3, CMETAL_DEP_NONE));
	memset(v, 0, sizeof v);   /* captured already: no effect */
	MUST(cmetal_kernel_set_arg_per_thread(k, 1, N, 16, v));
	MUST(cmetal_task_run(task, NULL));
	int32_t got[N][8];
	MUST(cmetal_buffer_read(out, 0, sizeof got, got));
	int ok = 1;
	for (int t = 0; t < N; t++) {
		const int32_t *r = got[N - 1 - t];
		for (int j = 0; j < 4; j++)
			ok &= r[j] == (t * 10 + j) * 3;
		ok &= r[4] == 1000 + t && r[5] == 1000 + t && r[6] == t + 1 && r[7] == t + 1;
	}
	check("thread_args_vector_long_captured", ok, "a thread read another thread's values");
	MUST(cmetal_task_release(task));

	/* set_arg makes the argument shared again */
	int32_t same[4] = {1, 2, 3, 4};
	MUST(cmetal_kernel_set_arg(k, 1, 16, same));
	MUST(cmetal_launch_walker(k, 4, 3, CMETAL_DEP_NONE, NULL));
	MUST(cmetal_buffer_read(out, 0, sizeof got, got));
	ok = 1;
	for (int t = 0; t < N; t++)
		for (int j = 0; j < 4; j++)
			ok &= got[t][j] == (j + 1) * 3;
	check("thread_args_set_arg_makes_shared", ok, NULL);

	uint32_t groups[3] = {12, 1, 1}, threads[3] = {1, 1, 1};
	check_err("thread_args_group_launch_refused", cmetal_launch_groups(k, groups, threads, NULL),
	          CM_INVALID_THREAD_SPACE, "argument 2 'w' of kernel 'vec' has per-thread values",
	          "thread-group launch", NULL);
	check_err("thread_args_count_mismatch", cmetal_launch_walker(k, 5, 3, CMETAL_DEP_NONE, NULL),
	          CM_INVALID_THREAD_SPACE, "per-thread values for 12 threads",
	          "the thread space 5x3 has 15", NULL);
	check_err("thread_args_surface_refused",
	          cmetal_kernel_set_arg_per_thread(k, 0, N, 4, slot), CM_INVALID_ARG_KIND,
	          "is a SurfaceIndex; got per-thread values", NULL);
	check_err("thread_args_bad_size", cmetal_kernel_set_arg_per_thread(k, 3, N, 8, w),
	          CM_INVALID_ARG_SIZE, "argument 3 'slot'", "per-thread values of 8 bytes", NULL);
	check_err("thread_args_null_values", cmetal_kernel_set_arg_per_thread(k, 3, N, 4, NULL),
	          CM_INVALID_VALUE, "the values pointer is NULL", NULL);
	check_err("thread_args_zero_threads", cmetal_kernel_set_arg_per_thread(k, 3, 0, 4, slot),
	          CM_INVALID_VALUE, "per-thread values for 0 threads", NULL);
	check_err("thread_args_bad_index", cmetal_kernel_set_arg_per_thread(k, 4, N, 4, slot),
	          CM_INVALID_ARG_INDEX, "index 4 is out of range", NULL);
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_buffer_release(out));
	return 0;
}

/* A 2D surface over host memory with the runtime's pitch, and with one of
 * the host's choosing. */
static int test_surface_host(void)
{
	uint32_t pitch = 0;
	MUST(cmetal_surface2d_pitch(100, CMETAL_FMT_R8_UINT, &pitch));
	check("surface2d_pitch", pitch == 128, "the pitch of 100 bytes is not 128");
	enum { NX = 2, NY = 2, W = NX * 24, H = NY * 6, P = 80 };
	unsigned char in[H * P], out[H * P], ref[W * H] = {0}, img[W * H];
	memset(in, 0xEE, sizeof in);
	memset(out, 0x55, sizeof out);
	for (int i = 0; i < W * H; i++)
		img[i] = in[i / W * P + i % W] = (unsigned char)(i * 13);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			if (y == 0 || x < 3)
				ref[y * W + x] = 0x55;  /* the filter writes from (3, 1) */
	for (int ty = 0; ty < NY; ty++)
		for (int tx = 0; tx < NX; tx++)
			filter_ref(img, ref, W, H, tx, ty);
	cmetal_surface2d *si, *so;
	MUST(cmetal_surface2d_create_host(dev, in, W, H, CMETAL_FMT_R8_UINT, P, &si));
	MUST(cmetal_surface2d_create_host(dev, out, W, H, CMETAL_FMT_R8_UINT, P, &so));
	uint32_t got_pitch = 0;
	MUST(cmetal_surface2d_info(si, NULL, NULL, &got_pitch, NULL));
	check("surface2d_host_pitch", got_pitch == P, NULL);
	cmetal_kernel *k = kernel("linear_walker");
	if (!k)
		return 1;
	MUST(cmetal_kernel_set_arg_surface2d(k, 0, si));
	MUST(cmetal_kernel_set_arg_surface2d(k, 1, so));
	MUST(cmetal_launch_walker(k, NX, NY, CMETAL_DEP_NONE, NULL));
	int ok = 1;
	for (int y = 0; y < H; y++) {
		ok &= !memcmp(out + y * P, ref + y * W, W);
		for (int x = W; x < P; x++)
			ok &= out[y * P + x] == 0x55;   /* padding untouched */
	}
	check("surface2d_host_alias", ok, "the filter's output in host memory is wrong");
	check_err("surface2d_host_small_pitch",
	          cmetal_surface2d_create_host(dev, in, W, H, CMETAL_FMT_R8_UINT, W - 1, &si),
	          CM_INVALID_VALUE, "pitch 47 is less than a row", NULL);
	check_err("surface2d_host_null",
	          cmetal_surface2d_create_host(dev, NULL, W, H, CMETAL_FMT_R8_UINT, 0, &si),
	          CM_INVALID_VALUE, "the host pointer is NULL", NULL);
	check_err("surface2d_pitch_bad_format", cmetal_surface2d_pitch(4, (cmetal_format)77, &pitch),
	          CM_INVALID_FORMAT, "bad surface format 77", NULL);
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_surface2d_release(si));
	MUST(cmetal_surface2d_release(so));
	return 0;
}

static int test_caps(void)
{
	cmetal_device_caps caps;
	MUST(cmetal_device_get_caps(dev, &caps));
	snprintf(why, sizeof why, "threads %u, group %u, slm %u, walker %u", caps.threads,
	         caps.max_group_threads, caps.slm_size, caps.max_walker);
	check("device_caps", caps.threads >= 1 && caps.max_group_threads >= 32 &&
	      (caps.is_gpu ? caps.slm_size >= 48 * 1024 : caps.slm_size == 232448) && caps.max_walker == 65535 &&
	      caps.host_svm == !caps.is_gpu, why);
	check_err("device_caps_null", cmetal_device_get_caps(dev, NULL), CM_INVALID_VALUE,
	          "the output pointer is NULL", NULL);
	return 0;
}

int main(void)
{
	const char *d = getenv("CMETAL_DEVICE");
	MUST(cmetal_device_open(d && *d ? d : "cpu", &dev));
	if (cmetal_program_build(dev, source, "", &prog) != CM_SUCCESS) {
		printf("FAIL rt/thread_args_build\n    %s\n", cmetal_last_error());
		return 1;
	}
	test_linear(1, 1, 0);
	test_linear(10, 7, 0);
	test_linear(80, 90, 1);
	test_vector_args();
	test_surface_host();
	test_caps();
	MUST(cmetal_program_release(prog));
	MUST(cmetal_device_close(dev));
	return check_failures != 0;
}
