/* async.c — cm_slm_copy_async, cm_slm_copy_commit, cm_slm_copy_wait (a
 * cmetal extension): asynchronous copies from a buffer to SLM. */
#include "harness.h"

#define F "async"

/* cm_slm_copy_async<e> (cmetal, async.cm copy_case): element k of a copy
 * is the e bytes of a at its offset rounded down to e, zeros past a's
 * 1002 bytes; an element crossing the SLM's end is dropped. */
static void copy_ref(uint8_t *slm, uint32_t at, uint32_t e, const uint8_t *a,
                     const uint32_t *offs, int n, uint32_t slm_size)
{
	at &= ~(e - 1);
	for (int k = 0; k < n; k++) {
		uint32_t d = at + e * (uint32_t)k, o = offs[k] & ~(e - 1);
		if (d + e > slm_size)
			continue;
		for (uint32_t j = 0; j < e; j++)
			slm[d + j] = (uint64_t)o + j < 1002 ? a[o + j] : 0;
	}
}

/* Kernel name of e-byte elements, its second copy's SLM offset at2 (its
 * last element crosses the SLM's end).  inside: every element's e bytes
 * inside a (the copies' fast path, ptx/cpasync.c copy_whole); else some
 * read past its end, straddle it or wrap. */
static void slm_copy_case(H *h, const char *name, uint32_t e, uint32_t at2, bool inside)
{
	enum { SLM = 3080 };
	uint8_t a[1002], slm[3200] = {0};
	uint32_t offs[176], o[800], w[800];
	h_fill_u8(h, a, sizeof a);
	for (int k = 0; k < 176; k++)
		offs[k] = h_rand(h) % (inside ? 985 : 1100);
	if (!inside)
		offs[3] = 992, offs[5] = 0xfffffff5u, offs[44] = 985, offs[100] = 1000,
		offs[101] = 1008;
	for (uint32_t i = 0; i < SLM; i += 4)
		memcpy(slm + i, &(uint32_t){0xdeadbeef}, 4);
	copy_ref(slm, 7, e, a, offs, 40, SLM);
	copy_ref(slm, at2, e, a, offs + 40, 8, SLM);
	copy_ref(slm, 640, e, a, offs + 48, 128, SLM);
	memcpy(w, slm, sizeof w);
	HShape s = GROUPS(1, 2);
	s.options = "-fno-bounds-check";   /* the reads past a and the SLM are on purpose */
	if (H_RUN(h, F, name, s, IN(a), IN(offs), OUT(o)))
		h_eq_u32(h, inside ? "slm (sources inside)" : "slm", o, w, 800);
}

TEST(slm_copy)
{
	slm_copy_case(h, "slm_copy", 16, 2960, false);
	slm_copy_case(h, "slm_copy", 16, 2960, true);
}

TEST(slm_copy8)
{
	slm_copy_case(h, "slm_copy8", 8, 3024, false);
	slm_copy_case(h, "slm_copy8", 8, 3024, true);
}

TEST(slm_copy4)
{
	slm_copy_case(h, "slm_copy4", 4, 3052, false);
	slm_copy_case(h, "slm_copy4", 4, 3052, true);
}

const HTest exec_async[] = {
	T(slm_copy), T(slm_copy8), T(slm_copy4), {0},
};
