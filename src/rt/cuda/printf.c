/* printf.c — the host side of kernel printf on the CUDA device.
 *
 * The PTX kernel appends records (format index, CM thread linear id,
 * 8-byte argument slots) to the launch's printf buffer (rt/cuda_abi.h
 * "printf"); after the launch they are formatted here, in linear thread id
 * order and, within a thread, in the order the thread printed, so the text
 * is the CPU device's byte for byte.
 *
 * The CPU device formats with one snprintf(buf[1024], fmt, args...) whose
 * format and arguments the C back end made well-typed (util/format.c:
 * canonical specs, each argument cast to what its conversion reads, a
 * marker where a conversion has no fitting argument).  Here a format is cut
 * into its conversions the same way and each one is given to snprintf
 * alone with its argument, which prints the same text; a record's text is
 * cut at FMT_TEXT_MAX bytes as the CPU's buffer cuts it.
 *
 * Nothing here trusts its input: the formats and kinds come from the
 * module's metadata (a .ptx file may be anything) and the records from GPU
 * memory.  A record is only read within the bytes the GPU claimed, an
 * argument only within its record, and a conversion without an argument of
 * its kind prints fmt_marker's text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/cuda/cuda.h"

/* The argument slots of one record and how many were consumed. */
typedef struct {
	const CudaFormat *f;
	const unsigned char *args;
	uint32_t next;
} ArgCursor;

static bool kind_is_float(char kind)
{
	return kind == CUDA_PF_F64;
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

/* The problem of conversion fc with the arguments left (-1: none), as the
 * C back end's printf_conv_ok decides it; moves c->next past what it reads. */
static int conv_problem(const FmtConv *fc, ArgCursor *c)
{
	uint32_t need = (uint32_t)fmt_nargs(fc), at = c->next, n = c->f->nargs;
	c->next = at + need > n ? n : at + need;
	if (fc->kind == FMT_STR || fc->kind == FMT_UNSUPPORTED || fc->kind == FMT_UNKNOWN ||
	    fc->kind == FMT_INCOMPLETE)
		return FMT_NOT_PRINTABLE;
	if (at + need > n)
		return FMT_MISSING;
	for (uint32_t k = 0; k < need; k++) {
		bool fl = kind_is_float(c->f->kinds[at + k]);
		if (k + 1 < need ? fl : !fmt_fits(fc, fl))
			return FMT_WRONG_TYPE;
	}
	return -1;
}

static int64_t slot(const ArgCursor *c, uint32_t k)
{
	int64_t v;
	memcpy(&v, c->args + 8 * (size_t)k, 8);
	return v;
}

/* One conversion starting at s[0] == '%': appends its text, returns the
 * characters it spans. */
static size_t conversion(const char *s, ArgCursor *c, Buf *out)
{
	FmtConv fc;
	size_t len = fmt_scan(s, &fc);
	if (fc.kind == FMT_PERCENT) {
		buf_putc(out, '%');
		return len;
	}
	uint32_t at = c->next;
	int bad = conv_problem(&fc, c);
	if (bad >= 0) {
		fmt_marker(out, s, &fc, (FmtProblem)bad);
		return len;
	}
	long long w = fc.width_star ? (int)slot(c, at++) : 0;
	long long p = fc.prec_star ? (int)slot(c, at++) : 0;
	fmt_resolve(&fc, w, p);
	char spec[FMT_SPEC_MAX];
	fmt_spec(&fc, spec);
	int64_t v = slot(c, at);
	switch (fc.kind) {
	case FMT_INT:
		if (fc.wide)
			APPEND_FORMATTED(out, spec, (long long)v);
		else
			APPEND_FORMATTED(out, spec, (int)v);
		break;
	case FMT_UINT:
		if (fc.wide)
			APPEND_FORMATTED(out, spec, (unsigned long long)v);
		else
			APPEND_FORMATTED(out, spec, (unsigned)v);
		break;
	case FMT_CHAR:
		APPEND_FORMATTED(out, spec, (int)v);
		break;
	default: {                                     /* FMT_FLOAT */
		double d;
		memcpy(&d, &v, 8);
		APPEND_FORMATTED(out, spec, d);
		break;
	}
	}
	return len;
}

void cuda_printf_one(const CudaFormat *f, const unsigned char *args, Buf *out)
{
	size_t start = out->len;
	ArgCursor c = {f, args, 0};
	for (const char *s = f->text; *s && out->len - start <= FMT_TEXT_MAX; ) {
		const char *pc = strchr(s, '%');
		size_t lit = pc ? (size_t)(pc - s) : strlen(s);
		buf_putn(out, s, lit);
		s += lit;
		if (pc)
			s += conversion(s, &c, out);
	}
	if (out->len - start > FMT_TEXT_MAX)
		out->len = start + FMT_TEXT_MAX;
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
