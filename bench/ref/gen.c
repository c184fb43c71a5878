/* gen.c — deterministic input generators.  All data come from xorshift64*
 * streams seeded by the harness, so every harness (C, OpenCL, CUDA, CM)
 * builds bit-identical inputs from the same seed. */
#include "bench.h"

void rng_seed(Rng *r, uint64_t seed)
{
	r->s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
	if (!r->s)
		r->s = 1;
}

uint32_t rng_u32(Rng *r)
{
	uint64_t x = r->s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 32);
}

float rng_f01(Rng *r)
{
	return (float)(rng_u32(r) >> 8) * (1.0f / 16777216.0f);
}

void gen_u8(uint8_t *p, size_t n, uint64_t seed)
{
	Rng r;
	size_t i;
	rng_seed(&r, seed);
	for (i = 0; i + 4 <= n; i += 4) {
		uint32_t v = rng_u32(&r);
		p[i] = (uint8_t)v;
		p[i + 1] = (uint8_t)(v >> 8);
		p[i + 2] = (uint8_t)(v >> 16);
		p[i + 3] = (uint8_t)(v >> 24);
	}
	for (; i < n; i++)
		p[i] = (uint8_t)rng_u32(&r);
}

/* Mostly one value (as an image with a flat background), 1/16 random. */
void gen_u8_skewed(uint8_t *p, size_t n, uint64_t seed)
{
	Rng r;
	size_t i;
	rng_seed(&r, seed);
	for (i = 0; i < n; i++) {
		uint32_t v = rng_u32(&r);
		p[i] = (v & 15) ? 0x80 : (uint8_t)(v >> 8);
	}
}

void gen_u32(uint32_t *p, size_t n, uint64_t seed)
{
	Rng r;
	size_t i;
	rng_seed(&r, seed);
	for (i = 0; i < n; i++)
		p[i] = rng_u32(&r);
}

void gen_i32(int32_t *p, size_t n, uint64_t seed)
{
	Rng r;
	size_t i;
	rng_seed(&r, seed);
	for (i = 0; i < n; i++)
		p[i] = (int32_t)(rng_u32(&r) % 2001) - 1000;
}

void gen_f32(float *p, size_t n, uint64_t seed)
{
	Rng r;
	size_t i;
	rng_seed(&r, seed);
	for (i = 0; i < n; i++)
		p[i] = rng_f01(&r) * 2.0f - 1.0f;
}

/* gen_f32's values rounded to fp16 (bit patterns). */
void gen_f16(uint16_t *p, size_t n, uint64_t seed)
{
	Rng r;
	size_t i;
	rng_seed(&r, seed);
	for (i = 0; i < n; i++)
		p[i] = f32_to_f16(rng_f01(&r) * 2.0f - 1.0f);
}

void gen_f64(double *p, size_t n, uint64_t seed)
{
	Rng r;
	size_t i;
	rng_seed(&r, seed);
	for (i = 0; i < n; i++) {
		uint64_t hi = rng_u32(&r), lo = rng_u32(&r);
		p[i] = (double)((hi << 21) ^ lo) / 9007199254740992.0 * 2 - 1;
	}
}

/* Points scattered (uniform, half-width 0.6) around K hidden centres drawn in
 * [0, 10)^d.  The k-means harnesses start from the first K points. */
void gen_kmeans(float *pts, long n, int d, int k, uint64_t seed)
{
	enum { MAXC = 64 * 64 };
	float centre[MAXC];
	Rng r;
	long i;
	int j;
	rng_seed(&r, seed);
	for (j = 0; j < k * d && j < MAXC; j++)
		centre[j] = rng_f01(&r) * 10.0f;
	for (i = 0; i < n; i++) {
		int c = (int)(rng_u32(&r) % (uint32_t)k);
		for (j = 0; j < d; j++)
			pts[i * d + j] = centre[c * d + j] + (rng_f01(&r) - 0.5f) * 1.2f;
	}
}
