/* host.h — shared by the test hosts: each is written as Intel's CM example
 * hosts are (cm_rt.h, cm_result_check, cm::util::isa::loadFile) and
 * prints "ok cmrt/NAME" or "FAIL cmrt/NAME" per check; NAME ends in
 * "@DEVICE" off the CPU.  argv[1] is the directory of the kernels. */
#ifndef CMRT_TEST_HOST_H
#define CMRT_TEST_HOST_H

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cm_rt.h"
#include "cm_rt_helpers.h"
#include "isa_helpers.h"

static int failures;

static inline void check(const char *name, bool ok, const char *why = "")
{
	const char *d = getenv("CMETAL_DEVICE");
	std::string tag = d && *d && strcmp(d, "cpu") ? std::string("@") + d : "";
	if (ok)
		printf("ok cmrt/%s%s\n", name, tag.c_str());
	else
		printf("FAIL cmrt/%s%s\n    %s\n", name, tag.c_str(), why);
	failures += !ok;
	fflush(stdout);
}

/* A call that must return code want. */
static inline void check_code(const char *name, int got, int want)
{
	char why[1024];
	snprintf(why, sizeof why, "code %d, want %d (%s)", got, want, cmetal::cmetal_last_error());
	check(name, got == want, why);
}

/* kernels/NAME_genx.isa: not there, so loadFile reads NAME_genx.cm */
static inline std::string kernel_file(int argc, char **argv, const char *name)
{
	std::string dir = argc > 1 ? argv[1] : ".";
	return cm::util::isa::loadFile(dir + "/" + name + "_genx.isa");
}

#endif
