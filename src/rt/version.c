/* version.c — the library's version, as include/cmetal.h defines it when
 * the library is built (a program may run with a newer library than the
 * header it was compiled with). */
#include "cmetal.h"

const char *cmetal_version(int *major, int *minor, int *patch)
{
	if (major)
		*major = CMETAL_VERSION_MAJOR;
	if (minor)
		*minor = CMETAL_VERSION_MINOR;
	if (patch)
		*patch = CMETAL_VERSION_PATCH;
	return CMETAL_VERSION_STRING;
}
