#include "harness.h"

int main(void)
{
	int32_t v[8] = {-17, -8, -7, -1, 0, 7, 8, 2147483647};
	int32_t out[32] = {0};
	void *args[] = {&(uint32_t){0}, v};
	CmkSurface s[] = {buffer(out, sizeof out)};
	run("sr", args, s, 1, NULL, 0);
	for (int k = 0; k < 8; k++) {
		CHECK_EQ(out[k], v[k] / 8);
		CHECK_EQ(out[8 + k], v[k] % 8);
		CHECK_EQ((uint32_t)out[16 + k], (uint32_t)v[k] / 4);
		CHECK_EQ((uint32_t)out[24 + k], (uint32_t)v[k] % 4);
	}
	return done();
}
