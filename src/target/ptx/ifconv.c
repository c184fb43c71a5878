/* ifconv.c — reads issued before the branch that guards them: a small
 * block run under a scalar condition, whose reads cannot fault, runs
 * always, and the values it made are chosen by the condition.
 *
 * requires: SSA; runs first in emit_kernel (before unroll.c).
 * changes: the CFG (the guarded blocks and the join merge into the block
 * that branched) and the join's phis (now sel).
 *
 * A GPU warp waits for each read before the branch that follows its use.
 * The paper's spmv ends each row with the tails of a 32-wide loop:
 * `if (i + 16 <= end) dot<16>(i), i += 16;` then 8, 4, 2 and 1, each a
 * block of reads (col and val, then x at col) under a uniform branch, so
 * a row waits for up to five pairs of round trips in turn.  Run always,
 * the five blocks are one basic block whose addresses depend on the rows'
 * bounds only (i becomes a select), and ptxas issues their reads
 * together: two round trips.
 *
 * Running a read that the program would have skipped is safe here: outside
 * the checking mode, a surface or SLM read out of bounds gives 0 and a
 * media read clamps (CM's rules, which mem.c implements with a predicate
 * per lane), and every pure CMIR operation is defined on every input
 * (integer division by zero gives 0).  SVM reads (raw pointers) could
 * fault and are never run early.
 *
 * The shape: block A ends in `cbr c` to T and J, T a chain of blocks each
 * the one predecessor of the next (inlined calls' seams) ending in a jump
 * to J, and J's predecessors A and T's last only, in that order (rpo: no
 * back edge).  T holds only pure instructions and such reads, at least
 * one surface read, at most MAX_INSTS instructions and MAX_BYTES of reads.
 * Its instructions move to A's end, each phi of J becomes `sel c` of its
 * two incoming values, and J joins A, which may then end in the next such
 * branch (the spmv tails convert one after another).  Not in the checking
 * mode (a read the program skips would report a fault).
 *
 * Off by default (-fspeculate-reads turns it on): measured slower.  On an
 * H100 (2026-11-27, two interleaved rounds, kernels unchanged) the paper
 * spmv went from 0.169 to 0.215 ms on nd24k (rows of ~400 nonzeros, whose
 * tails are a small part of a row and now cost all five blocks' gathers
 * every row) and gained 3% on protein (0.0506 -> 0.0479); webbase and the
 * spmv rewrites did not move.  The reason for nd24k's loss was not
 * profiled. */

#include "target/ptx/ptx.h"

#define MAX_INSTS 48
#define MAX_BYTES 1024
#define MAX_CHAIN 8

/* A read that gives a value wherever it points (see above). */
static bool safe_read(const Inst *i)
{
	if (!(ir_ops[i->op].flags & IRF_MEM) || ir_writes_memory(i) || i->op == Oatomic)
		return false;
	return i->space == SP_SURF || i->space == SP_SLM;
}

/* The chain of T up to J (its blocks in blk, their number returned); 0
 * when T is not a guarded block of A that may run always. */
static uint32_t chain(const Func *f, const Block *a, Block *t, const Block *j, Block **blk)
{
	uint32_t n = 0, insts = 0, bytes = 0;
	bool reads = false;
	for (Block *c = t; c != j; c = c->jmp.to[0]) {
		if (n == MAX_CHAIN || c == f->blocks[0] || c->npreds != 1 || c->jmp.kind != J_BR ||
		    c->rpo <= a->rpo || c->rpo >= j->rpo)
			return 0;
		for (const Inst *i = c->first; i; i = i->next) {
			bool pure = (ir_ops[i->op].flags & IRF_PURE) && !(ir_ops[i->op].flags & IRF_MEM);
			if (i->op == Ophi || (!pure && !safe_read(i)))
				return 0;
			if (safe_read(i)) {
				reads |= i->space == SP_SURF;
				bytes += i->ty.n * (uint32_t)ir_elem_bytes[i->ty.elem];
			}
			insts += i->op != Oconst;
		}
		blk[n++] = c;
	}
	return reads && insts <= MAX_INSTS && bytes <= MAX_BYTES ? n : 0;
}

/* Converts A's branch if it guards such a chain; true when it did. */
static bool convert(Func *f, Block *a)
{
	Block *blk[MAX_CHAIN];
	if (a->jmp.kind != J_CBR || a->jmp.cond->ty.n != 1)
		return false;
	for (int t = 0; t < 2; t++) {
		Block *tb = a->jmp.to[t], *j = a->jmp.to[1 - t];
		if (tb == j || tb == a || j == a || j->npreds != 2)
			continue;
		uint32_t n = chain(f, a, tb, j, blk);
		if (!n)
			continue;
		Inst *c = a->jmp.cond;
		for (uint32_t k = 0; k < n; k++) {
			for (Inst *i = blk[k]->first, *next; i; i = next) {
				next = i->next;
				ir_remove(i);
				ir_append(a, i);
			}
		}
		IrBuilder B = {f, a, a->jmp.loc};
		for (Inst *phi = j->first, *next; phi && phi->op == Ophi; phi = next) {
			next = phi->next;
			Inst *from_t = phi->phiblk[0] == blk[n - 1] ? phi->ops[0] : phi->ops[1];
			Inst *from_a = phi->phiblk[0] == blk[n - 1] ? phi->ops[1] : phi->ops[0];
			Inst *s = t == 0 ? irb_op(&B, Osel, phi->ty, c, from_t, from_a)
			                 : irb_op(&B, Osel, phi->ty, c, from_a, from_t);
			s->loc = phi->loc, s->name = phi->name;
			ir_replace_uses(f, phi, s);
			ir_remove(phi);
		}
		for (uint32_t k = 0; k < n; k++)
			ir_block_drop(f, blk[k]);
		ir_block_merge(f, a, j);   /* J's phis are gone: one predecessor left */
		return true;
	}
	return false;
}

void px_if_convert(Px *p)
{
	Func *f = p->f;
	if (!p->o->speculate_reads || px_checking(p))
		return;
	uint32_t n = 0;
	ir_preds(f);
	for (uint32_t k = 0; k < f->nblocks; k++)
		while (convert(f, f->blocks[k])) {
			n++;
			ir_preds(f);
		}
	if (n)
		px_comment(p, "speculated: %u guarded blocks of reads run always, their values "
		           "chosen by selects", n);
	if (ir_verify_enabled())
		ir_verify_func(f, "ifconv");
}
