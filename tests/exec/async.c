/* async.c — cm_slm_copy_async, cm_slm_copy_commit, cm_slm_copy_wait (a
 * cmetal extension): asynchronous copies from a buffer to SLM. */
#include "harness.h"

#define F "async"

/* cm_slm_copy_async (cmetal, async.cm slm_copy): element k of a copy is
 * the 16 bytes of a at its offset rounded down to 16, zeros past a's 1000
 * bytes; an element crossing the SLM's end is dropped. */
static void copy_ref(uint8_t *slm, uint32_t at, const uint8_t *a, const uint32_t *offs, int n,
                     uint32_t slm_size)
{
	for (int k = 0; k < n; k++) {
		uint32_t d = at + 16 * (uint32_t)k, o = offs[k] & ~15u;
		if (d + 16 > slm_size)
			continue;
		for (uint32_t j = 0; j < 16; j++)
			slm[d + j] = (uint64_t)o + j < 1000 ? a[o + j] : 0;
	}
}

/* inside: every element's 16 bytes inside a (the copies' fast path,
 * ptx/cpasync.c copy_whole); else some read past its end or wrap. */
static void slm_copy_case(H *h, bool inside)
{
	enum { SLM = 3080 };
	uint8_t a[1000], slm[3200] = {0};
	uint32_t offs[176], o[800], w[800];
	h_fill_u8(h, a, sizeof a);
	for (int k = 0; k < 176; k++)
		offs[k] = h_rand(h) % (inside ? 985 : 1100);
	if (!inside)
		offs[3] = 992, offs[5] = 0xfffffff5u, offs[44] = 985, offs[100] = 1000;
	for (uint32_t i = 0; i < SLM; i += 4)
		memcpy(slm + i, &(uint32_t){0xdeadbeef}, 4);
	copy_ref(slm, 0, a, offs, 40, SLM);
	copy_ref(slm, 2960, a, offs + 40, 8, SLM);
	copy_ref(slm, 640, a, offs + 48, 128, SLM);
	memcpy(w, slm, sizeof w);
	HShape s = GROUPS(1, 2);
	s.options = "-fno-bounds-check";   /* the reads past a and the SLM are on purpose */
	if (H_RUN(h, F, "slm_copy", s, IN(a), IN(offs), OUT(o)))
		h_eq_u32(h, inside ? "slm (sources inside)" : "slm", o, w, 800);
}

TEST(slm_copy)
{
	slm_copy_case(h, false);
	slm_copy_case(h, true);
}

const HTest exec_async[] = {
	T(slm_copy), {0},
};
