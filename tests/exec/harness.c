/* harness.c — builds and launches the execution tests' kernels, random
 * inputs, comparisons, and main(): runs every test (or those named on the
 * command line) and prints "ok exec/NAME" or "FAIL exec/NAME" with the
 * seed and the first mismatches. */
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static cmetal_device *dev;
static const char *dir = "tests/exec";
static char printed[1 << 16];
/* CMETAL_EXEC_OPTIONS: build options added to every program (e.g.
 * -fptx-layout=canonical); CMETAL_EXEC_DIGEST: a file that gets a hash of
 * every output of every run, so two runs (two layouts, two devices) can be
 * compared byte for byte.  In digest mode an output buffer starts zeroed
 * (as new buffers are on the CPU device), so bytes a kernel leaves alone
 * hash the same everywhere. */
static const char *extra_options;
static FILE *digest;
static size_t nprinted;

void h_fail(H *h, const char *fmt, ...)
{
	if (!h->failed)
		printf("FAIL exec/%s (seed %u)\n", h->name, h->seed);
	h->failed = true;
	if (h->printed++ >= 8)
		return;
	va_list ap;
	va_start(ap, fmt);
	printf("    ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

uint32_t h_rand(H *h)
{
	h->rng ^= h->rng << 13;
	h->rng ^= h->rng >> 7;
	h->rng ^= h->rng << 17;
	return (uint32_t)(h->rng >> 11);
}

int32_t h_range(H *h, int32_t lo, int32_t hi)
{
	return lo + (int32_t)(h_rand(h) % ((uint32_t)(hi - lo) + 1u));
}

float h_float(H *h, float lo, float hi)
{
	return lo + (hi - lo) * (float)(h_rand(h) % 1000000) / 1000000.0f;
}

void h_fill_i32(H *h, int32_t *p, size_t n, int32_t lo, int32_t hi)
{
	for (size_t i = 0; i < n; i++)
		p[i] = h_range(h, lo, hi);
}

void h_fill_u8(H *h, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)h_rand(h);
}

void h_fill_f32(H *h, float *p, size_t n, float lo, float hi)
{
	for (size_t i = 0; i < n; i++)
		p[i] = h_float(h, lo, hi);
}

#define EQ(name, T, fmt)                                                      \
	bool name(H *h, const char *what, const T *got, const T *want, size_t n) \
	{                                                                     \
		bool ok = true;                                               \
		for (size_t i = 0; i < n; i++)                                \
			if (got[i] != want[i]) {                              \
				h_fail(h, "%s[%zu] = " fmt ", expected " fmt, \
				       what, i, got[i], want[i]);             \
				ok = false;                                   \
			}                                                     \
		return ok;                                                    \
	}
EQ(h_eq_i32, int32_t, "%d")
EQ(h_eq_u32, uint32_t, "%u")
EQ(h_eq_u8, uint8_t, "%u")
EQ(h_eq_i16, int16_t, "%d")

bool h_near_f32(H *h, const char *what, const float *got, const float *want, size_t n,
                float rel)
{
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		float d = fabsf(got[i] - want[i]), m = fabsf(want[i]);
		if (!(d <= rel * (m > 1 ? m : 1)) && !(isnan(got[i]) && isnan(want[i]))) {
			h_fail(h, "%s[%zu] = %.9g, expected %.9g", what, i, got[i], want[i]);
			ok = false;
		}
	}
	return ok;
}

const char *h_printed(void) { return printed; }

static void on_printf(void *user, const char *text, size_t len)
{
	(void)user;
	if (nprinted + len >= sizeof printed)
		len = sizeof printed - nprinted - 1;
	memcpy(printed + nprinted, text, len);
	nprinted += len;
	printed[nprinted] = 0;
}

/* Programs are built once per file and options. */
static struct { char key[256]; cmetal_program *p; } progs[256];
static int nprogs;

static cmetal_program *program(H *h, const char *file, const char *options)
{
	char key[256], opts[512];
	/* a test's own options come last, so they win over the run's */
	snprintf(opts, sizeof opts, "%s %s", extra_options ? extra_options : "",
	         options ? options : "");
	options = opts;
	snprintf(key, sizeof key, "%s|%s", file, options);
	for (int i = 0; i < nprogs; i++)
		if (!strcmp(progs[i].key, key))
			return progs[i].p;
	char path[512];
	snprintf(path, sizeof path, "%s/%s.cm", dir, file);
	FILE *f = fopen(path, "rb");
	if (!f) {
		h_fail(h, "cannot open %s", path);
		return NULL;
	}
	static char src[1 << 16];
	size_t n = fread(src, 1, sizeof src - 1, f);
	fclose(f);
	src[n] = 0;
	cmetal_program *p = NULL;
	if (cmetal_program_build(dev, src, options ? options : "", &p) != CM_SUCCESS) {
		h_fail(h, "%s does not build:\n%s", path, cmetal_last_error());
		return NULL;
	}
	if (nprogs < 256) {
		snprintf(progs[nprogs].key, sizeof progs[nprogs].key, "%s", key);
		progs[nprogs++].p = p;
	}
	return p;
}

typedef struct {
	cmetal_buffer *buf;
	cmetal_surface2d *s2;
	cmetal_svm *svm;
} Bound;

static cm_status fill_pattern(cmetal_buffer *b, size_t bytes)
{
	void *pat = malloc(bytes ? bytes : 1);
	if (!pat)
		return CM_OUT_OF_MEMORY;
	memset(pat, 0, bytes);
	cm_status st = cmetal_buffer_write(b, 0, bytes, pat);
	free(pat);
	return st;
}

/* FNV-1a of every output of the run, one line per argument. */
static void write_digest(H *h, const HEntry *e, const HArg *a, int n)
{
	for (int i = 0; i < n; i++) {
		if (a[i].kind == HA_IN || a[i].kind == HA_SCALAR || a[i].kind == HA_SVM_IN)
			continue;
		uint64_t x = 0xcbf29ce484222325ull;
		for (size_t k = 0; k < a[i].bytes; k++)
			x = (x ^ ((const unsigned char *)a[i].p)[k]) * 0x100000001b3ull;
		fprintf(digest, "%s %s arg%d %016llx\n", h->name, e[0].kernel, i,
		        (unsigned long long)x);
	}
}

static bool bind(H *h, cmetal_kernel *k, HArg *a, int n, Bound *b)
{
	for (int i = 0; i < n; i++) {
		cm_status st = CM_SUCCESS;
		switch (a[i].kind) {
		case HA_IN: case HA_OUT: case HA_INOUT:
			st = cmetal_buffer_create(dev, a[i].bytes, &b[i].buf);
			if (!st && a[i].kind != HA_OUT)
				st = cmetal_buffer_write(b[i].buf, 0, a[i].bytes, a[i].p);
			else if (!st && digest)
				st = fill_pattern(b[i].buf, a[i].bytes);
			if (!st)
				st = cmetal_kernel_set_arg_buffer(k, (uint32_t)i, b[i].buf);
			break;
		case HA_SURF2D:
			st = cmetal_surface2d_create(dev, a[i].w, a[i].h, a[i].fmt, &b[i].s2);
			if (!st)
				st = cmetal_surface2d_write(b[i].s2, a[i].p, 0);
			if (!st)
				st = cmetal_kernel_set_arg_surface2d(k, (uint32_t)i, b[i].s2);
			break;
		case HA_SVM_IN: case HA_SVM_OUT:
			st = cmetal_svm_alloc(dev, a[i].bytes, &b[i].svm);
			if (!st)
				st = cmetal_svm_write(b[i].svm, 0, a[i].bytes, a[i].p);
			if (!st)
				st = cmetal_kernel_set_arg_svm(k, (uint32_t)i, b[i].svm, 0);
			break;
		case HA_SCALAR:
			st = cmetal_kernel_set_arg(k, (uint32_t)i, a[i].bytes, a[i].p);
			break;
		}
		if (st) {
			h_fail(h, "argument %d: %s", i, cmetal_last_error());
			return false;
		}
	}
	return true;
}

static void unbind(HArg *a, int n, Bound *b, bool read)
{
	for (int i = 0; i < n; i++) {
		if (b[i].buf) {
			if (read && a[i].kind != HA_IN)
				cmetal_buffer_read(b[i].buf, 0, a[i].bytes, a[i].p);
			cmetal_buffer_release(b[i].buf);
		}
		if (b[i].s2) {
			if (read)
				cmetal_surface2d_read(b[i].s2, a[i].p, 0);
			cmetal_surface2d_release(b[i].s2);
		}
		if (b[i].svm) {
			if (read && a[i].kind == HA_SVM_OUT)
				cmetal_svm_read(b[i].svm, 0, a[i].bytes, a[i].p);
			cmetal_svm_free(b[i].svm);
		}
	}
}

static cm_status add(cmetal_task *t, cmetal_kernel *k, HShape s)
{
	if (s.grouped)
		return cmetal_task_add_groups(t, k, s.groups, s.threads);
	return cmetal_task_add_walker(t, k, s.wx, s.wy, s.dep);
}

bool h_task(H *h, const char *file, HEntry *e, int ne, HArg *a, int n)
{
	cmetal_program *p = program(h, file, e[0].shape.options);
	if (!p)
		return false;
	cmetal_kernel *ks[8] = {0};
	Bound b[128];   /* dataport.c many_surfaces: 105 arguments */
	if (n > (int)(sizeof b / sizeof b[0])) {
		h_fail(h, "%d arguments: the harness binds at most %zu", n, sizeof b / sizeof b[0]);
		return false;
	}
	memset(b, 0, sizeof b);
	cmetal_task *t = NULL;
	bool ok = cmetal_task_create(dev, &t) == CM_SUCCESS;
	for (int i = 0; ok && i < ne && i < 8; i++) {
		if (cmetal_kernel_create(p, e[i].kernel, &ks[i])) {
			h_fail(h, "kernel %s: %s", e[i].kernel, cmetal_last_error());
			ok = false;
			break;
		}
		if (i == 0)
			ok = bind(h, ks[i], a, n, b);
		else
			for (int j = 0; ok && j < n; j++) {
				cm_status st = b[j].buf ? cmetal_kernel_set_arg_buffer(ks[i], (uint32_t)j, b[j].buf) :
				               b[j].s2 ? cmetal_kernel_set_arg_surface2d(ks[i], (uint32_t)j, b[j].s2) :
				               b[j].svm ? cmetal_kernel_set_arg_svm(ks[i], (uint32_t)j, b[j].svm, 0) :
				               cmetal_kernel_set_arg(ks[i], (uint32_t)j, a[j].bytes, a[j].p);
				if (st) {
					h_fail(h, "argument %d of %s: %s", j, e[i].kernel, cmetal_last_error());
					ok = false;
				}
			}
		if (ok && i > 0)
			ok = cmetal_task_add_sync(t) == CM_SUCCESS;
		if (ok && add(t, ks[i], e[i].shape)) {
			h_fail(h, "adding %s: %s", e[i].kernel, cmetal_last_error());
			ok = false;
		}
	}
	nprinted = 0;
	printed[0] = 0;
	cmetal_event *ev = NULL;
	if (ok && cmetal_task_run(t, &ev)) {
		h_fail(h, "run: %s", cmetal_last_error());
		ok = false;
	}
	if (ev) {
		if (cmetal_event_wait(ev)) {
			h_fail(h, "wait: %s", cmetal_last_error());
			ok = false;
		}
		cmetal_event_release(ev);
	}
	unbind(a, n, b, ok);
	if (ok && digest && !h->no_digest)
		write_digest(h, e, a, n);
	if (t)
		cmetal_task_release(t);
	for (int i = 0; i < ne && i < 8; i++)
		if (ks[i])
			cmetal_kernel_release(ks[i]);
	return ok;
}

bool h_run_n(H *h, const char *file, const char *kernel, HShape s, HArg *a, int n)
{
	HEntry e = {kernel, s};
	return h_task(h, file, &e, 1, a, n);
}

static const HTest *const families[] = {
	exec_core, exec_members, exec_simd, exec_memory, exec_math, exec_sync, exec_arith,
	exec_dataport, exec_lang, exec_compat, exec_dpas, exec_gpu_regress, exec_diff_regress,
	exec_fp, exec_occupancy, exec_pack, exec_vloop, exec_unroll, exec_ifconv, exec_async,
};

/* Whether name is one of the space-separated words of list. */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *w = list; w && *w;) {
		while (*w == ' ')
			w++;
		size_t k = strcspn(w, " ");
		if (k == n && !strncmp(w, name, n))
			return true;
		w += k;
	}
	return false;
}

/* CMETAL_EXEC_SKIP: tests not to run (tests/gpu/sim.sh's slow ones in
 * its extra variants).  CMETAL_EXEC_TIMES=FILE: each test's wall time in
 * seconds into FILE, "SECONDS NAME" a line (to find the slow ones). */
int main(int argc, char **argv)
{
	const char *d = getenv("CMETAL_EXEC_DIR");
	if (d)
		dir = d;
	const char *devname = getenv("CMETAL_DEVICE");
	if (cmetal_device_open(devname ? devname : "cpu", &dev)) {
		printf("FAIL exec/device: %s\n", cmetal_last_error());
		return 0;
	}
	cmetal_device_set_printf(dev, on_printf, NULL);
	extra_options = getenv("CMETAL_EXEC_OPTIONS");
	const char *dg = getenv("CMETAL_EXEC_DIGEST");
	if (dg && !(digest = fopen(dg, "w"))) {
		printf("FAIL exec/digest: cannot write %s\n", dg);
		return 0;
	}
	const char *se = getenv("CMETAL_SEED");
	unsigned base = se ? (unsigned)strtoul(se, NULL, 0) :
	                (unsigned)time(NULL) ^ ((unsigned)getpid() << 16);
	const char *skip = getenv("CMETAL_EXEC_SKIP");
	const char *tm = getenv("CMETAL_EXEC_TIMES");
	FILE *times = tm ? fopen(tm, "w") : NULL;
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
		for (const HTest *t = families[f]; t->name; t++) {
			if (listed(skip, t->name))
				continue;
			bool want = argc < 2;
			for (int i = 1; i < argc; i++)
				want |= !strcmp(argv[i], t->name);
			if (!want)
				continue;
			H h = {.name = t->name};
			h.seed = base;
			for (const char *c = t->name; *c; c++)
				h.seed = h.seed * 31u + (unsigned char)*c;
			h.rng = (uint64_t)h.seed * 0x9E3779B97F4A7C15ull | 1;
			fflush(stdout);
			struct timespec t0, t1;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			t->fn(&h);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if (times)
				fprintf(times, "%.3f %s\n", (double)(t1.tv_sec - t0.tv_sec) +
				        (t1.tv_nsec - t0.tv_nsec) / 1e9, t->name);
			if (!h.failed)
				printf("ok exec/%s\n", t->name);
			fflush(stdout);
		}
	/* a test named on the command line that does not exist fails, so a
	 * misspelled or unregistered one is not taken for a pass */
	for (int i = 1; i < argc; i++) {
		bool found = false;
		for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
			for (const HTest *t = families[f]; t->name; t++)
				found |= !strcmp(argv[i], t->name);
		if (!found)
			printf("FAIL exec/%s: no such test\n", argv[i]);
	}
	for (int i = 0; i < nprogs; i++)
		cmetal_program_release(progs[i].p);
	cmetal_device_close(dev);
	if (digest)
		fclose(digest);
	if (times)
		fclose(times);
	return 0;
}
