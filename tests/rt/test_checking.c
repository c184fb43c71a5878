/* test_checking.c — the checking mode (-fbounds-check) on the CPU device:
 * an SVM access outside every live SVM allocation is reported with its line
 * and thread and made safe (reads 0, writes dropped), inside one it runs as
 * in the default mode; an iselect index past its source is reported and
 * reads 0.  Usage: test_checking */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

/* rd: 8 dwords at p (block) -> q[0..7] + 1, and 4 gathered dwords at
 * p + off[k] -> q[8..11] (line 9 is the block read, 11 the gather). */
static const char src[] =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void rd(svmptr_t p [[type(\"svmptr_t\")]],\n"
	"                                 svmptr_t q [[type(\"svmptr_t\")]],\n"
	"                                 vector<uint, 4> off)\n"
	"{\n"
	"	vector<uint, 8> v;\n"
	"	vector<uint, 4> g;\n"
	"	vector<svmptr_t, 4> ad = p + off;\n"
	"	cm_svm_block_read(p, v);\n"
	"	cm_svm_block_write(q, v + 1);\n"
	"	cm_svm_scatter_read(ad, g);\n"
	"	cm_svm_block_write(q + 32, g);\n"
	"}\n"
	/* wr: 8 dwords of 5 at q (block, line 17), 4 dwords of 6 scattered to
	 * q + off[k] (line 19) */
	"extern \"C\" _GENX_MAIN_ void wr(svmptr_t q [[type(\"svmptr_t\")]], vector<uint, 4> off)\n"
	"{\n"
	"	vector<uint, 8> v = 5;\n"
	"	cm_svm_block_write(q, v);\n"
	"	vector<svmptr_t, 4> ad = q + off;\n"
	"	cm_svm_scatter_write(ad, vector<uint, 4>(6));\n"
	"}\n"
	/* sel: q[i] = v(i * k) + 1 for a 16-element v(j) = 10 * j (line 27) */
	"extern \"C\" _GENX_MAIN_ void sel(svmptr_t q [[type(\"svmptr_t\")]], ushort k)\n"
	"{\n"
	"	vector<uint, 16> v;\n"
	"	vector<ushort, 8> idx;\n"
	"	for (int i = 0; i < 16; i++) v(i) = 10 * i;\n"
	"	for (int i = 0; i < 8; i++) idx(i) = i * k;\n"
	"	cm_svm_block_write(q, v.iselect(idx) + 1);\n"
	"}\n";

static cmetal_device *dev;
static cmetal_kernel *krd[2], *kwr[2], *ksel[2];   /* [0] default, [1] -fbounds-check */

static uint32_t *host_of(cmetal_svm *s)
{
	uint64_t a = 0;
	cmetal_svm_address(s, &a);
	return (uint32_t *)(uintptr_t)a;   /* the CPU device: host addresses */
}

/* Runs rd with p = a, q = the allocation out, gather offsets off. */
static cm_status run_rd(int checked, uint64_t a, cmetal_svm *out, const uint32_t off[4])
{
	cmetal_kernel *k = krd[checked];
	uint32_t one[3] = {1, 1, 1};
	cmetal_kernel_set_arg(k, 0, 8, &a);
	cmetal_kernel_set_arg_svm(k, 1, out, 0);
	cmetal_kernel_set_arg(k, 2, 16, off);
	return cmetal_launch_groups(k, one, one, NULL);
}

static cm_status run_wr(int checked, uint64_t a, const uint32_t off[4])
{
	cmetal_kernel *k = kwr[checked];
	uint32_t one[3] = {1, 1, 1};
	cmetal_kernel_set_arg(k, 0, 8, &a);
	cmetal_kernel_set_arg(k, 1, 16, off);
	return cmetal_launch_groups(k, one, one, NULL);
}

static int reads(void)
{
	cmetal_svm *in, *out;
	MUST(cmetal_svm_alloc(dev, 48, &in));       /* 12 dwords */
	MUST(cmetal_svm_alloc(dev, 64, &out));
	uint32_t *h = host_of(in), *o = host_of(out);
	for (int i = 0; i < 12; i++)
		h[i] = 100 + i;
	uint64_t a = 0;
	MUST(cmetal_svm_address(in, &a));
	const uint32_t inside[4] = {0, 4, 40, 44}, past[4] = {0, 44, 48, 4096};
	for (int c = 0; c < 2; c++) {
		memset(o, 0, 64);
		cm_status s = run_rd(c, a, out, inside);
		check(c ? "svm_check_read_in_range" : "svm_default_read_in_range",
		      s == CM_SUCCESS && o[0] == 101 && o[7] == 108 && o[8] == 100 && o[9] == 101 &&
		      o[10] == 110 && o[11] == 111, cmetal_last_error());
	}
	/* the block read of bytes 32..63 is half past the end (the gather's
	 * 32..47 is inside) */
	const uint32_t near[4] = {0, 4, 8, 12};
	memset(o, 0, 64);
	cm_status s = run_rd(1, a + 32, out, near);
	check_err("svm_check_block_read_past_end", s, CM_KERNEL_FAULT,
	          "kernel 'rd' accessed out of bounds at line 9", "thread 0", NULL);
	check("svm_check_block_read_past_end_reads_0",
	      o[0] == 109 && o[3] == 112 && o[4] == 1 && o[7] == 1 && o[8] == 108 && o[11] == 111,
	      NULL);
	memset(o, 0, 64);
	s = run_rd(1, a, out, past);
	check_err("svm_check_gather_past_end", s, CM_KERNEL_FAULT, "at line 11", "gather", NULL);
	check("svm_check_gather_past_end_reads_0",
	      o[0] == 101 && o[8] == 100 && o[9] == 111 && o[10] == 0 && o[11] == 0, NULL);
	/* below the allocation: every lane but the last is outside */
	memset(o, 0, 64);
	const uint32_t low[4] = {0, 0, 0, 4096 + 4};
	s = run_rd(1, a - 4096, out, low);
	check_err("svm_check_read_below_start", s, CM_KERNEL_FAULT, "at line 9", NULL);
	/* a freed allocation */
	cmetal_svm *gone;
	uint64_t ga = 0;
	MUST(cmetal_svm_alloc(dev, 64, &gone));
	MUST(cmetal_svm_address(gone, &ga));
	MUST(cmetal_svm_free(gone));
	memset(o, 0xff, 64);
	s = run_rd(1, ga, out, inside);
	check_err("svm_check_read_freed", s, CM_KERNEL_FAULT, "at line 9", NULL);
	check("svm_check_read_freed_reads_0", o[0] == 1 && o[7] == 1 && o[8] == 0 && o[11] == 0,
	      NULL);
	MUST(cmetal_svm_free(in));
	MUST(cmetal_svm_free(out));
	return 0;
}

static int writes(void)
{
	cmetal_svm *b;
	MUST(cmetal_svm_alloc(dev, 40, &b));        /* 10 dwords; the block holds 16 */
	uint32_t *h = host_of(b);
	uint64_t a = 0;
	MUST(cmetal_svm_address(b, &a));
	const uint32_t inside[4] = {32, 36, 0, 4}, past[4] = {32, 36, 40, 4096};
	for (int c = 0; c < 2; c++) {
		memset(h, 0, 64);
		cm_status s = run_wr(c, a, inside);
		check(c ? "svm_check_write_in_range" : "svm_default_write_in_range",
		      s == CM_SUCCESS && h[0] == 6 && h[1] == 6 && h[2] == 5 && h[7] == 5 &&
		      h[8] == 6 && h[9] == 6, cmetal_last_error());
	}
	/* the block at byte 16 covers 16..47: 40..47 are past the end (the
	 * scatter's 24..39 is inside) */
	const uint32_t near[4] = {8, 12, 16, 20};
	memset(h, 0, 64);
	cm_status s = run_wr(1, a + 16, near);
	check_err("svm_check_block_write_past_end", s, CM_KERNEL_FAULT,
	          "kernel 'wr' accessed out of bounds at line 17", "thread 0", NULL);
	check("svm_check_block_write_past_end_dropped",
	      h[3] == 0 && h[4] == 5 && h[5] == 5 && h[6] == 6 && h[9] == 6 && h[10] == 0 &&
	      h[11] == 0, NULL);
	memset(h, 0, 64);
	s = run_wr(1, a, past);
	check_err("svm_check_scatter_past_end", s, CM_KERNEL_FAULT, "at line 19", "scatter", NULL);
	check("svm_check_scatter_past_end_dropped",
	      h[8] == 6 && h[9] == 6 && h[10] == 0 && h[0] == 5, NULL);
	cmetal_svm *gone;
	uint64_t ga = 0;
	MUST(cmetal_svm_alloc(dev, 64, &gone));
	MUST(cmetal_svm_address(gone, &ga));
	MUST(cmetal_svm_free(gone));
	s = run_wr(1, ga, inside);
	check_err("svm_check_write_freed", s, CM_KERNEL_FAULT, "at line 17", NULL);
	MUST(cmetal_svm_free(b));
	return 0;
}

static int iselects(void)
{
	cmetal_svm *b;
	MUST(cmetal_svm_alloc(dev, 32, &b));
	uint32_t *h = host_of(b), one[3] = {1, 1, 1};
	for (int c = 0; c < 2; c++)
		for (uint16_t k = 2; k <= 3; k++) {  /* 2: in range; 3: 18 and 21 are past */
			memset(h, 0, 32);
			MUST(cmetal_kernel_set_arg_svm(ksel[c], 0, b, 0));
			MUST(cmetal_kernel_set_arg(ksel[c], 1, 2, &k));
			cm_status s = cmetal_launch_groups(ksel[c], one, one, NULL);
			int ok = h[1] == 10 * k + 1 && h[5] == (k == 2 ? 101u : 151u) &&
			         h[6] == (k == 2 ? 121u : 1u) && h[7] == (k == 2 ? 141u : 1u);
			if (c && k == 3) {
				check_err("check_iselect_out_of_range", s, CM_KERNEL_FAULT,
				          "kernel 'sel' accessed out of bounds at line 27",
				          "iselect index out of range", "thread 0", NULL);
				check("check_iselect_out_of_range_reads_0", ok, NULL);
			} else {
				check(c ? (k == 2 ? "check_iselect_in_range" : "")
				        : (k == 2 ? "default_iselect_in_range" : "default_iselect_out_of_range_reads_0"),
				      s == CM_SUCCESS && ok, cmetal_last_error());
			}
		}
	MUST(cmetal_svm_free(b));
	return 0;
}

int main(void)
{
	cmetal_program *p[2];
	MUST(cmetal_device_open("cpu", &dev));
	MUST(cmetal_program_build(dev, src, "", &p[0]));
	MUST(cmetal_program_build(dev, src, "-fbounds-check", &p[1]));
	for (int c = 0; c < 2; c++) {
		MUST(cmetal_kernel_create(p[c], "rd", &krd[c]));
		MUST(cmetal_kernel_create(p[c], "wr", &kwr[c]));
		MUST(cmetal_kernel_create(p[c], "sel", &ksel[c]));
	}
	reads();
	writes();
	iselects();
	for (int c = 0; c < 2; c++) {
		cmetal_kernel_release(krd[c]);
		cmetal_kernel_release(kwr[c]);
		cmetal_kernel_release(ksel[c]);
		cmetal_program_release(p[c]);
	}
	cmetal_device_close(dev);
	return check_failures ? 1 : 0;
}
