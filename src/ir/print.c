/* print.c — CMIR to text.  parse.c reads the same form back, and printing
 * a parsed module gives the same text again (tests/ir checks it).
 *
 *   file 1 "k.cm"
 *   kernel @k(a: surface u32 buffer "buffer_t", n: scalar i32) slm 0 {
 *   b0:
 *           %0:u32 = arg #0
 *           %1:v8i32 = rdregion %2, <0;8,2>, 1 + %3 !1:12:5
 *           scatter.slm %4, %5, %6, %7, mask %8
 *           cbr %9, b1, b2
 *   }
 *
 * An instruction is `[%id:type = ]op[.space][.atomic][.byte][.alignN][.sat][.ieee]` then
 * its operands, then attributes: a region `<v;w,h>, off [+ %roff]`, `#imm`,
 * `ch rgba`, a string, `mask %m`.  `!F:L:C` is the source location, F
 * numbering the `file` lines (module-local, by first use).  Under -g a
 * value assigned to a CM variable ends with `; name` (Inst.name).  Output
 * is deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "rt/cmk_abi.h"

typedef struct {
	Buf *out;
	uint32_t files[64];   /* module-local number - 1 -> src id */
	int nfiles;
} Printer;

static const char *const arg_kinds[] = {
	[CMK_ARG_SCALAR] = "scalar", [CMK_ARG_VECTOR] = "vector",
	[CMK_ARG_SURFACE] = "surface", [CMK_ARG_SAMPLER] = "sampler",
	[CMK_ARG_SVM] = "svm",
};
static const char *const surf_kinds[] = {
	[CMK_SURF_ANY] = "any", [CMK_SURF_BUFFER] = "buffer",
	[CMK_SURF_IMAGE1D] = "image1d", [CMK_SURF_IMAGE2D] = "image2d",
	[CMK_SURF_IMAGE3D] = "image3d",
};
static const char *const space_names[] = {"", "surf", "svm", "slm"};

static int file_num(Printer *p, uint32_t src)
{
	for (int i = 0; i < p->nfiles; i++)
		if (p->files[i] == src)
			return i + 1;
	if (p->nfiles == 64)
		return 0;
	p->files[p->nfiles++] = src;
	return p->nfiles;
}

static void put_loc(Printer *p, Loc l)
{
	if (!l.line)
		return;
	buf_printf(p->out, " !%d:%u:%u", l.file ? file_num(p, l.file) : 0, l.line,
	           l.col);
}

void ir_print_string(Buf *out, const char *s)
{
	buf_putc(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			buf_printf(out, "\\%c", c);
		else if (c == '\n')
			buf_puts(out, "\\n");
		else if (c == '\t')
			buf_puts(out, "\\t");
		else if (c < 32 || c >= 127)
			buf_printf(out, "\\x%02x", c);
		else
			buf_putc(out, (char)c);
	}
	buf_putc(out, '"');
}

/* The shortest decimal that reads back as the same double. */
void ir_print_double(Buf *out, double d)
{
	if (isnan(d)) {
		buf_puts(out, "nan");
		return;
	}
	if (isinf(d)) {
		buf_puts(out, d < 0 ? "-inf" : "inf");
		return;
	}
	char tmp[40];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*g", prec, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	buf_puts(out, tmp);
	if (!strpbrk(tmp, ".e"))
		buf_puts(out, ".0");
}

static void put_scalar(Buf *out, Elem e, IrScalar v)
{
	if (ir_is_float(e))
		ir_print_double(out, v.f);
	else if (ir_is_signed(e))
		buf_printf(out, "%lld", (long long)v.i);
	else
		buf_printf(out, "%llu", (unsigned long long)v.u);
}

static void put_val(Buf *out, const Inst *v)
{
	if (v)
		buf_printf(out, "%%%u", v->id);
	else
		buf_puts(out, "%?");
}

static void put_const(Buf *out, const Inst *i)
{
	buf_putc(out, ' ');
	if (i->c.n == 1) {
		put_scalar(out, i->ty.elem, i->c.v[0]);
		return;
	}
	buf_putc(out, '[');
	for (uint32_t k = 0; k < i->c.n; k++) {
		if (k)
			buf_puts(out, ", ");
		put_scalar(out, i->ty.elem, i->c.v[k]);
	}
	buf_putc(out, ']');
}

static void put_opname(Buf *out, const Inst *i)
{
	buf_puts(out, ir_ops[i->op].name);
	if (i->op == Oatomic || i->op == Otatomic)
		buf_printf(out, ".%s", ir_atomic_name[i->aop]);
	if (i->space)
		buf_printf(out, ".%s", space_names[i->space]);
	if (i->bytes)
		buf_puts(out, ".byte");
	if (i->align)
		buf_printf(out, ".align%u", i->align);
	if (i->sat)
		buf_puts(out, ".sat");
	if (i->ieee)
		buf_puts(out, ".ieee");
}

/* Operands other than the runtime offset and the mask. */
static void put_operands(Buf *out, const Inst *i, bool *first)
{
	uint32_t end = i->nops - (i->has_mask ? 1 : 0);
	uint32_t roff = i->has_roff ? (uint32_t)ir_ops[i->op].nops : UINT32_MAX;
	for (uint32_t k = 0; k < end; k++) {
		if (k == roff)
			continue;
		buf_puts(out, *first ? " " : ", ");
		*first = false;
		put_val(out, i->ops[k]);
	}
}

static void put_chmask(Buf *out, unsigned m, bool first)
{
	buf_puts(out, first ? " ch " : ", ch ");
	for (int c = 0; c < 4; c++)
		if (m & (1u << c))
			buf_putc(out, "rgba"[c]);
}

static void put_inst(Printer *p, const Inst *i)
{
	Buf *out = p->out;
	char tb[16];
	buf_putc(out, '\t');
	if (i->ty.elem != E_VOID)
		buf_printf(out, "%%%u:%s = ", i->id, ir_type_str(i->ty, tb));
	put_opname(out, i);
	bool first = true;
	switch (i->op) {
	case Oconst:
		put_const(out, i);
		break;
	case Ophi:
		for (uint32_t k = 0; k < i->nops; k++) {
			buf_printf(out, "%s[b%u ", k ? ", " : " ", i->phiblk[k]->id);
			put_val(out, i->ops[k]);
			buf_putc(out, ']');
		}
		break;
	case Otid:
		buf_printf(out, " %s", ir_tid_name[i->imm]);
		break;
	case Oprintf:
	case Otrap:
		buf_putc(out, ' ');
		ir_print_string(out, i->str ? i->str : "");
		first = false;
		put_operands(out, i, &first);
		break;
	default:
		put_operands(out, i, &first);
		break;
	}
	if (i->op == Ordregion || i->op == Owrregion) {
		buf_printf(out, ", <%d;%d,%d>, %d", i->rg.vstride, i->rg.width,
		           i->rg.hstride, i->rg.offset);
		if (i->has_roff) {
			buf_puts(out, " + ");
			put_val(out, ir_roff(i));
		}
	}
	if (i->op == Oarg || i->op == Omload || i->op == Omstore ||
	    i->op == Ofence || i->op == Osbarrier || i->op == Odpas || i->op == Owgmma ||
	    i->op == Oslmcopy || i->op == Oslmwait || i->op == Owgwait)
		buf_printf(out, "%s#%lld", first ? " " : ", ", (long long)i->imm);
	if (i->op == Ogather4 || i->op == Oscatter4 || i->op == Otload ||
	    i->op == Otstore)
		put_chmask(out, i->chmask, first);
	if (i->has_mask) {
		buf_puts(out, first ? " mask " : ", mask ");
		put_val(out, ir_mask(i));
	}
	put_loc(p, i->loc);
	if (i->name)
		buf_printf(out, " ; %s", i->name);
	buf_putc(out, '\n');
}

static void put_jump(Printer *p, const Block *b)
{
	Buf *out = p->out;
	switch (b->jmp.kind) {
	case J_NONE:
		buf_puts(out, "\t; no terminator\n");
		return;
	case J_BR:
		buf_printf(out, "\tbr b%u", b->jmp.to[0]->id);
		break;
	case J_CBR:
		buf_puts(out, "\tcbr ");
		put_val(out, b->jmp.cond);
		buf_printf(out, ", b%u, b%u", b->jmp.to[0]->id, b->jmp.to[1]->id);
		break;
	case J_RET:
		buf_puts(out, "\tret");
		break;
	}
	put_loc(p, b->jmp.loc);
	buf_putc(out, '\n');
}

static void put_param(Buf *out, const IrParam *pa)
{
	char tb[16];
	const char *k = pa->kind < sizeof arg_kinds / sizeof *arg_kinds &&
	                arg_kinds[pa->kind] ? arg_kinds[pa->kind] : "scalar";
	buf_printf(out, "%s: %s %s", pa->name, k, ir_type_str(pa->ty, tb));
	if (pa->kind == CMK_ARG_SURFACE && pa->surf < 5)
		buf_printf(out, " %s", surf_kinds[pa->surf]);
	if (pa->type_attr && *pa->type_attr) {
		buf_putc(out, ' ');
		ir_print_string(out, pa->type_attr);
	}
}

static void put_func(Printer *p, const Func *f)
{
	Buf *out = p->out;
	buf_printf(out, "kernel @%s(", f->name);
	for (uint32_t k = 0; k < f->nparams; k++) {
		if (k)
			buf_puts(out, ", ");
		put_param(out, &f->params[k]);
	}
	buf_putc(out, ')');
	if (f->slm_size)
		buf_printf(out, " slm %u", f->slm_size);
	if (f->globals_size)
		buf_printf(out, " globals %u", f->globals_size);
	if (f->simd_width)
		buf_printf(out, " simd %u", f->simd_width);
	if (f->uses_barrier)
		buf_puts(out, " barrier");
	if (f->uses_wait)
		buf_puts(out, " wait");
	put_loc(p, f->loc);
	buf_puts(out, " {\n");
	for (uint32_t bi = 0; bi < f->nblocks; bi++) {
		const Block *b = f->blocks[bi];
		buf_printf(out, "b%u:\n", b->id);
		for (const Inst *i = b->first; i; i = i->next)
			put_inst(p, i);
		put_jump(p, b);
	}
	buf_puts(out, "}\n");
}

/* Files are numbered by first use, so the `file` lines are collected from a
 * first printing and written above the kernels. */
static void print_with_files(const Module *m, const Func *only, Buf *out)
{
	Printer p = {0};
	Buf body = {0};
	p.out = &body;
	for (uint32_t k = 0; k < m->nfuncs; k++) {
		if (only && m->funcs[k] != only)
			continue;
		if (body.len)
			buf_putc(&body, '\n');
		put_func(&p, m->funcs[k]);
	}
	for (int k = 0; k < p.nfiles; k++) {
		const SrcFile *sf = src_get(p.files[k]);
		buf_printf(out, "file %d ", k + 1);
		ir_print_string(out, sf ? sf->name : "?");
		buf_putc(out, '\n');
	}
	if (p.nfiles)
		buf_putc(out, '\n');
	buf_putn(out, body.data ? body.data : "", body.len);
	buf_free(&body);
}

void ir_print(const Module *m, Buf *out)
{
	print_with_files(m, NULL, out);
}

void ir_print_func(const Func *f, Buf *out)
{
	print_with_files(f->mod, f, out);
}
