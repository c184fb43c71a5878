/* check.h — tiny harness for the runtime tests: each check prints
 * "ok NAME" or "FAIL NAME" with the reason, as tests/run.sh expects. */
#ifndef CHECK_H
#define CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmetal.h"

static int check_failures;

static void check(const char *name, int ok, const char *why)
{
	if (ok) {
		printf("ok rt/%s\n", name);
	} else {
		printf("FAIL rt/%s\n    %s\n", name, why ? why : "");
		check_failures++;
	}
	fflush(stdout);
}

/* A call that must fail with status want and a message containing each of
 * the NULL-terminated substrings. */
static void check_err(const char *name, cm_status got, cm_status want, ...)
{
	char why[2048];
	const char *msg = cmetal_last_error();
	int ok = got == want;
	snprintf(why, sizeof why, "status %s (want %s), message: %s", cmetal_status_name(got),
	         cmetal_status_name(want), msg);
	va_list ap;
	va_start(ap, want);
	for (const char *s; ok && (s = va_arg(ap, const char *));)
		ok = strstr(msg, s) != NULL;
	va_end(ap);
	check(name, ok, why);
}

/* A call that must succeed. */
#define MUST(call)                                                             \
	do {                                                                   \
		cm_status s_ = (call);                                         \
		if (s_ != CM_SUCCESS) {                                        \
			printf("FAIL rt/%s:%d %s\n    %s: %s\n", __FILE__,     \
			       __LINE__, #call, cmetal_status_name(s_),        \
			       cmetal_last_error());                           \
			return ++check_failures;                               \
		}                                                              \
	} while (0)

#endif
