/* gpu_regress.c — regressions found by running bench/cm on the GPU:
 * constructs whose PTX was wrong while the C back end was right.  They run
 * on every device; CMETAL_DEVICE=cuda is where they once failed. */
#include "harness.h"

#define F "gpu_regress"

TEST(scalar_read_uniform)
{
	enum { N = 6, E = 48 };
	static uint32_t a[N * E], s[N], o[N * E], w[N * E];
	for (int i = 0; i < N * E; i++)
		a[i] = h_rand(h);
	for (int t = 0; t < N; t++)
		s[t] = h_rand(h);
	for (int i = 0; i < N * E; i++)
		w[i] = a[i] + s[i / E];
	if (H_RUN(h, F, "scalar_read", GROUPS(2, 3), IN(a), IN(s), OUT(o)))
		h_eq_u32(h, "out", o, w, N * E);
}

TEST(gather1_to_element)
{
	enum { N = 4 };
	static float a[N * 16], o[N * 16], w[N * 16];
	h_fill_f32(h, a, N * 16, -100, 100);
	for (int i = 0; i < N * 16; i++)
		w[i] = a[i] * 2.0f + 1.0f;
	if (H_RUN(h, F, "gather1", WALK(N, 1), IN(a), OUT(o)))
		h_near_f32(h, "out", o, w, N * 16, 1e-6f);
}

const HTest exec_gpu_regress[] = {
	T(scalar_read_uniform), T(gather1_to_element), {0},
};
