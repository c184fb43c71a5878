#include "harness.h"

int main(void)
{
	int32_t out[80] = {0};
	int32_t i = 3, j = 14;
	void *args[] = {&(uint32_t){0}, &i, &j};
	CmkSurface s[] = {buffer(out, sizeof out)};
	run("regions", args, s, 1, NULL, 0);
	for (int k = 0; k < 8; k++)
		CHECK_EQ(out[k], 2 * k + 1);                 /* <0;8,2>, 1 */
	int r2d[8] = {0, 1, 4, 5, 8, 9, 12, 13};
	for (int k = 0; k < 8; k++)
		CHECK_EQ(out[8 + k], r2d[k]);                /* <4;2,1>, 0 */
	for (int k = 0; k < 4; k++)
		CHECK_EQ(out[16 + k], 3 + k);                /* runtime offset 3 */
	int strided[4] = {3, 8, 13, 0};                      /* 18 is out of range */
	for (int k = 0; k < 4; k++)
		CHECK_EQ(out[20 + k], strided[k]);
	for (int k = 0; k < 16; k++)                         /* 3,7,11,15 := 3,4,5,6 */
		CHECK_EQ(out[24 + k], k % 4 == 3 ? 3 + k / 4 : k);
	for (int k = 0; k < 16; k++)                         /* masked write at 8 */
		CHECK_EQ(out[40 + k], k >= 8 && k % 2 == 0 ? 2 * (k - 8) + 1 : k);
	for (int k = 0; k < 4; k++)
		CHECK_EQ(out[56 + k], 3);                    /* splat */
	for (int k = 0; k < 16; k++)                         /* 14,15 written, 16,17 dropped */
		CHECK_EQ(out[60 + k], k == 14 ? 3 : k == 15 ? 4 : k);
	CHECK_EQ(out[76], 14);                               /* scalar at runtime offset */
	return done();
}
