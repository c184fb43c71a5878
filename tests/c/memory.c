#include "harness.h"

int main(void)
{
	int32_t buf[32];                 /* the surface is the first 16 */
	for (int k = 0; k < 32; k++)
		buf[k] = k < 16 ? k * 10 : 0x5a5a5a5a;
	unsigned char img[4 * 8], out[132] = {0}, slm[64] = {0};
	for (int k = 0; k < 32; k++)
		img[k] = (unsigned char)k;      /* 8 bytes x 4 rows, pitch 8 */
	void *args[] = {&(uint32_t){0}, &(uint32_t){1}, &(uint32_t){2}};
	CmkSurface s[] = {buffer(buf, 64), image(img, 8, 4, 8, 1), buffer(out, sizeof out)};
	run("memory", args, s, 3, slm, sizeof slm);
	int32_t *o = (int32_t *)out;
	for (int k = 0; k < 8; k++)      /* block read from 48: 4 in, 4 out */
		CHECK_EQ(o[k], k < 4 ? (12 + k) * 10 : 0);
	CHECK_EQ(buf[14], -1);           /* block write at 56: 2 of 4 land */
	CHECK_EQ(buf[15], -2);
	for (int k = 16; k < 32; k++)
		CHECK_EQ(buf[k], 0x5a5a5a5a);
	int32_t g[8] = {0, 50, -2, 0, 0, 10, 20, 30};   /* gather before scatter */
	for (int k = 0; k < 8; k++)
		CHECK_EQ(o[8 + k], g[k]);
	/* scatter at 8 + {0,5,15,16,100,1,2,3}: 8, 13, 9, 10, 11 land */
	CHECK_EQ(buf[8], 100);
	CHECK_EQ(buf[13], 101);
	CHECK_EQ(buf[9], 105);
	CHECK_EQ(buf[11], 107);
	unsigned char *b = (unsigned char *)buf;
	(void)b;
	CHECK_EQ(out[64], 10 >> 8);       /* byte 1 of 0 */
	CHECK_EQ(out[66], 0xff);          /* byte 63: high byte of -2 */
	CHECK_EQ(out[67], 0);             /* byte 64 is out */
	for (int r = 0; r < 4; r++)       /* 4x4 at (6, 2): clamped */
		for (int c = 0; c < 4; c++) {
			int x = 6 + c > 7 ? 7 : 6 + c, y = 2 + r > 3 ? 3 : 2 + r;
			CHECK_EQ(out[68 + r * 4 + c], y * 8 + x);
		}
	CHECK_EQ(img[3 * 8 + 6], 1);      /* 4x2 at (6, 3): one row, 2 columns */
	CHECK_EQ(img[3 * 8 + 7], 2);
	CHECK_EQ(img[2 * 8 + 6], 2 * 8 + 6);
	CHECK_EQ(o[21], 7);               /* SLM: 0 and 15 land, 16 and 1000 do not */
	CHECK_EQ(o[22], 8);
	CHECK_EQ(o[23], 0);
	CHECK_EQ(o[24], 0);
	int32_t *sl = (int32_t *)slm;
	CHECK_EQ(sl[15], 8);
	/* gather4 channels G and A of dwords 0 and 4: rows G then A */
	CHECK_EQ(o[25], buf[1]);
	CHECK_EQ(o[26], buf[5]);
	CHECK_EQ(o[27], buf[3]);
	CHECK_EQ(o[28], buf[7]);
	CHECK_EQ(o[29], 7);               /* masked gather */
	CHECK_EQ(o[30], 0);
	CHECK_EQ(o[31], 0);
	CHECK_EQ(o[32], 0);
	return done();
}
