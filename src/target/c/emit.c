/* emit.c — the C back end: one C file per module, for the CPU runtime.
 *
 * The file is cmk_abi.h verbatim, the helper prelude (prelude.c), then one
 * `static void cmk_k_NAME(CmkThread *t)` per kernel, and the exported
 * `cmk_abi_version` and `cmk_program` with each kernel's CmkKernelInfo and
 * CmkArgInfo.  Inside a kernel every value is a local declared at the top
 * (c.h); blocks are labels and terminators gotos; a phi has a shadow
 * variable p<id> that each predecessor writes before jumping and the block
 * copies at its start, so parallel copies need no ordering.  A wrregion
 * whose old value has no other use updates that value's storage in place
 * instead of copying it.  Output is deterministic. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "target/c/c.h"
#include "rt/cmk_abi.h"

static const char *const ctypes[E_COUNT_] = {
	[E_VOID] = "void", [E_I1] = "uint8_t", [E_I8] = "int8_t", [E_U8] = "uint8_t",
	[E_I16] = "int16_t", [E_U16] = "uint16_t", [E_I32] = "int32_t",
	[E_U32] = "uint32_t", [E_I64] = "int64_t", [E_U64] = "uint64_t",
	[E_F16] = "uint16_t", [E_F32] = "float", [E_F64] = "double",
};

/* Kernels whose loops were fully unrolled in the source (gemm's register
 * blocks, transpose's tiles) give 7,000-13,000 lines of C, which gcc -O2
 * takes 5-6 s (alone on 2 cores) to build, mostly in passes that scale badly
 * with thousands of short loops over the same arrays (VRP, jump threading,
 * PRE); -O1 with the vectorizer builds them in a fifth of the CPU time and
 * runs them as fast (the work is in those loops, which still vectorize).
 * Shorter C keeps -O2.  Since a program of several kernels builds as one
 * unit per core (c_split_units), one kernel of more than C_LONG_KERNEL
 * lines (tests/exec/occupancy.cm's register-hungry one: 3,000 lines, 3.1 s
 * at -O2, 1.1 s at -O1) is what the first build waits for: it goes to -O1
 * too.  Shorter C also unrolls its loops (-funroll-loops, after
 * vectorizing): the element loops of a block that reads memory in place
 * (direct.c) become straight runs of vector loads and stores, and a
 * memory-bound kernel issues its loads at the rate C's -O3 loop does:
 * bench-cpu saxpy, 2 cores, CM / C 1.11x with direct reads alone, 1.06x
 * with both (2026-11-28; see the commit). */
#define C_LONG_LINES 4000
#define C_LONG_KERNEL 3000

static size_t count_lines(const char *c, size_t len);
static int find_marks(const char *c, size_t len, size_t *at, int cap);

const char *c_cc_opt_flags(const char *c, size_t len, bool debug)
{
	if (debug)   /* -g: every variable stays in memory for the debugger */
		return "-O0";
	enum { MAXK = 256 };
	size_t at[MAXK + 1], longest = 0;
	int nm = find_marks(c, len, at, MAXK + 1);
	for (int k = 0; k + 1 < nm; k++) {
		size_t n = count_lines(c + at[k], at[k + 1] - at[k]);
		longest = n > longest ? n : longest;
	}
	bool slow = count_lines(c, len) > C_LONG_LINES || longest > C_LONG_KERNEL;
	return slow ? "-O1 -ftree-vectorize" : "-O2 -funroll-loops";
}

/* C shorter than this builds fast enough in one unit (a second cc and the
 * link cost ~0.1 s). */
#define C_SPLIT_LINES 2000

static size_t count_lines(const char *c, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += c[i] == '\n';
	return n;
}

/* Offsets of the lines that are C_UNIT_MARK, at most cap of them. */
static int find_marks(const char *c, size_t len, size_t *at, int cap)
{
	size_t ml = strlen(C_UNIT_MARK);
	int n = 0;
	for (size_t i = 0; i + ml <= len && n < cap; i++)
		if ((i == 0 || c[i - 1] == '\n') && c[i] == '/' && !memcmp(c + i, C_UNIT_MARK, ml))
			at[n++] = i;
	return n;
}

int c_split_units(const char *c, size_t len, int max, Buf *units)
{
	enum { MAXK = 256 };
	size_t at[MAXK + 2];
	int nm = find_marks(c, len, at, MAXK + 1), nk = nm - 1;
	if (max < 2 || nk < 2 || nm > MAXK || count_lines(c, len) < C_SPLIT_LINES) {
		buf_putn(&units[0], c, len);
		return 1;
	}
	int ng = nk < max ? nk : max, group[MAXK];
	size_t load[MAXK] = {0};
	at[nm] = len;
	/* largest kernel first into the lightest unit (ties: the lower unit) */
	bool placed[MAXK] = {0};
	for (int r = 0; r < nk; r++) {
		int big = -1;
		for (int k = 0; k < nk; k++)
			if (!placed[k] && (big < 0 || at[k + 1] - at[k] > at[big + 1] - at[big]))
				big = k;
		int light = 0;
		for (int g = 1; g < ng; g++)
			if (load[g] < load[light])
				light = g;
		placed[big] = true;
		group[big] = light;
		load[light] += at[big + 1] - at[big];
	}
	for (int g = 0; g < ng; g++) {
		buf_putn(&units[g], c, at[0]);
		for (int k = 0; k < nk; k++)
			if (group[k] == g)
				buf_putn(&units[g], c + at[k], at[k + 1] - at[k]);
	}
	buf_putn(&units[0], c + at[nk], len - at[nk]);
	return ng;
}

const char *c_type(Elem e) { return ctypes[e]; }
const char *c_suffix(Elem e) { return ir_elem_name[e]; }

/* The C variable of id: v<id>, or under -g v<id>_<name> when it holds a
 * CM variable. */
static void var_name(CGen *g, uint32_t id)
{
	buf_printf(g->out, "v%u", id);
	if (g->names && g->names[id])
		buf_printf(g->out, "_%s", g->names[id]);
}

void c_name(CGen *g, const Inst *v)
{
	var_name(g, g->store[v->id]);
}

void c_lv(CGen *g, const Inst *v, const char *k)
{
	if (g->inl && g->inl[v->id])
		die("C back end: %%%u is computed in its user's loop", v->id);
	c_name(g, v);
	if (v->ty.n != 1)
		buf_printf(g->out, "[%s]", k);
}

void c_val(CGen *g, const Inst *v, const char *k)
{
	if (g->inl && g->inl[v->id])
		buf_printf(g->out, "(%s)", c_inline_expr(g, v, k));
	else
		c_lv(g, v, k);
}

void c_rd(CGen *g, const Inst *v, const char *k)
{
	if (v->ty.elem == E_F16)
		buf_puts(g->out, "cmk_h2f(");
	c_val(g, v, k);
	if (v->ty.elem == E_F16)
		buf_putc(g->out, ')');
}

/* from == E_VOID: x is an exact __int128. */
void c_conv(CGen *g, Elem from, Elem to, bool sat, const char *x)
{
	Buf *o = g->out;
	const char *T = c_type(to);
	if (to == E_I1) {
		buf_printf(o, "((%s) != 0)", x);
	} else if (ir_is_float(to)) {
		bool f16 = to == E_F16;
		const char *ct = f16 ? "float" : T;
		if (f16)
			buf_puts(o, "cmk_f2h(");
		if (sat)
			buf_printf(o, "(%s)cmk_satf((double)(%s))", ct, x);
		else
			buf_printf(o, "(%s)(%s)", ct, x);
		if (f16)
			buf_putc(o, ')');
	} else if (from != E_VOID && ir_is_float(from)) {
		buf_printf(o, "cmk_fcvt_%s((double)(%s))", c_suffix(to), x);
	} else if (!sat || from == to) {
		buf_printf(o, "(%s)(%s)", T, x);
	} else if (from == E_VOID || from == E_U64) {
		buf_printf(o, "cmk_satq_%s((__int128)(%s))", c_suffix(to), x);
	} else {
		buf_printf(o, "cmk_sat_%s((int64_t)(%s))", c_suffix(to), x);
	}
}

/* ---- constants ----------------------------------------------------------- */

static uint16_t f32_to_f16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	uint32_t s = (u >> 16) & 0x8000, e = (u >> 23) & 255, m = u & 0x7fffff;
	if (e == 255)
		return (uint16_t)(s | 0x7c00 | (m ? 0x200 : 0));
	int ne = (int)e - 112;
	if (ne >= 31)
		return (uint16_t)(s | 0x7c00);
	if (ne <= 0) {
		if (ne < -10)
			return (uint16_t)s;
		m |= 0x800000;
		int sh = 14 - ne;
		uint32_t r = m >> sh, rem = m & ((1u << sh) - 1), half = 1u << (sh - 1);
		if (rem > half || (rem == half && (r & 1)))
			r++;
		return (uint16_t)(s | r);
	}
	uint32_t r = ((uint32_t)ne << 10) | (m >> 13), rem = m & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (r & 1)))
		r++;
	return (uint16_t)(s | r);
}

static void put_scalar(Buf *o, Elem e, IrScalar v)
{
	switch (e) {
	case E_F16:
		buf_printf(o, "0x%04x", f32_to_f16((float)v.f));
		return;
	case E_F32:
	case E_F64:
		if (isnan(v.f))
			buf_puts(o, e == E_F32 ? "(float)NAN" : "(double)NAN");
		else if (isinf(v.f))
			buf_printf(o, "%s(%s)INFINITY", v.f < 0 ? "-" : "", c_type(e));
		else
			buf_printf(o, e == E_F32 ? "%af" : "%a", v.f);
		return;
	case E_I64:
		if (v.i == INT64_MIN)
			buf_puts(o, "INT64_MIN");
		else
			buf_printf(o, "%lldLL", (long long)v.i);
		return;
	case E_U64:
		buf_printf(o, "%lluULL", (unsigned long long)v.u);
		return;
	case E_U32:
		buf_printf(o, "%lluu", (unsigned long long)(uint32_t)v.u);
		return;
	case E_I32:
		if ((int32_t)v.i == INT32_MIN)
			buf_puts(o, "INT32_MIN");
		else
			buf_printf(o, "%d", (int32_t)v.i);
		return;
	default:
		buf_printf(o, "%lld", (long long)v.i);
	}
}

static void emit_const(CGen *g, const Inst *i)
{
	Buf *o = g->out;
	if (i->ty.n == 1) {
		buf_putc(o, '\t');
		c_name(g, i);
		buf_puts(o, " = ");
		put_scalar(o, i->ty.elem, i->c.v[0]);
		buf_puts(o, ";\n");
	} else if (i->c.n == 1) {
		buf_printf(o, "\tfor (int k = 0; k < %u; k++) ", i->ty.n);
		c_name(g, i);
		buf_puts(o, "[k] = ");
		put_scalar(o, i->ty.elem, i->c.v[0]);
		buf_puts(o, ";\n");
	} else {
		buf_printf(o, "\t{ static const %s c[%u] = {", c_type(i->ty.elem), i->ty.n);
		for (uint32_t k = 0; k < i->c.n; k++) {
			buf_puts(o, k ? ", " : "");
			put_scalar(o, i->ty.elem, i->c.v[k]);
		}
		buf_puts(o, "}; memcpy(");
		c_name(g, i);
		buf_puts(o, ", c, sizeof c); }\n");
	}
}

bool c_surface_arg(CGen *g, const Inst *v)
{
	return v->op == Oarg && v->block == g->f->blocks[0] && v->imm >= 0 &&
	       (uint64_t)v->imm < g->f->nparams && g->f->params[v->imm].kind == CMK_ARG_SURFACE;
}

/* A surface argument also gets s<id>, its memory, for every access
 * (mem.c).  Only in the entry block: it is emitted first and dominates
 * every use, so s<id> is declared and set before any of them. */
static void emit_arg(CGen *g, const Inst *i)
{
	buf_puts(g->out, "\tmemcpy(&");
	c_name(g, i);
	buf_printf(g->out, ", t->args[%lld], sizeof(", (long long)i->imm);
	c_name(g, i);
	buf_puts(g->out, "));\n");
	if (c_surface_arg(g, i)) {
		buf_printf(g->out, "\tCmkMem s%u = cmk_surf(t, (uint64_t)", i->id);
		c_name(g, i);
		buf_printf(g->out, "); (void)s%u;\n", i->id);
	}
}

/* ---- kernels ------------------------------------------------------------- */

static void declare(CGen *g, const Inst *i, const char *prefix)
{
	int eb = ir_elem_bytes[i->ty.elem];
	g->frame += (uint64_t)(eb > 0 ? eb : 1) * i->ty.n;
	buf_printf(g->out, "\t%s ", c_type(i->ty.elem));
	if (*prefix == 'v' && g->direct[i->id]) {   /* its array, then the pointer */
		buf_printf(g->out, "d%u[%u];\n\t%s *", i->id, i->ty.n, c_type(i->ty.elem));
		var_name(g, i->id);
		buf_puts(g->out, ";\n");
		return;
	}
	if (*prefix == 'v')
		var_name(g, i->id);
	else
		buf_printf(g->out, "%s%u", prefix, i->id);
	if (i->ty.n != 1)
		buf_printf(g->out, "[%u]", i->ty.n);
	buf_puts(g->out, ";\n");
}

static void copy_val(CGen *g, const char *dst_prefix, uint32_t dst, const Inst *src)
{
	Buf *o = g->out;
	Buf d = {0};
	CGen dg = *g;
	dg.out = &d;
	if (*dst_prefix == 'v')
		var_name(&dg, dst);
	else
		buf_printf(&d, "%s%u", dst_prefix, dst);
	if (src->ty.n == 1) {
		buf_printf(o, "%s = ", buf_cstr(&d));
		c_name(g, src);
		buf_puts(o, "; ");
	} else {
		buf_printf(o, "memcpy(%s, ", buf_cstr(&d));
		c_name(g, src);
		buf_printf(o, ", sizeof %s); ", buf_cstr(&d));
	}
	buf_free(&d);
}

/* The operand of phi p for the edge from b. */
static const Inst *phi_in(const Inst *p, const Block *b)
{
	for (uint32_t k = 0; k < p->nops; k++)
		if (p->phiblk[k] == b)
			return p->ops[k];
	die("C back end: phi %%%u has no operand for b%u", p->id, b->id);
}

/* The phi moves of the edge from b to `to`, then the jump.  A phi that
 * shares its operand's variable (storage.c) needs none.  The others are a
 * parallel copy: a move whose destination another move of the edge reads
 * goes through the phi's shadow p<id> (read everything, then write). */
static void edge(CGen *g, const Block *b, const Block *to)
{
	for (int phase = 0; phase < 3; phase++)
		for (const Inst *p = to->first; p && p->op == Ophi; p = p->next) {
			const Inst *a = phi_in(p, b);
			if (g->store[a->id] == g->store[p->id])
				continue;
			bool read = false;
			for (const Inst *q = to->first; q && q->op == Ophi; q = q->next)
				read |= q != p && g->store[phi_in(q, b)->id] == g->store[p->id];
			if (phase == 0 && read)
				copy_val(g, "p", p->id, a);
			else if (phase == 1 && !read)
				copy_val(g, "v", g->store[p->id], a);
			else if (phase == 2 && read) {
				buf_puts(g->out, p->ty.n == 1 ? "" : "memcpy(");
				c_name(g, p);
				buf_printf(g->out, p->ty.n == 1 ? " = p%u; " : ", p%u, sizeof p%u); ",
				           p->id, p->id);
			}
		}
	buf_printf(g->out, "goto b%u;", to->id);
}

static void line_directive(CGen *g, Loc l)
{
	if (!g->o->debug || !l.line)
		return;
	const SrcFile *sf = src_get(l.file);
	buf_printf(g->out, "#line %u ", l.line);
	ir_print_string(g->out, sf && l.file ? sf->name : "<none>");
	buf_putc(g->out, '\n');
}

static void emit_jump(CGen *g, const Block *b)
{
	Buf *o = g->out;
	line_directive(g, b->jmp.loc);
	switch (b->jmp.kind) {
	case J_BR:
		buf_puts(o, "\t");
		edge(g, b, b->jmp.to[0]);
		buf_putc(o, '\n');
		break;
	case J_CBR:
		buf_puts(o, "\tif (");
		c_name(g, b->jmp.cond);
		buf_puts(o, ") { ");
		edge(g, b, b->jmp.to[0]);
		buf_puts(o, " } else { ");
		edge(g, b, b->jmp.to[1]);
		buf_puts(o, " }\n");
		break;
	default:
		buf_puts(o, "\treturn;\n");
	}
}

static bool emit_inst_text(CGen *g, const Inst *i)
{
	g->line = (int)i->loc.line;
	switch (i->op) {
	case Oconst:
		emit_const(g, i);
		return true;
	case Oarg:
		emit_arg(g, i);
		return true;
	default:
		if (ir_ops[i->op].flags & IRF_MEM || i->op >= Obarrier)
			return c_emit_mem(g, i);
		return c_emit_op(g, i);
	}
}

/* -g: by C variable id, the CM variable it holds: the name of its first
 * named value (storage.c gives one variable values of one name only). */
static const char **var_names(CGen *g, Func *f)
{
	const char **names = NEWN(f->arena, const char *, f->nextid + 1);
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i; i = i->next)
			if (i->name && i->ty.elem != E_VOID && !names[g->store[i->id]])
				names[g->store[i->id]] = i->name;
	return names;
}

/* One instruction.  Under -g each of its C lines gets the #line of its
 * CM line: the C compiler counts on from a directive, so a multi-line
 * instruction would otherwise claim the CM lines after its own. */
static bool emit_inst(CGen *g, const Inst *i)
{
	if (!g->o->debug || !i->loc.line)
		return emit_inst_text(g, i);
	Buf *out = g->out, text = {0};
	g->out = &text;
	bool ok = emit_inst_text(g, i);
	g->out = out;
	for (const char *p = text.len ? buf_cstr(&text) : ""; *p; ) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
		line_directive(g, i->loc);
		buf_putn(out, p, n);
		p += n;
	}
	buf_free(&text);
	return ok;
}

static bool emit_kernel(CGen *g, Func *f)
{
	Buf *o = g->out;
	g->f = f;
	g->tmp = arena_child(f->arena);
	g->store = c_assign_storage(f, g->o->debug);
	g->names = g->o->debug ? var_names(g, f) : NULL;
	g->inl = NULL;
	g->inl = c_bale(g, f);
	g->direct = c_direct(g, f);
	g->frame = 0;
	buf_printf(o, "\n" C_UNIT_MARK "\n");
	line_directive(g, f->loc);   /* -g: the prologue is the kernel's line */
	buf_printf(o, "CMK_KERNEL void cmk_k_%s(CmkThread *t)\n{\n", f->name);
	line_directive(g, f->loc);
	buf_puts(o, "\t(void)t;\n");
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i; i = i->next) {
			if (i->ty.elem == E_VOID || g->store[i->id] != i->id)
				continue;
			declare(g, i, "v");
		}
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i && i->op == Ophi; i = i->next) {
			bool all = true;
			for (uint32_t k = 0; k < i->nops; k++)
				all &= g->store[i->ops[k]->id] == g->store[i->id];
			if (!all)
				declare(g, i, "p");
		}
	bool ok = true;
	for (uint32_t bi = 0; bi < f->nblocks && ok; bi++) {
		Block *b = f->blocks[bi];
		buf_printf(o, "b%u:;\n", b->id);
		for (Inst *i = b->first; i && ok; i = i->next)
			if (i->op != Ophi && !g->inl[i->id]) {
				ok = emit_inst(g, i);
				arena_reset(g->tmp);
			}
		emit_jump(g, b);
		arena_reset(g->tmp);
	}
	buf_puts(o, "}\n");
	return ok;
}

/* The stack one CM thread of a kernel may take, from the bytes of its C
 * locals: at cc -O0 (-g) every local has its own slot, plus the block
 * temporaries of the memory operations and the helpers' frames below it
 * (C_FRAME_SLACK); optimized builds take less.  Saturates at UINT32_MAX. */
#define C_FRAME_SLACK (64u * 1024u)

static uint32_t frame_size(uint64_t locals)
{
	uint64_t n = locals + locals / 4 + C_FRAME_SLACK;
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static void emit_info(Buf *o, const Module *m, bool checked, const uint64_t *frames, int nframes)
{
	buf_puts(o, "\n" C_UNIT_MARK "\n");
	for (uint32_t k = 0; k < m->nfuncs; k++)
		buf_printf(o, "CMK_KERNEL void cmk_k_%s(CmkThread *t);\n", m->funcs[k]->name);
	for (uint32_t k = 0; k < m->nfuncs; k++) {
		const Func *f = m->funcs[k];
		if (!f->nparams)
			continue;
		buf_printf(o, "\nstatic const CmkArgInfo cmk_args_%s[] = {\n", f->name);
		for (uint32_t a = 0; a < f->nparams; a++) {
			const IrParam *p = &f->params[a];
			buf_puts(o, "\t{");
			ir_print_string(o, p->name);
			buf_printf(o, ", %u, %u, %u, %u, ", p->kind,
			           ir_elem_bytes[p->ty.elem] * p->ty.n,
			           p->kind == CMK_ARG_SURFACE || p->kind == CMK_ARG_SAMPLER ||
			                           p->kind == CMK_ARG_SVM
			                   ? 0 : ir_elem_to_cmk(p->ty.elem),
			           p->surf);
			ir_print_string(o, p->type_attr ? p->type_attr : "");
			buf_puts(o, "},\n");
		}
		buf_puts(o, "};\n");
	}
	buf_puts(o, "\nstatic const CmkKernelInfo cmk_kernels[] = {\n");
	for (uint32_t k = 0; k < m->nfuncs; k++) {
		const Func *f = m->funcs[k];
		buf_printf(o, "\t{\"%s\", cmk_k_%s, %u, ", f->name, f->name, f->nparams);
		if (f->nparams)
			buf_printf(o, "cmk_args_%s", f->name);
		else
			buf_puts(o, "0");
		buf_printf(o, ", %u, %u, %u, %u, %u, %u, %u},\n", f->slm_size, f->globals_size,
		           f->uses_barrier, f->uses_wait, f->simd_width, checked ? 1 : 0,
		           frame_size(k < (uint32_t)nframes ? frames[k] : 0));
	}
	if (!m->nfuncs)
		buf_puts(o, "\t{0}\n");
	buf_puts(o, "};\n\n"
	            "__attribute__((visibility(\"default\"))) const uint32_t cmk_abi_version = CMK_ABI_VERSION;\n"
	            "__attribute__((visibility(\"default\"))) const CmkProgramInfo cmk_program = {");
	buf_printf(o, "%u, cmk_kernels};\n", m->nfuncs);
}

/* Barriers need fibers: mark kernels that use them whatever the lowering
 * said. */
static void scan_uses(Func *f)
{
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		for (Inst *i = f->blocks[bi]->first; i; i = i->next) {
			if (i->op == Obarrier || i->op == Osbarrier)
				f->uses_barrier = true;
			if (i->op == Owait || i->op == Osignal)
				f->uses_wait = true;
		}
}

/* The kernels go straight into out, one by one; the metadata after them. */
typedef struct {
	CGen g;
	Module *m;
	VEC(uint64_t) frames; /* by kernel, in m->funcs order: bytes of its locals */
} CModule;

static void *c_begin(Module *m, const EmitOptions *o, Buf *out)
{
	CModule *c = xcalloc(1, sizeof *c);
	c->g = (CGen){.out = out, .o = o};
	c->m = m;
	buf_puts(out, "/* Generated by cmetal (C back end); do not edit. */\n");
	buf_puts(out, c_abi_text);
	buf_puts(out, c_prelude_text);
	return c;
}

static bool c_kernel(void *st, Func *f)
{
	CModule *c = st;
	scan_uses(f);
	bool ok = emit_kernel(&c->g, f);
	vec_push(&c->frames, c->g.frame);
	return ok;
}

static bool c_end(void *st, bool ok)
{
	CModule *c = st;
	if (ok)
		emit_info(c->g.out, c->m, c->g.o->bounds_check, c->frames.data, c->frames.len);
	vec_free(&c->frames);
	free(c);
	return true;
}

const Target T_c = {.name = "c", .begin = c_begin, .kernel = c_kernel, .end = c_end};
