/* slmvec.c — SLM gathers or scatters that give each lane contiguous bytes,
 * merged into one ld.shared.v2/v4 or st.shared.v2/v4 per lane, refused
 * for writes where lanes' byte ranges overlap (seeds/001).
 *
 * requires: layouts assigned (assign.c), value ranges (range.c); no output
 * until emission.
 * changes: fills PxVal.svseen, .svlead (members of a merged group) and .sv
 * (where a group is emitted, or where its refusal is noted).
 *
 * The rule.  In one basic block, gathers (or scatters) of one SLM buffer,
 * with the same global offset and element offsets R + c_j (one vector R,
 * constants c_j: what cm_slm_read(buf, idx + j, v_j) lowers to), read in
 * lane l the elements R_l + c_j.  When the c_j are consecutive, lane l's
 * bytes are one run of m = count * sizeof(T) bytes, and the group becomes
 * one vector access per lane (16-byte chunks, then 8) when
 *  - contiguous: no gap among the c_j (else "not contiguous");
 *  - aligned: every lane's run starts at a multiple of the chunk: the
 *    buffer, the global offset and the uniform part of R are known
 *    multiples (constants, multiplies, shifts), the per-lane part of R is
 *    known exactly (constant vectors, lane-affine arithmetic), and the
 *    kernel's SLM is .align 16 (else "alignment unknown");
 *  - overlap: seed 001 refuses reads whose neighbouring lanes' runs share
 *    bytes: on its LDS an overlapping vector read makes neighbouring lanes
 *    wait on each other's banks.  NVIDIA shared memory serves a word that
 *    several lanes read by broadcast, so the overlap costs nothing there:
 *    tests/gpu/bench.c's stencil (lanes' 16-byte runs overlapping by 8,
 *    two ld.shared.v2) ran 1.97x faster merged than refused on an H200
 *    (2026-11-27; the tile's v4 3.87x).  So overlapping reads are merged
 *    and noted; -fno-slm-vectorize-overlap refuses them as the seed does
 *    ("overlap: lane ranges overlap by N B").  Scatters must not overlap
 *    at all, between any two lanes: merged stores would change which
 *    lane's value lands last.
 * Reads are emitted at the group's first member, so no SLM write,
 * atomic, barrier or fence may lie between its members; writes at the last
 * member, so no SLM access may lie between them.  Masked accesses (SIMD
 * control flow), 1- and 2-byte elements, the checking mode and cluster SLM
 * are left alone (CM gathers only elements of 1, 2 and 4 bytes; 4 is
 * the one a vector access serves without repacking).
 *
 * Bounds keep CM's semantics (outside the buffer: reads give 0, writes
 * are dropped).  When range.c bounds R and the global offset so that every
 * run lies inside the buffer (a constant buffer offset, c_0 >= 0) the
 * vector accesses are unchecked.  Otherwise one unsigned compare per
 * register slot tests the whole run, a warp vote takes every lane's
 * answer, and a failure branches (out of line) to the members' own
 * per-element accesses, in their order.  The check's branch cuts ptxas's
 * schedule in a loop (bgroup.c measured it), which is why the static proof
 * comes first.
 *
 * -fno-slm-vectorize turns the pass off; -fno-slm-vectorize-overlap
 * refuses overlapping reads (seed 001's rule, for A/B runs).  Every candidate
 * group gets a "// slm: ..." note in -S: the vector width and alignment,
 * or why it was refused.
 */
#include <stdlib.h>

#include "target/ptx/ptx.h"

#define SV_MAX 16       /* members of a group: 64 bytes per lane */
#define SV_RANGE (1 << 24)

/* A candidate or merged group. */
typedef struct PxSv {
	Inst *m[SV_MAX];      /* members by offset c_j, consecutive */
	uint32_t nm;
	const Inst *root;     /* R */
	int64_t c0;           /* c of m[0], in offset units */
	uint32_t align;       /* bytes each lane's run is known aligned to */
	uint32_t chunk;       /* bytes per vector access (16 or 8); 0: refused */
	bool unchecked;       /* every run provably inside the buffer */
	const char *note;     /* the -S note */
} PxSv;

static bool is_store(const Inst *i) { return i->op == Oscatter; }
static const Inst *data(const Inst *i) { return is_store(i) ? i->ops[3] : i; }

static uint32_t lowbit(int64_t v)
{
	uint64_t u = (uint64_t)v & 0xffffffffu;
	return u ? (uint32_t)(u & -u) : 1u << 31;
}

static uint32_t min_u(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* a * b, at most 2^31 (both powers of two). */
static uint32_t mul_align(uint32_t a, uint32_t b)
{
	uint64_t m = (uint64_t)a * b;
	return m > 1u << 31 ? 1u << 31 : (uint32_t)m;
}

/* A 32-bit integer constant (scalar or splat) in *k. */
static bool int_const(const Inst *v, int64_t *k)
{
	if (!v || v->op != Oconst || ir_is_float(v->ty.elem) || px_class(v->ty.elem) != RC_B32 ||
	    (v->ty.n > 1 && !ir_const_is_splat(v)))
		return false;
	IrScalar x = ir_const_at(v, 0);
	*k = ir_is_signed(v->ty.elem) ? (int64_t)(int32_t)x.i : (int64_t)(uint32_t)x.u;
	return true;
}

static bool int32_value(const Inst *v)
{
	return v && !ir_is_float(v->ty.elem) && v->ty.elem != E_I1 &&
	       ir_elem_bytes[v->ty.elem] == 4;
}

/* The power of two known to divide the u32 value v (2^31 for 0). */
static uint32_t known_align(const Inst *v, int depth)
{
	int64_t k;
	if (int_const(v, &k))
		return lowbit(k);
	if (depth > 8 || !int32_value(v) || v->nops < 1)
		return 1;
	const Inst *a = v->ops[0], *b = v->nops > 1 ? v->ops[1] : NULL;
	switch (v->op) {
	case Oadd: case Osub:
		return min_u(known_align(a, depth + 1), known_align(b, depth + 1));
	case Omul:
		return mul_align(known_align(a, depth + 1), known_align(b, depth + 1));
	case Oshl:
		return int_const(b, &k) && k >= 0 && k < 31 ?
		       mul_align(known_align(a, depth + 1), 1u << k) : 1;
	case Oconv:
		return int32_value(a) && !v->sat ? known_align(a, depth + 1) : 1;
	default:
		return 1;
	}
}

uint32_t px_known_align(const Inst *v)
{
	return known_align(v, 0);
}

/* Element k of v (n elements) is t[k] + U, U the same in every element, a
 * multiple of *ualign.  False when v's per-element part is not known. */
static bool lane_terms(const Inst *v, uint32_t n, int64_t *t, uint32_t *ualign, int depth)
{
	for (uint32_t k = 0; k < n; k++)
		t[k] = 0;
	if (v->ty.n == 1) {
		*ualign = known_align(v, 0);
		return true;
	}
	if (v->ty.n != n || depth > 8 || !int32_value(v))
		return false;
	if (v->op == Oconst) {
		*ualign = 1u << 31;
		for (uint32_t k = 0; k < n; k++) {
			IrScalar x = ir_const_at(v, k);
			t[k] = ir_is_signed(v->ty.elem) ? (int64_t)(int32_t)x.i : (int64_t)(uint32_t)x.u;
			if (t[k] > SV_RANGE || t[k] < -SV_RANGE)
				return false;
		}
		return true;
	}
	const Inst *a = v->nops > 0 ? v->ops[0] : NULL, *b = v->nops > 1 ? v->ops[1] : NULL;
	int64_t k;
	if ((v->op == Omul && (int_const(b, &k) || int_const(a, &k))) ||
	    (v->op == Oshl && int_const(b, &k) && k >= 0 && k < 24)) {
		const Inst *x = v->op == Omul && int_const(b, &k) ? a : v->op == Omul ? b : a;
		int64_t f = v->op == Oshl ? (int64_t)1 << k : k;
		if (!lane_terms(x, n, t, ualign, depth + 1) || f > SV_RANGE || f < -SV_RANGE)
			return false;
		*ualign = mul_align(*ualign, lowbit(f));
		for (uint32_t e = 0; e < n; e++)
			if ((t[e] *= f) > SV_RANGE || t[e] < -SV_RANGE)
				return false;
		return true;
	}
	if (v->op == Oconv && int32_value(a) && !v->sat)
		return lane_terms(a, n, t, ualign, depth + 1);
	if (v->op != Oadd && v->op != Osub)
		return false;
	int64_t *u = malloc(sizeof *u * n);
	uint32_t ua, ub;
	bool ok = lane_terms(a, n, t, &ua, depth + 1) && lane_terms(b, n, u, &ub, depth + 1);
	for (uint32_t e = 0; ok && e < n; e++) {
		t[e] = v->op == Oadd ? t[e] + u[e] : t[e] - u[e];
		ok = t[e] <= SV_RANGE && t[e] >= -SV_RANGE;
	}
	free(u);
	*ualign = min_u(ua, ub);
	return ok;
}

/* offs as R + c (c a constant, scalar or splat). */
static void split(const Inst *offs, const Inst **root, int64_t *c)
{
	int64_t k;
	*root = offs, *c = 0;
	if (offs->op == Oadd && int_const(offs->ops[1], &k))
		*root = offs->ops[0], *c = k;
	else if (offs->op == Oadd && int_const(offs->ops[0], &k))
		*root = offs->ops[1], *c = k;
	else if (offs->op == Osub && int_const(offs->ops[1], &k))
		*root = offs->ops[0], *c = -k;
	if ((*root)->ty.n != offs->ty.n)
		*root = offs, *c = 0;
}

/* Is r (a root) the group's root plus a constant *d?  Two constant
 * vectors whose elements differ by one constant are (idx + 1 folded). */
static bool same_root(const Inst *root, const Inst *r, int64_t *d)
{
	*d = 0;
	if (r == root)
		return true;
	/* X + C and X + C' (folding moved the constant into a vector) */
	if (root->op == Oadd && r->op == Oadd && r->ty.n == root->ty.n) {
		for (int k = 0; k < 2; k++)
			if (root->ops[k] == r->ops[k])
				return same_root(root->ops[1 - k], r->ops[1 - k], d);
		return false;
	}
	if (root->op != Oconst || r->op != Oconst || r->ty.n != root->ty.n ||
	    ir_is_float(r->ty.elem) || px_class(r->ty.elem) != RC_B32)
		return false;
	for (uint32_t k = 0; k < r->ty.n; k++) {
		int64_t x = (int64_t)(uint32_t)ir_const_at(r, k).u -
		            (int64_t)(uint32_t)ir_const_at(root, k).u;
		if (k && x != *d)
			return false;
		*d = x;
	}
	return *d > -SV_RANGE && *d < SV_RANGE;
}

/* A gather or scatter the pass may merge (a note says why not, later). */
static bool candidate(Px *p, const Inst *i)
{
	if ((i->op != Ogather && i->op != Oscatter) || i->space != SP_SLM || ir_mask(i))
		return false;
	if (i->op == Ogather && p->val[i->id].lay && !p->val[i->id].lay->canon)
		return false;   /* read in a fragment's layout (assign.c assign_gather) */
	const Inst *v = data(i);
	int eb = ir_elem_bytes[v->ty.elem];
	return v->ty.n > 1 && v->ty.elem != E_I1 && eb == 4 &&
	       px_class(i->ops[2]->ty.elem) == RC_B32 && px_class(i->ops[1]->ty.elem) == RC_B32 &&
	       !p->val[i->id].svseen;
}

static bool same_kind(const Inst *a, const Inst *b)
{
	return a->op == b->op && a->ops[0] == b->ops[0] && a->ops[1] == b->ops[1] &&
	       a->bytes == b->bytes && data(a)->ty.n == data(b)->ty.n &&
	       ir_elem_bytes[data(a)->ty.elem] == ir_elem_bytes[data(b)->ty.elem];
}

/* Does x stop a group of reads (or writes) from moving past it? */
static bool blocks(const Inst *x, bool st)
{
	if (ir_writes_memory(x))
		return true;
	return st && (ir_ops[x->op].flags & IRF_MEM) && x->space == SP_SLM;
}

/* Is v defined before i (another block, or earlier in i's block)? */
static bool before(const Inst *v, const Inst *i)
{
	if (v->block != i->block)
		return true;
	for (const Inst *x = i->block->first; x && x != i; x = x->next)
		if (x == v)
			return true;
	return false;
}

static int by_c(const void *x, const void *y)
{
	int64_t a = ((const int64_t *)x)[0], b = ((const int64_t *)y)[0];
	return a < b ? -1 : a > b;
}

/* The largest overlap, in bytes, of two lanes' runs of m bytes at byte
 * starts s[k] (k < n): neighbours in one register slot, or (all) any two
 * elements. */
static int64_t overlap(const int64_t *s, uint32_t n, int64_t m, bool all)
{
	int64_t worst = 0;
	for (uint32_t k = 0; k < n; k++)
		for (uint32_t j = k + 1; j < n; j++) {
			if (!all && (j != k + 1 || j % 32 == 0))
				break;
			int64_t d = s[j] > s[k] ? s[j] - s[k] : s[k] - s[j];
			if (m - d > worst)
				worst = m - d;
		}
	return worst;
}

/* Every run inside the buffer, from the ranges range.c found. */
static bool inside(Px *p, const PxSv *g, int eb, int scale)
{
	const Inst *i = g->m[0];
	int64_t buf;
	if (g->c0 < 0 || !int_const(i->ops[0], &buf) || buf < 0)
		return false;
	uint64_t ug = p->val[i->ops[1]->id].umax, ur = p->val[g->root->id].umax;
	if (ug > SV_RANGE || ur > SV_RANGE)
		return false;
	int64_t last = ((int64_t)ug + (int64_t)ur + g->c0) * scale + (int64_t)g->nm * eb;
	return buf + last <= (int64_t)p->f->slm_size;
}

/* Decides the group g (nm >= 2, consecutive); sets chunk or the note. */
static void decide(Px *p, PxSv *g)
{
	const Inst *i = g->m[0], *v = data(i);
	uint32_t n = v->ty.n, eb = ir_elem_bytes[v->ty.elem], scale = i->bytes ? 1 : eb;
	int64_t m = (int64_t)g->nm * eb;
	int64_t *t = malloc(sizeof *t * n);
	uint32_t ua;
	if (!lane_terms(g->root, n, t, &ua, 0)) {
		g->note = "lane ranges unknown (the offsets' per-lane part is not known)";
		free(t);
		return;
	}
	uint32_t al = min_u(16, known_align(i->ops[0], 0));
	al = min_u(al, mul_align(known_align(i->ops[1], 0), scale));
	al = min_u(al, mul_align(ua, scale));
	for (uint32_t k = 0; k < n; k++) {
		t[k] = (t[k] + g->c0) * scale;   /* the run's start, less the uniform part */
		al = min_u(al, lowbit(t[k]));
	}
	g->align = al;
	int64_t ov = overlap(t, n, m, is_store(i));
	bool bcast = !is_store(i);   /* every lane the same run */
	for (uint32_t k = 1; k < n && bcast; k++)
		bcast = t[k] == t[0];
	free(t);
	if (ov > 0 && !bcast && (is_store(i) || p->o->slm_vec_no_overlap)) {
		g->note = arena_printf(p->arena, "overlap: lane ranges overlap by %lld B%s",
		                       (long long)ov, is_store(i) ? " (writes)" : "");
	} else if (al < 8 || (al < 16 && m % 8)) {
		g->note = arena_printf(p->arena, "alignment unknown (a lane's %lld B are known "
		                       "aligned to %u B only)", (long long)m, al);
	} else {
		g->chunk = al >= 16 && m >= 16 ? 16 : 8;
		g->unchecked = inside(p, g, (int)eb, (int)scale);
		g->note = arena_printf(p->arena, "v%u (%lld B per lane, aligned %u%s%s%s)",
		                       g->chunk / eb, (long long)m, al, m > g->chunk ? ", in chunks" : "",
		                       bcast ? ", one range for all lanes: a broadcast" :
		                       ov > 0 ? ", lane ranges overlap: shared words broadcast" : "",
		                       g->unchecked ? "" : ", bounds checked once");
	}
}

/* Decides group g (members by offset) and records it on its members: a
 * merged read goes at its first member, a write at its last (ir_renumber
 * numbers a block's instructions in order); a refusal is noted at the
 * first. */
static void record(Px *p, const PxSv *g)
{
	PxSv *h = NEW(p->arena, PxSv);
	*h = *g;
	if (!h->note)
		decide(p, h);
	const Inst *first = h->m[0], *last = h->m[0];
	for (uint32_t k = 0; k < h->nm; k++) {
		p->val[h->m[k]->id].svseen = true;
		first = h->m[k]->id < first->id ? h->m[k] : first;
		last = h->m[k]->id > last->id ? h->m[k] : last;
	}
	const Inst *at = h->chunk && is_store(first) ? last : first;
	for (uint32_t k = 0; h->chunk && k < h->nm; k++)
		p->val[h->m[k]->id].svlead = at;
	p->val[at->id].sv = h;
}

/* The groups starting at i among the accesses after it in its block. */
static void group_from(Px *p, Inst *i)
{
	bool st = is_store(i);
	int64_t c[SV_MAX][4];   /* c_j from i's root; member; its own root, c */
	uint32_t nc = 0;
	const Inst *root;
	int64_t ci;
	split(i->ops[2], &root, &ci);
	if (!st && !before(root, i))
		return;
	for (Inst *j = i; j && nc < SV_MAX; j = j->next) {
		const Inst *rj;
		int64_t cj, d = 0;
		bool joins = candidate(p, j) && same_kind(i, j);
		if (joins) {
			split(j->ops[2], &rj, &cj);
			joins = same_root(root, rj, &d);
			cj += d;
			for (uint32_t k = 0; joins && k < nc; k++)
				joins = c[k][0] != cj;
		}
		if (joins) {
			c[nc][0] = cj, c[nc][1] = (int64_t)(uintptr_t)j;
			c[nc][2] = (int64_t)(uintptr_t)rj, c[nc][3] = cj - d;
			nc++;
		} else if (blocks(j, st)) {
			break;
		}
	}
	if (nc < 2)
		return;
	qsort(c, nc, sizeof c[0], by_c);
	int64_t step = i->bytes ? ir_elem_bytes[data(i)->ty.elem] : 1;
	PxSv g = {.root = root};
	bool gaps = false, runs = false;
	for (uint32_t k = 1; k < nc; k++)
		gaps |= c[k][0] != c[k - 1][0] + step;
	if (st && gaps) {	/* writes: one run, or none is merged */
		for (uint32_t e = 0; e < nc; e++)
			g.m[g.nm++] = (Inst *)(uintptr_t)c[e][1];
		g.note = "not contiguous (the writes' offsets leave gaps)";
		record(p, &g);
		return;
	}
	for (uint32_t k = 0; k < nc;) {
		uint32_t e = k + 1;
		while (e < nc && c[e][0] == c[e - 1][0] + step)
			e++;
		if (e - k >= 2) {
			g.nm = 0;
			for (uint32_t x = k; x < e; x++)
				g.m[g.nm++] = (Inst *)(uintptr_t)c[x][1];
			/* the first member's own root, when a read may use it
			 * (c_0 >= 0 then, for the bounds proof), else i's */
			const Inst *r0 = (const Inst *)(uintptr_t)c[k][2], *first = g.m[0];
			for (uint32_t x = 1; x < g.nm; x++)
				first = g.m[x]->id < first->id ? g.m[x] : first;
			bool own = st || before(r0, first);
			g.root = own ? r0 : root;
			g.c0 = own ? c[k][3] : c[k][0];
			record(p, &g);
			runs = true;
		}
		k = e;
	}
	if (!runs) {
		g.nm = 0;
		for (uint32_t e = 0; e < nc; e++)
			g.m[g.nm++] = (Inst *)(uintptr_t)c[e][1];
		g.note = "not contiguous (no two offsets are neighbours)";
		record(p, &g);
	}
}

void px_slm_vectorize(Px *p)
{
	if (p->o->no_slm_vec || px_checking(p) || px_cluster_on(p))
		return;
	for (uint32_t b = 0; b < p->f->nblocks; b++)
		for (Inst *i = p->f->blocks[b]->first; i; i = i->next)
			if (candidate(p, i))
				group_from(p, i);
}

/* ---- emission ------------------------------------------------------------------- */

/* The registers of member k's data in slot s, as a vector operand of
 * `per` elements from member k. */
static const char *regs(Px *p, const PxSv *g, uint32_t k, uint32_t per, uint32_t s)
{
	Buf b = {0};
	buf_putc(&b, '{');
	for (uint32_t j = 0; j < per; j++)
		buf_printf(&b, "%s%s", j ? ", " : "", px_reg(p, data(g->m[k + j]), s));
	buf_putc(&b, '}');
	const char *r = arena_printf(p->arena, "%s", buf_cstr(&b));
	buf_free(&b);
	return r;
}

/* The vector accesses of slot s at byte address a (lane predicate q). */
static void slot_access(Px *p, const PxSv *g, uint32_t s, const char *a, const char *q)
{
	const Inst *v = data(g->m[0]);
	Elem e = v->ty.elem;
	uint32_t eb = ir_elem_bytes[e], k = 0;
	bool st = is_store(g->m[0]);
	const char *pq = q ? arena_printf(p->arena, "@%s ", q) : "";
	while (k < g->nm) {
		uint32_t left = (g->nm - k) * eb;
		uint32_t bytes = left >= g->chunk ? g->chunk : left >= 8 ? 8 : eb;
		uint32_t per = bytes / eb;
		const char *vec = per > 1 ? arena_printf(p->arena, ".v%u", per) : "";
		const char *r = per > 1 ? regs(p, g, k, per, s) : px_reg(p, data(g->m[k]), s);
		if (st)
			px_ins(p, "%sst.shared%s.%s [%s+%u], %s", pq, vec, px_mem_ty(e), a, k * eb, r);
		else
			px_ins(p, "%sld.shared%s.%s %s, [%s+%u]", pq, vec, px_mem_ty(e), r, a, k * eb);
		k += per;
	}
}

/* The out-of-line path when a lane's run leaves the buffer: each member,
 * in program order, element by element with its own check, as mem.c's
 * plain path does, its index x[s] + c_j - c_0 (a read's offsets may be
 * computed only after the group's place, so they are not used). */
static void cold_path(Px *p, const PxSv *g, const char *const *x)
{
	const Inst *i = g->m[0], *v = data(i);
	Elem e = v->ty.elem;
	uint32_t n = v->ty.n, eb = ir_elem_bytes[e], scale = i->bytes ? 1 : eb;
	bool st = is_store(i);
	const char *base, *lim = px_slm_limit(p, g->m[0], (int)eb, (int)scale, &base);
	bool done[SV_MAX] = {0};
	for (uint32_t r = 0; r < g->nm; r++) {
		uint32_t k = SV_MAX;   /* the first member not yet emitted */
		for (uint32_t j = 0; j < g->nm; j++)
			if (!done[j] && (k == SV_MAX || g->m[j]->id < g->m[k]->id))
				k = j;
		done[k] = true;
		for (uint32_t s = 0; s < SLOTS(n); s++) {
			const char *t = px_tmp(p, RC_B32), *q = px_tmp(p, RC_PRED);
			const char *a = px_tmp(p, RC_B32), *d = px_reg(p, data(g->m[k]), s);
			px_ins(p, "add.u32 %s, %s, %u", t, x[s], k * (scale == 1 ? eb : 1));
			px_ins(p, "setp.lt.u32 %s, %s, %s", q, t, lim);
			if (n - s * 32 < 32)
				px_ins(p, "and.pred %s, %s, %s", q, q, px_lane_lt(p, n - s * 32));
			px_ins(p, "mad.lo.u32 %s, %s, %u, %s", a, t, scale, base);
			if (st) {
				px_ins(p, "@%s st.shared.%s [%s], %s", q, px_mem_ty(e), a, d);
			} else {
				px_ins(p, "mov.%s %s, 0", px_bits(e), d);
				px_ins(p, "@%s ld.shared.%s %s, [%s]", q, px_mem_ty(e), d, a);
			}
		}
	}
}

bool px_slm_vector(Px *p, Inst *i)
{
	const PxSv *g = p->val ? p->val[i->id].sv : NULL;
	if (g && !g->chunk) {
		px_comment(p, "slm: not vectorized: %s", g->note);
		return false;
	}
	if (!p->val || !p->val[i->id].svlead)
		return false;
	if (p->val[i->id].svlead != i)
		return true;   /* emitted with its group */
	const Inst *v = data(i);
	uint32_t n = v->ty.n, eb = ir_elem_bytes[v->ty.elem], scale = i->bytes ? 1 : eb;
	px_comment(p, "slm: %s: %u %s as one", g->note, g->nm, is_store(i) ? "scatters" : "gathers");
	const char *base;
	const char *lim = px_slm_limit(p, i, g->unchecked ? 0 : (int)(g->nm * eb), (int)scale,
	                               &base);
	const char *x[8], *all = NULL, *cold = NULL, *done = NULL;
	uint32_t ns = SLOTS(n);
	if (ns > 8)
		die("slmvec: %u register slots", ns);
	for (uint32_t s = 0; s < ns; s++) {
		x[s] = px_tmp(p, RC_B32);
		px_ins(p, "add.u32 %s, %s, %s", x[s], px_reg(p, g->root, s), px_reg(p, i->ops[1], 0));
		if (g->c0)
			px_ins(p, "add.s32 %s, %s, %lld", x[s], x[s], (long long)g->c0);
		if (g->unchecked)
			continue;
		const char *q = px_tmp(p, RC_PRED);
		px_ins(p, "setp.lt.u32 %s, %s, %s", q, x[s], lim);
		if (n - s * 32 < 32)
			px_ins(p, "or.pred %s, %s, %s", q, q, px_lane_ge(p, n - s * 32));
		if (all)
			px_ins(p, "and.pred %s, %s, %s", q, q, all);
		all = q;
	}
	if (all) {
		const char *ok = px_tmp(p, RC_PRED);
		cold = px_label(p), done = px_label(p);
		px_vote(p, false, ok, all);
		px_ins(p, "@!%s bra%s %s", ok, px_uni(p), cold);
	}
	for (uint32_t s = 0; s < ns; s++) {
		const char *a = px_tmp(p, RC_B32);
		px_ins(p, "mad.lo.u32 %s, %s, %u, %s", a, x[s], scale, base);
		slot_access(p, g, s, a, n - s * 32 < 32 ? px_lane_lt(p, n - s * 32) : NULL);
	}
	if (!all)
		return true;
	buf_printf(&p->body, "%s:\n", done);
	px_cold_begin(p, cold);
	cold_path(p, g, x);
	px_cold_end(p, done);
	return true;
}
