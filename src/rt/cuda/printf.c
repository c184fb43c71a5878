/* printf.c — the host side of kernel printf on the CUDA device.
 *
 * The PTX kernel appends records (format index, CM thread linear id,
 * 8-byte argument slots) to the launch's printf buffer (rt/cuda_abi.h
 * "printf"); after the launch they are formatted here, in linear thread id
 * order and, within a thread, in the order the thread printed, so the text
 * is the CPU device's byte for byte.
 *
 * The CPU device formats with one snprintf(buf[1024], fmt, args...) whose
 * arguments are the C values the kernel passed (int, unsigned, int64_t,
 * uint64_t, double: the lowering widens smaller ones).  Here a format is
 * cut into its conversions and each one is given to snprintf alone with its
 * argument as that C type, which prints the same text; a record's text is
 * cut at 1023 bytes as the CPU's buffer cuts it.  Where the C call is
 * undefined (an argument kind that does not match its conversion, missing
 * arguments) the value is converted to what the conversion reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/cuda/cuda.h"

#define PRINTF_TEXT_MAX 1023  /* the CPU device's per-call buffer, less the NUL */

/* The argument slots of one record and how many were consumed. */
typedef struct {
	const CudaFormat *f;
	const unsigned char *args;
	uint32_t next;
} ArgCursor;

/* The next argument as a 64-bit integer (0 when there is none). */
static int64_t next_int(ArgCursor *c)
{
	if (c->next >= c->f->nargs)
		return 0;
	uint32_t k = c->next++;
	const unsigned char *a = c->args + 8 * k;
	if (c->f->kinds[k] == CUDA_PF_F64) {
		double d;
		memcpy(&d, a, 8);
		return (int64_t)d;
	}
	int64_t v;
	memcpy(&v, a, 8);
	return v;
}

/* The next argument as a double. */
static double next_double(ArgCursor *c)
{
	if (c->next >= c->f->nargs)
		return 0.0;
	uint32_t k = c->next++;
	const unsigned char *a = c->args + 8 * k;
	char kind = c->f->kinds[k];
	if (kind == CUDA_PF_F64) {
		double d;
		memcpy(&d, a, 8);
		return d;
	}
	int64_t v;
	memcpy(&v, a, 8);
	return kind == CUDA_PF_U64 ? (double)(uint64_t)v : (double)v;
}

/* Appends snprintf(spec, value) to out; spec is one conversion. */
#define APPEND_FORMATTED(out, spec, value)                                           \
	do {                                                                         \
		char tmp_[512];                                                      \
		int n_ = snprintf(tmp_, sizeof tmp_, spec, value);                   \
		if (n_ > 0 && (size_t)n_ < sizeof tmp_) {                            \
			buf_putn(out, tmp_, (size_t)n_);                             \
		} else if (n_ > 0) {                                                 \
			char *big_ = malloc((size_t)n_ + 1);                         \
			if (big_) {                                                  \
				snprintf(big_, (size_t)n_ + 1, spec, value);         \
				buf_putn(out, big_, (size_t)n_);                     \
				free(big_);                                          \
			}                                                            \
		}                                                                    \
	} while (0)

/* One conversion starting at s[0] == '%': appends its text, returns the
 * characters it spans. */
static size_t conversion(const char *s, ArgCursor *c, Buf *out)
{
	char spec[96];
	size_t n = 0, i = 1;
	spec[n++] = '%';
	while (s[i] && strchr("-+ #0'", s[i]) && n < 16)
		spec[n++] = s[i++];
	for (int part = 0; part < 2; part++) {        /* width, then precision */
		if (part == 1) {
			if (s[i] != '.')
				break;
			spec[n++] = s[i++];
		}
		if (s[i] == '*') {
			int v = (int)next_int(c);
			if (part == 1 && v < 0)
				n--;                   /* a negative precision is none */
			else
				n += (size_t)snprintf(spec + n, 24, "%d", v);
			i++;
		} else {
			while (s[i] >= '0' && s[i] <= '9' && n < 60)
				spec[n++] = s[i++];
		}
	}
	bool wide = false;                             /* l, ll, j, z, t, q, L */
	size_t nh = 0;                                 /* h, hh: kept */
	while (s[i] && strchr("hljztqL", s[i])) {
		if (s[i] != 'h')
			wide = true;
		else if (nh < 2)
			spec[n + nh++] = 'h';
		i++;
	}
	if (!wide && strchr("diuoxX", s[i]))
		n += nh;
	char conv = s[i];
	if (!conv)
		return i;                              /* a dangling '%': nothing */
	i++;
	switch (conv) {
	case 'd': case 'i':
		if (wide) {
			memcpy(spec + n, "ll", 2), n += 2;
			spec[n++] = conv, spec[n] = '\0';
			APPEND_FORMATTED(out, spec, (long long)next_int(c));
		} else {
			spec[n++] = conv, spec[n] = '\0';
			APPEND_FORMATTED(out, spec, (int)next_int(c));
		}
		break;
	case 'u': case 'o': case 'x': case 'X':
		if (wide) {
			memcpy(spec + n, "ll", 2), n += 2;
			spec[n++] = conv, spec[n] = '\0';
			APPEND_FORMATTED(out, spec, (unsigned long long)next_int(c));
		} else {
			spec[n++] = conv, spec[n] = '\0';
			APPEND_FORMATTED(out, spec, (unsigned)next_int(c));
		}
		break;
	case 'c':
		spec[n++] = conv, spec[n] = '\0';
		APPEND_FORMATTED(out, spec, (int)next_int(c));
		break;
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
		spec[n++] = conv, spec[n] = '\0';
		APPEND_FORMATTED(out, spec, next_double(c));
		break;
	case '%':
		buf_putc(out, '%');
		break;
	default:
		/* %s, %p, %n have no argument a CM kernel can pass (sema rejects
		 * %p and %n): the value is consumed and nothing printed */
		next_int(c);
		break;
	}
	return i;
}

void cuda_printf_one(const CudaFormat *f, const unsigned char *args, Buf *out)
{
	size_t start = out->len;
	ArgCursor c = {f, args, 0};
	for (const char *s = f->text; *s; ) {
		const char *pc = strchr(s, '%');
		size_t lit = pc ? (size_t)(pc - s) : strlen(s);
		buf_putn(out, s, lit);
		s += lit;
		if (pc)
			s += conversion(s, &c, out);
	}
	if (out->len - start > PRINTF_TEXT_MAX)
		out->len = start + PRINTF_TEXT_MAX;
}

/* A record's place: its thread and where it was claimed. */
typedef struct {
	uint32_t thread;
	size_t off;
} RecordRef;

static int cmp_record(const void *a, const void *b)
{
	const RecordRef *p = a, *q = b;
	if (p->thread != q->thread)
		return p->thread < q->thread ? -1 : 1;
	return p->off < q->off ? -1 : p->off > q->off;
}

bool cuda_printf_format(const CudaFormat *fmts, uint32_t nfmts, const unsigned char *rec,
                        size_t used, Buf *out)
{
	VEC(RecordRef) refs = {0};
	bool ok = true;
	for (size_t off = 0; off + 8 <= used; ) {
		uint32_t fi, thread;
		memcpy(&fi, rec + off, 4);
		memcpy(&thread, rec + off + 4, 4);
		if (fi == CUDA_P_END)
			break;                         /* the first record that did not fit */
		if (fi >= nfmts || off + 8 + 8 * (size_t)fmts[fi].nargs > used) {
			ok = false;
			break;
		}
		vec_push(&refs, ((RecordRef){thread, off}));
		off += 8 + 8 * (size_t)fmts[fi].nargs;
	}
	if (refs.len > 1)
		qsort(refs.data, (size_t)refs.len, sizeof *refs.data, cmp_record);
	for (int i = 0; i < refs.len; i++) {
		uint32_t fi;
		memcpy(&fi, rec + refs.data[i].off, 4);
		cuda_printf_one(&fmts[fi], rec + refs.data[i].off + 8, out);
	}
	vec_free(&refs);
	return ok;
}
