/* sr.c — STUB: does nothing yet. */
#include "opt/opt.h"

bool opt_sr(Func *f)
{
	(void)f;
	return false;
}
