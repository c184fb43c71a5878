/* sync.c — thread groups of 1..64 threads with barriers and SLM, group and
 * linear ids, a wavefront kernel with cm_wait/cm_signal, a two-kernel task,
 * printf. */
#include <stdlib.h>

#include "harness.h"

#define F "sync"

static void groupsum(H *h, uint32_t groups, uint32_t n)
{
	static uint32_t a[2 * 64 * 16], o[2 * 64 * 16], w[2 * 64 * 16];
	uint32_t total = groups * n * 16;
	for (uint32_t i = 0; i < total; i++)
		a[i] = h_rand(h) % 100000;
	for (uint32_t g = 0; g < groups; g++)
		for (uint32_t t = 0; t < n; t++) {
			uint32_t nb = (t + 1) % n, nn = (nb + 1) % n;
			for (int i = 0; i < 16; i++)
				w[(g * n + t) * 16 + i] = a[(g * n + nn) * 16 + i] + nb;
		}
	HArg args[] = {{HA_IN, a, total * 4}, {HA_OUT, o, total * 4}};
	if (h_run_n(h, F, "groupsum", GROUPS(groups, n), args, 2))
		h_eq_u32(h, "out", o, w, total);
}

TEST(barrier_1) { groupsum(h, 2, 1); }
TEST(barrier_2) { groupsum(h, 2, 2); }
TEST(barrier_7) { groupsum(h, 2, 7); }
TEST(barrier_16) { groupsum(h, 2, 16); }
/* (gpu) on CUDA a group of more than 32 CM threads is a thread-block
 * cluster (docs/runtime.md "The CUDA device") */
TEST(barrier_64) { groupsum(h, 2, 64); }

static void thread_ids(H *h, uint32_t G, uint32_t N)
{
	static uint32_t o[3 * 33 * 8], w[3 * 33 * 8];
	for (uint32_t g = 0; g < G; g++)
		for (uint32_t t = 0; t < N; t++) {
			uint32_t *r = &w[(g * N + t) * 8];
			r[0] = t, r[1] = N, r[2] = g, r[3] = G, r[4] = t, r[5] = g;
			r[6] = g * N + t, r[7] = G * N;
		}
	HArg args[] = {{HA_OUT, o, G * N * 8 * 4}};
	if (h_run_n(h, F, "ids", GROUPS(G, N), args, 1))
		h_eq_u32(h, "out", o, w, G * N * 8);
}

TEST(thread_ids) { thread_ids(h, 3, 4); }
/* (gpu) 33 CM threads: a cluster of two CTAs of 17 warps, one of them
 * padding */
TEST(thread_ids_33) { thread_ids(h, 3, 33); }

/* Groups of tx x ty CM threads in gx x gy groups: on CUDA the runtime
 * splits them into smaller CTAs when that holds more warps on an SM
 * (-fno-warp-packing on the simulated GPU, 32 registers a lane: 12 x 2
 * runs as CTAs of 3 x 1, 8 x 3 as 1 x 3; 8 x 4 and 1 x 6 stay whole),
 * which no id may show. */
static void thread_ids_2d(H *h, uint32_t gx, uint32_t gy, uint32_t tx, uint32_t ty)
{
	static uint32_t o[4 * 4 * 32 * 16], w[4 * 4 * 32 * 16];
	uint32_t n = gx * gy * tx * ty;
	for (uint32_t g = 0; g < gx * gy; g++)
		for (uint32_t t = 0; t < tx * ty; t++) {
			uint32_t *r = &w[(g * tx * ty + t) * 16];
			uint32_t lx = t % tx, ly = t / tx, bx = g % gx, by = g / gx;
			uint32_t v[16] = {lx, ly, tx, ty, bx, by, gx, gy, t, g,
			                  (by * ty + ly) * gx * tx + bx * tx + lx,
			                  bx * tx + lx, by * ty + ly, bx, by, (bx * tx + lx) * 3 + 1};
			memcpy(r, v, sizeof v);
		}
	HShape s = {0, 0, {gx, gy, 1}, {tx, ty, 1}, true, CMETAL_DEP_NONE, NULL};
	HArg args[] = {{HA_OUT, o, n * 16 * 4}};
	if (h_run_n(h, F, "ids2d", s, args, 1))
		h_eq_u32(h, "out", o, w, n * 16);
}

TEST(thread_ids_2d)
{
	thread_ids_2d(h, 3, 2, 12, 2);
	thread_ids_2d(h, 2, 3, 8, 3);
	thread_ids_2d(h, 2, 2, 8, 4);
	thread_ids_2d(h, 4, 1, 1, 6);
}

/* A wavefront kernel: each pixel the sum of its left and upper
 * neighbours plus 1, which the dependency order makes ready in time. */
static void wavefront(H *h, const char *kernel)
{
	enum { W = 8, HH = 6 };
	static uint32_t o[HH][W], w[HH][W];
	memset(o, 0, sizeof o);
	for (int y = 0; y < HH; y++)
		for (int x = 0; x < W; x++)
			w[y][x] = (x ? w[y][x - 1] : 0) + (y ? w[y - 1][x] : 0) + 1;
	HShape s = WALK(W, HH);
	s.dep = CMETAL_DEP_WAVEFRONT;
	if (H_RUN(h, F, kernel, s, SURF2D(o, W, HH, CMETAL_FMT_R32_UINT)))
		h_eq_u32(h, "out", &o[0][0], &w[0][0], W * HH);
}

TEST(wavefront) { wavefront(h, "wave"); }
TEST(wavefront_shfl) { wavefront(h, "wave_shfl"); }

TEST(task)
{
	int32_t a[64], o[64], w[64];
	h_fill_i32(h, a, 64, -1000, 1000);
	for (int i = 0; i < 64; i++)
		w[i] = a[i] * 2 + 1;
	HEntry e[] = {{"step1", WALK(4, 1)}, {"step2", WALK(4, 1)}};
	HArg args[] = {IN(a), OUT(o)};
	if (h_task(h, F, e, 2, args, 2))
		h_eq_i32(h, "out", o, w, 64);
}

TEST(printf)
{
	int32_t o[3 * 16];
	int k = h_range(h, 1, 99);
	char want[256] = "";
	for (int t = 0; t < 3; t++)
		snprintf(want + strlen(want), sizeof want - strlen(want), "thread %d k=%d f=1.5\n", t, k);
	if (H_RUN(h, F, "hello", WALK(3, 1), OUT(o), I32(k)) && strcmp(h_printed(), want))
		h_fail(h, "printed \"%s\", expected \"%s\"", h_printed(), want);
}

/* printf in groups of 12 x 2 (split on the simulated GPU without warp
 * packing: thread_ids_2d): lines in linear thread order, x fastest. */
TEST(printf_groups)
{
	static int32_t o[2 * 24 * 16];
	static char want[2 * 24 * 40];
	int k = h_range(h, 1, 99);
	want[0] = 0;
	for (int g = 0; g < 2; g++)
		for (int t = 0; t < 24; t++)
			snprintf(want + strlen(want), sizeof want - strlen(want),
				 "g %d,0 l %d,%d k=%d\n", g, t % 12, t / 12, k);
	HShape s = {0, 0, {2, 1, 1}, {12, 2, 1}, true, CMETAL_DEP_NONE, NULL};
	if (H_RUN(h, F, "hello2d", s, OUT(o), I32(k)) && strcmp(h_printed(), want))
		h_fail(h, "printed \"%s\", expected \"%s\"", h_printed(), want);
}

/* 96 KB of SLM per group of 8 (CUDA: dynamic shared memory, with the
 * back end's scratch after it) */
TEST(slm_big)
{
	enum { G = 2, N = 8, WORDS = 96 * 1024 / 4, PER = WORDS / N };
	static uint32_t a[G * WORDS], o[G * WORDS], w[G * WORDS];
	static uint16_t ix[N * 64];
	for (uint32_t i = 0; i < G * WORDS; i++)
		a[i] = h_rand(h);
	for (uint32_t i = 0; i < N * 64; i++)
		ix[i] = (uint16_t)(h_rand(h) % 64);
	for (uint32_t g = 0; g < G; g++)
		for (uint32_t t = 0; t < N; t++) {
			uint32_t src = (t + 3) % N;
			for (uint32_t r = 0; r < PER / 64; r++)
				for (uint32_t i = 0; i < 64; i++) {
					uint32_t at = g * WORDS + src * PER + (PER - 64 - r * 64) + ix[t * 64 + i];
					w[g * WORDS + t * PER + r * 64 + i] = a[at] + src;
				}
		}
	if (H_RUN(h, F, "slm_big", GROUPS(G, N), IN(a), IN(ix), OUT(o)))
		h_eq_u32(h, "out", o, w, G * WORDS);
}

const HTest exec_sync[] = {
	T(barrier_1), T(barrier_2), T(barrier_7), T(barrier_16), T(barrier_64), T(slm_big),
	T(thread_ids), T(thread_ids_33), T(thread_ids_2d), T(wavefront), T(wavefront_shfl), T(task), T(printf),
	T(printf_groups), {0},
};

