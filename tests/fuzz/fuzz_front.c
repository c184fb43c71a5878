/* fuzz_front.c — libFuzzer target for the front end.  Each input is one CM
 * source file; it is preprocessed, parsed and checked with diagnostics
 * captured.  Any crash, sanitizer report or hang is a finding.
 *   make fuzz          builds build-fuzz/fuzz_front (clang, libFuzzer, ASan, UBSan)
 *   build-fuzz/fuzz_front -max_total_time=600 fuzz-out tests/fuzz/corpus */
#include <stdlib.h>
#include <string.h>

#include "front/front.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	Buf log = {0};
	diag_state.capture = &log;
	diag_reset();
	src_reset();
	Arena *a = arena_new();
	FrontOptions fo = {0};
	front_compile(a, "fuzz.cm", text, &fo);
	arena_free(a);
	buf_free(&log);
	diag_state.capture = NULL;
	free(text);
	return 0;
}
