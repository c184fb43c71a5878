/* test_fibers.c — groups whose threads pass values round a ring through SLM
 * between barriers (fibers on the CPU device), checked against a C model:
 * group sizes that grow the cached fiber stacks while fibers of earlier
 * launches are parked (2, 64, 8, 64), and the same launches from a second
 * host thread, so parked fibers resume on another OS thread.  On the CUDA
 * device the same kernel runs as ordinary groups.  Usage: test_fibers */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

enum { G = 5, ROUNDS = 6 };

static const char src[] =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void ring(SurfaceIndex o [[type(\"buffer_t\")]], int rounds)\n"
	"{\n"
	"    cm_slm_init(64 * 4);\n"
	"    uint slm = cm_slm_alloc(64 * 4);\n"
	"    uint lid = cm_local_id(0), T = cm_local_size(0);\n"
	"    uint v = lid + 1, acc = 0;\n"
	"    vector<uint, 8> mine = lid, next = (lid + 1) % T, got;\n"
	"    for (int r = 0; r < rounds; r++) {\n"
	"        vector<uint, 8> val = v;\n"
	"        cm_slm_write(slm, mine, val);\n"
	"        cm_barrier();\n"
	"        cm_slm_read(slm, next, got);\n"
	"        v = got(0) * 3 + r;\n"
	"        acc += v;\n"
	"        cm_barrier();\n"
	"    }\n"
	"    vector<uint, 4> out = acc;\n"
	"    write(o, (cm_group_id(0) * T + lid) * 16, out);\n"
	"}\n";

static cmetal_device *dev;
static cmetal_kernel *k;

/* The C model of one group of T threads: acc of each thread. */
static void model(uint32_t T, uint32_t *acc)
{
	uint32_t v[64], nv[64];
	for (uint32_t l = 0; l < T; l++) {
		v[l] = l + 1;
		acc[l] = 0;
	}
	for (uint32_t r = 0; r < ROUNDS; r++) {
		for (uint32_t l = 0; l < T; l++)
			nv[l] = v[(l + 1) % T] * 3 + r;
		for (uint32_t l = 0; l < T; l++) {
			v[l] = nv[l];
			acc[l] += v[l];
		}
	}
}

/* One launch of G groups of T threads; "" when right, else why not. */
static const char *run(uint32_t T)
{
	static _Thread_local char why[256];
	cmetal_buffer *b;
	uint32_t out[G * 64 * 4], want[64];
	int rounds = ROUNDS;
	if (cmetal_buffer_create(dev, sizeof out, &b))
		return cmetal_last_error();
	cm_status s = cmetal_kernel_set_arg_buffer(k, 0, b);
	if (!s)
		s = cmetal_kernel_set_arg(k, 1, sizeof rounds, &rounds);
	if (!s)
		s = cmetal_launch_groups(k, (uint32_t[3]){G, 1, 1}, (uint32_t[3]){T, 1, 1}, NULL);
	if (!s)
		s = cmetal_buffer_read(b, 0, sizeof out, out);
	cmetal_buffer_release(b);
	if (s)
		return cmetal_last_error();
	model(T, want);
	for (uint32_t i = 0; i < G * T; i++)
		if (out[i * 4] != want[i % T]) {
			snprintf(why, sizeof why, "%u threads: thread %u of group %u has %u, want %u",
			         T, i % T, i / T, out[i * 4], want[i % T]);
			return why;
		}
	return "";
}

static const uint32_t sizes[] = {2, 64, 8, 64, 1, 3};

static void run_all(const char *who)
{
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		char name[64];
		const char *why = run(sizes[i]);
		snprintf(name, sizeof name, "fibers_ring_%s_%u_threads", who, sizes[i]);
		check(name, !*why, why);
	}
}

static void *second(void *arg)
{
	run_all("other_thread");
	return arg;
}

int main(void)
{
	const char *name = getenv("CMETAL_DEVICE");
	cmetal_program *p;
	pthread_t th;
	if (cmetal_device_open(name && *name ? name : "cpu", &dev) ||
	    cmetal_program_build(dev, src, "", &p) || cmetal_kernel_create(p, "ring", &k)) {
		printf("FAIL rt/fibers_setup\n    %s\n", cmetal_last_error());
		return 1;
	}
	run_all("main");
	if (pthread_create(&th, NULL, second, NULL) == 0)
		pthread_join(th, NULL);
	else
		check("fibers_thread", 0, "pthread_create failed");
	run_all("main_again");
	cmetal_kernel_release(k);
	cmetal_program_release(p);
	cmetal_device_close(dev);
	return check_failures != 0;
}
