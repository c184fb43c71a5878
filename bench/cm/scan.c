/* scan.c — host side of scan.cm (not written yet: reports FAIL). */
#include "cmbench.h"

void cm_bench_scan(cmetal_device *dev, const BenchCase *c, const char *device)
{
	cmb_fail(c, device, "no CM implementation yet");
}
