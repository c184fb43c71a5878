/* dce.c — dead code elimination.
 *
 * requires: SSA.  preserves: CFG.
 * Mark and sweep: the instructions with side effects (not IRF_PURE) and
 * the branch conditions are live, and so is every operand of a live
 * instruction; every other instruction goes.  So chains of dead values go
 * at once, and so do dead cycles through phis: a vector declared in a
 * loop body and rewritten whole in each iteration is a phi of its last
 * value, read only by the writes that rebuild it once its reads were
 * forwarded to the values written (region.c).  Dead vector *elements*
 * (wrregions whose written elements nobody reads) are not tracked yet. */
#include <stdlib.h>

#include "opt/opt.h"

/* Marks i and, through a worklist, everything it uses. */
static void mark(Inst *i, bool *live, Inst **work, uint32_t *nwork)
{
	if (!i || live[i->id])
		return;
	live[i->id] = true;
	work[(*nwork)++] = i;
}

bool opt_dce(Func *f)
{
	bool *live = xcalloc(f->nextid + 1, sizeof *live);
	Inst **work = xcalloc(f->nextid + 1, sizeof *work);
	uint32_t nwork = 0;
	for (uint32_t bi = 0; bi < f->nblocks; bi++) {
		Block *b = f->blocks[bi];
		for (Inst *i = b->first; i; i = i->next)
			if (!(ir_ops[i->op].flags & IRF_PURE))
				mark(i, live, work, &nwork);
		mark(b->jmp.cond, live, work, &nwork);
	}
	while (nwork) {
		Inst *i = work[--nwork];
		for (uint32_t k = 0; k < i->nops; k++)
			mark(i->ops[k], live, work, &nwork);
	}
	bool any = false;
	for (uint32_t bi = 0; bi < f->nblocks; bi++) {
		Inst *next;
		for (Inst *i = f->blocks[bi]->first; i; i = next) {
			next = i->next;
			if (!live[i->id]) {
				ir_remove(i);
				any = true;
			}
		}
	}
	free(live);
	free(work);
	ir_count_uses(f);
	return any;
}
