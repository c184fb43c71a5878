/* dataport.c — the memory forms memory.c leaves out (dataport.cm): 2D and
 * scattered reads with attributes, write(s, g, e, x), HWord and QWord
 * accesses, masked atomics, every SLM form in one group kernel, unaligned
 * SVM blocks and svm_atomic<op>, and the thread-space odds and ends. */
#include "harness.h"

#define F "dataport"

TEST(attr_forms)
{
	enum { W = 16, HH = 8 };
	static uint32_t s[HH][W], o[HH][W], w[HH][W];
	uint32_t a[64], b[64] = {0}, wb[64] = {0};
	for (int y = 0; y < HH; y++)
		for (int x = 0; x < W; x++)
			s[y][x] = h_rand(h), o[y][x] = w[y][x] = 0;
	for (int r = 0; r < 4; r++)
		for (int c = 0; c < 8; c++)
			w[1 + r][2 + c] = s[2 + r][1 + c] + 1;
	for (int i = 0; i < 64; i++)
		a[i] = h_rand(h) % 100000;
	uint32_t base = (uint32_t)h_range(h, 0, 40);
	for (int i = 0; i < 8; i++)
		wb[3 * i] = a[base + 3 * i] * 5;
	wb[base + 1] = a[base + 21] + 9;
	if (H_RUN(h, F, "attrs", WALK(1, 1), SURF2D(s, W, HH, CMETAL_FMT_R32_UINT),
	          SURF2D(o, W, HH, CMETAL_FMT_R32_UINT), IN(a), INOUT(b), U32(base))) {
		h_eq_u32(h, "2d", &o[0][0], &w[0][0], W * HH);
		h_eq_u32(h, "scattered", b, wb, 64);
	}
}

TEST(hword_qword)
{
	uint32_t a[16], o[16], w[16];
	double q[8], qo[8] = {0}, wq[8];
	for (int i = 0; i < 16; i++)
		a[i] = h_rand(h), w[i] = a[i] * 3;
	for (int i = 0; i < 8; i++)
		q[i] = h_float(h, -1000, 1000), wq[i] = q[i] * 2;
	if (H_RUN(h, F, "hq", WALK(1, 1), IN(a), OUT(o), IN(q), OUT(qo))) {
		h_eq_u32(h, "hword", o, w, 16);
		for (int i = 0; i < 8; i++)
			if (qo[i] != wq[i])
				h_fail(h, "qword[%d] = %g, expected %g", i, qo[i], wq[i]);
	}
}

TEST(atomic_masked)
{
	uint32_t a[8], x[8], r[8], wa[8];
	uint32_t bits = h_rand(h) & 0xFF;
	for (int i = 0; i < 8; i++) {
		a[i] = h_rand(h) % 1000, x[i] = h_rand(h) % 1000;
		wa[i] = (bits >> i) & 1 ? a[i] + x[i] : a[i];
	}
	uint32_t a0[8];
	memcpy(a0, a, sizeof a);
	if (H_RUN(h, F, "amask", WALK(1, 1), INOUT(a), IN(x), OUT(r), U32(bits))) {
		h_eq_u32(h, "memory", a, wa, 8);
		for (int i = 0; i < 8; i++)
			if ((bits >> i) & 1 && r[i] != a0[i])
				h_fail(h, "old[%d] = %u, expected %u", i, r[i], a0[i]);
	}
}

TEST(slm_forms)
{
	enum { G = 2, N = 4, ROWS = 7 };
	static uint32_t a[G * 512], p[G * 512], o[G * N * ROWS * 16], w[G * N * ROWS * 16];
	for (int i = 0; i < G * 512; i++)
		a[i] = h_rand(h) % 1000000, p[i] = h_rand(h) % 1000000;
	for (int g = 0; g < G; g++) {
		const uint32_t *A = a + g * 512, *P = p + g * 512;
		uint32_t s3[256] = {0}, row[N][4][16];
		for (int t = 0; t < N; t++) {
			for (int i = 0; i < 16; i++) {
				row[t][0][i] = A[t * 16 + i];
				row[t][1][i] = P[t * 16 + 1 + i];
			}
			for (int i = 0; i < 8; i++) {
				row[t][2][i] = A[t * 16 + 2 * i], row[t][2][8 + i] = A[t * 16 + 2 * i + 1];
				row[t][3][i] = P[t * 16 + 2 * i], row[t][3][8 + i] = P[t * 16 + 2 * i + 1];
			}
			for (int i = 0; i < 16; i++)
				s3[t * 16 + i] = row[t][0][i] + 1;
			for (int i = 0; i < 8; i++) {
				s3[64 + t * 16 + 2 * i] = row[t][2][i] + 2;
				s3[64 + t * 16 + 2 * i + 1] = row[t][2][8 + i] + 2;
				s3[128 + t * 16 + 2 * i] = row[t][3][i] + 3;
				s3[128 + t * 16 + 2 * i + 1] = row[t][3][8 + i] + 3;
			}
		}
		for (int t = 0; t < N; t++) {
			uint32_t *W = w + (g * N + t) * ROWS * 16;
			int nb = (t + 1) % N;
			for (int r = 0; r < 4; r++)
				memcpy(W + r * 16, row[t][r], 64);
			for (int r = 0; r < 3; r++)
				memcpy(W + (4 + r) * 16, s3 + r * 64 + nb * 16, 64);
		}
	}
	if (H_RUN(h, F, "slmforms", GROUPS(G, N), IN(a), SVM_IN(p), OUT(o)))
		h_eq_u32(h, "out", o, w, G * N * ROWS * 16);
}

TEST(svm_forms)
{
	uint32_t p[16], q[24], w[24];
	for (int i = 0; i < 16; i++)
		p[i] = h_rand(h) % 100000;
	for (int i = 0; i < 24; i++)
		q[i] = h_rand(h) % 100000;
	memcpy(w, q, sizeof q);
	for (int i = 0; i < 8; i++)
		w[i] = p[1 + i];
	for (int i = 0; i < 8; i++) {
		int k = (i * 3) % 8;
		w[16 + i] = q[8 + k];
		w[8 + k] = q[8 + k] + p[1 + i];
	}
	if (H_RUN(h, F, "svmforms", WALK(1, 1), SVM_IN(p), SVM_OUT(q)))
		h_eq_u32(h, "out", q, w, 24);
}

TEST(thread_misc)
{
	enum { G = 3, N = 2 };
	uint32_t o[G * N * 4], w[G * N * 4];
	for (int t = 0; t < G * N; t++)
		w[t * 4] = 0, w[t * 4 + 1] = N, w[t * 4 + 2] = G, w[t * 4 + 3] = 1;
	if (H_RUN(h, F, "misc", GROUPS(G, N), OUT(o)))
		h_eq_u32(h, "out", o, w, G * N * 4);
}

/* 104 surfaces and a scalar: past the CUDA device's kernel parameter
 * space with every descriptor in it (dataport.cm "many"), in a group and
 * a walker launch, k odd and even (the run-time choice of s1 or s101). */
TEST(many_surfaces)
{
	enum { NS = 104, N = 8, E = N * 8 };
	static uint32_t b[NS - 1][E], m[2 * N][8], w[E], w50[E];
	HArg a[NS + 1];
	for (int i = 0; i < NS - 1; i++) {
		for (int j = 0; j < E; j++)
			b[i][j] = h_rand(h) % 100000;
		a[i] = (HArg){i == 50 || i == 102 ? HA_OUT : HA_IN, b[i], sizeof b[i]};
	}
	for (int r = 0; r < 2 * N; r++)
		for (int j = 0; j < 8; j++)
			m[r][j] = h_rand(h) % 100000;
	a[NS - 1] = SURF2D(m, 8, 2 * N, CMETAL_FMT_R32_UINT);
	for (int run = 0; run < 2; run++) {
		int k = h_range(h, 2, 9) | run;
		for (int j = 0; j < E; j++) {
			uint32_t t = (uint32_t)j / 8, e = (uint32_t)j % 8;
			uint32_t d = k & 1 ? b[1][j] : b[101][j];
			w[j] = b[0][j] + b[100][j] * 2 + b[101][j] * 3 + m[2 * t][e] * (uint32_t)k +
			       m[2 * t + 1][e] + d * 5;
			w50[j] = w[j] + 1;
		}
		a[NS] = I32(k);
		HShape sh = run ? WALK(N, 1) : GROUPS(2, N / 2);
		if (h_run_n(h, F, "many", sh, a, NS + 1)) {
			h_eq_u32(h, "s102", b[102], w, E);
			h_eq_u32(h, "s50", b[50], w50, E);
		}
	}
}

const HTest exec_dataport[] = {
	T(attr_forms), T(hword_qword), T(atomic_masked), T(slm_forms), T(svm_forms),
	T(thread_misc), T(many_surfaces),
	{0},
};
