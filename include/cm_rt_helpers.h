/* cm_rt_helpers.h — the result check Intel's CM example hosts use, over
 * cmetal's cm_rt.h: a failing call prints where it was, Intel's code and
 * cmetal's sentence for the failure, and exits. */
#ifndef CMETAL_CM_RT_HELPERS_H
#define CMETAL_CM_RT_HELPERS_H

#include "cm_rt.h"

#define cm_result_check(call)                                                    \
	do {                                                                     \
		int cm_result_ = (call);                                         \
		if (cm_result_ != CM_SUCCESS) {                                  \
			fprintf(stderr, "%s:%d: %s failed with CM code %d: %s\n", \
			        __FILE__, __LINE__, #call, cm_result_,           \
			        cmetal::cmetal_last_error());                    \
			exit(EXIT_FAILURE);                                      \
		}                                                                \
	} while (0)

#endif
