/* binary.c — reads the container `cmetal -c -t ptx` writes (rt/cuda_abi.h
 * "Binaries"): the PTX, whose metadata lines describe the kernels, and the
 * cubin ptxas made of it when there is one.  Only splits the sections and
 * checks their sizes; module.c loads them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/cuda/cuda.h"

bool cuda_is_binary(const char *data, size_t len)
{
	size_t n = strlen(CUDA_BIN_MAGIC);
	return len >= n && memcmp(data, CUDA_BIN_MAGIC, n) == 0;
}

/* The header line of a section at p (before end): its words and the
 * position of its bytes; false when it is not "NAME [ARCH] SIZE\n". */
static bool section_head(const char *p, const char *end, char name[16], char arch[32],
                         size_t *size, const char **body)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl || nl - p > 100)
		return false;
	char line[128];
	memcpy(line, p, (size_t)(nl - p));
	line[nl - p] = 0;
	unsigned long long n;
	arch[0] = 0;
	if (sscanf(line, "%15s %31s %llu", name, arch, &n) != 3) {
		arch[0] = 0;
		if (sscanf(line, "%15s %llu", name, &n) != 2)
			return false;
	}
	*body = nl + 1;
	if (n > (unsigned long long)(end - *body) || (size_t)(end - *body) - n < 1 ||
	    (*body)[n] != '\n')
		return false;
	*size = (size_t)n;
	return true;
}

bool cuda_binary_parse(const char *data, size_t len, CudaBinary *out, Buf *err)
{
	const char *p = data + strlen(CUDA_BIN_MAGIC), *end = data + len;
	*out = (CudaBinary){0};
	while (p < end) {
		char name[16], arch[32];
		size_t n;
		const char *body;
		if (!section_head(p, end, name, arch, &n, &body)) {
			buf_printf(err, "damaged section at byte %zu", (size_t)(p - data));
			return false;
		}
		if (!strcmp(name, "ptx") && !arch[0]) {
			out->ptx = body;
			out->ptx_len = n;
		} else if (!strcmp(name, "cubin") && arch[0]) {
			out->cubin = body;
			out->cubin_len = n;
			snprintf(out->arch, sizeof out->arch, "%s", arch);
		}
		p = body + n + 1;
	}
	if (!out->ptx || memchr(out->ptx, 0, out->ptx_len)) {
		buf_puts(err, out->ptx ? "its PTX section holds a NUL byte" : "it has no PTX section");
		return false;
	}
	return true;
}
