#include "harness.h"
#include <math.h>

static unsigned char out[176];
#define AT(T, off) (*(T *)(out + (off)))

int main(void)
{
	void *args[] = {&(uint32_t){0}};
	CmkSurface s[] = {buffer(out, sizeof out)};
	run("convert", args, s, 1, NULL, 0);
	uint8_t u8[8] = {1, 0, 255, 0, 0, 255, 0, 255};
	int8_t i8[8] = {1, -1, 127, -128, 0, 127, 0, 127};
	float sf[8] = {1, 0, 1, 0, 0, 1, 0.5f, 1};
	for (int k = 0; k < 8; k++) {
		CHECK_EQ(AT(uint8_t, 0 + k), u8[k]);
		CHECK_EQ(AT(int8_t, 8 + k), i8[k]);
		CHECK(AT(float, 16 + 4 * k) == sf[k]);
	}
	int16_t s16[8] = {32767, -32768, 255, 256, -1, 32767, -32768, 32767};
	uint8_t w8[8] = {(uint8_t)70000, (uint8_t)-70000, 255, 0, 255, (uint8_t)40000, 0, 255};
	uint8_t t8[8] = {255, 0, 255, 255, 0, 255, 0, 255};
	for (int k = 0; k < 8; k++) {
		CHECK_EQ(AT(int16_t, 48 + 2 * k), s16[k]);
		CHECK_EQ(AT(uint8_t, 64 + k), w8[k]);
		CHECK_EQ(AT(uint8_t, 72 + k), t8[k]);
	}
	CHECK_EQ(AT(int16_t, 80), 32767);                 /* cm_add<short>(20000, 20000, SAT) */
	CHECK_EQ(AT(int16_t, 82), -25536);                /* wraps without SAT */
	CHECK_EQ(AT(uint8_t, 84), 255);
	int32_t i32[8] = {1, -1, 300, -300, 0, INT32_MAX, 0, INT32_MAX};
	float h[8] = {1.5f, -1.5f, 300.0f, -300.0f, NAN, INFINITY, 0.5f, INFINITY};
	for (int k = 0; k < 8; k++) {
		CHECK_EQ(AT(int32_t, 88 + 4 * k), i32[k]);
		float f = AT(float, 120 + 4 * k);
		CHECK(isnan(h[k]) ? isnan(f) : f == h[k]);   /* through half */
	}
	CHECK_EQ(AT(int32_t, 152), -3);
	CHECK_EQ(AT(int32_t, 156), -1);
	CHECK_EQ(AT(int32_t, 160), -2);
	CHECK_EQ(AT(int32_t, 164), (int32_t)(0xfffffff9u >> 2));
	CHECK_EQ(AT(int32_t, 168), 0);                    /* x / 0 gives 0 */
	return done();
}
