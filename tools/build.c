/* build.c — binaries from the back ends' text, for `cmetal -c`:
 *   -t c    the C goes through $CC (default cc) into a kernel library (.so)
 *           that the CPU device loads (cmetal_program_load);
 *   -t ptx  the container of rt/cuda_abi.h "Binaries": the PTX, plus the
 *           cubin of ptxas ($PTXAS, else ptxas on PATH) when there is one;
 *           the CUDA device loads it.
 * The intermediate files live in a private temporary directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"
#include "rt/cuda_abi.h"
#include "target/target.h"

/* Appends path to b in single quotes, for sh. */
static void put_quoted(Buf *b, const char *path)
{
	buf_putc(b, '\'');
	for (const char *p = path; *p; p++)
		buf_puts(b, *p == '\'' ? "'\\''" : (char[]){*p, 0});
	buf_putc(b, '\'');
}

/* Runs cmd with sh; -v prints it first.  The exit status, -1 if it did
 * not run. */
static int run(const DriverOptions *o, const Buf *cmd)
{
	if (o->verbose)
		fprintf(stderr, " %s\n", buf_cstr((Buf *)cmd));
	fflush(NULL);
	int st = system(buf_cstr((Buf *)cmd));
	return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool write_file(const char *path, const void *data, size_t len)
{
	FILE *f = !strcmp(path, "-") ? stdout : fopen(path, "wb");
	if (!f)
		return false;
	bool ok = fwrite(data, 1, len, f) == len;
	if (f == stdout)
		return fflush(f) == 0 && ok;
	return fclose(f) == 0 && ok;
}

/* A private temporary directory; "" when none can be made. */
static void temp_dir(char dir[256])
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, 256, "%s/cmetal-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "cmetal: error: cannot create a temporary directory in %s\n",
		        tmp && *tmp ? tmp : "/tmp");
		dir[0] = 0;
	}
}

static void remove_dir(const char *dir, const char *const *files)
{
	char p[512];
	for (; *files; files++) {
		snprintf(p, sizeof p, "%s/%s", dir, *files);
		unlink(p);
	}
	rmdir(dir);
}

int build_cpu_library(const DriverOptions *o, const Buf *c_text, const char *out)
{
	char dir[256], c_path[300], so_path[300];
	temp_dir(dir);
	if (!dir[0])
		return 1;
	snprintf(c_path, sizeof c_path, "%s/k.c", dir);
	snprintf(so_path, sizeof so_path, "%s/k.so", dir);
	int rc = 1;
	if (!write_file(c_path, c_text->data ? c_text->data : "", c_text->len)) {
		fprintf(stderr, "cmetal: error: cannot write %s\n", c_path);
	} else {
		const char *cc = getenv("CC");
		Buf cmd = {0};
		buf_printf(&cmd, "%s %s %s -shared -fPIC%s -o ", cc && *cc ? cc : "cc",
		           c_cc_opt_flags(c_text->data ? c_text->data : "", c_text->len, o->debug),
		           fp_cc_flag(&o->fp), o->debug ? " -g" : "");
		put_quoted(&cmd, !strcmp(out, "-") ? so_path : out);
		buf_putc(&cmd, ' ');
		put_quoted(&cmd, c_path);
		buf_puts(&cmd, " -lm");   /* kernels call libm (fmaxf, exp2f, ...) */
		int st = run(o, &cmd);
		if (st != 0)
			fprintf(stderr, "cmetal: error: the C compiler failed (status %d): %s\n", st,
			        buf_cstr(&cmd));
		rc = st != 0;
		buf_free(&cmd);
	}
	if (rc == 0 && !strcmp(out, "-")) {   /* -o -: the library on stdout */
		size_t n;
		char *so = read_file(so_path, &n);
		rc = !so || !write_file("-", so, n);
		free(so);
	}
	remove_dir(dir, (const char *const[]){"k.c", "k.so", NULL});
	return rc;
}

/* ptxas to use: $PTXAS, else ptxas when it is on PATH; NULL when none. */
static const char *find_ptxas(Buf *path)
{
	const char *env = getenv("PTXAS");
	if (env && *env)
		return env;
	const char *p = getenv("PATH");
	while (p && *p) {
		size_t n = strcspn(p, ":");
		path->len = 0;
		buf_printf(path, "%.*s/ptxas", (int)n, p);
		if (n && access(buf_cstr(path), X_OK) == 0)
			return buf_cstr(path);
		p += n + (p[n] == ':');
	}
	return NULL;
}

/* The cubin of ptx for arch into *cubin (malloc'd); false when ptxas is
 * missing (a note with -v) or fails (an error: exit status 1). */
static bool assemble(const DriverOptions *o, const Buf *ptx, const char *arch, char **cubin,
                     size_t *len, bool *failed)
{
	Buf where = {0};
	const char *ptxas = find_ptxas(&where);
	*cubin = NULL;
	*failed = false;
	if (!ptxas) {
		if (o->verbose)
			fprintf(stderr, "cmetal: note: ptxas not found ($PTXAS, PATH); the binary holds "
			        "the PTX only (the driver compiles it when loading)\n");
		buf_free(&where);
		return false;
	}
	char dir[256], src[300], bin[300];
	temp_dir(dir);
	if (!dir[0]) {
		*failed = true;
		buf_free(&where);
		return false;
	}
	snprintf(src, sizeof src, "%s/k.ptx", dir);
	snprintf(bin, sizeof bin, "%s/k.cubin", dir);
	Buf cmd = {0};
	if (write_file(src, ptx->data ? ptx->data : "", ptx->len)) {
		put_quoted(&cmd, ptxas);
		buf_printf(&cmd, " -arch=%s%s -o ", arch, o->debug ? " -lineinfo" : "");
		put_quoted(&cmd, bin);
		buf_putc(&cmd, ' ');
		put_quoted(&cmd, src);
		int st = run(o, &cmd);
		if (st == 0)
			*cubin = read_file(bin, len);
		if (!*cubin) {
			fprintf(stderr, "cmetal: error: ptxas failed (status %d): %s\n", st,
			        buf_cstr(&cmd));
			*failed = true;
		}
	}
	remove_dir(dir, (const char *const[]){"k.ptx", "k.cubin", NULL});
	buf_free(&cmd);
	buf_free(&where);
	return *cubin != NULL;
}

int build_gpu_binary(const DriverOptions *o, const Buf *ptx, const char *out)
{
	const char *arch = o->march ? o->march : "sm_90";   /* the PTX back end's default */
	char *cubin;
	size_t cubin_len = 0;
	bool failed;
	bool have = assemble(o, ptx, arch, &cubin, &cubin_len, &failed);
	if (failed)
		return 1;
	Buf b = {0};
	buf_puts(&b, CUDA_BIN_MAGIC);
	buf_printf(&b, "ptx %zu\n", ptx->len);
	buf_putn(&b, ptx->data ? ptx->data : "", ptx->len);
	buf_putc(&b, '\n');
	if (have) {
		buf_printf(&b, "cubin %s %zu\n", arch, cubin_len);
		buf_putn(&b, cubin, cubin_len);
		buf_putc(&b, '\n');
	}
	free(cubin);
	int rc = 0;
	if (!write_file(out, b.data, b.len)) {
		fprintf(stderr, "cmetal: error: cannot write '%s'\n", out);
		rc = 1;
	}
	buf_free(&b);
	return rc;
}
