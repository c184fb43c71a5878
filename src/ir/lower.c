/* lower.c — STUB until the lowering engineer's version lands: AST -> CMIR.
 * Reports that lowering is not implemented yet. */
#include "ir/ir.h"

Module *ir_lower(Arena *a, Node *unit, const IrLowerOptions *o)
{
	(void)a, (void)unit, (void)o;
	error_at((Loc){0}, "lowering to CMIR is not implemented yet");
	return NULL;
}
