/* test_cache_trust.c — the build cache cannot be poisoned and damage
 * cannot break it (src/rt/cache.c):
 *   - a cache directory another user owns (root only: chown 65534), one
 *     writable by its group or others, or one under a directory others can
 *     write, is not used: the build works without it, says why in the log,
 *     and a library planted there never runs;
 *   - a garbled, truncated or substituted entry, a garbled manifest, and
 *     an entry of another owner are detected and rebuilt;
 *   - a changed #include'd header, a new one that shadows it on the
 *     include path, or its removal, makes a rebuild (the real CM compiler).
 * As in test_cache.c, the CM -> C step of most builds is a fake that
 * pastes the ABI header in front of C source, and $CC counts its runs.
 * Usage: test_cache_trust WORK_DIR ROOT */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "rt/rt.h"

static char *abi_header;
static char work[2048], count_file[2200];

static bool fake_translate(const char *source, const char *path, const char *options,
                           Buf *c_out, Buf *deps,
                           Buf *log)
{
	buf_puts(c_out, abi_header);
	buf_puts(c_out, source);
	return true;
}

/* A kernel "set" writing value to the first word of its buffer. */
static char *kernel_src(unsigned value, const char *extra)
{
	Buf b = {0};
	buf_printf(&b, "%s\nstatic void set(CmkThread *t) {\n"
	           "\tCmkSurface *s = &t->surfaces[*(const uint32_t *)t->args[0]];\n"
	           "\tif (s->size >= 4) *(uint32_t *)s->base = %uu;\n}\n"
	           "static const CmkArgInfo args[] = {{\"out\", CMK_ARG_SURFACE, 4, 0, "
	           "CMK_SURF_BUFFER, \"buffer_t\"}};\n"
	           "static const CmkKernelInfo ks[] = {{\"set\", set, 1, args, 0, 0, 0, 0, 1}};\n"
	           "const uint32_t cmk_abi_version = CMK_ABI_VERSION;\n"
	           "const CmkProgramInfo cmk_program = {1, ks};\n", extra ? extra : "", value);
	return buf_cstr(&b);
}

static int cc_runs(void)
{
	FILE *f = fopen(count_file, "r");
	int n = 0, c;
	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* Builds source (options) and runs its kernel "set"; returns the word it
 * wrote (0 on failure) and the build log in log (malloc'd). */
static unsigned build_run(cmetal_device *dev, const char *source, const char *options,
                          char **log)
{
	cmetal_program *p;
	cmetal_kernel *k;
	cmetal_buffer *b;
	unsigned v = 0;
	*log = NULL;
	if (cmetal_program_build(dev, source, options, &p) != CM_SUCCESS) {
		*log = xstrdup(cmetal_last_error());
		return 0;
	}
	const char *l = "";
	cmetal_program_build_log(p, &l);
	*log = xstrdup(l);
	if (cmetal_kernel_create(p, "set", &k) == CM_SUCCESS) {
		if (cmetal_buffer_create(dev, 16, &b) == CM_SUCCESS) {
			if (cmetal_kernel_set_arg_buffer(k, 0, b) == CM_SUCCESS &&
			    cmetal_launch_walker(k, 1, 1, CMETAL_DEP_NONE, NULL) == CM_SUCCESS)
				cmetal_buffer_read(b, 0, 4, &v);
			cmetal_buffer_release(b);
		}
		cmetal_kernel_release(k);
	}
	cmetal_program_release(p);
	return v;
}

static int run(const char *cmd)
{
	return system(cmd);
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The path of a cm-*.so in dir other than skip (may be NULL). */
static bool find_entry(const char *dir, char *out, size_t n, const char *skip)
{
	DIR *d = opendir(dir);
	bool found = false;
	if (!d)
		return false;
	for (struct dirent *e; !found && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (strncmp(e->d_name, "cm-", 3) || len < 4 || strcmp(e->d_name + len - 3, ".so"))
			continue;
		snprintf(out, n, "%s/%s", dir, e->d_name);
		found = !skip || strcmp(out, skip);
	}
	closedir(d);
	return found;
}

static bool has(const char *log, const char *what)
{
	return log && strstr(log, what);
}

static void setdir(const char *sub, char *out, size_t n)
{
	snprintf(out, n, "%s/%s", work, sub);
	setenv("CMETAL_CACHE_DIR", out, 1);
}

/* A cache directory of the wrong mode (or under one) is not used. */
static void untrusted_modes(cmetal_device *dev)
{
	char d[4096], cmd[8192], *log;
	char *src = kernel_src(1234, "/* modes */");
	setdir("fresh/cache", d, sizeof d);
	unsigned v = build_run(dev, src, "", &log);
	struct stat st;
	check("cache_dir_created_private", v == 1234 && stat(d, &st) == 0 &&
	      (st.st_mode & 0777) == 0700, log);
	free(log);

	static const struct { const char *name, *sub, *mode, *chmod_dir, *want; } cases[] = {
		{"cache_dir_world_writable_refused", "ww", "777", "", "writable by group and others"},
		{"cache_dir_group_writable_refused", "gw", "770", "", "writable by its group"},
		{"cache_dir_other_writable_refused", "ow", "702", "", "writable by others"},
		{"cache_dir_under_open_dir_refused", "open/cache", "700", "open",
		 "above it is writable by group and others and not sticky"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		setdir(cases[i].sub, d, sizeof d);
		snprintf(cmd, sizeof cmd, "mkdir -p '%s' && chmod %s '%s'%s%s%s%s", d, cases[i].mode, d,
		         *cases[i].chmod_dir ? " && chmod 777 '" : "", *cases[i].chmod_dir ? work : "",
		         *cases[i].chmod_dir ? "/" : "", *cases[i].chmod_dir ? "open'" : "");
		run(cmd);
		int before = cc_runs();
		v = build_run(dev, src, "", &log);
		char why[4096];
		snprintf(why, sizeof why, "value %u, entries %d, log: %s", v, count_entries(d),
		         log ? log : "");
		check(cases[i].name, v == 1234 && count_entries(d) == 0 && has(log, d) &&
		      has(log, "is not used") && has(log, cases[i].want) && cc_runs() == before + 1,
		      why);
		free(log);
	}
	free(src);
}

/* The trailer cache.c seals a file with (its documented format). */
static void seal(const char *path)
{
	const char *base = strrchr(path, '/') + 1;
	uint64_t key = strtoull(base + 3, NULL, 16);
	size_t n = 0;
	char *data = read_file(path, &n);
	uint64_t sum = hash_more(hash_bytes(&key, sizeof key), data, n);
	FILE *f = fopen(path, "ab");
	fprintf(f, "\n#cmetal-cache-entry key %016llx size %016llx sum %016llx\n",
	        (unsigned long long)key, (unsigned long long)n, (unsigned long long)sum);
	fclose(f);
	free(data);
}

/* Replaces the entry at path with a properly sealed library whose
 * constructor creates marker and whose kernel writes 6666. */
static bool plant(const char *path, const char *marker)
{
	char extra[4096], c[4096], cmd[16384];
	snprintf(extra, sizeof extra, "#include <fcntl.h>\n#include <unistd.h>\n"
	         "__attribute__((constructor)) static void evil(void) "
	         "{ close(open(\"%s\", O_CREAT | O_WRONLY, 0600)); }\n", marker);
	char *src = kernel_src(6666, extra);
	snprintf(c, sizeof c, "%s/evil.c", work);
	FILE *f = fopen(c, "w");
	fputs(abi_header, f);
	fputs(src, f);
	fclose(f);
	free(src);
	const char *cc = getenv("REAL_CC");
	snprintf(cmd, sizeof cmd, "%s -shared -fPIC -o '%s' '%s'", cc, path, c);
	if (run(cmd) != 0)
		return false;
	seal(path);
	return true;
}

/* Another user's directory (the attack: a library planted there ran as
 * the victim).  Needs root to make a directory of another owner. */
static void planted_by_other_user(cmetal_device *dev)
{
	if (geteuid() != 0) {
		check("cache_planted_other_user (skipped: not root)", 1, NULL);
		return;
	}
	char d[4096], so[4096], marker[4096], cmd[8192], *log;
	char *src = kernel_src(1234, "/* planted */");
	snprintf(marker, sizeof marker, "%s/evil-ran", work);
	setdir("planted", d, sizeof d);
	unsigned v = build_run(dev, src, "", &log);
	free(log);
	bool ok = v == 1234 && find_entry(d, so, sizeof so, NULL) && plant(so, marker);
	/* control: in the user's own directory the sealed library is trusted */
	v = build_run(dev, src, "", &log);
	check("cache_planted_control_loads_own_entry", ok && v == 6666 && exists(marker), log);
	free(log);
	unlink(marker);
	snprintf(cmd, sizeof cmd, "chown -R 65534:65534 '%s'", d);
	ok = run(cmd) == 0;
	v = build_run(dev, src, "", &log);
	char why[4096];
	snprintf(why, sizeof why, "value %u, planted code ran: %d, log: %s", v, exists(marker),
	         log ? log : "");
	check("cache_planted_other_user_refused", ok && v == 1234 && !exists(marker) &&
	      has(log, d) && has(log, "owned by uid 65534"), why);
	free(log);
	/* a directory of our own holding an entry of another owner */
	snprintf(cmd, sizeof cmd, "chown 0:0 '%s'", d);
	run(cmd);
	v = build_run(dev, src, "", &log);
	check("cache_entry_of_other_user_rebuilt", v == 1234 && !exists(marker) &&
	      has(log, "owned by another user"), log);
	free(log);
	free(src);
}

/* Overwrites 256 bytes at the middle of path with 0xff. */
static void garble(const char *path)
{
	struct stat st;
	stat(path, &st);
	int fd = open(path, O_WRONLY);
	unsigned char junk[256];
	memset(junk, 0xff, sizeof junk);
	pwrite(fd, junk, sizeof junk, st.st_size / 2);
	close(fd);
}

static void damaged_entries(cmetal_device *dev)
{
	char d[4096], so[4096], other[4096], cmd[16384], *log;
	char *src = kernel_src(1234, "/* damage */"), *src2 = kernel_src(5678, "/* other */");
	setdir("damage", d, sizeof d);
	unsigned v = build_run(dev, src, "", &log);
	free(log);
	bool ok = v == 1234 && find_entry(d, so, sizeof so, NULL);
	static const char *const names[] = {"cache_garbled_entry_rebuilt",
	                                    "cache_truncated_entry_rebuilt",
	                                    "cache_substituted_entry_rebuilt",
	                                    "cache_garbled_manifest_rebuilt"};
	static const char *const want[] = {"its contents do not match their hash",
	                                   "it has no cmetal trailer",
	                                   "it is the entry of another key",
	                                   "damaged"};
	for (int i = 0; i < 4; i++) {
		switch (i) {
		case 0:
			garble(so);
			break;
		case 1:
			truncate(so, 1000);
			break;
		case 2:       /* another program's valid entry copied over it */
			v = build_run(dev, src2, "", &log);
			free(log);
			ok = ok && find_entry(d, other, sizeof other, so);
			snprintf(cmd, sizeof cmd, "cp '%s' '%s'", other, so);
			ok = ok && v == 5678 && strcmp(other, so) && run(cmd) == 0;
			break;
		case 3:
			snprintf(cmd, sizeof cmd, "for f in '%s'/*.dep; do echo junk >> \"$f\"; done", d);
			run(cmd);
			break;
		}
		int before = cc_runs();
		v = build_run(dev, src, "", &log);
		char why[4096];
		snprintf(why, sizeof why, "value %u, cc runs %d -> %d, log: %s", v, before, cc_runs(),
		         log ? log : "");
		check(names[i], ok && v == 1234 && cc_runs() == before + 1 && has(log, want[i]), why);
		free(log);
		before = cc_runs();
		v = build_run(dev, src, "", &log);
		snprintf(why, sizeof why, "%s_then_hit", names[i]);
		check(why, v == 1234 && cc_runs() == before && log && !*log, log);
		free(log);
	}
	free(src);
	free(src2);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* The key covers #include'd files: the real compiler. */
static void header_changes(void)
{
	char d[4096], a[4096], b[4096], h[4096], ha[4096], opts[8192], cmd[8192], *log;
	static const char *src =
		"#include \"val.h\"\n"
		"extern \"C\" _GENX_MAIN_ void set(SurfaceIndex o [[type(\"buffer_t\")]])\n"
		"{\n\tvector<uint, 4> v = VAL;\n\twrite(o, 0, v);\n}\n";
	cmetal_device *dev;
	if (cmetal_device_open("cpu", &dev) != CM_SUCCESS) {
		check("cache_header_device", 0, cmetal_last_error());
		return;
	}
	setdir("headers", d, sizeof d);
	snprintf(a, sizeof a, "%s/inc-a", work);
	snprintf(b, sizeof b, "%s/inc-b", work);
	snprintf(cmd, sizeof cmd, "mkdir -p '%s' '%s'", a, b);
	run(cmd);
	snprintf(h, sizeof h, "%s/val.h", b);
	snprintf(ha, sizeof ha, "%s/val.h", a);
	write_text(h, "#define VAL 11\n");
	snprintf(opts, sizeof opts, "-I '%s' -I '%s'", a, b);
	unsigned v = build_run(dev, src, opts, &log);
	check("cache_header_first_build", v == 11, log);
	free(log);
	int before = cc_runs();
	v = build_run(dev, src, opts, &log);
	check("cache_header_unchanged_hits", v == 11 && cc_runs() == before, log);
	free(log);
	write_text(h, "#define VAL 22\n");
	v = build_run(dev, src, opts, &log);
	check("cache_header_changed_rebuilds", v == 22 && cc_runs() == before + 1, log);
	free(log);
	write_text(ha, "#define VAL 33\n");      /* found first on the include path */
	v = build_run(dev, src, opts, &log);
	check("cache_header_shadowed_rebuilds", v == 33 && cc_runs() == before + 2, log);
	free(log);
	unlink(ha);                             /* back to b's */
	v = build_run(dev, src, opts, &log);
	check("cache_header_removed_rebuilds", v == 22, log);
	free(log);
	cmetal_device_close(dev);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	char path[4096], wrap[4096];
	snprintf(work, sizeof work, "%s/trust", argv[1]);
	mkdir(work, 0700);
	snprintf(path, sizeof path, "%s/src/rt/cmk_abi.h", argv[2]);
	abi_header = read_file(path, NULL);
	if (!abi_header)
		return 2;
	snprintf(count_file, sizeof count_file, "%s/cc.count", work);
	snprintf(wrap, sizeof wrap, "%s/cc-wrap", work);
	const char *real_cc = getenv("CC") ? getenv("CC") : "cc";
	setenv("REAL_CC", real_cc, 1);
	FILE *f = fopen(wrap, "w");
	/* builds only: the runtime also asks `$CC --version` once (cc_is_gcc) */
	fprintf(f, "#!/bin/sh\n[ \"$1\" = --version ] || echo run >> '%s'\nexec %s \"$@\"\n", count_file, real_cc);
	fclose(f);
	chmod(wrap, 0755);
	setenv("CC", wrap, 1);

	cmetal_device *dev;
	MUST(cmetal_device_open("cpu", &dev));
	rt_device_set_translator(dev, fake_translate);
	untrusted_modes(dev);
	planted_by_other_user(dev);
	damaged_entries(dev);
	MUST(cmetal_device_close(dev));
	header_changes();
	free(abi_header);
	return check_failures != 0;
}
