/* vloop.c — loop versioning of bounds checks: a loop whose block accesses
 * sit at offsets linear in its induction variable runs a second copy of
 * itself, without their checks, when one test before the loop finds every
 * access of every iteration inside its buffer.  The accesses: block reads
 * and writes, and gathers and scatters at constant element offsets (their
 * span: the global offset's plus the offsets' range).  The buffers:
 * surface parameters, the SLM (from a buffer offset the same in every
 * iteration to the end of the kernel's constant SLM size), and the SLM
 * copies of vectors read at runtime positions (slm.c's groups of
 * extracts, whose first position must also stay a multiple of its 16-byte
 * loads).
 *
 * requires: layouts assigned, block ids in layout order (ir_renumber),
 * predecessor lists (ir_preds); bgroup.c and bpair.c have run.
 * changes: fills PxVal.inb (an access the test covers) and Px.vloops;
 * emit.c emits each versioned loop twice (px_vloop_*), mem.c leaves the
 * checks of covered accesses out in the second copy (px_unchecked).
 *
 * Every block access is checked against its surface's size, lane by lane
 * (mem.c): in the paper's dgemm about 9 of its 836 SASS per k step go to
 * each of the 40 loads' address, wrap guard, compare and zeroing, more
 * than its 128 shuffles (sm_90).  Their offsets are mostly ring
 * arithmetic (+, -, *, << by a constant) on values fixed before the loop
 * and on the induction variable k: off(k) = A + B k for the exact integer
 * values of those leaves.  The 32-bit offset the loop computes is off(k)
 * modulo 2^32, whatever the leaves' signedness, because ring operations
 * commute with the reduction.  So when the exact off(k) of the first and
 * of the last k both lie in [0, size - bytes] (with size <= 2^32), so does
 * every off(k) between them (it is linear), and each 32-bit offset equals
 * its exact value: every access of the loop is inside.
 *
 * The loop: the natural loop of a back edge tail -> head (blocks that
 * reach tail without passing head; the layout need not keep them
 * together), tail head's one predecessor inside.  Its induction variable
 * iv is a phi of head stepped by a positive constant; the loop goes on
 * while iv + c < bound or <= bound (c a constant, bound fixed before the
 * loop), tested in tail (then on the next iteration's iv: d = c - step)
 * or in head (on this one's: d = c).  Either way the iterations see iv in
 * {iv0 + j step} up to last = iv0 + floor((bound - 1 - d - iv0) / step)
 * step (iv0 itself even if it fails, harmlessly), provided the compared
 * values from iv0 + d to last + step + d do not wrap the type (the test
 * checks that too: a wrapped compare may let the loop go on); a head test
 * also runs head's own instructions for the failing iv, so head's
 * accesses are not covered.  Other exits only end the loop sooner.
 * (The lowering keeps each test of a && b its own compare, so `b < p0 +
 * PTS && b < n` bounds k-means' point loop.)
 *
 * The test (a stub that every entry from outside jumps to, just above the
 * head) computes last and evaluates, per span of accesses (one root, its
 * constant offsets' range), the root at iv0 exactly in 64 bits and at
 * last from its slope (root(last) = root(iv0) + slope * (last - iv0)):
 * each value's magnitude has a static bound, and where a product could
 * pass 2^62 an operand is checked at run time to stay within a bound that
 * prevents it (real offsets pass; a failure only means the checked copy
 * runs).  One uniform branch then enters the copy without checks.
 * What the back end can decide, it does (ptxas leaves much of the 64-bit
 * arithmetic in): a variable that starts at a constant, with a constant
 * bound, makes the trip count and the values that depend on them alone
 * constants, and their compares go; a root that moves by a constant per
 * step is checked at the low end's first byte and the high end's last
 * only (-fno-loop-test-fold evaluates all of it at run time).
 * (Tried and dropped: in that copy, offsets kept per span in registers
 * stepped at the back edge, for the pairs of bpair.c: the paper's dgemm
 * 2.65 -> 2.02 SASS per DFMA, yet 11.8 -> 14.4 ms on an H100; for single
 * blocks, more SASS in the paper's sgemm.)  SLM accesses of one span share
 * one address in the copy, each at an immediate offset from it
 * (px_vloop_base).  The SLM-staged sgemm's kk loop (four B rows and the
 * 16 A extracts a step), with neither its checks nor the extracts' range
 * branch: 1.625 -> 1.25 SASS per FFMA, 4096^3 5.61 -> 4.67 ms on an H100.
 * Loops nest in neither copy: the innermost loop with covered accesses is
 * versioned, loops around it are not.  Not versioned: packed CM threads
 * (a test per segment), the checking mode (its reports name each access),
 * loops whose test would evaluate more than MAX_NODES values.
 */
#include <stdlib.h>
#include <string.h>

#include "rt/cmk_abi.h"
#include "target/ptx/ptx.h"

#define MAX_NODES 512
#define B62 (1ull << 62)

/* The bytes [R * scale + lo, R * scale + hi) of a buffer that the
 * accesses at offsets R * scale + c (ir_affine) cover, for one root R; the
 * buffer: surface parameter surf, or (surf == SLM_BUF) the SLM from the
 * byte offset buf (cm_slm_alloc's value) on.  Or (surf == EXTRACTS) the
 * elements [R * scale + lo, R * scale + hi) that the runtime-offset
 * extracts led by buf read from their vector's SLM copy (slm.c), at
 * positions that must also be multiples of align (its 16-byte loads). */
typedef struct Span {
	const Inst *root;
	uint32_t scale, surf;
	const Inst *buf;
	int64_t lo, hi;
	uint32_t align;
} Span;

enum { SLM_BUF = UINT32_MAX, EXTRACTS = UINT32_MAX - 1 };

typedef struct PxLoop {
	uint32_t head, tail;  /* the header and the one block that jumps back */
	uint32_t last;        /* the loop's last block in the layout */
	bool *in;             /* by block id: in the loop */
	uint32_t nblocks;
	Inst *iv;             /* the phi of head */
	int64_t step;         /* > 0 */
	Inst *bound;          /* stay while iv + d < bound (le: <=), bound fixed */
	int64_t d;            /* (iv: the value the next iteration would take) */
	bool le, head_test;   /* the test is in head (else in tail) */
	uint32_t naccs;
	Inst **accs;          /* the accesses the test covers ... */
	uint32_t nspans;
	struct Span *spans;   /* ... whose bytes the test checks by span */
	uint32_t nnodes;      /* values its evaluation visits (MAX_NODES) */
} PxLoop;

static bool in_loop(const PxLoop *L, const Block *b)
{
	return L->in[b->id];
}

static bool is_int32(const Inst *v)
{
	return v->ty.n == 1 && (v->ty.elem == E_I32 || v->ty.elem == E_U32);
}

/* ---- which loops, which accesses ---------------------------------------- */

/* The natural loop of the back edge tail -> head (head dominates tail)
 * into L->in (a scratch array, cleared here): head and every block that
 * reaches tail without passing head, so it is entered at head only; its
 * size and last block.  False unless tail is head's one predecessor
 * inside. */
static bool natural_loop(Func *f, PxLoop *L, Block **work)
{
	Block *h = f->blocks[L->head], *t = f->blocks[L->tail];
	if (!ir_dominates(h, t))
		return false;
	memset(L->in, 0, f->nblocks);
	uint32_t n = 0;
	L->in[h->id] = true;
	if (!L->in[t->id])
		L->in[t->id] = true, work[n++] = t;
	while (n) {
		Block *b = work[--n];
		for (uint32_t k = 0; k < b->npreds; k++)
			if (!L->in[b->preds[k]->id])
				L->in[b->preds[k]->id] = true, work[n++] = b->preds[k];
	}
	L->nblocks = 0;
	for (uint32_t b = 0; b < f->nblocks; b++)
		if (L->in[b])
			L->nblocks++, L->last = b;
	for (uint32_t k = 0; k < h->npreds; k++)
		if (in_loop(L, h->preds[k]) && h->preds[k]->id != L->tail)
			return false;
	return true;
}

/* iv = phi of head whose value from tail is iv + step, step > 0. */
static bool is_iv(const PxLoop *L, const Inst *v, int64_t *step, Inst **next)
{
	if (v->op != Ophi || v->block->id != L->head || v->nops != 2 || !is_int32(v))
		return false;
	for (uint32_t k = 0; k < 2; k++) {
		Inst *n = v->ops[k];
		if (v->phiblk[k]->id != L->tail)
			continue;
		if (n->op != Oadd || n->sat || n->ty.elem != v->ty.elem)
			return false;
		int64_t c;
		Inst *o = n->ops[0] == v ? n->ops[1] : n->ops[1] == v ? n->ops[0] : NULL;
		if (!o || !ir_const_int32(o, &c) || c <= 0)
			return false;
		*step = c, *next = n;
		return true;
	}
	return false;
}

/* Flips a compare: the condition under which the loop goes on. */
static Op negate(Op op)
{
	return op == Olt ? Oge : op == Ole ? Ogt : op == Ogt ? Ole : Olt;
}

/* The exit test of block x, when it bounds the induction variable. */
static bool exit_test(PxLoop *L, Block *x, bool in_head)
{
	if (x->jmp.kind != J_CBR || in_loop(L, x->jmp.to[0]) == in_loop(L, x->jmp.to[1]))
		return false;
	Inst *t = x->jmp.cond;
	if (t->ty.n != 1 || (t->op != Olt && t->op != Ole && t->op != Ogt && t->op != Oge))
		return false;
	Op op = in_loop(L, x->jmp.to[0]) ? t->op : negate(t->op);
	Inst *a = t->ops[0], *b = t->ops[1];
	if (op == Ogt || op == Oge) {   /* a > b is b < a */
		Inst *x2 = a;
		a = b, b = x2, op = op == Ogt ? Olt : Ole;
	}
	int64_t k;
	if (!is_int32(b) || (in_loop(L, b->block) && !ir_const_int32(b, &k)))
		return false;
	/* a = phi + c: in head the value of this iteration, in tail that of
	 * the next less step */
	Inst *phi = a, *next;
	int64_t c = 0;
	if ((a->op == Oadd || a->op == Osub) && !a->sat && a->ops[0]->op == Ophi &&
	    ir_const_int32(a->ops[1], &c))
		phi = a->ops[0], c = a->op == Osub ? -c : c;
	else if (a->op == Oadd && !a->sat && a->ops[1]->op == Ophi && ir_const_int32(a->ops[0], &c))
		phi = a->ops[1];
	if (!is_iv(L, phi, &L->step, &next) || phi->ty.elem != b->ty.elem ||
	    a->ty.elem != phi->ty.elem)
		return false;
	L->iv = phi, L->bound = b, L->le = op == Ole, L->head_test = in_head;
	L->d = in_head ? c : c - L->step;
	return true;
}

/* seen[]: what linear() found of a value */
enum { UNSEEN, FAILED, FIXED, MOVES };

/* Whether v is ring arithmetic on 32-bit integers, constants, values fixed
 * before the loop and the induction variable, linear in the latter
 * (seen[v]: FIXED or MOVES with it); counts the values visited. */
static bool linear(Px *p, PxLoop *L, const Inst *v, uint8_t *seen)
{
	if (seen[v->id])
		return seen[v->id] != FAILED;
	seen[v->id] = FAILED;
	int64_t k;
	if (!is_int32(v) || p->val[v->id].skip || ++L->nnodes > MAX_NODES)
		return false;
	uint8_t r = FIXED;
	if (v == L->iv) {
		r = MOVES;
	} else if (ir_const_int32(v, &k) || !in_loop(L, v->block)) {
		r = FIXED;
	} else if (v->op == Oadd || v->op == Osub || v->op == Omul) {
		if (v->sat || !linear(p, L, v->ops[0], seen) || !linear(p, L, v->ops[1], seen))
			return false;
		uint8_t a = seen[v->ops[0]->id], b = seen[v->ops[1]->id];
		if (v->op == Omul && a == MOVES && b == MOVES)
			return false;   /* quadratic */
		r = a == MOVES || b == MOVES ? MOVES : FIXED;
	} else if (v->op == Oshl) {
		if (!ir_const_int32(v->ops[1], &k) || k < 0 || k > 31 || !linear(p, L, v->ops[0], seen))
			return false;
		r = seen[v->ops[0]->id];
	} else if (v->op == Oneg || v->op == Oconv || v->op == Ocopy) {
		if (v->sat || !is_int32(v->ops[0]) || !linear(p, L, v->ops[0], seen))
			return false;
		r = seen[v->ops[0]->id];
	} else {
		return false;
	}
	seen[v->id] = r;
	return true;
}

/* The buffer of access i is one the test can bound: a surface parameter,
 * or the SLM from a 32-bit buffer offset the same in every iteration (the
 * kernel's SLM size is a constant; not in a cluster, whose SLM is another
 * CTA's). */
static bool checked_buffer(Px *p, PxLoop *L, const Inst *i, uint8_t *seen)
{
	const Inst *b = i->ops[0];
	if (i->space == SP_SLM)
		return p->f->slm_size && !px_cluster_on(p) && is_int32(b) && linear(p, L, b, seen) &&
		       seen[b->id] == FIXED;
	return i->space == SP_SURF && b->op == Oarg && (uint32_t)b->imm < p->f->nparams &&
	       p->f->params[b->imm].kind == CMK_ARG_SURFACE;
}

/* A block access at a 32-bit offset. */
static bool checked_block(const Inst *i)
{
	return (i->op == Obload || i->op == Obstore) && is_int32(i->ops[1]);
}

/* Whether L's test pays for its gathers: L is not nested in another loop,
 * or its trip count is a constant (iv0 and bound).  An inner loop entered
 * once per row with a few iterations (the paper spmv's 32-wide row loop:
 * protein's rows have ~119 nonzeros) runs its test as often as its body:
 * H200, protein 0.049 -> 0.055 ms with its gathers covered, nd24k even. */
static bool gathers_pay(const Px *p, const PxLoop *L)
{
	if (p->depth[L->head] <= 1)
		return true;
	const Inst *iv = L->iv;
	int64_t k;
	for (uint32_t j = 0; j < iv->nops; j++)
		if (iv->phiblk[j]->id != L->tail && !ir_const_int32(iv->ops[j], &k))
			return false;
	return ir_const_int32(L->bound, &k);
}

/* A gather or scatter (unmasked) at constant element offsets from a
 * 32-bit global offset. */
static bool checked_gather(const Inst *i)
{
	if ((i->op != Ogather && i->op != Oscatter) || ir_mask(i) || !is_int32(i->ops[1]))
		return false;
	const Inst *offs = i->ops[2];
	return offs->op == Oconst && !ir_is_float(offs->ty.elem) && ir_elem_bytes[offs->ty.elem] == 4;
}

/* Whether i leads a group of runtime-offset extracts (slm.c) whose
 * offset is a 32-bit value. */
static bool extract_lead(Px *p, const Inst *i)
{
	return p->val[i->id].rlead == i && is_int32(ir_roff(i));
}

/* Adds [lo, hi) around offset off (ir_affine: root * scale + c) to L's
 * spans of buffer (surf, buf); spans of extracts are never merged (each
 * group's first position must be aligned). */
static uint32_t add_span(Px *p, PxLoop *L, const Inst *off, uint32_t unit, uint32_t surf,
                         const Inst *buf, int64_t lo, int64_t hi, uint32_t align, uint32_t *cap)
{
	const Inst *root;
	uint32_t scale;
	int64_t c;
	ir_affine(off, &root, &scale, &c);
	scale *= unit;   /* off counts units of that many bytes (a gather's elements) */
	lo += c * unit, hi += c * unit;
	for (uint32_t k = 0; k < L->nspans && surf != EXTRACTS; k++) {
		Span *s = &L->spans[k];
		if (s->root == root && s->scale == scale && s->surf == surf && s->buf == buf) {
			s->lo = lo < s->lo ? lo : s->lo;
			s->hi = hi > s->hi ? hi : s->hi;
			return k;
		}
	}
	if (L->nspans == *cap) {
		Span *a = NEWN(p->arena, Span, *cap * 2);
		memcpy(a, L->spans, *cap * sizeof *a);
		L->spans = a, *cap *= 2;
	}
	L->spans[L->nspans] = (Span){root, scale, surf, buf, lo, hi, align};
	return L->nspans++;
}

/* Adds access or extract group i to L's spans and notes which. */
static void add_access(Px *p, PxLoop *L, const Inst *i, uint32_t *cap)
{
	uint32_t k;
	if (i->op == Ordregion) {
		const PxVal *v = &p->val[i->id];
		k = add_span(p, L, ir_roff(i), 1, EXTRACTS, i, v->rkmin, (int64_t)v->rkmax + 1,
		             px_slm_vec(i->ty.elem), cap);
	} else if (i->op == Ogather || i->op == Oscatter) {
		/* element k at byte (goff + offs[k]) * es, offs constant */
		const Inst *val = i->op == Oscatter ? i->ops[3] : i, *offs = i->ops[2];
		int eb = ir_elem_bytes[val->ty.elem], es = i->bytes ? 1 : eb;
		uint64_t lo = UINT32_MAX, hi = 0;
		for (uint32_t e = 0; e < offs->ty.n; e++) {
			uint64_t o = (uint32_t)ir_const_at(offs, e).u;
			lo = o < lo ? o : lo, hi = o > hi ? o : hi;
		}
		bool slm = i->space == SP_SLM;
		k = add_span(p, L, i->ops[1], (uint32_t)es, slm ? SLM_BUF : (uint32_t)i->ops[0]->imm,
		             slm ? i->ops[0] : NULL, (int64_t)lo * es, (int64_t)hi * es + eb, 1, cap);
	} else {
		const Inst *val = i->op == Obstore ? i->ops[2] : i;
		bool slm = i->space == SP_SLM;
		k = add_span(p, L, i->ops[1], 1, slm ? SLM_BUF : (uint32_t)i->ops[0]->imm,
		             slm ? i->ops[0] : NULL, 0,
		             (int64_t)val->ty.n * ir_elem_bytes[val->ty.elem], 1, cap);
	}
	p->val[i->id].vspan = k + 1;
}

/* The accesses of L the test can cover, and their spans. */
static void covered(Px *p, Func *f, PxLoop *L, uint8_t *seen)
{
	uint32_t cap = 16, scap = 16;
	L->accs = NEWN(p->arena, Inst *, cap);
	L->spans = NEWN(p->arena, Span, scap);
	for (uint32_t b = 0; b < f->nblocks; b++) {
		if (!L->in[b] || (L->head_test && b == L->head))
			continue;
		for (Inst *i = f->blocks[b]->first; i; i = i->next) {
			bool blk = (checked_block(i) || (checked_gather(i) && gathers_pay(p, L))) &&
			           !p->val[i->id].proven && checked_buffer(p, L, i, seen);
			bool ext = !blk && extract_lead(p, i);
			if ((!blk && !ext) || !linear(p, L, blk ? i->ops[1] : ir_roff(i), seen))
				continue;
			if (L->naccs == cap) {
				Inst **a = NEWN(p->arena, Inst *, cap * 2);
				memcpy(a, L->accs, cap * sizeof *a);
				L->accs = a, cap *= 2;
			}
			L->accs[L->naccs++] = i;
			add_access(p, L, i, &scap);
		}
	}
}

static bool is_block(const Inst *i)
{
	return i->op == Obload || i->op == Obstore;   /* PxVal.blead is theirs */
}

/* A group of block accesses (bgroup.c) is covered whole or not at all:
 * its leader's test and pointer serve every member. */
static void whole_groups(Px *p, Func *f)
{
	bool *bad = NEWN(p->arena, bool, f->nextid + 1);   /* by leader */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t b = 0; b < f->nblocks; b++)
			for (Inst *i = f->blocks[b]->first; i; i = i->next) {
				const Inst *ld = is_block(i) ? p->val[i->id].blead : NULL;
				if (ld && !pass && !p->val[i->id].inb)
					bad[ld->id] = true;
				if (ld && pass && bad[ld->id])
					p->val[i->id].inb = false;
			}
}

static int by_size(const void *a, const void *b)
{
	const PxLoop *x = a, *y = b;
	return x->nblocks != y->nblocks ? (x->nblocks < y->nblocks ? -1 : 1)
	                                : (x->head < y->head ? -1 : x->head > y->head);
}

void px_vloops(Px *p)
{
	Func *f = p->f;
	if (p->o->no_loop_versions || px_checking(p) || p->lanes < 32)
		return;
	/* candidates, innermost (fewest blocks) first; each loop's blocks
	 * are found in one scratch array, again when its turn comes, so
	 * memory grows with the loops versioned, not with all loops */
	ir_dominators(f);
	PxLoop *c = NEWN(p->arena, PxLoop, 2 * f->nblocks + 1);
	bool *in = NEWN(p->arena, bool, f->nblocks + 1), *taken = NEWN(p->arena, bool, f->nblocks + 1);
	Block **work = NEWN(p->arena, Block *, f->nblocks + 1);
	uint32_t nc = 0;
	for (uint32_t b = 0; b < f->nblocks; b++) {
		Block *bl = f->blocks[b];
		for (int k = 0; k < 2 && bl->jmp.kind != J_RET; k++) {
			Block *to = bl->jmp.to[k];
			/* (the entry block is reached from the prologue: no test) */
			if (!to || !to->id || (k == 1 && to == bl->jmp.to[0]))
				continue;
			c[nc] = (PxLoop){.head = to->id, .tail = b, .in = in};
			if (natural_loop(f, &c[nc], work))
				nc++;
		}
	}
	qsort(c, nc, sizeof *c, by_size);
	uint8_t *seen = NEWN(p->arena, uint8_t, f->nextid + 1);
	p->vloops = NEWN(p->arena, PxLoop *, f->nblocks + 1);
	for (uint32_t x = 0; x < nc; x++) {
		PxLoop *L = &c[x];
		natural_loop(f, L, work);
		bool free = true;
		for (uint32_t b = 0; b < f->nblocks && free; b++)
			free = !(in[b] && taken[b]);
		if (!free)
			continue;
		/* a loop of one block tests at its end: a tail test */
		if (!exit_test(L, f->blocks[L->tail], false) && !exit_test(L, f->blocks[L->head], true))
			continue;
		memset(seen, 0, f->nextid + 1);
		covered(p, f, L, seen);
		if (!L->naccs)
			continue;
		for (uint32_t k = 0; k < L->naccs; k++)
			p->val[L->accs[k]->id].inb = true;
		L->in = NEWN(p->arena, bool, f->nblocks + 1);
		memcpy(L->in, in, f->nblocks);
		for (uint32_t b = 0; b < f->nblocks; b++)
			taken[b] = taken[b] || in[b];
		p->vloops[p->nvloops++] = L;
	}
	whole_groups(p, f);
}

/* ---- emission ------------------------------------------------------------- */

static PxLoop *loop_of(const Px *p, const Block *b)
{
	for (uint32_t k = 0; k < p->nvloops; k++)
		if (in_loop(p->vloops[k], b))
			return p->vloops[k];
	return NULL;
}

bool px_unchecked(const Px *p, const Inst *i)
{
	return p->val && (p->val[i->id].proven || (p->vcopy && p->val[i->id].inb));
}

/* A proven SLM access (range.c) at offset root * scale + c with c > 0 and
 * root's value range known to keep root * scale + c below 2^32: root *
 * scale (b32) with *imm = c, both exact, so that accesses of one root
 * share the register as in a versioned loop's copy; else NULL. */
static const char *proven_base(Px *p, const Inst *i, int64_t *imm)
{
	const Inst *root;
	uint32_t scale;
	int64_t c, r;
	if (!p->val[i->id].proven)
		return NULL;
	ir_affine(i->ops[1], &root, &scale, &c);
	if (c <= 0 || root == i->ops[1])
		return NULL;
	*imm = c;
	if (ir_const_int32(root, &r))
		return arena_printf(p->arena, "%u", (uint32_t)(r * scale));
	uint64_t m = p->val[root->id].umax;
	if (m == UINT64_MAX || ir_elem_bytes[root->ty.elem] > 4 || (m * scale + (uint64_t)c) >> 32)
		return NULL;
	const char *t = px_tmp(p, RC_B32);
	px_ins(p, "mul.lo.u32 %s, %s, %u", t, px_reg(p, root, 0), scale);
	return t;
}

/* In a versioned loop's copy, the offset of the first byte of access i's
 * span, root * scale + lo (b32), from which i is at the immediate *imm =
 * c - lo >= 0 (its offset is root * scale + c); elsewhere a proven
 * access's root * scale (proven_base), else NULL.  The test found
 * root * scale + lo inside the buffer, so the 32-bit value is exact, and
 * the accesses of one span share it (ptxas computes it once and folds
 * each *imm into its load or store). */
const char *px_vloop_base(Px *p, const Inst *i, int64_t *imm)
{
	uint32_t k = p->val[i->id].vspan;
	if (!px_unchecked(p, i) || (i->op != Obload && i->op != Obstore))
		return NULL;
	if (!k || !p->vcopy)
		return proven_base(p, i, imm);
	const Span *s = &p->vcopy->spans[k - 1];
	const Inst *root;
	uint32_t scale;
	int64_t c, r;
	ir_affine(i->ops[1], &root, &scale, &c);
	*imm = c - s->lo;
	if (ir_const_int32(root, &r))
		return arena_printf(p->arena, "%u", (uint32_t)(r * scale + s->lo));
	const char *t = px_tmp(p, RC_B32);
	px_ins(p, "mad.lo.u32 %s, %s, %u, %d", t, px_reg(p, root, 0), scale, (int32_t)s->lo);
	return t;
}

const char *px_vloop_suffix(const Px *p, const Block *to)
{
	if (p->vcopy && in_loop(p->vcopy, to))
		return "_v";
	PxLoop *L = loop_of(p, to);
	if (L && to->id == L->head && !(p->blk && in_loop(L, p->blk)))
		return "_in";
	return "";
}

/* A 64-bit value of the test: a constant, or a register; |value| <= bound. */
typedef struct {
	const char *r;        /* s64 register; NULL: the constant c */
	int64_t c;
	uint64_t bound;
} Ex;

typedef struct {
	Ex *v;                /* by value id: its value at iv0 ... */
	bool *done;           /* ... once computed */
	Ex *dv;               /* by value id: its slope ... */
	bool *ddone;          /* ... once computed */
	const char *ok;       /* the test so far */
	Ex iv0;               /* the induction variable's first value (s64) */
	const uint8_t *seen;  /* linear()'s findings */
} Eval;

static Ex konst(int64_t c)
{
	return (Ex){NULL, c, c < 0 ? 0 - (uint64_t)c : (uint64_t)c};   /* INT64_MIN too */
}

static Ex reg(const char *r, uint64_t bound)
{
	return (Ex){r, 0, bound};
}

/* The text of x as an operand. */
static const char *opnd(Px *p, Ex x)
{
	return x.r ? x.r : arena_printf(p->arena, "%lld", (long long)x.c);
}

/* ok &= (a CMP b), CMP a setp comparison with its type ("le.u64"). */
static void require(Px *p, Eval *e, const char *cmp, Ex a, Ex b)
{
	const char *ty = strchr(cmp, '.');
	if (!a.r && !b.r && !p->o->no_loop_test_fold) {   /* decided here */
		bool u = ty[1] == 'u';
		uint64_t x = (uint64_t)a.c, y = (uint64_t)b.c;
		bool lt = u ? x < y : a.c < b.c, eq = x == y;
		bool holds = !strncmp(cmp, "le", 2) ? lt || eq : !strncmp(cmp, "ge", 2) ? !lt : eq;
		if (strncmp(cmp, "le", 2) && strncmp(cmp, "ge", 2) && strncmp(cmp, "eq", 2))
			die("vloop: compare %s", cmp);
		if (!holds)
			px_ins(p, "setp.ne.and.u32 %s, 0, 0, %s", e->ok, e->ok);
		return;
	}
	px_ins(p, "setp.%.*s.and.%s %s, %s, %s, %s", (int)(ty - cmp), cmp, ty + 1, e->ok,
	       opnd(p, a), opnd(p, b), e->ok);
}

/* x held within [-k, k] (checked at run time when its bound is larger).
 * A constant beyond k (a product of constants folded here, at -O0) fails
 * the test outright. */
static Ex clamp(Px *p, Eval *e, Ex x, uint64_t k)
{
	if (x.bound <= k)
		return x;
	if (!x.r) {
		px_ins(p, "setp.ne.and.u32 %s, 0, 0, %s", e->ok, e->ok);
		return konst(0);
	}
	const char *t = px_tmp(p, RC_B64);
	px_ins(p, "add.s64 %s, %s, %llu", t, x.r, (unsigned long long)k);
	require(p, e, "le.u64", reg(t, 0), konst((int64_t)(2 * k)));
	x.bound = k;
	return x;
}

/* a op b for op add, sub, mul (both bounds small enough), folded. */
static Ex arith(Px *p, const char *op, Ex a, Ex b, uint64_t bound)
{
	/* folded when the exact result fits (its bound does), else left to
	 * the register form, whose wrap a later clamp rejects */
	if (!a.r && !b.r && bound <= (uint64_t)INT64_MAX) {
		int64_t c = !strcmp(op, "add") ? a.c + b.c : !strcmp(op, "sub") ? a.c - b.c : a.c * b.c;
		return konst(c);
	}
	if (!a.r && !b.r) {
		const char *t = px_tmp(p, RC_B64);
		px_ins(p, "mov.b64 %s, %lld", t, (long long)a.c);
		a = reg(t, a.bound);
	}
	if (!strcmp(op, "mul") && ((!a.r && a.c == 1) || (!b.r && b.c == 1)))
		return !a.r ? b : a;
	if (strcmp(op, "mul") && !b.r && b.c == 0)
		return a;
	if (!strcmp(op, "add") && !a.r && a.c == 0 && !p->o->no_loop_test_fold)
		return b;   /* a folded iv0 of 0 */
	const char *d = px_tmp(p, RC_B64);
	px_ins(p, "%s.%s64 %s, %s, %s", op, !strcmp(op, "mul") ? "lo.s" : "s", d, opnd(p, a),
	       opnd(p, b));
	return reg(d, bound);
}

/* a * b, exact: a factor held where the product stays within 2^62. */
static Ex times(Px *p, Eval *e, Ex a, Ex b)
{
	if (!a.r) {
		Ex t = a;
		a = b, b = t;
	}
	if (b.bound && a.bound > B62 / b.bound) {
		if (!b.r)   /* by a constant */
			a = clamp(p, e, a, B62 / b.bound);
		else
			a = clamp(p, e, a, 1ull << 31), b = clamp(p, e, b, 1ull << 31);
	}
	return arith(p, "mul", a, b, a.bound * b.bound);
}

/* a + b or a - b: both within 2^62, so the result within 2^63; one that
 * wraps there (exactly 2^63) fails the clamp every user applies. */
static Ex plus(Px *p, Eval *e, Ex a, Ex b, bool sub)
{
	a = clamp(p, e, a, B62), b = clamp(p, e, b, B62);
	return arith(p, sub ? "sub" : "add", a, b, a.bound + b.bound);
}

/* v's exact value at the induction variable's first value. */
static Ex ev(Px *p, PxLoop *L, Eval *e, const Inst *v)
{
	if (e->done[v->id])
		return e->v[v->id];
	Ex x;
	int64_t k;
	if (v == L->iv) {
		x = e->iv0;
	} else if (ir_const_int32(v, &k)) {
		x = konst(k);
	} else if (!in_loop(L, v->block)) {
		bool sg = v->ty.elem == E_I32;
		const char *d = px_tmp(p, RC_B64);
		px_ins(p, "cvt.%s64.%s32 %s, %s", sg ? "s" : "u", sg ? "s" : "u", d, px_reg(p, v, 0));
		x = reg(d, sg ? 1ull << 31 : UINT32_MAX);
	} else if (v->op == Omul) {
		x = times(p, e, ev(p, L, e, v->ops[0]), ev(p, L, e, v->ops[1]));
	} else if (v->op == Oshl) {
		ir_const_int32(v->ops[1], &k);
		x = times(p, e, ev(p, L, e, v->ops[0]), konst(1ll << k));
	} else if (v->op == Oadd || v->op == Osub) {
		x = plus(p, e, ev(p, L, e, v->ops[0]), ev(p, L, e, v->ops[1]), v->op == Osub);
	} else if (v->op == Oneg) {
		x = plus(p, e, konst(0), ev(p, L, e, v->ops[0]), true);
	} else {   /* conv between 32-bit integers, copy: the same value mod 2^32 */
		x = ev(p, L, e, v->ops[0]);
	}
	e->v[v->id] = x;
	e->done[v->id] = true;
	return x;
}

/* d v / d iv (v is linear in iv): what v gains per step of 1 in iv, held
 * within 2^29 so that times any span of iv it stays within 2^62. */
static Ex slope(Px *p, PxLoop *L, Eval *e, const Inst *v)
{
	if (e->seen[v->id] != MOVES)
		return konst(0);
	if (v == L->iv)
		return konst(1);
	if (e->ddone[v->id])
		return e->dv[v->id];
	const Inst *a = v->ops[0], *b = v->nops > 1 ? v->ops[1] : NULL;
	int64_t k;
	Ex x;
	switch (v->op) {
	case Oadd: case Osub:
		x = plus(p, e, slope(p, L, e, a), slope(p, L, e, b), v->op == Osub);
		break;
	case Omul:   /* one factor is fixed: its value is the same everywhere */
		if (e->seen[a->id] != MOVES) {
			const Inst *t = a;
			a = b, b = t;
		}
		x = times(p, e, slope(p, L, e, a), ev(p, L, e, b));
		break;
	case Oshl:
		ir_const_int32(b, &k);
		x = times(p, e, slope(p, L, e, a), konst(1ll << k));
		break;
	case Oneg:
		x = plus(p, e, konst(0), slope(p, L, e, a), true);
		break;
	default:
		x = slope(p, L, e, a);
		break;
	}
	x = clamp(p, e, x, 1ull << 29);
	e->dv[v->id] = x;
	e->ddone[v->id] = true;
	return x;
}

/* The number of steps after the first value that the induction variable
 * takes (u32, a b64 register or a constant), and the test that the step
 * after the last does not wrap its type; decided here when the first
 * value and the bound are constants (a loop of constant trip count). */
static Ex steps(Px *p, PxLoop *L, Eval *e)
{
	bool sg = L->iv->ty.elem == E_I32;
	int64_t k, lo = sg ? INT32_MIN : 0, hi = sg ? INT32_MAX : (int64_t)UINT32_MAX;
	/* lim - iv0, lim = bound - d (- 1 for <) the last value the test
	 * lets through, clamped to [0, 2^32): the division is 32-bit (a
	 * clamp at the top fails the wrap test below) */
	if (!e->iv0.r && ir_const_int32(L->bound, &k)) {
		int64_t c = k - e->iv0.c - (L->d + !L->le);
		c = c < 0 ? 0 : c > (int64_t)UINT32_MAX ? (int64_t)UINT32_MAX : c;
		Ex n = konst((int64_t)((uint64_t)c / (uint64_t)L->step));
		require(p, e, "le.s64", konst(n.c * L->step + e->iv0.c), konst(hi - L->step - L->d));
		require(p, e, "ge.s64", e->iv0, konst(lo - L->d));
		return n;
	}
	const char *b = px_tmp(p, RC_B64), *d = px_tmp(p, RC_B64), *n = px_tmp(p, RC_B32);
	if (ir_const_int32(L->bound, &k))
		px_ins(p, "mov.b64 %s, %lld", b, (long long)k);
	else
		px_ins(p, "cvt.%s64.%s32 %s, %s", sg ? "s" : "u", sg ? "s" : "u", b,
		       px_reg(p, L->bound, 0));
	if (e->iv0.r)
		px_ins(p, "sub.s64 %s, %s, %s", d, b, e->iv0.r);
	px_ins(p, "sub.s64 %s, %s, %lld", d, e->iv0.r ? d : b,
	       (long long)(L->d + !L->le + e->iv0.c));
	px_ins(p, "max.s64 %s, %s, 0", d, d);
	px_ins(p, "min.s64 %s, %s, 4294967295", d, d);
	px_ins(p, "cvt.u32.u64 %s, %s", n, d);
	if (L->step <= UINT32_MAX)
		px_udivc(p, n, n, (uint32_t)L->step, false);
	else
		px_ins(p, "div.u32 %s, %s, %lld", n, n, (long long)L->step);
	const char *s = px_tmp(p, RC_B64), *t = px_tmp(p, RC_B64);
	px_ins(p, "cvt.u64.u32 %s, %s", s, n);
	/* the values the test compares, from iv0 + d to the one that ends
	 * the loop, (last + step) + d, must not wrap the type: then the
	 * 32-bit compare is the exact one */
	px_ins(p, "mad.lo.s64 %s, %s, %lld, %s", t, s, (long long)L->step, opnd(p, e->iv0));
	require(p, e, "le.s64", reg(t, 0), konst(hi - L->step - L->d));
	require(p, e, "ge.s64", e->iv0, konst(lo - L->d));
	return reg(s, UINT32_MAX);
}

/* ok &= x is a multiple of a (a power of two). */
static void multiple(Px *p, Eval *e, Ex x, uint32_t a)
{
	if (a <= 1)
		return;
	if (!x.r) {
		if (x.c & (a - 1))
			px_ins(p, "setp.ne.and.u32 %s, 0, 0, %s", e->ok, e->ok);
		return;
	}
	const char *t = px_tmp(p, RC_B64);
	px_ins(p, "and.b64 %s, %s, %u", t, x.r, a - 1);
	require(p, e, "eq.s64", reg(t, 0), konst(0));
}

/* Span sp lies inside its buffer (lim bytes or elements, at most 2^32)
 * where its root is r: from its first byte on (first), up to its last
 * (last); with align, it starts at a multiple of its alignment. */
static void inside(Px *p, Eval *e, const Span *sp, Ex r, Ex lim, bool first, bool last,
                   bool align)
{
	r = clamp(p, e, r, 1ull << 40);   /* then r * scale + lo is exact */
	Ex lo = plus(p, e, times(p, e, r, konst(sp->scale)), konst(sp->lo), false);
	Ex hi = last ? plus(p, e, lo, konst(sp->hi - sp->lo), false) : lo;
	if (first)
		require(p, e, "ge.s64", lo, konst(0));
	if (last)
		require(p, e, "le.s64", hi, lim);
	if (align)
		multiple(p, e, lo, sp->align);
}

/* The bytes span sp's buffer has: a surface's size (at most 2^32, one
 * register per surface in lims), or the SLM's from the buffer's offset
 * (mem.c's limit: slm_size - min(offset, slm_size)); for extracts, the
 * elements of their vector. */
static Ex limit(Px *p, PxLoop *L, Eval *e, const Span *sp, const char **lims)
{
	uint32_t size = p->f->slm_size;
	int64_t k;
	if (sp->surf == EXTRACTS)
		return konst(sp->buf->ops[0]->ty.n);
	if (sp->surf != SLM_BUF) {
		if (!lims[sp->surf]) {
			lims[sp->surf] = px_tmp(p, RC_B64);
			px_ins(p, "min.u64 %s, %%ss%u, 4294967296", lims[sp->surf], sp->surf);
		}
		return reg(lims[sp->surf], 0);
	}
	if (ir_const_int32(sp->buf, &k))
		return konst((uint32_t)k < size ? size - (uint32_t)k : 0);
	/* the buffer offset's exact value (fixed: the same in every
	 * iteration, perhaps computed in the loop), in [0, size] */
	L->nnodes = 0;
	linear(p, L, sp->buf, (uint8_t *)e->seen);
	Ex b = clamp(p, e, ev(p, L, e, sp->buf), 1ull << 40);
	require(p, e, "ge.s64", b, konst(0));
	require(p, e, "le.s64", b, konst(size));
	return plus(p, e, konst(size), b, true);
}

/* The induction variable's first value when it is one constant (every
 * entry from outside the loop brings it): the test's values that depend
 * on it alone are then folded here, not left to ptxas, which does not
 * fold all of the 64-bit arithmetic (sgemm's kk loop: a test of some 100
 * SASS in every k step, for spans whose ends are constants). */
static bool first_const(const PxLoop *L, int64_t *k)
{
	const Inst *iv = L->iv;
	bool any = false;
	for (uint32_t j = 0; j < iv->nops; j++) {
		int64_t c;
		if (iv->phiblk[j]->id == L->tail)
			continue;
		if (iv->ops[j]->ty.elem != iv->ty.elem || !ir_const_int32(iv->ops[j], &c) ||
		    (any && c != *k))
			return false;
		*k = c, any = true;
	}
	return any;
}

void px_vloop_entry(Px *p, const Block *head)
{
	PxLoop *L = loop_of(p, head);
	if (!L || L->head != head->id)
		return;
	uint32_t n = p->f->nextid + 1;
	buf_printf(&p->body, "$L_%s_b%u_in:\n", p->f->name, head->id);
	px_comment(p, "loop b%u..b%u versioned: %u access%s (%u span%s) checked here, once",
	           L->head, L->tail, L->naccs, L->naccs == 1 ? "" : "es", L->nspans,
	           L->nspans == 1 ? "" : "s");
	Eval e = {NEWN(p->arena, Ex, n), NEWN(p->arena, bool, n), NEWN(p->arena, Ex, n),
	          NEWN(p->arena, bool, n), px_tmp(p, RC_PRED), konst(0), NULL};
	uint8_t *seen = NEWN(p->arena, uint8_t, n);
	e.seen = seen;
	bool sg = L->iv->ty.elem == E_I32;
	px_ins(p, "setp.eq.u32 %s, 0, 0", e.ok);
	int64_t k0 = 0;
	if (!p->o->no_loop_test_fold && first_const(L, &k0)) {
		e.iv0 = konst(k0);
	} else {
		e.iv0 = reg(px_tmp(p, RC_B64), sg ? 1ull << 31 : UINT32_MAX);
		px_ins(p, "cvt.%s64.%s32 %s, %s", sg ? "s" : "u", sg ? "s" : "u", e.iv0.r,
		       px_own(p, L->iv, 0));
	}
	Ex span = steps(p, L, &e);   /* last = iv0 + span * step */
	/* each root at iv0 and, from its slope, at the last value, against
	 * its buffer's size */
	const char **lims = NEWN(p->arena, const char *, p->f->nparams + 1);
	for (uint32_t a = 0; a < L->nspans; a++) {
		const Span *s = &L->spans[a];
		Ex lim = limit(p, L, &e, s, lims);
		L->nnodes = 0;
		linear(p, L, s->root, seen);
		Ex r0 = ev(p, L, &e, s->root);
		Ex d = times(p, &e, slope(p, L, &e, s->root), konst((int64_t)L->step));
		/* span < 2^32, |d| <= 2^29 step, so the product fits */
		Ex r1 = plus(p, &e, clamp(p, &e, r0, 1ull << 40),
		             times(p, &e, clamp(p, &e, d, 1ull << 29), span), false);
		/* where the root's step is a constant, the lower end's first
		 * byte and the upper end's last one (r1 - r0 = span d, span
		 * >= 0); the first position aligned, and every step */
		bool fold = !p->o->no_loop_test_fold;
		bool up = fold && !d.r && d.c >= 0, down = fold && !d.r && d.c < 0;
		inside(p, &e, s, r0, lim, !down, !up, true);
		inside(p, &e, s, r1, lim, !up, !down, !fold);
		if (s->align > 1)
			multiple(p, &e, times(p, &e, clamp(p, &e, d, 1ull << 29), konst(s->scale)),
			         s->align);
	}
	px_ins(p, "@%s bra.uni $L_%s_b%u_v", e.ok, p->f->name, head->id);
}

/* emit.c, after block b: the versioned loop whose last block it is. */
const struct PxLoop *px_vloop_ending(const Px *p, const Block *b)
{
	PxLoop *L = loop_of(p, b);
	return L && L->last == b->id ? L : NULL;
}

bool px_vloop_has(const struct PxLoop *L, const Block *b) { return in_loop(L, b); }
