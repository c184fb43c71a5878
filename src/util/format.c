/* format.c — kernel printf formats, one reading for everyone: sema checks
 * a call's arguments against them, the lowering folds string literals into
 * them, the C back end turns each conversion into a well-typed snprintf
 * argument and the CUDA device's formatter formats records with them.
 *
 * A conversion reads its '*' width and precision (ints) and then one
 * value: an integer for d i u o x X c, a double for f F e E g G a A (the
 * lowering widens every argument to int, 64-bit integer or double).  The
 * spec given to snprintf is canonical (fmt_spec): flags once each, width
 * and precision at most FMT_MAX_NUM (the 1023-byte record cut makes larger
 * ones print the same), "ll" for any wide length (l ll j z t q L), h and
 * hh kept, no length on c and the floating conversions.  A conversion that
 * cannot be printed — no argument left, an argument of the wrong kind,
 * %s (its string literal was folded into the format), %p, %n, an unknown
 * letter or a '%' at the end — prints fmt_marker's text instead. */
#include <stdio.h>
#include <string.h>

#include "util/util.h"

static const char flag_chars[] = "-+ #0'";

/* Digits at s[*i], saturating at FMT_MAX_NUM. */
static int number(const char *s, size_t *i)
{
	int v = 0;
	for (; s[*i] >= '0' && s[*i] <= '9'; (*i)++)
		v = v >= FMT_MAX_NUM ? FMT_MAX_NUM : v * 10 + (s[*i] - '0');
	return v > FMT_MAX_NUM ? FMT_MAX_NUM : v;
}

size_t fmt_scan(const char *s, FmtConv *c)
{
	memset(c, 0, sizeof *c);
	size_t i = 1;
	for (const char *f; s[i] && (f = strchr(flag_chars, s[i])); i++)
		c->flags |= 1u << (f - flag_chars);
	if (s[i] == '*') {
		c->width_star = c->has_width = true;
		i++;
	} else if (s[i] >= '0' && s[i] <= '9') {
		c->has_width = true;
		c->width = number(s, &i);
	}
	if (s[i] == '.') {
		c->has_prec = true;
		i++;
		if (s[i] == '*') {
			c->prec_star = true;
			i++;
		} else {
			c->prec = number(s, &i);
		}
	}
	for (; s[i] && strchr("hljztqL", s[i]); i++) {
		if (s[i] != 'h')
			c->wide = true;
		else if (c->nh < 2)
			c->nh++;
	}
	c->conv = s[i];
	if (!c->conv) {
		c->kind = FMT_INCOMPLETE;
		return c->len = i;
	}
	i++;
	switch (c->conv) {
	case 'd': case 'i': c->kind = FMT_INT; break;
	case 'u': case 'o': case 'x': case 'X': c->kind = FMT_UINT; break;
	case 'c': c->kind = FMT_CHAR; break;
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
		c->kind = FMT_FLOAT;
		break;
	case 's': c->kind = FMT_STR; break;
	case '%': c->kind = FMT_PERCENT; break;
	case 'p': case 'n': c->kind = FMT_UNSUPPORTED; break;
	default: c->kind = FMT_UNKNOWN; break;
	}
	return c->len = i;
}

int fmt_nargs(const FmtConv *c)
{
	if (c->kind == FMT_PERCENT || c->kind == FMT_INCOMPLETE)
		return 0;
	return 1 + c->width_star + c->prec_star;
}

void fmt_resolve(FmtConv *c, long long width, long long prec)
{
	if (c->width_star) {
		c->width_star = false;
		if (width < 0) {
			c->flags |= 1u;                   /* '-' */
			width = width < -FMT_MAX_NUM ? FMT_MAX_NUM : -width;
		}
		c->width = width > FMT_MAX_NUM ? FMT_MAX_NUM : (int)width;
	}
	if (c->prec_star) {
		c->prec_star = false;
		c->has_prec = prec >= 0;          /* a negative precision is none */
		c->prec = prec > FMT_MAX_NUM ? FMT_MAX_NUM : prec < 0 ? 0 : (int)prec;
	}
}

void fmt_spec(const FmtConv *c, char out[FMT_SPEC_MAX])
{
	size_t n = 0;
	out[n++] = '%';
	for (int f = 0; flag_chars[f]; f++)
		if (c->flags & (1u << f))
			out[n++] = flag_chars[f];
	if (c->width_star)
		out[n++] = '*';
	else if (c->has_width)
		n += (size_t)snprintf(out + n, 8, "%d", c->width);
	if (c->has_prec) {
		out[n++] = '.';
		if (c->prec_star)
			out[n++] = '*';
		else
			n += (size_t)snprintf(out + n, 8, "%d", c->prec);
	}
	if (c->kind == FMT_INT || c->kind == FMT_UINT) {
		if (c->wide)
			out[n++] = 'l', out[n++] = 'l';
		else
			for (int h = 0; h < c->nh; h++)
				out[n++] = 'h';
	}
	out[n++] = c->conv;
	out[n] = '\0';
}

bool fmt_fits(const FmtConv *c, bool is_float)
{
	switch (c->kind) {
	case FMT_INT: case FMT_UINT: case FMT_CHAR: return !is_float;
	case FMT_FLOAT: return is_float;
	default: return false;
	}
}

void fmt_marker(Buf *out, const char *text, const FmtConv *c, FmtProblem p)
{
	static const char *const why[] = {
		[FMT_MISSING] = "missing argument",
		[FMT_WRONG_TYPE] = "argument of the wrong type",
		[FMT_NOT_PRINTABLE] = "not printable",
	};
	buf_puts(out, "<");
	buf_putn(out, text, c->len);
	buf_printf(out, ": %s>", why[p]);
}
