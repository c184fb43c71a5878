/* ifconv.c — guarded blocks of reads that the PTX back end runs always
 * (ptx/ifconv.c), against a reference that runs them only when taken;
 * reads out of bounds give 0 (CM's rule). */
#include "harness.h"

#define F "ifconv"

TEST(ifconv_tails)
{
	enum { NT = 12, NA = 4096, NX = 1024 };
	static uint32_t prm[NT][4], a[NA], x[NX], sums[NT], want[NT];
	for (int i = 0; i < NA; i++)
		a[i] = h_rand(h);
	for (int i = 0; i < NX; i++)
		x[i] = h_rand(h);
	for (uint32_t t = 0; t < NT; t++) {
		/* lengths 0 .. 31 spread over the threads, the last ones ending
		 * at a's end: the blocks they skip would read past it; the last
		 * read's offset is far out of bounds where it is skipped */
		uint32_t len = (t * 7 + 3) % 32, at = t < NT - 2 ? t * 200 : NA - len;
		prm[t][0] = at, prm[t][1] = at + len;
		prm[t][2] = t % 3 != 0, prm[t][3] = prm[t][2] ? t * 5 : 0x40000000u + t;
		uint32_t i = at, end = at + len, s16[16] = {0}, s8[8], s4[4], s = 0;
#define AT(k) ((k) < NA ? a[k] : 0u)
		if (i + 16 <= end) {
			for (int k = 0; k < 16; k++)
				s16[k] = x[AT(i + k) & 1023];
			i += 16;
		}
		for (int k = 0; k < 8; k++)
			s8[k] = s16[k] + s16[k + 8];
		if (i + 8 <= end) {
			for (int k = 0; k < 8; k++)
				s8[k] += x[AT(i + k) & 1023];
			i += 8;
		}
		for (int k = 0; k < 4; k++)
			s4[k] = s8[k] + s8[k + 4];
		if (i + 4 <= end) {
			for (int k = 0; k < 4; k++)
				s4[k] += x[AT(i + k) & 1023];
			i += 4;
		}
		s = s4[0] + s4[1] + s4[2] + s4[3];
		if (i < end)
			s += AT(i) * 3;
		if (prm[t][2])
			s ^= x[prm[t][3]];
		want[t] = s;
	}
	HShape sh = GROUPS(2, NT / 2);
	sh.options = "-fspeculate-reads";
	if (H_RUN(h, F, "tails", sh, IN(prm), IN(a), IN(x), OUT(sums)))
		h_eq_u32(h, "sums", sums, want, NT);
}

const HTest exec_ifconv[] = {
	T(ifconv_tails), {0},
};
