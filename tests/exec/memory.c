/* memory.c — OWord block, scattered/scaled/scalar, 2D media with edge
 * clamping, untyped and typed 4-channel, every surface atomic, SVM, SLM. */
#include "harness.h"

#define F "memory"

TEST(oword)
{
	uint32_t a[64], o[64], w[64];
	for (int i = 0; i < 64; i++)
		a[i] = h_rand(h);
	for (int t = 0; t < 2; t++)
		for (int i = 0; i < 32; i++)
			w[t * 32 + i] = (i < 4 ? a[1 + i] : a[t * 32 + i]) + 1;
	if (H_RUN(h, F, "oword", WALK(2, 1), IN(a), OUT(o)))
		h_eq_u32(h, "out", o, w, 64);
}

TEST(scattered)
{
	uint32_t a[64], o[32], w[32] = {0};
	for (int i = 0; i < 64; i++)
		a[i] = h_rand(h) % 100000;
	uint32_t base = (uint32_t)h_range(h, 0, 16);
	for (int i = 0; i < 16; i++)
		w[(i * 5) % 16] = a[base + (i * 5) % 16] * 3;
	for (int i = 0; i < 8; i++)
		w[(i * 4 + 64) / 4] = a[base + (i * 4 + 64) / 4] + 7;
	w[31] = a[base + 3];
	if (H_RUN(h, F, "scattered", WALK(1, 1), IN(a), OUT(o), U32(base)))
		h_eq_u32(h, "out", o, w, 32);
}

TEST(media_clamp)
{
	enum { W = 32, HH = 16 };
	static uint32_t s[HH][W], o[HH][W], w[HH][W];
	for (int y = 0; y < HH; y++)
		for (int x = 0; x < W; x++)
			s[y][x] = h_rand(h);
	for (int ty = 0; ty < 4; ty++)
		for (int tx = 0; tx < 4; tx++)
			for (int r = 0; r < 4; r++)
				for (int c = 0; c < 8; c++) {
					int sy = ty * 4 - 2 + r, sx = tx * 8 - 2 + c;
					sy = sy < 0 ? 0 : sy >= HH ? HH - 1 : sy;
					sx = sx < 0 ? 0 : sx >= W ? W - 1 : sx;
					w[ty * 4 + r][tx * 8 + c] = s[sy][sx] + 1;
				}
	if (H_RUN(h, F, "media", WALK(4, 4), SURF2D(s, W, HH, CMETAL_FMT_R32_UINT),
	          SURF2D(o, W, HH, CMETAL_FMT_R32_UINT)))
		h_eq_u32(h, "out", &o[0][0], &w[0][0], W * HH);
}

TEST(untyped)
{
	uint32_t a[32], o[32], w[32] = {0};
	for (int i = 0; i < 32; i++)
		a[i] = h_rand(h) % 1000;
	for (int i = 0; i < 8; i++)
		for (int c = 0; c < 3; c++)
			w[i * 4 + c] = a[i * 4 + c] + 5;
	if (H_RUN(h, F, "untyped", WALK(1, 1), IN(a), OUT(o)))
		h_eq_u32(h, "out", o, w, 32);
}

TEST(typed)
{
	static uint32_t s[4][8], o[4][8], w[4][8];
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 8; x++)
			s[y][x] = h_rand(h) % 1000, w[y][x] = s[y][x] * 2;
	if (H_RUN(h, F, "typed", WALK(4, 1), SURF2D(s, 8, 4, CMETAL_FMT_R32_UINT),
	          SURF2D(o, 8, 4, CMETAL_FMT_R32_UINT)))
		h_eq_u32(h, "out", &o[0][0], &w[0][0], 32);
}

/* ---- atomics: one kernel, one test per operation -------------------------- */

enum { A_ADD, A_SUB, A_INC, A_DEC, A_PREDEC, A_MIN, A_MAX, A_XCHG, A_CMPXCHG,
       A_AND, A_OR, A_XOR, A_MINSINT, A_MAXSINT, A_FMAX, A_FMIN, A_FADD, A_FSUB,
       A_FCMPWR };

static void atomic_test(H *h, int op, const char *name, int nsrc, bool fl)
{
	uint32_t a[8], r[8], s0[8], s1[8], wa[8], wr[8];
	for (int i = 0; i < 8; i++) {
		if (fl) {
			float f0 = h_float(h, -10, 10), f1 = h_float(h, -10, 10), fa = h_float(h, -10, 10);
			if (i & 1)
				f1 = fa;
			memcpy(&s0[i], &f0, 4), memcpy(&s1[i], &f1, 4), memcpy(&a[i], &fa, 4);
		} else {
			a[i] = h_rand(h) % 1000 - (op == A_MINSINT || op == A_MAXSINT ? 500 : 0);
			s0[i] = h_rand(h) % 1000 - (op == A_MINSINT || op == A_MAXSINT ? 500 : 0);
			s1[i] = i & 1 ? a[i] : h_rand(h) % 1000;
		}
	}
	for (int i = 0; i < 8; i++) {
		uint32_t o = a[i], n = o, x = s0[i], y = s1[i];
		float fo, fx, fy, fn;
		memcpy(&fo, &o, 4), memcpy(&fx, &x, 4), memcpy(&fy, &y, 4);
		fn = fo;
		switch (op) {
		case A_ADD: n = o + x; break;
		case A_SUB: n = o - x; break;
		case A_INC: n = o + 1; break;
		case A_DEC: case A_PREDEC: n = o - 1; break;
		case A_MIN: n = o < x ? o : x; break;
		case A_MAX: n = o > x ? o : x; break;
		case A_XCHG: n = x; break;
		case A_CMPXCHG: n = y == o ? x : o; break;
		case A_AND: n = o & x; break;
		case A_OR: n = o | x; break;
		case A_XOR: n = o ^ x; break;
		case A_MINSINT: n = (int32_t)o < (int32_t)x ? o : x; break;
		case A_MAXSINT: n = (int32_t)o > (int32_t)x ? o : x; break;
		case A_FMAX: fn = fo > fx ? fo : fx; break;
		case A_FMIN: fn = fo < fx ? fo : fx; break;
		case A_FADD: fn = fo + fx; break;
		case A_FSUB: fn = fo - fx; break;
		case A_FCMPWR: fn = fy == fo ? fx : fo; break;
		}
		if (fl)
			memcpy(&n, &fn, 4);
		wa[i] = n;
		wr[i] = op == A_PREDEC ? n : o;
	}
	HShape s = WALK(1, 1);
	char opt[128];
	snprintf(opt, sizeof opt, "-DOP=ATOMIC_%s -DT=%s -DNSRC=%d", name,
	         fl ? "float" : op == A_MINSINT || op == A_MAXSINT ? "int" : "uint", nsrc);
	s.options = opt;
	if (H_RUN(h, "atomics", "atomics", s, INOUT(a), OUT(r), IN(s0), IN(s1))) {
		h_eq_u32(h, "memory", a, wa, 8);
		h_eq_u32(h, "returned", r, wr, 8);
	}
}

#define AT(n, s, f) TEST(atomic_##n) { atomic_test(h, A_##n, #n, s, f); }
AT(ADD, 1, false) AT(SUB, 1, false) AT(INC, 0, false) AT(DEC, 0, false)
AT(PREDEC, 0, false) AT(MIN, 1, false) AT(MAX, 1, false) AT(XCHG, 1, false)
AT(CMPXCHG, 2, false) AT(AND, 1, false) AT(OR, 1, false) AT(XOR, 1, false)
AT(MINSINT, 1, false) AT(MAXSINT, 1, false) AT(FMAX, 1, true) AT(FMIN, 1, true)
AT(FADD, 1, true) AT(FSUB, 1, true) AT(FCMPWR, 2, true)

TEST(svm)
{
	int32_t p[32], q[32], w[32] = {0};
	h_fill_i32(h, p, 32, -1000, 1000);
	memset(q, 0, sizeof q);
	for (int i = 0; i < 16; i++)
		w[i] = p[i] * 2;
	for (int i = 0; i < 8; i++)
		w[16 + i] = p[16 + 7 - i] + 1;
	w[24] = 8;
	if (H_RUN(h, F, "svm", WALK(1, 1), SVM_IN(p), SVM_OUT(q)))
		h_eq_i32(h, "out", q, w, 32);
}

TEST(slm)
{
	uint32_t a[16], o[64], w[64];
	for (int i = 0; i < 16; i++)
		a[i] = h_rand(h) % 100000;
	uint32_t slm[32];
	for (int i = 0; i < 16; i++)
		slm[15 - i] = a[i];
	for (int i = 0; i < 16; i++) {
		w[i] = a[i];
		w[16 + i] = slm[i];
		w[32 + i] = slm[i] * 2;
		w[48 + i] = slm[i] + (i == 0 ? 8 : 0);
	}
	if (H_RUN(h, F, "slm", GROUPS(1, 1), IN(a), OUT(o)))
		h_eq_u32(h, "out", o, w, 64);
}

TEST(legacy_atomic)
{
	uint32_t a[8], r[8], wa[8], wr[8];
	for (int i = 0; i < 8; i++)
		a[i] = wa[i] = h_rand(h) % 1000;
	for (int i = 0; i < 8; i++) {
		wr[i] = wa[i % 4];
		wa[i % 4] += 3;
	}
	for (int i = 0; i < 8; i++)
		wa[4 + i % 4] += 1;
	if (H_RUN(h, F, "legacy_atomic", WALK(1, 1), INOUT(a), OUT(r))) {
		h_eq_u32(h, "memory", a, wa, 8);
		for (int i = 0; i < 8; i++)   /* lanes on one address: any order */
			if ((int64_t)r[i] < (int64_t)wr[i % 4] - (i >= 4 ? 3 : 0) || r[i] > wr[i % 4] + 3)
				h_fail(h, "returned[%d] = %u", i, r[i]);
	}
}

TEST(svm_gather4)
{
	uint32_t p[32], q[32], w[32] = {0};
	for (int i = 0; i < 32; i++)
		p[i] = h_rand(h) % 1000;
	memset(q, 0, sizeof q);
	for (int i = 0; i < 8; i++)
		w[4 * i] = p[4 * i] + 1, w[4 * i + 1] = p[4 * i + 1] + 1;
	if (H_RUN(h, F, "svm4", WALK(1, 1), SVM_IN(p), SVM_OUT(q)))
		h_eq_u32(h, "out", q, w, 32);
}

/* Offsets whose block ends past 2^32 read 0 and drop writes (they wrapped
 * to byte 0 on the GPU, and the CPU's byte-by-byte path wrapped too). */
TEST(offset_wrap)
{
	uint32_t a[32], o[32], w[32] = {0};
	for (int i = 0; i < 32; i++)
		a[i] = h_rand(h) % 1000 + 1;
	for (int i = 0; i < 16; i++)
		w[16 + i] = 5;
	HShape s = GROUPS(1, 1);
	s.options = "-fno-bounds-check";   /* out of bounds on purpose */
	if (H_RUN(h, F, "wrap", s, IN(a), OUT(o), U32(0xfffffff0u)))
		h_eq_u32(h, "out", o, w, 32);
}

/* slmvec (memory.cm): merged SLM gathers/scatters, in range and partly
 * outside (reads 0, writes dropped), and a refused overlapping read. */
static void slmvec_case(H *h, uint32_t k, uint32_t wk, const char *options)
{
	float a[256], o[416], w[416], slm[256];
	h_fill_f32(h, a, 256, -100.0f, 100.0f);
	for (int i = 0; i < 256; i++)
		slm[i] = a[i];
	for (int j = 0; j < 4; j++)
		for (int l = 0; l < 32; l++) {
			uint32_t idx = l * 4 + k * 4 + (uint32_t)j;
			w[j * 32 + l] = idx < 256 ? a[idx] : 0.0f;
		}
	for (int l = 0; l < 32; l++)
		w[128 + l] = a[2 * l] + a[2 * l + 1] * 2 + a[2 * l + 2] * 3 + a[2 * l + 3] * 4;
	static const int from[4] = {3, 2, 1, 0};   /* x3 at +0, x2 at +1, x1 at +2, x0 at +3 */
	for (int j = 0; j < 4; j++)
		for (int l = 0; l < 32; l++) {
			uint32_t idx = l * 4 + wk * 4 + (uint32_t)j;
			if (idx < 256)
				slm[idx] = w[from[j] * 32 + l];
		}
	for (int i = 0; i < 256; i++)
		w[160 + i] = slm[i];
	HShape s = WALK(1, 1);
	s.options = options;
	if (H_RUN(h, F, "slmvec", s, IN(a), OUT(o), U32(k), U32(wk)))
		h_near_f32(h, "out", o, w, 416, 1e-6f);
}

TEST(slmvec)
{
	slmvec_case(h, (uint32_t)h_range(h, 0, 32), (uint32_t)h_range(h, 0, 32), NULL);
	slmvec_case(h, 40, 36, "-fno-bounds-check");   /* partly outside */
	slmvec_case(h, 3, 5, "-fno-slm-vectorize");
}

/* Lanes of thread t on one address: every lane (t 0), none (t 1), random
 * among 16 (t 2), random among 4 with lanes masked off and, when outside,
 * lanes outside the SLM (t 3). */
static uint32_t fadd_key(H *h, int t, int l, bool outside)
{
	switch (t) {
	case 0: return 5;
	case 1: return (uint32_t)l + 20;
	case 2: return (uint32_t)h_range(h, 0, 15);
	}
	uint32_t k = (uint32_t)h_range(h, 60, 63);
	if (l % 3 == 0)
		k |= 1u << 16;   /* masked off */
	if (outside && l % 5 == 1)
		k = l % 2 ? 64 : 1000;   /* dropped */
	return k;
}

/* outside: some lanes add outside the SLM, which -fbounds-check reports,
 * so those runs are built without it */
static void slm_fadd_case(H *h, bool outside, const char *options)
{
	uint32_t k[128];
	float v[128], o[64], w[64] = {0};
	for (int t = 0; t < 4; t++)
		for (int l = 0; l < 32; l++) {
			uint32_t x = k[t * 32 + l] = fadd_key(h, t, l, outside), a = x & 0xffff;
			v[t * 32 + l] = (float)h_range(h, -50, 50);
			if (a < 64)
				w[a] += (x >> 16 ? 0.0f : v[t * 32 + l]) - 1.0f;
		}
	for (int t = 0; t < 4; t++)   /* the 16-wide add, unmasked */
		for (int l = 0; l < 16; l++)
			if ((k[t * 32 + l] & 0xffff) < 64)
				w[k[t * 32 + l] & 0xffff] += v[t * 32 + 16 + l];
	HShape s = GROUPS(1, 4);
	s.options = options;
	if (H_RUN(h, F, "slm_fadd", s, IN(k), IN(v), OUT(o)))
		h_near_f32(h, "sums", o, w, 64, 0.0f);
}

TEST(slm_fadd)
{
	slm_fadd_case(h, false, NULL);
	slm_fadd_case(h, true, "-fno-bounds-check");
	slm_fadd_case(h, true, "-fno-bounds-check -fno-atomic-aggregation");
}

/* Odd lanes' keys saturate to 65535 (dropped) while sharing their low 16
 * bits with even lanes' in-range keys. */
TEST(slm_fadd_sat)
{
	uint32_t k[32];
	float v[32], o[64], w[64] = {0};
	for (int l = 0; l < 32; l++) {
		k[l] = (uint32_t)(l / 2 % 8) + (l % 2 ? 65536u : 0u);
		v[l] = (float)h_range(h, -50, 50);
		if (l % 2 == 0)
			w[l / 2 % 8] += v[l];
	}
	HShape s = GROUPS(1, 1);
	s.options = "-fno-bounds-check";   /* the dropped lanes are on purpose */
	if (H_RUN(h, F, "slm_fadd_sat", s, IN(k), IN(v), OUT(o)))
		h_near_f32(h, "sums", o, w, 64, 0.0f);
}

const HTest exec_memory[] = {
	T(offset_wrap), T(legacy_atomic), T(svm_gather4), T(oword), T(scattered), T(media_clamp), T(untyped), T(typed),
	T(atomic_ADD), T(atomic_SUB), T(atomic_INC), T(atomic_DEC), T(atomic_PREDEC),
	T(atomic_MIN), T(atomic_MAX), T(atomic_XCHG), T(atomic_CMPXCHG), T(atomic_AND),
	T(atomic_OR), T(atomic_XOR), T(atomic_MINSINT), T(atomic_MAXSINT),
	T(atomic_FMAX), T(atomic_FMIN), T(atomic_FADD), T(atomic_FSUB), T(atomic_FCMPWR),
	T(svm), T(slm), T(slmvec), T(slm_fadd), T(slm_fadd_sat), {0},
};
