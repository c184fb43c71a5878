/* kmeans.c — host side of kmeans.cm (not written yet: reports FAIL). */
#include "cmbench.h"

void cm_bench_kmeans(cmetal_device *dev, const BenchCase *c, const char *device)
{
	cmb_fail(c, device, "no CM implementation yet");
}
