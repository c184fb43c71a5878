/* ptxsim.c — runs a launch of a kernel that ptxsim_parse.c decoded.
 *
 * The grid's CTAs run one after another.  A CTA's warps run one after
 * another, each until every lane of it has exited or waits at a CTA
 * barrier; when no warp can go on, the barriers whose arrivals are
 * complete release their lanes and the round starts again (no release
 * possible: a deadlock, reported).  Execution is sequential, so atomics
 * are plain read-modify-writes and the memory model's orderings hold
 * trivially.
 *
 * Within a warp every lane has its own program counter (the SIMT model of
 * independent thread scheduling, with min-PC reconvergence): each step
 * runs the instruction at the smallest PC among the lanes that can go on,
 * for all the lanes at that PC together.  Lanes that took different sides
 * of a branch so run apart and meet again where their paths join.  A
 * warp-collective instruction (shfl.sync, vote.sync, redux.sync,
 * bar.warp.sync, mma.sync, ldmatrix) waits until every lane named by the
 * membermasks of the lanes at it has arrived; a membermask that names a
 * lane that can never arrive (guarded off; exited, except for shfl, vote
 * and redux, which wait for "all non-exited threads" of their membermask:
 * packed CM threads name the whole warp where their segments run
 * together, target/ptx/pack.c), a shuffle from a lane that is not
 * executing it, and a bra.uni whose lanes disagree are errors, as the PTX
 * ISA leaves them undefined.  Min-PC alone would starve a lane that
 * is ahead while others spin in a loop waiting for it (cm_wait between
 * the CM threads of a packed warp), so a lane that runs nanosleep gives
 * way: it runs again only when no other lane of its warp can, and then
 * after the other warps of the CTA had their turn.
 */
#include "ptxsim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALL_LANES 0xffffffffu
#define MAX_STEPS 400000000ull    /* warp instructions a launch may run */
#define NBARS 16

/* ---- global memory regions ---- */

typedef struct { uint64_t base, size; } Region;
static Region *regions;
static size_t nregions, capregions;

void ps_region(uint64_t base, uint64_t size, bool add)
{
	if (!add) {
		for (size_t i = 0; i < nregions; i++)
			if (regions[i].base == base)
				regions[i] = regions[--nregions];
		return;
	}
	if (nregions == capregions) {
		capregions = capregions ? 2 * capregions : 64;
		regions = realloc(regions, capregions * sizeof *regions);
	}
	regions[nregions++] = (Region){base, size};
}

static bool in_regions(uint64_t a, uint64_t n)
{
	static size_t last;
	if (last < nregions && a >= regions[last].base &&
	    a + n <= regions[last].base + regions[last].size)
		return true;
	for (size_t i = 0; i < nregions; i++)
		if (a >= regions[i].base && a + n <= regions[i].base + regions[i].size) {
			last = i;
			return true;
		}
	return false;
}

/* ---- the state of a launch ---- */

typedef struct {
	uint64_t *rf;             /* nregs x 32 lanes */
	int pc[PS_NLANES];
	uint32_t exited;          /* lanes exited (or beyond the CTA's threads) */
	uint32_t atbar;           /* lanes waiting at a CTA barrier */
	uint32_t waiting;         /* lanes waiting at a collective for others */
	uint32_t yield;           /* lanes that slept (nanosleep): others first */
	int8_t bar[PS_NLANES];    /* the barrier each atbar lane waits at */
	unsigned id;              /* warp index in the CTA */
	struct Copy *cp;          /* cp.async copies in flight, in issue order */
	size_t ncp, capcp;
	uint32_t cpgroup[PS_NLANES]; /* each lane's groups committed so far */
} Warp;

/* A cp.async in flight: its 4, 8 or 16 bytes, read when it was issued, reach the
 * shared memory when a wait_group finishes its group (a kernel that reads
 * them before that, or at another warp without a barrier after the wait,
 * sees the old bytes, as it may on a GPU). */
typedef struct Copy {
	uint64_t dst;             /* shared memory offset */
	uint32_t group;           /* the lane's group: cpgroup when issued */
	int lane;
	uint8_t bytes;            /* the cp-size: 4, 8 or 16 */
	uint8_t data[16];
} Copy;

typedef struct {
	const PsModule *m;
	const PsKernel *k;
	const PsLaunch *l;
	unsigned cta[3];
	Warp *w;
	unsigned nwarps;
	uint8_t *shared;
	uint64_t shsize;
	uint64_t arrived[NBARS];  /* threads arrived at each barrier */
	uint64_t expect[NBARS];   /* 0: every live thread of the CTA */
	uint64_t steps;
	bool yielded;             /* a warp gave way to others this round */
	char *err;
	size_t errlen;
	bool failed;
} Sim;

/* Fails the launch at instruction in (NULL: not at an instruction). */
static bool fail(Sim *s, const PsIns *in, const char *fmt, ...)
{
	if (s->failed)
		return false;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (in)
		snprintf(s->err, s->errlen, "ptxsim: kernel %s, PTX line %d `%s`: %s (CTA %u,%u,%u)",
		         s->k->name, in->line, in->text, msg, s->cta[0], s->cta[1], s->cta[2]);
	else
		snprintf(s->err, s->errlen, "ptxsim: kernel %s: %s", s->k->name, msg);
	s->failed = true;
	return false;
}

static uint64_t *reg(Warp *w, int r)
{
	return w->rf + (size_t)r * PS_NLANES;
}

static void put(Sim *s, Warp *w, int r, int lane, uint64_t v)
{
	unsigned bits = s->k->regs[r].ty.bits;
	reg(w, r)[lane] = bits >= 64 ? v : v & ((1ull << bits) - 1);
}

/* Thread index (x, y, z) of lane `lane` of warp w. */
static void thread_of(const Sim *s, const Warp *w, int lane, unsigned t[3])
{
	unsigned lin = w->id * PS_NLANES + (unsigned)lane, bx = s->l->block[0],
	         by = s->l->block[1];
	t[0] = lin % bx;
	t[1] = lin / bx % by;
	t[2] = lin / (bx * by);
}

static uint64_t special(Sim *s, Warp *w, int sr, int lane)
{
	unsigned t[3];
	thread_of(s, w, lane, t);
	uint32_t below = lane ? ALL_LANES >> (32 - lane) : 0;
	switch (sr) {
	case SR_laneid: return (uint64_t)lane;
	case SR_tid_x: case SR_tid_y: case SR_tid_z: return t[sr - SR_tid_x];
	case SR_ntid_x: case SR_ntid_y: case SR_ntid_z: return s->l->block[sr - SR_ntid_x];
	case SR_ctaid_x: case SR_ctaid_y: case SR_ctaid_z: return s->cta[sr - SR_ctaid_x];
	case SR_nctaid_x: case SR_nctaid_y: case SR_nctaid_z: return s->l->grid[sr - SR_nctaid_x];
	case SR_warpid: return w->id;
	case SR_nwarpid: return s->nwarps;
	case SR_clock: case SR_clock64: return s->steps;
	case SR_lanemask_eq: return 1u << lane;
	case SR_lanemask_lt: return below;
	case SR_lanemask_le: return below | 1u << lane;
	case SR_lanemask_gt: return ~(below | 1u << lane) & ALL_LANES;
	case SR_lanemask_ge: return ~below & ALL_LANES;
	}
	return 0;
}

static uint64_t sym_addr(const Sim *s, int i)
{
	const PsSym *y = &s->m->syms[i];
	return y->space == SP_PARAM ? 0 : y->addr;
}

/* Values of source operand o in the lanes of mask; t types immediates. */
static bool fetch(Sim *s, Warp *w, const PsIns *in, const PsOpnd *o, PsType t, uint32_t mask,
                  uint64_t *out)
{
	switch (o->kind) {
	case OK_REG: {
		const uint64_t *r = reg(w, o->reg);
		for (int l = 0; l < PS_NLANES; l++)
			out[l] = o->neg ? !(r[l] & 1) : r[l];
		return true;
	}
	case OK_IMM: {
		uint64_t v = ps_imm_bits(t, o);
		for (int l = 0; l < PS_NLANES; l++)
			out[l] = v;
		return true;
	}
	case OK_SREG:
		for (int l = 0; l < PS_NLANES; l++)
			out[l] = mask >> l & 1 ? special(s, w, o->sym, l) : 0;
		return true;
	case OK_SYM:
		if (s->m->syms[o->sym].space == SP_PARAM)
			return fail(s, in, "the address of a .param");
		for (int l = 0; l < PS_NLANES; l++)
			out[l] = sym_addr(s, o->sym);
		return true;
	}
	return fail(s, in, "an operand of a kind it cannot read here");
}

/* ---- memory ---- */

/* The host address of size bytes at operand o for lane, or NULL (the
 * launch failed). */
static uint8_t *address(Sim *s, Warp *w, const PsIns *in, const PsOpnd *o, int lane,
                        unsigned size)
{
	if (o->kind != OK_MEM)
		return fail(s, in, "an address operand that is not [..]"), NULL;
	uint64_t a = (uint64_t)o->imm;
	int space = in->space;
	if (o->reg >= 0)
		a += reg(w, o->reg)[lane];
	if (o->sym >= 0) {
		const PsSym *y = &s->m->syms[o->sym];
		if (y->space == SP_PARAM) {
			if (space != SP_PARAM || a + size > y->size)
				return fail(s, in, "a .param access outside %s", y->name), NULL;
			return (uint8_t *)s->l->params[y->addr] + a;
		}
		a += y->addr;
		if (space == SP_NONE)
			space = y->space;
	}
	if (a % size)
		return fail(s, in, "misaligned address 0x%llx (%u bytes) in lane %d",
		            (unsigned long long)a, size, lane), NULL;
	if (space == SP_SHARED) {
		if (a + size > s->shsize || a + size < a)
			return fail(s, in, "shared address 0x%llx (%u bytes) in lane %d is past the "
			            "%llu bytes of shared memory", (unsigned long long)a, size, lane,
			            (unsigned long long)s->shsize), NULL;
		return s->shared + a;
	}
	if (space != SP_GLOBAL && space != SP_NONE && space != SP_CONST)
		return fail(s, in, "a state space it does not simulate"), NULL;
	if (!in_regions(a, size))
		return fail(s, in, "global address 0x%llx (%u bytes) in lane %d is in no "
		            "allocation", (unsigned long long)a, size, lane), NULL;
	return (uint8_t *)(uintptr_t)a;
}

static uint64_t load_bits(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;
	memcpy(&v, p, size);   /* little-endian host */
	return v;
}

/* The destination registers of a load or the sources of a store: the
 * vector's elements, or the one register. */
static int elems(const PsOpnd *o, int *r)
{
	if (o->kind == OK_VEC) {
		for (int i = 0; i < o->nvec; i++)
			r[i] = o->vec[i];
		return o->nvec;
	}
	r[0] = o->kind == OK_REG ? o->reg : -2;
	return 1;
}

static bool do_ld(Sim *s, Warp *w, const PsIns *in, uint32_t mask)
{
	PsType t = in->ty[0];
	unsigned size = t.bits / 8;
	int r[4], n = elems(&in->o[0], r);
	if (n != (in->vec ? in->vec : 1) || r[0] == -2 || in->n != 2 || !size)
		return fail(s, in, "an ld of an unsupported form");
	for (int l = 0; l < PS_NLANES; l++) {
		if (!(mask >> l & 1))
			continue;
		uint8_t *p = address(s, w, in, &in->o[1], l, size * (unsigned)n);
		if (!p)
			return false;
		for (int i = 0; i < n; i++)
			if (r[i] >= 0)
				put(s, w, r[i], l, ps_ext(t, load_bits(p + i * size, size)));
	}
	return true;
}

static bool do_st(Sim *s, Warp *w, const PsIns *in, uint32_t mask)
{
	PsType t = in->ty[0];
	unsigned size = t.bits / 8;
	const PsOpnd *src = &in->o[1];
	int n = src->kind == OK_VEC ? src->nvec : 1;
	if (n != (in->vec ? in->vec : 1) || in->n != 2 || !size)
		return fail(s, in, "an st of an unsupported form");
	uint64_t v[4][PS_NLANES];
	for (int i = 0; i < n; i++) {
		PsOpnd e = *src;
		if (src->kind == OK_VEC) {
			e.kind = OK_REG;
			e.reg = src->vec[i];
			if (e.reg < 0)
				return fail(s, in, "a store of _");
		}
		if (!fetch(s, w, in, &e, t, mask, v[i]))
			return false;
	}
	for (int l = 0; l < PS_NLANES; l++) {
		if (!(mask >> l & 1))
			continue;
		uint8_t *p = address(s, w, in, &in->o[0], l, size * (unsigned)n);
		if (!p)
			return false;
		for (int i = 0; i < n; i++)
			memcpy(p + i * size, &v[i][l], size);
	}
	return true;
}

/* ---- cp.async ---- */

/* The value of address operand o in lane (register, offset and symbol). */
static uint64_t cp_addr(Sim *s, Warp *w, const PsOpnd *o, int lane)
{
	uint64_t a = (uint64_t)o->imm;
	if (o->reg >= 0)
		a += reg(w, o->reg)[lane];
	if (o->sym >= 0)
		a += sym_addr(s, o->sym);
	return a;
}

/* cp.async.{cg,ca}.shared.global [dst], [src], e{, src_size} (e = 4, 8 or
 * 16): lane l reads src_size bytes (the rest of the e zeros) now and
 * writes them later (finish_copies). */
static bool cp_issue(Sim *s, Warp *w, const PsIns *in, uint32_t mask)
{
	uint64_t sz[PS_NLANES];
	if ((in->n != 3 && in->n != 4) || in->o[0].kind != OK_MEM || in->o[1].kind != OK_MEM ||
	    in->o[2].kind != OK_IMM ||
	    (in->o[2].imm != 16 && in->o[2].imm != 8 && in->o[2].imm != 4))
		return fail(s, in, "a cp.async of a form it does not simulate");
	uint64_t e = (uint64_t)in->o[2].imm;
	if (in->n == 4 && !fetch(s, w, in, &in->o[3], (PsType){TK_U, 32}, mask, sz))
		return false;
	for (int l = 0; l < PS_NLANES; l++) {
		if (!(mask >> l & 1))
			continue;
		uint64_t d = cp_addr(s, w, &in->o[0], l), a = cp_addr(s, w, &in->o[1], l);
		uint64_t n = in->n == 4 ? sz[l] : e;
		if (d % e || a % e)
			return fail(s, in, "cp.async at misaligned addresses in lane %d", l);
		if (d + e > s->shsize)
			return fail(s, in, "cp.async to shared address 0x%llx in lane %d, past the %llu "
			            "bytes of shared memory", (unsigned long long)d, l,
			            (unsigned long long)s->shsize);
		if (n > e || (n && !in_regions(a, n)))
			return fail(s, in, "cp.async of %llu bytes from 0x%llx in lane %d, in no "
			            "allocation", (unsigned long long)n, (unsigned long long)a, l);
		if (w->ncp == w->capcp) {
			w->capcp = w->capcp ? 2 * w->capcp : 256;
			w->cp = realloc(w->cp, w->capcp * sizeof *w->cp);
		}
		Copy *c = &w->cp[w->ncp++];
		*c = (Copy){.dst = d, .group = w->cpgroup[l], .lane = l, .bytes = (uint8_t)e};
		if (n)
			memcpy(c->data, (const void *)(uintptr_t)a, n);
	}
	return true;
}

/* Writes the copies of the lanes in mask whose groups are older than the
 * last `keep` each committed, in issue order, and forgets them. */
static void finish_copies(Sim *s, Warp *w, uint32_t mask, uint64_t keep)
{
	size_t k = 0;
	for (size_t i = 0; i < w->ncp; i++) {
		Copy *c = &w->cp[i];
		if (mask >> c->lane & 1 && (uint64_t)c->group + keep < w->cpgroup[c->lane])
			memcpy(s->shared + c->dst, c->data, c->bytes);
		else
			w->cp[k++] = *c;
	}
	w->ncp = k;
}

static bool do_cp(Sim *s, Warp *w, const PsIns *in, uint32_t mask)
{
	switch (in->wg) {
	case WG_COMMIT:
		for (int l = 0; l < PS_NLANES; l++)
			w->cpgroup[l] += mask >> l & 1;
		return true;
	case WG_WAIT:
		if (in->n != 1 || in->o[0].kind != OK_IMM)
			return fail(s, in, "a cp.async.wait_group without its count");
		finish_copies(s, w, mask, (uint64_t)in->o[0].imm);
		return true;
	}
	return cp_issue(s, w, in, mask);
}

/* The new value of an atomic on old with operands b, c. */
static bool atomic_op(const PsIns *in, PsType t, uint64_t old, uint64_t b, uint64_t c,
                      uint64_t *nv)
{
	if (t.k == TK_F) {
		if (in->aop != AOP_ADD && in->aop != AOP_EXCH)
			return false;
		if (in->aop == AOP_EXCH)
			*nv = b;
		else if (t.bits == 32) {
			float x, y;
			uint32_t u = (uint32_t)old, v = (uint32_t)b;
			memcpy(&x, &u, 4), memcpy(&y, &v, 4);
			x += y;
			memcpy(&u, &x, 4);
			*nv = u;
		} else {
			double x, y;
			memcpy(&x, &old, 8), memcpy(&y, &b, 8);
			x += y;
			memcpy(nv, &x, 8);
		}
		return true;
	}
	uint64_t x = ps_ext(t, old), y = ps_ext(t, b);
	bool sg = t.k == TK_S;
	switch (in->aop) {
	case AOP_ADD: *nv = x + y; break;
	case AOP_MIN: *nv = sg ? ((int64_t)x < (int64_t)y ? x : y) : (x < y ? x : y); break;
	case AOP_MAX: *nv = sg ? ((int64_t)x > (int64_t)y ? x : y) : (x > y ? x : y); break;
	case AOP_INC: *nv = x >= y ? 0 : x + 1; break;
	case AOP_DEC: *nv = x == 0 || x > y ? y : x - 1; break;
	case AOP_CAS: *nv = x == y ? c : old; break;
	case AOP_EXCH: *nv = b; break;
	case AOP_AND: *nv = x & y; break;
	case AOP_OR: *nv = x | y; break;
	case AOP_XOR: *nv = x ^ y; break;
	default: return false;
	}
	return true;
}

/* atom d, [a], b[, c] and red [a], b: lane after lane. */
static bool do_atom(Sim *s, Warp *w, const PsIns *in, uint32_t mask)
{
	PsType t = in->ty[0];
	unsigned size = t.bits / 8;
	bool red = in->op == OP_red;
	int a = red ? 0 : 1, nsrc = in->n - a - 1;
	if (nsrc < 1 || nsrc > 2 || (!red && in->o[0].kind != OK_REG) || !size || in->vec)
		return fail(s, in, "an atomic of an unsupported form");
	uint64_t v[2][PS_NLANES];
	for (int i = 0; i < nsrc; i++)
		if (!fetch(s, w, in, &in->o[a + 1 + i], t, mask, v[i]))
			return false;
	for (int l = 0; l < PS_NLANES; l++) {
		if (!(mask >> l & 1))
			continue;
		uint8_t *p = address(s, w, in, &in->o[a], l, size);
		if (!p)
			return false;
		uint64_t old = load_bits(p, size), nv;
		if (!atomic_op(in, t, old, v[0][l], nsrc > 1 ? v[1][l] : 0, &nv))
			return fail(s, in, "an atomic operation it does not know");
		memcpy(p, &nv, size);
		if (!red)
			put(s, w, in->o[0].reg, l, ps_ext(t, old));
	}
	return true;
}

/* ---- ALU instructions and moves ---- */

/* The type that types source operand i's immediates. */
static PsType src_type(const PsIns *in, int i)
{
	if (in->op == OP_cvt && in->nty > 1)
		return in->ty[1];
	if ((in->op == OP_selp || in->op == OP_setp) && i == 2)
		return (PsType){TK_PRED, 1};
	if ((in->op == OP_shl || in->op == OP_shr) && i == 1)
		return (PsType){TK_U, 32};
	return in->ty[0];
}

/* mov between a vector {a, b} and one wider register. */
static bool mov_vector(Sim *s, Warp *w, const PsIns *in, uint32_t mask)
{
	const PsOpnd *d = &in->o[0], *a = &in->o[1];
	unsigned bits = in->ty[0].bits;
	if (d->kind == OK_VEC && a->kind == OK_REG) {
		unsigned eb = bits / d->nvec;
		for (int l = 0; l < PS_NLANES; l++)
			for (int i = 0; mask >> l & 1 && i < d->nvec; i++)
				if (d->vec[i] >= 0)
					put(s, w, d->vec[i], l, reg(w, a->reg)[l] >> (eb * i));
		return true;
	}
	if (d->kind == OK_REG && a->kind == OK_VEC) {
		unsigned eb = bits / a->nvec;
		uint64_t em = eb >= 64 ? ~0ull : (1ull << eb) - 1;
		for (int l = 0; l < PS_NLANES; l++) {
			uint64_t v = 0;
			for (int i = 0; i < a->nvec; i++)
				v |= (reg(w, a->vec[i] < 0 ? 0 : a->vec[i])[l] & em) << (eb * i);
			if (mask >> l & 1)
				put(s, w, d->reg, l, v);
		}
		return true;
	}
	return fail(s, in, "a mov of an unsupported form");
}

static bool do_alu(Sim *s, Warp *w, const PsIns *in, uint32_t mask)
{
	if (in->op == OP_mov && (in->o[0].kind == OK_VEC || in->o[1].kind == OK_VEC))
		return mov_vector(s, w, in, mask);
	uint64_t v[PS_MAXOPND - 1][PS_NLANES], d[PS_NLANES], d2[PS_NLANES];
	if (in->n < 2)
		return fail(s, in, "too few operands");
	for (int i = 1; i < in->n; i++)
		if (!fetch(s, w, in, &in->o[i], src_type(in, i - 1), mask, v[i - 1]))
			return false;
	const char *why;
	if (!ps_alu(in, v, d, d2, mask, &why))
		return fail(s, in, "%s", why);
	const PsOpnd *o = &in->o[0];
	int r = o->kind == OK_REG ? o->reg : o->kind == OK_VEC ? o->vec[0] : -1;
	int r2 = o->kind == OK_VEC && o->nvec > 1 ? o->vec[1] : -1;
	if (o->kind != OK_REG && o->kind != OK_VEC && o->kind != OK_SINK)
		return fail(s, in, "a destination that is not a register");
	for (int l = 0; l < PS_NLANES; l++) {
		if (!(mask >> l & 1))
			continue;
		if (r >= 0)
			put(s, w, r, l, d[l]);
		if (r2 >= 0)
			put(s, w, r2, l, d2[l]);
	}
	return true;
}

/* ---- warp collectives ---- */

static bool is_collective(const PsIns *in)
{
	return in->op == OP_shfl || in->op == OP_vote || in->op == OP_redux ||
	       in->op == OP_match || in->op == OP_mma || in->op == OP_ldmatrix ||
	       in->op == OP_wgmma || (in->op == OP_bar && in->mode == MODE_WARP);
}

/* The membermask operand of a collective (last; mma, ldmatrix: every
 * lane). */
static const PsOpnd *member_opnd(const PsIns *in)
{
	return in->op == OP_mma || in->op == OP_ldmatrix || in->op == OP_wgmma ? NULL :
	       &in->o[in->n - 1];
}

/* Per-lane membermasks of the lanes in group. */
static bool members(Sim *s, Warp *w, const PsIns *in, uint32_t group, uint64_t *mm)
{
	const PsOpnd *o = member_opnd(in);
	if (!o) {
		for (int l = 0; l < PS_NLANES; l++)
			mm[l] = ALL_LANES;
		return true;
	}
	return fetch(s, w, in, o, (PsType){TK_B, 32}, group, mm);
}

static bool do_shfl(Sim *s, Warp *w, const PsIns *in, uint32_t act, const uint64_t *mm)
{
	uint64_t a[PS_NLANES], b[PS_NLANES], c[PS_NLANES];
	if (in->n != 5 || in->ty[0].bits != 32)
		return fail(s, in, "a shfl of an unsupported form");
	PsType t = {TK_B, 32};
	if (!fetch(s, w, in, &in->o[1], t, act, a) || !fetch(s, w, in, &in->o[2], t, act, b) ||
	    !fetch(s, w, in, &in->o[3], t, act, c))
		return false;
	const PsOpnd *o = &in->o[0];
	int rd = o->kind == OK_VEC ? o->vec[0] : o->reg, rp = o->kind == OK_VEC ? o->vec[1] : -1;
	uint64_t d[PS_NLANES], p[PS_NLANES];
	for (int l = 0; l < PS_NLANES; l++) {
		if (!(act >> l & 1))
			continue;
		int lane = (int)(b[l] & 31), clamp = (int)(c[l] & 31), seg = (int)(c[l] >> 8 & 31);
		int maxl = (l & seg) | (clamp & ~seg), minl = l & seg, j;
		bool ok;
		switch (in->mode) {
		case MODE_UP: j = l - lane; ok = j >= maxl; break;
		case MODE_DOWN: j = l + lane; ok = j <= maxl; break;
		case MODE_BFLY: j = l ^ lane; ok = j <= maxl; break;
		case MODE_IDX: j = minl | (lane & ~seg); ok = j <= maxl; break;
		default: return fail(s, in, "a shfl mode it does not know");
		}
		if (!ok)
			j = l;
		if (!(act >> j & 1) || !(mm[l] >> j & 1))
			return fail(s, in, "lane %d reads lane %d, which does not execute it", l, j);
		d[l] = a[j];
		p[l] = ok;
	}
	for (int l = 0; l < PS_NLANES; l++) {
		if (!(act >> l & 1))
			continue;
		if (rd >= 0)
			put(s, w, rd, l, d[l]);
		if (rp >= 0)
			put(s, w, rp, l, p[l]);
	}
	return true;
}

static bool do_vote(Sim *s, Warp *w, const PsIns *in, uint32_t act, const uint64_t *mm)
{
	uint64_t a[PS_NLANES];
	if (in->n != 3 || in->o[0].kind != OK_REG)
		return fail(s, in, "a vote of an unsupported form");
	if (!fetch(s, w, in, &in->o[1], (PsType){TK_PRED, 1}, act, a))
		return false;
	uint32_t ballot = 0;
	for (int l = 0; l < PS_NLANES; l++)
		if (act >> l & 1 && a[l] & 1)
			ballot |= 1u << l;
	for (int l = 0; l < PS_NLANES; l++) {
		if (!(act >> l & 1))
			continue;
		uint32_t m = (uint32_t)mm[l] & act, yes = ballot & m;
		uint64_t v;
		switch (in->mode) {
		case MODE_ANY: v = yes != 0; break;
		case MODE_ALL: v = yes == m; break;
		case MODE_UNI: v = yes == 0 || yes == m; break;
		case MODE_BALLOT: v = yes; break;
		default: return fail(s, in, "a vote mode it does not know");
		}
		put(s, w, in->o[0].reg, l, v);
	}
	return true;
}

static bool do_redux(Sim *s, Warp *w, const PsIns *in, uint32_t act, const uint64_t *mm)
{
	uint64_t a[PS_NLANES];
	PsType t = in->ty[0];
	if (in->n != 3 || in->o[0].kind != OK_REG || t.bits != 32)
		return fail(s, in, "a redux of an unsupported form");
	if (!fetch(s, w, in, &in->o[1], t, act, a))
		return false;
	uint64_t d[PS_NLANES];
	for (int l = 0; l < PS_NLANES; l++) {
		if (!(act >> l & 1))
			continue;
		uint32_t m = (uint32_t)mm[l] & act;   /* exited lanes take no part */
		bool first = true;
		uint64_t acc = 0;
		for (int j = 0; j < PS_NLANES; j++) {
			if (!(m >> j & 1))
				continue;
			uint64_t x = ps_ext(t, a[j]), nv;
			PsIns op = *in;
			if (!atomic_op(&op, t, acc, x, 0, &nv))
				return fail(s, in, "a redux operation it does not know");
			acc = first ? x : nv;
			first = false;
		}
		d[l] = acc;
	}
	for (int l = 0; l < PS_NLANES; l++)
		if (act >> l & 1)
			put(s, w, in->o[0].reg, l, d[l]);
	return true;
}

/* match.any.sync.b32/b64 d, a, membermask: d is the lanes of the mask
 * whose a equals this lane's. */
static bool do_match(Sim *s, Warp *w, const PsIns *in, uint32_t act, const uint64_t *mm)
{
	uint64_t a[PS_NLANES];
	PsType t = in->ty[0];
	if (in->n != 3 || in->o[0].kind != OK_REG || in->mode != MODE_ANY ||
	    (t.bits != 32 && t.bits != 64))
		return fail(s, in, "a match of an unsupported form");
	if (!fetch(s, w, in, &in->o[1], t, act, a))   /* every a before any d */
		return false;
	for (int l = 0; l < PS_NLANES; l++) {
		if (!(act >> l & 1))
			continue;
		uint32_t m = (uint32_t)mm[l] & act, same = 0;
		for (int j = 0; j < PS_NLANES; j++)
			if (m >> j & 1 && a[j] == a[l])
				same |= 1u << j;
		put(s, w, in->o[0].reg, l, same);
	}
	return true;
}

/* The registers of vector operand o into v; their count, or -1. */
static int vec_values(Warp *w, const PsOpnd *o, uint64_t (*v)[PS_NLANES])
{
	if (o->kind != OK_VEC)
		return -1;
	for (int i = 0; i < o->nvec; i++) {
		if (o->vec[i] < 0)
			return -1;
		memcpy(v[i], reg(w, o->vec[i]), sizeof v[i]);
	}
	return o->nvec;
}

/* mma.sync d, a, b, c: every lane of the warp takes part. */
static bool do_mma(Sim *s, Warp *w, const PsIns *in, uint32_t act)
{
	uint64_t a[4][PS_NLANES], b[4][PS_NLANES], c[4][PS_NLANES], d[4][PS_NLANES];
	const char *why;
	if (act != ALL_LANES)
		return fail(s, in, "mma.sync without all 32 lanes (0x%08x)", act);
	int na = vec_values(w, &in->o[1], a), nb = vec_values(w, &in->o[2], b);
	int nc = vec_values(w, &in->o[3], c), nd = in->o[0].kind == OK_VEC ? in->o[0].nvec : -1;
	if (na < 0 || nb < 0 || nc < 0 || nd != nc || !ps_mma(in, a, na, b, nb, c, nc, d, &why))
		return fail(s, in, "%s", na < 0 || nb < 0 || nc < 0 || nd != nc ?
		            "an mma of an unsupported form" : why);
	for (int i = 0; i < nd; i++)
		for (int l = 0; l < PS_NLANES; l++)
			if (in->o[0].vec[i] >= 0)
				put(s, w, in->o[0].vec[i], l, d[i][l]);
	return true;
}

/* ldmatrix.sync.aligned.m8n8.xN.shared.b16: N 8 x 8 matrices of 16-bit
 * elements, row i of matrix j at the 16-byte aligned address lane 8j + i
 * gives; lane l receives, in register j, the two elements of row l / 4 at
 * bytes 4 (l % 4) .. +3.  (.trans is not simulated.) */
static bool do_ldmatrix(Sim *s, Warp *w, const PsIns *in, uint32_t act)
{
	int r[4], n = elems(&in->o[0], r);
	if (act != ALL_LANES)
		return fail(s, in, "ldmatrix without all 32 lanes (0x%08x)", act);
	if (in->shape[0] != 8 || in->shape[1] != 8 || n != in->vec || in->n != 2 ||
	    in->space != SP_SHARED || in->ty[0].bits != 16 || r[0] == -2)
		return fail(s, in, "an ldmatrix of an unsupported form");
	uint64_t d[4][PS_NLANES];
	for (int j = 0; j < n; j++)
		for (int i = 0; i < 8; i++) {
			uint8_t *row = address(s, w, in, &in->o[1], 8 * j + i, 16);
			if (!row)
				return false;
			for (int t = 0; t < 4; t++)
				d[j][4 * i + t] = load_bits(row + 4 * t, 4);
		}
	for (int j = 0; j < n; j++)
		for (int l = 0; l < PS_NLANES; l++)
			if (r[j] >= 0)
				put(s, w, r[j], l, d[j][l]);
	return true;
}

/* wgmma (sm_90a) for cmetal's cm_wgmma: .fence, .commit_group and
 * .wait_group order nothing here (the simulator runs each mma_async to
 * its end at once); mma_async m64nNk16 .f32.f16.f16 (or .bf16) with both
 * operands in shared memory, described by K-major descriptors (dpas.c
 * px_wgmma): warp w % 4 of the warpgroup computes rows 16 (w % 4) .. + 15
 * of D += A B.  Without a swizzle, A element (m, k) at start_a + SBO
 * (m / 8) + LBO (k / 8) + 16 (m % 8) + 2 (k % 8), B element (k, n) the
 * same with n for m; with the 128-byte swizzle (layout type 1, base offset
 * 0), at x = start + SBO (m / 8) + 128 (m % 8) + 2 k, its 16-byte chunk
 * (address bits 4..6) exchanged by bits 7..9 (wg_at).  Each lane's
 * registers are the m16n8 C fragment of every 8 columns (ptxsim_mma.c).
 * Products summed in double, rounded once. */
static uint64_t wg_at(uint64_t at, uint32_t lbo, uint32_t sbo, bool sw, int r, int k)
{
	if (!sw)
		return at + sbo * (uint64_t)(r / 8) + lbo * (uint64_t)(k / 8) + 16 * (uint64_t)(r % 8) +
		       2 * (uint64_t)(k % 8);
	uint64_t x = at + sbo * (uint64_t)(r / 8) + 128 * (uint64_t)(r % 8) + 2 * (uint64_t)k;
	return x ^ (x >> 3 & 0x70);
}

static bool do_wgmma(Sim *s, Warp *w, const PsIns *in, uint32_t act)
{
	if (act != ALL_LANES)
		return fail(s, in, "wgmma without all 32 lanes (0x%08x)", act);
	if (in->wg != WG_MMA)
		return in->wg ? true : fail(s, in, "a wgmma it does not simulate");
	int n = in->shape[1];
	PsType ta = in->ty[1];
	if (in->shape[0] != 64 || in->shape[2] != 16 || n < 8 || n % 8 || in->nwreg != n / 2 ||
	    in->n != 7 || in->nty != 3 || ta.bits != 16 || in->ty[2].k != ta.k)
		return fail(s, in, "a wgmma of a form it does not simulate");
	for (int k = 2; k < 7; k++)
		if (in->o[k].kind != OK_IMM || in->o[k].imm != (k < 5))
			return fail(s, in, "a wgmma with scales or transposes it does not simulate");
	if (w->id / 4 >= (s->nwarps + 3) / 4 || (w->id | 3) >= s->nwarps)
		return fail(s, in, "a wgmma in an incomplete warpgroup (%u warps)", s->nwarps);
	uint64_t at[2];
	uint32_t lbo[2], sbo[2];
	bool sw[2];
	for (int k = 0; k < 2; k++) {
		if (in->o[k].kind != OK_REG)
			return fail(s, in, "a wgmma descriptor that is not a register");
		uint64_t desc = reg(w, in->o[k].reg)[0], rows = k ? (uint64_t)n : 64;
		at[k] = (desc & 0x3fff) << 4;
		lbo[k] = (uint32_t)((desc >> 16 & 0x3fff) << 4);
		sbo[k] = (uint32_t)((desc >> 32 & 0x3fff) << 4);
		sw[k] = desc >> 62 == 1;
		if ((desc >> 62 && !sw[k]) || (desc >> 49 & 7))
			return fail(s, in, "a wgmma descriptor with a swizzle other than 128 bytes or "
			            "a base offset");
		/* the swizzle's phase is the address's, as cmetal's layout takes it,
		 * only from row 0 of a 1024-byte block with base offset 0 */
		if (sw[k] && (at[k] % 1024 > 96 || sbo[k] != 1024))
			return fail(s, in, "a swizzled wgmma operand %llu bytes into its 1024-byte "
			            "block, or row groups %u bytes apart (cmetal's are 1024)",
			            (unsigned long long)(at[k] % 1024), sbo[k]);
		uint64_t end = sw[k] ? at[k] - at[k] % 128 + (rows / 8 - 1) * sbo[k] + 1024 :
		                       at[k] + (rows / 8 - 1) * sbo[k] + lbo[k] + 128;
		if (end > s->shsize)
			return fail(s, in, "a wgmma operand past the %llu bytes of shared memory",
			            (unsigned long long)s->shsize);
	}
	int r0 = 16 * (int)(w->id % 4);
	double A[16][16], B[16][256];
	for (int m = 0; m < 16; m++)
		for (int k = 0; k < 16; k++) {
			uint16_t h;
			memcpy(&h, s->shared + wg_at(at[0], lbo[0], sbo[0], sw[0], r0 + m, k), 2);
			A[m][k] = ps_half_value(ta, h);
		}
	for (int j = 0; j < n; j++)
		for (int k = 0; k < 16; k++) {
			uint16_t h;
			memcpy(&h, s->shared + wg_at(at[1], lbo[1], sbo[1], sw[1], j, k), 2);
			B[k][j] = ps_half_value(ta, h);
		}
	for (int r = 0; r < in->nwreg; r++)
		for (int l = 0; l < PS_NLANES; l++) {
			int q = r % 4, row = l / 4 + 8 * (q / 2), col = 8 * (r / 4) + 2 * (l % 4) + q % 2;
			float f;
			uint32_t u = (uint32_t)reg(w, in->wreg[r])[l];
			memcpy(&f, &u, 4);
			double sum = f;
			for (int k = 0; k < 16; k++)
				sum += A[row][k] * B[k][col];
			f = (float)sum;
			memcpy(&u, &f, 4);
			put(s, w, in->wreg[r], l, u);
		}
	return true;
}

/* A collective over the lanes of group; act: those whose guard holds. */
static bool collective(Sim *s, Warp *w, const PsIns *in, uint32_t group, uint32_t act)
{
	uint64_t mm[PS_NLANES];
	if (!members(s, w, in, group, mm))
		return false;
	/* shfl, vote, redux and match wait for the non-exited lanes of the mask only */
	uint32_t gone = in->op == OP_shfl || in->op == OP_vote || in->op == OP_redux ||
	                in->op == OP_match ?
	                w->exited : 0;
	for (int l = 0; l < PS_NLANES; l++) {
		if (!(act >> l & 1))
			continue;
		uint32_t m = (uint32_t)mm[l];
		if (!(m >> l & 1))
			return fail(s, in, "lane %d is not in its own membermask 0x%08x", l, m);
		if (m & ~act & ~gone)
			return fail(s, in, "membermask 0x%08x of lane %d names lanes that do not "
			            "execute it (0x%08x: %s)", m, l, m & ~act & ~gone,
			            gone ? "guarded off" : "exited, or guarded off");
	}
	switch (in->op) {
	case OP_shfl: return do_shfl(s, w, in, act, mm);
	case OP_vote: return do_vote(s, w, in, act, mm);
	case OP_redux: return do_redux(s, w, in, act, mm);
	case OP_match: return do_match(s, w, in, act, mm);
	case OP_bar: return true;   /* bar.warp.sync: the convergence is all */
	case OP_ldmatrix: return do_ldmatrix(s, w, in, act);
	case OP_wgmma: return do_wgmma(s, w, in, act);
	}
	return do_mma(s, w, in, act);
}

/* Whether the collective at the lanes of group may run now: every lane
 * their membermasks name has arrived (or exited: collective() reports
 * it).  Else the group waits for the rest. */
static bool gathered(Sim *s, Warp *w, const PsIns *in, uint32_t group, uint32_t live,
                     bool *ready)
{
	uint64_t mm[PS_NLANES];
	if (!members(s, w, in, group, mm))
		return false;
	uint32_t need = 0;
	for (int l = 0; l < PS_NLANES; l++)
		if (group >> l & 1)
			need |= (uint32_t)mm[l];
	*ready = !(need & live & ~group);
	if (need & w->atbar & ~group)
		return fail(s, in, "membermask names lanes waiting at a CTA barrier");
	return true;
}

/* ---- control flow and barriers ---- */

static uint32_t guard_mask(Warp *w, const PsIns *in, uint32_t group)
{
	if (in->guard < 0)
		return group;
	const uint64_t *p = reg(w, in->guard);
	uint32_t m = 0;
	for (int l = 0; l < PS_NLANES; l++)
		if (group >> l & 1 && (p[l] & 1) != in->gneg)
			m |= 1u << l;
	return m;
}

static void advance(Warp *w, uint32_t lanes, int to)
{
	for (int l = 0; l < PS_NLANES; l++)
		if (lanes >> l & 1)
			w->pc[l] = to;
}

static bool do_bra(Sim *s, Warp *w, const PsIns *in, uint32_t group, uint32_t act, int pc)
{
	if (in->n != 1 || in->o[0].kind != OK_LABEL)
		return fail(s, in, "a branch of an unsupported form");
	if ((in->flags & F_UNI) && act && act != group)
		return fail(s, in, "bra.uni diverges: lanes 0x%08x of 0x%08x take it", act, group);
	advance(w, group & ~act, pc + 1);
	advance(w, act, in->o[0].sym);
	return true;
}

/* bar.sync / barrier.sync / barrier.cta.{sync,arrive} a{, b}. */
static bool do_barrier(Sim *s, Warp *w, const PsIns *in, uint32_t group, uint32_t act, int pc)
{
	uint64_t id[PS_NLANES], cnt[PS_NLANES];
	bool arrive = in->mode == MODE_ARRIVE;
	if (in->n < 1 || in->n > 2)
		return fail(s, in, "a barrier of an unsupported form");
	if (!fetch(s, w, in, &in->o[0], (PsType){TK_U, 32}, act, id) ||
	    (in->n == 2 && !fetch(s, w, in, &in->o[1], (PsType){TK_U, 32}, act, cnt)))
		return false;
	advance(w, group & ~act, pc + 1);
	for (int l = 0; l < PS_NLANES; l++) {
		if (!(act >> l & 1))
			continue;
		if (id[l] >= NBARS)
			return fail(s, in, "barrier %llu", (unsigned long long)id[l]);
		uint64_t e = in->n == 2 ? cnt[l] : 0;
		if (s->arrived[id[l]] && s->expect[id[l]] != e)
			return fail(s, in, "barrier %llu used with different thread counts",
			            (unsigned long long)id[l]);
		s->expect[id[l]] = e;
		s->arrived[id[l]]++;
		if (arrive) {
			w->pc[l] = pc + 1;
		} else {
			w->atbar |= 1u << l;
			w->bar[l] = (int8_t)id[l];
		}
	}
	return true;
}

/* Runs one instruction for the lanes of group (all at pc). */
static bool step(Sim *s, Warp *w, uint32_t group, int pc)
{
	const PsIns *in = &s->k->ins[pc];
	uint32_t act = guard_mask(w, in, group);
	switch (in->op) {
	case OP_bra: return do_bra(s, w, in, group, act, pc);
	case OP_ret: case OP_exit:
		w->exited |= act;
		advance(w, group & ~act, pc + 1);
		return true;
	case OP_bar: case OP_barrier:
		if (in->mode != MODE_WARP)
			return do_barrier(s, w, in, group, act, pc);
		break;
	case OP_BAD:
		return fail(s, in, "not supported: %s", in->why);
	}
	advance(w, group, pc + 1);
	if (!act && !is_collective(in))
		return true;
	switch (in->op) {
	case OP_ld: return do_ld(s, w, in, act);
	case OP_st: return do_st(s, w, in, act);
	case OP_atom: case OP_red: return do_atom(s, w, in, act);
	case OP_cp: return do_cp(s, w, in, act);
	case OP_fence: case OP_membar: return true;
	case OP_nanosleep:
		w->yield |= act;
		return true;
	case OP_activemask:
		for (int l = 0; l < PS_NLANES; l++)
			if (act >> l & 1)
				put(s, w, in->o[0].reg, l, group);
		return true;
	case OP_shfl: case OP_vote: case OP_redux: case OP_match: case OP_mma: case OP_bar:
	case OP_ldmatrix: case OP_wgmma:
		return collective(s, w, in, group, act);
	case OP_testp:
		return fail(s, in, "testp is not simulated");
	}
	return do_alu(s, w, in, act);
}

/* $PTXSIM_TRACE: every instruction on stderr, with the lanes that run it
 * ($PTXSIM_LANE: the results of that lane, else of the first that runs)
 * and, after it, its first operand in the lowest of them. */
static int trace = -1;

static void trace_step(Sim *s, Warp *w, uint32_t group, int pc, bool before)
{
	const PsIns *in = &s->k->ins[pc];
	static int want = -2;   /* $PTXSIM_LANE: the lane whose results show */
	if (want == -2)
		want = getenv("PTXSIM_LANE") ? atoi(getenv("PTXSIM_LANE")) & 31 : -1;
	int l = want >= 0 ? want : group ? __builtin_ctz(group) : 0;
	if (before) {
		fprintf(stderr, "[%u.%u %08x] %5d: %s", s->cta[0], w->id, group, in->line, in->text);
		return;
	}
	if (in->n && in->o[0].kind == OK_REG)
		fprintf(stderr, "   = 0x%llx", (unsigned long long)reg(w, in->o[0].reg)[l]);
	fprintf(stderr, "\n");
}

/* Runs warp w until all its lanes have exited or wait at a barrier. */
static bool run_warp(Sim *s, Warp *w)
{
	const PsKernel *k = s->k;
	for (;;) {
		uint32_t live = ~(w->exited | w->atbar), cand = live & ~w->waiting & ~w->yield;
		if (!live)
			return true;
		if (!cand && (live & ~w->waiting)) {   /* only sleepers: the other warps */
			w->yield = 0;
			s->yielded = true;
			return true;
		}
		if (!cand)
			return fail(s, &k->ins[w->pc[__builtin_ctz(live)]],
			            "warp %u: lanes 0x%08x wait at warp collectives that the others "
			            "never reach", w->id, live);
		int pc = INT32_MAX;
		for (int l = 0; l < PS_NLANES; l++)
			if (cand >> l & 1 && w->pc[l] < pc)
				pc = w->pc[l];
		if (pc >= k->nins)
			return fail(s, NULL, "warp %u ran past the end of the kernel", w->id);
		uint32_t group = 0;
		for (int l = 0; l < PS_NLANES; l++)
			if (live >> l & 1 && w->pc[l] == pc)
				group |= 1u << l;
		const PsIns *in = &k->ins[pc];
		if (is_collective(in)) {
			bool ready;
			if (!gathered(s, w, in, group, live, &ready))
				return false;
			if (!ready) {
				w->waiting |= group;
				continue;
			}
			w->waiting &= ~group;
		}
		if (++s->steps > MAX_STEPS)
			return fail(s, in, "ran %llu warp instructions: an endless loop?",
			            (unsigned long long)MAX_STEPS);
		if (trace)
			trace_step(s, w, group, pc, true);
		if (!step(s, w, group, pc))
			return false;
		if (trace)
			trace_step(s, w, group, pc, false);
	}
}

/* Live threads of the CTA (not exited). */
static uint64_t live_threads(const Sim *s)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < s->nwarps; i++)
		n += (uint64_t)__builtin_popcount(~s->w[i].exited);
	return n;
}

/* Releases the barriers whose arrivals are complete; false if none. */
static bool release(Sim *s)
{
	bool any = false;
	for (int b = 0; b < NBARS; b++) {
		if (!s->arrived[b])
			continue;
		uint64_t want = s->expect[b] ? s->expect[b] : live_threads(s);
		if (s->arrived[b] < want)
			continue;
		for (unsigned i = 0; i < s->nwarps; i++)
			for (int l = 0; l < PS_NLANES; l++)
				if (s->w[i].atbar >> l & 1 && s->w[i].bar[l] == b) {
					s->w[i].atbar &= ~(1u << l);
					s->w[i].pc[l]++;
				}
		s->arrived[b] = 0;
		any = true;
	}
	return any;
}

static bool run_cta(Sim *s)
{
	uint64_t nthreads = (uint64_t)s->l->block[0] * s->l->block[1] * s->l->block[2];
	for (unsigned i = 0; i < s->nwarps; i++) {
		Warp *w = &s->w[i];
		uint64_t first = (uint64_t)i * PS_NLANES;
		w->id = i;
		w->exited = nthreads - first >= PS_NLANES ? 0 : ALL_LANES << (nthreads - first);
		w->atbar = w->waiting = w->yield = 0;
		memset(w->pc, 0, sizeof w->pc);
		w->ncp = 0;   /* copies never waited for are lost with their CTA */
		memset(w->cpgroup, 0, sizeof w->cpgroup);
	}
	memset(s->arrived, 0, sizeof s->arrived);
	for (;;) {
		bool done = true;
		s->yielded = false;
		for (unsigned i = 0; i < s->nwarps; i++) {
			if (!run_warp(s, &s->w[i]))
				return false;
			done &= s->w[i].exited == ALL_LANES;
		}
		if (done)
			return true;
		if (!release(s) && !s->yielded)
			return fail(s, NULL, "CTA %u,%u,%u: deadlock at a barrier (%llu of %llu "
			            "threads arrived)", s->cta[0], s->cta[1], s->cta[2],
			            (unsigned long long)s->arrived[0],
			            (unsigned long long)live_threads(s));
	}
}

static const PsKernel *find_kernel(const PsModule *m, const char *name)
{
	for (int i = 0; i < m->nks; i++)
		if (!strcmp(m->ks[i].name, name))
			return &m->ks[i];
	return NULL;
}

/* Allocates the warps' registers and the CTA's shared memory. */
static bool setup(Sim *s)
{
	const PsLaunch *l = s->l;
	uint64_t nthreads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
	if (!nthreads || nthreads > 1024)
		return fail(s, NULL, "a CTA of %llu threads", (unsigned long long)nthreads);
	s->nwarps = (unsigned)((nthreads + PS_NLANES - 1) / PS_NLANES);
	s->w = calloc(s->nwarps, sizeof *s->w);
	for (unsigned i = 0; i < s->nwarps; i++)
		s->w[i].rf = calloc((size_t)s->k->nregs * PS_NLANES + 1, sizeof(uint64_t));
	s->shsize = (s->m->shared_static + 15) / 16 * 16 + l->shmem;
	s->shared = calloc(1, s->shsize + 1);
	return true;
}

static void teardown(Sim *s)
{
	for (unsigned i = 0; s->w && i < s->nwarps; i++) {
		free(s->w[i].rf);
		free(s->w[i].cp);
	}
	free(s->w);
	free(s->shared);
}

bool ps_launch(PsModule *m, const char *name, const PsLaunch *l, char *err, size_t errlen)
{
	Sim s = {.m = m, .l = l, .err = err, .errlen = errlen};
	if (trace < 0)
		trace = getenv("PTXSIM_TRACE") != NULL;
	s.k = find_kernel(m, name);
	if (!s.k)
		return snprintf(err, errlen, "ptxsim: no kernel %s", name), false;
	if (m->why)
		return snprintf(err, errlen, "ptxsim: PTX line %d: not supported: %s", m->whyline,
		                m->why), false;
	if (s.k->why)
		return fail(&s, NULL, "PTX line %d: not supported: %s", s.k->whyline, s.k->why);
	if (!setup(&s)) {
		teardown(&s);
		return false;
	}
	for (unsigned z = 0; z < l->grid[2] && !s.failed; z++)
		for (unsigned y = 0; y < l->grid[1] && !s.failed; y++)
			for (unsigned x = 0; x < l->grid[0] && !s.failed; x++) {
				s.cta[0] = x, s.cta[1] = y, s.cta[2] = z;
				memset(s.shared, 0, s.shsize);
				run_cta(&s);
			}
	teardown(&s);
	return !s.failed;
}
