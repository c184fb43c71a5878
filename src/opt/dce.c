/* dce.c — STUB: does nothing yet. */
#include "opt/opt.h"

bool opt_dce(Func *f)
{
	(void)f;
	return false;
}
