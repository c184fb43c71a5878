/* test_units.c — a program of several large kernels is built for the CPU as
 * one translation unit per core, compiled in parallel and linked
 * (c_split_units, rt/cache.c): the units split as documented and the linked
 * library runs every kernel right.  Usage: test_units TMPDIR */
#include <dirent.h>
#include <stdlib.h>

#include "check.h"
#include "target/target.h"
#include "util/util.h"

enum { NK = 3, STEPS = 250 };

/* Kernel k: 8 dwords at byte 32k, put through STEPS xor-shift-multiply
 * steps (about 1,700 lines of C each). */
static char *source(void)
{
	Buf b = {0};
	buf_puts(&b, "#include <cm/cm.h>\n");
	for (int k = 0; k < NK; k++) {
		buf_printf(&b, "extern \"C\" _GENX_MAIN_ void k%d(SurfaceIndex b [[type(\"buffer_t\")]])\n"
		               "{\n\tvector<uint, 8> v;\n\tread(b, %d, v);\n", k, 32 * k);
		for (int i = 0; i < STEPS; i++)
			buf_printf(&b, "\tv = (v ^ (v >> %d)) * %du;\n", i % 7 + 1, 2 * i + 3 + k);
		buf_printf(&b, "\twrite(b, %d, v);\n}\n", 32 * k);
	}
	return buf_cstr(&b);
}

static uint32_t reference(uint32_t v, int k)
{
	for (int i = 0; i < STEPS; i++)
		v = (v ^ (v >> (i % 7 + 1))) * (uint32_t)(2 * i + 3 + k);
	return v;
}

static void split_cases(void)
{
	Buf c = {0}, u[4] = {{0}};
	const char *m = C_UNIT_MARK "\n";
	buf_printf(&c, "head\n%sK0\n%sK1 long long long\n%sK2\n%sinfo\n", m, m, m, m);
	int n = c_split_units(c.data, c.len, 2, u);
	check("units_short_c_stays_whole", n == 1 && u[0].len == c.len, NULL);
	buf_free(&u[0]);
	for (int i = 0; i < 3000; i++)   /* long enough to split */
		buf_puts(&c, "\n");
	n = c_split_units(c.data, c.len, 2, u);
	/* the longest kernel (K1) goes first, into unit 0 (with the metadata);
	 * K0 and K2 share unit 1; both start with the head */
	check("units_balanced_by_size", n == 2 && strstr(buf_cstr(&u[0]), "K1") &&
	      !strstr(buf_cstr(&u[0]), "K0") && strstr(buf_cstr(&u[1]), "K0") &&
	      strstr(buf_cstr(&u[1]), "K2") && strstr(buf_cstr(&u[0]), "info") &&
	      !strstr(buf_cstr(&u[1]), "info") && !strncmp(u[0].data, "head", 4) &&
	      !strncmp(u[1].data, "head", 4), buf_cstr(&u[0]));
	buf_free(&u[0]);
	buf_free(&u[1]);
	buf_free(&c);
}

/* No unit file is left in the cache directory. */
static bool units_left(const char *dir)
{
	DIR *d = opendir(dir);
	bool left = false;
	for (struct dirent *e; d && (e = readdir(d));)
		left |= strstr(e->d_name, ".u0.") != NULL || strstr(e->d_name, ".u1.") != NULL;
	if (d)
		closedir(d);
	return left;
}

int main(int argc, char **argv)
{
	char cache[4096];
	snprintf(cache, sizeof cache, "%s/units-cache", argc > 1 ? argv[1] : "/tmp");
	setenv("CMETAL_CACHE_DIR", cache, 1);
	split_cases();
	char *src = source();
	Buf c = {0}, u[8] = {{0}};
	CompileOptions co = {.opt_level = 2};
	bool ok = compile_to("units.cm", src, &co, "c", &c);
	int n = ok ? c_split_units(c.data, c.len, 3, u) : 0;
	check("units_three_kernels_split", n == 3, ok ? "not split" : "does not compile");
	for (int k = 0; k < 8; k++)
		buf_free(&u[k]);
	cmetal_device *dev;
	cmetal_program *p;
	cmetal_buffer *b;
	MUST(cmetal_device_open("cpu", &dev));
	MUST(cmetal_program_build(dev, src, "", &p));
	MUST(cmetal_buffer_create(dev, 32 * NK, &b));
	uint32_t in[8 * NK], out[8 * NK], one[3] = {1, 1, 1};
	for (int i = 0; i < 8 * NK; i++)
		in[i] = 0x9e3779b9u * (uint32_t)(i + 1);
	MUST(cmetal_buffer_write(b, 0, sizeof in, in));
	for (int k = 0; k < NK; k++) {
		char name[8];
		cmetal_kernel *kk;
		snprintf(name, sizeof name, "k%d", k);
		MUST(cmetal_kernel_create(p, name, &kk));
		MUST(cmetal_kernel_set_arg_buffer(kk, 0, b));
		MUST(cmetal_launch_groups(kk, one, one, NULL));
		MUST(cmetal_kernel_release(kk));
	}
	MUST(cmetal_buffer_read(b, 0, sizeof out, out));
	bool right = true;
	for (int i = 0; i < 8 * NK; i++)
		right &= out[i] == reference(in[i], i / 8);
	check("units_linked_kernels_run", right, NULL);
	check("units_no_files_left", !units_left(cache), cache);
	cmetal_buffer_release(b);
	cmetal_program_release(p);
	cmetal_device_close(dev);
	free(src);
	buf_free(&c);
	return check_failures ? 1 : 0;
}
