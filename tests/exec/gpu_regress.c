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

/* The reference of rt_reads for thread t (see gpu_regress.cm). */
static void r_rt_reads(const uint32_t *a, uint32_t t, int k, uint32_t *out)
{
	uint32_t v[80], c0[80];
	double c1[40];
	uint16_t c2[48];
	memcpy(v, a + t * 80, sizeof v);
	memcpy(c0, v, sizeof c0);
	for (int i = 0; i < 40; i++)
		c1[i] = v[1 + 2 * i] * 0.25;
	for (int i = 0; i < 48; i++)
		c2[i] = (uint16_t)v[7 + i];
	memset(out, 0, 64 * sizeof *out);
	for (int it = 0; it < 3; it++) {
		out[9] += c0[0] + c0[1] + c0[2] + c0[3] + c0[5] + c0[47] + c0[79];
		out[10] += (uint32_t)(c1[0] + c1[1] + c1[6] + c1[39]) + c0[33];
		out[11] += (uint32_t)(c2[0] + c2[3] + c2[4] + c2[8] + c2[9] + c2[47] + c2[46]);
		int16_t s[80];
		uint8_t b[80];
		double d[80];
		for (int i = 0; i < 80; i++) {
			s[i] = (int16_t)(v[i] - 3u * (uint32_t)it);
			b[i] = (uint8_t)(v[i] + (uint32_t)it);
			d[i] = v[i] * 0.5;
			v[i] += t + (uint32_t)it;
		}
		int m = (int)(((uint32_t)k + 7u * (uint32_t)it + t) % 64u);
		out[it] += v[m + 5];
		out[3 + it] += (uint32_t)(s[m + 9] + b[m + 2]);
		out[6 + it] += (uint32_t)d[m + 11];
		for (int j = 0; j < 16; j++) {
			out[16 + j] += v[m + j];
			out[32 + 2 * j] += b[m + 1 + j];
			out[48 + j] += v[(5 * j + m) % 80];
		}
	}
}

TEST(runtime_reads)
{
	enum { N = 8 };
	static uint32_t a[N * 80], o[N * 64], w[N * 64];
	for (int i = 0; i < N * 80; i++)
		a[i] = h_rand(h) % 100000;
	int k = h_range(h, 0, 64);
	for (uint32_t t = 0; t < N; t++)
		r_rt_reads(a, t, k, w + t * 64);
	if (H_RUN(h, F, "rt_reads", GROUPS(2, 4), IN(a), OUT(o), I32(k)))
		h_eq_u32(h, "out", o, w, N * 64);
}

const HTest exec_gpu_regress[] = {
	T(scalar_read_uniform), T(gather1_to_element), T(runtime_reads), {0},
};
