/* fake_check.h — what the tests against the fake driver (test_cuda.c,
 * test_tasks.c) share: writing a PTX file to load, and checking the
 * output of its hand-written kernel fill. */
#ifndef FAKE_CHECK_H
#define FAKE_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cmetal.h"

/* Writes text into dir/name; returns the path (the last 4 stay valid;
 * one thread at a time). */
static inline char *write_file_in(const char *dir, const char *name, const char *text)
{
	static char path[4][1024];
	static int n;
	char *p = path[n++ % 4];
	snprintf(p, 1024, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return p;
}

/* fill's results: out[t] = v + t for the n (at most 1024) CM threads of
 * its launch (any thread may call it). */
static inline bool filled(cmetal_buffer *b, uint32_t n, int v)
{
	uint32_t out[1024];
	if (n > 1024 || cmetal_buffer_read(b, 0, n * 4, out) != CM_SUCCESS)
		return false;
	for (uint32_t t = 0; t < n; t++)
		if (out[t] != (uint32_t)(v + (int)t))
			return false;
	return true;
}

#endif
