/* test_progress.c — the line a slow first CPU build prints on stderr
 * ("cmetal: building kernel K for the CPU (first run; cached
 * afterwards)..."): after a second of C compiling, on a terminal or with
 * $CMETAL_LOG set; nothing for a fast build or a cached one.  $CC is a
 * wrapper that sleeps 1.5 s before the real compiler.
 * Usage: test_progress WORK_DIR */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

static const char src[] =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void slowpoke(SurfaceIndex b [[type(\"buffer_t\")]], int v)\n"
	"{\n"
	"	vector<int, 8> x = v;\n"
	"	write(b, 0, x);\n"
	"}\n";

/* Builds src (with options, to change the cache key) on dev; returns what
 * the build wrote on stderr (static). */
static const char *stderr_of_build(cmetal_device *dev, const char *options, const char *work)
{
	static char text[4096];
	char path[512];
	snprintf(path, sizeof path, "%s/progress.err", work);
	fflush(stderr);
	int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	cmetal_program *p;
	cm_status s = cmetal_program_build(dev, src, options, &p);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if (s == CM_SUCCESS)
		cmetal_program_release(p);
	else
		check("progress_build", 0, cmetal_last_error());
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
	text[n] = '\0';
	if (f)
		fclose(f);
	return text;
}

int main(int argc, char **argv)
{
	const char *work = argc > 1 ? argv[1] : ".";
	char cc[512];
	snprintf(cc, sizeof cc, "%s/slowcc.sh", work);
	FILE *f = fopen(cc, "w");
	fprintf(f, "#!/bin/sh\nsleep 1.5\nexec %s \"$@\"\n", getenv("CC") ? getenv("CC") : "cc");
	fclose(f);
	chmod(cc, 0700);
	cmetal_device *dev;
	MUST(cmetal_device_open("cpu", &dev));

	const char *real_cc = getenv("CC") ? strdup(getenv("CC")) : "cc";
	setenv("CMETAL_LOG", "1", 1);
	setenv("CC", cc, 1);
	const char *err = stderr_of_build(dev, "-DSLOW=1", work);
	check("progress_slow_build", strstr(err, "cmetal: building kernel slowpoke for the CPU "
	                                    "(first run; cached afterwards)...") != NULL, err);
	err = stderr_of_build(dev, "-DSLOW=1", work);
	check("progress_cached_quiet", !strstr(err, "building"), err);

	setenv("CC", real_cc, 1);
	err = stderr_of_build(dev, "-DFAST=1", work);
	check("progress_fast_quiet", !strstr(err, "building"), err);

	/* stderr is a file here, not a terminal: quiet without CMETAL_LOG */
	unsetenv("CMETAL_LOG");
	setenv("CC", cc, 1);
	err = stderr_of_build(dev, "-DSLOW=2", work);
	check("progress_not_a_tty_quiet", !strstr(err, "building"), err);
	MUST(cmetal_device_close(dev));
	return check_failures;
}
