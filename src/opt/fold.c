/* fold.c — STUB: does nothing yet. */
#include "opt/opt.h"

bool opt_fold(Func *f)
{
	(void)f;
	return false;
}
