#include "harness.h"

int main(void)
{
	int32_t out[36] = {0}, in[16];
	for (int k = 0; k < 16; k++)
		in[k] = 100 + k;
	void *args[] = {&(uint32_t){0}, &(uint32_t){1}};
	CmkSurface s[] = {buffer(out, sizeof out), buffer(in, sizeof in)};
	run("direct", args, s, 2, NULL, 0);
	for (int k = 0; k < 8; k++) {
		CHECK_EQ(out[k], 101 + k);                  /* in place */
		CHECK_EQ(out[8 + k], k < 6 ? 111 + k : 1);  /* in[10..16), then 0 + 1 */
		CHECK_EQ(out[16 + k], 101 + k);             /* the old values */
		CHECK_EQ(out[24 + k], 108 + k);             /* stored as read */
		CHECK_EQ(in[k], 7);
	}
	for (int k = 0; k < 4; k++)   /* bytes 34 + 4 k: in[8 + k]'s high half, in[9 + k]'s low */
		CHECK_EQ(out[32 + k], ((109 + k) << 16) + 1);
	return done();
}
