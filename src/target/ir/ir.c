/* target/ir/ir.c — the trivial target: prints the optimized CMIR. */
#include "target/target.h"

static bool emit_ir(Module *m, const EmitOptions *o, Buf *out)
{
	(void)o;
	ir_print(m, out);
	return true;
}

const Target T_ir = {.name = "ir", .emit = emit_ir};
