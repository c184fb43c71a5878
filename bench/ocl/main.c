/* main.c — oclbench: runs the SIMT OpenCL baselines (impl "ocl-simt") on the
 * default OpenCL device and prints CSV.
 *   usage: oclbench [-w workloads] [-s small|full|all] [-k kernel-dir]
 * The kernel directory defaults to bench/simt next to the binary's bench/. */
#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include "ocl.h"

int main(int argc, char **argv)
{
	const char *workloads = NULL, *size = "small";
	char kdir[1024], self[1024];
	Ocl o;
	int i;
	snprintf(self, sizeof self, "%s", argv[0]);
	snprintf(kdir, sizeof kdir, "%s/../simt", dirname(self));
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-w"))
			workloads = argv[i + 1];
		else if (!strcmp(argv[i], "-s"))
			size = argv[i + 1];
		else if (!strcmp(argv[i], "-k"))
			snprintf(kdir, sizeof kdir, "%s", argv[i + 1]);
		else
			bench_die("usage: oclbench [-w workloads] [-s small|full|all] [-k dir]");
	}
	ocl_init(&o, kdir);
	csv_header(o.device, o.driver, "impl ocl-simt: SIMT OpenCL C baselines of bench/simt");
	ocl_run_copy(&o, strcmp(size, "small") != 0);
	for (i = 0; i < bench_ncases; i++)
		if (bench_select(&bench_cases[i], workloads, size, o.is_gpu))
			ocl_run_case(&o, &bench_cases[i]);
	return 0;
}
