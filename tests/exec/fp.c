/* fp.c — the default floating-point contract: results bit-identical to
 * this file's C (tests/exec/run.sh compiles it with -ffp-contract=off). */
#include <math.h>
#include <string.h>

#include "harness.h"

#define F "fp"

TEST(fp_exact)
{
	float x[16], y[16], o[96], w[96];
	h_fill_f32(h, x, 16, -1.5f, 0.5f);
	h_fill_f32(h, y, 16, -1, 1);
	for (int i = 0; i < 16; i++) {
		float zr = 0, zi = 0;
		for (int k = 0; k < 6; k++) {
			float t = zr * zr - zi * zi + x[i];
			zi = 2.0f * zr * zi + y[i];
			zr = t;
		}
		w[i] = zr;
		w[16 + i] = zi;
		w[32 + i] = x[i] / (y[i] + 3.0f) - y[i] * x[i];
		w[48 + i] = sqrtf(x[i] * x[i] + y[i] * y[i]) + x[i] / (y[i] + 3.0f);
		w[64 + i] = sqrtf(fabsf(x[i])) * y[i] - x[i];
		w[80 + i] = x[i] * 1e-20f * (y[i] * 1e-19f) + x[i] * 3e-39f;
	}
	uint32_t got[96], want[96];
	if (H_RUN(h, F, "fp_exact", WALK(1, 1), IN(x), IN(y), OUT(o))) {
		memcpy(got, o, sizeof got);
		memcpy(want, w, sizeof want);
		h_eq_u32(h, "bits", got, want, 96);
	}
}

const HTest exec_fp[] = {T(fp_exact), {0}};
