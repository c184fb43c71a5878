/* batch.c — running a task's entries on the GPU (RtDeviceOps.run_batch):
 * the launches are enqueued on the device's stream back to back and the
 * host synchronizes once, after the last one, instead of after each.
 *
 * A batch holds the device's run_mu from its first enqueue to its last
 * result, so two threads' tasks interleave only between batches, when
 * nothing is in flight.  It ends
 *   - after a launch the host must wait for before anything else runs
 *     (CudaQueued.host_after: a kernel that prints, whose records are
 *     read and formatted; one bound to a host-aliasing buffer, copied
 *     back into the user's memory; one built with -fbounds-check, whose
 *     fault stops the task before the next entry runs), so the common
 *     layer emits that printf text or fault before the next entry runs,
 *     as on the CPU device;
 *   - after CUDA_BATCH_MAX launches (the fault record slots and event
 *     pairs it has);
 *   - at a launch that cannot launch (its error is reported once the
 *     launches before it are complete; later entries are not launched);
 *   - at the end of the entries given.
 * Sync entries need nothing: one stream runs its launches in order.
 *
 * What the host hands the stream must stay as it is until the copy runs:
 * launch blocks are staged in pinned memory kept until the batch's
 * synchronization (cuda_stage); per-thread tables come from the task's
 * captured arguments, kept until the task returns; kernel parameters are
 * copied by the driver at the call.  Device memory that a launch outgrows
 * (cm_wait flags, per-thread tables) and staging memory that fills up are
 * freed after the synchronization (cuda_free_later), since launches still
 * in flight may use them.
 *
 * Results come after the synchronization: each launch's kernel time (its
 * own event pair), its fault record (its own slot, so a fault names its
 * entry whatever ran after it) and its printf text.  A kernel that fails
 * while running is reported at the synchronization: by name when the
 * batch launched one kernel, else as one of the kernels of the batch (the
 * driver does not say which), and a sticky error loses the context as a
 * single launch's does.
 *
 * requires: launch.c (cuda_enqueue, cuda_finish); the caller holds the
 * device lock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/cuda/cuda.h"

#define STAGE_MIN ((size_t)4 << 10)   /* bytes of the first staging area */

bool cuda_slot_events(CudaDevice *c, uint32_t slot)
{
	for (uint32_t i = 2 * slot; i < 2 * slot + 2; i++)
		if (!c->ev[i] && c->cu->EventCreate(&c->ev[i], 0) != CUDA_SUCCESS) {
			c->ev[i] = NULL;
			return false;
		}
	return true;
}

/* Records memory to free after the batch; false when out of memory. */
static bool defer(CudaDevice *c, CUdeviceptr dev, void *host)
{
	if (c->ndefer == c->defer_cap) {
		uint32_t cap = c->defer_cap ? 2 * c->defer_cap : 16;
		CudaDefer *d = realloc(c->defer, sizeof *d * cap);
		if (!d)
			return false;
		c->defer = d;
		c->defer_cap = cap;
	}
	c->defer[c->ndefer++] = (CudaDefer){dev, host};
	return true;
}

void cuda_free_later(CudaDevice *c, CUdeviceptr p)
{
	if (defer(c, p, NULL))
		return;
	c->cu->StreamSynchronize(c->stream);   /* no room to remember it: wait */
	c->cu->MemFree(p);
}

const void *cuda_stage(CudaDevice *c, const void *src, size_t n)
{
	size_t at = (c->stage_used + 15) / 16 * 16;
	if (!c->stage || at + n > c->stage_cap) {
		size_t cap = c->stage_cap ? 2 * c->stage_cap : STAGE_MIN;
		cap = cap < n ? n : cap;
		void *h = NULL;
		CUresult r = c->cu->MemHostAlloc(&h, cap, 0);
		if (r) {
			rt_fail(CM_OUT_OF_MEMORY, "cannot allocate %zu bytes of pinned host memory "
			        "for uploads to the GPU: %s", cap, cu_errtext(r));
			return NULL;
		}
		if (c->stage && !defer(c, 0, c->stage)) {
			c->cu->MemFreeHost(h);
			rt_fail(CM_OUT_OF_MEMORY, "out of memory");
			return NULL;
		}
		c->stage = h;
		c->stage_cap = cap;
		at = 0;
	}
	memcpy(c->stage + at, src, n);
	c->stage_used = at + n;
	return c->stage + at;
}

/* After the synchronization: the deferred frees, and the staging area
 * free for the next batch. */
static void end_batch(CudaDevice *c)
{
	for (uint32_t i = 0; i < c->ndefer; i++) {
		if (c->defer[i].dev)
			c->cu->MemFree(c->defer[i].dev);
		if (c->defer[i].host)
			c->cu->MemFreeHost(c->defer[i].host);
	}
	c->ndefer = 0;
	c->stage_used = 0;
}

void cuda_batch_release(CudaDevice *c)
{
	end_batch(c);
	if (c->stage)
		c->cu->MemFreeHost(c->stage);
	c->stage = NULL;
	free(c->defer);
	c->defer = NULL;
}

/* Who a failure at the synchronization is about: the kernel of the one
 * entry sent, or the names of the kernels of the batch. */
static void batch_who(RtLaunch *const *sent, uint32_t n, char *out, size_t cap)
{
	if (n == 1) {
		snprintf(out, cap, "kernel '%s'", sent[0]->info->name);
		return;
	}
	size_t len = (size_t)snprintf(out, cap, "one of the %u kernels launched since the last "
	                              "synchronization (", n);
	for (uint32_t i = 0, named = 0; i < n && len < cap; i++) {
		bool seen = false;
		for (uint32_t j = 0; j < i && !seen; j++)
			seen = sent[j]->info == sent[i]->info;
		if (!seen)
			len += (size_t)snprintf(out + len, cap - len, "%s'%s'", named++ ? ", " : "",
			                        sent[i]->info->name);
	}
	if (len < cap)
		snprintf(out + len, cap - len, ")");
}

/* Zeroes the fault records of slots [from, to) of a batch whose results
 * are not read (the kernels that ran may have written them). */
static void clear_faults(CudaDevice *c, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++)
		c->fault_host[i] = 0;
	if (!c->fault_mapped && to > from)
		c->cu->MemsetD8(c->fault_dev + from * sizeof(uint64_t), 0,
		                (to - from) * sizeof(uint64_t));
}

/* The one synchronization of a batch whose entries sent[0, nsent) put
 * work on the stream, nq of them as launches (and maybe the last one sent,
 * which failed after its kernel was launched); the fault records come
 * back with it. */
static cm_status wait_batch(CudaDevice *c, RtLaunch *const *sent, uint32_t nsent, uint32_t nq)
{
	CUresult r = CUDA_SUCCESS;
	if (!c->fault_mapped && nq)
		r = c->cu->MemcpyDtoHAsync((void *)c->fault_host, c->fault_dev,
		                           nq * sizeof(uint64_t), c->stream);
	CUresult w = c->cu->StreamSynchronize(c->stream);
	cm_status s = CM_SUCCESS;
	if (w) {   /* the kernels launched, else the entry that failed */
		char who[512];
		batch_who(sent, nq ? nq : nsent, who, sizeof who);
		s = cuda_kernel_error(c, who, w, "while running");
	} else if (r) {
		s = cu_fail(r, CM_IO_ERROR, "reading the fault records");
	}
	if (s && !c->lost)
		clear_faults(c, 0, nsent);
	return s;
}

/* Enqueues ls[0, n) until the batch must end; *used gets the entries
 * taken, sent[] those that put work on the stream (*nsent), q[] the
 * launches (*nq).  The status is that of the entry that could not
 * launch, ls[*used]. */
static cm_status enqueue_all(CudaDevice *c, RtLaunch **ls, uint32_t n, CudaQueued *q,
                             uint32_t *nq, RtLaunch **sent, uint32_t *nsent, uint32_t *used,
                             uint32_t *entry)
{
	cm_status s = CM_SUCCESS;
	uint32_t i = 0;
	*nq = *nsent = 0;
	while (i < n && *nq < CUDA_BATCH_MAX) {
		if (ls[i]->kind == RT_LAUNCH_SYNC) {
			i++;
			continue;
		}
		sent[(*nsent)++] = ls[i];
		if ((s = cuda_enqueue(c, ls[i], *nq, &q[*nq])))
			break;
		entry[(*nq)++] = i++;
		if (q[*nq - 1].host_after)
			break;
	}
	*used = i;
	return s;
}

/* The results of the nq launches of a batch that completed; *done gets
 * the entries before the first whose results failed. */
static cm_status finish_all(CudaDevice *c, const CudaQueued *q, uint32_t nq,
                            const uint32_t *entry, uint32_t *done)
{
	cm_status s = CM_SUCCESS;
	for (uint32_t i = 0; i < nq; i++) {   /* every slot, to clear its record */
		cm_status fs = cuda_finish(c, &q[i], i);
		if (fs && !s) {
			s = fs;
			*done = entry[i];
		}
	}
	return s;
}

static cm_status batch_locked(CudaDevice *c, RtLaunch **ls, uint32_t n, uint32_t *done)
{
	CudaQueued q[CUDA_BATCH_MAX];
	RtLaunch *sent[CUDA_BATCH_MAX];
	uint32_t entry[CUDA_BATCH_MAX], nq, nsent, used;
	*done = 0;
	cm_status s = cuda_enter(c);
	if (s)
		return s;
	s = enqueue_all(c, ls, n, q, &nq, sent, &nsent, &used, entry);
	if (s && c->lost && !nq) {   /* its launch lost the context: nothing to wait for */
		end_batch(c);
		return s;
	}
	if (nsent) {
		cm_status ws = wait_batch(c, sent, nsent, nq);
		end_batch(c);
		if (ws)
			return ws;   /* about the entries before any launch error */
		if (s)
			clear_faults(c, nq, nsent);   /* the entry that failed */
	}
	*done = used;
	cm_status fs = finish_all(c, q, nq, entry, done);
	return fs ? fs : s;
}

cm_status cuda_run_batch(cmetal_device *dev, RtLaunch **ls, uint32_t n, uint32_t *done)
{
	CudaDevice *c = dev->priv;
	pthread_mutex_lock(&c->run_mu);
	cm_status s = batch_locked(c, ls, n, done);
	pthread_mutex_unlock(&c->run_mu);
	return s;
}
