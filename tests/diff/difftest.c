/* difftest.c — runs generated kernels (tests/diff/gen.py) in several modes
 * and compares every output byte for byte.
 *
 *   difftest [-g] [-m 'DEVICE OPTIONS']... [-v] FILE.cm...
 *
 * A mode is a device ("cpu", "cuda") and build options ("-O0",
 * "-O2 -fptx-layout=canonical"); the first mode is the reference (default
 * modes: 'cpu -O0' and 'cpu -O2'; -g: the five modes of the GPU run,
 * tests/gpu/diff.sh).  Each file's "// DIFF:" line gives the
 * launch (groups x threads) and the buffer sizes; the inputs (a buffer, an
 * SVM allocation, a 2D R32_UINT image and two scalars) are random bytes
 * from the file's seed, the outputs (a buffer, an SVM allocation, a 2D
 * image) start zeroed.  Prints one line per file:
 *   ok FILE
 *   MISMATCH FILE: MODE vs MODE: BUF[OFFSET] = X, expected Y (N bytes differ)
 *   FAIL FILE: MODE: build failed | launch failed ... (first lines of the log)
 * Exit status: 0 all ok, 1 a mismatch, 2 a failure (and no mismatch), 3 usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmetal.h"

typedef struct {
	unsigned seed, groups, threads;
	size_t in, out, svmin, svmout;
	unsigned imgw, imgh, oimgw, oimgh;
} Header;

typedef struct {
	unsigned char *out, *svmout, *oimg;
} Result;

enum { MAXMODES = 8 };
static struct {
	const char *spec;      /* as given */
	char dev[16];
	const char *opts;
	cmetal_device *d;
} modes[MAXMODES];
static int nmodes;
static int verbose;

static uint64_t rng;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static void fill(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)rnd();
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = 0;
	fclose(f);
	return s;
}

static int parse_header(const char *src, Header *h)
{
	const char *p = strstr(src, "// DIFF:");
	return p && sscanf(p, "// DIFF: seed=%u groups=%u threads=%u in=%zu out=%zu svmin=%zu "
	                   "svmout=%zu img=%ux%u oimg=%ux%u", &h->seed, &h->groups, &h->threads,
	                   &h->in, &h->out, &h->svmin, &h->svmout, &h->imgw, &h->imgh,
	                   &h->oimgw, &h->oimgh) == 11;
}

/* The first lines of a message, indented. */
static void detail(const char *msg)
{
	int lines = 0;
	printf("    ");
	for (const char *c = msg; *c && lines < 12; c++) {
		putchar(*c);
		if (*c == '\n' && c[1]) {
			lines++;
			printf("    ");
		}
	}
	putchar('\n');
}

#define TRY(what, call)                                                       \
	do {                                                                  \
		if ((st = (call)) != CM_SUCCESS) {                           \
			stage = what;                                         \
			goto done;                                            \
		}                                                             \
	} while (0)

/* Builds and runs the kernel of src in mode m; 0 and the outputs in r, or
 * -1 with the failure printed. */
static int run_mode(const char *file, const char *src, const Header *h, int m, Result *r)
{
	cmetal_device *d = modes[m].d;
	cmetal_program *prog = NULL;
	cmetal_kernel *k = NULL;
	cmetal_buffer *in = NULL, *out = NULL;
	cmetal_surface2d *img = NULL, *oimg = NULL;
	cmetal_svm *sin = NULL, *sout = NULL;
	cm_status st = CM_SUCCESS;
	const char *stage = "";
	size_t imgbytes = (size_t)h->imgw * h->imgh * 4, oimgbytes = (size_t)h->oimgw * h->oimgh * 4;
	unsigned char *hin = malloc(h->in), *hsvm = malloc(h->svmin), *himg = malloc(imgbytes);
	r->out = calloc(1, h->out);
	r->svmout = calloc(1, h->svmout);
	r->oimg = calloc(1, oimgbytes);
	rng = (uint64_t)h->seed * 0x9E3779B97F4A7C15ull | 1;
	fill(hin, h->in);
	fill(hsvm, h->svmin);
	fill(himg, imgbytes);
	uint32_t s0 = rnd(), s1 = rnd();
	TRY("build", cmetal_program_build(d, src, modes[m].opts, &prog));
	TRY("kernel", cmetal_kernel_create(prog, "k", &k));
	TRY("buffers", cmetal_buffer_create(d, h->in, &in));
	TRY("buffers", cmetal_buffer_write(in, 0, h->in, hin));
	TRY("buffers", cmetal_buffer_create(d, h->out, &out));
	TRY("buffers", cmetal_buffer_write(out, 0, h->out, r->out));
	TRY("images", cmetal_surface2d_create(d, h->imgw, h->imgh, CMETAL_FMT_R32_UINT, &img));
	TRY("images", cmetal_surface2d_write(img, himg, 0));
	TRY("images", cmetal_surface2d_create(d, h->oimgw, h->oimgh, CMETAL_FMT_R32_UINT, &oimg));
	TRY("images", cmetal_surface2d_write(oimg, r->oimg, 0));
	TRY("svm", cmetal_svm_alloc(d, h->svmin, &sin));
	TRY("svm", cmetal_svm_write(sin, 0, h->svmin, hsvm));
	TRY("svm", cmetal_svm_alloc(d, h->svmout, &sout));
	TRY("svm", cmetal_svm_write(sout, 0, h->svmout, r->svmout));
	TRY("arguments", cmetal_kernel_set_arg_buffer(k, 0, in));
	TRY("arguments", cmetal_kernel_set_arg_buffer(k, 1, out));
	TRY("arguments", cmetal_kernel_set_arg_surface2d(k, 2, img));
	TRY("arguments", cmetal_kernel_set_arg_surface2d(k, 3, oimg));
	TRY("arguments", cmetal_kernel_set_arg_svm(k, 4, sin, 0));
	TRY("arguments", cmetal_kernel_set_arg_svm(k, 5, sout, 0));
	TRY("arguments", cmetal_kernel_set_arg(k, 6, 4, &s0));
	TRY("arguments", cmetal_kernel_set_arg(k, 7, 4, &s1));
	TRY("launch", cmetal_launch_groups(k, (uint32_t[3]){h->groups, 1, 1},
	                                   (uint32_t[3]){h->threads, 1, 1}, NULL));
	TRY("read back", cmetal_buffer_read(out, 0, h->out, r->out));
	TRY("read back", cmetal_svm_read(sout, 0, h->svmout, r->svmout));
	TRY("read back", cmetal_surface2d_read(oimg, r->oimg, 0));
done:
	if (st != CM_SUCCESS) {
		printf("FAIL %s: %s: %s failed: %s\n", file, modes[m].spec, stage,
		       cmetal_status_name(st));
		detail(cmetal_last_error());
	}
	if (k)
		cmetal_kernel_release(k);
	if (prog)
		cmetal_program_release(prog);
	if (in)
		cmetal_buffer_release(in);
	if (out)
		cmetal_buffer_release(out);
	if (img)
		cmetal_surface2d_release(img);
	if (oimg)
		cmetal_surface2d_release(oimg);
	if (sin)
		cmetal_svm_free(sin);
	if (sout)
		cmetal_svm_free(sout);
	free(hin);
	free(hsvm);
	free(himg);
	return st == CM_SUCCESS ? 0 : -1;
}

static void free_result(Result *r)
{
	free(r->out);
	free(r->svmout);
	free(r->oimg);
}

/* Compares one output; prints the first difference; true if equal. */
static int same(const char *file, int m, const char *what, const unsigned char *got,
                const unsigned char *want, size_t n, int *printed)
{
	size_t first = n, count = 0;
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i]) {
			if (first == n)
				first = i;
			count++;
		}
	if (!count)
		return 1;
	if (!*printed)
		printf("MISMATCH %s: '%s' vs '%s':", file, modes[m].spec, modes[0].spec);
	size_t w = first & ~(size_t)3;
	uint32_t g = 0, e = 0;
	memcpy(&g, got + w, w + 4 <= n ? 4 : n - w);
	memcpy(&e, want + w, w + 4 <= n ? 4 : n - w);
	printf(" %s[%zu] = 0x%08x, expected 0x%08x (%zu bytes differ);", what, w, g, e, count);
	*printed = 1;
	return 0;
}

static int check_file(const char *file)
{
	char *src = slurp(file);
	Header h;
	if (!src || !parse_header(src, &h)) {
		printf("FAIL %s: cannot read it or its // DIFF: line\n", file);
		free(src);
		return 2;
	}
	Result ref = {0}, r;
	int status = 0;
	int ok0 = run_mode(file, src, &h, 0, &ref) == 0;
	if (!ok0)
		status = 2;
	size_t oimgbytes = (size_t)h.oimgw * h.oimgh * 4;
	for (int m = 1; m < nmodes; m++) {
		if (run_mode(file, src, &h, m, &r) != 0) {
			status = status ? status : 2;
		} else if (ok0) {
			int printed = 0;
			same(file, m, "out", r.out, ref.out, h.out, &printed);
			same(file, m, "svmout", r.svmout, ref.svmout, h.svmout, &printed);
			same(file, m, "oimg", r.oimg, ref.oimg, oimgbytes, &printed);
			if (printed) {
				putchar('\n');
				status = 1;
			}
		}
		free_result(&r);
	}
	free_result(&ref);
	if (status == 0)
		printf("ok %s\n", file);
	fflush(stdout);
	free(src);
	return status;
}

/* -g: the GPU run's modes (tests/gpu/diff.sh), the CPU at -O2 first as
 * the reference. */
static const char *const gpu_modes[] = {
	"cpu -O2", "cpu -O0", "cuda -O2 -fptx-layout=auto", "cuda -O2 -fptx-layout=canonical",
	"cuda -O0 -fptx-layout=auto",
};

/* Adds mode s, "DEVICE OPTIONS" (kept by reference). */
static void add_mode(const char *s)
{
	modes[nmodes].spec = s;
	size_t n = strcspn(s, " ");
	if (n >= sizeof modes[nmodes].dev)
		n = sizeof modes[nmodes].dev - 1;
	memcpy(modes[nmodes].dev, s, n);
	modes[nmodes].opts = s + n + strspn(s + n, " ");
	nmodes++;
}

int main(int argc, char **argv)
{
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-m") && i + 1 < argc && nmodes < MAXMODES) {
			add_mode(argv[++i]);
		} else if (!strcmp(argv[i], "-g")) {
			for (size_t k = 0; k < sizeof gpu_modes / sizeof gpu_modes[0]; k++)
				if (nmodes < MAXMODES)
					add_mode(gpu_modes[k]);
		} else if (!strcmp(argv[i], "-v")) {
			verbose = 1;
		} else {
			fprintf(stderr, "usage: difftest [-g] [-m 'DEVICE OPTIONS']... FILE.cm...\n");
			return 3;
		}
	}
	if (nmodes == 0) {
		modes[0].spec = "cpu -O0", strcpy(modes[0].dev, "cpu"), modes[0].opts = "-O0";
		modes[1].spec = "cpu -O2", strcpy(modes[1].dev, "cpu"), modes[1].opts = "-O2";
		nmodes = 2;
	}
	for (int m = 0; m < nmodes; m++) {
		for (int k = 0; k < m; k++)
			if (!strcmp(modes[k].dev, modes[m].dev))
				modes[m].d = modes[k].d;
		if (!modes[m].d && cmetal_device_open(modes[m].dev, &modes[m].d) != CM_SUCCESS) {
			printf("FAIL difftest: cannot open device '%s': %s\n", modes[m].dev,
			       cmetal_last_error());
			return 2;
		}
	}
	int worst = 0;
	for (; i < argc; i++) {
		int s = check_file(argv[i]);
		if (s == 1 || (s == 2 && worst == 0))
			worst = s;
	}
	for (int m = 0; m < nmodes; m++) {
		int first = 1;
		for (int k = 0; k < m; k++)
			first &= modes[k].d != modes[m].d;
		if (first)
			cmetal_device_close(modes[m].d);
	}
	return worst;
}
