/* mem.c — C for CMIR's memory instructions, synchronisation, thread ids
 * and printf, with CM's semantics against the runtime's CmkSurface
 * geometry (cmk_abi.h):
 *   1D accesses (block, scattered, 4-channel, atomics) out of bounds read
 *   0 and their writes are dropped; 2D media block reads clamp to the edge
 *   pixel and writes outside the surface are dropped; SLM is bounds-checked
 *   against t->slm_size; SVM addresses are raw pointers (the checking mode
 *   tests them against the live allocations the runtime lists in t->svm).
 * Every access is made safe; with EmitOptions.bounds_check the kernel also
 * reports the first out-of-range access through t->svc->fault.  Masked
 * lanes neither read nor write (their results are 0). */
#include <string.h>

#include "target/c/c.h"

#define STR(...) arena_printf(g->tmp, __VA_ARGS__)

static int chk(CGen *g) { return g->o->bounds_check ? 1 : 0; }

/* Opens the block of one access to base (in space sp) with m, its memory.
 * A surface that is a kernel argument was looked up once, at the argument
 * (c_surface_arg): looking it up at every access reloads t->surfaces, as
 * every store through m may alias the table, and keeps a branch in each
 * loop. */
static void mem_open(CGen *g, IrSpace sp, const Inst *base)
{
	static const char *const fn[] = {"", "cmk_surf(t, ", "cmk_svm(", "cmk_slm(t, "};
	if (sp == SP_SURF && c_surface_arg(g, base)) {
		buf_printf(g->out, "\t{\n\t\tCmkMem m = s%u;\n", base->id);
		return;
	}
	/* the checking mode tests SVM addresses against the live allocations */
	const char *f = sp == SP_SVM && chk(g) ? "cmk_svmc(t, " : fn[sp];
	buf_printf(g->out, "\t{\n\t\tCmkMem m = %s(uint64_t)", f);
	c_name(g, base);
	buf_puts(g->out, ");\n");
}

static void mem_base(CGen *g, const Inst *i, const Inst *base)
{
	mem_open(g, (IrSpace)i->space, base);
}

/* &v for a scalar, v for an array. */
static void addr_of(CGen *g, const Inst *v)
{
	if (v->ty.n == 1)
		buf_putc(g->out, '&');
	c_name(g, v);
}

static bool block_op(CGen *g, const Inst *i)
{
	bool load = i->op == Obload;
	const Inst *v = load ? i : i->ops[2];
	mem_base(g, i, i->ops[0]);
	if (load && g->direct[i->id]) {   /* direct.c: the bytes, or d<id> */
		buf_puts(g->out, "\t\t");
		c_name(g, i);
		buf_printf(g->out, " = (%s *)cmk_bload_at(t, m, (uint64_t)(int64_t)",
		           c_type(i->ty.elem));
		c_name(g, i->ops[1]);
		buf_printf(g->out, ", d%u", i->id);
	} else {
		buf_printf(g->out, "\t\tcmk_b%s(t, m, (uint64_t)(int64_t)", load ? "load" : "store");
		c_name(g, i->ops[1]);
		buf_puts(g->out, ", ");
		addr_of(g, v);
	}
	buf_printf(g->out, ", %u, %d, %d, %d);\n\t}\n", ir_elem_bytes[v->ty.elem] * v->ty.n,
	           ir_elem_bytes[v->ty.elem], chk(g), g->line);
	return true;
}

static bool media_op(CGen *g, const Inst *i)
{
	bool load = i->op == Omload;
	const Inst *v = load ? i : i->ops[3];
	uint32_t cols = i->imm > 0 ? (uint32_t)i->imm : v->ty.n;
	if (v->ty.n % cols) {
		error_at(i->loc, "media block of %u elements is not a whole number of %u-element rows",
		         v->ty.n, cols);
		return false;
	}
	buf_printf(g->out, "\tcmk_m%s(t, (uint64_t)", load ? "load" : "store");
	c_name(g, i->ops[0]);
	buf_puts(g->out, ", (int32_t)");
	c_name(g, i->ops[1]);
	buf_puts(g->out, ", (int32_t)");
	c_name(g, i->ops[2]);
	buf_puts(g->out, ", ");
	addr_of(g, v);
	buf_printf(g->out, ", %u, %u, %d, %d);\n", cols * ir_elem_bytes[v->ty.elem], v->ty.n / cols,
	           chk(g), g->line);
	return true;
}

/* Oslmcopy: cmk_slm_copy (prelude.c) copies at once; commit and wait
 * have nothing left to do. */
static bool slm_copy_op(CGen *g, const Inst *i)
{
	mem_open(g, SP_SURF, i->ops[0]);
	buf_puts(g->out, "\t\tcmk_slm_copy(t, m, ");
	c_name(g, i->ops[1]);
	buf_puts(g->out, ", ");
	addr_of(g, i->ops[2]);
	buf_printf(g->out, ", %u, %u, %d, %d);\n\t}\n", i->ops[2]->ty.n, (uint32_t)i->imm, chk(g),
	           g->line);
	return true;
}

/* Whether the access adds 32-bit offsets, as u32 (lane_addr). */
static bool narrow_offsets(const Inst *i)
{
	return ir_elem_bytes[i->ops[1]->ty.elem] <= 4 && ir_elem_bytes[i->ops[2]->ty.elem] <= 4;
}

/* `(goff + offs[k])`, each cast to its width (narrow_offsets).  With
 * `first`, the offsets are the constants first + k (consecutive) and are
 * written so: their array is then not read, and cc drops the copy of the
 * constant into it (two 32-byte stores a 16-wide access, in every loop
 * trip). */
static void lane_sum(CGen *g, const Inst *i, const int64_t *first)
{
	const char *cast = narrow_offsets(i) ? "(uint32_t)" : "(uint64_t)(int64_t)";
	buf_printf(g->out, "(%s", cast);
	c_lv(g, i->ops[1], "0");
	buf_printf(g->out, " + %s", cast);
	if (first)
		buf_printf(g->out, "(%lldLL + k)", (long long)*first);
	else
		c_lv(g, i->ops[2], "k");
	buf_putc(g->out, ')');
}

/* The bytes one offset unit stands for: 1 for byte offsets, else esize. */
static uint32_t offset_scale(const Inst *i, uint32_t esize)
{
	return i->bytes ? 1 : esize;
}

/* `uint64_t a = (goff + offs[k]) * scale;` inside a lane loop over offs;
 * `first` as for lane_sum. */
static void lane_addr_at(CGen *g, const Inst *i, uint32_t esize, const int64_t *first)
{
	/* 32-bit offsets add as u32, wrapping as the GPU's (and a message's
	 * address) do: global offset 0xfffffff8 plus element offset 10 is
	 * element 2; 64-bit ones add exactly */
	bool narrow = narrow_offsets(i);
	buf_printf(g->out, "\t\t\tuint64_t a = (uint64_t)%s", narrow ? "(uint32_t)" : "");
	lane_sum(g, i, first);
	buf_printf(g->out, " * %u;\n", offset_scale(i, esize));
}

static void lane_addr(CGen *g, const Inst *i, uint32_t esize)
{
	lane_addr_at(g, i, esize, NULL);
}

static void lane_loop(CGen *g, const Inst *i, uint32_t n)
{
	const Inst *m = ir_mask(i);
	buf_printf(g->out, "\t\tfor (int k = 0; k < %u; k++) {\n", n);
	if (m) {
		buf_puts(g->out, "\t\t\tif (!");
		c_lv(g, m, "k");
		buf_puts(g->out, ") continue;\n");
	}
}

/* `uint64_t hi` = the highest lane address (of the enabled lanes), so one
 * cmk_in check covers the whole access (addresses are unsigned: a negative
 * offset is huge and fails it).  With `al`, also `uint64_t al` = the base
 * pointer or'ed with every lane address (an alignment test).  Without,
 * 32-bit offsets take the highest u32 offset sum, scaled once: one 32-bit
 * max a lane where the 64-bit addresses took a widening, a multiply and a
 * 64-bit max (spmv_rows protein/16, 16-wide x gathers, one CPU thread:
 * 0.296 -> 0.288 ms on a quiet host, 0.55 -> 0.475 on a busy one,
 * 2026-11-28). */
static void lanes_hi(CGen *g, const Inst *i, uint32_t n, uint32_t esize, bool al)
{
	const Inst *m = ir_mask(i);
	bool narrow = narrow_offsets(i) && !al;
	const char *h = narrow ? "hi32" : "hi";
	buf_printf(g->out, "\t\t%s %s = 0;\n", narrow ? "uint32_t" : "uint64_t", h);
	if (al)
		buf_puts(g->out, "\t\tuint64_t al = (uintptr_t)m.p;\n");
	buf_printf(g->out, "\t\tfor (int k = 0; k < %u; k++) {\n", n);
	if (narrow) {
		buf_puts(g->out, "\t\t\tuint32_t a = (uint32_t)");
		lane_sum(g, i, NULL);
		buf_puts(g->out, ";\n");
	} else {
		lane_addr(g, i, esize);
	}
	if (al)
		buf_puts(g->out, "\t\t\tal |= a;\n");
	buf_puts(g->out, "\t\t\tif (");
	if (m) {
		c_lv(g, m, "k");
		buf_puts(g->out, " && ");
	}
	buf_printf(g->out, "a > %s) %s = a;\n\t\t}\n", h, h);
	if (narrow)
		buf_printf(g->out, "\t\tuint64_t hi = (uint64_t)hi32 * %u;\n", offset_scale(i, esize));
}

/* One lane of a gather or scatter; `checked` tests its address. */
static void gather_lane(CGen *g, const Inst *i, const Inst *v, uint32_t sz, bool checked)
{
	bool load = i->op == Ogather;
	const char *el = STR("k");
	buf_puts(g->out, "\t\t\t");
	if (checked)
		buf_printf(g->out, "if (cmk_in(m, a, %u)) ", sz);
	buf_puts(g->out, "memcpy(");
	if (load) {
		buf_puts(g->out, "&");
		c_lv(g, v, el);
		buf_printf(g->out, ", CMK_AT(m, a), %u);\n", sz);
		if (checked) {
			buf_puts(g->out, "\t\t\telse { ");
			c_lv(g, v, el);
			buf_printf(g->out, " = 0; cmk_fault(t, %d, \"gather out of bounds\", %d); }\n",
			           chk(g), g->line);
		}
	} else {
		buf_puts(g->out, "CMK_AT(m, a), &");
		c_lv(g, v, el);
		buf_printf(g->out, ", %u);\n", sz);
		if (checked)
			buf_printf(g->out, "\t\t\telse cmk_fault(t, %d, \"scatter out of bounds\", %d);\n",
			           chk(g), g->line);
	}
}

/* Offsets that are the constants first, first + 1, ... in element units:
 * the access is one contiguous block. */
static bool consecutive(const Inst *i, int64_t *first)
{
	const Inst *offs = i->ops[2];
	if (offs->op != Oconst || i->bytes)
		return false;
	*first = ir_const_at(offs, 0).i;
	for (uint32_t k = 1; k < offs->ty.n; k++)
		if (ir_const_at(offs, k).i != *first + (int64_t)k)
			return false;
	return true;
}

/* The range check is hoisted: consecutive offsets are one block copy;
 * otherwise when every enabled lane is in bounds, the lane loop has no
 * test but the mask (the C compiler can vectorize a gather).  An access
 * partly out of bounds checks each lane. */
static bool gather_op(CGen *g, const Inst *i)
{
	bool load = i->op == Ogather;
	const Inst *v = load ? i : i->ops[3];
	uint32_t sz = (uint32_t)ir_elem_bytes[v->ty.elem], n = i->ops[2]->ty.n;
	if (v->ty.n != n) {
		error_at(i->loc, "scattered access of %u elements with %u offsets", v->ty.n, n);
		return false;
	}
	if (load && ir_mask(i)) {
		buf_puts(g->out, "\tmemset(");
		addr_of(g, i);
		buf_puts(g->out, ", 0, sizeof(");
		c_name(g, i);
		buf_puts(g->out, "));\n");
	}
	mem_base(g, i, i->ops[0]);
	int64_t first;
	bool cons = consecutive(i, &first);
	if (cons) {
		buf_puts(g->out, "\t\tuint64_t a0 = ((uint64_t)(int64_t)");
		c_lv(g, i->ops[1], "0");
		buf_printf(g->out, " + (uint64_t)%lldLL) * %u;\n\t\tif (cmk_in(m, a0, %u)) {\n",
		           (long long)first, sz, n * sz);
		if (ir_mask(i)) {
			lane_loop(g, i, n);
			buf_printf(g->out, "\t\t\tuint64_t a = a0 + (uint64_t)k * %u;\n", sz);
			gather_lane(g, i, v, sz, false);
			buf_puts(g->out, "\t\t}\n");
		} else {
			buf_puts(g->out, "\t\t\tmemcpy(");
			if (load)
				addr_of(g, v), buf_puts(g->out, ", CMK_AT(m, a0)");
			else
				buf_puts(g->out, "CMK_AT(m, a0), "), addr_of(g, v);
			buf_printf(g->out, ", %u);\n", n * sz);
		}
	} else {
		lanes_hi(g, i, n, sz, false);
		buf_printf(g->out, "\t\tif (cmk_in_hi(m, hi, %u)) {\n", sz);
		lane_loop(g, i, n);
		lane_addr(g, i, sz);
		gather_lane(g, i, v, sz, false);
		buf_puts(g->out, "\t\t}\n");
	}
	buf_puts(g->out, "\t\t} else {\n");
	lane_loop(g, i, n);
	lane_addr_at(g, i, sz, cons ? &first : NULL);
	gather_lane(g, i, v, sz, true);
	buf_puts(g->out, "\t\t}\n\t\t}\n\t}\n");
	return true;
}

/* The common start of 4-channel accesses (gather4/scatter4, typed): the
 * value v must hold n dwords per enabled channel; a load starts from 0. */
static bool four_channels(CGen *g, const Inst *i, const Inst *v, uint32_t n, const char *what)
{
	uint32_t nch = 0;
	for (int c = 0; c < 4; c++)
		nch += (i->chmask >> c) & 1;
	if (ir_elem_bytes[v->ty.elem] != 4 || v->ty.n != n * nch) {
		error_at(i->loc, "%s needs %u dword elements", what, n * nch);
		return false;
	}
	if (v == i) {
		buf_puts(g->out, "\tmemset(");
		addr_of(g, i);
		buf_puts(g->out, ", 0, sizeof(");
		c_name(g, i);
		buf_puts(g->out, "));\n");
	}
	return true;
}

/* gather4/scatter4: lane k, enabled channel c (the j-th) is element j*n + k
 * of the value, at a + 4 * c. */
static bool gather4_op(CGen *g, const Inst *i)
{
	bool load = i->op == Ogather4;
	const Inst *v = load ? i : i->ops[3];
	uint32_t n = i->ops[2]->ty.n;
	if (!four_channels(g, i, v, n, "4-channel access"))
		return false;
	mem_base(g, i, i->ops[0]);
	lane_loop(g, i, n);
	lane_addr(g, i, 4);
	for (int c = 0, j = 0; c < 4; c++) {
		if (!((i->chmask >> c) & 1))
			continue;
		const char *el = STR("%u + k", (uint32_t)j * n);
		buf_printf(g->out, "\t\t\tif (cmk_in(m, a + %d, 4)) memcpy(", 4 * c);
		if (load) {
			buf_putc(g->out, '&');
			c_lv(g, v, el);
			buf_printf(g->out, ", CMK_AT(m, a + %d), 4);\n", 4 * c);
		} else {
			buf_printf(g->out, "CMK_AT(m, a + %d), &", 4 * c);
			c_lv(g, v, el);
			buf_puts(g->out, ", 4);\n");
		}
		buf_printf(g->out, "\t\t\telse cmk_fault(t, %d, \"4-channel access out of bounds\", %d);\n",
		           chk(g), g->line);
		j++;
	}
	buf_puts(g->out, "\t\t}\n\t}\n");
	return true;
}

/* Opens a typed access's loop over lanes k < n with the surface in s and
 * the lane's pixel (u, w, r) from operands 1..3 of i; a lane outside the
 * surface (or meeting extra, a C condition ending in "|| ") faults in the
 * checking mode, else is skipped. */
static void pixel_lanes(CGen *g, const Inst *i, uint32_t n, const char *extra, const char *what)
{
	Buf *o = g->out;
	buf_puts(o, "\t{\n\t\tCmkSurface s; cmk_mgeom(t, (uint64_t)");
	c_name(g, i->ops[0]);
	buf_puts(o, ", &s);\n");
	lane_loop(g, i, n);
	buf_puts(o, "\t\t\tuint64_t u = (uint64_t)(int64_t)");
	c_lv(g, i->ops[1], "k");
	buf_puts(o, ", w = (uint64_t)(int64_t)");
	c_lv(g, i->ops[2], "k");
	buf_puts(o, ", r = (uint64_t)(int64_t)");
	c_lv(g, i->ops[3], "k");
	buf_printf(o, ";\n\t\t\tif (!s.base || %su >= s.width / s.bpp || w >= s.height || "
	              "(r + 1) * s.height * s.pitch > s.size) { cmk_fault(t, %d, \"%s out of "
	              "bounds\", %d); continue; }\n", extra, chk(g), what, g->line);
}

/* Typed surface access at pixel (u, v, r): channel c is the dword at
 * c * 4 inside the pixel; channels past the pixel read 0. */
static bool typed_op(CGen *g, const Inst *i)
{
	bool load = i->op == Otload;
	const Inst *val = load ? i : i->ops[4];
	uint32_t n = i->ops[1]->ty.n;
	if (!four_channels(g, i, val, n, "typed access"))
		return false;
	Buf *o = g->out;
	pixel_lanes(g, i, n, "", "typed access");
	buf_puts(o, "\t\t\tunsigned char *px = s.base + (r * s.height + w) * s.pitch + u * s.bpp;\n");
	for (int c = 0, j = 0; c < 4; c++) {
		if (!((i->chmask >> c) & 1))
			continue;
		const char *el = STR("%u + k", (uint32_t)j * n);
		buf_printf(o, "\t\t\tif (%d < s.bpp) memcpy(", 4 * c + 4 - 1);
		if (load) {
			buf_putc(o, '&');
			c_lv(g, val, el);
			buf_printf(o, ", px + %d, 4);\n", 4 * c);
		} else {
			buf_printf(o, "px + %d, &", 4 * c);
			c_lv(g, val, el);
			buf_puts(o, ", 4);\n");
		}
		j++;
	}
	buf_puts(o, "\t\t}\n\t}\n");
	return true;
}

/* Whether an atomic's element type fits its operation (the C helpers of
 * the prelude exist for these). */
static bool atomic_type_ok(const Inst *i, uint32_t n)
{
	Elem e = i->ty.elem;
	uint32_t sz = (uint32_t)ir_elem_bytes[e];
	bool fop = i->aop >= AT_FMAX && i->aop <= AT_FSUB;
	bool ok = fop || i->aop == AT_XCHG || i->aop == AT_CMPXCHG
	                  ? (e == E_F32 || (!fop && ir_is_int(e) && sz >= 2))
	                  : ir_is_int(e) && sz >= 2;
	if (!ok || i->ty.n != n)
		error_at(i->loc, "atomic %s on %u x %s is not supported", ir_atomic_name[i->aop], i->ty.n,
		         ir_elem_name[e]);
	return ok && i->ty.n == n;
}

/* The result starts at 0 (lanes that do not run read 0). */
static void zero_result(CGen *g, const Inst *i)
{
	buf_puts(g->out, "\tmemset(");
	addr_of(g, i);
	buf_puts(g->out, ", 0, sizeof(");
	c_name(g, i);
	buf_puts(g->out, "));\n");
}

/* An atomic on global memory that changes nothing (or, xor, add or sub
 * of constant zeros): a read of flags another CM thread sets, in a loop
 * that waits for them (scan's look-back).  Each lane is an atomic load
 * (cmk_at_ld_*), not a locked operation: scan_tiles read 64 flags and
 * values per tile that way, a third of its time. */
static bool is_poll(const Inst *i)
{
	if (i->op != Oatomic || i->space == SP_SLM || ir_nsrc(i) != 1 ||
	    (i->aop != AT_OR && i->aop != AT_XOR && i->aop != AT_ADD && i->aop != AT_SUB))
		return false;
	const Inst *v = i->ops[3];
	if (v->op != Oconst)
		return false;
	for (uint32_t k = 0; k < v->c.n; k++)
		if (ir_const_at(v, k).u)
			return false;
	return true;
}

/* Lane k: result[k] = the atomic on *(T *)(ptr), sources from ops[s0..]. */
static void atomic_lane(CGen *g, const Inst *i, const char *ptr, int s0)
{
	Elem e = i->ty.elem;
	int ns = ir_nsrc(i);
	buf_puts(g->out, "\t\t\t");
	if (i->nuse) {   /* unused (histogram's increments), nothing is kept */
		c_lv(g, i, "k");
		buf_puts(g->out, " = ");
	}
	/* SLM: cmk_sl_ (plain, the group runs on one OS thread; prelude.c) */
	buf_printf(g->out, "cmk_%s_%s_%s((%s *)(%s), ", i->space == SP_SLM ? "sl" : "at",
	           is_poll(i) ? "ld" : ir_atomic_name[i->aop], ir_elem_name[e], c_type(e), ptr);
	for (int s = 0; s < 2; s++) {
		if (s < ns)
			c_lv(g, i->ops[s0 + s], "k");
		else
			buf_puts(g->out, "0");
		buf_puts(g->out, s ? ");\n" : ", ");
	}
}

/* After a poll: the runtime sees a hash of the values read and lets the
 * CM thread that must change them run when they stay the same
 * (CmkServices.poll). */
static void poll_service(CGen *g, const Inst *i, uint32_t n)
{
	buf_printf(g->out, "	{ uint64_t h = 0; for (int k = 0; k < %u; k++) h = h * 31 + (uint64_t)", n);
	c_lv(g, i, "k");
	buf_puts(g->out, "; t->svc->poll(t, h); }\n");
}

/* As gathers do, an atomic whose lanes are all in range and aligned (one
 * test of the highest address and of the addresses or'ed together) runs a
 * loop without per-lane tests: histogram's SLM increments spent as long
 * testing each lane as incrementing it. */
static bool atomic_op(CGen *g, const Inst *i)
{
	uint32_t n = i->ops[2]->ty.n, sz = (uint32_t)ir_elem_bytes[i->ty.elem];
	if (!atomic_type_ok(i, n))
		return false;
	Buf *o = g->out;
	if (i->nuse)
		zero_result(g, i);
	mem_base(g, i, i->ops[0]);
	lanes_hi(g, i, n, sz, true);
	buf_printf(o, "\t\tif (cmk_in_hi(m, hi, %u) && al %% %u == 0) {\n", sz, sz);
	lane_loop(g, i, n);
	lane_addr(g, i, sz);
	atomic_lane(g, i, "CMK_AT(m, a)", 3);
	buf_puts(o, "\t\t}\n\t\t} else {\n");
	lane_loop(g, i, n);
	lane_addr(g, i, sz);
	buf_printf(o, "\t\t\tif (!cmk_in(m, a, %u) || (uintptr_t)CMK_AT(m, a) %% %u) "
	              "{ cmk_fault(t, %d, \"atomic out of bounds\", %d); continue; }\n",
	           sz, sz, chk(g), g->line);
	atomic_lane(g, i, "CMK_AT(m, a)", 3);
	buf_puts(o, "\t\t}\n\t\t}\n\t}\n");
	if (i->nuse && is_poll(i))
		poll_service(g, i, n);
	return true;
}

/* Typed atomic at pixel (u, v, r): the first dword of the pixel, which
 * must be at least 4 bytes; other lanes are dropped and read 0. */
static bool tatomic_op(CGen *g, const Inst *i)
{
	uint32_t n = i->ops[1]->ty.n;
	if (!atomic_type_ok(i, n))
		return false;
	if (ir_elem_bytes[i->ty.elem] != 4) {
		error_at(i->loc, "typed atomics need 4-byte elements");
		return false;
	}
	Buf *o = g->out;
	zero_result(g, i);
	pixel_lanes(g, i, n, "s.bpp < 4 || ", "typed atomic");
	atomic_lane(g, i, "s.base + (r * s.height + w) * s.pitch + u * s.bpp", 4);
	buf_puts(o, "\t\t}\n\t}\n");
	return true;
}

static const char *const tid_expr[TID_COUNT_] = {
	[TID_ORIGIN_X] = "t->origin[0]", [TID_ORIGIN_Y] = "t->origin[1]",
	[TID_COLOR] = "t->color",
	[TID_GROUP_ID_X] = "t->group_id[0]", [TID_GROUP_ID_Y] = "t->group_id[1]",
	[TID_GROUP_ID_Z] = "t->group_id[2]",
	[TID_LOCAL_ID_X] = "t->local_id[0]", [TID_LOCAL_ID_Y] = "t->local_id[1]",
	[TID_LOCAL_ID_Z] = "t->local_id[2]",
	[TID_LOCAL_SIZE_X] = "t->local_size[0]", [TID_LOCAL_SIZE_Y] = "t->local_size[1]",
	[TID_LOCAL_SIZE_Z] = "t->local_size[2]",
	[TID_GROUP_COUNT_X] = "t->group_count[0]", [TID_GROUP_COUNT_Y] = "t->group_count[1]",
	[TID_GROUP_COUNT_Z] = "t->group_count[2]",
};

/* What conversion fc of a printf prints with the arguments ops[*next..n):
 * FMT_OK (-1) or the problem; *next moves past what it reads. */
static int printf_conv_ok(const FmtConv *fc, Inst *const *ops, uint32_t n, uint32_t *next)
{
	int need = fmt_nargs(fc);
	uint32_t at = *next;
	*next = at + (uint32_t)need > n ? n : at + (uint32_t)need;
	if (fc->kind == FMT_STR || fc->kind == FMT_UNSUPPORTED || fc->kind == FMT_UNKNOWN ||
	    fc->kind == FMT_INCOMPLETE)
		return FMT_NOT_PRINTABLE;
	if (at + (uint32_t)need > n)
		return FMT_MISSING;
	for (int k = 0; k < need; k++) {
		bool fl = ir_is_float(ops[at + (uint32_t)k]->ty.elem);
		if (k < need - 1 ? fl : !fmt_fits(fc, fl))
			return FMT_WRONG_TYPE;
	}
	return -1;
}

/* The C type a printable conversion reads, as a cast (h and hh take a
 * short or char, which -Wformat of clang asks for; printf converts the
 * promoted int to it anyway). */
static const char *printf_cast(const FmtConv *fc)
{
	static const char *const ints[3] = {"(int)", "(short)", "(signed char)"};
	static const char *const uints[3] = {"(unsigned)", "(unsigned short)", "(unsigned char)"};
	int h = fc->nh < 0 ? 0 : fc->nh > 2 ? 2 : fc->nh;
	switch (fc->kind) {
	case FMT_INT: return fc->wide ? "(long long)" : ints[h];
	case FMT_UINT: return fc->wide ? "(unsigned long long)" : uints[h];
	case FMT_FLOAT: return "(double)";
	default: return "(int)";
	}
}

/* printf: one snprintf whose format is the IR's with each conversion made
 * canonical (format.c) and each argument cast to the C type its conversion
 * reads, so the call is well-defined whatever the IR holds; a conversion
 * without a fitting argument prints fmt_marker's text instead. */
static bool printf_op(CGen *g, const Inst *i)
{
	Buf fmt = {0}, args = {0}, *o = g->out;
	uint32_t next = 0;
	for (const char *s = i->str ? i->str : ""; *s; ) {
		const char *pc = strchr(s, '%');
		size_t lit = pc ? (size_t)(pc - s) : strlen(s);
		buf_putn(&fmt, s, lit);
		s += lit;
		if (!pc)
			break;
		FmtConv fc;
		s += fmt_scan(pc, &fc);
		if (fc.kind == FMT_PERCENT) {
			buf_puts(&fmt, "%%");
			continue;
		}
		uint32_t at = next;
		int bad = printf_conv_ok(&fc, i->ops, i->nops, &next);
		if (bad >= 0) {
			Buf m = {0};
			fmt_marker(&m, pc, &fc, (FmtProblem)bad);
			for (size_t k = 0; k < m.len; k++)
				buf_puts(&fmt, m.data[k] == '%' ? "%%" : (char[2]){m.data[k], 0});
			buf_free(&m);
			continue;
		}
		char spec[FMT_SPEC_MAX];
		fmt_spec(&fc, spec);
		buf_puts(&fmt, spec);
		g->out = &args;
		for (; at < next; at++) {
			buf_printf(&args, ", %s", at + 1 < next ? "(int)" : printf_cast(&fc));
			c_rd(g, i->ops[at], "0");
		}
		g->out = o;
	}
	buf_puts(o, "\t{\n\t\tchar b[1024];\n\t\tint n = snprintf(b, sizeof b, ");
	ir_print_string(o, buf_cstr(&fmt));
	buf_putn(o, args.data ? args.data : "", args.len);
	buf_puts(o, ");\n\t\tif (n > (int)sizeof b - 1) n = (int)sizeof b - 1;\n"
	            "\t\tif (n > 0 && t->svc && t->svc->print) t->svc->print(t, b, (uint32_t)n);\n\t}\n");
	buf_free(&fmt);
	buf_free(&args);
	return true;
}

static void svc_call(CGen *g, const char *fn, const char *args)
{
	buf_printf(g->out, "\tif (t->svc && t->svc->%s) t->svc->%s(t%s);\n", fn, fn, args);
}

bool c_emit_mem(CGen *g, const Inst *i)
{
	Buf *o = g->out;
	switch (i->op) {
	case Obload: case Obstore: return block_op(g, i);
	case Omload: case Omstore: return media_op(g, i);
	case Ogather: case Oscatter: return gather_op(g, i);
	case Ogather4: case Oscatter4: return gather4_op(g, i);
	case Otload: case Otstore: return typed_op(g, i);
	case Oatomic: return atomic_op(g, i);
	case Otatomic: return tatomic_op(g, i);
	case Obarrier:
		svc_call(g, "barrier", "");
		return true;
	case Osbarrier:
		if (i->imm == 0)
			svc_call(g, "barrier", "");
		return true;
	case Ofence:
		buf_puts(o, "\t__atomic_thread_fence(__ATOMIC_SEQ_CST);\n");
		return true;
	case Owait: {
		Buf tmp = {0}, *save = g->out;
		g->out = &tmp;
		buf_puts(&tmp, ", (uint32_t)");
		c_lv(g, i->ops[0], "0");
		g->out = save;
		svc_call(g, "wait", buf_cstr(&tmp));
		buf_free(&tmp);
		return true;
	}
	case Osignal:
		svc_call(g, "signal", "");
		return true;
	case Oslmcopy:
		return slm_copy_op(g, i);
	case Oslmcommit: case Oslmwait: case Owgwait:
		return true;
	case Otid:
		buf_putc(o, '\t');
		c_lv(g, i, "0");
		buf_printf(o, " = (%s)%s;\n", c_type(i->ty.elem), tid_expr[i->imm]);
		return true;
	case Otimer:
		buf_puts(o, "\t{ uint64_t c = cmk_rdtsc(); ");
		c_name(g, i);
		buf_puts(o, "[0] = (uint32_t)c; ");
		c_name(g, i);
		buf_puts(o, "[1] = (uint32_t)(c >> 32); ");
		for (uint32_t k = 2; k < i->ty.n; k++) {
			c_name(g, i);
			buf_printf(o, "[%u] = 0; ", k);
		}
		buf_puts(o, "}\n");
		return true;
	case Oprintf:
		return printf_op(g, i);
	case Otrap:
		buf_puts(o, "\tcmk_fault(t, 1, ");
		ir_print_string(o, i->str ? i->str : "trap");
		buf_printf(o, ", %d);\n", g->line);
		return true;
	default:
		error_at(i->loc, "C back end: '%s' is not supported", ir_ops[i->op].name);
		return false;
	}
}
