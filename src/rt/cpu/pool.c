/* pool.c — the CPU device's OS threads.  One job runs at a time: the caller
 * publishes fn/ctx under a new generation, wakes the pool threads and calls
 * fn(ctx, 0) itself; a pool thread that wakes while the job is still open
 * enters it and calls fn(ctx, worker).  fn takes work from a shared counter
 * until none is left, so the job is done when every caller of fn has
 * returned.  When the caller's fn returns it closes the job: pool threads
 * that have not entered by then never will (they go back to sleep), and the
 * caller waits only for those inside.  The threads start on the first job so
 * that opening a device is cheap.
 *
 * Why a late thread is shut out rather than waited for: waking a thread
 * sleeping on a condition variable costs several microseconds (a futex
 * wake, then the scheduler), on a busy VM up to milliseconds (the old pool's
 * worker once took no group of a 1.7 ms spmv launch), more than a short
 * launch's whole run, and programs launch kernels back to back (one launch
 * per bitonic pass, per scan level).  A launch that waited for every pool
 * thread to check in (this pool until 2026-11-27) paid the wake-up even
 * when the caller had done all the work: 64 empty groups took 9-43 us,
 * now 2.6-3.4 us (bench/cpu/launch.c, 2 cores).  With a busy loop beside
 * it, bitonic 2^16 (a launch per pass) went from 2.17 to 1.88 ms and the
 * one-launch scan-f32 2^20 from 0.97 to 0.55-0.60; on a quieter machine
 * the difference was within the noise.  Nothing spins by default.
 *
 * With $CMETAL_CPU_SPIN_US set, both sides spin that long on the atomic
 * generation / entered count before they sleep, so a launch that follows
 * another within that time starts without a wake-up.  That pays only when
 * the device's threads have cores to themselves: on a machine with more
 * runnable threads than cores a spinning thread takes the core from the one
 * it waits for (bitonic on 2 loaded cores: 25 ms without spinning, 75-360 ms
 * with 20 us), so the default is not to spin.  The price shows in short
 * launches on a quiet machine: spmv webbase/16 (bench, 2 cores, about 0.2
 * ms of work) ran 0.37 ms with the caller alone (the pool thread woke too
 * late to take a group), 0.18 with $CMETAL_CPU_SPIN_US=50 (2026-11-27).
 *
 * Why the pool thread takes nothing of a short launch (2026-11-28, a
 * 2-vCPU Intel Xeon KVM guest, Linux 6.18 booted with sched_vcpu_pack=15,
 * no cpuidle driver; traced with sched_getcpu at the wake-up and the
 * chunks each worker took): it is mostly not woken late but woken on the
 * caller's CPU while the other is idle (the kernel packs wakees onto busy
 * vCPUs).  There it either preempts the caller and does the whole launch
 * (the caller takes 0 of protein/16's 18 chunks) or waits behind it (wakes
 * after 300-450 us, the launch done); the thread then sleeps on that CPU,
 * so the next wake-up lands there again, for whole runs.  Per cmbench
 * spmv run (67 launches): both workers 17-35, caller only 15-27, pool
 * thread only 14-28 in such phases; 67/67 both in others.  Pinning (pool
 * thread to CPU 1, caller to CPU 0, a test only) gave protein/16
 * 0.165-0.172 ms in 3 runs against 0.31/0.20/0.16 unpinned, webbase/16
 * 0.46-0.47 against 0.88/0.47/0.47.  Tried and not kept (A = this pool,
 * medians, A and the change alternated in the same runs):
 *   - keeping the pool threads off the caller's CPU (their affinity set
 *     to the caller's less its CPU, again only when the caller moved: 16
 *     of bitonic's 802 launches): no launch ran on the pool thread alone
 *     any more, but 14-35 of 67 still on the caller alone in noisy phases
 *     (the pool thread still woke too late; not traced further); quiet
 *     spmv, 20 rounds: protein/16 0.304 (A) vs 0.325 ms, webbase/16 0.81
 *     vs 0.90 (PoCL 0.37 and 0.96 in the same rounds: A already ahead on
 *     this machine).  With two busy loops
 *     beside it the pool thread now joined launches on a shared CPU:
 *     scan-i32 2^20 one launch (cm-cpu) 0.91 -> 2.87 ms, scan-f32 1.05 ->
 *     2.64, the multi-launch scans 3.2 -> 6.6 and 2.9 -> 6.9, bitonic 2^16
 *     14.5 -> 15.3 (10 rounds), even with the threads let loose for 100
 *     ms after one lost its CPU inside a job (wall minus thread CPU time):
 *     such losses were seen in 1-2 of 72 launches, not enough to tell.
 *   - the same, only while /proc/pressure/cpu showed threads waiting for
 *     a CPU less than 5% of the last 10 ms: two busy loops, 6 rounds,
 *     scan-f32 multi-launch still 2.79 -> 5.57 ms (up to 17), cm-cpu 1.02
 *     -> 1.22; and /proc/loadavg's runnable count is no guide here (3-4
 *     on the idle guest).
 *   - a pool thread that wakes on the CPU the caller published the job
 *     from stays out of it (it can only share that CPU with the caller;
 *     sched_getcpu at both ends, 2026-11-28): six alternating rounds,
 *     medians A (this pool) against it, protein/16 0.273 vs 0.273 ms,
 *     webbase/16 0.842 vs 0.841, k-means D4-K16 iter 3.37 vs 3.40, scan-i32
 *     `cm-cpu` 0.647 vs 0.628, bitonic 6.65 vs 6.33 (spreads of 1.5-2x
 *     in both): nothing the noise does not cover.
 * So the policy stays: sleep at once, never wait for a late thread. */
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "rt/cpu/cpu.h"

#define POOL_SPIN_NS 0   /* default: sleep at once (see above) */

typedef struct {
	CpuPool *p;
	int id;
} PoolArg;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spins while (*v == x) == eq, at most p->spin_ns; true when that ended. */
static bool spin_while(const CpuPool *p, _Atomic uint64_t *v, uint64_t x, bool eq)
{
	uint64_t t0 = 0;
	if (!p->spin_ns)
		return (atomic_load_explicit(v, memory_order_acquire) == x) != eq;
	for (unsigned i = 1;; i++) {
		if ((atomic_load_explicit(v, memory_order_acquire) == x) != eq)
			return true;
		if (i > 64)          /* the CPU may be oversubscribed: let others run */
			sched_yield();
		if (i % 64 == 0) {   /* the clock is read rarely: ~20 ns a read */
			uint64_t t = now_ns();
			if (!t0)
				t0 = t;
			else if (t - t0 > p->spin_ns)
				return false;
		}
	}
}

/* The job word (CpuPool.job): its generation's low 32 bits above
 * JOB_CLOSED, and below it how many pool threads are inside. */
#define JOB_CLOSED (1ull << 31)
#define JOB_INSIDE (JOB_CLOSED - 1)

static uint64_t job_word(uint64_t gen)
{
	return (gen & 0xffffffffu) << 32;
}

/* Enters the job of generation gen unless the caller has closed it (or
 * started a later one); true when entered. */
static bool job_enter(CpuPool *p, uint64_t gen)
{
	uint64_t s = atomic_load_explicit(&p->job, memory_order_relaxed);
	for (;;) {
		if ((s & ~JOB_INSIDE) != job_word(gen))
			return false;
		if (atomic_compare_exchange_weak_explicit(&p->job, &s, s + 1, memory_order_acquire,
		                                          memory_order_relaxed))
			return true;
	}
}

/* Leaves the job; the last one out of a closed job wakes the caller. */
static void job_leave(CpuPool *p)
{
	uint64_t s = atomic_fetch_sub_explicit(&p->job, 1, memory_order_acq_rel);
	if ((s & JOB_CLOSED) && (s & JOB_INSIDE) == 1) {
		pthread_mutex_lock(&p->mu);   /* the caller may sleep on done */
		pthread_cond_signal(&p->done);
		pthread_mutex_unlock(&p->mu);
	}
}

static void *pool_main(void *arg)
{
	PoolArg a = *(PoolArg *)arg;
	free(arg);
	CpuPool *p = a.p;
	uint64_t seen = 0;
	for (;;) {
		if (!spin_while(p, &p->gen, seen, true)) {
			pthread_mutex_lock(&p->mu);
			while (atomic_load(&p->gen) == seen && !p->quit)
				pthread_cond_wait(&p->start, &p->mu);
			pthread_mutex_unlock(&p->mu);
		}
		pthread_mutex_lock(&p->mu);   /* fn/ctx/quit are published under mu */
		bool quit = p->quit;
		CpuJobFn fn = p->fn;
		void *ctx = p->ctx;
		seen = atomic_load(&p->gen);
		pthread_mutex_unlock(&p->mu);
		if (quit)
			break;
		if (job_enter(p, seen)) {
			fn(ctx, a.id);
			job_leave(p);
		}
	}
	return NULL;
}

void cpu_pool_init(CpuPool *p, int n)
{
	*p = (CpuPool){.n = n < 1 ? 1 : n, .spin_ns = POOL_SPIN_NS};
	const char *env = getenv("CMETAL_CPU_SPIN_US");
	if (env && *env)
		p->spin_ns = (uint64_t)strtoul(env, NULL, 10) * 1000u;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->start, NULL);
	pthread_cond_init(&p->done, NULL);
}

/* Starts the pool threads; on failure runs with fewer workers. */
static void pool_start(CpuPool *p)
{
	p->started = true;
	p->threads = calloc((size_t)p->n, sizeof *p->threads);
	int ok = 1;
	for (int i = 1; i < p->n && p->threads; i++) {
		PoolArg *a = malloc(sizeof *a);
		if (!a)
			break;
		*a = (PoolArg){p, i};
		if (pthread_create(&p->threads[i - 1], NULL, pool_main, a) != 0) {
			free(a);
			break;
		}
		ok++;
	}
	p->n = ok;
}

void cpu_pool_run(CpuPool *p, CpuJobFn fn, void *ctx)
{
	pthread_mutex_lock(&p->mu);
	if (!p->started)
		pool_start(p);
	p->fn = fn;
	p->ctx = ctx;
	uint64_t gen = atomic_load(&p->gen) + 1;
	atomic_store(&p->job, job_word(gen));   /* open, nobody inside */
	atomic_store(&p->gen, gen);
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->mu);
	fn(ctx, 0);
	/* close the job, then wait for the pool threads inside to leave */
	uint64_t closed = job_word(gen) | JOB_CLOSED;
	uint64_t s = atomic_fetch_or_explicit(&p->job, JOB_CLOSED, memory_order_acq_rel);
	if (!(s & JOB_INSIDE) || spin_while(p, &p->job, closed, false))
		return;
	pthread_mutex_lock(&p->mu);
	while (atomic_load(&p->job) != closed)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void cpu_pool_fini(CpuPool *p)
{
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	atomic_fetch_add(&p->gen, 1);
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->mu);
	for (int i = 1; p->started && i < p->n; i++)
		pthread_join(p->threads[i - 1], NULL);
	free(p->threads);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->start);
	pthread_cond_destroy(&p->done);
}
