/* ldsm.c — a gather of a tile from SLM into an mma fragment as ldmatrix.
 *
 * requires: layouts assigned (assign.c assign_gather reads the gather into
 * its users' layout); called by mem.c gather_in while it emits.
 * changes: nothing but the output.
 *
 * A cm_dpas operand staged in SLM is read back by gathers at constant
 * offsets (bench/cm/hgemm.cm hgemm_slm), which assign.c reads straight
 * into the operand's fragment: one ld.shared.u32 per fragment register.
 * In every 16-row fragment of 32-bit elements (A, and B given as B^T),
 * lane 4g + t of a register holds dword t of row g of an 8 x 4-dword
 * block, which is what one matrix of ldmatrix.m8n8 .b16 delivers: lane
 * 4g + t receives the two halves at row g, bytes 4t..4t+3, that is the
 * same dword.  So when each register's lanes read
 *
 *     o(4g + t) = R[g] + 4t,     R[g] a multiple of 16,
 *
 * up to four registers are one ldmatrix.x4 (x2, x1), lane 8j + i giving
 * the address of row i of register j's block.  The instruction count of
 * a fragment falls by up to four, its bank traffic is the same (each 8 x
 * 16-byte matrix is one wavefront when its rows fall in distinct banks,
 * as 32 lanes' dwords of it do for a 4-byte gather).
 *
 * Pairs.  A gather's own registers in order suit B (b0, b1 of one tile),
 * but a paired m16n8k16 (dpair.c) reads A as a0 a1 a2 a3 = the first
 * call's tile register 0, the second's 0, the first's 1, the second's 1:
 * one x2 per tile would leave ptxas moving registers into that order.
 * px_ldsm_pairs finds the two gathers whose registers those are (traced
 * through renames and in-place writes, px_origin_reg) and, when they sit
 * in one block with no memory write between and addresses a constant
 * apart, the first emits one x4 in the mma's order and the second
 * nothing.  hgemm_slm: 16 LDS a k step became 2 x4 and 4 x2, 6.88 -> 6.28
 * SASS per cm_dpas, 117 -> 96 registers; H200 8192^3 9.61 -> 9.23 ms.
 *
 * The conditions: an unmasked gather of 4-byte elements from the CTA's
 * own SLM (not a cluster's), constant offsets, no lane checked (slm_inside
 * or a versioned loop's unchecked copy: ldmatrix cannot drop a lane's
 * read), not in the checking mode, every lane of the register holding an
 * element, and the address of every row known to be 16-byte aligned: the
 * SLM is .align 16, and the buffer offset and scaled global offset are
 * known multiples of 16 (px_known_align).  A lane's row address must be
 * A + B (lane % 8) + C1 (lane / 8 % 2) + C2 (lane / 16), A an immediate,
 * so that its lane part is a few instructions on %lane that ptxas can
 * keep out of loops; other registers keep their loads.  -fno-ldmatrix
 * turns it off.
 */
#include "target/ptx/ptx.h"

#define LD_RANGE (1 << 20)

/* The byte offsets of the 8 rows of one register's block. */
typedef struct {
	int64_t at[8];
} Rows;

/* Register r's row offsets R[0..7] in bytes (false: not an ldmatrix
 * block). */
static bool block_rows(const int32_t *el, const Inst *offs, int scale, uint32_t r, int64_t *R)
{
	for (int lane = 0; lane < 32; lane++) {
		int32_t e = el[r * 32 + lane];
		if (e < 0)
			return false;
		IrScalar x = ir_const_at(offs, (uint32_t)e);
		int64_t o = (int64_t)(int32_t)x.i * scale, g = lane / 4, t = lane % 4;
		if (o < 0 || o > LD_RANGE)
			return false;
		if (t == 0) {
			if (o % 16)
				return false;
			R[g] = o;
		} else if (o != R[g] + 4 * t) {
			return false;
		}
	}
	return true;
}

/* Row i of block j at A + B i + C1 (j & 1) + C2 (j >> 1): the lane
 * address of an ldmatrix, lane 8j + i giving row i of matrix j. */
typedef struct {
	int64_t A, B, C1, C2;
} Aff;

/* Whether the rows of blocks R[0..n-1] are affine so. */
static bool affine(const Rows *R, uint32_t n, Aff *f)
{
	f->A = R[0].at[0];
	f->B = R[0].at[1] - R[0].at[0];
	f->C1 = n > 1 ? R[1].at[0] - R[0].at[0] : 0;
	f->C2 = n > 2 ? R[2].at[0] - R[0].at[0] : 0;
	for (uint32_t j = 0; j < n; j++)
		for (int i = 0; i < 8; i++)
			if (R[j].at[i] != f->A + f->B * i + f->C1 * (j & 1) + f->C2 * (j >> 1))
				return false;
	return true;
}

bool px_ldsm_ok(Px *p, const Inst *i, bool unchecked)
{
	const Inst *offs = i->ops[2];
	int eb = ir_elem_bytes[i->ty.elem], scale = i->bytes ? 1 : eb;
	if (p->o->no_ldmatrix || !unchecked || px_checking(p) || px_cluster_on(p) ||
	    i->space != SP_SLM || eb != 4 || ir_mask(i) || offs->op != Oconst ||
	    ir_is_float(offs->ty.elem) || ir_elem_bytes[offs->ty.elem] != 4 ||
	    px_class(i->ops[1]->ty.elem) != RC_B32)
		return false;
	uint64_t ga = (uint64_t)px_known_align(i->ops[1]) * (uint64_t)scale;
	return px_known_align(i->ops[0]) >= 16 && ga >= 16;
}

/* Lane l's part of f's address, f.B (l % 8) + f.C1 (l / 8 % 2) +
 * f.C2 (l / 16) (b32), for an ldmatrix of n blocks: the same in every
 * trip of a loop, which ptxas keeps out of it. */
static const char *lane_offset(Px *p, const Aff *f, uint32_t n)
{
	const char *t = px_tmp(p, RC_B32), *j = px_tmp(p, RC_B32);
	px_ins(p, "and.b32 %s, %%lane, 7", t);
	px_ins(p, "mul.lo.u32 %s, %s, %lld", t, t, (long long)f->B);
	if (n > 1) {
		px_ins(p, "bfe.u32 %s, %%lane, 3, 1", j);
		px_ins(p, "mad.lo.u32 %s, %s, %lld, %s", t, j, (long long)f->C1, t);
	}
	if (n > 2) {
		const char *h = px_tmp(p, RC_B32);
		px_ins(p, "shr.u32 %s, %%lane, 4", h);
		px_ins(p, "mad.lo.u32 %s, %s, %lld, %s", t, h, (long long)f->C2, t);
	}
	return t;
}

/* One ldmatrix of the n registers regs (printed "{..}") from the uniform
 * base (b32) at f. */
static void emit_ldsm(Px *p, const char *base, const char *regs, uint32_t n, const Aff *f)
{
	const char *t = lane_offset(p, f, n), *a = px_tmp(p, RC_B32);
	px_ins(p, "add.u32 %s, %s, %s", a, base, t);
	px_ins(p, "ldmatrix.sync.aligned.m8n8.x%u.shared.b16 %s, [%s+%lld]", n, regs, a,
	       (long long)f->A);
}

/* "{r0, r1, ..}": registers regs[0..n-1] of gathers g[k & 1]. */
static const char *reg_list(Px *p, const Inst *const *g, const uint32_t *regs, uint32_t n)
{
	Buf d = {0};
	buf_putc(&d, '{');
	for (uint32_t k = 0; k < n; k++)
		buf_printf(&d, "%s%s", k ? ", " : "", px_own(p, g[k & 1], regs[k]));
	buf_putc(&d, '}');
	const char *s = arena_printf(p->arena, "%s", buf_cstr(&d));
	buf_free(&d);
	return s;
}

/* The two gathers of one paired mma's A operand: matrix m of the x4 is
 * register reg[m] of g[m & 1], so that the four land in the order of
 * mma's A registers (a0, a2: the first call's rows, a1, a3: the
 * second's).  Emitted at the earlier gather, first. */
typedef struct PxLdsm {
	const Inst *g[2];
	uint32_t reg[4];
	const Inst *first;
	bool made;            /* the x4 was emitted at first */
} PxLdsm;

/* Registers 0 and 1 of cm_dpas i's A operand as registers *r0, *r1 of
 * the gather *g, when i reads it in its own layout. */
static bool a_origin(Px *p, const Inst *i, const Inst **g, uint32_t *r0, uint32_t *r1)
{
	const Inst *a = i->ops[2], *g1;
	const Layout *rd = px_read_layout(p, (Inst *)i, 2);
	if (!rd || rd->canon || rd->nregs != 2 || !lay_equal(rd, p->val[a->id].lay))
		return false;
	return px_origin_reg(p, a, 0, g, r0) && px_origin_reg(p, a, 1, &g1, r1) && *g == g1 &&
	       (*g)->op == Ogather && (*g)->space == SP_SLM && !ir_mask(*g) &&
	       p->val[(*g)->id].lay && !p->val[(*g)->id].lay->canon;
}

/* A 32-bit offset as root * scale + c (ir_affine; a constant: root NULL). */
static void split(const Inst *v, const Inst **root, uint32_t *scale, int64_t *c)
{
	if (ir_const_int32(v, c))
		*root = NULL, *scale = 1;
	else
		ir_affine(v, root, scale, c);
}

/* The byte offset of gather y's address from gather x's when it is a
 * known constant: buffer offsets and global offsets of one root each. */
static bool delta(const Inst *x, const Inst *y, int64_t *d)
{
	const Inst *rx, *ry, *gx, *gy;
	uint32_t sx, sy, tx, ty;
	int64_t cx, cy, ex, ey;
	split(x->ops[0], &rx, &sx, &cx);
	split(y->ops[0], &ry, &sy, &cy);
	split(x->ops[1], &gx, &tx, &ex);
	split(y->ops[1], &gy, &ty, &ey);
	int unit = x->bytes ? 1 : ir_elem_bytes[x->ty.elem];
	*d = cy - cx + (ey - ex) * unit;
	return rx == ry && sx == sy && gx == gy && tx == ty;
}

/* Whether gathers x (earlier) and y may load at x: one block, no memory
 * write between, addresses a constant apart (so x's address and y's
 * constant offsets give y's; nothing of y's need be computed yet). */
static bool pairable(const Inst *x, const Inst *y)
{
	int64_t d;
	if (x == y || x->block != y->block || x->id > y->id || !px_quiet_between(x, y) ||
	    x->bytes != y->bytes || x->ty.elem != y->ty.elem || !delta(x, y, &d))
		return false;
	return true;
}

void px_ldsm_pairs(Px *p)
{
	if (p->o->no_ldmatrix || p->o->ptx_canonical || px_checking(p) || px_cluster_on(p))
		return;
	for (uint32_t b = 0; b < p->f->nblocks; b++)
		for (Inst *i = p->f->blocks[b]->first; i; i = i->next) {
			const Inst *j = i->op == Odpas ? p->val[i->id].dpair : NULL, *g[2];
			uint32_t r[4];
			if (!j || !a_origin(p, i, &g[0], &r[0], &r[2]) ||
			    !a_origin(p, j, &g[1], &r[1], &r[3]) || p->val[g[0]->id].ldsm ||
			    p->val[g[1]->id].ldsm)
				continue;
			const Inst *x = g[0]->id < g[1]->id ? g[0] : g[1], *y = x == g[0] ? g[1] : g[0];
			if (!pairable(x, y))
				continue;
			PxLdsm *l = NEW(p->arena, PxLdsm);
			*l = (PxLdsm){.g = {g[0], g[1]}, .reg = {r[0], r[1], r[2], r[3]}, .first = x};
			p->val[g[0]->id].ldsm = p->val[g[1]->id].ldsm = l;
		}
}

/* At the pair's first gather i: its x4, when both gathers qualify and the
 * four blocks' rows are affine in the lane. */
static bool emit_pair(Px *p, const Inst *i, PxLdsm *x, const char *base, bool *done)
{
	const Inst *other = x->g[0] == i ? x->g[1] : x->g[0];
	if (!px_ldsm_ok(p, other, px_gather_unchecked(p, other)))
		return false;
	int scale = i->bytes ? 1 : ir_elem_bytes[i->ty.elem];
	Rows R[4];
	Aff f;
	for (int m = 0; m < 4; m++) {
		const Inst *g = x->g[m & 1];
		const Layout *l = p->val[g->id].lay;
		if (!block_rows(lay_elems(p->arena, l), g->ops[2], scale, x->reg[m], R[m].at))
			return false;
		int64_t d = 0;
		if (g != i)
			delta(i, g, &d);
		for (int k = 0; k < 8; k++)
			R[m].at[k] += d;
	}
	if (!affine(R, 4, &f))
		return false;
	emit_ldsm(p, base, reg_list(p, x->g, x->reg, 4), 4, &f);
	for (int m = 0; m < 4; m++)
		if (x->g[m & 1] == i)
			done[x->reg[m]] = true;
	x->made = true;
	return true;
}

void px_ldsm_gather(Px *p, const Inst *i, const Layout *l, const char *buf, bool *done)
{
	const Inst *offs = i->ops[2];
	int scale = i->bytes ? 1 : ir_elem_bytes[i->ty.elem];
	PxLdsm *x = p->val[i->id].ldsm;
	if (x && x->first == i)
		x->made = false;   /* (a versioned loop's other copy emits it anew) */
	if (x && x->made) {   /* the pair's x4 at its first gather loaded these */
		for (int m = 0; m < 4; m++)
			if (x->g[m & 1] == i)
				done[x->reg[m]] = true;
	}
	const int32_t *el = lay_elems(p->arena, l);
	Rows *R = NEWN(p->tmp, Rows, l->nregs);
	bool *ok = NEWN(p->tmp, bool, l->nregs);
	uint32_t nblk = 0;
	for (uint32_t r = 0; r < l->nregs; r++) {
		ok[r] = !done[r] && block_rows(el, offs, scale, r, R[r].at);
		nblk += ok[r];
	}
	if (!nblk)
		return;
	/* the uniform base: the buffer's SLM address + goff * scale */
	const char *base = px_tmp(p, RC_B32);
	px_ins(p, "mad.lo.u32 %s, %s, %d, %s", base, px_reg(p, i->ops[1], 0), scale, buf);
	if (x && x->first == i && emit_pair(p, i, x, base, done))
		for (uint32_t r = 0; r < l->nregs; r++)
			ok[r] = ok[r] && !done[r];
	const Inst *gi[2] = { i, i };
	for (uint32_t r = 0; r < l->nregs; ) {
		uint32_t n = 0, regs[4];
		Aff f;
		while (n < 4 && r + n < l->nregs && ok[r + n] && affine(R + r, n + 1, &f))
			n++;
		if (n == 3)   /* no .x3: x2, then the third on its own */
			n = 2;
		if (!n) {
			r++;
			continue;
		}
		affine(R + r, n, &f);
		for (uint32_t k = 0; k < n; k++)
			regs[k] = r + k;
		emit_ldsm(p, base, reg_list(p, gi, regs, n), n, &f);
		for (uint32_t k = 0; k < n; k++)
			done[r + k] = true;
		r += n;
	}
}
