/* verify.c — the CMIR verifier.
 *
 * requires: nothing (it is meant to catch broken IR); recomputes
 *           predecessors and dominators.
 * checks:   every block ends in a terminator whose targets exist; a cbr's
 *           condition is a scalar i1; phis come first and have one operand
 *           per predecessor; operand counts match the opcode table; operand
 *           and result types fit the opcode; constant regions lie inside
 *           their vector; every use is dominated by its definition (SSA).
 * Errors are reported at the instruction's location and name the last
 * pass, so `CMETAL_VERIFY=1 cmetal ...` says which pass broke the IR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

typedef struct {
	const char *after;
	const Func *f;
	int errors;
	uint32_t *pos;        /* f->nextid: an instruction's place in its block
	                       * (check_ssa numbers each block it checks) */
} V;

static void bad(V *v, const Inst *i, Loc loc, const char *fmt, ...) PRINTF_LIKE(4, 5);
static void bad(V *v, const Inst *i, Loc loc, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (i)
		error_at(loc, "invalid IR after %s: @%s %%%u (%s): %s", v->after,
		         v->f->name, i->id, ir_ops[i->op].name, msg);
	else
		error_at(loc, "invalid IR after %s: @%s: %s", v->after, v->f->name, msg);
	v->errors++;
}

#define BAD(...) (bad(v, i, i->loc, __VA_ARGS__), false)

static bool is_mask(IrType t) { return t.elem == E_I1; }

/* Operands count: fixed + runtime offset + atomic sources + mask. */
static bool check_count(V *v, const Inst *i)
{
	const OpInfo *oi = &ir_ops[i->op];
	if (i->has_roff && !(oi->flags & IRF_ROFF))
		return BAD("runtime offset on an instruction without regions");
	if (i->has_mask && !(oi->flags & IRF_MASK))
		return BAD("mask on an instruction that takes none");
	if (i->op == Ophi || i->op == Oprintf)
		return true;
	uint32_t want = (uint32_t)oi->nops + i->has_roff + i->has_mask + (uint32_t)ir_nsrc(i);
	if (i->nops != want)
		return BAD("%u operands, expected %u", i->nops, want);
	return true;
}

/* Element k of a region with base b: its largest index. */
static bool region_ok(V *v, const Inst *i, uint32_t n, uint32_t srcn)
{
	IrRegion r = i->rg;
	if (r.width < 1 || n % (uint32_t)r.width)
		return BAD("region width %d does not divide %u elements", r.width, n);
	if (r.vstride < 0 || r.hstride < 0 || r.offset < 0)
		return BAD("negative region stride or offset");
	if (i->has_roff)
		return true;   /* checked when it runs */
	int64_t rows = n / (uint32_t)r.width;
	int64_t last = r.offset + (rows - 1) * r.vstride + (int64_t)(r.width - 1) * r.hstride;
	if (last >= srcn)
		return BAD("region <%d;%d,%d>, %d of %u elements reaches element %lld of %u",
		           r.vstride, r.width, r.hstride, r.offset, n, (long long)last, srcn);
	return true;
}

static bool same_elem(V *v, const Inst *i, uint32_t from, uint32_t to)
{
	for (uint32_t k = from + 1; k < to; k++)
		if (i->ops[k]->ty.elem != i->ops[from]->ty.elem)
			return BAD("operands of different element types");
	return true;
}

static bool elementwise(V *v, const Inst *i)
{
	uint32_t n = ir_ops[i->op].nops;
	for (uint32_t k = 0; k < n; k++)
		if (i->ops[k]->ty.n != 1 && i->ops[k]->ty.n != i->ty.n)
			return BAD("operand %u has %u elements, the result %u", k,
			           i->ops[k]->ty.n, i->ty.n);
	if (i->op == Osel) {
		if (!is_mask(i->ops[0]->ty))
			return BAD("select needs an i1 mask");
		if (i->ops[1]->ty.elem != i->ty.elem || i->ops[2]->ty.elem != i->ty.elem)
			return BAD("select operands must have the result's type");
		return true;
	}
	if (ir_ops[i->op].flags & IRF_CMP) {
		if (!is_mask(i->ty))
			return BAD("a compare yields i1");
		return same_elem(v, i, 0, n);
	}
	if (i->op == Oconv || i->op == Ocopy)
		return i->op == Ocopy && i->ops[0]->ty.elem != i->ty.elem
		               ? BAD("copy changes the type") : true;
	if (i->op == Obfi || i->op == Obfe || i->op == Ocbit || i->op == Ofbl ||
	    i->op == Ofbh || i->op == Olzd || (i->op >= Oshl && i->op <= Oror))
		return true;   /* counts and fields may have their own types */
	if (!same_elem(v, i, 0, n))
		return false;
	if (!i->sat && i->ops[0]->ty.elem != i->ty.elem && i->ty.elem != E_I1 &&
	    !(i->op >= Orndd && i->op <= Orndz))
		return true;   /* exact then converted: allowed (ir.h) */
	return true;
}

static bool check_region_ops(V *v, const Inst *i)
{
	Inst *roff = ir_roff(i);
	if (roff && (roff->ty.n != 1 || !ir_is_int(roff->ty.elem)))
		return BAD("runtime offset must be a scalar integer");
	Inst *m = ir_mask(i);
	if (m && !is_mask(m->ty))
		return BAD("mask must be i1");
	if (i->op == Ordregion) {
		if (i->ops[0]->ty.elem != i->ty.elem)
			return BAD("rdregion changes the element type");
		return region_ok(v, i, i->ty.n, i->ops[0]->ty.n);
	}
	if (!ir_type_eq(i->ops[0]->ty, i->ty))
		return BAD("wrregion result must have the old value's type");
	if (i->ops[1]->ty.elem != i->ty.elem)
		return BAD("wrregion of another element type");
	if (m && m->ty.n != 1 && m->ty.n != i->ops[1]->ty.n)
		return BAD("wrregion mask of %u elements for %u", m->ty.n, i->ops[1]->ty.n);
	return region_ok(v, i, i->ops[1]->ty.n, i->ty.n);
}

/* Odpas: the shapes of ir.h's comment. */
static bool check_dpas(V *v, const Inst *i)
{
	int p1 = ir_dpas_p1(i), p2 = ir_dpas_p2(i), rc = ir_dpas_rc(i);
	if (!ir_dpas_k(p1) || !ir_dpas_k(p2) || rc < 1 || rc > 8 || i->ty.n % (uint32_t)rc)
		return BAD("bad dpas precisions or repeat count");
	int es = ir_dpas_es(i), k = ir_dpas_k(p1);
	Elem acc = p1 == PR_DF ? E_F64 : k == 32 ? i->ty.elem : E_F32;
	bool ints = (p1 == PR_U8 || p1 == PR_S8) == (p2 == PR_U8 || p2 == PR_S8);
	if ((es != 8 && es != 16) || (p1 != p2 && (!ints || k != 32)))
		return BAD("bad dpas shape");
	if (i->ty.elem != acc || (k == 32 && acc != E_I32 && acc != E_U32) ||
	    !ir_type_eq(i->ops[0]->ty, i->ty))
		return BAD("dpas accumulator of the wrong type");
	uint32_t bb = ir_elem_bytes[i->ops[1]->ty.elem] * i->ops[1]->ty.n;
	uint32_t ab = ir_elem_bytes[i->ops[2]->ty.elem] * i->ops[2]->ty.n;
	if (bb != 32u * (uint32_t)es || ab != 32u * (uint32_t)rc || is_mask(i->ops[1]->ty) ||
	    is_mask(i->ops[2]->ty))
		return BAD("dpas operands of the wrong size");
	return true;
}

/* Owgmma: the shapes of ir.h's comment. */
static bool check_wgmma(V *v, const Inst *i)
{
	int n = ir_wgmma_n(i);
	int prec = ir_wgmma_prec(i->imm);
	if ((prec != PR_HF && prec != PR_BF) ||
	    (i->imm & ~(int64_t)(255 | IR_WGMMA_SW128 | IR_WGMMA_ASYNC)) ||
	    n < 8 || n > 56 || n % 8 ||
	    i->ty.n != 16u * (uint32_t)n || i->ty.elem != E_F32)
		return BAD("bad wgmma precision or shape");
	if (!ir_type_eq(i->ops[0]->ty, i->ty))
		return BAD("wgmma accumulator of the wrong type");
	if (!ir_type_eq(i->ops[1]->ty, ir_scalar(E_U32)) || !ir_type_eq(i->ops[2]->ty, ir_scalar(E_U32)))
		return BAD("wgmma SLM offsets must be u32 scalars");
	return true;
}

/* Oslmcopy: ir.h's comment. */
static bool check_slmcopy(V *v, const Inst *i)
{
	const Inst *offs = i->ops[2];
	IrType u = ir_scalar(E_U32);
	if (!ir_type_eq(i->ops[0]->ty, u) || !ir_type_eq(i->ops[1]->ty, u))
		return BAD("slmcopy's surface and SLM offset must be u32 scalars");
	if (offs->ty.elem != E_U32 || offs->ty.n < 1 || offs->ty.n > IR_SLMCOPY_MAX)
		return BAD("slmcopy's offsets must be 1 to 128 u32");
	if (!ir_slmcopy_bytes_ok(i->imm))
		return BAD("slmcopy's elements must be 4, 8 or 16 bytes");
	return true;
}

static bool check_types(V *v, const Inst *i)
{
	const OpInfo *oi = &ir_ops[i->op];
	if (!!(oi->flags & IRF_VOID) != (i->ty.elem == E_VOID))
		return BAD("result type does not fit");
	if (i->ty.elem != E_VOID && !i->ty.n)
		return BAD("type with 0 elements");
	if ((oi->flags & IRF_MEM) && !i->space)
		return BAD("memory instruction without a space");
	if (i->sat && !(oi->flags & IRF_SAT))
		return BAD(".sat on an instruction that does not saturate");
	if (i->align && i->op != Obload && i->op != Obstore)
		return BAD(".align on an instruction that is not a block access");
	for (uint32_t k = 0; k < i->nops; k++)
		if (!i->ops[k] || !i->ops[k]->block || i->ops[k]->ty.elem == E_VOID)
			return BAD("operand %u is not a value in this kernel", k);
	switch (i->op) {
	case Oconst:
		if (!i->c.n || (i->c.n != 1 && i->c.n != i->ty.n))
			return BAD("constant with %u values for %u elements", i->c.n, i->ty.n);
		return true;
	case Oarg:
		if (i->imm < 0 || i->imm >= v->f->nparams)
			return BAD("no argument %lld", (long long)i->imm);
		if (!ir_type_eq(v->f->params[i->imm].ty, i->ty))
			return BAD("argument type differs from the parameter's");
		return true;
	case Ophi:
		for (uint32_t k = 0; k < i->nops; k++)
			if (!ir_type_eq(i->ops[k]->ty, i->ty))
				return BAD("phi operand of another type");
		return true;
	case Ordregion: case Owrregion:
		return check_region_ops(v, i);
	case Obitcast:
		if (ir_elem_bytes[i->ty.elem] * i->ty.n !=
		    ir_elem_bytes[i->ops[0]->ty.elem] * i->ops[0]->ty.n || is_mask(i->ty))
			return BAD("bitcast changes the size");
		return true;
	case Oiselect:
		if (i->ops[0]->ty.elem != i->ty.elem || i->ops[1]->ty.n != i->ty.n ||
		    !ir_is_int(i->ops[1]->ty.elem))
			return BAD("iselect needs integer indices, one per result element");
		return true;
	case Odpas:
		return check_dpas(v, i);
	case Owgmma:
		return check_wgmma(v, i);
	case Oslmcopy:
		return check_slmcopy(v, i);
	case Oslmwait:
		if (i->imm < 0 || i->imm > IR_SLMWAIT_MAX)
			return BAD("slmwait leaves 0 to 7 groups in flight");
		return true;
	case Owgwait:
		if (i->imm < 0 || i->imm > IR_WGWAIT_MAX)
			return BAD("wgwait leaves 0 to 7 groups in flight");
		return true;
	case Oany: case Oall:
		if (!is_mask(i->ops[0]->ty) || !ir_type_eq(i->ty, ir_scalar(E_I1)))
			return BAD("any/all take an i1 vector and yield i1");
		return true;
	case Orsum: case Orprod: case Ormin: case Ormax:
		if (i->ty.n != 1 || i->ops[0]->ty.elem != i->ty.elem)
			return BAD("reductions yield a scalar of the operand's type");
		return true;
	case Opack:
		if (!is_mask(i->ops[0]->ty) || i->ops[0]->ty.n > 32 || !ir_type_eq(i->ty, ir_scalar(E_U32)))
			return BAD("pack takes at most 32 i1 and yields u32");
		return true;
	case Ounpack:
		if (!is_mask(i->ty) || i->ty.n > 32 || i->ops[0]->ty.n != 1)
			return BAD("unpack takes a scalar and yields at most 32 i1");
		return true;
	case Otid:
		if (i->imm < 0 || i->imm >= TID_COUNT_)
			return BAD("bad thread id");
		return true;
	case Oatomic:
	case Otatomic:
		if (i->aop >= AT_COUNT_)
			return BAD("bad atomic op");
		return true;
	default:
		break;
	}
	if (oi->flags & IRF_ELEMWISE)
		return elementwise(v, i);
	if ((oi->flags & IRF_MASK) && i->has_mask && !is_mask(ir_mask(i)->ty))
		return BAD("mask must be i1");
	return true;
}

/* The definition of `def` is available at the end of block b, or before
 * instruction `at` in b when at is given (b numbered in v->pos: a walk
 * from def to at made long blocks quadratic). */
static bool available(const V *v, const Inst *def, const Block *b, const Inst *at)
{
	if (def->block != b)
		return ir_dominates(def->block, b);
	if (!at)
		return true;
	if (def->id < v->f->nextid && at->id < v->f->nextid)
		return v->pos[def->id] < v->pos[at->id];
	for (const Inst *j = def->next; j; j = j->next)
		if (j == at)
			return true;
	return false;
}

static void check_ssa(V *v, const Block *b)
{
	if (b->rpo == UINT32_MAX)
		return;   /* unreachable: anything goes */
	bool phis = true;
	uint32_t k = 0;
	for (const Inst *i = b->first; i; i = i->next)
		if (i->id < v->f->nextid)
			v->pos[i->id] = k++;
	for (const Inst *i = b->first; i; i = i->next) {
		if (i->op != Ophi) {
			phis = false;
		} else if (!phis) {
			bad(v, i, i->loc, "phi after other instructions");
		} else if (i->nops != b->npreds) {
			bad(v, i, i->loc, "%u operands for %u predecessors", i->nops, b->npreds);
		} else {
			for (uint32_t k = 0; k < i->nops; k++) {
				bool pred = false;
				for (uint32_t q = 0; q < b->npreds; q++)
					pred |= b->preds[q] == i->phiblk[k];
				if (!pred)
					bad(v, i, i->loc, "b%u is not a predecessor", i->phiblk[k]->id);
				else if (i->phiblk[k]->rpo != UINT32_MAX &&
				         !available(v, i->ops[k], i->phiblk[k], NULL))
					bad(v, i, i->loc, "%%%u does not reach the end of b%u",
					    i->ops[k]->id, i->phiblk[k]->id);
			}
			continue;
		}
		for (uint32_t k = 0; k < i->nops; k++)
			if (i->ops[k]->block && !available(v, i->ops[k], b, i))
				bad(v, i, i->loc, "%%%u is used where its definition does not dominate",
				    i->ops[k]->id);
	}
	if (b->jmp.cond && b->jmp.cond->block && !available(v, b->jmp.cond, b, NULL))
		bad(v, NULL, b->jmp.loc, "b%u: branch condition %%%u does not dominate",
		    b->id, b->jmp.cond->id);
}

static void check_block(V *v, const Block *b)
{
	const Func *f = v->f;
	switch (b->jmp.kind) {
	case J_NONE:
		bad(v, NULL, f->loc, "b%u has no terminator", b->id);
		return;
	case J_CBR:
		if (!b->jmp.cond || !b->jmp.cond->block ||
		    !ir_type_eq(b->jmp.cond->ty, ir_scalar(E_I1)))
			bad(v, NULL, b->jmp.loc, "b%u: cbr needs a scalar i1", b->id);
		/* fallthrough */
	case J_BR:
		for (int s = 0; s < (b->jmp.kind == J_CBR ? 2 : 1); s++) {
			bool found = false;
			for (uint32_t k = 0; k < f->nblocks; k++)
				found |= f->blocks[k] == b->jmp.to[s];
			if (!found)
				bad(v, NULL, b->jmp.loc, "b%u jumps to a block outside the kernel", b->id);
		}
		break;
	case J_RET:
		break;
	}
	for (const Inst *i = b->first; i; i = i->next) {
		if (i->block != b)
			bad(v, i, i->loc, "instruction list is corrupt");
		else if (check_count(v, i))
			check_types(v, i);
	}
}

static void verify_func(V *v, Func *f)
{
	v->f = f;
	int before = v->errors;
	if (!f->nblocks) {
		bad(v, NULL, f->loc, "no blocks");
		return;
	}
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		check_block(v, f->blocks[bi]);
	if (v->errors != before)
		return;   /* dominance needs sound blocks */
	ir_dominators(f);
	v->pos = xcalloc(f->nextid ? f->nextid : 1, sizeof *v->pos);
	for (uint32_t bi = 0; bi < f->nblocks; bi++)
		check_ssa(v, f->blocks[bi]);
	free(v->pos);
	v->pos = NULL;
}

bool ir_verify(Module *m, const char *after)
{
	V v = {.after = after ? after : "input"};
	for (uint32_t k = 0; k < m->nfuncs; k++)
		verify_func(&v, m->funcs[k]);
	return v.errors == 0;
}

bool ir_verify_func(Func *f, const char *after)
{
	V v = {.after = after ? after : "input"};
	verify_func(&v, f);
	return v.errors == 0;
}

bool ir_verify_enabled(void)
{
	const char *e = getenv("CMETAL_VERIFY");
	if (e)
		return *e && *e != '0';
#ifndef NDEBUG
	return true;
#else
	return false;
#endif
}
