/* test_cache.c — run-time builds through the cache.  The CM -> C step is
 * replaced by a fake translator (the "CM source" here is already C written
 * to the ABI, with "#error" lines standing in for CM errors), so this tests
 * the cache, the C compiler call and its errors without the compiler.
 * $CC is a wrapper that counts its invocations.
 * Usage: test_cache WORK_DIR ROOT */
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "check.h"
#include "rt/rt.h"

static char *abi_header;

/* Pastes cmk_abi.h in front of the source, as the C back end does; a
 * source starting with "ERR" fails like a CM compile error. */
static bool fake_translate(const char *source, const char *path, const char *options,
                           Buf *c_out, Buf *deps,
                           Buf *log)
{
	if (strncmp(source, "ERR", 3) == 0) {
		buf_puts(log, "k.cm:3:5: error: undeclared identifier 'q'\n");
		return false;
	}
	buf_puts(c_out, abi_header);
	buf_puts(c_out, source);
	return true;
}

static const char *kernel_src =
	"static void set(CmkThread *t) {\n"
	"\tCmkSurface *s = &t->surfaces[*(const uint32_t *)t->args[0]];\n"
	"\tif (s->size >= 4) *(uint32_t *)s->base = 1234;\n"
	"}\n"
	"static const CmkArgInfo args[] = {{\"out\", CMK_ARG_SURFACE, 4, 0, CMK_SURF_BUFFER, \"buffer_t\"}};\n"
	"static const CmkKernelInfo ks[] = {{\"set\", set, 1, args, 0, 0, 0, 0, 1}};\n"
	"const uint32_t cmk_abi_version = CMK_ABI_VERSION;\n"
	"const CmkProgramInfo cmk_program = {1, ks};\n";

static int cc_count(const char *file)
{
	FILE *f = fopen(file, "r");
	int n = 0, c;
	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	char path[4096], count[4096], wrap[4096];
	snprintf(path, sizeof path, "%s/src/rt/cmk_abi.h", argv[2]);
	abi_header = read_file(path, NULL);
	if (!abi_header)
		return 2;
	snprintf(count, sizeof count, "%s/cc.count", argv[1]);
	snprintf(wrap, sizeof wrap, "%s/cc-wrap", argv[1]);
	const char *real_cc = getenv("CC") ? getenv("CC") : "cc";
	FILE *f = fopen(wrap, "w");
	/* builds only: the runtime also asks `$CC --version` once (cc_is_gcc) */
	fprintf(f, "#!/bin/sh\n[ \"$1\" = --version ] || echo run >> '%s'\nexec %s \"$@\"\n", count, real_cc);
	fclose(f);
	chmod(wrap, 0755);
	setenv("CC", wrap, 1);
	snprintf(path, sizeof path, "%s/cache dir/nested", argv[1]);   /* a space, and created */
	setenv("CMETAL_CACHE_DIR", path, 1);

	cmetal_device *dev;
	MUST(cmetal_device_open("cpu", &dev));
	rt_device_set_translator(dev, fake_translate);
	cmetal_program *p1, *p2, *p3, *bad;
	MUST(cmetal_program_build(dev, kernel_src, "-O2", &p1));
	check("cache_first_build_runs_cc", cc_count(count) == 1, NULL);
	cmetal_kernel *k;
	cmetal_buffer *b;
	uint32_t v = 0;
	MUST(cmetal_kernel_create(p1, "set", &k));
	MUST(cmetal_buffer_create(dev, 4, &b));
	MUST(cmetal_kernel_set_arg_buffer(k, 0, b));
	MUST(cmetal_launch_walker(k, 1, 1, CMETAL_DEP_NONE, NULL));
	MUST(cmetal_buffer_read(b, 0, 4, &v));
	check("cache_built_kernel_runs", v == 1234, NULL);

	double t0 = now_ms();
	MUST(cmetal_program_build(dev, kernel_src, "-O2", &p2));
	double ms = now_ms() - t0;
	char why[256];
	snprintf(why, sizeof why, "cached rebuild took %.3f ms, cc ran %d times", ms, cc_count(count));
	check("cache_hit_skips_cc", cc_count(count) == 1, why);
	check("cache_hit_under_5ms", ms < 5.0, why);
	printf("    (cached rebuild: %.3f ms)\n", ms);

	/* unload it, so the next hit pays for dlopen as a new process would */
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_program_release(p1));
	MUST(cmetal_program_release(p2));
	t0 = now_ms();
	MUST(cmetal_program_build(dev, kernel_src, "-O2", &p1));
	ms = now_ms() - t0;
	snprintf(why, sizeof why, "cached rebuild with dlopen took %.3f ms", ms);
	check("cache_hit_with_load_under_5ms", ms < 5.0 && cc_count(count) == 1, why);
	printf("    (cached rebuild with dlopen: %.3f ms)\n", ms);
	MUST(cmetal_kernel_create(p1, "set", &k));
	MUST(cmetal_program_build(dev, kernel_src, "-O2", &p2));

	MUST(cmetal_program_build(dev, kernel_src, "-O2 -DX=1", &p3));
	check("cache_key_has_options", cc_count(count) == 2, NULL);
	const char *log;
	MUST(cmetal_program_build_log(p3, &log));
	check("cache_build_log_empty", log && *log == '\0', log);

	bad = (cmetal_program *)1;
	check_err("build_cm_error_diagnostics", cmetal_program_build(dev, "ERR", "", &bad),
	          CM_BUILD_FAILED, "build failed", "k.cm:3:5: error: undeclared identifier 'q'", NULL);
	check("build_error_no_program", bad == NULL, NULL);
	check_err("build_cc_error_diagnostics",
	          cmetal_program_build(dev, "int broken( {\n", "", &bad), CM_BUILD_FAILED,
	          "C compiler failed", "error", NULL);
	check("build_failure_not_cached", cc_count(count) == 3 &&
	      cmetal_program_build(dev, "int broken( {\n", "", &bad) == CM_BUILD_FAILED &&
	      cc_count(count) == 4, NULL);

	MUST(cmetal_kernel_release(k));
	MUST(cmetal_buffer_release(b));
	MUST(cmetal_program_release(p1));
	MUST(cmetal_program_release(p2));
	MUST(cmetal_program_release(p3));
	MUST(cmetal_device_close(dev));
	free(abi_header);
	return check_failures != 0;
}
