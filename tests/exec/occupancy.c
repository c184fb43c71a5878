/* occupancy.c — launches shaped by the kernel's resources: a group that
 * needs more registers than an SM holds for one CTA (the CUDA device caps
 * the registers of a variant, which spills), and a thread-space launch
 * whose CTA shape the device picks (docs/runtime.md "Occupancy"). */
#include "harness.h"

#define F "occupancy"

TEST(register_hungry_group)
{
	enum { G = 2, T = 32, N = G * T };
	static float a[N * 4096], o[N * 2048], w[N * 2048];
	h_fill_f32(h, a, N * 4096, -4, 4);
	for (int t = 0; t < N; t++) {
		const float *x = a + t * 4096, *y = x + 2048;
		for (int k = 0; k < 4; k++)
			for (int c = 0; c < 16; c++)
				for (int j = 0; j < 32; j++)
					w[t * 2048 + k * 512 + c * 32 + j] =
						x[k * 512 + c * 32 + j] * y[(3 - k) * 512 + 480 - c * 32 + j] +
						x[(k + 1) % 4 * 512 + c * 32 + j];
	}
	if (H_RUN(h, F, "hungry", GROUPS(G, T), IN(a), OUT(o)))
		h_near_f32(h, "out", o, w, N * 2048, 1e-5f);
}

TEST(thread_space_mapping)
{
	enum { W = 37, H = 3, N = W * H };
	static uint32_t a[N * 32], o[N * 32], w[N * 32];
	for (int i = 0; i < N * 32; i++)
		a[i] = h_rand(h);
	for (int i = 0; i < N * 32; i++)
		w[i] = a[i] * 3u + (uint32_t)(i / 32);
	if (H_RUN(h, F, "light", WALK(W, H), IN(a), OUT(o)))
		h_eq_u32(h, "out", o, w, N * 32);
}

const HTest exec_occupancy[] = {
	T(register_hungry_group), T(thread_space_mapping), {0},
};
