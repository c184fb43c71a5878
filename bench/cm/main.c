/* main.c — cmbench: runs the CM implementations of the benchmark workloads
 * (bench/cm/W.cm, compiled by cmetal at run time) on a cmetal device and
 * prints CSV rows with impl "cm" (see bench/README.md, "CM hook").
 *   usage: cmbench [-w workloads] [-s small|full|all] [-d cpu|cuda|auto]
 *                  [-z size,...] [-g sweep|auto|G]
 * -z keeps the cases of those size labels; -g sweeps or sets the group size
 * of launches the runtime may group (sweep.c).
 * The device column is the string the other harnesses print for the same
 * hardware: "cpu:" + the CPU model, or "gpu:" + the CUDA device name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmbench.h"

#define USAGE "usage: cmbench [-w workloads] [-s small|full|all] [-d cpu|cuda|auto] " \
	"[-z size,...] [-g sweep|auto|G]"

/* Whether label is one of the comma-separated list. */
static int in_sizes(const char *label, const char *list)
{
	size_t n = strlen(label);
	for (const char *p = list; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (!strncmp(p, label, n) && (p[n] == ',' || !p[n]))
			return 1;
	}
	return 0;
}

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
	const char *sizes = NULL, *group = NULL;
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
		else if (!strcmp(argv[i], "-z"))
			sizes = argv[i + 1];
		else if (!strcmp(argv[i], "-g"))
			group = argv[i + 1];
		else
			bench_die(USAGE);
	}
	if (i != argc)
		bench_die(USAGE);
	if (group && strcmp(group, "sweep"))
		cmb_group = strcmp(group, "auto") ? atoi(group) : 0;
	if (cmetal_device_open(devname, &dev) != CM_SUCCESS)
		bench_die("cannot open device '%s': %s", devname, cmetal_last_error());
	cmetal_device_name(dev, &name);
	device_column(name, device, sizeof device);
	on_gpu = !strncmp(device, "gpu:", 4);
	snprintf(driver, sizeof driver, "cmetal runtime, device %s", name);
	csv_header(device, driver, "impl cm: the CM kernels of bench/cm, compiled by cmetal");
	for (i = 0; i < bench_ncases; i++) {
		const BenchCase *c = &bench_cases[i];
		if (!bench_select(c, workloads, size, on_gpu) || (sizes && !in_sizes(c->size, sizes)))
			continue;
		for (h = 0; h < sizeof hooks / sizeof hooks[0]; h++)
			if (!strcmp(hooks[h].workload, c->workload)) {
				cmb_reset();
				if (group && !strcmp(group, "sweep"))
					cmb_sweep_case(dev, c, device, hooks[h].run);
				else
					hooks[h].run(dev, c, device);
			}
	}
	cmetal_device_close(dev);
	return 0;
}
