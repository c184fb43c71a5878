/* compile.c — the CM -> C step of a run-time build: the in-process
 * compiler (compile_to in src/target/target.h, target "c").  Until the C
 * back end is linked into libcmetal this reports that the compiler is not
 * available, so programs can still be loaded from compiled files. */
#include "rt/rt.h"

bool rt_translate_cm(const char *source, const char *options, Buf *c_out, Buf *log)
{
	(void)source;
	(void)options;
	(void)c_out;
	buf_puts(log, "compiler not available: this libcmetal was built without the "
	              "CM compiler's C back end (load a compiled .so with cmetal_program_load)\n");
	return false;
}

bool rt_compiler_available(void)
{
	return false;
}
