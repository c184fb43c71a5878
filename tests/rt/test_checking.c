/* test_checking.c — the checking mode (-fbounds-check) on the device
 * $CMETAL_DEVICE names (default cpu; CMETAL_DEVICE=cuda runs it on a GPU):
 *  - every memory family (block, gather/scatter, 4-channel, media, typed,
 *    atomics, typed atomics, SLM block/gather/atomic; blocks checked as a
 *    group and media blocks past one register too), each with an access
 *    partly out of range: by default silent and safe (reads 0 or the edge,
 *    writes dropped); with -fbounds-check the same results and the access
 *    reported with its line, what it was and the CM thread (the lowest
 *    faulting one); a media read past the edge clamps silently in both;
 *  - on the CPU device only (SVM is unchecked on CUDA, and iselect is a
 *    register access): an SVM access outside every live SVM allocation is
 *    reported with its line and thread and made safe (reads 0, writes
 *    dropped), inside one it runs as in the default mode; an iselect index
 *    past its source is reported and reads 0.
 * Usage: test_checking */
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

/* ---- every memory family, on any device ---- */

/* One kernel per family, all with the arguments of FARGS: a (16 dwords,
 * 100 + i), o (64 dwords, zeroed), img (16 x 4 uint pixels, 1000 + 16 y
 * + x) and the displacement d that moves the access out of range.  The
 * access a case checks is on the line marked with its kernel's name. */
#define FARGS "(SurfaceIndex a [[type(\"buffer_t\")]], SurfaceIndex o [[type(\"buffer_t\")]], " \
	"SurfaceIndex img [[type(\"image2d_t uint\")]], int d)\n"
#define FK(name) "extern \"C\" _GENX_MAIN_ void " name FARGS
#define IOTA "\tvector<uint, 8> off;\n\tfor (int i = 0; i < 8; i++) off(i) = i;\n\toff(7) += d;\n"
#define UV "\tvector<uint, 8> u, v = 2;\n\tfor (int i = 0; i < 8; i++) u(i) = i + d;\n"
#define SLM_A "\tcm_slm_init(64);\n\tuint s = cm_slm_alloc(64);\n\tvector<uint, 16> x;\n" \
	"\tread(a, 0, x);\n\tcm_slm_block_write(s, 0, x);\n"
static const char fsrc[] =
	"#include <cm/cm.h>\n"
	FK("bread") "{\n\tvector<uint, 8> v;\n\tread(a, d, v); //@bread\n\twrite(o, 0, v);\n}\n"
	FK("bwrite") "{\n\tvector<uint, 8> v = 5;\n"
	"\twrite(o, d + cm_group_id(0) * 16, v); //@bwrite\n}\n"
	FK("bread2") "{\n\tvector<uint, 8> v, w;\n\tread(a, d, v);\n\tread(a, d + 32, w); //@bread2\n"
	"\twrite(o, 0, v);\n\twrite(o, 32, w);\n}\n"
	FK("gather") "{\n" IOTA "\tvector<uint, 8> g;\n\tread(a, 0, off, g); //@gather\n"
	"\twrite(o, 0, g);\n}\n"
	FK("scatter") "{\n" IOTA "\tvector<uint, 8> six = 6;\n\twrite(o, 0, off, six); //@scatter\n}\n"
	FK("gather4") "{\n" IOTA "\tmatrix<uint, 1, 8> m;\n"
	"\tread_untyped(a, CM_R_ENABLE, m, off); //@gather4\n\twrite(o, 0, m.row(0));\n}\n"
	FK("scatter4") "{\n" IOTA "\tmatrix<uint, 1, 8> m = 6;\n"
	"\twrite_untyped(o, CM_R_ENABLE, m, off); //@scatter4\n}\n"
	FK("mread") "{\n\tmatrix<uint, 2, 8> m;\n\tread(img, d, 0, m); //@mread\n"
	"\twrite(o, 0, m.format<uint>());\n}\n"
	FK("mwrite") "{\n\tmatrix<uint, 2, 8> m = 7;\n\twrite(img, d, 1, m); //@mwrite\n}\n"
	FK("mwrite2") "{\n\tmatrix<uint, 4, 16> m = 7;\n\twrite(img, d, 0, m); //@mwrite2\n}\n"
	FK("tread") "{\n" UV "\tmatrix<uint, 1, 8> m;\n"
	"\tread_typed(img, CM_R_ENABLE, m, u, v); //@tread\n\twrite(o, 0, m.row(0));\n}\n"
	FK("twrite") "{\n" UV "\tmatrix<uint, 1, 8> m = 9;\n"
	"\twrite_typed(img, CM_R_ENABLE, m, u, v); //@twrite\n}\n"
	FK("atomic") "{\n" IOTA "\tvector<uint, 8> src = 1, ret;\n"
	"\twrite(a, ATOMIC_ADD, 0, off, src, ret); //@atomic\n\twrite(o, 0, ret);\n}\n"
	FK("tatomic") "{\n" UV "\tvector<uint, 8> src = 1, ret;\n"
	"\twrite_typed_atomic<ATOMIC_ADD, uint, 8>(img, ret, src, u, v); //@tatomic\n"
	"\twrite(o, 0, ret);\n}\n"
	FK("slmwrite") "{\n" SLM_A "\tvector<uint, 8> five = 5;\n"
	"\tcm_slm_block_write(s, d, five); //@slmwrite\n\tcm_slm_block_read(s, 0, x);\n"
	"\twrite(o, 0, x);\n}\n"
	FK("slmgather") "{\n" SLM_A IOTA "\tvector<uint, 8> g;\n\tcm_slm_read(s, off, g); //@slmgather\n"
	"\twrite(o, 0, g);\n}\n"
	FK("slmatomic") "{\n" SLM_A "\tvector<ushort, 8> off;\n"
	"\tfor (int i = 0; i < 8; i++) off(i) = i;\n\toff(7) += d;\n"
	"\tvector<uint, 8> one = 1, ret;\n\tcm_slm_atomic(s, ATOMIC_ADD, off, ret, one); //@slmatomic\n"
	"\twrite(o, 0, ret);\n}\n";

/* The memory after a run: a, o and img as dwords. */
typedef struct { uint32_t a[16], o[64], img[64]; } Mem;

/* The result of a case at displacement d (out: the out-of-range one). */
typedef int (*MemOk)(const Mem *m, int out);

static int all(const uint32_t *v, int from, int to, uint32_t want)
{
	for (int i = from; i < to; i++)
		if (v[i] != want)
			return 0;
	return 1;
}

/* v[from..to) == base + i - from */
static int iota(const uint32_t *v, int from, int to, uint32_t base)
{
	for (int i = from; i < to; i++)
		if (v[i] != base + (uint32_t)(i - from))
			return 0;
	return 1;
}

static int ok_bread(const Mem *m, int out)
{
	return out ? iota(m->o, 0, 4, 112) && all(m->o, 4, 8, 0) : iota(m->o, 0, 8, 108);
}
static int ok_bwrite(const Mem *m, int out)
{
	return out ? all(m->o, 0, 50, 0) && all(m->o, 50, 64, 5) : all(m->o, 0, 20, 5) && all(m->o, 20, 64, 0);
}
static int ok_gather(const Mem *m, int out)
{
	return iota(m->o, 0, 7, 100) && m->o[7] == (out ? 0 : 107);
}
static int ok_scatter(const Mem *m, int out)
{
	return all(m->o, 0, 7, 6) && m->o[7] == (out ? 0u : 6u) && all(m->o, 8, 64, 0);
}
static int ok_mread(const Mem *m, int out)
{
	/* pixels 10..17 of rows 0 and 1: past 15 the edge pixel repeats */
	if (!out)
		return iota(m->o, 0, 8, 1000) && iota(m->o, 8, 16, 1016);
	return iota(m->o, 0, 6, 1010) && all(m->o, 6, 8, 1015) && iota(m->o, 8, 14, 1026) &&
	       all(m->o, 14, 16, 1031);
}
static int ok_mwrite(const Mem *m, int out)
{
	int x0 = out ? 10 : 0, x1 = out ? 16 : 8;
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 16; x++) {
			uint32_t want = y >= 1 && y <= 2 && x >= x0 && x < x1 ? 7 : 1000 + 16 * y + x;
			if (m->img[16 * y + x] != want)
				return 0;
		}
	return 1;
}
static int ok_bread2(const Mem *m, int out)
{
	return out ? iota(m->o, 0, 12, 104) && all(m->o, 12, 16, 0) : iota(m->o, 0, 16, 100);
}
static int ok_mwrite2(const Mem *m, int out)
{
	for (int i = 0; i < 64; i++)
		if (m->img[i] != (!out || i % 16 >= 2 ? 7u : 1000u + i))
			return 0;
	return 1;
}
static int ok_tread(const Mem *m, int out)
{
	return out ? iota(m->o, 0, 6, 1042) && all(m->o, 6, 8, 0) : iota(m->o, 0, 8, 1032);
}
static int ok_twrite(const Mem *m, int out)
{
	int x0 = out ? 10 : 0, x1 = out ? 16 : 8;
	for (int i = 0; i < 64; i++)
		if (m->img[i] != (i / 16 == 2 && i % 16 >= x0 && i % 16 < x1 ? 9u : 1000u + i))
			return 0;
	return 1;
}
static int ok_atomic(const Mem *m, int out)
{
	return iota(m->o, 0, 7, 100) && m->o[7] == (out ? 0 : 107) && iota(m->a, 0, 7, 101) &&
	       m->a[7] == (out ? 107 : 108) && iota(m->a, 8, 16, 108);
}
static int ok_tatomic(const Mem *m, int out)
{
	int x0 = out ? 10 : 0, x1 = out ? 16 : 8;
	if (!(out ? iota(m->o, 0, 6, 1042) && all(m->o, 6, 8, 0) : iota(m->o, 0, 8, 1032)))
		return 0;
	for (int i = 0; i < 64; i++)
		if (m->img[i] != 1000u + i + (i / 16 == 2 && i % 16 >= x0 && i % 16 < x1))
			return 0;
	return 1;
}
static int ok_slmwrite(const Mem *m, int out)
{
	return out ? iota(m->o, 0, 12, 100) && all(m->o, 12, 16, 5) : all(m->o, 0, 8, 5) &&
	       iota(m->o, 8, 16, 108);
}

typedef struct {
	const char *kernel;   /* and the marker of its access's line */
	const char *what;     /* the report's words for the access; NULL: silent */
	int d_in, d_out;
	uint32_t threads;     /* CM threads: groups of one */
	const char *thread;   /* the faulting thread the report names */
	MemOk ok;
} FamCase;

static const FamCase fam[] = {
	{"bread", "block read out of bounds", 32, 48, 1, "thread 0", ok_bread},
	{"bwrite", "block write out of bounds", 0, 200, 4, "thread 2", ok_bwrite},
	{"bread2", "block read out of bounds", 0, 16, 1, "thread 0", ok_bread2},
	{"gather", "gather out of bounds", 0, 100, 1, "thread 0", ok_gather},
	{"scatter", "scatter out of bounds", 0, 100, 1, "thread 0", ok_scatter},
	{"gather4", "4-channel access out of bounds", 0, 100, 1, "thread 0", ok_gather},
	{"scatter4", "4-channel access out of bounds", 0, 100, 1, "thread 0", ok_scatter},
	{"mread", NULL, 0, 40, 1, NULL, ok_mread},
	{"mwrite", "media block write outside the surface", 0, 40, 1, "thread 0", ok_mwrite},
	{"mwrite2", "media block write outside the surface", 0, 8, 1, "thread 0", ok_mwrite2},
	{"tread", "typed access out of bounds", 0, 10, 1, "thread 0", ok_tread},
	{"twrite", "typed access out of bounds", 0, 10, 1, "thread 0", ok_twrite},
	{"atomic", "atomic out of bounds", 0, 100, 1, "thread 0", ok_atomic},
	{"tatomic", "typed atomic out of bounds", 0, 10, 1, "thread 0", ok_tatomic},
	{"slmwrite", "block write out of bounds", 0, 48, 1, "thread 0", ok_slmwrite},
	{"slmgather", "gather out of bounds", 0, 100, 1, "thread 0", ok_gather},
	{"slmatomic", "atomic out of bounds", 0, 100, 1, "thread 0", ok_gather},
};

/* The line of fsrc that ends with "//@NAME". */
static int line_of(const char *name)
{
	char mark[64];
	snprintf(mark, sizeof mark, "//@%s\n", name);
	const char *at = strstr(fsrc, mark);
	int line = 1;
	for (const char *c = fsrc; at && c < at; c++)
		line += *c == '\n';
	return at ? line : -1;
}

typedef struct {
	cmetal_buffer *a, *o;
	cmetal_surface2d *img;
} FamMem;

/* Runs case c of program p at displacement d: fresh memory, the launch,
 * the memory read back into m. */
static cm_status fam_run(cmetal_program *p, const FamCase *c, const FamMem *fm, int d, Mem *m,
                         char msg[1024])
{
	uint32_t a[16], img[64], zero[64] = {0};
	for (int i = 0; i < 16; i++)
		a[i] = 100 + i;
	for (int i = 0; i < 64; i++)
		img[i] = 1000 + i;
	cmetal_buffer_write(fm->a, 0, sizeof a, a);
	cmetal_buffer_write(fm->o, 0, sizeof zero, zero);
	cmetal_surface2d_write(fm->img, img, 0);
	cmetal_kernel *k;
	cm_status s = cmetal_kernel_create(p, c->kernel, &k);
	if (s)
		return s;
	cmetal_kernel_set_arg_buffer(k, 0, fm->a);
	cmetal_kernel_set_arg_buffer(k, 1, fm->o);
	cmetal_kernel_set_arg_surface2d(k, 2, fm->img);
	cmetal_kernel_set_arg(k, 3, 4, &d);
	uint32_t groups[3] = {c->threads, 1, 1}, one[3] = {1, 1, 1};
	s = cmetal_launch_groups(k, groups, one, NULL);
	snprintf(msg, 1024, "%s", s ? cmetal_last_error() : "");
	cmetal_kernel_release(k);
	cmetal_buffer_read(fm->a, 0, sizeof m->a, m->a);
	cmetal_buffer_read(fm->o, 0, sizeof m->o, m->o);
	cmetal_surface2d_read(fm->img, m->img, 0);
	return s;
}

/* Case c in the default mode (p[0]) and the checking mode (p[1]), in
 * range and out of it. */
static void fam_case(cmetal_program *const p[2], const FamCase *c, const FamMem *fm)
{
	char name[128], why[1400], msg[1024], want[256];
	int line = line_of(c->kernel);
	snprintf(want, sizeof want, "kernel '%s' accessed out of bounds at line %d (%s) in %s",
	         c->kernel, line, c->what ? c->what : "", c->thread ? c->thread : "");
	for (int chk = 0; chk < 2; chk++)
		for (int out = 0; out < 2; out++) {
			Mem m;
			cm_status s = fam_run(p[chk], c, fm, out ? c->d_out : c->d_in, &m, msg);
			snprintf(name, sizeof name, "%s_%s_%s", chk ? "check" : "default", c->kernel,
			         out ? "out_of_range" : "in_range");
			int reported = chk && out && c->what;
			int ok = reported ? s == CM_KERNEL_FAULT && strstr(msg, want) : s == CM_SUCCESS;
			snprintf(why, sizeof why, "status %s (want %s), message: %s%s%s",
			         cmetal_status_name(s), reported ? "CM_KERNEL_FAULT" : "CM_SUCCESS", msg,
			         reported ? "; want: " : "", reported ? want : "");
			check(name, ok, why);
			snprintf(name, sizeof name, "%s_%s_%s_safe", chk ? "check" : "default", c->kernel,
			         out ? "out_of_range" : "in_range");
			check(name, c->ok(&m, out), "wrong memory after the launch");
		}
}

static int families(cmetal_device *d)
{
	cmetal_program *p[2];
	FamMem fm;
	MUST(cmetal_program_build(d, fsrc, "", &p[0]));
	MUST(cmetal_program_build(d, fsrc, "-fbounds-check", &p[1]));
	MUST(cmetal_buffer_create(d, 16 * 4, &fm.a));
	MUST(cmetal_buffer_create(d, 64 * 4, &fm.o));
	MUST(cmetal_surface2d_create(d, 16, 4, CMETAL_FMT_R32_UINT, &fm.img));
	for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++)
		fam_case(p, &fam[i], &fm);
	cmetal_buffer_release(fm.a);
	cmetal_buffer_release(fm.o);
	cmetal_surface2d_release(fm.img);
	cmetal_program_release(p[0]);
	cmetal_program_release(p[1]);
	return 0;
}

int main(void)
{
	const char *devname = getenv("CMETAL_DEVICE");
	devname = devname && *devname ? devname : "cpu";
	MUST(cmetal_device_open(devname, &dev));
	families(dev);
	if (strncmp(devname, "cpu", 3)) {   /* SVM and regions: the CPU's checks */
		cmetal_device_close(dev);
		return check_failures ? 1 : 0;
	}
	cmetal_program *p[2];
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
