/* blocks.c — straight-line seams of the CFG closed.
 *
 * requires: SSA.  changes: the CFG (blocks merged, layout order kept).
 * A block that jumps to the next block in layout order, whose only
 * predecessor it is, becomes one block with it.  Inlined calls leave such
 * seams (a CM function's body and its return point), and what the back
 * ends find within one block stops at them: the PTX back end's groups of
 * block and media accesses tested once (bgroup.c, mgroup.c) and its pairs
 * of FP64 cm_dpas of one B tile (dpair.c).  The next block's phis have one
 * operand each: their uses take it.  Loops stay laid out in order (the
 * PTX back end's loop depths rely on it): the merged block is where both
 * were, and a loop header (two predecessors or more) is never merged
 * into the block before it.  It runs after early.c, which moves a read up
 * out of its block only (k-means' membership reads cross the unrolled
 * distance code that a merge would put in their block: 0.24 -> 0.45 ms
 * on an H200 with the merge first, 2026-11-27).
 */
#include "opt/opt.h"

bool opt_blocks(Func *f)
{
	bool any = false;
	ir_preds(f);
	for (uint32_t bi = 0; bi + 1 < f->nblocks;) {
		Block *b = f->blocks[bi], *c = f->blocks[bi + 1];
		if (b->jmp.kind != J_BR || b->jmp.to[0] != c || c->npreds != 1) {
			bi++;
			continue;
		}
		ir_block_merge(f, b, c);
		any = true;
	}
	if (any)
		ir_preds(f);
	return any;
}
