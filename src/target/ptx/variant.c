/* variant.c — a kernel's second entry for images of narrow pixels.
 *
 * requires: nothing (emission).
 * changes: nothing in the IR; emit.c appends the second entry.
 *
 * A 2D media read is of bytes (docs/builtins.md §6.1): past an edge each
 * byte reads its own place in the clamped pixel.  Where the elements are
 * no wider than the image's pixels, clamping a whole element gives the
 * same bytes, and that is the exact path of every media read (mem.c
 * media_exact).  A read of elements wider than the pixels (uint words
 * from an 8-bit image) needs the bytes clamped one by one; that code,
 * even out of line and never run, changes how ptxas schedules and
 * allocates the loops around it (the gemm kernels' k loops, whose edge
 * tiles have such exact paths: up to 13% more SASS a step, 140 -> 166
 * registers), so it lives in a second entry, NAME$narrow, which the
 * runtime launches when an image argument's pixels are narrower than the
 * widest element read ("narrow E" in the metadata; rt/cuda/launch.c).
 *
 * The two entries share every instruction but the exact paths of those
 * reads, which the emitter writes twice between marker lines:
 *     //@wide     the whole-element path (the first entry's)
 *     //@narrow   the byte path (the second entry's), its temporaries
 *                 and labels named apart (px_tmp, px_label: Px.alt)
 *     //@end
 * and px_variant_split cuts the kernel's text into the two entries (the
 * narrow one without comments).  A path that goes out of line in turn (a
 * fault record, px_cold_begin) takes its markers along into the cold
 * section (px_variant_enter, px_variant_leave).  Neither path may leave a value that code after it reads (as for any
 * exact path, which is the other side of a branch): per-kernel values go
 * to the prologue (blimit.c), which both entries have. */
#include <string.h>

#include "target/ptx/ptx.h"

static const char WIDE[] = "//@wide\n", NARROW[] = "//@narrow\n", END[] = "//@end\n";

/* Whether the line s[0..n) is a comment. */
static bool comment(const char *s, size_t n)
{
	size_t k = 0;
	while (k < n && (s[k] == '\t' || s[k] == ' '))
		k++;
	return n - k >= 2 && s[k] == '/' && s[k + 1] == '/';
}

void px_variant_wide(Px *p, int eb)
{
	buf_puts(&p->body, WIDE);
	p->vside = 1;
	if ((uint32_t)eb > p->narrow_eb)
		p->narrow_eb = (uint32_t)eb;
}

void px_variant_narrow(Px *p)
{
	buf_puts(&p->body, NARROW);
	p->vside = 2;
	p->alt = true;
}

void px_variant_end(Px *p)
{
	buf_puts(&p->body, END);
	p->vside = 0;
	p->alt = false;
}

void px_variant_enter(Px *p)
{
	if (p->vside)
		buf_puts(&p->body, p->vside == 1 ? WIDE : NARROW);
}

void px_variant_leave(Px *p)
{
	if (p->vside)
		buf_puts(&p->body, END);
}

/* The lines of text[0..len) that entry `narrow` keeps, into out: every
 * line outside the markers and those of its own side; the markers go, and
 * so do the narrow entry's comments (the first entry has them). */
static void keep_side(const char *text, size_t len, bool narrow, Buf *out)
{
	int side = 0;   /* 0: shared, 1: wide, 2: narrow */
	for (const char *s = text, *end = text + len; s < end; ) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		size_t n = eol ? (size_t)(eol - s) + 1 : (size_t)(end - s);
		if (n == sizeof WIDE - 1 && !memcmp(s, WIDE, n))
			side = 1;
		else if (n == sizeof NARROW - 1 && !memcmp(s, NARROW, n))
			side = 2;
		else if (n == sizeof END - 1 && !memcmp(s, END, n))
			side = 0;
		else if ((side == 0 || side == (narrow ? 2 : 1)) && !(narrow && comment(s, n)))
			buf_putn(out, s, n);
		s += n;
	}
}

bool px_variant_split(Buf *b, size_t start, const char *name)
{
	const char *text = b->data + start;
	size_t len = b->len - start;
	Buf wide = {0}, narrow = {0}, decl = {0};
	keep_side(text, len, false, &wide);
	keep_side(text, len, true, &narrow);
	b->len = start;
	buf_putn(b, wide.data, wide.len);
	/* the narrow copy's .entry line names NAME$narrow */
	buf_printf(&decl, ".visible .entry %s(", name);
	const char *at = strstr(buf_cstr(&narrow), buf_cstr(&decl));
	if (at) {
		size_t head = (size_t)(at - narrow.data) + decl.len - 1;
		buf_putc(b, '\n');
		buf_putn(b, narrow.data, head);
		buf_puts(b, "$narrow");
		buf_putn(b, narrow.data + head, narrow.len - head);
	}
	buf_free(&decl);
	buf_free(&wide);
	buf_free(&narrow);
	return at != NULL;
}
