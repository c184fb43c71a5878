/* region.c — STUB: does nothing yet. */
#include "opt/opt.h"

bool opt_region(Func *f)
{
	(void)f;
	return false;
}
