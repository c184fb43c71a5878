/* cache.c — run-time builds through an on-disk cache.
 *
 * The key is a 64-bit hash of the CM source, the build options, the C
 * compiler command ($CC, default cc), the kernel ABI version, the runtime's
 * version and the identity (path, size, mtime) of the binary holding the
 * compiler; the kernel library is <dir>/cm-<key>.so with
 * dir = $CMETAL_CACHE_DIR or ~/.cache/cmetal.  A hit costs a stat.  A miss
 * translates CM to C in process, writes the C next to a temporary name,
 * runs `$CC -O2 -march=native -shared -fPIC [-g] ... -lm`, and renames the result
 * into place, so concurrent builders never see a partial file. */
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt/rt.h"

#define RT_CACHE_VERSION "cmetal-rt-cache 1"

extern char **environ;

/* mkdir -p; returns false with errno set on failure. */
static bool make_dirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int r = mkdir(path, 0755);
		*p = '/';
		if (r && errno != EEXIST)
			return false;
	}
	return mkdir(path, 0755) == 0 || errno == EEXIST;
}

static char *cache_dir(void)
{
	const char *env = getenv("CMETAL_CACHE_DIR");
	if (env && *env)
		return xstrdup(env);
	const char *home = getenv("HOME");
	Buf b = {0};
	if (home && *home)
		buf_printf(&b, "%s/.cache/cmetal", home);
	else
		buf_printf(&b, "/tmp/cmetal-cache-%d", (int)getuid());
	return buf_cstr(&b);
}

static const char *cc_command(void)
{
	const char *cc = getenv("CC");
	return cc && *cc ? cc : "cc";
}

/* True when options ask for debug info (-g, -g1, -g2, ...; not -g0). */
static bool wants_debug(const char *options)
{
	for (const char *p = options; (p = strstr(p, "-g")); p += 2) {
		bool start = p == options || p[-1] == ' ' || p[-1] == '\t';
		char c = p[2];
		if (start && (c == '\0' || c == ' ' || c == '\t' || (c >= '1' && c <= '3')))
			return true;
	}
	return false;
}

/* Identifies the compiler doing the build: the file holding this code
 * (the program linked with libcmetal.a, or libcmetal.so) by size and
 * modification time, so a rebuilt compiler never reuses stale kernels. */
static void put_compiler_identity(Buf *b)
{
	Dl_info info;
	struct stat st;
	if (dladdr((void *)put_compiler_identity, &info) && info.dli_fname &&
	    stat(info.dli_fname, &st) == 0)
		buf_printf(b, "%s %lld %lld.%09ld\n", info.dli_fname, (long long)st.st_size,
		           (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

static uint64_t cache_key(const char *source, const char *options, const char *cc)
{
	Buf b = {0};
	buf_printf(&b, "%s\n%d\n%s\n%s\n", RT_CACHE_VERSION, CMK_ABI_VERSION, cc, options);
	put_compiler_identity(&b);
	buf_puts(&b, source);
	uint64_t h = hash_bytes(b.data, b.len);
	buf_free(&b);
	return h;
}

/* Appends path to b in single quotes for sh. */
static void put_quoted(Buf *b, const char *path)
{
	buf_putc(b, '\'');
	for (const char *p = path; *p; p++) {
		if (*p == '\'')
			buf_puts(b, "'\\''");
		else
			buf_putc(b, *p);
	}
	buf_putc(b, '\'');
}

/* Runs cmd with sh -c; returns the exit status, or -1 if it did not run. */
static int run_shell(const char *cmd)
{
	char *argv[] = {"sh", "-c", (char *)cmd, NULL};
	pid_t pid;
	if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0)
		return -1;
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool write_text(const char *path, const char *text, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	bool ok = fwrite(text, 1, n, f) == n;
	return fclose(f) == 0 && ok;
}

/* Compiles c_path into so_path with the C compiler; log gets its output. */
static cm_status run_cc(const char *cc, const char *c_path, const char *so_path,
                        const char *log_path, bool debug, Buf *log)
{
	Buf cmd = {0};
	buf_printf(&cmd, "%s -O2 -march=native -shared -fPIC%s -o ", cc, debug ? " -g" : "");
	put_quoted(&cmd, so_path);
	buf_putc(&cmd, ' ');
	put_quoted(&cmd, c_path);
	buf_puts(&cmd, " -lm >");   /* kernels call libm (fmaxf, exp2f, ...) */
	put_quoted(&cmd, log_path);
	buf_puts(&cmd, " 2>&1");
	int rc = run_shell(buf_cstr(&cmd));
	size_t n = 0;
	char *out = read_file(log_path, &n);
	unlink(log_path);
	cm_status s = CM_SUCCESS;
	if (rc != 0) {
		buf_printf(log, "C compiler failed (status %d): %s\n", rc, buf_cstr(&cmd));
		s = CM_BUILD_FAILED;
	}
	if (out)
		buf_putn(log, out, n);
	free(out);
	buf_free(&cmd);
	return s;
}

/* A cache miss: CM -> C -> .so, renamed to final at the end. */
static cm_status build_into(cmetal_device *dev, const char *source, const char *options,
                            const char *stem, const char *final, Buf *log)
{
	Buf c = {0}, tmp = {0};
	if (!dev->translate(source, options, &c, log)) {
		buf_free(&c);
		bool missing = dev->translate == rt_translate_cm && !rt_compiler_available();
		return missing ? CM_COMPILER_UNAVAILABLE : CM_BUILD_FAILED;
	}
	buf_printf(&tmp, "%s.%d.%lx", stem, (int)getpid(), (unsigned long)pthread_self());
	char *base = buf_cstr(&tmp);
	Buf cp = {0}, sp = {0}, lp = {0}, cf = {0};
	buf_printf(&cp, "%s.c", base);
	buf_printf(&sp, "%s.so", base);
	buf_printf(&lp, "%s.log", base);
	buf_printf(&cf, "%s.c", stem);
	cm_status s = CM_SUCCESS;
	if (!write_text(buf_cstr(&cp), c.data ? c.data : "", c.len)) {
		buf_printf(log, "cannot write %s: %s\n", buf_cstr(&cp), strerror(errno));
		s = CM_IO_ERROR;
	}
	if (!s)
		s = run_cc(cc_command(), buf_cstr(&cp), buf_cstr(&sp), buf_cstr(&lp),
		           wants_debug(options), log);
	if (!s && rename(buf_cstr(&sp), final) != 0) {
		buf_printf(log, "cannot rename %s to %s: %s\n", buf_cstr(&sp), final, strerror(errno));
		s = CM_IO_ERROR;
	}
	if (!s)
		rename(buf_cstr(&cp), buf_cstr(&cf));  /* kept for debugging */
	unlink(buf_cstr(&cp));
	unlink(buf_cstr(&sp));
	buf_free(&c);
	buf_free(&tmp);
	buf_free(&cp);
	buf_free(&sp);
	buf_free(&lp);
	buf_free(&cf);
	return s;
}

cm_status rt_cache_build(cmetal_device *dev, const char *source, const char *options,
                         char **so_path, Buf *log)
{
	*so_path = NULL;
	char *dir = cache_dir();
	if (!make_dirs(dir)) {
		cm_status s = rt_fail(CM_IO_ERROR, "cannot create the cache directory %s: %s",
		                      dir, strerror(errno));
		free(dir);
		return s;
	}
	const char *cc = cc_command();
	Buf stem = {0}, final = {0};
	buf_printf(&stem, "%s/cm-%016llx", dir,
	           (unsigned long long)cache_key(source, options, cc));
	buf_printf(&final, "%s.so", buf_cstr(&stem));
	free(dir);
	struct stat st;
	cm_status s = CM_SUCCESS;
	if (stat(buf_cstr(&final), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		s = build_into(dev, source, options, buf_cstr(&stem), buf_cstr(&final), log);
	buf_free(&stem);
	if (s) {
		buf_free(&final);
		return rt_fail(s, "%s:\n%s", s == CM_COMPILER_UNAVAILABLE ? "cannot build" : "build failed",
		               log->len ? buf_cstr(log) : "(no diagnostics)\n");
	}
	*so_path = buf_cstr(&final);
	return CM_SUCCESS;
}
