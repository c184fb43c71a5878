/* driver.h — what the command line asks for, and the function that does it.
 * driver.c runs the pipeline stages; cmetal.c only parses options. */
#ifndef CMETAL_DRIVER_H
#define CMETAL_DRIVER_H

#include "front/front.h"

typedef enum { STAGE_ALL, STAGE_PP, STAGE_CHECK, STAGE_AST } Stage;

typedef struct {
	const char *input, *out;
	const char *target;       /* "ir", "c", "ptx" */
	const char *march;
	const char *dump_pass;
	int opt_level;
	bool text, debug;
	bool cluster_slm;         /* -fcluster-slm (PTX: groups over clusters) */
	bool ptx_canonical;       /* -fptx-layout=canonical */
	const char *thread_args;  /* -fthread-args=KERNEL:I,J, joined by spaces */
	bool bounds_check;        /* -fbounds-check: report out-of-range accesses */
	Stage stage;
	FrontOptions fo;
} DriverOptions;

/* Returns the process exit status: 0 ok, 1 errors in the input, 2 usage. */
int driver_run(const DriverOptions *o);

#endif
