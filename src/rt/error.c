/* error.c — the error text of the runtime: one message per OS thread, set
 * by every failing call (rt_fail) and read with cmetal_last_error().  The
 * status names come from the X-macro list in cmetal.h. */
#include <stdarg.h>
#include <stdio.h>

#include "rt/rt.h"

static _Thread_local char last_error[16384];

cm_status rt_fail(cm_status s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
	return s;
}

const char *cmetal_last_error(void)
{
	return last_error;
}

const char *cmetal_status_name(cm_status s)
{
	switch (s) {
#define CMETAL_X(name, text) case name: return #name;
	CMETAL_STATUS_LIST(CMETAL_X)
#undef CMETAL_X
	}
	return "CM_UNKNOWN_STATUS";
}
