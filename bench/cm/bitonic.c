/* bitonic.c — host side of bitonic.cm (not written yet: reports FAIL). */
#include "cmbench.h"

void cm_bench_bitonic(cmetal_device *dev, const BenchCase *c, const char *device)
{
	cmb_fail(c, device, "no CM implementation yet");
}
