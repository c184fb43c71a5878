/* test_pool.c — the CPU device's thread pool (src/rt/cpu/pool.c), where the
 * launching thread runs work beside the pool threads and closes the job when
 * its own call returns, so that pool threads waking late never enter it.
 *   pool_*: jobs of 0..300 items straight on a pool of 4 threads (more than
 *   this machine's cores, so some wake late): every item runs exactly once,
 *   no call of fn is still inside when cpu_pool_run returns, and no pool
 *   thread enters a job after it returned; also from 4 host threads, each
 *   with its own pool, and from 4 host threads taking turns on one pool.
 *   launch_*: 4 host threads launching short kernels on one device of 4
 *   threads ($CMETAL_CPU_THREADS), groups of 1 thread, groups of 4 threads
 *   without barriers and groups of 4 threads with barriers (fibers), each
 *   result checked.
 * Run it under ThreadSanitizer with tests/rt/run.sh build-tsan. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "rt/cpu/cpu.h"

enum { HOSTS = 4, JOBS = 400, MAXITEMS = 300 };

typedef struct {
	atomic_int next;              /* items handed out */
	int nitems;
	atomic_int runs[MAXITEMS];    /* times each item ran */
	atomic_int inside;            /* calls of fn not yet returned */
	atomic_int gone;              /* set once cpu_pool_run returned */
	atomic_int late;              /* calls that began after that */
	atomic_int calls;
} Job;

static void job_fn(void *ctx, int worker)
{
	Job *j = ctx;
	if (atomic_load(&j->gone))
		atomic_fetch_add(&j->late, 1);
	atomic_fetch_add(&j->inside, 1);
	atomic_fetch_add(&j->calls, 1);
	for (int i; (i = atomic_fetch_add(&j->next, 1)) < j->nitems;) {
		atomic_fetch_add(&j->runs[i], 1);
		for (volatile int spin = 0; spin < (i * 37 + worker) % 200; spin++)
			;
	}
	atomic_fetch_sub(&j->inside, 1);
}

/* JOBS jobs on p; the jobs stay allocated so a late call would be seen.
 * Returns "" or why not. */
static const char *pool_jobs(CpuPool *p, pthread_mutex_t *mu, unsigned seed)
{
	static _Thread_local char why[160];
	Job *jobs = calloc(JOBS, sizeof *jobs);
	if (!jobs)
		return "out of memory";
	*why = '\0';
	for (int n = 0; n < JOBS && !*why; n++) {
		Job *j = &jobs[n];
		seed = seed * 1103515245u + 12345u;
		j->nitems = (int)(seed >> 8) % (MAXITEMS + 1);
		if (mu)
			pthread_mutex_lock(mu);
		cpu_pool_run(p, job_fn, j);
		if (mu)
			pthread_mutex_unlock(mu);
		if (atomic_load(&j->inside))
			snprintf(why, sizeof why, "job %d: a call was still inside after the run", n);
		atomic_store(&j->gone, 1);
		for (int i = 0; i < j->nitems && !*why; i++)
			if (atomic_load(&j->runs[i]) != 1)
				snprintf(why, sizeof why, "job %d: item %d ran %d times", n, i,
				         atomic_load(&j->runs[i]));
		if (atomic_load(&j->calls) < 1 || atomic_load(&j->calls) > p->n)
			snprintf(why, sizeof why, "job %d: %d calls of fn on %d workers", n,
			         atomic_load(&j->calls), p->n);
	}
	/* give late threads time to show themselves, then look */
	struct timespec ts = {0, 20 * 1000 * 1000};
	nanosleep(&ts, NULL);
	for (int n = 0; n < JOBS && !*why; n++)
		if (atomic_load(&jobs[n].late))
			snprintf(why, sizeof why, "job %d: a pool thread entered after the run", n);
	free(jobs);
	return why;
}

typedef struct {
	CpuPool *p;                   /* shared pool, or NULL: one of its own */
	pthread_mutex_t *mu;          /* taken around a shared pool's runs */
	unsigned seed;
	const char *why;
} PoolHost;

static void *pool_host(void *arg)
{
	PoolHost *h = arg;
	CpuPool own;
	if (!h->p)
		cpu_pool_init(&own, 4);
	h->why = pool_jobs(h->p ? h->p : &own, h->mu, h->seed);
	if (!h->p)
		cpu_pool_fini(&own);
	return NULL;
}

static void pool_tests(void)
{
	CpuPool p;
	cpu_pool_init(&p, 4);
	const char *why = pool_jobs(&p, NULL, 1);
	check("pool_items_once_caller_waits_for_those_inside", !*why, why);
	cpu_pool_fini(&p);

	for (int shared = 0; shared < 2; shared++) {
		pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
		PoolHost h[HOSTS];
		pthread_t th[HOSTS];
		char all[400] = "";
		if (shared)
			cpu_pool_init(&p, 4);
		for (int i = 0; i < HOSTS; i++) {
			h[i] = (PoolHost){shared ? &p : NULL, shared ? &mu : NULL, 7u + (unsigned)i, ""};
			pthread_create(&th[i], NULL, pool_host, &h[i]);
		}
		for (int i = 0; i < HOSTS; i++) {
			pthread_join(th[i], NULL);
			if (*h[i].why && !*all)
				snprintf(all, sizeof all, "host thread %d: %s", i, h[i].why);
		}
		if (shared)
			cpu_pool_fini(&p);
		check(shared ? "pool_host_threads_one_pool" : "pool_host_threads_own_pools", !*all,
		      all);
	}
}

/* ---- launches on the device ---- */

static const char src[] =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void ids(SurfaceIndex o [[type(\"buffer_t\")]], int v)\n"
	"{ vector<int, 4> x = v + cm_group_id(0); write(o, 16 * cm_group_id(0), x); }\n"
	"extern \"C\" _GENX_MAIN_ void ids4(SurfaceIndex o [[type(\"buffer_t\")]], int v)\n"
	"{\n"
	"    uint t = cm_group_id(0) * 4 + cm_local_id(0);\n"
	"    vector<int, 4> x = v + cm_group_id(0) * 4 + (cm_local_id(0) + 1) % 4;\n"
	"    write(o, 16 * t, x);\n"
	"}\n"
	"extern \"C\" _GENX_MAIN_ void bar(SurfaceIndex o [[type(\"buffer_t\")]], int v)\n"
	"{\n"
	"    cm_slm_init(16);\n"
	"    uint slm = cm_slm_alloc(16);\n"
	"    uint lid = cm_local_id(0);\n"
	"    vector<uint, 8> idx = lid, got;\n"
	"    vector<int, 8> mine = v + cm_group_id(0) * 4 + lid;\n"
	"    cm_slm_write(slm, idx, mine);\n"
	"    cm_barrier();\n"
	"    idx = (lid + 1) % 4;\n"
	"    cm_slm_read(slm, idx, got);\n"
	"    vector<int, 4> x = got.select<4, 1>(0);\n"
	"    write(o, 16 * (cm_group_id(0) * 4 + lid), x);\n"
	"}\n";

static cmetal_device *dev;
static cmetal_program *prog;
static atomic_int launch_failures;

/* One host thread's launches: groups of 1 thread writing v + group,
 * groups of 4 threads without barriers writing what the ring below would,
 * and groups of 4 threads passing values round a ring through SLM
 * (fibers). */
static void *launcher(void *arg)
{
	int id = (int)(intptr_t)arg, out[64 * 4 * 4];
	cmetal_kernel *k[3] = {NULL, NULL, NULL};
	cmetal_buffer *b = NULL;
	if (cmetal_kernel_create(prog, "ids", &k[0]) || cmetal_kernel_create(prog, "ids4", &k[1]) ||
	    cmetal_kernel_create(prog, "bar", &k[2]) ||
	    cmetal_buffer_create(dev, sizeof out, &b)) {
		atomic_fetch_add(&launch_failures, 1);
		goto out;
	}
	for (int n = 0; n < 150 && !atomic_load(&launch_failures); n++) {
		int kind = n % 3, v = id * 100000 + n * 100;
		uint32_t groups = 1 + (uint32_t)(n * 7 + id) % 64, T = kind ? 4 : 1;
		cmetal_kernel *kk = k[kind];
		if (cmetal_kernel_set_arg_buffer(kk, 0, b) || cmetal_kernel_set_arg(kk, 1, 4, &v) ||
		    cmetal_launch_groups(kk, (uint32_t[3]){groups, 1, 1}, (uint32_t[3]){T, 1, 1},
		                         NULL) ||
		    cmetal_buffer_read(b, 0, 16 * groups * T, out)) {
			if (atomic_fetch_add(&launch_failures, 1) < 5)
				printf("    thread %d: %s\n", id, cmetal_last_error());
			break;
		}
		for (uint32_t g = 0; g < groups; g++)
			for (uint32_t l = 0; l < T; l++) {
				int want = kind ? v + (int)(g * 4 + (l + 1) % 4) : v + (int)g;
				if (out[(g * T + l) * 4] != want) {
					if (atomic_fetch_add(&launch_failures, 1) < 5)
						printf("    thread %d launch %d: group %u thread %u has %d, want %d\n",
						       id, n, g, l, out[(g * T + l) * 4], want);
					goto out;
				}
			}
	}
out:
	if (b)
		cmetal_buffer_release(b);
	for (int i = 0; i < 3; i++)
		if (k[i])
			cmetal_kernel_release(k[i]);
	return NULL;
}

int main(void)
{
	pool_tests();
	const char *name = getenv("CMETAL_DEVICE");
	if (name && *name && strcmp(name, "cpu") != 0)
		return check_failures != 0;
	setenv("CMETAL_CPU_THREADS", "4", 1);
	MUST(cmetal_device_open("cpu", &dev));
	MUST(cmetal_program_build(dev, src, "", &prog));
	pthread_t th[HOSTS];
	for (int i = 0; i < HOSTS; i++)
		pthread_create(&th[i], NULL, launcher, (void *)(intptr_t)i);
	for (int i = 0; i < HOSTS; i++)
		pthread_join(th[i], NULL);
	check("launch_host_threads_short_launches_and_barriers", !atomic_load(&launch_failures),
	      "a launch failed or gave a wrong result (above)");
	MUST(cmetal_program_release(prog));
	MUST(cmetal_device_close(dev));
	return check_failures != 0;
}
