/* test_threads.c — 8 host threads share one device ($CMETAL_DEVICE, default
 * cpu): each builds programs (the compiler and the cache are shared), creates and releases
 * kernels, buffers, SVM allocations, tasks and events, launches, reads the
 * results back and checks them; they also use one shared program, kernel
 * creation from it, and one shared buffer that all read.  It runs about 2
 * seconds, or $CMETAL_SOAK_SECONDS (e.g. 60).  Run it under ThreadSanitizer
 * with tests/rt/run.sh build-tsan.  Usage: test_threads */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

#define NTHREADS 8

static const char src[] =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void fill(SurfaceIndex o [[type(\"buffer_t\")]], int v)\n"
	"{ vector<int, 8> x = v + K; write(o, 32 * cm_group_id(0), x); }\n"
	"extern \"C\" _GENX_MAIN_ void add(SurfaceIndex i [[type(\"buffer_t\")]],\n"
	"                                  SurfaceIndex o [[type(\"buffer_t\")]], int v)\n"
	"{ vector<int, 8> x; read(i, 32 * cm_group_id(0), x); write(o, 32 * cm_group_id(0), x + v); }\n"
	"extern \"C\" _GENX_MAIN_ void svmfill(svmptr_t p [[type(\"svmptr_t\")]], int v)\n"
	"{ vector<int, 8> x = v; cm_svm_block_write(p + 32 * cm_group_id(0), x); }\n";

static cmetal_device *dev;
static cmetal_program *shared_prog;    /* built with -DK=0 */
static cmetal_buffer *shared_in;       /* 4 groups of 8 ints: 1000 */
static double deadline;
static atomic_int failures, rounds;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fail(int id, const char *what, cm_status s)
{
	if (atomic_fetch_add(&failures, 1) < 10)
		printf("    thread %d: %s: %s: %s\n", id, what, cmetal_status_name(s),
		       cmetal_last_error());
}

#define TRY(call)                                                              \
	do {                                                                   \
		cm_status s_ = (call);                                         \
		if (s_) {                                                      \
			fail(id, #call, s_);                                   \
			goto out;                                              \
		}                                                              \
	} while (0)

static int expect(int id, const int *v, int n, int want, const char *what)
{
	for (int i = 0; i < n; i++)
		if (v[i] != want) {
			if (atomic_fetch_add(&failures, 1) < 10)
				printf("    thread %d: %s: element %d is %d, want %d\n", id, what, i,
				       v[i], want);
			return 1;
		}
	return 0;
}

/* One round: a program of this thread's (K = id % 3, cache hits after the
 * first), a task of two launches through a private buffer, an SVM launch,
 * and a launch of a kernel of the shared program reading the shared buffer. */
static void round_of(int id, int r)
{
	cmetal_program *p = NULL;
	cmetal_kernel *kf = NULL, *ka = NULL, *ks = NULL;
	cmetal_buffer *a = NULL, *b = NULL;
	cmetal_svm *m = NULL;
	cmetal_task *t = NULL;
	cmetal_event *e = NULL;
	char opt[32];
	int K = id % 3, v = id * 100 + r % 50, out[32];
	uint32_t g4[3] = {4, 1, 1}, one[3] = {1, 1, 1};
	snprintf(opt, sizeof opt, "-DK=%d", K);
	TRY(cmetal_program_build(dev, src, opt, &p));
	TRY(cmetal_kernel_create(p, "fill", &kf));
	TRY(cmetal_kernel_create(p, "add", &ka));
	TRY(cmetal_program_release(p));
	p = NULL;
	TRY(cmetal_buffer_create(dev, sizeof out, &a));
	TRY(cmetal_buffer_create(dev, sizeof out, &b));
	TRY(cmetal_kernel_set_arg_buffer(kf, 0, a));
	TRY(cmetal_kernel_set_arg(kf, 1, sizeof v, &v));
	TRY(cmetal_kernel_set_arg_buffer(ka, 0, a));
	TRY(cmetal_kernel_set_arg_buffer(ka, 1, b));
	TRY(cmetal_kernel_set_arg(ka, 2, sizeof v, &v));
	TRY(cmetal_task_create(dev, &t));
	TRY(cmetal_task_add_groups(t, kf, g4, one));
	TRY(cmetal_task_add_groups(t, ka, g4, one));
	TRY(cmetal_buffer_release(a));  /* the task holds it */
	a = NULL;
	TRY(cmetal_task_run(t, &e));
	TRY(cmetal_event_wait(e));
	TRY(cmetal_buffer_read(b, 0, sizeof out, out));
	if (expect(id, out, 32, 2 * v + K, "task result"))
		goto out;
	/* the shared program's "add" over the shared input */
	TRY(cmetal_kernel_create(shared_prog, "add", &ks));
	TRY(cmetal_kernel_set_arg_buffer(ks, 0, shared_in));
	TRY(cmetal_kernel_set_arg_buffer(ks, 1, b));
	TRY(cmetal_kernel_set_arg(ks, 2, sizeof v, &v));
	TRY(cmetal_launch_groups(ks, g4, one, NULL));
	TRY(cmetal_buffer_read(b, 0, sizeof out, out));
	if (expect(id, out, 32, 1000 + v, "shared kernel result"))
		goto out;
	TRY(cmetal_kernel_release(ks));
	TRY(cmetal_kernel_create(shared_prog, "svmfill", &ks));
	TRY(cmetal_svm_alloc(dev, sizeof out, &m));
	TRY(cmetal_kernel_set_arg_svm(ks, 0, m, 0));
	TRY(cmetal_kernel_set_arg(ks, 1, sizeof v, &v));
	TRY(cmetal_launch_groups(ks, g4, one, NULL));
	TRY(cmetal_svm_read(m, 0, sizeof out, out));
	expect(id, out, 32, v, "SVM result");
out:
	if (e)
		cmetal_event_release(e);
	if (t)
		cmetal_task_release(t);
	if (m)
		cmetal_svm_free(m);
	if (a)
		cmetal_buffer_release(a);
	if (b)
		cmetal_buffer_release(b);
	if (kf)
		cmetal_kernel_release(kf);
	if (ka)
		cmetal_kernel_release(ka);
	if (ks)
		cmetal_kernel_release(ks);
	if (p)
		cmetal_program_release(p);
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	for (int r = 0; now() < deadline && atomic_load(&failures) == 0; r++) {
		round_of(id, r);
		atomic_fetch_add(&rounds, 1);
	}
	return NULL;
}

int main(void)
{
	const char *env = getenv("CMETAL_SOAK_SECONDS");
	double secs = env && atof(env) > 0 ? atof(env) : 2.0;
	const char *name = getenv("CMETAL_DEVICE");
	MUST(cmetal_device_open(name && *name ? name : "cpu", &dev));
	MUST(cmetal_program_build(dev, src, "-DK=0", &shared_prog));
	int init[32];
	for (int i = 0; i < 32; i++)
		init[i] = 1000;
	MUST(cmetal_buffer_create(dev, sizeof init, &shared_in));
	MUST(cmetal_buffer_write(shared_in, 0, sizeof init, init));
	deadline = now() + secs;
	pthread_t th[NTHREADS];
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	char why[128];
	snprintf(why, sizeof why, "%d failures in %d rounds", atomic_load(&failures),
	         atomic_load(&rounds));
	check("threads_soak_8_threads_one_device",
	      atomic_load(&failures) == 0 && atomic_load(&rounds) >= NTHREADS, why);
	printf("    threads_soak: %d rounds in %.0f s\n", atomic_load(&rounds), secs);
	MUST(cmetal_buffer_release(shared_in));
	MUST(cmetal_program_release(shared_prog));
	MUST(cmetal_device_close(dev));
	return check_failures != 0;
}
