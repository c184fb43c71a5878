/* test_exec.c — launches on the CPU device with hand-written ABI kernels:
 * zeroed and host-aliasing buffers, 2D pitch and clamping, walker and group
 * ids, barriers + SLM, wavefront ordering, tasks, printf order, faults,
 * events, globals, atomics.  Usage: test_exec KERNEL_DIR */
#include <stdlib.h>

#include "check.h"

static cmetal_device *dev;
static cmetal_program *prog;
static char why[512];

static cmetal_kernel *kernel(const char *name)
{
	cmetal_kernel *k = NULL;
	if (cmetal_kernel_create(prog, name, &k) != CM_SUCCESS)
		printf("FAIL rt/kernel_%s\n    %s\n", name, cmetal_last_error());
	return k;
}

static int test_buffers(void)
{
	cmetal_buffer *b;
	MUST(cmetal_buffer_create(dev, 1000, &b));
	unsigned char *p;
	MUST(cmetal_buffer_map(b, (void **)&p));
	int zero = 1;
	for (int i = 0; i < 1000; i++)
		zero &= p[i] == 0;
	MUST(cmetal_buffer_unmap(b));
	check("buffer_zeroed", zero, "a new buffer has non-zero bytes");
	uint32_t in[4] = {1, 2, 3, 4}, out[4] = {0};
	MUST(cmetal_buffer_write(b, 996 - 12, 16, in));
	MUST(cmetal_buffer_read(b, 996 - 12, 16, out));
	check("buffer_write_read", memcmp(in, out, 16) == 0, NULL);
	MUST(cmetal_buffer_release(b));

	uint32_t host[8] = {0};
	cmetal_kernel *k = kernel("add");
	int v = 5;
	MUST(cmetal_buffer_create_host(dev, host, sizeof host, &b));
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	MUST(cmetal_kernel_set_arg(k, 1, 4, &v));
	MUST(cmetal_launch_walker(k, 8, 1, CMETAL_DEP_NONE, NULL));
	int ok = 1;
	for (int i = 0; i < 8; i++)
		ok &= host[i] == 5;
	check("buffer_host_alias", ok, "the kernel's writes did not reach host memory");
	MUST(cmetal_buffer_release(b));
	MUST(cmetal_kernel_release(k));
	return 0;
}

static int test_surface2d(void)
{
	cmetal_surface2d *in, *out;
	uint32_t w, h, pitch, bpp;
	MUST(cmetal_surface2d_create(dev, 13, 5, CMETAL_FMT_R32_UINT, &in));
	MUST(cmetal_surface2d_create(dev, 13, 5, CMETAL_FMT_R32_UINT, &out));
	MUST(cmetal_surface2d_info(in, &w, &h, &pitch, &bpp));
	snprintf(why, sizeof why, "w %u h %u pitch %u bpp %u", w, h, pitch, bpp);
	check("surface2d_pitch", w == 13 && h == 5 && bpp == 4 && pitch >= 52 && pitch % 64 == 0, why);
	cmetal_surface2d *fm;
	MUST(cmetal_surface2d_create(dev, 3, 3, CMETAL_FMT_R32G32B32A32F, &fm));
	MUST(cmetal_surface2d_info(fm, NULL, NULL, &pitch, &bpp));
	check("surface2d_format_bpp", bpp == 16 && pitch == 64, NULL);
	MUST(cmetal_surface2d_release(fm));
	uint32_t img[5][13], res[5][13];
	for (int y = 0; y < 5; y++)
		for (int x = 0; x < 13; x++)
			img[y][x] = (uint32_t)(y * 100 + x);
	MUST(cmetal_surface2d_write(in, img, 0));
	cmetal_kernel *k = kernel("blur2d");
	MUST(cmetal_kernel_set_arg_surface2d(k, 0, in));
	MUST(cmetal_kernel_set_arg_surface2d(k, 1, out));
	MUST(cmetal_launch_walker(k, 13, 5, CMETAL_DEP_NONE, NULL));
	MUST(cmetal_surface2d_read(out, res, 0));
	int ok = 1;
	for (int y = 0; y < 5; y++)
		for (int x = 0; x < 13; x++) {
			int xl = x ? x - 1 : 0, xr = x < 12 ? x + 1 : 12;
			int yu = y ? y - 1 : 0, yd = y < 4 ? y + 1 : 4;
			uint32_t want = img[y][xl] + img[y][xr] + img[yu][x] + img[yd][x];
			ok &= res[y][x] == want;
		}
	check("surface2d_clamped_reads", ok, "blur with clamped edges gave a wrong value");
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_surface2d_release(in));
	MUST(cmetal_surface2d_release(out));
	return 0;
}

static int test_walker_ids(void)
{
	enum { W = 37, H = 11 };
	cmetal_buffer *b;
	MUST(cmetal_buffer_create(dev, W * H * 8, &b));
	cmetal_kernel *k = kernel("walker_ids");
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	MUST(cmetal_launch_walker(k, W, H, CMETAL_DEP_NONE, NULL));
	uint32_t out[W * H * 2];
	MUST(cmetal_buffer_read(b, 0, sizeof out, out));
	int ok = 1;
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			ok &= out[(y * W + x) * 2] == (uint32_t)x && out[(y * W + x) * 2 + 1] == (uint32_t)y;
	check("walker_thread_origins", ok, NULL);
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_buffer_release(b));
	return 0;
}

static int test_group_ids(uint32_t gx, uint32_t gy, uint32_t gz, uint32_t tx, uint32_t ty, uint32_t tz)
{
	uint32_t G = gx * gy * gz, T = tx * ty * tz;
	cmetal_buffer *b;
	MUST(cmetal_buffer_create(dev, (size_t)G * T * 32, &b));
	cmetal_kernel *k = kernel("group_ids");
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	MUST(cmetal_launch_groups(k, (uint32_t[3]){gx, gy, gz}, (uint32_t[3]){tx, ty, tz}, NULL));
	uint32_t *out = malloc((size_t)G * T * 32);
	MUST(cmetal_buffer_read(b, 0, (size_t)G * T * 32, out));
	int ok = 1;
	for (uint32_t g = 0; g < G; g++)
		for (uint32_t l = 0; l < T; l++) {
			uint32_t *v = out + ((size_t)g * T + l) * 8;
			ok &= v[0] == g % gx && v[1] == g / gx % gy && v[2] == g / (gx * gy);
			ok &= v[3] == l % tx && v[4] == l / tx % ty && v[5] == l / (tx * ty);
			ok &= v[6] == T && v[7] == G;
		}
	snprintf(why, sizeof why, "group_ids_%ux%ux%u_of_%ux%ux%u", gx, gy, gz, tx, ty, tz);
	check(why, ok, "wrong group or local ids");
	free(out);
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_buffer_release(b));
	return 0;
}

static int test_reduce(uint32_t T)
{
	enum { G = 7 };
	cmetal_buffer *in, *out;
	uint32_t *data = malloc(G * T * 4), sums[G], want[G] = {0};
	for (uint32_t i = 0; i < G * T; i++) {
		data[i] = i * 3 + 1;
		want[i / T] += data[i];
	}
	MUST(cmetal_buffer_create(dev, G * T * 4, &in));
	MUST(cmetal_buffer_create(dev, G * 4, &out));
	MUST(cmetal_buffer_write(in, 0, G * T * 4, data));
	cmetal_kernel *k = kernel("reduce");
	MUST(cmetal_kernel_set_arg_buffer(k, 0, in));
	MUST(cmetal_kernel_set_arg_buffer(k, 1, out));
	MUST(cmetal_launch_groups(k, (uint32_t[3]){G, 1, 1}, (uint32_t[3]){T, 1, 1}, NULL));
	MUST(cmetal_buffer_read(out, 0, sizeof sums, sums));
	snprintf(why, sizeof why, "slm_barrier_reduce_%u_threads", T);
	check(why, memcmp(sums, want, sizeof sums) == 0, "wrong sums");
	free(data);
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_buffer_release(in));
	MUST(cmetal_buffer_release(out));
	return 0;
}

static int test_wave(cmetal_dependency dep, const char *name)
{
	enum { W = 24, H = 17 };
	cmetal_buffer *b;
	MUST(cmetal_buffer_create(dev, W * H * 4, &b));
	cmetal_kernel *k = kernel("wave");
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	MUST(cmetal_launch_walker(k, W, H, dep, NULL));
	uint32_t out[W * H];
	MUST(cmetal_buffer_read(b, 0, sizeof out, out));
	int ok = 1;
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			ok &= out[y * W + x] == (uint32_t)(x + y + 1);
	check(name, ok, "a thread ran before its dependencies signaled");
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_buffer_release(b));
	return 0;
}

static int test_chain(int vertical)
{
	enum { W = 13, H = 29 };
	cmetal_buffer *b;
	MUST(cmetal_buffer_create(dev, W * H * 4, &b));
	cmetal_kernel *k = kernel("chain");
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	MUST(cmetal_kernel_set_arg(k, 1, 4, &vertical));
	MUST(cmetal_launch_walker(k, W, H, vertical ? CMETAL_DEP_VERTICAL : CMETAL_DEP_HORIZONTAL, NULL));
	uint32_t out[W * H];
	MUST(cmetal_buffer_read(b, 0, sizeof out, out));
	int ok = 1;
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			ok &= out[y * W + x] == (uint32_t)(vertical ? y + 1 : x + 1);
	check(vertical ? "vertical_dependency_order" : "horizontal_dependency_order", ok,
	      "a thread ran before its dependency signaled");
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_buffer_release(b));
	return 0;
}

static int test_task(void)
{
	uint32_t host[16] = {0};
	cmetal_buffer *b;
	MUST(cmetal_buffer_create_host(dev, host, sizeof host, &b));
	cmetal_kernel *add = kernel("add"), *mul = kernel("mul");
	cmetal_task *t;
	MUST(cmetal_task_create(dev, &t));
	int two = 2, three = 3, ten = 10;
	MUST(cmetal_kernel_set_arg_buffer(add, 0, b));
	MUST(cmetal_kernel_set_arg_buffer(mul, 0, b));
	MUST(cmetal_kernel_set_arg(add, 1, 4, &two));
	MUST(cmetal_task_add_walker(t, add, 16, 1, CMETAL_DEP_NONE));   /* 2 */
	MUST(cmetal_task_add_sync(t));
	MUST(cmetal_kernel_set_arg(mul, 1, 4, &three));
	MUST(cmetal_task_add_walker(t, mul, 16, 1, CMETAL_DEP_NONE));   /* 6 */
	MUST(cmetal_task_add_sync(t));
	MUST(cmetal_kernel_set_arg(add, 1, 4, &ten));                    /* captured: 2 stays */
	MUST(cmetal_task_add_groups(t, add, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){1, 1, 1})); /* 16 at [0] */
	cmetal_event *ev;
	MUST(cmetal_task_run(t, &ev));
	int ok = host[0] == 16;
	for (int i = 1; i < 16; i++)
		ok &= host[i] == 6;
	snprintf(why, sizeof why, "host[0] = %u, host[1] = %u", host[0], host[1]);
	check("task_in_order_with_captured_args", ok, why);
	double ms = -1;
	MUST(cmetal_event_elapsed_ms(ev, &ms));
	check("event_elapsed_ms", ms >= 0 && ms < 10000 && cmetal_event_wait(ev) == CM_SUCCESS, NULL);
	MUST(cmetal_event_release(ev));
	MUST(cmetal_task_run(t, NULL));   /* a task runs again */
	check("task_runs_twice", host[0] == (16 + 2) * 3 + 10 && host[1] == 24, NULL);
	MUST(cmetal_task_release(t));
	MUST(cmetal_kernel_release(add));
	MUST(cmetal_kernel_release(mul));
	MUST(cmetal_buffer_release(b));
	return 0;
}

static char printed[65536];
static size_t nprinted;
static int ncalls;

static void capture(void *user, const char *text, size_t len)
{
	(void)user;
	if (nprinted + len < sizeof printed) {
		memcpy(printed + nprinted, text, len);
		nprinted += len;
	}
	ncalls++;
}

static int test_printf(void)
{
	enum { W = 20, H = 10 };
	cmetal_kernel *k = kernel("hello");
	int n = W * H;
	MUST(cmetal_kernel_set_arg(k, 0, 4, &n));
	MUST(cmetal_device_set_printf(dev, capture, NULL));
	MUST(cmetal_launch_walker(k, W, H, CMETAL_DEP_NONE, NULL));
	MUST(cmetal_device_set_printf(dev, NULL, NULL));
	char want[65536];
	size_t len = 0;
	for (int i = 0; i < W * H; i++)
		len += (size_t)snprintf(want + len, sizeof want - len, "thread %d of %d: a\nthread %d: b\n",
		                        i, n, i);
	printed[nprinted] = '\0';
	check("printf_ordered_by_thread_id", ncalls == 1 && len == nprinted && memcmp(want, printed, len) == 0,
	      printed);
	MUST(cmetal_kernel_release(k));
	return 0;
}

static int test_fault(void)
{
	uint32_t host[8] = {0};
	cmetal_buffer *b;
	MUST(cmetal_buffer_create_host(dev, host, 16, &b));   /* 4 words visible */
	cmetal_kernel *k = kernel("oob");
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	cm_status s = cmetal_launch_walker(k, 4, 1, CMETAL_DEP_NONE, NULL);
	check_err("fault_reported", s, CM_KERNEL_FAULT, "kernel 'oob' accessed out of bounds at line 77",
	          "offset 16 of a 16-byte buffer", "thread 3", NULL);
	check("fault_write_dropped", host[0] == 7 && host[2] == 7 && host[3] == 0 && host[4] == 0, NULL);
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_buffer_release(b));
	return 0;
}

static int test_mixed_args(void)
{
	cmetal_buffer *b;
	cmetal_surface2d *img;
	cmetal_svm *svm;
	MUST(cmetal_buffer_create(dev, 16, &b));
	MUST(cmetal_surface2d_create(dev, 4, 4, CMETAL_FMT_R32_SINT, &img));
	MUST(cmetal_svm_alloc(dev, 32, &svm));
	cmetal_kernel *k = kernel("mixed");
	int n = 41;
	float v[4] = {1.5f, 2.5f, 3.5f, 4.5f}, got[4];
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	MUST(cmetal_kernel_set_arg(k, 1, 4, &n));
	MUST(cmetal_kernel_set_arg_svm(k, 2, svm, 16));
	MUST(cmetal_kernel_set_arg_surface2d(k, 3, img));
	MUST(cmetal_kernel_set_arg(k, 4, sizeof v, v));
	MUST(cmetal_launch_groups(k, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){1, 1, 1}, NULL));
	int32_t bv, iv[16];
	MUST(cmetal_buffer_read(b, 0, 4, &bv));
	MUST(cmetal_svm_read(svm, 16, 16, got));
	MUST(cmetal_surface2d_read(img, iv, 0));
	check("args_scalar_vector_svm_surfaces", bv == 41 && iv[0] == 42 && memcmp(got, v, 16) == 0, NULL);
	uint32_t nargs, size;
	const char *name;
	cmetal_arg_kind kind;
	MUST(cmetal_kernel_arg_count(k, &nargs));
	MUST(cmetal_kernel_arg_info(k, 2, &name, &kind, &size));
	check("kernel_arg_info", nargs == 5 && strcmp(name, "p") == 0 && kind == CMETAL_ARG_SVM && size == 8, NULL);
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_buffer_release(b));
	MUST(cmetal_surface2d_release(img));
	MUST(cmetal_svm_free(svm));
	return 0;
}

static int test_globals_atomics(void)
{
	enum { G = 5, T = 48 };
	cmetal_buffer *b, *c;
	MUST(cmetal_buffer_create(dev, G * T * 4, &b));
	cmetal_kernel *k = kernel("globals");
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	MUST(cmetal_launch_groups(k, (uint32_t[3]){G, 1, 1}, (uint32_t[3]){T, 1, 1}, NULL));
	uint32_t out[G * T];
	MUST(cmetal_buffer_read(b, 0, sizeof out, out));
	int ok = 1;
	for (int i = 0; i < G * T; i++)
		ok &= out[i] == 2;
	check("globals_private_and_zeroed", ok, NULL);
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_buffer_release(b));

	MUST(cmetal_buffer_create(dev, 4, &c));
	k = kernel("atomic_count");
	MUST(cmetal_kernel_set_arg_buffer(k, 0, c));
	MUST(cmetal_launch_groups(k, (uint32_t[3]){100, 10, 1}, (uint32_t[3]){10, 1, 1}, NULL));
	uint32_t count;
	MUST(cmetal_buffer_read(c, 0, 4, &count));
	snprintf(why, sizeof why, "count %u, want 10000", count);
	check("atomics_across_threads", count == 10000, why);
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_buffer_release(c));
	return 0;
}

int main(int argc, char **argv)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/basic.so", argc > 1 ? argv[1] : ".");
	setenv("CMETAL_CPU_THREADS", "4", 1);   /* real concurrency even on small machines */
	MUST(cmetal_device_open("cpu", &dev));
	const char *name;
	MUST(cmetal_device_name(dev, &name));
	check("cpu_threads_from_env", strcmp(name, "cpu (4 threads)") == 0, name);
	MUST(cmetal_program_load(dev, path, &prog));
	test_buffers();
	test_surface2d();
	test_walker_ids();
	test_group_ids(3, 2, 2, 4, 2, 1);
	test_group_ids(1, 1, 1, 1, 1, 1);
	test_group_ids(2, 1, 1, 8, 8, 16);
	for (uint32_t T = 1; T <= 64; T = T < 8 ? T + 1 : T * 2)
		test_reduce(T);
	test_reduce(1024);
	test_wave(CMETAL_DEP_WAVEFRONT, "wavefront_wait_signal_order");
	test_wave(CMETAL_DEP_WAVEFRONT26, "wavefront26_wait_signal_order");
	test_chain(0);
	test_chain(1);
	test_task();
	test_printf();
	test_fault();
	test_mixed_args();
	test_globals_atomics();
	MUST(cmetal_program_release(prog));
	MUST(cmetal_device_close(dev));
	return check_failures != 0;
}
