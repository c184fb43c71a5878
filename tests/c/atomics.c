#include "harness.h"

int main(void)
{
	uint32_t buf[8] = {10, 20, 1, 0, 0, 0, 0, 0};
	float f = 1.0f;
	memcpy(&buf[4], &f, 4);
	uint32_t out[17] = {0};
	void *args[] = {&(uint32_t){0}, &(uint32_t){1}};
	CmkSurface s[] = {buffer(buf, sizeof buf), buffer(out, sizeof out)};
	run("atomics", args, s, 2, NULL, 0);
	CHECK_EQ(out[0], 10);             /* lanes run in order */
	CHECK_EQ(out[1], 15);
	CHECK_EQ(out[2], 20);
	CHECK_EQ(out[3], 0);              /* out of range */
	CHECK_EQ(out[4], 1);              /* cmpxchg: 1 == 1 -> 5 */
	CHECK_EQ(out[5], 5);
	CHECK_EQ(out[6], 5);
	CHECK_EQ(out[7], 5);
	CHECK_EQ(out[8], 27);             /* inc at 1 + {0,0,1,100} */
	CHECK_EQ(out[9], 28);
	CHECK_EQ(out[10], 5);
	CHECK_EQ(out[11], 0);
	CHECK_EQ(buf[0], 21);
	CHECK_EQ(buf[1], 29);
	CHECK_EQ(buf[2], 6);
	CHECK_EQ((int32_t)out[12], 0);    /* minsint over 0, -5, 3, -9 */
	CHECK_EQ((int32_t)out[13], -5);
	CHECK_EQ((int32_t)buf[3], -9);
	memcpy(&f, &buf[4], 4);
	CHECK(f == 1.0f + 1.5f + 2.5f + 3.0f + 4.0f);
	CHECK_EQ(out[16], 45);            /* loop */
	return done();
}
