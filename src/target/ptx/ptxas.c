/* ptxas.c — runs `ptxas -v` on the emitted module (when ptxas is on PATH)
 * and reads back, per kernel, registers per lane, shared and local memory
 * and spill bytes: emit.c pastes them above each kernel and warns when a
 * kernel spills.  The module goes to a private temporary directory that is
 * removed afterwards.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/ptx/ptx.h"

static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	if (!path)
		return false;
	char buf[4096];
	while (*path) {
		size_t n = strcspn(path, ":");
		if (n && n + strlen(prog) + 2 < sizeof buf) {
			snprintf(buf, sizeof buf, "%.*s/%s", (int)n, path, prog);
			if (access(buf, X_OK) == 0)
				return true;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

/* One line of the -v report into info (n: the entry being read). */
static void parse_line(const char *l, PtxasInfo *e)
{
	int a, b, c;
	const char *q;
	if (sscanf(l, " %d bytes stack frame, %d bytes spill stores, %d bytes spill loads",
	           &a, &b, &c) == 3) {
		e->local = a, e->spill_stores = b, e->spill_loads = c;
		return;
	}
	if (!(q = strstr(l, "Used ")) || sscanf(q, "Used %d registers", &a) != 1)
		return;
	e->regs = a;
	const char *sm = strstr(q, "bytes smem");
	if (!sm)
		return;
	while (sm > q && sm[-1] == ' ')
		sm--;
	while (sm > q && sm[-1] >= '0' && sm[-1] <= '9')
		sm--;
	e->shared = atoi(sm);
}

/* Reads the -v report: one entry per "Compiling entry function" line.
 * Each line is matched on its own (a search across line ends once gave
 * a kernel the next kernel's register count). */
static int parse_report(const char *log, PtxasInfo *info, int max)
{
	static const char entry[] = "Compiling entry function '";
	int n = -1;
	char line[1024];
	for (const char *l = log; l && *l;) {
		size_t len = strcspn(l, "\n");
		snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), l);
		l = l[len] ? l + len + 1 : NULL;
		const char *q = strstr(line, entry);
		if (q) {
			if (n + 1 >= max)
				break;
			q += strlen(entry);
			n++;
			info[n] = (PtxasInfo){.kernel = intern(q, strcspn(q, "'")), .regs = -1,
			                      .spill_stores = -1, .spill_loads = -1};
		} else if (n >= 0) {
			parse_line(line, &info[n]);
		}
	}
	return n + 1;
}

int ptxas_report(const char *text, const char *march, PtxasInfo *info, int max, Buf *err)
{
	if (!on_path("ptxas"))
		return -1;
	const char *tmp = getenv("TMPDIR");
	char dir[512];
	snprintf(dir, sizeof dir, "%s/cmetal-ptxas-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	char src[600], bin[600], cmd[2048];
	snprintf(src, sizeof src, "%s/k.ptx", dir);
	snprintf(bin, sizeof bin, "%s/k.cubin", dir);
	FILE *f = fopen(src, "w");
	int n = 0;
	if (f) {
		fputs(text, f);
		fclose(f);
		snprintf(cmd, sizeof cmd, "ptxas -arch=%s -v '%s' -o '%s' 2>&1", march, src, bin);
		FILE *pp = popen(cmd, "r");
		Buf log = {0};
		if (pp) {
			char line[1024];
			while (fgets(line, sizeof line, pp))
				buf_puts(&log, line);
			int rc = pclose(pp);
			if (rc == 0)
				n = parse_report(buf_cstr(&log), info, max);
			else
				buf_putn(err, log.data, log.len);
		}
		buf_free(&log);
	}
	remove(src);
	remove(bin);
	rmdir(dir);
	return n;
}
