/* basic.c — kernels for the runtime tests (hand-written to the ABI). */
#include "kern.h"

const uint32_t cmk_abi_version = CMK_ABI_VERSION;

/* walker_ids(SurfaceIndex out [[type("buffer_t")]]):
 * out[(y*W + x)*2 + 0..1] = x, y */
static void walker_ids(CmkThread *t)
{
	CmkSurface *out = SURF(t, 0);
	uint32_t x = t->origin[0], y = t->origin[1], W = t->group_count[0];
	uint64_t i = (uint64_t)y * W + x;
	st32(t, out, i * 8, x, __LINE__);
	st32(t, out, i * 8 + 4, y, __LINE__);
}

/* group_ids(SurfaceIndex out): 8 words per thread at its global linear id:
 * group id x/y/z, local id x/y/z, local size (product), group count. */
static void group_ids(CmkThread *t)
{
	CmkSurface *out = SURF(t, 0);
	uint32_t lsz = t->local_size[0] * t->local_size[1] * t->local_size[2];
	uint32_t gcnt = t->group_count[0] * t->group_count[1] * t->group_count[2];
	uint64_t g = (uint64_t)linear_group(t) * lsz + linear_local(t);
	uint32_t v[8] = {t->group_id[0], t->group_id[1], t->group_id[2], t->local_id[0],
	                 t->local_id[1], t->local_id[2], lsz, gcnt};
	for (int i = 0; i < 8; i++)
		st32(t, out, g * 32 + (uint64_t)i * 4, v[i], __LINE__);
}

/* reduce(SurfaceIndex in, SurfaceIndex out): each group sums its threads'
 * elements of in through SLM with a tree of barriers; thread 0 writes the
 * sum to out[group].  Also checks that SLM started zeroed. */
static void reduce(CmkThread *t)
{
	CmkSurface *in = SURF(t, 0), *out = SURF(t, 1);
	uint32_t lid = linear_local(t);
	uint32_t n = t->local_size[0] * t->local_size[1] * t->local_size[2];
	uint32_t gid = linear_group(t);
	uint32_t *slm = (uint32_t *)t->slm;
	uint32_t dirty = slm[1023 - lid];   /* zero: nobody wrote there yet */
	t->svc->barrier(t);
	slm[lid] = ld32(t, in, ((uint64_t)gid * n + lid) * 4, __LINE__) + dirty;
	t->svc->barrier(t);
	for (uint32_t step = 1; step < n; step *= 2) {
		uint32_t v = 0;
		if (lid % (2 * step) == 0 && lid + step < n)
			v = slm[lid + step];
		t->svc->barrier(t);
		if (lid % (2 * step) == 0)
			slm[lid] += v;
		t->svc->barrier(t);
	}
	if (lid == 0)
		st32(t, out, (uint64_t)gid * 4, slm[0], __LINE__);
}

/* wave(SurfaceIndex out): walker with wavefront dependencies;
 * out(x,y) = 1 + max(out(x-1,y), out(x,y-1), out(x-1,y-1)) = x + y + 1
 * only when every dependency was complete before the read. */
static void wave(CmkThread *t)
{
	CmkSurface *out = SURF(t, 0);
	uint32_t x = t->origin[0], y = t->origin[1], W = t->group_count[0];
	volatile uint32_t spin = 0;
	uint32_t work = (x * 7 + y * 13) % 11 == 0 ? 200000 : 1000;
	for (uint32_t i = 0; i < work; i++)
		spin += i;   /* uneven work so a bad order would show */
	t->svc->wait(t, 0);
	uint32_t m = 0;
	if (x > 0 && ld32(t, out, ((uint64_t)y * W + x - 1) * 4, __LINE__) > m)
		m = ld32(t, out, ((uint64_t)y * W + x - 1) * 4, __LINE__);
	if (y > 0 && ld32(t, out, ((uint64_t)(y - 1) * W + x) * 4, __LINE__) > m)
		m = ld32(t, out, ((uint64_t)(y - 1) * W + x) * 4, __LINE__);
	if (x > 0 && y > 0 && ld32(t, out, ((uint64_t)(y - 1) * W + x - 1) * 4, __LINE__) > m)
		m = ld32(t, out, ((uint64_t)(y - 1) * W + x - 1) * 4, __LINE__);
	__atomic_store_n((uint32_t *)(out->base + ((uint64_t)y * W + x) * 4), m + 1, __ATOMIC_RELEASE);
	t->svc->signal(t);
	for (uint32_t i = 0; i < 3000; i++)
		spin += i;   /* still running after the signal */
}

/* chain(SurfaceIndex out, int vertical): out(x,y) = 1 + out(x-1,y) (or
 * out(x,y-1)), so out = x + 1 (y + 1) only if the walker's horizontal
 * (vertical) dependency held. */
static void chain(CmkThread *t)
{
	CmkSurface *out = SURF(t, 0);
	uint32_t x = t->origin[0], y = t->origin[1], W = t->group_count[0];
	int vert = ARG(t, 1, int);
	volatile uint32_t spin = 0;
	uint32_t work = (x * 7 + y * 13) % 11 == 0 ? 200000 : 1000;
	for (uint32_t i = 0; i < work; i++)
		spin += i;
	t->svc->wait(t, 0);
	uint32_t prev = 0;
	if (vert ? y > 0 : x > 0)
		prev = ld32(t, out, (vert ? (uint64_t)(y - 1) * W + x : (uint64_t)y * W + x - 1) * 4, __LINE__);
	st32(t, out, ((uint64_t)y * W + x) * 4, prev + 1, __LINE__);
}

/* hello(int n): printf from every thread, twice. */
static void hello(CmkThread *t)
{
	char buf[64];
	uint32_t id = t->origin[0] + t->group_count[0] * t->origin[1];
	int len = snprintf(buf, sizeof buf, "thread %u of %d: a\n", id, ARG(t, 0, int));
	t->svc->print(t, buf, (uint32_t)len);
	len = snprintf(buf, sizeof buf, "thread %u: b\n", id);
	t->svc->print(t, buf, (uint32_t)len);
}

/* oob(SurfaceIndex buf): thread 3 writes past the end (dropped, fault). */
static void oob(CmkThread *t)
{
	CmkSurface *b = SURF(t, 0);
	uint32_t x = t->origin[0];
	st32(t, b, x == 3 ? b->size : x * 4u, 7, 77);
	(void)ld32;
}

/* add(SurfaceIndex buf, int v): buf[i] += v for thread i (a task step). */
static void add(CmkThread *t)
{
	CmkSurface *b = SURF(t, 0);
	uint64_t off = (uint64_t)t->origin[0] * 4;
	st32(t, b, off, ld32(t, b, off, __LINE__) + (uint32_t)ARG(t, 1, int), __LINE__);
}

/* mul(SurfaceIndex buf, int v): buf[i] *= v. */
static void mul(CmkThread *t)
{
	CmkSurface *b = SURF(t, 0);
	uint64_t off = (uint64_t)t->origin[0] * 4;
	st32(t, b, off, ld32(t, b, off, __LINE__) * (uint32_t)ARG(t, 1, int), __LINE__);
}

/* mixed(SurfaceIndex buf [[buffer_t]], int n, svmptr_t p,
 *       SurfaceIndex img [[image2d_t]], vector<float,4> v):
 * buf[0] = n; ((float*)p)[0..3] = v; img(0,0) = n + 1. */
static void mixed(CmkThread *t)
{
	st32(t, SURF(t, 0), 0, (uint32_t)ARG(t, 1, int), __LINE__);
	float *p = (float *)(uintptr_t)ARG(t, 2, uint64_t);
	memcpy(p, t->args[4], 16);
	st2d(SURF(t, 3), 0, 0, (uint32_t)ARG(t, 1, int) + 1);
}

/* blur2d(SurfaceIndex in [[image2d_t]], SurfaceIndex out [[image2d_t]]):
 * out(x,y) = in(x-1,y) + in(x+1,y) + in(x,y-1) + in(x,y+1), edges clamped
 * (one R32_UINT pixel per walker thread). */
static void blur2d(CmkThread *t)
{
	CmkSurface *in = SURF(t, 0), *out = SURF(t, 1);
	int64_t x = t->origin[0] * 4, y = t->origin[1];
	uint32_t v = ld2d(in, x - 4, y) + ld2d(in, x + 4, y) + ld2d(in, x, y - 1) + ld2d(in, x, y + 1);
	st2d(out, x, y, v);
	st2d(out, x + 4 * 1000, y, 99);   /* outside: dropped */
}

/* globals(SurfaceIndex out): thread-private globals start zeroed. */
static void globals(CmkThread *t)
{
	uint32_t *g = (uint32_t *)t->globals;
	uint32_t bad = 0;
	for (int i = 0; i < 16; i++)
		bad |= g[i];
	for (int i = 0; i < 16; i++)
		g[i] = 0xdead0000u + (uint32_t)i;
	t->svc->barrier(t);
	for (int i = 0; i < 16; i++)
		bad |= g[i] != 0xdead0000u + (uint32_t)i;  /* nobody else's copy */
	uint64_t id = (uint64_t)linear_group(t) * t->local_size[0] + linear_local(t);
	st32(t, SURF(t, 0), id * 4, bad ? 1 : 2, __LINE__);
}

/* atomic_count(SurfaceIndex c): c[0] += 1 from every thread. */
static void atomic_count(CmkThread *t)
{
	CmkSurface *c = SURF(t, 0);
	__atomic_fetch_add((uint32_t *)c->base, 1u, __ATOMIC_RELAXED);
}

/* big_slm(int x): asks for more SLM than a group may have. */
static void big_slm(CmkThread *t) { (void)t; }

#define SURF_BUF(n) {n, CMK_ARG_SURFACE, 4, CMK_ELEM_NONE, CMK_SURF_BUFFER, "buffer_t"}
#define SURF_IMG(n) {n, CMK_ARG_SURFACE, 4, CMK_ELEM_NONE, CMK_SURF_IMAGE2D, "image2d_t"}
#define INT(n) {n, CMK_ARG_SCALAR, 4, CMK_ELEM_I32, 0, ""}

static const CmkArgInfo a_out[] = {SURF_BUF("out")};
static const CmkArgInfo a_reduce[] = {SURF_BUF("in"), SURF_BUF("out")};
static const CmkArgInfo a_hello[] = {INT("n")};
static const CmkArgInfo a_buf_v[] = {SURF_BUF("buf"), INT("v")};
static const CmkArgInfo a_mixed[] = {
	SURF_BUF("buf"), INT("n"), {"p", CMK_ARG_SVM, 8, CMK_ELEM_U64, 0, "svmptr_t"},
	SURF_IMG("img"), {"v", CMK_ARG_VECTOR, 16, CMK_ELEM_F32, 0, ""},
};
static const CmkArgInfo a_blur[] = {SURF_IMG("in"), SURF_IMG("out")};
static const CmkArgInfo a_any[] = {{"c", CMK_ARG_SURFACE, 4, 0, CMK_SURF_ANY, ""}};

static const CmkKernelInfo kernels[] = {
	{"walker_ids", walker_ids, 1, a_out, 0, 0, 0, 0, 1},
	{"group_ids", group_ids, 1, a_out, 0, 0, 0, 0, 1},
	{"reduce", reduce, 2, a_reduce, 4096, 0, 1, 0, 1},
	{"wave", wave, 1, a_out, 0, 0, 0, 1, 1},
	{"chain", chain, 2, a_buf_v, 0, 0, 0, 1, 1},
	{"hello", hello, 1, a_hello, 0, 0, 0, 0, 1},
	{"oob", oob, 1, a_out, 0, 0, 0, 0, 1},
	{"add", add, 2, a_buf_v, 0, 0, 0, 0, 1},
	{"mul", mul, 2, a_buf_v, 0, 0, 0, 0, 1},
	{"mixed", mixed, 5, a_mixed, 0, 0, 0, 0, 1},
	{"blur2d", blur2d, 2, a_blur, 0, 0, 0, 0, 1},
	{"globals", globals, 1, a_out, 0, 64, 1, 0, 1},
	{"atomic_count", atomic_count, 1, a_any, 0, 0, 0, 0, 1},
	{"big_slm", big_slm, 1, a_hello, 300000, 0, 0, 0, 1},
};

const CmkProgramInfo cmk_program = {sizeof kernels / sizeof kernels[0], kernels};
