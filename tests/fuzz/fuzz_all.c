/* fuzz_all.c — libFuzzer target for the whole compiler: each input is one
 * CM source file, compiled through the front end, lowering, the passes and
 * both emitters (C and PTX text; no C compiler or ptxas is run), with
 * diagnostics captured.  Any crash, sanitizer report or hang is a finding.
 *
 * So that small inputs reach the depth and size limits, an input that
 * starts with "@@" followed by two count bytes is a pattern:
 *     "@@" n1 n0 HEAD "\n@@\n" MID "\n@@\n" TAIL ["\n@@\n" END]
 * compiles HEAD, then MID n times, then TAIL n times, then END (n = n1 *
 * 256 + n0, up to 65,535): "((((...1...))))" or "a?a?a?...:0" of any depth.
 * n is cut so that the source stays within MAX_TEXT bytes: a 550-byte TAIL
 * taken 57,601 times (34 MB) cost 27 s of CPU under the sanitizers, over
 * -timeout=60 on a loaded machine, while the plain compiler took 1.5 s
 * (linear); the depth limits need far less, and test_limits covers size.
 *   make fuzz          builds build-fuzz/fuzz_front and build-fuzz/fuzz_all
 *   build-fuzz/fuzz_all -max_total_time=600 fuzz-out tests/fuzz/corpus */
#include <stdlib.h>
#include <string.h>

#include "target/target.h"

#define SEP "\n@@\n"
#define MAX_TEXT (4u << 20)

/* The source an input stands for (malloc'd, NUL-terminated). */
static char *expand(const unsigned char *data, size_t size)
{
	const char *d = (const char *)data;
	const char *mid = size > 4 && !memcmp(d, "@@", 2) ? strstr(d + 4, SEP) : NULL;
	const char *tail = mid ? strstr(mid + 4, SEP) : NULL;
	if (!tail) {
		char *text = malloc(size + 1);
		memcpy(text, data, size);
		text[size] = 0;
		return text;
	}
	const char *end = strstr(tail + 4, SEP);
	size_t n = (size_t)data[2] * 256 + data[3];
	size_t hl = (size_t)(mid - (d + 4)), ml = (size_t)(tail - (mid + 4));
	size_t tl = end ? (size_t)(end - (tail + 4)) : strlen(tail + 4);
	size_t el = end ? strlen(end + 4) : 0;
	if (ml + tl && hl + el < MAX_TEXT && n > (MAX_TEXT - hl - el) / (ml + tl))
		n = (MAX_TEXT - hl - el) / (ml + tl);
	char *text = malloc(hl + n * (ml + tl) + el + 1), *p = text;
	memcpy(p, d + 4, hl);
	p += hl;
	for (size_t i = 0; i < n; i++, p += ml)
		memcpy(p, mid + 4, ml);
	for (size_t i = 0; i < n; i++, p += tl)
		memcpy(p, tail + 4, tl);
	if (end)
		memcpy(p, end + 4, el);
	p[el] = 0;
	return text;
}

/* PTX text only: ptxas (run for register counts when on PATH) is slow and
 * not the code under test */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	setenv("CMETAL_NO_PTXAS", "1", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* strstr in expand needs a terminated copy of the input */
	unsigned char *in = malloc(size + 1);
	memcpy(in, data, size);
	in[size] = 0;
	char *text = expand(in, size);
	free(in);
	Buf log = {0};
	diag_state.capture = &log;
	static const char *const targets[] = {"c", "ptx"};
	for (int t = 0; t < 2; t++) {
		diag_reset();
		CompileOptions co = {.opt_level = 2, .bounds_check = t == 0};
		Buf out = {0};
		compile_to("fuzz.cm", text, &co, targets[t], &out);
		buf_free(&out);
		log.len = 0;
	}
	buf_free(&log);
	diag_state.capture = NULL;
	free(text);
	return 0;
}
