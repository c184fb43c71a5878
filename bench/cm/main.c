/* main.c — cmbench: runs the CM implementations of the benchmark workloads
 * (bench/cm/W.cm, compiled by cmetal at run time) on a cmetal device and
 * prints CSV rows with impl "cm" (see bench/README.md, "CM hook").
 *   usage: cmbench [-w workloads] [-s small|full|all] [-d cpu|cuda|auto]
 * The device column is the string the other harnesses print for the same
 * hardware: "cpu:" + the CPU model, or "gpu:" + the CUDA device name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmbench.h"

static const struct {
	const char *workload;
	void (*run)(cmetal_device *, const BenchCase *, const char *);
} hooks[] = {
	{ "linear", cm_bench_linear },
	{ "bitonic", cm_bench_bitonic },
	{ "bitonic", cm_bench_radix },	/* impl cm-radix */
	{ "histogram", cm_bench_histogram },
	{ "kmeans", cm_bench_kmeans },
	{ "spmv", cm_bench_spmv },
	{ "transpose", cm_bench_transpose },
	{ "sgemm", cm_bench_gemm },
	{ "dgemm", cm_bench_gemm },
	{ "hgemm", cm_bench_gemm },
	{ "scan-i32", cm_bench_scan },
	{ "scan-f32", cm_bench_scan },
};

/* "cuda:0 (NVIDIA H100 80GB HBM3, sm_90)" -> "gpu:NVIDIA H100 80GB HBM3" */
static void device_column(const char *name, char *out, size_t n)
{
	const char *open = strchr(name, '('), *end;
	if (strncmp(name, "cuda", 4) || !open) {
		snprintf(out, n, "cpu:%s", cpu_name());
		return;
	}
	end = strstr(open, ", sm_");
	if (!end)
		end = open + strcspn(open, ")");
	snprintf(out, n, "gpu:%.*s", (int)(end - open - 1), open + 1);
}

int main(int argc, char **argv)
{
	const char *workloads = NULL, *size = "small", *devname = "cpu", *name;
	char device[256], driver[320];
	cmetal_device *dev;
	int i, on_gpu;
	size_t h;
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-w"))
			workloads = argv[i + 1];
		else if (!strcmp(argv[i], "-s"))
			size = argv[i + 1];
		else if (!strcmp(argv[i], "-d"))
			devname = argv[i + 1];
		else
			bench_die("usage: cmbench [-w workloads] [-s small|full|all] [-d cpu|cuda|auto]");
	}
	if (i != argc)
		bench_die("usage: cmbench [-w workloads] [-s small|full|all] [-d cpu|cuda|auto]");
	if (cmetal_device_open(devname, &dev) != CM_SUCCESS)
		bench_die("cannot open device '%s': %s", devname, cmetal_last_error());
	cmetal_device_name(dev, &name);
	device_column(name, device, sizeof device);
	on_gpu = !strncmp(device, "gpu:", 4);
	snprintf(driver, sizeof driver, "cmetal runtime, device %s", name);
	csv_header(device, driver, "impl cm: the CM kernels of bench/cm, compiled by cmetal");
	for (i = 0; i < bench_ncases; i++) {
		const BenchCase *c = &bench_cases[i];
		if (!bench_select(c, workloads, size, on_gpu))
			continue;
		for (h = 0; h < sizeof hooks / sizeof hooks[0]; h++)
			if (!strcmp(hooks[h].workload, c->workload)) {
				cmb_reset();
				hooks[h].run(dev, c, device);
			}
	}
	cmetal_device_close(dev);
	return 0;
}
