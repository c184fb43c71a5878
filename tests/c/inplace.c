#include "harness.h"

int main(void)
{
	int32_t out[80] = {0}, in[12];
	int32_t n = 9;
	for (int k = 0; k < 12; k++)
		in[k] = 100 + k;
	void *args[] = {&(uint32_t){0}, &(uint32_t){1}, &n};
	CmkSurface s[] = {buffer(out, sizeof out), buffer(in, sizeof in)};
	run("inplace", args, s, 2, NULL, 0);
	/* j * 3 & 7 for j < 9: 0, 3, 6, 1, 4, 7, 2, 5, 0 */
	for (int k = 0; k < 8; k++) {
		CHECK_EQ(out[k], k == 0 ? 99 : 1);          /* the written copy */
		CHECK_EQ(out[8 + k], k == 0 ? 2 : 1);       /* the counts, unchanged */
		CHECK_EQ(out[16 + k], k + 1);               /* swapped 9 times */
		CHECK_EQ(out[24 + k], 10 * (k + 1));
		CHECK_EQ(out[32 + k], 102 + k);             /* consecutive */
		CHECK_EQ(out[40 + k], k < 6 ? 106 + k : 0); /* partly out of bounds */
		CHECK_EQ(out[48 + k], k % 2 ? 0 : 100 + k); /* masked */
	}
	int lanes[8] = {11, 0, 5, 2, 3, 3, 7, 1}, oob[8] = {11, 0, 5, -1, 3, 3, -1, 1};
	for (int k = 0; k < 8; k++) {
		CHECK_EQ(out[56 + k], 100 + lanes[k]);
		CHECK_EQ(out[64 + k], oob[k] < 0 ? 0 : 100 + oob[k]);
		CHECK_EQ(out[72 + k], k + 1);               /* scatter of 1..8 at 72 */
	}
	return done();
}
