/* blocks.c — straight-line seams of the CFG closed.
 *
 * requires: SSA.  changes: the CFG (blocks merged, layout order kept).
 * A block that jumps to a block whose only predecessor it is becomes one
 * block with it, at its own place in the layout.  Inlined calls leave
 * such seams (a CM function's body and its return point), and what the
 * back ends find within one block stops at them: the PTX back end's
 * groups of block and media accesses tested once (bgroup.c, mgroup.c) and
 * its pairs of FP64 cm_dpas of one B tile (dpair.c).  The successor need
 * not be the next block: an unrolled loop whose body calls functions
 * under ifs on the unrolled index (bench/cm/hgemm.cm dgemm_async) is laid
 * out as a chain that jumps back and forth once the ifs are folded, and
 * only merging it whole puts its cm_dpas pairs in one block.  The
 * successor's phis have one operand each: their uses take it.  A loop
 * header (two predecessors or more) is never merged into another block,
 * and the successor is in a loop exactly when the block is (it is reached
 * from the block alone), so every natural loop keeps its blocks.  What can
 * change is a loop's span in the layout, from its header to the block
 * that jumps back, which the PTX back end's default loop depths take
 * (px_loop_depths; -fexact-loop-depths finds natural loops): a latch laid
 * out early and joined to a block laid out late moves the span's end.
 * Measured with it (H200, 2026-11-29): scan 2^28, bitonic 2^26, hgemm
 * cm-slm64 faster, sgemm and hgemm cm-wgs2 unchanged (CHANGELOG.md).
 * It runs after early.c, which moves a read up
 * out of its block only (k-means' membership reads cross the unrolled
 * distance code that a merge would put in their block: 0.24 -> 0.45 ms
 * on an H200 with the merge first, 2026-11-27).
 */
#include "opt/opt.h"

bool opt_blocks(Func *f)
{
	bool any = false;
	ir_preds(f);
	for (uint32_t bi = 0; bi < f->nblocks;) {
		Block *b = f->blocks[bi], *c = b->jmp.kind == J_BR ? b->jmp.to[0] : NULL;
		if (!c || c == b || c->npreds != 1 || c == f->blocks[0]) {
			bi++;
			continue;
		}
		uint32_t ci = 0;
		while (f->blocks[ci] != c)
			ci++;
		ir_block_merge(f, b, c);
		bi -= ci < bi;   /* b moved up a place */
		any = true;
	}
	if (any)
		ir_preds(f);
	return any;
}
