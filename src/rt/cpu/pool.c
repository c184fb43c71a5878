/* pool.c — the CPU device's OS threads.  One job runs at a time: the caller
 * publishes fn/ctx under a new generation, every pool thread and the caller
 * itself call fn(ctx, worker), and the caller waits for all to return.  The
 * threads start on the first job so that opening a device is cheap. */
#include <stdlib.h>

#include "rt/cpu/cpu.h"

typedef struct {
	CpuPool *p;
	int id;
} PoolArg;

static void *pool_main(void *arg)
{
	PoolArg a = *(PoolArg *)arg;
	free(arg);
	CpuPool *p = a.p;
	uint64_t seen = 0;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->gen == seen && !p->quit)
			pthread_cond_wait(&p->start, &p->mu);
		if (p->quit)
			break;
		seen = p->gen;
		CpuJobFn fn = p->fn;
		void *ctx = p->ctx;
		pthread_mutex_unlock(&p->mu);
		fn(ctx, a.id);
		pthread_mutex_lock(&p->mu);
		if (--p->running == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

void cpu_pool_init(CpuPool *p, int n)
{
	*p = (CpuPool){.n = n < 1 ? 1 : n};
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
	p->running = p->n - 1;
	p->gen++;
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->mu);
	fn(ctx, 0);
	pthread_mutex_lock(&p->mu);
	while (p->running > 0)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void cpu_pool_fini(CpuPool *p)
{
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->mu);
	for (int i = 1; p->started && i < p->n; i++)
		pthread_join(p->threads[i - 1], NULL);
	free(p->threads);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->start);
	pthread_cond_destroy(&p->done);
}
