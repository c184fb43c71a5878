/* wgmma.c — Owgmma (cm_wgmma, cm_wgmma_async; cmetal extensions) as
 * Hopper's wgmma.mma_async, and Owgwait (cm_wgmma_wait).
 *
 * requires: assign.c's layouts (the accumulator's fragment is dpas.c's
 * px_dpas_layout), range.c's value ranges; runs px_wgmma_groups before
 * emission (after px_dpas_pairs), then emits into p->body.
 * changes: PxVal.wnext/whead/wprev/wmore/winplace of the calls, .host,
 * .wghost and .wgregs of chains updated in place; Px.wg_*.
 *
 * Groups: consecutive calls on one A and consecutive B blocks are one
 * wgmma of N = the sum of theirs (a 128-column tile kept as four 16 x 32
 * accumulators is one m64n128k16).  Chains: groups of a block each on the
 * last one's results are fenced once and waited for once.  In place: a
 * chain on a loop's accumulator phis updates the phis' registers (no copy
 * at its ends or on the loop's edge), which lets an async chain stay in
 * flight over the edge; a read of such registers by anything but another
 * call waits first.  Commits happen only where a group is open, and the
 * async proxy is fenced (a barrier's, a chain's) only where the thread may
 * have written SLM since its last fence: two forward dataflows over the
 * blocks.  The operands' layouts (ir.h Owgmma): K-major core matrices, or
 * rows of 128 bytes in the 128-byte swizzle (SW128 descriptors; the SLM is
 * 1024-aligned, emit.c).
 */
#include <string.h>

#include "target/ptx/ptx.h"

/* The PTX type of the operands of precision prec (PR_HF or PR_BF). */
static const char *ab_type(int prec)
{
	return prec == PR_BF ? "bf16" : "f16";
}


bool px_uses_wgmma(const Func *f)
{
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (const Inst *i = f->blocks[b]->first; i; i = i->next)
			if (i->op == Owgmma)
				return true;
	return false;
}

/* The 64-bit matrix descriptor of the SLM operand at byte offset off (a
 * u32 register) into d: its shared-window address / 16 in bits 0..13,
 * then the layout of ir.h's Owgmma.  Without the swizzle: K-major core
 * matrices, LBO, the bytes between the two core matrices along K, 128, in
 * bits 16..29 (/ 16), and SBO, between core matrices along M or N, 256, in
 * bits 32..45 (/ 16).  With it (sw): the 128-byte swizzle in bits 62..63
 * (1), SBO 1024 (8 rows of 128 bytes), LBO unused (1); the operand starts
 * in row 0 of a 1024-byte block of a 1024-aligned SLM (emit.c), so the
 * base offset (bits 49..51) is 0. */
static void descriptor(Px *p, const char *d, const char *off, bool sw)
{
	const char *a = px_tmp(p, RC_B32);
	px_ins(p, "mov.u32 %s, %s", a, px_slm_base(p));
	px_ins(p, "add.u32 %s, %s, %s", a, a, off);
	px_ins(p, "cvt.u64.u32 %s, %s", d, a);
	px_ins(p, "shr.u64 %s, %s, 4", d, d);
	px_ins(p, "and.b64 %s, %s, 16383", d, d);
	unsigned long long f = sw ? 1ull << 62 | 1ull << 16 | (1024ull / 16) << 32 :
	                            (128ull / 16) << 16 | (256ull / 16) << 32;
	px_ins(p, "or.b64 %s, %s, %llu", d, d, f);
}

/* Whether y is x plus exactly d bytes (u32 scalars): both constants, or
 * one affine root and scale. */
static bool byte_step(const Inst *x, const Inst *y, int64_t d)
{
	int64_t kx, ky, cx, cy;
	if (ir_const_int32(x, &kx) && ir_const_int32(y, &ky))
		return ky - kx == d;
	const Inst *rx, *ry;
	uint32_t sx, sy;
	ir_affine(x, &rx, &sx, &cx);
	ir_affine(y, &ry, &sy, &cy);
	return rx == ry && sx == sy && cy - cx == d;
}

/* Whether u reads the result of a member of the group from head to last. */
static bool reads_group(const Px *p, const Inst *u, const Inst *head, const Inst *last)
{
	for (uint32_t k = 0; k < u->nops; k++)
		for (const Inst *m = head; m; m = m == last ? NULL : p->val[m->id].wnext)
			if (u->ops[k] == m)
				return true;
	return false;
}

/* The members of the group whose last member is last, in order, into m
 * (at most 32); their count. */
static int members(const Px *p, const Inst *last, const Inst **m)
{
	const Inst *h = p->val[last->id].whead ? p->val[last->id].whead : last;
	int k = 0;
	for (const Inst *x = h; x && k < 32; x = p->val[x->id].wnext)
		m[k++] = x;
	return k;
}

/* Whether v's only use in the function is one operand of u. */
static bool only_user(const Func *f, const Inst *v, const Inst *u)
{
	int n = 0;
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (const Inst *j = f->blocks[b]->first; j; j = j->next)
			for (uint32_t k = 0; k < j->nops; k++)
				if (j->ops[k] == v && (j != u || ++n > 1))
					return false;
	return n == 1;
}

/* Whether the group ending at last continues the chain of the group
 * ending at prev: as many calls of the same precision and N, member q's
 * accumulator being prev's member q's result, used nowhere else and
 * never copied (its registers are never written: the chain's wgmmas
 * update the first group's registers in place). */
static bool chains_on(const Px *p, const Inst *prev, const Inst *last)
{
	const Inst *pm[32], *cm[32];
	int k = members(p, prev, pm);
	if (members(p, last, cm) != k || cm[0]->imm != pm[0]->imm ||
	    ir_wgmma_n(cm[0]) != ir_wgmma_n(pm[0]))
		return false;
	for (int q = 0; q < k; q++) {
		const PxVal *v = &p->val[pm[q]->id];
		if (cm[q]->ops[0] != pm[q] || v->ncopies || v->in_slm ||
		    !only_user(p->f, pm[q], cm[q]))
			return false;
	}
	return true;
}

/* Chains of groups (or lone calls) in one block, each on the last one's
 * results, with only pure register instructions between them that read
 * none of those: the chain's wgmmas update one set of accumulator
 * registers, fenced once before the first and waited for once after the
 * last (one commit_group, one wait_group), so the tensor cores run them
 * back to back.  The wait still comes before any other read of the
 * accumulators, any memory access, barrier or call, and the block's end.
 * Marks wprev and wmore on the groups' last members. */
static void wgmma_chains(Px *p)
{
	for (uint32_t b = 0; b < p->f->nblocks; b++) {
		const Inst *prev = NULL;
		for (Inst *j = p->f->blocks[b]->first; j; j = j->next) {
			/* (a call reading one, chains_on decides) */
			if (prev && j->op != Owgmma &&
			    reads_group(p, j, p->val[prev->id].whead ? p->val[prev->id].whead : prev,
			                prev))
				prev = NULL;
			if (j->op == Owgmma) {
				if (p->val[j->id].wnext)
					continue;
				if (prev && chains_on(p, prev, j)) {
					p->val[j->id].wprev = prev;
					p->val[prev->id].wmore = true;
				}
				prev = j;
				continue;
			}
			unsigned fl = ir_ops[j->op].flags;
			if (!(fl & IRF_PURE) || (fl & IRF_MEM) || j->op == Ophi)
				prev = NULL;
		}
	}
}

/* Whether phi's registers may take the chain's results from u (its first
 * group's member) on: no other use of phi reads it later, that is, none
 * but u is a phi, after u in u's block, or in a block reached from u's
 * without passing phi's own (where the loop's edge brings the chain's
 * result into the same registers: an exit from the loop's header reads
 * the result, as it should). */
static bool dead_after(Px *p, const Inst *phi, const Inst *u)
{
	Func *f = p->f;
	bool *seen = NEWN(p->tmp, bool, f->nblocks);
	Block **work = NEWN(p->tmp, Block *, f->nblocks);
	uint32_t nw = 0;
	for (const Inst *j = u->next; j; j = j->next)
		for (uint32_t k = 0; k < j->nops; k++)
			if (j->ops[k] == phi)
				return false;
	for (int s = 0; s < ir_nsucc(u->block); s++)
		if (!seen[u->block->jmp.to[s]->id])
			seen[u->block->jmp.to[s]->id] = true, work[nw++] = u->block->jmp.to[s];
	while (nw) {
		Block *b = work[--nw];
		if (b == phi->block)
			continue;
		for (const Inst *j = b->first; j; j = j->next)
			for (uint32_t k = 0; k < j->nops; k++)
				if (j->ops[k] == phi)
					return false;
		for (int s = 0; s < ir_nsucc(b); s++)
			if (!seen[b->jmp.to[s]->id])
				seen[b->jmp.to[s]->id] = true, work[nw++] = b->jmp.to[s];
	}
	for (uint32_t b = 0; b < f->nblocks; b++)
		for (const Inst *j = f->blocks[b]->first; j && j->op == Ophi; j = j->next)
			for (uint32_t k = 0; k < j->nops; k++)
				if (j->ops[k] == phi)
					return false;
	return true;
}

/* Whether the chain of groups whose last members are g[0..ng-1] can
 * update its accumulators in the registers of their loop phis: member q
 * of the first group adds to a phi read by nothing later (dead_after), a later group's
 * result flows back into it, and every member's result is in the
 * fragment layout, with no copy in another layout or in SLM. */
static bool inplace_ok(Px *p, const Inst *const *g, int ng)
{
	const Inst *m0[32], *ml[32], *mm[32];
	int k = members(p, g[0], m0);
	if (members(p, g[ng - 1], ml) != k)
		return false;
	for (int q = 0; q < k; q++) {
		const Inst *phi = m0[q]->ops[0], *last = ml[q];
		const PxVal *v = &p->val[phi->id];
		const Layout *fl = px_dpas_layout(p, m0[q], 0);
		bool back = false;
		if (phi->op != Ophi || v->host || v->wghost || v->ncopies || v->in_slm ||
		    !v->lay || !fl || !lay_equal(v->lay, fl) || !dead_after(p, phi, m0[q]))
			return false;
		for (uint32_t e = 0; e < phi->nops; e++)
			back |= phi->ops[e] == last;
		if (!back)
			return false;
		for (int c = 0; c < ng; c++) {
			if (members(p, g[c], mm) != k)
				return false;
			const PxVal *r = &p->val[mm[q]->id];
			if (!r->lay || !lay_equal(r->lay, fl) || r->ncopies || r->in_slm)
				return false;
		}
	}
	return true;
}

/* Hosts every result of the chain g[0..ng-1] in its accumulator's phi
 * (inplace_ok) and marks the chain: its wgmmas then update the phis'
 * registers, with no copy at its start, end or loop edge, so an async
 * chain (cm_wgmma_async) may stay in flight over the loop's back edge;
 * such results and phis are wgregs (waited for before other reads). */
static void host_chain(Px *p, const Inst *const *g, int ng)
{
	if (!inplace_ok(p, g, ng))
		return;
	const Inst *m0[32], *mm[32];
	int k = members(p, g[0], m0);
	bool async = ir_wgmma_async(g[0]->imm);
	for (int q = 0; q < k; q++) {
		const Inst *phi = m0[q]->ops[0];
		p->val[phi->id].wgregs = async;
		p->val[phi->id].wghost = true;
		for (int c = 0; c < ng; c++) {
			members(p, g[c], mm);
			p->val[mm[q]->id].host = phi;
			p->val[mm[q]->id].wgregs = async;
		}
	}
	for (int c = 0; c < ng; c++)
		p->val[g[c]->id].winplace = true;
	p->wg_async |= async;
}

/* The chains (or lone groups) of each block, their groups' last members in
 * order: host_chain on each.  A chain whose calls are not all async (or
 * all not) is left as it is. */
static void wgmma_inplace(Px *p)
{
	if (p->o->ptx_canonical || p->o->no_phi_coalescing)
		return;
	for (uint32_t b = 0; b < p->f->nblocks; b++) {
		const Inst *g[256];
		int ng = 0;
		bool same = true;
		for (Inst *j = p->f->blocks[b]->first;; j = j->next) {
			bool last = j && j->op == Owgmma && !p->val[j->id].wnext;
			if (ng && (!j || (last && !p->val[j->id].wprev))) {
				if (same)
					host_chain(p, g, ng);
				ng = 0, same = true;
			}
			if (!j)
				break;
			if (last && ng < 256) {
				same &= !ng || ir_wgmma_async(j->imm) == ir_wgmma_async(g[0]->imm);
				g[ng++] = j;
			}
		}
	}
}

static bool open_out(const Px *p, const Block *b, bool open);
static bool dirty_out(const Px *p, const Block *b, bool dirty);
static bool *may_in(Px *p, bool (*out)(const Px *, const Block *, bool));

/* Groups of cm_wgmma calls that are one wgmma of N = the sum of theirs
 * (at most 256): calls of one precision and N, one after another in a
 * block with only pure register instructions between them (no memory
 * access, barrier or other call), on one A (the same offset) and
 * consecutive B blocks (each call's slm_b 32 N bytes after the last's),
 * none reading another's result, and nothing between them reading one
 * (nor a copy of one in another layout or in SLM, made after it):
 * a 128-column tile kept as four 16 x 32 accumulators is one m64n128k16.
 * The D fragment of m64n(kN) is the k calls' fragments one after another
 * (8 columns a 4 registers), so each call's registers are its own part.
 * Marks wnext (the next member) and whead (the first) on every member;
 * px_wgmma emits the group at its last member. */
void px_wgmma_groups(Px *p)
{
	for (uint32_t b = 0; b < p->f->nblocks; b++)
		for (Inst *i = p->f->blocks[b]->first; i; i = i->next) {
			if (i->op != Owgmma || p->val[i->id].whead)
				continue;
			Inst *last = i;
			int n = ir_wgmma_n(i), total = n;
			for (Inst *j = i->next; j; j = j->next) {
				if (reads_group(p, j, i, last))
					break;
				if (j->op == Owgmma) {
					/* last's result is made at the group's end: no copy
					 * of it may be made right after it (assign.c) */
					const PxVal *lv = &p->val[last->id];
					if (lv->ncopies || lv->in_slm || j->imm != i->imm ||
					    ir_wgmma_n(j) != n || total + n > 256 ||
					    (j->ops[1] != i->ops[1] && !byte_step(i->ops[1], j->ops[1], 0)) ||
					    !byte_step(last->ops[2], j->ops[2],
					               (int64_t)ir_wgmma_b_bytes((uint32_t)n, ir_wgmma_sw(i->imm))))
						break;
					p->val[last->id].wnext = j;
					last = j;
					total += n;
					continue;
				}
				unsigned fl = ir_ops[j->op].flags;
				if (!(fl & IRF_PURE) || (fl & IRF_MEM) || j->op == Ophi)
					break;
			}
			if (last == i)
				continue;
			for (Inst *m = i; m; m = (Inst *)p->val[m->id].wnext)
				p->val[m->id].whead = i;
		}
	if (!p->o->no_wgmma_chains)
		wgmma_chains(p);
	wgmma_inplace(p);
	if (p->wg_async)   /* where a group may be open */
		p->wg_open_in = may_in(p, open_out);
	if (p->wgmma)      /* where SLM may be written since the last fence */
		p->wg_dirty_in = may_in(p, dirty_out);
}

/* Whether block b ends with async wgmmas issued and not committed, given
 * whether it starts so (open). */
static bool open_out(const Px *p, const Block *b, bool open)
{
	for (const Inst *i = b->first; i; i = i->next)
		if (i->op == Owgwait)
			open = false;
		else if (i->op == Owgmma && p->val[i->id].winplace && ir_wgmma_async(i->imm))
			open = true;
	return open;
}

/* Whether some path from the entry reaches each block's start (by id) in
 * the state out() makes true: a forward "may" problem over the CFG, to a
 * fixed point (out(b, in): b's state at its end given its state at its
 * start). */
static bool *may_in(Px *p, bool (*out)(const Px *, const Block *, bool))
{
	Func *f = p->f;
	bool *in = NEWN(p->arena, bool, f->nblocks + 1);
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t b = 0; b < f->nblocks; b++) {
			const Block *B = f->blocks[b];
			if (!out(p, B, in[B->id]))
				continue;
			for (int s = 0; s < ir_nsucc(B); s++)
				if (!in[B->jmp.to[s]->id])
					in[B->jmp.to[s]->id] = changed = true;
		}
	}
	return in;
}

/* Whether i writes the kernel's SLM (through the generic proxy, which the
 * wgmmas' reads must be fenced from: stores, scatters, atomics, copies). */
static bool writes_slm(const Inst *i)
{
	if (i->op == Oslmcopy)
		return true;
	return (ir_ops[i->op].flags & IRF_MEM) && i->space == SP_SLM && i->op != Obload &&
	       i->op != Omload && i->op != Ogather && i->op != Ogather4 && i->op != Otload;
}

/* Whether b ends with SLM written since the last fence.proxy.async (a
 * barrier's, or a wgmma chain's at its start), given whether it starts so. */
static bool dirty_out(const Px *p, const Block *b, bool dirty)
{
	for (const Inst *i = b->first; i; i = i->next)
		if (writes_slm(i))
			dirty = true;
		else if (i->op == Obarrier || (i->op == Owgmma && !p->val[i->id].wnext &&
		                                !p->val[i->id].wprev))
			dirty = false;
	return dirty;
}

void px_wgmma_block(Px *p, const Block *b)
{
	p->wg_clear = !p->wg_async;   /* a predecessor may have left one in flight */
	p->wg_open = p->wg_async && p->wg_open_in[b->id];
	p->wg_dirty = p->wgmma && p->wg_dirty_in[b->id];
}

void px_wgmma_after(Px *p, const Inst *i)
{
	if (p->wgmma && writes_slm(i))
		p->wg_dirty = true;
}

void px_wgmma_fence(Px *p)
{
	if (p->wg_dirty)
		px_ins(p, "fence.proxy.async.shared::cta");
	p->wg_dirty = false;
}

/* wgmma.commit_group for the async wgmmas not yet committed, if any. */
static void commit_open(Px *p)
{
	if (p->wg_open)
		px_ins(p, "wgmma.commit_group.sync.aligned");
	p->wg_open = false;
}

bool px_wgmma_wait(Px *p, const Inst *i)
{
	commit_open(p);
	px_ins(p, "wgmma.wait_group.sync.aligned %d", (int)i->imm);
	if (!i->imm)
		p->wg_clear = true;
	return true;
}

void px_wgmma_settle(Px *p)
{
	if (p->wg_clear)
		return;
	px_comment(p, "wgmma: waits for the async wgmmas that write what follows reads");
	commit_open(p);
	px_ins(p, "wgmma.wait_group.sync.aligned 0");
	p->wg_clear = true;
}

bool px_wgmma_reads(const Px *p, const Inst *i)
{
	for (uint32_t k = 0; k < i->nops; k++)
		if (i->ops[k] && p->val[i->ops[k]->id].wgregs)
			return true;
	return false;
}

/* Into ok (a predicate, anded): the wgmma operand at o (a u32 register)
 * spanning span bytes is aligned (16 bytes; with the swizzle sw, at most
 * 96 bytes into a 1024-byte block) and inside the kernel's SLM. */
static void operand_ok(Px *p, const char *ok, const char *o, uint32_t span, bool sw)
{
	const char *t = px_tmp(p, RC_B32);
	uint32_t slm = p->f->slm_size;
	px_ins(p, "and.b32 %s, %s, 15", t, o);
	px_ins(p, "setp.eq.and.u32 %s, %s, 0, %s", ok, t, ok);
	if (sw) {
		px_ins(p, "and.b32 %s, %s, 1023", t, o);
		px_ins(p, "setp.le.and.u32 %s, %s, 96, %s", ok, t, ok);
		px_ins(p, "and.b32 %s, %s, -128", t, o);
		o = t;
	}
	px_ins(p, "setp.le.and.u32 %s, %s, %u, %s", ok, o, slm >= span ? slm - span : 0, ok);
	if (slm < span)
		px_ins(p, "setp.ne.and.u32 %s, 0, 0, %s", ok, ok);
}

/* A predicate: the wgmma's A (at a) and its B of N = bn columns (at b)
 * are aligned and inside the kernel's SLM (operand_ok). */
static const char *operands_ok(Px *p, const char *a, const char *b, uint32_t bn, bool sw)
{
	const char *ok = px_tmp(p, RC_PRED);
	px_ins(p, "setp.eq.u32 %s, 0, 0", ok);
	operand_ok(p, ok, a, ir_wgmma_a_bytes(sw), sw);
	operand_ok(p, ok, b, ir_wgmma_b_bytes(bn, sw), sw);
	return ok;
}

/* Whether x mod m (m a power of 2, at most 2^31) is known: into *r
 * (constants, sums and values px_known_align makes multiples of m). */
static bool residue(const Inst *x, uint32_t m, uint32_t *r, int depth)
{
	int64_t c;
	uint32_t ra, rb;
	if (ir_const_int32(x, &c)) {
		*r = (uint32_t)c & (m - 1);
		return true;
	}
	if (px_known_align(x) >= m) {
		*r = 0;
		return true;
	}
	if (depth > 8 || x->op != Oadd || x->ty.n != 1 || !residue(x->ops[0], m, &ra, depth + 1) ||
	    !residue(x->ops[1], m, &rb, depth + 1))
		return false;
	*r = (ra + rb) & (m - 1);
	return true;
}

/* Whether the value ranges (range.c) and alignments keep the wgmma
 * operand x spanning span bytes aligned (operand_ok) and inside the
 * kernel's SLM. */
static bool operand_inside(const Px *p, const Inst *x, uint32_t span, bool sw)
{
	uint32_t slm = p->f->slm_size, r;
	uint64_t u = p->val[x->id].umax;
	if (!sw)
		return slm >= span && u != UINT64_MAX && u <= slm - span && px_known_align(x) >= 16;
	return residue(x, 1024, &r, 0) && r <= 96 && r % 16 == 0 && slm >= span &&
	       u != UINT64_MAX && u - r % 128 <= slm - span;
}

/* Whether both operands of a wgmma (A at a, B of N = bn columns at b) are
 * inside: then it needs no test, and a chain of such wgmmas no branch
 * between them (ptxas serializes wgmmas that a branch separates). */
static bool operands_inside(const Px *p, const Inst *a, const Inst *b, uint32_t bn, bool sw)
{
	return operand_inside(p, a, ir_wgmma_a_bytes(sw), sw) &&
	       operand_inside(p, b, ir_wgmma_b_bytes(bn, sw), sw);
}

/* One wgmma m64nNk16 on d[0 .. N/2 - 1] (read and written), A at a, B at
 * b, fenced before (fence) and waited for (wait; a chain's groups do
 * both once, px_wgmma).  fence.proxy.async makes this warp's SLM writes visible
 * to the wgmma's reads (cm_barrier does the same for the other warps'),
 * and the wait makes the result ready, and the SLM free to write, at the
 * next instruction. */
static void issue(Px *p, int prec, bool sw, int n, const char **d, const char *a,
                  const char *b, bool fence, bool wait)
{
	const char *da = px_tmp(p, RC_B64), *db = px_tmp(p, RC_B64);
	descriptor(p, da, a, sw);
	descriptor(p, db, b, sw);
	if (fence) {
		px_wgmma_fence(p);
		px_ins(p, "wgmma.fence.sync.aligned");
	}
	Buf s = {0};
	buf_printf(&s, "wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s {", n, ab_type(prec),
	           ab_type(prec));
	for (int r = 0; r < n / 2; r++)
		buf_printf(&s, "%s%s", r ? ", " : "", d[r]);
	buf_printf(&s, "}, %s, %s, 1, 1, 1, 0, 0", da, db);
	px_ins(p, "%s", buf_cstr(&s));
	buf_free(&s);
	if (wait) {
		px_ins(p, "wgmma.commit_group.sync.aligned");
		px_ins(p, "wgmma.wait_group.sync.aligned 0");
	}
}

/* Member i's accumulator moved into the registers the wgmma updates (its
 * result's own when the result lives in the fragment), those into d. */
static bool take_acc(Px *p, Inst *i, const char **d)
{
	int nregs = ir_wgmma_n(i) / 2;
	const Layout *fl = px_dpas_layout(p, i, 0), *rd = px_read_layout(p, i, 0);
	const Inst *c = i->ops[0];
	const char **cr = NEWN(p->arena, const char *, nregs);
	if (lay_equal(rd, fl)) {
		for (int r = 0; r < nregs; r++)
			cr[r] = px_reg_in(p, c, rd, (uint32_t)r);
	} else {
		const char **s = NEWN(p->arena, const char *, rd->nregs);
		for (uint32_t r = 0; r < rd->nregs; r++)
			s[r] = px_reg_in(p, c, rd, r);
		for (int r = 0; r < nregs; r++)
			cr[r] = px_tmp(p, RC_F32);
		LPlan *pl = lay_plan(p->arena, fl, rd, NULL);
		p->nshfl += pl->shfl;
		px_emit_plan(p, E_F32, cr, s, pl, false, NULL);
	}
	bool direct = lay_equal(p->val[i->id].lay, fl);
	for (int r = 0; r < nregs; r++) {
		d[r] = direct ? px_own(p, i, (uint32_t)r) : px_tmp(p, RC_F32);
		if (strcmp(d[r], cr[r]))
			px_ins(p, "mov.f32 %s, %s", d[r], cr[r]);
	}
	return direct;
}

/* The result of member i from d into its own layout (not the fragment:
 * -fptx-layout=canonical). */
static void give_result(Px *p, const Inst *i, const char **d)
{
	const Layout *dst = p->val[i->id].lay, *fl = px_dpas_layout(p, i, 0);
	const char **o = NEWN(p->arena, const char *, dst->nregs);
	for (uint32_t k = 0; k < dst->nregs; k++)
		o[k] = px_own(p, i, k);
	LPlan *pl = lay_plan(p->arena, dst, fl, NULL);
	p->nshfl += pl->shfl;
	px_emit_plan(p, E_F32, o, d, pl, false, NULL);
}

/* Owgmma as wgmma.mma_async m64nNk16 on the warpgroup (the 4 warps of 4
 * consecutive CM threads), alone or, at the last member of a group
 * (px_wgmma_groups), the group's calls as one wgmma.  An operand not
 * 16-byte aligned or not inside the SLM (the same for the 4 warps) skips
 * the call; a group whose operands are not all inside runs its calls one
 * at a time instead, each with its own test, in the cold section. */
bool px_wgmma(Px *p, Inst *i)
{
	PxVal *pv = &p->val[i->id];
	if (pv->wnext) {
		px_comment(p, "wgmma: %%%u is a part of the wgmma of its group's last call", i->id);
		return true;
	}
	Inst *m[32];
	int k = 0, n = ir_wgmma_n(i), prec = ir_wgmma_prec(i->imm);
	bool sw = ir_wgmma_sw(i->imm);
	for (Inst *x = pv->whead ? (Inst *)pv->whead : i; x && k < 32;
	     x = (Inst *)p->val[x->id].wnext)
		m[k++] = x;
	/* in a chain (px_wgmma_groups), the first group fences and takes the
	 * accumulators, the others update its registers, the last waits (an
	 * async chain in place does not: cm_wgmma_wait or a read does) */
	bool chained = pv->wprev != NULL, more = pv->wmore, chain = chained || more;
	bool stay = pv->winplace && ir_wgmma_async(i->imm);
	px_comment(p, "wgmma: m64n%dk16 from SLM (%d call%s)%s%s", n * k, k, k > 1 ? "s" : "",
	           !chain ? "" : !chained ? ", its chain's first" : more ? ", chained" :
	           stay ? ", its chain's last" : ", its chain's last: waits for the chain",
	           stay ? " (async, in place: not waited for)" : "");
	const char **d = chained ? p->wacc : NEWN(p->arena, const char *, (size_t)(n / 2 * k));
	bool *direct = NEWN(p->arena, bool, (size_t)k);
	if (!chained && !pv->winplace)   /* the accumulators may be copied */
		for (int q = 0; q < k; q++)
			if (p->val[m[q]->ops[0]->id].wgregs)
				px_wgmma_settle(p);
	for (int q = 0; q < k; q++)
		direct[q] = chained ? lay_equal(p->val[m[q]->id].lay, px_dpas_layout(p, m[q], 0))
		                    : take_acc(p, m[q], d + q * (n / 2));
	if (chain && !chained) {
		px_wgmma_fence(p);
		px_ins(p, "wgmma.fence.sync.aligned");
	}
	const char *a = px_reg(p, m[0]->ops[1], 0), *b = px_reg(p, m[0]->ops[2], 0);
	uint32_t bn = (uint32_t)(n * k);
	bool inside = operands_inside(p, m[0]->ops[1], m[0]->ops[2], bn, sw);
	const char *cold = px_label(p), *done = px_label(p);
	if (!inside)
		px_ins(p, "@!%s bra.uni %s", operands_ok(p, a, b, bn, sw), k > 1 ? cold : done);
	else
		px_comment(p, "wgmma: its operands are inside the SLM (value ranges)");
	issue(p, prec, sw, n * k, d, a, b, !chain, !chain && !stay);
	if (stay)
		p->wg_clear = false, p->wg_open = true;
	buf_printf(&p->body, "%s:\n", done);
	if (k > 1 && !inside) {
		px_cold_begin(p, cold);
		for (int q = 0; q < k; q++) {
			const char *aq = px_reg(p, m[q]->ops[1], 0), *bq = px_reg(p, m[q]->ops[2], 0);
			const char *okq = operands_ok(p, aq, bq, (uint32_t)n, sw);
			const char *skip = px_label(p);
			px_ins(p, "@!%s bra.uni %s", okq, skip);
			issue(p, prec, sw, n, d + q * (n / 2), aq, bq, true, true);
			buf_printf(&p->body, "%s:\n", skip);
		}
		px_cold_end(p, done);
	}
	if (more) {
		p->wacc = d;   /* the next group's accumulators; no result yet */
		return true;
	}
	if (stay)   /* in its phis' registers, where d is */
		return true;
	if (chained) {
		px_ins(p, "wgmma.commit_group.sync.aligned");
		px_ins(p, "wgmma.wait_group.sync.aligned 0");
	}
	for (int q = 0; q < k; q++) {
		if (!direct[q])
			give_result(p, m[q], d + q * (n / 2));
		else if (chained)
			for (int r = 0; r < n / 2; r++)
				if (strcmp(px_own(p, m[q], (uint32_t)r), d[q * (n / 2) + r]))
					px_ins(p, "mov.f32 %s, %s", px_own(p, m[q], (uint32_t)r),
					       d[q * (n / 2) + r]);
	}
	return true;
}
