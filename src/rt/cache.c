/* cache.c — run-time builds through an on-disk cache that no other user
 * can write to and that damage cannot break.
 *
 * Directory.  $CMETAL_CACHE_DIR, else ~/.cache/cmetal, else (no HOME)
 * /tmp/cmetal-cache-<uid>; created with mode 0700.  Before every use its
 * canonical path is checked (dir_trusted): the directory must be owned by
 * this user and writable by no one else, and each directory above it must
 * be owned by root or this user and not writable by others unless sticky
 * (as /tmp is), so no other user can add, replace or rename anything on
 * the way.  A directory that fails is not used: the build goes to a fresh
 * private directory (mkdtemp) removed after the load, and the build log
 * says which directory was refused and why.
 *
 * Keys.  key1 hashes the CM source, the build options, the C compiler
 * command ($CC, default cc), the kernel ABI version, the cache version and
 * the identity (path, size, mtime) of the binary holding the compiler.
 * cm-<key1>.dep holds the files the source #included when it was last
 * built, each with the hash of its contents (PPOptions.deps).  The kernel
 * library is cm-<key2>.so, key2 = hash(key1, that list recomputed from the
 * files as they are now): a changed, added or removed header is a miss.
 *
 * Entries.  Each file ends with a trailer naming its key and a hash of the
 * key and of every byte before the trailer, written by the build that made
 * the file (seal).  A hit opens the file without following links, checks
 * that it is a regular file of this user writable by no one else, reads
 * it and checks the trailer before dlopen.  An entry that fails (truncated,
 * garbled, another key's file copied over it, or one that does not load)
 * is rebuilt, with a note in the build log.  A miss translates CM to C in
 * process, writes the C, runs `$CC -O2 -march=native -ffp-contract=off
 * -shared -fPIC [-g] ... -lm` (-O1 -ftree-vectorize for very long C:
 * c_cc_opt_flags, per translation unit when the C is split into one unit
 * per core; -ffp-contract=fast when the options ask; gcc also gets
 * -fvect-cost-model=cheap: cc_is_gcc), seals the
 * result and renames it into place: every file is
 * written under a temporary name and renamed, so concurrent builders never
 * see a partial file.  Under -g the C is built at -O0 and the source is
 * saved as cm-<key1>.cm, the file its debug information names.
 *
 * The hash (FNV-1a 64) catches accidents and a same-user tool writing the
 * wrong file; it does not stop a same-user attacker, who can run code as
 * the user anyway.  Other users are kept out by the directory checks. */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rt/rt.h"
#include "target/target.h"

#define RT_CACHE_VERSION "cmetal-rt-cache 8"   /* 3: -ffp-contract=off, 4: -fvect-cost-model=cheap,
                                                  5: block accesses in whole elements,
                                                  6: one-compare bounds test, cm_dpas
                                                     operands converted once,
                                                  7: optimisation flags per unit,
                                                  8: gathers test the highest u32
                                                     offset sum */
#define TRAILER_MAGIC "\n#cmetal-cache-entry key "

extern char **environ;

/* ---- the directory */

/* mkdir -p, the last component with mode 0700; false with errno set. */
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
	return mkdir(path, 0700) == 0 || errno == EEXIST;
}

static char *cache_dir_path(void)
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

static const char *writers(mode_t m)
{
	return (m & 022) == 022 ? "group and others" : (m & 020) ? "its group" : "others";
}

/* True when only this user (and root) can change what the canonical path
 * real names; else why says what is wrong. */
static bool dir_trusted(const char *real, Buf *why)
{
	uid_t me = geteuid();
	struct stat st;
	if (lstat(real, &st) != 0) {
		buf_printf(why, "cannot stat it: %s", strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode)) {
		buf_puts(why, "it is not a directory");
		return false;
	}
	if (st.st_uid != me) {
		buf_printf(why, "it is owned by uid %d, not by this user (uid %d)", (int)st.st_uid,
		           (int)me);
		return false;
	}
	if (st.st_mode & 022) {
		buf_printf(why, "it is writable by %s (mode %04o; it must not be)",
		           writers(st.st_mode), (unsigned)(st.st_mode & 07777));
		return false;
	}
	char *p = xstrdup(real);
	bool ok = true;
	for (char *slash; ok && (slash = strrchr(p, '/')) && p[1]; ) {
		slash[slash == p] = '\0';              /* "/a/b" -> "/a"; "/a" -> "/" */
		if (lstat(p, &st) != 0) {
			buf_printf(why, "cannot stat %s above it: %s", p, strerror(errno));
			ok = false;
		} else if (st.st_uid != 0 && st.st_uid != me) {
			buf_printf(why, "%s above it is owned by uid %d", p, (int)st.st_uid);
			ok = false;
		} else if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)) {
			buf_printf(why, "%s above it is writable by %s and not sticky (mode %04o)", p,
			           writers(st.st_mode), (unsigned)(st.st_mode & 07777));
			ok = false;
		}
	}
	free(p);
	return ok;
}

/* The cache directory's canonical path, created if needed, or NULL with
 * why set when it cannot be made or is not trusted. */
static char *open_cache_dir(const char *dir, Buf *why)
{
	char *copy = xstrdup(dir);
	bool made = make_dirs(copy);
	free(copy);
	char *real = made ? realpath(dir, NULL) : NULL;
	if (!real) {
		buf_printf(why, "cannot create it: %s", strerror(errno));
		return NULL;
	}
	if (!dir_trusted(real, why)) {
		free(real);
		return NULL;
	}
	return real;
}

/* A fresh private directory for a build that cannot use the cache. */
static char *private_dir(Buf *why)
{
	const char *tmp = getenv("TMPDIR");
	Buf b = {0};
	buf_printf(&b, "%s/cmetal-build-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	char *real = NULL;
	if (!mkdtemp(buf_cstr(&b)))
		buf_printf(why, "cannot create %s: %s", buf_cstr(&b), strerror(errno));
	else if (!(real = realpath(buf_cstr(&b), NULL)))
		buf_printf(why, "cannot resolve %s: %s", buf_cstr(&b), strerror(errno));
	else if (!dir_trusted(real, why)) {
		rmdir(real);
		free(real);
		real = NULL;
	}
	buf_free(&b);
	return real;
}

/* ---- keys */

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

/* The C compiler's contraction flag for the options' FP contract (the last
 * -ffp-contract= or -ffast-math wins, as in parse_options). */
static const char *fp_flag(const char *options)
{
	FpOptions fp = {0};
	const char *p = options;
	while (*p) {
		size_t n = strcspn(p, " \t\n");
		char word[32];
		if (n > 0 && n < sizeof word) {
			memcpy(word, p, n);
			word[n] = '\0';
			fp_option(word, &fp);
		}
		p += n;
		p += strspn(p, " \t\n");
	}
	return fp_cc_flag(&fp);
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

static uint64_t source_key(const char *source, const char *options, const char *cc)
{
	Buf b = {0};
	buf_printf(&b, "%s\n%d\n%s\n%s\n", RT_CACHE_VERSION, CMK_ABI_VERSION, cc, options);
	put_compiler_identity(&b);
	buf_puts(&b, source);
	uint64_t h = hash_bytes(b.data, b.len);
	buf_free(&b);
	return h;
}

/* key2: key1 and the included files' list with their hashes. */
static uint64_t library_key(uint64_t key1, const Buf *deps)
{
	return hash_more(hash_bytes(&key1, sizeof key1), deps->data ? deps->data : "", deps->len);
}

/* The list of a manifest again, from the files as they are now. */
static void deps_now(const char *manifest, size_t len, Buf *out)
{
	const char *end = manifest + len;
	for (const char *s = manifest; s < end; ) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *sp = memchr(s, ' ', (size_t)((nl ? nl : end) - s));
		if (!nl || !sp)
			break;
		char *path = xmalloc((size_t)(nl - sp));
		memcpy(path, sp + 1, (size_t)(nl - sp - 1));
		path[nl - sp - 1] = '\0';
		size_t n = 0;
		char *text = read_file(path, &n);
		dep_line(out, path, text, n);
		free(text);
		free(path);
		s = nl + 1;
	}
}

/* ---- sealed files */

/* Appends the trailer of data[0..n) for key to out. */
static void put_trailer(Buf *out, uint64_t key, const char *data, size_t n)
{
	uint64_t sum = hash_more(hash_bytes(&key, sizeof key), data, n);
	buf_printf(out, TRAILER_MAGIC "%016llx size %016llx sum %016llx\n",
	           (unsigned long long)key, (unsigned long long)n, (unsigned long long)sum);
}

static size_t trailer_len(void)
{
	Buf b = {0};
	put_trailer(&b, 0, "", 0);
	size_t n = b.len;
	buf_free(&b);
	return n;
}

/* Checks that f (a whole file) is sealed for key; returns its contents'
 * length, or -1 with why set. */
static long long check_seal(const Buf *f, uint64_t key, const char **why)
{
	size_t tl = trailer_len();
	if (f->len < tl || memcmp(f->data + f->len - tl, TRAILER_MAGIC, strlen(TRAILER_MAGIC))) {
		*why = "it has no cmetal trailer (truncated, or not written by cmetal)";
		return -1;
	}
	size_t n = f->len - tl;
	Buf want = {0};
	put_trailer(&want, key, f->data, n);
	bool ok = !memcmp(want.data, f->data + n, tl);
	size_t keyed = strlen(TRAILER_MAGIC) + 16;
	if (!ok)
		*why = memcmp(want.data, f->data + n, keyed) ? "it is the entry of another key"
		                                            : "its contents do not match their hash";
	buf_free(&want);
	return ok ? (long long)n : -1;
}

/* Reads path into f when it is a regular file of this user that only this
 * user can write.  false with why set (NULL: the file does not exist). */
static bool read_own_file(const char *path, Buf *f, const char **why)
{
	*why = NULL;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno != ENOENT)
			*why = errno == ELOOP ? "it is a symbolic link" : "it cannot be opened";
		return false;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		*why = "it is not a regular file";
	else if (st.st_uid != geteuid())
		*why = "it is owned by another user";
	else if (st.st_mode & 022)
		*why = "it is writable by other users";
	char tmp[65536];
	ssize_t r = 0;
	while (!*why && (r = read(fd, tmp, sizeof tmp)) > 0)
		buf_putn(f, tmp, (size_t)r);
	if (!*why && r < 0)
		*why = "it cannot be read";
	close(fd);
	return *why == NULL;
}

/* Reads a sealed file; false with why set (NULL: it does not exist). */
static bool read_sealed(const char *path, uint64_t key, Buf *f, const char **why)
{
	if (!read_own_file(path, f, why))
		return false;
	long long n = check_seal(f, key, why);
	if (n < 0)
		return false;
	f->len = (size_t)n;
	return true;
}

/* A temporary name beside path, unique to this thread. */
static char *temp_name(const char *path, const char *suffix)
{
	Buf b = {0};
	buf_printf(&b, "%s.%d.%lx%s", path, (int)getpid(), (unsigned long)pthread_self(), suffix);
	return buf_cstr(&b);
}

static bool write_file(const char *path, const char *data, size_t n, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | flags, 0600);
	if (fd < 0)
		return false;
	bool ok = true;
	for (size_t done = 0; ok && done < n; ) {
		ssize_t w = write(fd, data + done, n - done);
		ok = w > 0;
		done += ok ? (size_t)w : 0;
	}
	return close(fd) == 0 && ok;
}

/* What a failed write's errno means for the user, "" when nothing more
 * than strerror. */
static const char *write_hint(int err)
{
	switch (err) {
	case ENOSPC: return " (the disk is full)";
	case EFBIG: return " (the file size limit, ulimit -f, is reached)";
#ifdef EDQUOT
	case EDQUOT: return " (the disk quota is used up)";
#endif
	}
	return "";
}

/* "cannot write PATH: REASON (HINT)" into log, from errno. */
static void write_error(Buf *log, const char *path)
{
	int err = errno;
	buf_printf(log, "error: cannot write %s: %s%s\n", path, strerror(err), write_hint(err));
}

/* Writes data sealed for key to path through a temporary name. */
static bool write_sealed(const char *path, uint64_t key, const char *data, size_t n)
{
	Buf b = {0};
	buf_putn(&b, data, n);
	put_trailer(&b, key, data, n);
	char *tmp = temp_name(path, ".tmp");
	bool ok = write_file(tmp, b.data, b.len, O_TRUNC) && rename(tmp, path) == 0;
	if (!ok)
		unlink(tmp);
	free(tmp);
	buf_free(&b);
	return ok;
}

/* Appends the trailer for key to the file the C compiler wrote. */
static bool seal_file(const char *path, uint64_t key)
{
	size_t n = 0;
	char *data = read_file(path, &n);
	if (!data)
		return false;
	Buf t = {0};
	put_trailer(&t, key, data, n);
	bool ok = write_file(path, t.data, t.len, O_APPEND);
	buf_free(&t);
	free(data);
	return ok;
}

/* ---- building */

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
/* The progress line of a slow first build: on a terminal (stderr), or
 * anywhere with $CMETAL_LOG set; once per process unless $CMETAL_LOG is
 * set, so that a user's output is not interleaved with a line per build. */
static void progress_line(const char *what)
{
	static atomic_flag said = ATOMIC_FLAG_INIT;
	const char *env = getenv("CMETAL_LOG");
	bool logging = env && *env && strcmp(env, "0");
	if (!what || (!logging && !isatty(2)) || (!logging && atomic_flag_test_and_set(&said)))
		return;
	fprintf(stderr, "cmetal: building %s for the CPU (first run; cached afterwards)...\n",
	        what);
}

/* Runs cmd with sh and returns its exit status (-1 if it could not run).
 * When it is still running after a second, progress_line(what). */
static int run_shell(const char *cmd, const char *what)
{
	char *argv[] = {"sh", "-c", (char *)cmd, NULL};
	pid_t pid;
	if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0)
		return -1;
	int st;
	for (int ms = 0; ms < 1000; ms += 5) {   /* the first second, polled */
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		if (r < 0 && errno != EINTR)
			return -1;
		nanosleep(&(struct timespec){0, 5000000}, NULL);
	}
	progress_line(what);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* True when text mentions err's message in any letter case (the linker
 * says "file too large", strerror "File too large"). */
static bool mentions(const char *text, int err)
{
	const char *m = strerror(err);
	size_t n = strlen(m);
	for (const char *p = text; *p; p++)
		if (strncasecmp(p, m, n) == 0)
			return true;
	return false;
}

/* After a failed C compile: says plainly when the cause is a full disk or
 * the file size limit, which the compiler reports only in passing ("ld
 * returned 1"), or when the build directory's disk has no space left. */
static void disk_note(const char *so_path, const char *out, Buf *log)
{
	char *dir = xstrdup(so_path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	struct statvfs fs;
	bool full = mentions(out, ENOSPC) ||
	            (statvfs(slash ? dir : ".", &fs) == 0 && fs.f_bavail == 0 && fs.f_blocks);
	if (full)
		buf_printf(log, "error: the disk holding %s is full: free some space (or set "
		           "CMETAL_CACHE_DIR to a directory on another disk) and build again\n", dir);
	else if (mentions(out, EFBIG))
		buf_printf(log, "error: the C compiler's output is over the file size limit "
		           "(ulimit -f)\n");
	free(dir);
}

/* Whether cc is gcc: `cc --version` asked once per process.  gcc at -O2
 * vectorizes a loop only where vector code replaces it entirely
 * (-fvect-cost-model=very-cheap), so a region of 31 or 30 elements (scan's
 * shift-and-add rows) stayed scalar for want of an epilogue; "cheap"
 * allows it, at no measurable cost in build time.  clang rejects the
 * option.  (A `#pragma GCC optimize` in the C would need no probe, but it
 * resets the floating-point options: dgemm lost its fused multiply-adds.) */
static bool cc_is_gcc(const char *cc)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static char *asked;
	static bool gcc;
	pthread_mutex_lock(&mu);
	if (!asked || strcmp(asked, cc)) {
		Buf cmd = {0};
		buf_printf(&cmd, "%s --version 2>/dev/null", cc);
		FILE *p = popen(buf_cstr(&cmd), "r");
		char line[256] = "";
		gcc = false;
		while (p && fgets(line, sizeof line, p))
			if (strstr(line, "Free Software Foundation"))
				gcc = true;
		if (p)
			pclose(p);
		buf_free(&cmd);
		free(asked);
		asked = xstrdup(cc);
	}
	bool r = gcc;
	pthread_mutex_unlock(&mu);
	return r;
}

/* The C compiler's command line up to its inputs: flags for C of opt. */
static void cc_words(Buf *cmd, const char *cc, const char *opt, const char *options)
{
	buf_printf(cmd, "%s %s%s -march=native %s -fPIC%s", cc, opt,
	           strcmp(opt, "-O0") && cc_is_gcc(cc) ? " -fvect-cost-model=cheap" : "",
	           fp_flag(options), wants_debug(options) ? " -g" : "");
}

/* ' base.uK.EXT', quoted for the shell. */
static void put_unit(Buf *cmd, const char *base, int k, const char *ext)
{
	Buf p = {0};
	buf_printf(&p, "%s.u%d.%s", base, k, ext);
	buf_putc(cmd, ' ');
	put_quoted(cmd, buf_cstr(&p));
	buf_free(&p);
}

/* The shell command that builds so_path from the n units base.uK.c: each
 * compiled in the background (one cc per core) with its own flags
 * (unit_opt[k]), then linked. */
static void parallel_cmd(Buf *cmd, const char *cc, const char *opt, const char *const *unit_opt,
                         const char *options, const char *base, int n, const char *so_path)
{
	buf_puts(cmd, "{ s=0; ");
	for (int k = 0; k < n; k++) {
		cc_words(cmd, cc, unit_opt[k], options);
		buf_puts(cmd, " -c -o");
		put_unit(cmd, base, k, "o");
		put_unit(cmd, base, k, "c");
		buf_printf(cmd, " & p%d=$!; ", k);
	}
	for (int k = 0; k < n; k++)
		buf_printf(cmd, "wait $p%d || s=1; ", k);
	buf_puts(cmd, "[ $s = 0 ] && ");
	cc_words(cmd, cc, opt, options);
	buf_puts(cmd, " -shared -o ");
	put_quoted(cmd, so_path);
	for (int k = 0; k < n; k++)
		put_unit(cmd, base, k, "o");
	buf_puts(cmd, " -lm; }");
}

/* Writes the translation units of the C text c as base.uK.c, and their
 * C compiler flags into opt[k]; returns how many (0 when one file, c_path,
 * serves: see c_split_units).  Each unit's flags are its own: a program
 * with one very long kernel builds that kernel's unit at -O1 (what the
 * first build waits for) and its other kernels at -O2 (bench/cm/scan.cm's
 * scan_tiles_cpu beside scan_tiles: 0.275 ms against 0.29 at 2^20 on one
 * thread). */
static int write_units(const Buf *c, const char *base, bool debug, const char **opt, Buf *log)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int max = cores < 1 ? 1 : cores > 8 ? 8 : (int)cores, n;
	Buf units[8] = {{0}};
	n = c_split_units(c->data ? c->data : "", c->len, max, units);
	for (int k = 0; k < n && n > 1; k++) {
		Buf path = {0};
		opt[k] = c_cc_opt_flags(units[k].data ? units[k].data : "", units[k].len, debug);
		buf_printf(&path, "%s.u%d.c", base, k);
		if (!write_file(buf_cstr(&path), units[k].data, units[k].len, O_TRUNC)) {
			write_error(log, buf_cstr(&path));
			n = -1;
		}
		buf_free(&path);
	}
	for (int k = 0; k < max; k++)
		buf_free(&units[k]);
	return n > 1 || n < 0 ? n : 0;
}

static void remove_units(const char *base, int n)
{
	for (int k = 0; k < n; k++) {
		Buf p = {0};
		buf_printf(&p, "%s.u%d.c", base, k);
		unlink(buf_cstr(&p));
		p.len = 0;
		buf_printf(&p, "%s.u%d.o", base, k);
		unlink(buf_cstr(&p));
		buf_free(&p);
	}
}

/* Compiles the C text c (written at c_path) into so_path with the C
 * compiler; log gets its output.  A program of several large kernels is
 * built as one translation unit per core, in parallel, then linked. */
static cm_status run_cc(const char *cc, const Buf *c, const char *c_path, const char *base,
                        const char *so_path, const char *log_path, const char *options,
                        const char *what, Buf *log)
{
	const char *opt = c_cc_opt_flags(c->data ? c->data : "", c->len, wants_debug(options));
	/* -g: one unit, compiled under the C's lasting name for the debugger */
	const char *unit_opt[8];
	int units = wants_debug(options) ? 0 : write_units(c, base, false, unit_opt, log);
	if (units < 0) {
		remove_units(base, 8);
		return CM_IO_ERROR;
	}
	Buf cmd = {0};
	if (units) {
		parallel_cmd(&cmd, cc, opt, unit_opt, options, base, units, so_path);
	} else {
		cc_words(&cmd, cc, opt, options);
		buf_puts(&cmd, " -shared -o ");
		put_quoted(&cmd, so_path);
		buf_putc(&cmd, ' ');
		put_quoted(&cmd, c_path);
		buf_puts(&cmd, " -lm");   /* kernels call libm (fmaxf, exp2f, ...) */
	}
	buf_puts(&cmd, " >");
	put_quoted(&cmd, log_path);
	buf_puts(&cmd, " 2>&1");
	int rc = run_shell(buf_cstr(&cmd), what);
	remove_units(base, units);
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
	if (rc != 0)
		disk_note(so_path, out ? out : "", log);
	free(out);
	buf_free(&cmd);
	return s;
}

/* Compiles the C text c into <stem>.so, sealed for key, through temporary
 * names; <stem>.c is kept for debugging (and named by -g's debug information). */
static cm_status build_library(const Buf *c, const char *stem, uint64_t key,
                               const char *options, const char *what, Buf *log)
{
	char *base = temp_name(stem, "");
	Buf cp = {0}, sp = {0}, lp = {0}, cf = {0}, so = {0};
	buf_printf(&cp, "%s.c", base);
	buf_printf(&sp, "%s.so", base);
	buf_printf(&lp, "%s.log", base);
	buf_printf(&cf, "%s.c", stem);
	buf_printf(&so, "%s.so", stem);
	cm_status s = CM_SUCCESS;
	if (!write_file(buf_cstr(&cp), c->data ? c->data : "", c->len, O_TRUNC)) {
		write_error(log, buf_cstr(&cp));
		s = CM_IO_ERROR;
	} else if (rename(buf_cstr(&cp), buf_cstr(&cf)) != 0) {
		write_error(log, buf_cstr(&cf));
		s = CM_IO_ERROR;
	}
	/* the C is compiled under its lasting name, which -g's debug
	 * information names (the helpers a debugger steps into); a concurrent
	 * build of the key renames the same text over it */
	if (!s)
		s = run_cc(cc_command(), c, buf_cstr(&cf), base, buf_cstr(&sp), buf_cstr(&lp),
		           options, what, log);
	if (!s && (!seal_file(buf_cstr(&sp), key) || rename(buf_cstr(&sp), buf_cstr(&so)) != 0)) {
		write_error(log, buf_cstr(&so));
		s = CM_IO_ERROR;
	}
	if (s)
		unlink(buf_cstr(&cf));
	unlink(buf_cstr(&cp));
	unlink(buf_cstr(&sp));
	free(base);
	buf_free(&cp);
	buf_free(&sp);
	buf_free(&lp);
	buf_free(&cf);
	buf_free(&so);
	return s;
}

/* One build: where it goes and what it is. */
typedef struct {
	cmetal_device *dev;
	cmetal_program *p;
	const char *source, *options;
	RtLoadFn load;
	char *dir;                  /* canonical path of the directory used */
	bool cached;                /* dir is the cache; else a private one */
	bool load_failed;           /* the loader failed and said why */
	char *src_path;             /* -g: the saved source (cm-<key1>.cm), or NULL */
	uint64_t key1;
	Buf *log;
} Build;

static char *entry_path(const Build *b, uint64_t key, const char *ext)
{
	Buf p = {0};
	buf_printf(&p, "%s/cm-%016llx%s", b->dir, (unsigned long long)key, ext);
	return buf_cstr(&p);
}

/* A hit: the manifest and the library check out and the library loads.
 * A damaged file gets a note in the log (a missing one is a plain miss). */
static bool try_hit(Build *b)
{
	char *dep = entry_path(b, b->key1, ".dep"), *so = NULL;
	Buf man = {0}, now = {0}, lib = {0};
	const char *why = NULL;
	bool hit = false;
	if (read_sealed(dep, b->key1, &man, &why)) {
		deps_now(man.data ? man.data : "", man.len, &now);
		uint64_t key2 = library_key(b->key1, &now);
		so = entry_path(b, key2, ".so");
		if (read_sealed(so, key2, &lib, &why)) {
			hit = b->load(b->dev, b->p, so) == CM_SUCCESS;
			if (!hit)
				buf_printf(b->log, "note: the cached kernel library %s does not load "
				           "(%s); rebuilding it\n", so, cmetal_last_error());
		}
	}
	if (why)
		buf_printf(b->log, "note: the cache entry %s is damaged (%s); rebuilding it\n",
		           so ? so : dep, why);
	free(dep);
	free(so);
	buf_free(&man);
	buf_free(&now);
	buf_free(&lib);
	return hit;
}

/* "kernel K" or "kernels K, L" for the progress line: the names after
 * _GENX_MAIN_ in the CM source, or "a kernel program" when none is found
 * (a translator that does not read CM). */
static void kernel_names(const char *src, Buf *out)
{
	int n = 0;
	Buf names = {0};
	for (const char *p = src ? strstr(src, "_GENX_MAIN_") : NULL; p;
	     p = strstr(p + 1, "_GENX_MAIN_")) {
		const char *paren = strchr(p, '(');
		if (!paren)
			break;
		const char *e = paren;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		const char *b = e;
		while (b > p && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
			b--;
		if (b < e && n++ < 4)
			buf_printf(&names, "%s%.*s", n > 1 ? ", " : "", (int)(e - b), b);
	}
	if (!n)
		buf_puts(out, "a kernel program");
	else
		buf_printf(out, "kernel%s %s%s", n > 1 ? "s" : "", buf_cstr(&names),
		           n > 4 ? ", ..." : "");
	buf_free(&names);
}

/* A miss: CM -> C (with the list of included files) -> sealed library,
 * then the manifest, then the load. */
static cm_status build_and_load(Build *b)
{
	Buf c = {0}, deps = {0};
	cmetal_device *dev = b->dev;
	if (!dev->translate(b->source, b->src_path, b->options, &c, &deps, b->log)) {
		buf_free(&c);
		buf_free(&deps);
		bool missing = dev->translate == rt_translate_cm && !rt_compiler_available();
		return missing ? CM_COMPILER_UNAVAILABLE : CM_BUILD_FAILED;
	}
	uint64_t key2 = library_key(b->key1, &deps);
	char *stem = entry_path(b, key2, "");
	char *so = entry_path(b, key2, ".so");
	char *dep = entry_path(b, b->key1, ".dep");
	Buf what = {0};
	kernel_names(b->source, &what);
	cm_status s = build_library(&c, stem, key2, b->options, buf_cstr(&what), b->log);
	buf_free(&what);
	if (!s && b->cached && !write_sealed(dep, b->key1, deps.data ? deps.data : "", deps.len))
		buf_printf(b->log, "note: cannot write %s: %s%s\n", dep, strerror(errno),
		           write_hint(errno));
	if (!s)
		b->load_failed = (s = b->load(dev, b->p, so)) != CM_SUCCESS;
	if (!b->cached) {                  /* a private directory: nothing stays */
		Buf cf = {0};
		buf_printf(&cf, "%s.c", stem);
		unlink(so);
		unlink(buf_cstr(&cf));
		buf_free(&cf);
	}
	free(stem);
	free(so);
	free(dep);
	buf_free(&c);
	buf_free(&deps);
	return s;
}

/* -g: the source saved as <dir>/cm-<key1>.cm, the file the #line
 * directives of the C (so the debug information) name, so that a debugger
 * shows the CM source.  Written, through a temporary name, by any build
 * (a hit too: the file may have been removed) that does not find it with
 * the source's size (left alone, it stays older than the library).  NULL when it cannot be
 * written (the build goes on with "program.cm", with a note). */
static char *save_source(Build *b)
{
	char *path = entry_path(b, b->key1, ".cm");
	char *tmp = temp_name(path, ".tmp");
	struct stat st;
	size_t n = strlen(b->source);
	bool ok = (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == n) ||
	          (write_file(tmp, b->source, n, O_TRUNC) && rename(tmp, path) == 0);
	if (!ok) {
		buf_printf(b->log, "note: cannot save the source for the debugger as %s: %s\n", path,
		           strerror(errno));
		unlink(tmp);
		free(path);
		path = NULL;
	} else {
		buf_printf(b->log, "note: -g: the source is saved as %s for the debugger\n", path);
	}
	free(tmp);
	return path;
}

cm_status rt_cache_build(cmetal_device *dev, cmetal_program *p, const char *source,
                         const char *options, RtLoadFn load, Buf *log)
{
	Build b = {dev, p, source, options, load, .log = log};
	char *dir = cache_dir_path();
	Buf why = {0};
	b.dir = open_cache_dir(dir, &why);
	b.cached = b.dir != NULL;
	if (!b.cached) {
		buf_printf(log, "warning: the kernel cache directory %s is not used: %s; "
		           "building without the cache\n", dir, buf_cstr(&why));
		why.len = 0;
		b.dir = private_dir(&why);
	}
	if (!b.dir) {
		cm_status s = rt_fail(CM_IO_ERROR, "no directory to build in: %s", buf_cstr(&why));
		free(dir);
		buf_free(&why);
		return s;
	}
	free(dir);
	buf_free(&why);
	b.key1 = source_key(source, options, cc_command());
	if (wants_debug(options))
		b.src_path = save_source(&b);
	cm_status s = CM_SUCCESS;
	if (!b.cached || !try_hit(&b))
		s = build_and_load(&b);
	if (!b.cached) {
		if (b.src_path)            /* a private directory: nothing stays */
			unlink(b.src_path);
		rmdir(b.dir);
	}
	free(b.src_path);
	free(b.dir);
	if (b.load_failed)
		return s;                      /* the loader said why */
	if (s)
		return rt_fail(s, "%s:\n%s", s == CM_COMPILER_UNAVAILABLE ? "cannot build" : "build failed",
		               log->len ? buf_cstr(log) : "(no diagnostics)\n");
	return CM_SUCCESS;
}
