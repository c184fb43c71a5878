/* emit.c — STUB of the C back end. */
#include "target/target.h"

static bool emit_c(Module *m, const EmitOptions *o, Buf *out)
{
	(void)m, (void)o, (void)out;
	error_at((Loc){0}, "the C back end is not implemented yet");
	return false;
}

const Target T_c = {.name = "c", .emit = emit_c};
