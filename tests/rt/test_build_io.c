/* test_build_io.c — a CPU build that cannot write its files says why, not
 * only "ld returned 1".  A child process lowers its file size limit
 * (RLIMIT_FSIZE, SIGXFSZ ignored, as a full disk would fail writes) and
 * builds: once with a limit below the size of the generated C (the
 * runtime's own write fails), once with room for the C but not for the
 * library built with -g (the C compiler's write fails).  Usage: test_build_io TMPDIR */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static const char *src_fmt =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void k%d(SurfaceIndex o [[type(\"buffer_t\")]])\n"
	"{ vector<int, 8> v = %d; write(o, 0, v); }\n";

/* In a child: builds source under a file size limit of limit bytes and
 * writes the status and message to the pipe fd. */
static void build_limited(const char *source, const char *options, rlim_t limit, int fd)
{
	struct rlimit rl = {limit, limit};
	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &rl);
	cmetal_device *dev;
	cmetal_program *p = NULL;
	cm_status s = cmetal_device_open("cpu", &dev);
	if (!s)
		s = cmetal_program_build(dev, source, options, &p);
	char msg[8192];
	snprintf(msg, sizeof msg, "%s: %s", cmetal_status_name(s), cmetal_last_error());
	if (write(fd, msg, strlen(msg)) < 0)
		_exit(2);
	_exit(0);
}

/* The message of a build under limit, in a child process. */
static void limited_build(const char *source, const char *options, rlim_t limit, char *msg,
                          size_t size)
{
	int fds[2];
	msg[0] = '\0';
	if (pipe(fds) != 0)
		return;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		build_limited(source, options, limit, fds[1]);
	}
	close(fds[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < size && (r = read(fds[0], msg + n, size - 1 - n)) > 0)
		n += (size_t)r;
	msg[n] = '\0';
	close(fds[0]);
	waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	char dir[4096], src[1024], msg[8192], why[9000];
	snprintf(dir, sizeof dir, "%s/io-cache", argc > 1 ? argv[1] : "/tmp");
	setenv("CMETAL_CACHE_DIR", dir, 1);
	/* distinct sources, so that neither build is a cache hit */
	snprintf(src, sizeof src, src_fmt, (int)getpid(), 1);
	limited_build(src, "", 64, msg, sizeof msg);
	snprintf(why, sizeof why, "message: %s", msg);
	check("build_io_c_write_fails_clearly",
	      strstr(msg, "CM_IO_ERROR") && strstr(msg, "File too large") &&
	      strstr(msg, "file size limit"), why);
	snprintf(src, sizeof src, src_fmt, (int)getpid(), 2);
	char *c = NULL;
	size_t clen = 0;
	MUST(cmetal_compile(src, "-g", "c", &c, &clen, NULL));
	free(c);
	/* -g: the object gcc's assembler writes is larger than the C; clang's
	 * integrated assembler may write nothing that large (the build then
	 * succeeds and there is no failure to check) */
	limited_build(src, "-g", clen + 512, msg, sizeof msg);
	snprintf(why, sizeof why, "C is %zu bytes; message: %s", clen, msg);
	if (!strncmp(msg, "CM_SUCCESS", 10))
		check("build_io_cc_write_fails_clearly (skipped: the C compiler wrote no file "
		      "larger than the C)", 1, NULL);
	else
		check("build_io_cc_write_fails_clearly",
		      strstr(msg, "CM_BUILD_FAILED") && strstr(msg, "over the file size limit"), why);
	return check_failures != 0;
}
