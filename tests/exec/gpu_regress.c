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

/* One shifted<T, N, AT> of shifted_reads: 96 elements of T, 7 + 1 except
 * N elements from byte `from` of a (0 past its end) at AT, plus 1. */
static void r_shifted(const uint8_t *a, size_t abytes, size_t from, uint8_t *out, int size,
                      int n, int at, int is_float)
{
	for (int k = 0; k < 96; k++) {
		uint8_t x[8] = {0};
		int64_t iv = 7;
		double dv = 7;
		if (k >= at && k < at + n) {
			size_t b = from + (size_t)(k - at) * (size_t)size;
			if (b + (size_t)size <= abytes)
				memcpy(x, a + b, (size_t)size);
			if (is_float) {
				memcpy(&dv, x, 8);
			} else if (size == 4) {
				uint32_t u; memcpy(&u, x, 4); iv = u;
			} else if (size == 2) {
				int16_t u; memcpy(&u, x, 2); iv = u;
			} else {
				iv = x[0];
			}
		}
		if (is_float) {
			dv += 1;
			memcpy(out + k * size, &dv, 8);
		} else {
			iv += 1;
			memcpy(out + k * size, &iv, (size_t)size);   /* little endian: low bytes */
		}
	}
}

TEST(shifted_block_reads)
{
	enum { N = 4, ABYTES = 4096, OBYTES = N * 2048 };
	static uint8_t a[ABYTES], o[OBYTES], w[OBYTES];
	for (int i = 0; i < ABYTES; i++)
		a[i] = (uint8_t)h_rand(h);
	uint32_t near_end = ABYTES - 48;	/* 16-byte aligned, most of each block past the end */
	memset(w, 0, sizeof w);
	for (int t = 0; t < N; t++) {
		size_t base = t == 3 ? near_end : (size_t)t * 512, ob = (size_t)t * 2048;
		r_shifted(a, ABYTES, base, w + ob, 4, 32, 48, 0);
		r_shifted(a, ABYTES, base, w + ob + 384, 8, 16, 16, 1);
		r_shifted(a, ABYTES, base, w + ob + 384 + 768, 1, 64, 20, 0);
		r_shifted(a, ABYTES, base, w + ob + 384 + 768 + 96, 2, 16, 40, 0);
	}
	/* reads past the end are legal CM (they give 0): no checking mode */
	HShape s = GROUPS(2, 2);
	s.options = "-fno-bounds-check";
	if (H_RUN(h, F, "shifted_reads", s, IN(a), OUT(o), U32(near_end)))
		h_eq_u8(h, "out", o, w, OBYTES);
}

/* media_copy's reference (gpu_regress.cm): thread (tx, ty) reads an R x C
 * block of eb-byte pixels at pixel (tx C + dx, ty R + dy), clamped to the
 * edge, and writes it plus one at (tx C, ty R), dropping what is outside. */
static void r_media(const uint8_t *s, uint8_t *w, int W, int HH, int eb, int R, int C, int dx,
                    int dy, int nx, int ny)
{
	for (int ty = 0; ty < ny; ty++)
		for (int tx = 0; tx < nx; tx++)
			for (int r = 0; r < R; r++)
				for (int c = 0; c < C; c++) {
					int sy = ty * R + dy + r, sx = tx * C + dx + c;
					sy = sy < 0 ? 0 : sy >= HH ? HH - 1 : sy;
					sx = sx < 0 ? 0 : sx >= W ? W - 1 : sx;
					int oy = ty * R + r, ox = tx * C + c;
					if (oy >= HH || ox >= W)
						continue;
					uint64_t v = 0;
					memcpy(&v, s + ((size_t)sy * W + sx) * eb, eb);
					v++;
					memcpy(w + ((size_t)oy * W + ox) * eb, &v, eb);
				}
}

#define MEDIA_CASE(kernel, FMT, EB, R, C, DX, DY, W, HH)                          \
	do {                                                                      \
		static uint8_t s[(HH) * (W) * (EB)], o[(HH) * (W) * (EB)],        \
			w[(HH) * (W) * (EB)];                                     \
		for (size_t i = 0; i < sizeof s; i++)                             \
			s[i] = (uint8_t)h_rand(h);                                \
		memset(o, 0, sizeof o);                                           \
		memset(w, 0, sizeof w);                                           \
		int nx = ((W) + (C) - 1) / (C), ny = ((HH) + (R) - 1) / (R);      \
		r_media(s, w, W, HH, EB, R, C, DX, DY, nx, ny);                   \
		HShape sh = WALK(nx, ny);                                         \
		sh.options = "-fno-bounds-check"; /* edge tiles write outside */  \
		if (H_RUN(h, F, kernel, sh, SURF2D(s, W, HH, FMT),                \
		          SURF2D(o, W, HH, FMT)))                                 \
			h_eq_u8(h, kernel, o, w, sizeof o);                       \
	} while (0)

TEST(media_blocks)
{
	MEDIA_CASE("media_u8_4x64", CMETAL_FMT_R8_UINT, 1, 4, 64, -3, -1, 200, 15);
	MEDIA_CASE("media_u8_4x48", CMETAL_FMT_R8_UINT, 1, 4, 48, -1, 2, 170, 14);
	MEDIA_CASE("media_u16_4x20", CMETAL_FMT_R16_UINT, 2, 4, 20, -2, -1, 75, 20);
	MEDIA_CASE("media_u32_4x16", CMETAL_FMT_R32_UINT, 4, 4, 16, 1, -3, 60, 14);
}

/* media_sel's reference (gpu_regress.cm): thread (tx, ty) writes R x W
 * pixels at (tx W, ty R), each one plus the pixel c0 + dx columns and dy
 * rows away, clamped to the edge; what is outside is dropped. */
static void r_media_sel(const uint8_t *s, uint8_t *w, int W, int HH, int eb, int R, int TW,
                        int c0, int dx, int dy, int nx, int ny)
{
	for (int ty = 0; ty < ny; ty++)
		for (int tx = 0; tx < nx; tx++)
			for (int r = 0; r < R; r++)
				for (int j = 0; j < TW; j++) {
					int sy = ty * R + dy + r, sx = tx * TW + dx + c0 + j;
					sy = sy < 0 ? 0 : sy >= HH ? HH - 1 : sy;
					sx = sx < 0 ? 0 : sx >= W ? W - 1 : sx;
					int oy = ty * R + r, ox = tx * TW + j;
					if (oy >= HH || ox >= W)
						continue;
					uint64_t v = 0;
					memcpy(&v, s + ((size_t)sy * W + sx) * eb, eb);
					v++;
					memcpy(w + ((size_t)oy * W + ox) * eb, &v, eb);
				}
}

#define SEL_CASE(kernel, FMT, EB, R, TW, C0, DX, DY, W, HH)                       \
	do {                                                                      \
		static uint8_t s[(HH) * (W) * (EB)], o[(HH) * (W) * (EB)],        \
			w[(HH) * (W) * (EB)];                                     \
		for (size_t i = 0; i < sizeof s; i++)                             \
			s[i] = (uint8_t)h_rand(h);                                \
		memset(o, 0, sizeof o);                                           \
		memset(w, 0, sizeof w);                                           \
		int nx = ((W) + (TW) - 1) / (TW), ny = ((HH) + (R) - 1) / (R);    \
		r_media_sel(s, w, W, HH, EB, R, TW, C0, DX, DY, nx, ny);          \
		HShape sh = WALK(nx, ny);                                         \
		sh.options = "-fno-bounds-check"; /* edge tiles write outside */  \
		if (H_RUN(h, F, kernel, sh, SURF2D(s, W, HH, FMT),                \
		          SURF2D(o, W, HH, FMT)))                                 \
			h_eq_u8(h, kernel, o, w, sizeof o);                       \
	} while (0)

TEST(media_rows)
{
	SEL_CASE("sel_u8_4x48", CMETAL_FMT_R8_UINT, 1, 4, 48, 1, -2, -1, 200, 15);
	SEL_CASE("sel_u16_4x24", CMETAL_FMT_R16_UINT, 2, 4, 24, 5, -3, 1, 75, 18);
	SEL_CASE("sel_u32_4x8", CMETAL_FMT_R32_UINT, 4, 4, 8, 3, -1, -2, 60, 14);
}

/* walker_filter's reference (gpu_regress.cm) on a W x HH image of 4-byte
 * pixels: reads clamp to the edge pixel, writes outside are dropped. */
static void r_walker_filter(const uint8_t *in, uint8_t *out, int W, int HH, int nx, int ny)
{
	for (int v = 0; v < ny; v++)
		for (int h = 0; h < nx; h++)
			for (int r = 0; r < 6; r++)
				for (int b = 0; b < 24; b++) {
					unsigned sum = 0;
					for (int i = 0; i < 3; i++)
						for (int j = 0; j < 3; j++) {
							int y = v * 6 + r + i, x = h * 24 + b + 4 * j;
							int px = x / 4, ch = x % 4;
							px = px >= W ? W - 1 : px;
							y = y >= HH ? HH - 1 : y;
							sum += in[((size_t)y * W + px) * 4 + ch];
						}
					int oy = v * 6 + 1 + r, ox = h * 24 + 4 + b;
					if (oy < HH && ox < W * 4)
						out[(size_t)oy * W * 4 + ox] = (uint8_t)((sum + 4) / 9);
				}
}

TEST(walker_filter)
{
	enum { W = 640, HH = 480 };
	static uint8_t s[HH][W * 4], o[HH][W * 4], w[HH][W * 4];
	for (int y = 0; y < HH; y++)
		for (int x = 0; x < W * 4; x++)
			s[y][x] = (uint8_t)h_rand(h);
	memset(o, 0, sizeof o);
	memset(w, 0, sizeof w);
	int nx = (W + 5) / 6, ny = (HH + 5) / 6;
	r_walker_filter(&s[0][0], &w[0][0], W, HH, nx, ny);
	HShape sh = WALK(nx, ny);
	sh.options = "-fno-bounds-check"; /* edge blocks write outside */
	if (H_RUN(h, F, "walker_filter", sh, SURF2D(s, W, HH, CMETAL_FMT_A8R8G8B8),
	          SURF2D(o, W, HH, CMETAL_FMT_A8R8G8B8)))
		h_eq_u8(h, "out", &o[0][0], &w[0][0], sizeof o);
}

/* row_groups' reference (gpu_regress.cm): element i of a table of n reads
 * 0 outside it. */
static double r_row_sums(const double *tab, int n, int w, int shift, int rows, int is_u16)
{
	double acc = 0;
	for (int r = 0; r < rows; r++)
		for (int d = 0; d < w; d++) {
			int i = r * w + shift + d;
			double x = i >= 0 && i < n ? tab[i] : 0;
			if (is_u16)
				acc = (uint16_t)(uint32_t)(acc + x * (d + 1));
			else
				acc += x * (d + 1);
		}
	return acc;
}

TEST(row_groups)
{
	enum { N = 4 };
	static float a[N * 64], o[N * 8], w[N * 8];
	for (int i = 0; i < N * 64; i++)
		a[i] = (float)(h_rand(h) % 200);
	int shift = (int)h_range(h, 0, 1), rows = 3 + (int)h_range(h, 0, 2);
	for (int t = 0; t < N; t++) {
		double f[64], dd[32], s[64];
		for (int i = 0; i < 64; i++) {
			f[i] = a[t * 64 + i];
			s[i] = (uint16_t)a[t * 64 + i];
		}
		for (int i = 0; i < 32; i++)
			dd[i] = f[2 * i] * 0.5;
		memset(w + t * 8, 0, 8 * sizeof *w);
		w[t * 8 + 0] = (float)r_row_sums(f, 64, 16, shift, rows, 0);
		w[t * 8 + 1] = (float)r_row_sums(f, 64, 8, shift, rows + 2, 0);
		w[t * 8 + 2] = (float)r_row_sums(dd, 32, 4, shift, rows, 0);
		w[t * 8 + 3] = (float)r_row_sums(s, 64, 8, shift, rows, 1);
	}
	HShape sh = GROUPS(2, 2);
	sh.options = "-fno-bounds-check"; /* rows past the table's end on purpose */
	if (H_RUN(h, F, "row_groups", sh, IN(a), OUT(o), I32(shift), I32(rows)))
		h_near_f32(h, "out", o, w, N * 8, 1e-6f);
}

/* narrow_ranges' reference (gpu_regress.cm), C's conversions. */
static void r_narrow(const uint8_t *in, int32_t *out)
{
	for (int i = 0; i < 32; i++) {
		uint8_t x = in[i], y = in[32 + i], z = in[64 + i];
		uint16_t h = (uint16_t)(x + y + z);
		out[i] = h;
		out[32 + i] = (uint8_t)(x + y);
		out[64 + i] = (uint8_t)(((uint32_t)h + 4) * 7282 >> 16);
		out[96 + i] = (uint16_t)(h * h);
		out[128 + i] = (int8_t)x;
		out[160 + i] = (int8_t)(x >> 1);
		int s = (int16_t)(x - 300);
		out[192 + i] = s < h ? s : (int16_t)h;
		out[224 + i] = h >> 3;
	}
}

TEST(narrow_ranges)
{
	enum { N = 4 };
	static uint8_t a[N * 96];
	static int32_t o[N * 256], w[N * 256];	/* 232 of each 256 written */
	for (int i = 0; i < N * 96; i++)
		a[i] = (uint8_t)h_rand(h);
	for (int i = 0; i < 96; i += 7)	/* the edges: every byte 255 or 0 */
		a[i] = 255, a[96 + i] = 0;
	for (int t = 0; t < N; t++)
		r_narrow(a + t * 96, w + t * 256);
	if (H_RUN(h, F, "narrow_ranges", GROUPS(2, 2), IN(a), OUT(o)))
		h_eq_u32(h, "out", (uint32_t *)o, (uint32_t *)w, N * 256);
}

/* Element k of a 16-dword block read at u32 offset o of a buffer of n
 * bytes: 0 past its end (an offset past 2^32 does not wrap to byte 0). */
static void r_block16(const uint32_t *a, uint64_t n, uint32_t o, uint32_t *out)
{
	for (int k = 0; k < 16; k++) {
		uint64_t b = (uint64_t)o + 4 * (uint64_t)k;
		out[k] = b + 4 <= n ? a[b / 4] : 0;
	}
}

TEST(block_groups)
{
	enum { N = 4, A = 1024 };
	static uint32_t a[A], o[N * 128], w[N * 128], offs[8];
	static uint32_t slm[256];
	for (int i = 0; i < A; i++)
		a[i] = h_rand(h);
	/* inside; past the end; before the start; wrapping past 2^32 */
	offs[0] = 256, offs[1] = 4 * A - 100, offs[2] = 16, offs[3] = 0xffffffe0u;
	memset(slm, 0, sizeof slm);
	memset(w, 0, sizeof w);
	for (int t = 0; t < N; t++) {
		uint32_t r[4][16], *d = w + t * 128;
		static const int32_t c[4] = {0, 64, -32, 128};
		for (int k = 0; k < 4; k++)
			r_block16(a, sizeof a, offs[t] + (uint32_t)c[k], r[k]);
		for (int k = 0; k < 16; k++) {
			slm[t * 64 + k] = r[0][k] + r[1][k];
			slm[t * 64 + 16 + k] = r[2][k] + r[3][k];
			slm[t * 64 + 32 + k] = r[0][k] ^ r[2][k];
			slm[t * 64 + 48 + k] = r[1][k] ^ r[3][k];
		}
		memcpy(d, r, sizeof r);
	}
	for (int t = 0; t < N; t++) {	/* the SLM reads, after every write */
		r_block16(slm, sizeof slm, (uint32_t)t * 256 + 32, w + t * 128 + 64);
		r_block16(slm, sizeof slm, (uint32_t)t * 256 + 224, w + t * 128 + 80);
	}
	HShape sh = GROUPS(1, N);
	sh.options = "-fno-bounds-check"; /* reads outside on purpose */
	if (H_RUN(h, F, "block_groups", sh, IN(a), OUT(o), IN(offs)))
		h_eq_u32(h, "out", o, w, N * 128);
}

/* Element k of a block read of elements of s bytes at u32 offset o of a
 * buffer of n bytes (little-endian, zero-extended to 64 bits): 0 past its
 * end, and past 2^32 (no wrap to byte 0). */
static uint64_t r_elem(const uint8_t *a, uint64_t n, uint32_t o, int k, int s)
{
	uint64_t at = (uint64_t)o + (uint64_t)k * (uint64_t)s, x = 0;
	if (at + (uint64_t)s > n)
		return 0;
	memcpy(&x, a + at, (size_t)s);
	return x;
}

/* lane_limits' expected output of thread t and its stores (see the
 * kernel in gpu_regress.cm). */
static void r_lane_limits(const uint8_t *a, uint32_t o1, uint32_t o2, uint32_t t,
                          int32_t *out, uint8_t *st, uint8_t *st2)
{
	uint32_t b = t * 48;
	int32_t *w = out + t * 256;
	for (int k = 0; k < 32; k++) {
		uint64_t x = k < 16 ? r_elem(a, 1008, o1 + b, k, 8) : r_elem(a, 1008, o2 + b, k - 16, 8);
		memcpy(&w[2 * k], &x, 8);
	}
	for (int k = 0; k < 32; k++) {
		uint32_t x = (uint32_t)(k < 16 ? r_elem(a, 1008, o2 + b, k, 4)
		                               : r_elem(a, 1008, o1 + b, k - 16, 4));
		memcpy(&w[64 + k], &x, 4);
	}
	for (int k = 0; k < 24; k++)
		w[96 + k] = (int32_t)r_elem(a, 1008, o1 + b, k, 4);
	for (int k = 0; k < 32; k++) {
		float g = -1.0f;
		if (k >= 16) {
			uint32_t x = (uint32_t)r_elem(a, 1008, o2 + b, k - 16, 4);
			memcpy(&g, &x, 4);
		}
		memcpy(&w[128 + k], &g, 4);
	}
	uint8_t c[48];
	for (int k = 0; k < 48; k++)
		w[160 + k] = c[k] = (uint8_t)r_elem(a, 1008, o1 + b + 16, k, 1);
	uint16_t s[24];
	for (int k = 0; k < 24; k++)
		w[208 + k] = s[k] = (uint16_t)r_elem(a, 1008, o2 + b + 32, k, 2);
	for (int k = 0; k < 64; k++) {
		uint64_t at = (uint64_t)(uint32_t)(o2 + t * 64) + (uint64_t)k;
		if (at < 1008)
			st[at] = k < 48 ? (uint8_t)(c[k] + 1) : 7;
	}
	for (int k = 0; k < 8; k++) {
		uint64_t at = (uint64_t)(uint32_t)(o1 + b + 64) + 2 * (uint64_t)k;
		if (at + 2 <= 1008)
			memcpy(st2 + at, &s[k], 2);
	}
}

TEST(lane_limits)
{
	enum { N = 8 };
	static uint8_t a[1008], st[1008], sw[1008], st2[1008], sw2[1008];
	static int32_t o[N * 256], w[N * 256];	/* 232 of each 256 written */
	for (int i = 0; i < 1008; i++)
		a[i] = (uint8_t)h_rand(h);
	/* inside, across the end, past 2^32 (wrapping to the start) */
	static const uint32_t offs[][2] = {
		{0, 512}, {736, 608}, {992, 0}, {0xffffff80u, 0xfffffff0u}, {0xfffffe80u, 400},
	};
	for (size_t c = 0; c < sizeof offs / sizeof offs[0] && !h->failed; c++) {
		uint32_t o1 = offs[c][0] + 16 * (uint32_t)h_range(h, 0, 2), o2 = offs[c][1];
		memset(o, 0x55, sizeof o);
		memset(w, 0x55, sizeof w);
		for (int i = 0; i < 1008; i++)
			st[i] = sw[i] = (uint8_t)h_rand(h), st2[i] = sw2[i] = (uint8_t)h_rand(h);
		for (uint32_t t = 0; t < N; t++)
			r_lane_limits(a, o1, o2, t, w, sw, sw2);
		HShape sh = GROUPS(2, N / 2);
		sh.options = "-fno-bounds-check"; /* reads and writes outside on purpose */
		if (!H_RUN(h, F, "lane_limits", sh, IN(a), INOUT(o), INOUT(st), INOUT(st2), U32(o1),
		           U32(o2), I32(1)))
			return;
		if (!h_eq_i32(h, "out", o, w, N * 256) || !h_eq_u8(h, "stored", st, sw, 1008) ||
		    !h_eq_u8(h, "stored2", st2, sw2, 1008))
			h_fail(h, "offsets 0x%x 0x%x", o1, o2);
	}
}

/* A media read of a uint at byte x, row y of a W x HH R32 surface: both
 * clamped to the edge. */
static uint32_t r_pixel(const uint32_t *s, int W, int HH, int x, int y)
{
	int px = x / 4;
	px = px < 0 ? 0 : px >= W ? W - 1 : px;
	y = y < 0 ? 0 : y >= HH ? HH - 1 : y;
	return s[(size_t)y * W + px];
}

/* A media write of v at byte x, row y: dropped outside. */
static void r_put(uint32_t *o, int W, int HH, int x, int y, uint32_t v)
{
	if (x >= 0 && x / 4 < W && y >= 0 && y < HH)
		o[(size_t)y * W + x / 4] = v;
}

/* media_span: each pixel of a 37 x 13 image of floats inside the 32 x 8
 * box at (x, y) gets j + 1 added, j its tile (8 x 2, four a row); the
 * rest is unchanged. */
TEST(media_span)
{
	enum { W = 37, HH = 13 };
	static const int at[][2] = {{0, 0}, {5, 5}, {20, 0}, {0, 9}, {-6, 3}, {3, -4},
	                            {36, 12}, {-32, 0}, {37, 2}};
	static float c[W * HH], c0[W * HH];
	for (size_t t = 0; t < sizeof at / sizeof at[0]; t++) {
		int x = at[t][0], y = at[t][1];
		for (int i = 0; i < W * HH; i++)
			c0[i] = c[i] = h_float(h, -100, 100);
		HShape sh = WALK(1, 1);
		sh.options = "-fno-bounds-check"; /* the writes outside are on purpose */
		if (!H_RUN(h, F, "media_span", sh, SURF2D(c, W, HH, CMETAL_FMT_R32F), I32(x), I32(y)))
			return;
		for (int Y = 0; Y < HH; Y++)
			for (int X = 0; X < W; X++) {
				int r = Y - y, n = X - x;
				float want = c0[Y * W + X];
				if (r >= 0 && r < 8 && n >= 0 && n < 32)
					want += (float)(r / 2 * 4 + n / 8 + 1);
				if (c[Y * W + X] != want) {
					h_fail(h, "box at (%d, %d): C[%d][%d] = %g, expected %g", x, y, Y,
					       X, c[Y * W + X], want);
					return;
				}
			}
	}
}

TEST(media_groups)
{
	enum { W = 100, HH = 21, NX = 5, NY = 4 };
	static uint32_t s[HH * W], o[HH * W], w[HH * W];
	for (int i = 0; i < HH * W; i++)
		s[i] = h_rand(h), o[i] = w[i] = h_rand(h);
	for (int ty = 0; ty < NY; ty++)
		for (int tx = 0; tx < NX; tx++) {
			int x0 = tx * 128 - 120, y0 = ty * 10 - 9;
			for (int r = 0; r < 4; r++)
				for (int c = 0; c < 16; c++) {
					uint32_t a = r_pixel(s, W, HH, x0 + 4 * c, y0 + r);
					uint32_t cc = r_pixel(s, W, HH, x0 - 8 + 4 * c, y0 + 5 + r);
					r_put(w, W, HH, x0 + 4 * c, y0 + r, a * 3 + cc);
				}
			for (int r = 0; r < 8; r++)
				for (int c = 0; c < 8; c++) {
					uint32_t b = r_pixel(s, W, HH, x0 + 4 + 4 * c, y0 + 1 + r);
					r_put(w, W, HH, x0 + 64 + 4 * c, y0 + r, b ^ 0x5a5a5a5au);
				}
		}
	HShape sh = WALK(1, 1);
	sh.grouped = true;
	sh.groups[0] = NX, sh.groups[1] = NY, sh.groups[2] = 1;
	sh.threads[0] = sh.threads[1] = sh.threads[2] = 1;
	sh.options = "-fno-bounds-check"; /* edge tiles on purpose */
	if (H_RUN(h, F, "media_groups", sh, SURF2D(s, W, HH, CMETAL_FMT_R32_UINT),
	          SURF2D(o, W, HH, CMETAL_FMT_R32_UINT)))
		h_eq_u32(h, "out", o, w, HH * W);
}

TEST(columns_from_slm)
{
	enum { N = 4, REPS = 3 };
	static uint32_t a[N * 512], o[N * 2048], w[N * 2048];
	for (int i = 0; i < N * 512; i++)
		a[i] = h_rand(h);
	memset(o, 0, sizeof o);
	memset(w, 0, sizeof w);
	for (int t = 0; t < N; t++) {
		for (int d = 0; d < 16; d++)
			for (int k = 0; k < 32; k++)
				w[t * 2048 + d * 32 + k] = a[t * 512 + k * 16 + d];
		for (int r = 0; r < REPS; r++)
			for (int k = 0; k < 16; k++) {
				/* element e of m: a[t * 512 + r * 8 + e % 512], past the end 0 */
				uint32_t x[2];
				for (int c = 0; c < 2; c++) {
					int e = k * 48 + (c ? 47 : 5);
					size_t at = (size_t)t * 512 + r * 8 + e % 512;
					x[c] = at < N * 512 ? a[at] : 0;
				}
				w[t * 2048 + 512 + r * 16 + k] = x[0] + x[1] * 3;
			}
	}
	HShape sh = GROUPS(2, N / 2);
	sh.options = "-fno-bounds-check"; /* the last thread reads past the end on purpose */
	if (H_RUN(h, F, "columns", sh, IN(a), INOUT(o), I32(REPS)))
		h_eq_u32(h, "out", o, w, N * 2048);
}

TEST(straddle_end)
{
	static uint8_t a[1004], st[1004], sw[1004];
	static uint8_t o[256], w[256];
	for (int i = 0; i < 1004; i++)
		a[i] = (uint8_t)h_rand(h), st[i] = sw[i] = (uint8_t)h_rand(h);
	memset(w, 0, sizeof w);
	/* doubles at 880 + 8k: k = 15 (bytes 1000..1007) straddles the end */
	memcpy(w, a + 880, 15 * 8);
	/* floats at 900 + 4k: k = 26 (bytes 1004..1007) and past are outside */
	memcpy(w + 128, a + 900, 26 * 4);
	double two = 2.5;
	for (int k = 0; k < 15; k++)
		memcpy(sw + 880 + 8 * k, &two, 8);
	HShape sh = GROUPS(1, 1);
	sh.options = "-fno-bounds-check"; /* past the end on purpose */
	if (H_RUN(h, F, "straddle", sh, IN(a), OUT(o), INOUT(st)) &&
	    h_eq_u8(h, "read", o, w, 256))
		h_eq_u8(h, "stored", st, sw, 1004);
}

/* Element x, y of a W x HH image of eb-byte pixels as a media read sees
 * it: clamped to the edge. */
static unsigned px_at(const uint8_t *s, int W, int HH, int eb, int x, int y)
{
	x = x < 0 ? 0 : x >= W ? W - 1 : x;
	y = y < 0 ? 0 : y >= HH ? HH - 1 : y;
	uint16_t v = 0;
	memcpy(&v, s + ((size_t)y * W + x) * eb, eb);
	return v;
}

static void put_px(uint8_t *o, int W, int HH, int eb, int x, int y, unsigned v)
{
	if (x >= 0 && x < W && y >= 0 && y < HH)
		memcpy(o + ((size_t)y * W + x) * eb, &v, eb);   /* little-endian */
}

/* runs_u8's reference (gpu_regress.cm). */
static void r_runs_u8(const uint8_t *s, uint8_t *o, int W, int HH, int nx, int ny)
{
	for (int v = 0; v < ny; v++)
		for (int h = 0; h < nx; h++) {
			int x0 = h * 48 - 3, y0 = v * 4 - 1;
			unsigned in[6][64], t[6][48];
			for (int r = 0; r < 6; r++)
				for (int c = 0; c < 64; c++)
					in[r][c] = px_at(s, W, HH, 1, x0 + c, y0 + r);
			for (int r = 0; h == 0 && r < 6; r++)
				for (int c = 0; c < 3; c++)
					in[r][c] = in[r][c + 6];
			int right = W - x0;
			for (int r = 0; right <= 61 && r < 6; r++)
				for (int c = 0; c < 3; c++)
					in[r][right + c] = 7;
			for (int r = 0; r < 6; r++)
				for (int c = 0; c < 48; c++)
					t[r][c] = (in[r][c] + in[r][c + 3] * 2 + in[r][c + 6]) & 0xffff;
			for (int r = 0; r < 4; r++)
				for (int c = 0; c < 48; c++)
					put_px(o, W, HH, 1, h * 48 + c, v * 4 + r,
					       (uint8_t)(((t[r][c] + t[r + 1][c] + t[r + 2][c]) & 0xffff) >> 4));
		}
}

/* runs_u8x128's and runs_u16's reference: out = sum of the windows at
 * column offsets 0, d, 2d of the block at x0 = h * n - d, shifted. */
static void r_runs_rows(const uint8_t *s, uint8_t *o, int W, int HH, int eb, int n, int d,
                        int shift, int nx, int ny)
{
	for (int v = 0; v < ny; v++)
		for (int h = 0; h < nx; h++)
			for (int r = 0; r < 4; r++)
				for (int c = 0; c < n; c++) {
					int x = h * n - d + c, y = v * 4 + r;
					unsigned sum = px_at(s, W, HH, eb, x, y) +
					               px_at(s, W, HH, eb, x + d, y) +
					               px_at(s, W, HH, eb, x + 2 * d, y);
					put_px(o, W, HH, eb, h * n + c, y, (sum >> shift) & (eb == 1 ? 0xff : 0xffff));
				}
}

/* The run layout kernels on a W x HH image, with the default options or
 * with options (-frun-layouts: ptx/runs.c). */
static void run_layouts_at(H *h, int W, int HH, const char *options)
{
	enum { MW = 208, MH = 37 };
	static uint8_t s[MH * MW], o[MH * MW], w[MH * MW];
	static uint16_t s16[MH * MW], o16[MH * MW], w16[MH * MW];
	size_t n = (size_t)W * HH;
	for (size_t k = 0; k < n; k++)
		s[k] = (uint8_t)h_rand(h), s16[k] = (uint16_t)h_rand(h);
	int nx = (W + 47) / 48, ny = (HH + 3) / 4, wid = W;
	HShape sh = WALK(nx, ny);
	sh.options = options ? options : "-fno-bounds-check"; /* edge tiles write outside */
	memset(o, 0, sizeof o), memset(w, 0, sizeof w);
	r_runs_u8(s, w, W, HH, nx, ny);
	if (H_RUN(h, F, "runs_u8", sh, SURF2D(s, W, HH, CMETAL_FMT_R8_UINT),
	          SURF2D(o, W, HH, CMETAL_FMT_R8_UINT), I32(wid)))
		h_eq_u8(h, "runs_u8", o, w, n);
	sh.wx = (W + 119) / 120;
	memset(o, 0, sizeof o), memset(w, 0, sizeof w);
	r_runs_rows(s, w, W, HH, 1, 120, 4, 2, (int)sh.wx, ny);
	if (H_RUN(h, F, "runs_u8x128", sh, SURF2D(s, W, HH, CMETAL_FMT_R8_UINT),
	          SURF2D(o, W, HH, CMETAL_FMT_R8_UINT)))
		h_eq_u8(h, "runs_u8x128", o, w, n);
	sh.wx = (W + 59) / 60;
	memset(o16, 0, sizeof o16), memset(w16, 0, sizeof w16);
	r_runs_rows((const uint8_t *)s16, (uint8_t *)w16, W, HH, 2, 60, 2, 1, (int)sh.wx, ny);
	if (H_RUN(h, F, "runs_u16", sh, SURF2D(s16, W, HH, CMETAL_FMT_R16_UINT),
	          SURF2D(o16, W, HH, CMETAL_FMT_R16_UINT)))
		h_eq_u8(h, "runs_u16", (const uint8_t *)o16, (const uint8_t *)w16, 2 * n);
}

TEST(run_layouts)
{
	run_layouts_at(h, 203, 37, NULL);
	run_layouts_at(h, 208, 37, NULL);
	run_layouts_at(h, 203, 37, "-fno-bounds-check -frun-layouts");
	run_layouts_at(h, 208, 37, "-fno-bounds-check -frun-layouts");
}

/* bench/cm/scan.cm's one-pass scan_tiles in its GPU shape (groups of 4
 * threads of 4096 elements) and its CPU shape (1 thread of 2048), and
 * scan_tiles_cpu (1 thread of 8192, the cm-cpu row), at sizes
 * the bench never runs:
 * tails that end inside a slice and inside a row, a lone short tile, an
 * exact multiple, then the first size again, all on one state buffer, so
 * each launch must find it ready (ticket count reset, a new epoch that
 * makes every word of the earlier launches, at other offsets, unset). */
static void scan_tiles_run(H *h, const char *kernel, bool fp, int warps, int parts,
			   uint32_t tile)
{
	enum { TILE = 16384, MAXN = 4 * TILE };
	static uint32_t d[MAXN], in[MAXN], st[32 + 4 * (MAXN / 2048)];
	static const uint32_t ns[] = { 2 * TILE + 77, 5, 4 * TILE, 2 * TILE + 77, 4096 + 31 };
	char opts[96];
	snprintf(opts, sizeof opts, "-fno-bounds-check %s -DWARPS=%d -DPARTS=%d", /* tails on purpose */
	         fp ? "-DT=float" : "-DT=uint -DT_INT", warps, parts);
	memset(st, 0, sizeof st);
	for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
		uint32_t n = ns[k], nt = (n + tile - 1) / tile;
		for (uint32_t i = 0; i < n; i++) {
			float x = h_float(h, -1, 1);
			in[i] = fp ? 0 : h_rand(h);
			if (fp)
				memcpy(&in[i], &x, 4);
		}
		memcpy(d, in, n * 4);
		HShape sh = GROUPS(nt, (uint32_t)warps);
		sh.options = opts;
		HArg data = { HA_INOUT, d, n * 4 };
		if (!H_RUN(h, "../../bench/cm/scan", kernel, sh, data, INOUT(st), U32(nt)))
			return;
		double sum = 0, mag = 0;
		uint32_t isum = 0;
		for (uint32_t i = 0; i < n; i++) {
			float x, y;
			memcpy(&x, &in[i], 4), memcpy(&y, &d[i], 4);
			if (fp)
				sum += x, mag += fabs(x);
			isum += in[i];
			if (fp ? !(fabs(y - sum) <= 1e-5 * mag + 1e-6) : d[i] != isum) {
				h_fail(h, "launch %zu, n %u, %d threads a tile: element %u is %.9g, "
				       "expected %.9g", k, n, warps, i, fp ? (double)y : d[i],
				       fp ? sum : isum);
				return;
			}
		}
	}
}

TEST(scan_tiles_tails)
{
	h->no_digest = true;	/* which CM thread takes which tile varies */
	scan_tiles_run(h, "scan_tiles", false, 4, 8, 16384);
	scan_tiles_run(h, "scan_tiles", true, 4, 8, 16384);
	scan_tiles_run(h, "scan_tiles", false, 1, 4, 2048);
	scan_tiles_run(h, "scan_tiles", true, 1, 4, 2048);
	scan_tiles_run(h, "scan_tiles_cpu", false, 1, 4, 8192);	/* CTILE */
	scan_tiles_run(h, "scan_tiles_cpu", true, 1, 4, 8192);
}

/* bench/cm/histogram.cm's histogram (SLM lane copies) and histogram_cpu
 * (private histograms, the cm-cpu row) at sizes the bench never runs: a
 * last chunk that ends inside a block, a lone short chunk, exact multiples,
 * a tail of one dword. */
static void histogram_run(H *h, const char *kernel)
{
	enum { CHUNK = 4096, MAXN = 4 * CHUNK };
	static uint8_t d[MAXN];
	static const uint32_t ns[] = { 3 * CHUNK + 132, 8, 2 * CHUNK, CHUNK + 512 + 4, 4 };
	for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
		uint32_t n = ns[k], nt = (n + CHUNK - 1) / CHUNK, got[256] = { 0 }, want[256] = { 0 };
		h_fill_u8(h, d, n);
		if (k == 2)
			memset(d, 7, n);	/* one value: the longest chains of increments */
		for (uint32_t i = 0; i < n; i++)
			want[d[i]]++;
		HShape sh = GROUPS((nt + 7) / 8, 8);
		sh.options = "-fno-bounds-check";
		HArg data = { HA_IN, d, n };
		if (!H_RUN(h, "../../bench/cm/histogram", kernel, sh, data, INOUT(got), U32(n),
		           U32(CHUNK)))
			return;
		char what[64];
		snprintf(what, sizeof what, "%s, n %u", kernel, n);
		if (!h_eq_u32(h, what, got, want, 256))
			return;
	}
}

TEST(histogram_tails)
{
	histogram_run(h, "histogram");
	histogram_run(h, "histogram_cpu");
}

/* wide_<T><D> of gpu_regress.cm on 6 blocks of 32 points from byte skew
 * of an input of `bytes` bytes: element (p, d) is 0 where it is not all
 * inside (CM's rule), so a short input checks the checked path's lanes
 * partly inside; skew 4 or 8 (not 16-aligned) the element-wise path. */
static void wide_case(H *h, const char *kernel, int eb, int D, uint32_t skew, size_t cut)
{
	enum { NP = 192, MAXB = NP * 16 * 8 + 64 };
	static unsigned char in[MAXB];
	static double want[NP], got[NP];
	static float wantf[NP], gotf[NP];
	size_t bytes = skew + (size_t)NP * D * eb - cut;
	for (size_t i = 0; i < bytes; i += (size_t)eb) {
		double v = (double)(h_rand(h) % 1000) - 500;
		float f = (float)v;
		if (eb == 8)
			memcpy(in + i, &v, 8);
		else
			memcpy(in + i, &f, 4);
	}
	for (int p = 0; p < NP; p++) {
		double s = 0;
		for (int d = 0; d < D; d++) {
			size_t at = skew + ((size_t)p * D + d) * eb;
			double x = 0;
			float f;
			if (at + eb <= bytes) {
				if (eb == 8)
					memcpy(&x, in + at, 8);
				else
					memcpy(&f, in + at, 4), x = f;
			}
			s += (d + 1) * x;
		}
		want[p] = s, wantf[p] = (float)s;
	}
	HShape sh = GROUPS(3, 1);
	sh.options = "-fno-bounds-check";	/* the short inputs on purpose */
	HArg a = { HA_IN, in, bytes }, o = { HA_OUT, eb == 8 ? (void *)got : (void *)gotf,
	                                      (size_t)NP * eb };
	char what[96];
	snprintf(what, sizeof what, "%s skew %u cut %zu", kernel, skew, cut);
	if (!H_RUN(h, F, kernel, sh, a, o, U32(skew)))
		return;
	if (eb == 8)
		h_eq_u32(h, what, (const uint32_t *)got, (const uint32_t *)want, NP * 2);
	else
		h_eq_u32(h, what, (const uint32_t *)gotf, (const uint32_t *)wantf, NP);
}

TEST(wide_loads)
{
	static const struct { const char *k; int eb, d; } ks[] = {
		{"wide_f2", 4, 2}, {"wide_f4", 4, 4}, {"wide_f8", 4, 8}, {"wide_f16", 4, 16},
		{"wide_d2", 8, 2}, {"wide_d4", 8, 4}, {"wide_d8", 8, 8},
	};
	for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
		int eb = ks[i].eb, d = ks[i].d;
		wide_case(h, ks[i].k, eb, d, 0, 0);			/* all inside */
		wide_case(h, ks[i].k, eb, d, 16, 0);
		wide_case(h, ks[i].k, eb, d, (uint32_t)eb, 0);		/* unaligned */
		wide_case(h, ks[i].k, eb, d, 0, (size_t)(5 * d + 1) * eb); /* a short tail */
		wide_case(h, ks[i].k, eb, d, (uint32_t)eb, (size_t)(40 * d) * eb + (size_t)eb / 2);
	}
}

TEST(slm_pairs)
{
	enum { N = 8 };
	static uint8_t a[1024];
	static uint64_t o[N * 64], w[N * 64];
	for (int i = 0; i < 1024; i++)
		a[i] = (uint8_t)h_rand(h);
	/* inside, across the end, past 2^32 (the second half wrapping) */
	static const uint32_t offs[][2] = {
		{0, 512}, {640, 768}, {896, 0}, {0xffffff80u, 0xfffffff0u}, {0xfffffe80u, 400},
	};
	for (size_t c = 0; c < sizeof offs / sizeof offs[0] && !h->failed; c++) {
		uint32_t o1 = offs[c][0] + 16 * (uint32_t)h_range(h, 0, 2), o2 = offs[c][1];
		for (uint32_t t = 0; t < N; t++) {
			uint32_t b = t * 48;
			uint64_t *x = w + t * 64;
			for (int k = 0; k < 16; k++) {
				x[k] = r_elem(a, 1024, o1 + b, k, 8);
				x[16 + k] = r_elem(a, 1024, o1 + b + 128, k, 8);
				x[32 + k] = r_elem(a, 1024, o2 + b, k, 8);
				x[48 + k] = r_elem(a, 1024, o1 + b, k, 8);
			}
		}
		HShape sh = GROUPS(1, N);
		sh.options = "-fno-bounds-check"; /* reads outside on purpose */
		if (!H_RUN(h, F, "slm_pairs", sh, IN(a), OUT(o), U32(o1), U32(o2), I32(1)))
			return;
		if (!h_eq_u32(h, "out", (const uint32_t *)o, (const uint32_t *)w, N * 128))
			h_fail(h, "offsets 0x%x 0x%x", o1, o2);
	}
}

TEST(slm_wide)
{
	enum { N = 8 };
	static uint8_t a[4096];
	static uint64_t o[N * 64], w[N * 64];
	for (int i = 0; i < 4096; i++)
		a[i] = (uint8_t)h_rand(h);
	/* inside, aligned to 16 only, across the end (threads 6 and 7 partly,
	 * thread 7 wholly), past 2^32 (later reads of a thread wrapping to
	 * the start) */
	static const uint32_t offs[] = {0, 16, 2304, 3072, 0xfffffe00u, 0xffffff80u};
	for (int dbl = 0; dbl < 2 && !h->failed; dbl++)
		for (size_t c = 0; c < sizeof offs / sizeof offs[0] && !h->failed; c++) {
			int eb = dbl ? 8 : 4, n = 512 / eb, k = n / 32;
			int reps = 1 + (int)h_range(h, 0, 2);
			for (uint32_t t = 0; t < N; t++)
				for (int q = 0; q < k; q++)
					for (int l = 0; l < 32; l++) {
						/* column q, lane l: element e = k l + q,
						 * element j of block read r, whose 32-bit
						 * offset may wrap to the start */
						int e = k * l + q, r = e / (n / 4), j = e % (n / 4);
						uint32_t at0 = offs[c] + t * 256 + (uint32_t)r * 128;
						uint64_t x = r_elem(a, 4096, at0, j, eb);
						int at = (int)t * n + 32 * q + l;
						if (dbl) {
							w[at] = x * (uint64_t)(reps + 2);
						} else {
							((uint32_t *)w)[at] = (uint32_t)x * (uint32_t)(reps + 2);
						}
					}
			HShape sh = GROUPS(1, N);
			sh.options = "-fno-bounds-check"; /* reads outside on purpose */
			if (!H_RUN(h, F, dbl ? "slm_wide_d" : "slm_wide_u", sh, IN(a), OUT(o),
			           U32(offs[c]), I32(reps)))
				return;
			if (!h_eq_u32(h, "out", (const uint32_t *)o, (const uint32_t *)w, N * 128))
				h_fail(h, "%s offset 0x%x reps %d", dbl ? "uint64" : "uint", offs[c], reps);
		}
}

/* pipe_rot and pipe_pp (gpu_regress.cm): thread t's acc column q, lane l
 * sums row s's element 4 l + q times s + 1 over its steps rows. */
TEST(pipelined_wide)
{
	enum { N = 4, MAXS = 5, BYTES = N * MAXS * 512 };
	static uint8_t a[BYTES];
	static uint32_t o[N * 128], w[N * 128];
	for (int i = 0; i < BYTES; i++)
		a[i] = (uint8_t)h_rand(h);
	static const char *const ks[] = {"pipe_rot", "pipe_pp"};
	for (int k = 0; k < 2 && !h->failed; k++)
		for (int steps = 1; steps <= MAXS && !h->failed; steps++) {
			/* inside; rows of the last threads past the input's end */
			uint32_t offs[] = {0, 16, (uint32_t)(BYTES - N * steps * 512 / 2)};
			for (size_t c = 0; c < 3 && !h->failed; c++) {
				for (uint32_t t = 0; t < N; t++)
					for (int e = 0; e < 128; e++) {
						uint32_t sum = 0;
						for (int s = 0; s < steps; s++) {
							uint32_t at = offs[c] + (t * (uint32_t)steps + (uint32_t)s) * 512;
							sum += (uint32_t)r_elem(a, BYTES, at, e, 4) * (uint32_t)(s + 1);
						}
						w[t * 128 + 32 * (e % 4) + e / 4] = sum;
					}
				HShape sh = GROUPS(1, N);
				sh.options = "-fno-bounds-check"; /* reads outside on purpose */
				if (!H_RUN(h, F, ks[k], sh, IN(a), OUT(o), U32(offs[c]), I32(steps)))
					return;
				if (!h_eq_u32(h, "out", o, w, N * 128))
					h_fail(h, "%s steps %d offset %u", ks[k], steps, offs[c]);
			}
		}
}

/* The media read rule (docs/builtins.md §6.1): byte b of a block row read
 * at (x, y) is byte x + b of row y of an image of bpp-byte pixels; when
 * its pixel (x + b) / bpp (rounded down) or its row is outside, the pixel
 * and the row are clamped to the nearest edge and the byte is the one at
 * the same place, (x + b) mod bpp, in the clamped pixel.  The element type
 * of the block plays no part.  Writes block t's rows at rows t RS + r0 ...
 * of w, bw bytes each. */
static void r_clamp(const uint8_t *img, int W, int HH, int bpp, int x, int y, int R, int bw,
                    uint8_t *w, int row0)
{
	for (int r = 0; r < R; r++)
		for (int b = 0; b < bw; b++) {
			int by = y + r, bx = x + b;
			by = by < 0 ? 0 : by >= HH ? HH - 1 : by;
			int px = bx >= 0 ? bx / bpp : -((-bx + bpp - 1) / bpp), in = bx - px * bpp;
			px = px < 0 ? 0 : px >= W ? W - 1 : px;
			w[(size_t)(row0 + r) * bw + b] = img[((size_t)by * W + px) * bpp + in];
		}
}

static int floor_to(int v, int a)
{
	return v >= 0 ? v / a * a : -((-v + a - 1) / a) * a;
}

enum { CL_MAXT = 160, CL_IMG = 16384, CL_OUT = CL_MAXT * 8 * 64 };

/* The block corners of one image: x (multiples of a, the larger of the
 * element and the pixel) across the left edge and across the right edge,
 * their y cycling through rows above, across the top, inside, across the
 * bottom and below; then three x (left, middle, right) at every y; the
 * middle one inside at the middle row takes the unclamped path. */
static int clamp_corners(int32_t *xy, int a, int wb, int HH, int R, int bw)
{
	int ys[] = {-R - 2, -1, 0, HH / 2 - R / 2, HH - R, HH - R + 1, HH + 1}, ny = 7;
	int n = 0, k = 0;
	for (int x = floor_to(-bw - a, a); x <= a; x += a, k++)
		xy[4 * n] = x, xy[4 * n++ + 1] = ys[k % ny];
	for (int x = floor_to(wb - bw - a, a); x <= floor_to(wb + a, a); x += a, k++)
		xy[4 * n] = x, xy[4 * n++ + 1] = ys[k % ny];
	int mx[] = {floor_to(-bw / 2, a), floor_to(wb / 2 - bw / 2, a), floor_to(wb - bw / 2, a)};
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < ny; j++)
			xy[4 * n] = mx[i], xy[4 * n++ + 1] = ys[j];
	return n;
}

/* Kernel `kernel` (gpu_regress.cm clamp_*: eb-byte elements, R x C, two
 * blocks when two) on a W x HH image of format fmt (bpp bytes a pixel). */
static void clamp_case(H *h, const char *kernel, int eb, int R, int C, bool two,
                       cmetal_format fmt, int bpp, int W, int HH)
{
	static uint8_t img[CL_IMG], o[CL_OUT], w[CL_OUT];
	static int32_t xy[CL_MAXT * 4];
	int bw = C * eb, a = eb > bpp ? eb : bpp, rs = two ? 2 * R : R;
	if ((size_t)W * HH * bpp > sizeof img) {
		h_fail(h, "%s: image %dx%d too large", kernel, W, HH);
		return;
	}
	for (int i = 0; i < W * HH * bpp; i++)
		img[i] = (uint8_t)h_rand(h);
	memset(xy, 0, sizeof xy);
	int nt = clamp_corners(xy, a, W * bpp, HH, R, bw);
	if (nt > CL_MAXT || (size_t)nt * rs * bw > sizeof o) {
		h_fail(h, "%s: %d threads", kernel, nt);
		return;
	}
	memset(o, 0, sizeof o);
	memset(w, 0, sizeof w);
	for (int t = 0; t < nt; t++) {
		r_clamp(img, W, HH, bpp, xy[4 * t], xy[4 * t + 1], R, bw, w, t * rs);
		if (two)
			r_clamp(img, W, HH, bpp, xy[4 * t] + 16, xy[4 * t + 1] + 1, R, bw, w,
			        t * rs + R);
	}
	HShape sh = WALK(nt, 1);
	if (!H_RUN(h, F, kernel, sh, SURF2D(img, W, HH, fmt), IN(xy),
	           SURF2D(o, bw, CL_OUT / bw, CMETAL_FMT_R8_UINT), I32(0)))
		return;
	for (int t = 0; t < nt; t++)
		for (int i = 0; i < rs * bw; i++)
			if (o[(size_t)t * rs * bw + i] != w[(size_t)t * rs * bw + i]) {
				int blk = i / bw / R, r = i / bw % R, b = i % bw;
				h_fail(h, "%s on a %dx%d image of %d-byte pixels: block %d at "
				              "(%d, %d), row %d byte %d = %u, expected %u", kernel,
				              W, HH, bpp, blk, xy[4 * t] + 16 * blk,
				              xy[4 * t + 1] + blk, r, b, o[(size_t)t * rs * bw + i],
				              w[(size_t)t * rs * bw + i]);
				return;
			}
}

/* Every image format for one kernel: byte, 16-bit, 32-bit and 16-byte
 * pixels; when the pixel is narrower than the element, widths whose
 * bytes leave every remainder by the element size (the right edge cuts an
 * element at each of its bytes), and an image narrower than one element. */
static void clamp_formats(H *h, const char *kernel, int eb, int R, int C, bool two)
{
	static const struct { cmetal_format fmt; int bpp, w; } f[] = {
		{CMETAL_FMT_R8_UINT, 1, 97}, {CMETAL_FMT_R16_UINT, 2, 45},
		{CMETAL_FMT_R32_UINT, 4, 23}, {CMETAL_FMT_R32G32B32A32F, 16, 7},
	};
	for (int i = 0; i < 4 && !h->failed; i++) {
		int steps = eb > f[i].bpp ? eb / f[i].bpp : 1;
		for (int s = 0; s < steps && !h->failed; s++)
			clamp_case(h, kernel, eb, R, C, two, f[i].fmt, f[i].bpp, f[i].w + s, 9 + s % 3);
		if (eb > f[i].bpp && !h->failed)
			clamp_case(h, kernel, eb, R, C, two, f[i].fmt, f[i].bpp, 1, 3);
	}
}

/* Media reads of elements wider and narrower than the image's pixels at
 * blocks across every edge (gpu_regress.cm clamp_*): byte-wise clamping
 * to the edge pixel on both devices. */
TEST(media_pixels)
{
	clamp_formats(h, "clamp_u8_4x32", 1, 4, 32, false);
	clamp_formats(h, "clamp_u8_2x20", 1, 2, 20, false);
	clamp_formats(h, "clamp_u16_4x16", 2, 4, 16, false);
	clamp_formats(h, "clamp_u16_2x6", 2, 2, 6, false);
	clamp_formats(h, "clamp_u32_8x8", 4, 8, 8, false);
	clamp_formats(h, "clamp_u32_4x12", 4, 4, 12, false);
	clamp_formats(h, "clamp_u32_2x8", 4, 2, 8, false);
	clamp_formats(h, "clamp_f32_4x16", 4, 4, 16, false);
	clamp_formats(h, "clamp_u64_4x8", 8, 4, 8, false);
	clamp_formats(h, "clamp_u64_3x5", 8, 3, 5, false);
	clamp_formats(h, "clamp_two", 4, 4, 8, true);
	/* RGB8 images of 81 and 121 pixels as bytes, read as uint words
	 * (bench/cm/linear.cm's SWAR tiles) */
	if (!h->failed)
		clamp_case(h, "clamp_u32_4x12", 4, 4, 12, false, CMETAL_FMT_R8_UINT, 1, 243, 10);
	if (!h->failed)
		clamp_case(h, "clamp_u32_4x12", 4, 4, 12, false, CMETAL_FMT_R8_UINT, 1, 363, 10);
}

const HTest exec_gpu_regress[] = {
	T(scalar_read_uniform), T(gather1_to_element), T(runtime_reads), T(shifted_block_reads),
	T(media_blocks), T(walker_filter),
	T(row_groups), T(narrow_ranges), T(media_rows), T(block_groups), T(lane_limits),
	T(media_groups), T(media_span), T(columns_from_slm), T(straddle_end), T(run_layouts),
	T(scan_tiles_tails), T(histogram_tails), T(wide_loads), T(slm_pairs), T(slm_wide),
	T(pipelined_wide), T(media_pixels), {0},
};
