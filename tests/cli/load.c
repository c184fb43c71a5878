/* load.c — loads a binary of `cmetal -c` with cmetal_program_load:
 *   load DEVICE FILE
 * and runs its kernel twice(SurfaceIndex) on 8 ints (every element must
 * double), or, on a fake CUDA driver (tests/gpu/fake_cuda.c, which runs
 * nothing), checks the kernel is there and says whether the driver was
 * given a cubin.  Prints "loaded N kernels: NAMES", the build log, and
 * "doubled" or "cubin loaded"/"ptx loaded"; exit 1 with the error. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cmetal.h"

#define TRY(call)                                                              \
	do {                                                                   \
		if ((call) != CM_SUCCESS) {                                    \
			printf("%s: %s\n", #call, cmetal_last_error());         \
			return 1;                                              \
		}                                                              \
	} while (0)

int main(int argc, char **argv)
{
	cmetal_device *dev;
	cmetal_program *prog;
	cmetal_kernel *k;
	cmetal_buffer *buf;
	uint32_t n;
	const char *name, *log;
	if (argc != 3)
		return 2;
	TRY(cmetal_device_open(argv[1], &dev));
	TRY(cmetal_program_load(dev, argv[2], &prog));
	TRY(cmetal_program_kernel_count(prog, &n));
	printf("loaded %u kernels:", n);
	for (uint32_t i = 0; i < n; i++) {
		TRY(cmetal_program_kernel_name(prog, i, &name));
		printf(" %s", name);
	}
	TRY(cmetal_program_build_log(prog, &log));
	printf("\n%s", log);
	TRY(cmetal_kernel_create(prog, "twice", &k));
	int *cubins = dlsym(dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD), "fake_cubin_loads");
	if (!strcmp(argv[1], "cuda") && cubins) {
		printf("%s loaded\n", *cubins ? "cubin" : "ptx");
		return 0;
	}
	int data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	TRY(cmetal_buffer_create(dev, sizeof data, &buf));
	TRY(cmetal_buffer_write(buf, 0, sizeof data, data));
	TRY(cmetal_kernel_set_arg_buffer(k, 0, buf));
	TRY(cmetal_launch_groups(k, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){1, 1, 1}, NULL));
	TRY(cmetal_buffer_read(buf, 0, sizeof data, data));
	for (int i = 0; i < 8; i++)
		if (data[i] != 2 * (i + 1)) {
			printf("element %d is %d, expected %d\n", i, data[i], 2 * (i + 1));
			return 1;
		}
	printf("doubled\n");
	return 0;
}
