/* example.h — what the examples share: error checks, the device from the
 * command line (default cpu), and a CM file read and built at run time. */
#ifndef CMETAL_EXAMPLE_H
#define CMETAL_EXAMPLE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmetal.h"

#define TRY(call)                                                              \
	do {                                                                   \
		cm_status s_ = (call);                                         \
		if (s_ != CM_SUCCESS) {                                        \
			fprintf(stderr, "%s failed (%s):\n%s\n", #call,        \
			        cmetal_status_name(s_), cmetal_last_error());  \
			exit(1);                                               \
		}                                                              \
	} while (0)

/* Opens argv[1] (cpu, cuda or auto; default cpu) and builds DIR/file.cm,
 * DIR being argv[2] or the directory of this source (examples/). */
static inline cmetal_program *ex_build(int argc, char **argv, const char *file,
                                       const char *options, cmetal_device **dev)
{
	TRY(cmetal_device_open(argc > 1 ? argv[1] : "cpu", dev));
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", argc > 2 ? argv[2] : "examples", file);
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(1);
	}
	static char src[1 << 16];
	size_t n = fread(src, 1, sizeof src - 1, f);
	src[n] = 0;
	fclose(f);
	cmetal_program *p;
	TRY(cmetal_program_build(*dev, src, options, &p));
	return p;
}

static inline const char *ex_device(cmetal_device *dev)
{
	const char *name = "?";
	cmetal_device_name(dev, &name);
	return name;
}

#endif
