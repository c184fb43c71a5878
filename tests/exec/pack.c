/* pack.c — SIMD8 and SIMD16 kernels that the PTX back end packs 4 and 2 to
 * a warp (pack.cm); every result checked against a C reference.  Run with
 * CMETAL_EXEC_OPTIONS=-fno-warp-packing as well (tests/gpu/run_all.sh):
 * both must give the same bytes. */
#include "harness.h"

#define F "pack"

/* What thread t of BODY(n) writes: r (n words), then acc, flags, m, t. */
static void body_ref(const uint32_t *v, uint32_t t, int n, uint32_t *o)
{
	uint32_t r[16], s[16];
	for (int j = 0; j < n / 2; j++) {
		r[j] = v[2 * j + 1];
		r[n / 2 + j] = v[2 * j];
	}
	uint32_t k = t % (uint32_t)(n / 2);
	for (int j = 0; j < n / 2; j++)
		r[j] += v[k + (uint32_t)j];
	for (int j = 0; j < n; j++)
		r[j] = r[j] * 3u + t;
	uint32_t acc = 0;
	if (t % 3 == 1) {
		for (uint32_t i = 0; i < t % 7; i++) {
			for (int j = 0; j < n; j++)
				s[j] = r[(j + 1) % n];
			for (int j = 0; j < n; j++) {
				r[j] = s[j] ^ i;
				acc += r[j];
			}
		}
	} else {
		uint32_t mx = r[0], mn = r[0];
		for (int j = 1; j < n; j++) {
			mx = r[j] > mx ? r[j] : mx;
			mn = r[j] < mn ? r[j] : mn;
		}
		acc = mx - mn;
	}
	uint32_t m = 0;
	int any = 0, all = 1;
	for (int j = 0; j < n; j++) {
		int big = v[j] > 0x80000000u;
		m |= (uint32_t)big << j;
		any |= big;
		all &= big;
	}
	for (int j = 0; j < n; j++)
		r[j] += v[j] > 0x40000000u ? 1u : (uint32_t)-1;
	memset(o, 0, sizeof(uint32_t) * 2 * (size_t)n);
	memcpy(o, r, sizeof(uint32_t) * (size_t)n);
	o[n] = acc;
	o[n + 1] = (uint32_t)any | (uint32_t)all << 1;
	o[n + 2] = m;
	o[n + 3] = t;
}

/* N-wide threads, T of them, launched as groups of G (G == 0: a thread
 * space of T x 1).  Some threads' inputs are all big (all() true). */
static void run_body(H *h, const char *kernel, int n, int t, int g)
{
	static uint32_t a[77 * 16], o[77 * 32], w[77 * 32];
	for (int i = 0; i < t * n; i++)
		a[i] = h_rand(h);
	for (int j = 0; j < n; j++)
		a[5 * n + j] |= 0x80000001u;
	for (int i = 0; i < t; i++)
		body_ref(a + i * n, (uint32_t)i, n, w + i * 2 * n);
	HShape s = g ? GROUPS(t / g, g) : WALK(t, 1);
	if (H_RUN(h, F, kernel, s, IN(a), OUT(o)))
		h_eq_u32(h, kernel, o, w, (size_t)t * 2 * n);
}

TEST(simd8_groups) { run_body(h, "pack8", 8, 72, 24); }
TEST(simd8_odd_groups) { run_body(h, "pack8", 8, 75, 5); }
TEST(simd8_thread_space) { run_body(h, "pack8", 8, 77, 0); }
TEST(simd16_groups) { run_body(h, "pack16", 16, 64, 8); }
TEST(simd16_odd_groups) { run_body(h, "pack16", 16, 63, 3); }
TEST(simd16_thread_space) { run_body(h, "pack16", 16, 77, 0); }

/* Groups of 3 and 6 SIMD8 threads: the last warp of a CTA partly filled. */
static void run_ring(H *h, int g)
{
	enum { T = 36 };
	static uint32_t a[T * 8], o[T * 8], w[T * 8];
	for (int i = 0; i < T * 8; i++)
		a[i] = h_rand(h);
	for (int gi = 0; gi < T / g; gi++)
		for (int l = 0; l < g; l++) {
			int nb = (l + 1) % g;
			for (int i = 0; i < 8; i++)
				w[(gi * g + l) * 8 + i] = a[(gi * g + nb) * 8 + i] * 2u + (uint32_t)nb +
				                          (uint32_t)l * 1000u;
		}
	if (H_RUN(h, F, "ring8", GROUPS(T / g, g), IN(a), OUT(o)))
		h_eq_u32(h, "ring", o, w, T * 8);
}

TEST(slm_ring_3) { run_ring(h, 3); }
TEST(slm_ring_6) { run_ring(h, 6); }

const HTest exec_pack[] = {
	T(simd8_groups), T(simd8_odd_groups), T(simd8_thread_space), T(simd16_groups),
	T(simd16_odd_groups), T(simd16_thread_space), T(slm_ring_3), T(slm_ring_6), {0},
};
