/* emit.c — the PTX target: module and kernel skeletons, register naming,
 * constants, arguments, blocks and phis, and the per-kernel header.
 *
 * requires: verified CMIR (any pass level); changes nothing in the module.
 *
 * Each kernel is emitted into its own buffer: the instructions first
 * (dispatched to alu.c, region.c, mem.c, warp.c), then the register
 * declarations they needed are put in front.  The module text is then run
 * through ptxas -v (when ptxas is on PATH) and the final output gets the
 * machine-readable metadata lines of rt/cuda_abi.h, and above each kernel a
 * comment with its registers, shared and local memory and spills.
 * Phis become copies on the incoming edges (through temporaries when a phi
 * reads another phi of the same block, so swaps stay parallel).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rt/cmk_abi.h"
#include "rt/cuda_abi.h"
#include "target/ptx/ptx.h"

static const char *const rc_prefix[RC_COUNT_] = {"%p", "%h", "%r", "%rd", "%f", "%fd"};
static const char *const rc_decl[RC_COUNT_] = {".pred", ".b16", ".b32", ".b64", ".f32", ".f64"};

RegClass px_class(Elem e)
{
	switch (e) {
	case E_I1: return RC_PRED;
	case E_I64: case E_U64: return RC_B64;
	case E_F16: return RC_B16;
	case E_F32: return RC_F32;
	case E_F64: return RC_F64;
	default: return RC_B32;
	}
}

const char *px_ty(Elem e)
{
	switch (e) {
	case E_I1: return "pred";
	case E_I8: case E_I16: case E_I32: return "s32";
	case E_U8: case E_U16: case E_U32: return "u32";
	case E_I64: return "s64";
	case E_U64: return "u64";
	case E_F16: return "f16";
	case E_F32: return "f32";
	case E_F64: return "f64";
	default: die("no PTX type for elem %d", (int)e);
	}
}

const char *px_bits(Elem e)
{
	static const char *const b[RC_COUNT_] = {"pred", "b16", "b32", "b64", "b32", "b64"};
	return b[px_class(e)];
}

const char *px_own(Px *p, const Inst *v, uint32_t slot)
{
	for (int n = 0; p->val && p->val[v->id].host && n < 64; n++)
		v = p->val[v->id].host;   /* phic.c, wgmma.c wgmma_inplace */
	if (v->ty.n <= 1)
		slot = 0;
	return arena_printf(p->arena, "%s%u_%u", rc_prefix[px_class(v->ty.elem)],
	                    v->id, slot);
}

uint32_t px_nregs(Px *p, const Inst *v)
{
	const Layout *l = v->ty.n > 1 && p->val ? p->val[v->id].lay : NULL;
	return l ? l->nregs : SLOTS(v->ty.n);
}

const char *px_reg_in(Px *p, const Inst *v, const Layout *l, uint32_t slot)
{
	const PxVal *pv = v->ty.n > 1 && p->val ? &p->val[v->id] : NULL;
	if (!pv || !pv->lay || lay_equal(pv->lay, l))
		return px_own(p, v, slot);
	for (uint32_t k = 0; k < pv->ncopies; k++)
		if (lay_equal(pv->copy[k], l))
			return arena_printf(p->arena, "%s%uc%u_%u", rc_prefix[px_class(v->ty.elem)],
			                    v->id, k, slot);
	die("value %%%u has no copy in the layout its user reads", v->id);
}

const char *px_reg(Px *p, const Inst *v, uint32_t slot)
{
	const PxVal *pv = v->ty.n > 1 && p->val ? &p->val[v->id] : NULL;
	if (!pv || !pv->lay || pv->lay->canon)
		return px_own(p, v, slot);
	return px_reg_in(p, v, p->canon[v->ty.n], slot);
}

const char *px_tmp(Px *p, RegClass c)
{
	if (p->alt)
		return arena_printf(p->arena, "%su%u", rc_prefix[c], p->nalt[c]++);
	return arena_printf(p->arena, "%st%u", rc_prefix[c], p->ntmp[c]++);
}

void px_cold_begin(Px *p, const char *label)
{
	Buf hot = p->body;
	p->body = p->cold;
	p->cold = hot;
	p->in_cold++;
	px_variant_enter(p);
	buf_printf(&p->body, "%s:\n", label);
}

void px_cold_end(Px *p, const char *back)
{
	px_ins(p, "bra.uni %s", back);
	px_variant_leave(p);
	Buf cold = p->body;
	p->body = p->cold;
	p->cold = cold;
	p->in_cold--;
}

const char *px_label(Px *p)
{
	if (p->alt)
		return arena_printf(p->arena, "$L_u%u", p->nalt_label++);
	return arena_printf(p->arena, "$L_t%u", p->nlabel++);
}

void px_ins(Px *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_putc(&p->body, '\t');
	buf_vprintf(&p->body, fmt, ap);
	buf_puts(&p->body, ";\n");
	va_end(ap);
}

void px_comment(Px *p, const char *fmt, ...)
{
	if (p->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	buf_puts(&p->body, "\t// ");
	buf_vprintf(&p->body, fmt, ap);
	buf_putc(&p->body, '\n');
	va_end(ap);
}

void px_normalize(Px *p, Elem e, const char *r)
{
	switch (e) {
	case E_I8: px_ins(p, "bfe.s32 %s, %s, 0, 8", r, r); break;
	case E_I16: px_ins(p, "bfe.s32 %s, %s, 0, 16", r, r); break;
	case E_U8: px_ins(p, "and.b32 %s, %s, 255", r, r); break;
	case E_U16: px_ins(p, "and.b32 %s, %s, 65535", r, r); break;
	default: break;
	}
}

const char *px_lane(Px *p)
{
	(void)p;
	return "%lane";
}

const char *px_lane_lt(Px *p, uint32_t n)
{
	const char *q = px_tmp(p, RC_PRED);
	px_ins(p, "setp.lt.u32 %s, %%lane, %u", q, n);
	return q;
}

const char *px_lane_ge(Px *p, uint32_t n)
{
	const char *q = px_tmp(p, RC_PRED);
	px_ins(p, "setp.ge.u32 %s, %%lane, %u", q, n);
	return q;
}

const char *px_mem_ty(Elem e)
{
	static const char *const t[E_COUNT_] = {
		[E_I1] = "u8", [E_I8] = "s8", [E_U8] = "u8", [E_I16] = "s16",
		[E_U16] = "u16", [E_I32] = "u32", [E_U32] = "u32", [E_I64] = "b64",
		[E_U64] = "b64", [E_F16] = "b16", [E_F32] = "f32", [E_F64] = "f64"};
	return t[e] ? t[e] : "u32";
}

bool px_unsupported(Px *p, const Inst *i, const char *what)
{
	(void)p;
	error_at(i->loc, "the PTX back end does not support %s yet", what);
	return false;
}

/* Appends b to out (b may be empty, with no data). */
static void put_buf(Buf *out, const Buf *b)
{
	if (b->len)
		buf_putn(out, b->data, b->len);
}

/* ---- constants ------------------------------------------------------------ */

/* IEEE half bits of d (round to nearest even). */
static uint16_t f16_bits(double d)
{
	float f = (float)d;
	uint32_t x;
	memcpy(&x, &f, 4);
	uint32_t sign = (x >> 16) & 0x8000, e = (x >> 23) & 0xff, m = x & 0x7fffff;
	if (e == 0xff)
		return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
	int ue = (int)e - 127 + 15;
	if (ue >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (ue <= 0) {
		if (ue < -10)
			return (uint16_t)sign;
		m |= 0x800000;
		int sh = 14 - ue;
		uint32_t h = m >> sh, rem = m & ((1u << sh) - 1), half = 1u << (sh - 1);
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = ((uint32_t)ue << 10) | (m >> 13), rem = m & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

/* The PTX immediate for element value v of type e. */
static const char *imm_text(Px *p, Elem e, IrScalar v)
{
	switch (px_class(e)) {
	case RC_PRED: return v.i ? "1" : "0";
	case RC_B16: return arena_printf(p->arena, "0x%04x", f16_bits(v.f));
	case RC_F32: {
		float f = (float)v.f;
		uint32_t x;
		memcpy(&x, &f, 4);
		return arena_printf(p->arena, "0f%08X", x);
	}
	case RC_F64: {
		uint64_t x;
		memcpy(&x, &v.f, 8);
		return arena_printf(p->arena, "0d%016llX", (unsigned long long)x);
	}
	case RC_B64: return arena_printf(p->arena, "%lld", (long long)v.i);
	default: return arena_printf(p->arena, "%d", (int32_t)v.i);
	}
}

/* Moves the immediate into register r of e's class. */
static void mov_imm(Px *p, Elem e, const char *r, IrScalar v)
{
	if (e == E_I1)
		px_ins(p, "setp.ne.u32 %s, %s, 0", r, v.i ? "1" : "0");
	else
		px_ins(p, "mov.%s %s, %s", px_bits(e), r, imm_text(p, e, v));
}

/* Slot s of a non-splat constant: uniform, affine in the lane (integers),
 * or a per-lane table in .global memory. */
static void const_slot(Px *p, Inst *i, uint32_t s, Buf *globals)
{
	Elem e = i->ty.elem;
	uint32_t lo = s * 32, cnt = i->ty.n - lo < 32 ? i->ty.n - lo : 32;
	const char *d = px_reg(p, i, s);
	IrScalar v0 = ir_const_at(i, lo);
	bool same = true, affine = ir_is_int(e) && px_class(e) == RC_B32 && cnt > 1;
	/* wrapping arithmetic: only 32-bit integers use the result */
	uint64_t step = cnt > 1 ? ir_const_at(i, lo + 1).u - v0.u : 0;
	for (uint32_t k = 1; k < cnt; k++) {
		IrScalar v = ir_const_at(i, lo + k);
		if (v.u != v0.u)
			same = false;
		if (v.u != v0.u + step * k)
			affine = false;
	}
	if (same) {
		mov_imm(p, e, d, v0);
	} else if (affine) {
		px_ins(p, "mad.lo.s32 %s, %%lane, %d, %d", d, (int32_t)(uint32_t)step, (int32_t)v0.i);
	} else if (e == E_I1) {
		uint32_t bits = 0;
		for (uint32_t k = 0; k < cnt; k++)
			bits |= (ir_const_at(i, lo + k).i ? 1u : 0u) << k;
		const char *t = px_tmp(p, RC_B32);
		px_ins(p, "shr.b32 %s, %u, %%lane", t, bits);
		px_ins(p, "and.b32 %s, %s, 1", t, t);
		px_ins(p, "setp.ne.u32 %s, %s, 0", d, t);
	} else {
		int bytes = px_class(e) == RC_B64 || px_class(e) == RC_F64 ? 8 :
		            px_class(e) == RC_B16 ? 2 : 4;
		const char *name = arena_printf(p->arena, "%s_c%u_%u", p->f->name, i->id, s);
		if (!p->vcopy) {   /* a versioned loop's second copy uses the first's table */
			buf_printf(globals, ".global .align %d .b%d %s[32] = {", bytes, bytes * 8,
			           name);
			for (uint32_t k = 0; k < 32; k++) {
				IrScalar v = k < cnt ? ir_const_at(i, lo + k) : v0;
				buf_printf(globals, "%s%s", k ? ", " : "", imm_text(p, e, v));
			}
			buf_puts(globals, "};\n");
		}
		const char *a = px_tmp(p, RC_B64), *o = px_tmp(p, RC_B64);
		px_ins(p, "mov.u64 %s, %s", a, name);
		px_ins(p, "mul.wide.u32 %s, %%lane, %d", o, bytes);
		px_ins(p, "add.u64 %s, %s, %s", a, a, o);
		px_ins(p, "ld.global.nc.b%d %s, [%s]", bytes * 8, d, a);
	}
}

static void emit_const(Px *p, Inst *i, Buf *globals)
{
	if (i->ty.n <= 1 || ir_const_is_splat(i)) {	/* in its own layout (want.c) */
		for (uint32_t s = 0; s < px_nregs(p, i); s++)
			mov_imm(p, i->ty.elem, px_own(p, i, s), ir_const_at(i, 0));
		return;
	}
	for (uint32_t s = 0; s < SLOTS(i->ty.n); s++)
		const_slot(p, i, s, globals);
}

/* ---- arguments -------------------------------------------------------------- */

static const char *param_name(Px *p, uint32_t k)
{
	return arena_printf(p->arena, "%s_p%u", p->f->name, k);
}

/* The .param type of a scalar argument. */
static const char *param_type(const IrParam *a)
{
	static const char *const t[E_COUNT_] = {
		[E_I1] = "u8", [E_I8] = "s8", [E_U8] = "u8", [E_I16] = "s16",
		[E_U16] = "u16", [E_I32] = "s32", [E_U32] = "u32", [E_I64] = "s64",
		[E_U64] = "u64", [E_F16] = "b16", [E_F32] = "f32", [E_F64] = "f64"};
	return t[a->ty.elem] ? t[a->ty.elem] : "u32";
}

static bool param_is_vector(const IrParam *a)
{
	return a->kind == CMK_ARG_VECTOR || a->ty.n > 1;
}

/* ---- per-thread arguments (-fthread-args, rt/cuda_abi.h) ---- */

/* The next "KERNEL:I,J" entry of a -fthread-args spec at *s: the name
 * (not NUL-terminated) and its index list; false at the end. */
static bool spec_next(const char **s, const char **name, size_t *nlen, const char **list,
                      size_t *llen)
{
	const char *p = *s;
	while (*p == ' ')
		p++;
	if (!*p)
		return false;
	size_t n = strcspn(p, " ");
	const char *colon = memchr(p, ':', n);
	*name = p;
	*nlen = colon ? (size_t)(colon - p) : n;
	*list = colon ? colon + 1 : p + n;
	*llen = colon ? n - *nlen - 1 : 0;
	*s = p + n;
	return true;
}

/* Whether argument k of kernel name is listed in the spec. */
static bool spec_lists(const char *spec, const char *name, uint32_t k)
{
	const char *nm, *list;
	size_t nlen, llen;
	while (spec && spec_next(&spec, &nm, &nlen, &list, &llen)) {
		if (nlen != strlen(name) || strncmp(nm, name, nlen))
			continue;
		for (const char *d = list, *end = list + llen; d < end; d++)
			if ((d == list || d[-1] == ',') && strtoul(d, NULL, 10) == k)
				return true;
	}
	return false;
}

static const Func *find_func(const Module *m, const char *name, size_t len)
{
	for (uint32_t k = 0; k < m->nfuncs; k++)
		if (strlen(m->funcs[k]->name) == len && !strncmp(m->funcs[k]->name, name, len))
			return m->funcs[k];
	return NULL;
}

/* One index of a spec entry: a by-value argument of f. */
static bool check_spec_index(const Func *f, const char *d, const char **end)
{
	char *e;
	unsigned long k = strtoul(d, &e, 10);
	*end = e;
	if (e == d || (*e && *e != ',' && *e != ' ')) {
		error_at((Loc){0}, "-fthread-args: bad argument index list for kernel '%s' "
		         "(expected KERNEL:I[,J...])", f->name);
		return false;
	}
	if (k >= f->nparams) {
		error_at((Loc){0}, "-fthread-args: kernel '%s' has %u arguments; index %lu is out "
		         "of range", f->name, f->nparams, k);
		return false;
	}
	uint32_t kind = f->params[k].kind;
	if (kind == CMK_ARG_SURFACE || kind == CMK_ARG_SAMPLER) {
		error_at((Loc){0}, "-fthread-args: argument %lu '%s' of kernel '%s' is not a value "
		         "(only scalars, vectors and svmptr_t take per-thread values)", k,
		         f->params[k].name, f->name);
		return false;
	}
	return true;
}

/* The spec must name kernels of the module and by-value arguments. */
static bool check_thread_args(const Module *m, const char *spec)
{
	const char *nm, *list;
	size_t nlen, llen;
	while (spec && spec_next(&spec, &nm, &nlen, &list, &llen)) {
		const Func *f = find_func(m, nm, nlen);
		if (!f || !llen) {
			error_at((Loc){0}, "-fthread-args: %s '%.*s' (expected KERNEL:I[,J...] naming "
			         "a kernel of the program)", f ? "no argument list for kernel" :
			         "no kernel named", (int)nlen, nm);
			return false;
		}
		for (const char *d = list, *e; d < list + llen; d = *e == ',' ? e + 1 : e)
			if (!check_spec_index(f, d, &e))
				return false;
	}
	return true;
}

/* Argument k is read per walker thread: its .param is then the address of
 * a table of values, and thread %linear reads its own entry. */
static bool per_thread(const Px *p, uint32_t k)
{
	return p->o->thread_args && spec_lists(p->o->thread_args, p->f->name, k);
}

/* ---- the parameter space (rt/cuda_abi.h "Kernel entry") ---- */

/* The end of f's parameters when its first n surface arguments carry
 * their CudaSurfaceParam: each .param at the next multiple of its
 * alignment, as the driver lays them out. */
static uint32_t param_end(const Func *f, const EmitOptions *o, uint32_t n)
{
	uint32_t at = CUDA_LP_BYTES;
	for (uint32_t k = 0, s = 0; k < f->nparams; k++) {
		const IrParam *a = &f->params[k];
		uint32_t size, align = 8;
		if (o->thread_args && spec_lists(o->thread_args, f->name, k))
			size = 8;
		else if (a->kind == CMK_ARG_SURFACE && s++ < n)
			size = CUDA_SP_BYTES;
		else if (param_is_vector(a))
			size = a->ty.n * (uint32_t)ir_elem_bytes[a->ty.elem];
		else
			size = align = (uint32_t)atoi(param_type(a) + 1) / 8;
		at = (at + align - 1) / align * align + size;
	}
	return at;
}

uint32_t px_param_surfaces(const Func *f, const EmitOptions *o)
{
	uint32_t all = 0, n = 0;
	for (uint32_t k = 0; k < f->nparams; k++)
		all += f->params[k].kind == CMK_ARG_SURFACE;
	while (n < all && param_end(f, o, n + 1) <= CUDA_PARAM_MAX)
		n++;
	return n;
}

/* Whether argument k is a surface whose descriptor is in its .param. */
bool px_surface_param(const Px *p, uint32_t k)
{
	if (p->f->params[k].kind != CMK_ARG_SURFACE)
		return false;
	uint32_t s = 0;
	for (uint32_t j = 0; j < k; j++)
		s += p->f->params[j].kind == CMK_ARG_SURFACE;
	return s < p->psurf;
}

static const char *param_decl(Px *p, const IrParam *a, uint32_t k)
{
	const char *n = param_name(p, k);
	if (per_thread(p, k))
		return arena_printf(p->arena, ".param .u64 %s", n);
	if (px_surface_param(p, k))
		return arena_printf(p->arena, ".param .align 8 .b8 %s[%d]", n, CUDA_SP_BYTES);
	if (param_is_vector(a))
		return arena_printf(p->arena, ".param .align 8 .b8 %s[%u]", n,
		                    a->ty.n * (uint32_t)ir_elem_bytes[a->ty.elem]);
	return arena_printf(p->arena, ".param .%s %s", param_type(a), n);
}

/* Lane l loads elements l, l + 32, ... of a vector at base (b64). */
static void load_vector(Px *p, Inst *i, const char *base)
{
	Elem e = i->ty.elem;
	int eb = ir_elem_bytes[e];
	const char *off = px_tmp(p, RC_B64);
	px_ins(p, "mul.wide.u32 %s, %%lane, %d", off, eb);
	px_ins(p, "add.u64 %s, %s, %s", base, base, off);
	for (uint32_t s = 0; s < SLOTS(i->ty.n); s++) {
		const char *d = px_reg(p, i, s);
		const char *q = px_lane_lt(p, i->ty.n - s * 32);
		const char *t = px_mem_ty(e);
		px_ins(p, "mov.%s %s, 0", px_bits(e), d);
		px_ins(p, "@%s ld.%s %s, [%s+%u]", q, t, d, base, s * 32 * eb);
	}
}

/* A per-thread argument: one load of the walker thread's own entry of the
 * table, table + %linear * size (a scalar), or its lanes' elements. */
static bool emit_thread_arg(Px *p, Inst *i, const IrParam *a, const char *n)
{
	uint32_t size = a->ty.n * (uint32_t)ir_elem_bytes[a->ty.elem];
	const char *tab = px_tmp(p, RC_B64);
	px_ins(p, "ld.param.u64 %s, [%s]", tab, n);
	px_ins(p, "mad.wide.u32 %s, %%linear, %u, %s", tab, size, tab);
	if (param_is_vector(a)) {
		load_vector(p, i, tab);
	} else if (i->ty.elem == E_I1) {
		const char *r = px_tmp(p, RC_B32);
		px_ins(p, "ld.global.nc.u8 %s, [%s]", r, tab);
		px_ins(p, "setp.ne.u32 %s, %s, 0", px_reg(p, i, 0), r);
	} else {
		px_ins(p, "ld.global.nc.%s %s, [%s]", param_type(a), px_reg(p, i, 0), tab);
	}
	return true;
}

static bool emit_arg(Px *p, Inst *i)
{
	uint32_t k = (uint32_t)i->imm;
	if (k >= p->f->nparams)
		return px_unsupported(p, i, "an argument index past the parameters");
	const IrParam *a = &p->f->params[k];
	Elem e = i->ty.elem;
	const char *n = param_name(p, k);
	if (per_thread(p, k))
		return emit_thread_arg(p, i, a, n);
	if (!param_is_vector(a)) {
		if (e == E_I1) {
			const char *r = px_tmp(p, RC_B32);
			px_ins(p, "ld.param.u8 %s, [%s]", r, n);
			px_ins(p, "setp.ne.u32 %s, %s, 0", px_reg(p, i, 0), r);
		} else {
			px_ins(p, "ld.param.%s %s, [%s]", param_type(a), px_reg(p, i, 0), n);
		}
		return true;
	}
	/* a vector argument: lane l loads elements l, l + 32, ... */
	const char *base = px_tmp(p, RC_B64);
	px_ins(p, "mov.b64 %s, %s", base, n);
	px_ins(p, "cvta.param.u64 %s, %s", base, base);
	load_vector(p, i, base);
	return true;
}

/* ---- blocks, phis, dispatch --------------------------------------------------- */

/* b's label, as a jump from the block being emitted reaches it (vloop.c:
 * a versioned loop's test, or its copy without checks). */
static const char *block_label(Px *p, const Block *b)
{
	return arena_printf(p->arena, "$L_%s_b%u%s", p->f->name, b->id, px_vloop_suffix(p, b));
}

static void copy_reg(Px *p, Elem e, const char *d, const char *s)
{
	px_ins(p, "mov.%s %s, %s", px_bits(e), d, s);
}

/* The copies of the edge from -> to for to's phis. */
static void edge_copies(Px *p, const Block *from, const Block *to)
{
	bool via_tmp = false;
	for (Inst *i = to->first; i && i->op == Ophi; i = i->next)
		for (uint32_t k = 0; k < i->nops; k++)
			if (i->phiblk[k] == from && i->ops[k]->op == Ophi && i->ops[k]->block == to)
				via_tmp = true;
	for (int pass = 0; pass < (via_tmp ? 2 : 1); pass++)
		for (Inst *i = to->first; i && i->op == Ophi; i = i->next)
			for (uint32_t k = 0; k < i->nops; k++) {
				if (i->phiblk[k] != from)
					continue;
				/* in the phi's own layout (assign.c) */
				const Layout *l = i->ty.n > 1 ? p->val[i->id].lay : NULL;
				for (uint32_t s = 0; s < px_nregs(p, i); s++) {
					const char *d = px_own(p, i, s);
					const char *tmp = arena_printf(p->arena, "%s%u_%u_x",
					                               rc_prefix[px_class(i->ty.elem)],
					                               i->id, i->ty.n > 1 ? s : 0);
					const char *src = px_reg_in(p, i->ops[k], l, s);
					if (!strcmp(d, src))
						continue;   /* the phi's host (phic.c) */
					if (p->val[i->ops[k]->id].wgregs)
						px_wgmma_settle(p);
					if (!via_tmp)
						copy_reg(p, i->ty.elem, d, src);
					else if (pass == 0)
						copy_reg(p, i->ty.elem, tmp, src);
					else
						copy_reg(p, i->ty.elem, d, tmp);
				}
				break;
			}
}

static bool has_phis(const Block *b)
{
	return b->first && b->first->op == Ophi;
}

static void emit_jump(Px *p, Block *b)
{
	switch (b->jmp.kind) {
	case J_BR:
		edge_copies(p, b, b->jmp.to[0]);
		px_ins(p, "bra.uni %s", block_label(p, b->jmp.to[0]));
		break;
	case J_CBR: {
		Block *t = b->jmp.to[0], *f = b->jmp.to[1];
		/* the condition is a CM scalar, the same in every lane: bra.uni
		 * tells ptxas the warp stays converged, so it adds no divergent
		 * fallback copy of the shuffles that follow.  Packed CM threads
		 * (pack.c) may diverge from each other: a plain bra unless the
		 * condition is the same in every segment */
		const char *c = px_reg(p, b->jmp.cond, 0);
		if (!has_phis(t)) {
			px_ins(p, "@%s bra%s %s", c, px_uni_cond(p, b->jmp.cond), block_label(p, t));
			edge_copies(p, b, f);
			px_ins(p, "bra.uni %s", block_label(p, f));
			break;
		}
		const char *l = px_label(p);
		px_ins(p, "@%s bra%s %s", c, px_uni_cond(p, b->jmp.cond), l);
		edge_copies(p, b, f);
		px_ins(p, "bra.uni %s", block_label(p, f));
		buf_printf(&p->body, "%s:\n", l);
		edge_copies(p, b, t);
		px_ins(p, "bra.uni %s", block_label(p, t));
		break;
	}
	case J_RET:
		px_ins(p, "bra.uni $L_%s_exit", p->f->name);
		break;
	default:
		die("block b%u has no terminator", b->id);
	}
}

static void emit_loc(Px *p, const Inst *i)
{
	if (!p->o->debug || !i->loc.line || i->loc.line == p->curline)
		return;
	p->curline = i->loc.line;
	buf_printf(&p->body, "\t.loc %u %u %u\n", i->loc.file, i->loc.line, i->loc.col);
}

static bool emit_inst(Px *p, Inst *i, Buf *globals)
{
	emit_loc(p, i);
	if (p->val[i->id].skip)
		return true;
	if (i->op == Owrregion && p->val[i->id].pair)
		return px_pair_load(p, i);
	if (i->op == Owrregion && p->val[i->id].wide)
		return px_wide_load(p, i);
	switch (i->op) {
	case Ophi:
		if (p->val[i->id].host)
			px_comment(p, "phi %%%u in the registers of %%%u", i->id,
			           p->val[i->id].host->id);
		return true;
	case Oconst: emit_const(p, i, globals); return true;
	case Oarg: return emit_arg(p, i);
	case Ordregion: case Owrregion: case Oiselect: return px_region(p, i);
	case Obitcast: return px_bitcast(p, i);
	case Odpas: return px_dpas(p, i);
	case Owgmma: return px_wgmma(p, i);
	case Oslmcopy: case Oslmcommit: case Oslmwait: return px_slm_copy(p, i);
	case Owgwait: return px_wgmma_wait(p, i);
	default: break;
	}
	if (ir_ops[i->op].flags & IRF_MEM)
		return px_mem(p, i);
	if ((i->op == Oadd || i->op == Omul) && px_global_id(p, i))
		return true;
	if (ir_ops[i->op].flags & IRF_ELEMWISE)
		return px_alu(p, i);
	return px_warp(p, i);
}

/* ---- kernels -------------------------------------------------------------------- */

/* Instruction i of the block being emitted, with what comes before and
 * after it: SLM stores and syncs, wgmma waits, layout copies. */
static bool emit_one(Px *p, Inst *i, Buf *globals)
{
	if (p->val[i->id].store_before)
		px_slm_store(p, p->val[i->id].store_before);
	px_slm_sync(p, i);
	if (i->op != Owgmma && i->op != Ophi && px_wgmma_reads(p, i))
		px_wgmma_settle(p);
	bool ok = emit_inst(p, i, globals);
	px_wgmma_after(p, i);
	if (ok && !p->val[i->id].skip)
		px_emit_copies(p, i);
	arena_reset(p->tmp);
	return ok;
}

/* The span of a group of media accesses that stores (mgroup.c
 * px_mgroup_span), leader to last member: one test of the group's box,
 * one branch, then every instruction of the span with each member's fast
 * access, or, out of line, every instruction again with each member's
 * exact access.  Each member branching on the test to an exact path of
 * its own (mem.c media) interleaves the exact paths with the fast ones
 * (ptxas lays each out beside its access): hgemm_wgs2's epilogue, 64
 * reads and 64 writes of 8 x 8 tiles, was 6,500 SASS of which the warps
 * ran 1,000, and they stalled on instruction fetch (ncu, bench/runs/
 * 2026-11-28-session24/call3).  The span's instructions keep no emission
 * state (px_mgroup_span), so both copies emit the same; a wgmma wait they
 * need comes before the branch.  *last: the span's last instruction. */
static bool emit_range(Px *p, Inst *first, const Inst *last, Buf *globals)
{
	bool ok = true;
	for (Inst *j = first; ok; j = j->next) {
		ok = emit_one(p, j, globals);
		if (j == last)
			break;
	}
	return ok;
}

static bool emit_span(Px *p, Inst *leader, Buf *globals, Inst **last)
{
	PxMGroup *g = p->val[leader->id].mg;
	*last = g->m[g->n - 1];
	for (Inst *j = leader;; j = j->next) {
		if (px_wgmma_reads(p, j))
			px_wgmma_settle(p);
		if (j == *last)
			break;
	}
	const char *in = px_media_span_test(p, leader), *exact = px_label(p);
	const char *done = px_label(p);
	px_ins(p, "@!%s bra%s %s", in, px_uni(p), exact);
	g->span_fast = true;
	bool ok = emit_range(p, leader, *last, globals);
	buf_printf(&p->body, "%s:\n", done);
	px_cold_begin(p, exact);
	g->span_fast = false;
	p->quiet = true;
	ok = ok && emit_range(p, leader, *last, globals);
	p->quiet = false;
	px_cold_end(p, done);
	return ok;
}

static bool emit_block(Px *p, Block *bl, Buf *globals)
{
	p->blk = bl;
	buf_printf(&p->body, "%s:\n", block_label(p, bl));
	p->slm_pending = p->slm_in[bl->id];
	px_wgmma_block(p, bl);
	px_emit_sunk_copies(p, bl);
	bool ok = true;
	for (Inst *i = bl->first; i && ok; i = i->next) {
		bool media = i->op == Omload || i->op == Omstore;
		const PxVal *v = &p->val[i->id];
		if (media && v->mlead == i && v->mg && px_mgroup_span(p, i))
			ok = emit_span(p, i, globals, &i);
		else
			ok = emit_one(p, i, globals);
	}
	if (ok)
		emit_jump(p, bl);
	return ok;
}

/* Forgets the scratch base registers of SLM copies stored in loop L. */
static void forget_scratch(Px *p, const struct PxLoop *L)
{
	for (uint32_t b = 0; b < p->f->nblocks; b++)
		if (px_vloop_has(L, p->f->blocks[b]))
			for (Inst *i = p->f->blocks[b]->first; i; i = i->next)
				p->val[i->id].scr = NULL;
}

/* The copy of versioned loop L without the checks its test covers
 * (vloop.c).  Its blocks load what they use afresh: slm.c's groups of
 * loads (by block) and the scratch base of copies stored in the loop must
 * not come from the other copy, which may not have run. */
static bool emit_unchecked_copy(Px *p, const struct PxLoop *L, Buf *globals)
{
	Func *f = p->f;
	p->vcopy = L;
	p->groups = NULL;
	p->rgroups = NULL;
	forget_scratch(p, L);
	bool ok = true;
	for (uint32_t b = 0; b < f->nblocks && ok; b++)
		if (px_vloop_has(L, f->blocks[b]))
			ok = emit_block(p, f->blocks[b], globals);
	p->vcopy = NULL;
	forget_scratch(p, L);   /* what follows computes its own */
	return ok;
}

/* Appends ".reg" lines for every value and temporary of the kernel. */
static void declare_regs(Px *p, Buf *out)
{
	for (uint32_t b = 0; b < p->f->nblocks; b++)
		for (Inst *i = p->f->blocks[b]->first; i; i = i->next) {
			if (i->ty.elem == E_VOID)
				continue;
			RegClass c = px_class(i->ty.elem);
			buf_printf(out, "\t.reg %s %s%u_<%u>;\n", rc_decl[c], rc_prefix[c],
			           i->id, px_nregs(p, i));
			const PxVal *pv = i->ty.n > 1 ? &p->val[i->id] : NULL;
			for (uint32_t k = 0; pv && k < pv->ncopies; k++)
				buf_printf(out, "\t.reg %s %s%uc%u_<%u>;\n", rc_decl[c], rc_prefix[c],
				           i->id, k, pv->copy[k]->nregs);
			if (i->op == Ophi)
				for (uint32_t s = 0; s < px_nregs(p, i); s++)
					buf_printf(out, "\t.reg %s %s%u_%u_x;\n", rc_decl[c],
					           rc_prefix[c], i->id, s);
		}
	for (int c = 0; c < RC_COUNT_; c++)
		if (p->ntmp[c])
			buf_printf(out, "\t.reg %s %st<%u>;\n", rc_decl[c], rc_prefix[c], p->ntmp[c]);
	for (int c = 0; c < RC_COUNT_; c++)
		if (p->nalt[c])   /* variant.c */
			buf_printf(out, "\t.reg %s %su<%u>;\n", rc_decl[c], rc_prefix[c], p->nalt[c]);
}

void px_prologue(Px *p);
void px_epilogue(Px *p);

/* Inserts s at byte at of b, in place. */
static void buf_insert(Buf *b, size_t at, const Buf *s)
{
	if (!s->len)
		return;
	buf_reserve(b, s->len);
	memmove(b->data + at + s->len, b->data + at, b->len - at);
	memcpy(b->data + at, s->data, s->len);
	b->len += s->len;
	b->data[b->len] = 0;
}

/* The alignment of a kernel's SLM: 1024 bytes with cm_wgmma, whose
 * swizzled operands (ir.h Owgmma) are laid out by their SLM offsets'
 * place in 1024-byte blocks, as the hardware swizzles the addresses. */
static unsigned slm_align(const Func *f)
{
	return px_uses_wgmma(f) ? 1024 : 16;
}

/* One kernel: its .entry appended to out, module-scope data into globals,
 * its printf metadata lines into pfmeta (npf numbers the module's printfs).
 * The body is written at the end of out itself (Px.body is out's buffer
 * until the end), and the declarations, which depend on it, are inserted
 * before it: a large kernel's text is not copied. */
static bool emit_kernel(Func *f, const EmitOptions *o, Buf *out, Buf *globals,
                        uint32_t *nshfl, uint32_t *scratch, uint32_t *lanes, uint32_t *narrow,
                        Buf *pfmeta, uint32_t *npf)
{
	size_t start = out->len;
	Px px = {.f = f, .o = o, .arena = arena_new(), .globals = globals, .pfmeta = pfmeta,
	         .npf = npf, .body = *out};
	px.tmp = arena_child(px.arena);
	*out = (Buf){0};
	Px *p = &px;
	p->wgmma = px_uses_wgmma(f);
	px_if_convert(p);
	px_unroll(p);
	px_merge_gathers(p);
	ir_renumber(f);
	ir_preds(f);
	p->depth = px_loop_depths(p, f);
	px_assign(p);
	px_pack_decide(p);
	px_pack_converge(p);
	px_ranges(p);
	px_slm_proven(p);
	px_block_groups(p);
	px_media_groups(p);
	px_block_pairs(p);
	px_dpas_pairs(p);
	px_wgmma_groups(p);
	px_ldsm_pairs(p);
	px_slm_vectorize(p);
	px_slm_order(p);
	px_vloops(p);
	px_coalesce_phis(p);
	ir_count_uses(f);   /* aggregate.c: atomics whose old value goes unused */
	px_fadd_init(p);
	p->psurf = px_param_surfaces(f, o);
	px_prologue(p);
	size_t entry_at = p->body.len;   /* blimit.c's values go here */
	bool ok = true;
	for (uint32_t b = 0; b < f->nblocks && ok; b++) {
		Block *bl = f->blocks[b];
		p->blk = NULL;
		px_vloop_entry(p, bl);
		ok = emit_block(p, bl, globals);
		const struct PxLoop *L = px_vloop_ending(p, bl);
		if (ok && L)
			ok = emit_unchecked_copy(p, L, globals);
	}
	p->blk = NULL;
	buf_printf(&p->body, "$L_%s_exit:\n", f->name);
	px_epilogue(p);
	put_buf(&p->body, &p->cold);
	buf_free(&p->cold);
	buf_insert(&p->body, entry_at, &p->entry);   /* blimit.c's values, after the prologue */
	buf_free(&p->entry);
	Buf h = {0};
	buf_printf(&h, "// %s\n", p->pack_note);
	buf_printf(&h, ".visible .entry %s(\n\t.param .align 8 .b8 %s_launch[%d]", f->name,
	           f->name, CUDA_LP_BYTES);
	for (uint32_t k = 0; k < f->nparams; k++)
		buf_printf(&h, ",\n\t%s", param_decl(p, &f->params[k], k));
	buf_puts(&h, ")\n{\n");
	buf_puts(&h, "\t.reg .b32 %lane, %linear, %kind;\n\t.reg .b64 %launch;\n");
	buf_puts(&h, "\t.reg .pred %walk;\n");
	px_pack_decls(p, &h);
	for (uint32_t k = 0; k < f->nparams; k++)
		if (f->params[k].kind == CMK_ARG_SURFACE)
			buf_printf(&h, "\t.reg .b64 %%sb%u, %%ss%u;\n\t.reg .b32 %%sw%u, %%sh%u, "
			           "%%sp%u, %%sx%u;\n", k, k, k, k, k, k);
	declare_regs(p, &h);
	px_cluster_decls(p, &h);
	if (f->slm_size && !px_slm_dynamic(f))   /* else the module's head's */
		buf_printf(&h, "\t.shared .align %u .b8 %s_slm[%u];\n", slm_align(f), f->name,
		           f->slm_size);
	*nshfl = p->nshfl;
	*scratch = p->scratch;
	*lanes = p->lanes;
	arena_free(p->arena);
	buf_insert(&p->body, start, &h);
	buf_free(&h);
	buf_puts(&p->body, "}\n");
	*narrow = p->narrow_eb && px_variant_split(&p->body, start, f->name) ? p->narrow_eb : 0;
	*out = p->body;
	return ok;
}

/* The architectures the back end emits for, each with the oldest PTX ISA
 * version that has it (ptxas refuses an older .version). */
static const struct {
	const char *name, *isa;
} marchs[] = {
	{"sm_80", "8.0"}, {"sm_86", "8.0"}, {"sm_87", "8.0"}, {"sm_89", "8.0"},
	{"sm_90", "8.0"}, {"sm_90a", "8.0"}, {"sm_100", "8.6"}, {"sm_100a", "8.6"},
	{"sm_100f", "8.8"}, {"sm_103", "8.8"}, {"sm_103a", "8.8"}, {"sm_103f", "8.8"},
	{"sm_110", "9.0"}, {"sm_110a", "9.0"}, {"sm_110f", "9.0"}, {"sm_120", "8.7"},
	{"sm_120a", "8.7"}, {"sm_120f", "8.8"}, {"sm_121", "8.8"}, {"sm_121a", "8.8"},
	{"sm_121f", "8.8"},
};

const char *ptx_march_for(int major, int minor)
{
	int cc = major * 10 + minor, best = 0;
	for (size_t k = 0; k < sizeof marchs / sizeof marchs[0]; k++) {
		const char *n = marchs[k].name;
		int v = atoi(n + 3);
		bool plain = n[strspn(n + 3, "0123456789") + 3] == '\0';   /* no a/f suffix */
		if (plain && v <= cc && v > atoi(marchs[best].name + 3))
			best = (int)k;
	}
	return marchs[best].name;
}

/* The entry of -march m (default sm_90), or an error and -1. */
static int check_march(const char *m)
{
	if (!m)
		m = "sm_90";
	for (size_t k = 0; k < sizeof marchs / sizeof marchs[0]; k++)
		if (!strcmp(marchs[k].name, m))
			return (int)k;
	error_at((Loc){0}, "unknown PTX architecture '%s' (use one of sm_80, sm_86, sm_87, "
	         "sm_89, sm_90[a], sm_100[a|f], sm_103[a|f], sm_110[a|f], sm_120[a|f], "
	         "sm_121[a|f])", m);
	return -1;
}

static void metadata(const Func *f, const EmitOptions *o, uint32_t nshfl, uint32_t scratch,
                     uint32_t lanes, uint32_t narrow, bool wgmma, const Buf *pfmeta,
                     Buf *out)
{
	buf_printf(out, "//@cmetal kernel %s slm %u barrier %d wait %d simd %u shuffles %u",
	           f->name, f->slm_size, f->uses_barrier, f->uses_wait, f->simd_width, nshfl);
	if (scratch)
		buf_printf(out, " scratch %u", scratch);
	if (px_slm_dynamic(f))
		buf_printf(out, " dynamic_slm 1");   /* rt/cuda_abi.h */
	if (wgmma)
		buf_printf(out, " wgmma 1");         /* groups of whole warpgroups */
	if (lanes && lanes < 32)
		buf_printf(out, " lanes %u", lanes);   /* pack.c */
	if (o->bounds_check)
		buf_printf(out, " checks 1");   /* reports faults: a task waits for it */
	if (px_splittable(f, o))
		buf_printf(out, " split 1");    /* groups may run as several CTAs */
	if (narrow)
		buf_printf(out, " narrow %u", narrow);   /* variant.c: NAME$narrow */
	for (uint32_t k = 0, n = 0; o->thread_args && k < f->nparams; k++)
		if (spec_lists(o->thread_args, f->name, k))
			buf_printf(out, n++ ? ",%u" : " thread_args %u", k);
	uint32_t nsurf = 0, psurf = px_param_surfaces(f, o);
	for (uint32_t k = 0; k < f->nparams; k++)
		nsurf += f->params[k].kind == CMK_ARG_SURFACE;
	if (psurf < nsurf)
		buf_printf(out, " param_surfaces %u", psurf);   /* rt/cuda_abi.h */
	buf_putc(out, '\n');
	for (uint32_t k = 0; k < f->nparams; k++) {
		const IrParam *a = &f->params[k];
		buf_printf(out, "//@cmetal arg %s %u %u %u %u \"%s\"\n", a->name, a->kind,
		           a->ty.n * (uint32_t)ir_elem_bytes[a->ty.elem],
		           ir_elem_to_cmk(a->ty.elem), a->surf, a->type_attr ? a->type_attr : "");
	}
	put_buf(out, pfmeta);
}

/* A wide value of a kernel, kept for the notes on a spill (ptxas reports
 * once every kernel is emitted and its IR released). */
typedef struct {
	Loc loc;
	IrType ty;
	uint32_t id, regs;    /* regs: registers per lane; 0: none */
	Op op;
} Wide;

/* The three widest values of f (registers per lane), the likely reasons
 * for a spill. */
static void find_widest(const Func *f, Wide top[3])
{
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (const Inst *i = f->blocks[b]->first; i; i = i->next) {
			if (i->ty.elem == E_VOID || i->ty.n <= 32)
				continue;
			uint32_t r = SLOTS(i->ty.n) * (ir_elem_bytes[i->ty.elem] == 8 ? 2 : 1);
			for (int k = 0; k < 3; k++)
				if (r > top[k].regs) {
					for (int m = 2; m > k; m--)
						top[m] = top[m - 1];
					top[k] = (Wide){.loc = i->loc, .ty = i->ty, .id = i->id, .regs = r,
					                .op = i->op};
					break;
				}
		}
}

static void note_widest(const Wide top[3])
{
	for (int k = 0; k < 3 && top[k].regs; k++) {
		char t[16];
		note_at(top[k].loc, "a %s value (%%%u, '%s') takes %u registers per lane",
		        ir_type_str(top[k].ty, t), top[k].id, ir_ops[top[k].op].name, top[k].regs);
	}
}

/* The header comment of a kernel, from ptxas when we have its report. */
static void kernel_header(const Func *f, uint32_t nshfl, const Wide widest[3],
                          const PtxasInfo *info, int ninfo, Buf *out)
{
	buf_printf(out, "// kernel %s: %u static shuffles, slm %u bytes\n", f->name, nshfl,
	           f->slm_size);
	if (ninfo < 0) {
		buf_puts(out, ninfo == -2 ? "// ptxas not run (CMETAL_NO_PTXAS): registers unknown\n"
		         : "// ptxas not found: registers unknown\n");
		return;
	}
	for (int k = 0; k < ninfo; k++) {
		if (info[k].kernel != f->name)
			continue;
		buf_printf(out, "// ptxas: %d registers per lane, %d bytes shared, %d bytes local, "
		           "%d bytes spill stores, %d bytes spill loads\n", info[k].regs,
		           info[k].shared, info[k].local, info[k].spill_stores, info[k].spill_loads);
		if (info[k].spill_stores > 0 || info[k].spill_loads > 0) {
			warn_at(f->loc, "kernel '%s' spills registers (%d bytes stored, %d loaded): "
			        "its live vectors exceed the warp register file", f->name,
			        info[k].spill_stores, info[k].spill_loads);
			note_widest(widest);
		}
		return;
	}
	buf_puts(out, "// ptxas: no report for this kernel\n");
}

/* What the module keeps of each kernel until its text is put together:
 * the head (.target, module-scope data) goes before the kernels and
 * depends on all of them.  The kernels' .entry texts go straight into out,
 * one after the other; ptx_put_together then moves them apart to make
 * room for what goes before and between them, so that the PTX is in
 * memory once (ptxas's copy aside). */
typedef struct {
	Func *f;
	size_t at, len;       /* its .entry: out->data[at, at + len) */
	Buf pfmeta;           /* its printf metadata lines */
	uint32_t nshfl, scratch, lanes, narrow;   /* narrow: "narrow E" (variant.c) */
	bool wgmma;           /* it has cm_wgmma (metadata "wgmma 1") */
	Wide widest[3];
} PxKernel;

typedef struct {
	Module *m;
	const EmitOptions *o;
	Buf *out;
	size_t base;          /* out's length before the module */
	int arch;
	Buf globals;
	VEC(PxKernel) kern;
	uint32_t npf;         /* the module's printfs so far */
} PxModule;

static void *ptx_begin(Module *m, const EmitOptions *o, Buf *out)
{
	int arch = check_march(o->march);
	if (arch < 0 || !px_cluster_check(o, marchs[arch].name))
		return NULL;
	PxModule *x = xcalloc(1, sizeof *x);
	*x = (PxModule){.m = m, .o = o, .out = out, .base = out->len, .arch = arch};
	return x;
}

/* The spec's entries that name f must list by-value arguments of f (the
 * names are checked once every kernel is known, by check_thread_args). */
static bool check_own_thread_args(const Func *f, const char *spec)
{
	const char *nm, *list;
	size_t nlen, llen;
	while (spec && spec_next(&spec, &nm, &nlen, &list, &llen)) {
		if (nlen != strlen(f->name) || strncmp(nm, f->name, nlen))
			continue;
		for (const char *d = list, *e; d < list + llen; d = *e == ',' ? e + 1 : e)
			if (!check_spec_index(f, d, &e))
				return false;
	}
	return true;
}

/* cm_wgmma is Hopper's wgmma (sm_90a only): a module for sm_90 that has
 * one targets sm_90a (what an sm_90 GPU runs, as sm_90); any other
 * architecture, or groups as clusters (whose SLM is another CTA's, out of
 * the wgmma's reach), is an error. */
static bool wgmma_target(PxModule *x, const Func *f)
{
	Loc at = {0};
	for (uint32_t b = 0; b < f->nblocks && !at.line; b++)
		for (const Inst *i = f->blocks[b]->first; i && !at.line; i = i->next)
			if (i->op == Owgmma)
				at = i->loc;
	const char *m = marchs[x->arch].name;
	if (x->o->cluster_slm) {
		error_at(at, "cm_wgmma cannot run in groups of more than 32 CM threads (a cluster: "
		         "-fcluster-slm), whose SLM is another CTA's");
		return false;
	}
	if (strcmp(m, "sm_90") && strcmp(m, "sm_90a")) {
		error_at(at, "cm_wgmma needs an sm_90 GPU (Hopper: wgmma, PTX target sm_90a); this "
		         "build targets %s", m);
		return false;
	}
	x->arch = check_march("sm_90a");
	return true;
}

/* cm_slm_copy_async's cp.async writes the CTA's own shared memory: groups
 * as clusters (-fcluster-slm), whose SLM is the first CTA's, are an error
 * (every architecture cmetal targets, sm_80 and newer, has cp.async). */
static bool slm_copy_target(const PxModule *x, const Func *f)
{
	if (!x->o->cluster_slm)
		return true;
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (const Inst *i = f->blocks[b]->first; i; i = i->next)
			if (i->op == Oslmcopy) {
				error_at(i->loc, "cm_slm_copy_async cannot run in groups of more than 32 "
				         "CM threads (a cluster: -fcluster-slm), whose SLM is another CTA's");
				return false;
			}
	return true;
}

static bool ptx_kernel(void *st, Func *f)
{
	PxModule *x = st;
	if (!check_own_thread_args(f, x->o->thread_args))
		return false;
	bool wg = px_uses_wgmma(f);
	if ((wg && !wgmma_target(x, f)) || !slm_copy_target(x, f))
		return false;
	vec_push(&x->kern, ((PxKernel){.f = f, .at = x->out->len}));
	PxKernel *k = &vec_last(&x->kern);
	k->wgmma = wg;
	find_widest(f, k->widest);
	bool ok = emit_kernel(f, x->o, x->out, &x->globals, &k->nshfl, &k->scratch, &k->lanes,
	                      &k->narrow, &k->pfmeta, &x->npf);
	k->len = x->out->len - k->at;
	return ok;
}

/* Puts pre before the kernels' texts in out and each kernel's header
 * (hdrs, from hdr_at[k]) before its text: the texts move apart, the last
 * one first, into out grown to its final length. */
static void splice(PxModule *x, const Buf *pre, const Buf *hdrs, const size_t *hdr_at)
{
	Buf *out = x->out;
	size_t texts = out->len - x->base, add = pre->len + hdrs->len;
	buf_reserve(out, add);
	char *d = out->data + x->base;
	for (int k = x->kern.len - 1; k >= 0; k--) {
		const PxKernel *kk = &x->kern.data[k];
		size_t hlen = (k + 1 < x->kern.len ? hdr_at[k + 1] : hdrs->len) - hdr_at[k];
		size_t to = pre->len + hdr_at[k] + hlen + (kk->at - x->base);
		memmove(d + to, out->data + kk->at, kk->len);
		memcpy(d + to - hlen, hdrs->data + hdr_at[k], hlen);
	}
	if (pre->len)
		memcpy(d, pre->data, pre->len);
	out->len = x->base + texts + add;
	out->data[out->len] = 0;
}

/* The module's text: metadata, head, then each kernel, into out. */
static bool ptx_put_together(PxModule *x)
{
	const char *march = marchs[x->arch].name;
	Buf head = {0}, *out = x->out;
	buf_printf(&head, ".version %s\n.target %s\n.address_size 64\n\n",
	           marchs[x->arch].isa, march);
	for (int k = 0; k < x->kern.len; k++)
		if (x->kern.data[k].scratch) {   /* slm.c; sized at launch (rt/cuda_abi.h) */
			buf_puts(&head, ".extern .shared .align 16 .b8 cmetal_scratch[];\n");
			break;
		}
	for (int k = 0; k < x->kern.len; k++)   /* SLM over 48 KB: dynamic, at byte 0 */
		if (px_slm_dynamic(x->kern.data[k].f))
			buf_printf(&head, ".extern .shared .align %u .b8 %s_slm[];\n",
			           slm_align(x->kern.data[k].f), x->kern.data[k].f->name);
	if (x->o->debug)
		for (uint32_t fi = 1; src_get(fi); fi++)
			buf_printf(&head, ".file %u \"%s\"\n", fi, src_get(fi)->name);
	put_buf(&head, &x->globals);
	/* ptxas sees the same text the user gets, less the comments: a second
	 * copy, while it runs */
	Buf err = {0};
	PtxasInfo info[64];
	int ninfo = -2;
	bool ok = true;
	if (!getenv("CMETAL_NO_PTXAS")) {
		Buf all = {0};
		put_buf(&all, &head);
		buf_putn(&all, out->data + x->base, out->len - x->base);
		ninfo = ptxas_report(buf_cstr(&all), march, info, 64, &err);
		buf_free(&all);
	}
	Buf pre = {0}, hdrs = {0};
	buf_printf(&pre, "//@cmetal abi %d\n", CUDA_ABI_VERSION);
	if (x->o->cluster_slm)
		buf_puts(&pre, "//@cmetal cluster 1\n");
	size_t *hdr_at = xmalloc(sizeof(size_t) * (size_t)(x->kern.len + 1));
	for (int k = 0; k < x->kern.len; k++) {
		PxKernel *kk = &x->kern.data[k];
		metadata(kk->f, x->o, kk->nshfl, kk->scratch, kk->lanes, kk->narrow, kk->wgmma,
		         &kk->pfmeta, &pre);
		hdr_at[k] = hdrs.len;
		buf_putc(&hdrs, '\n');
		kernel_header(kk->f, kk->nshfl, kk->widest, info, ninfo, &hdrs);
	}
	buf_puts(&pre, "// generated by cmetal\n");
	put_buf(&pre, &head);
	splice(x, &pre, &hdrs, hdr_at);
	free(hdr_at);
	buf_free(&pre);
	buf_free(&hdrs);
	if (ninfo == 0 && err.len) {
		error_at((Loc){0}, "ptxas rejected the generated PTX (a compiler bug):\n%s",
		         buf_cstr(&err));
		ok = false;
	}
	buf_free(&err);
	buf_free(&head);
	return ok;
}

static bool ptx_end(void *st, bool ok)
{
	PxModule *x = st;
	ok = ok && check_thread_args(x->m, x->o->thread_args) && ptx_put_together(x);
	if (!ok && x->out->len > x->base) {   /* no partial module */
		x->out->len = x->base;
		x->out->data[x->base] = 0;
	}
	for (int k = 0; k < x->kern.len; k++)
		buf_free(&x->kern.data[k].pfmeta);
	vec_free(&x->kern);
	buf_free(&x->globals);
	free(x);
	return ok;
}

const Target T_ptx = {.name = "ptx", .begin = ptx_begin, .kernel = ptx_kernel, .end = ptx_end};
