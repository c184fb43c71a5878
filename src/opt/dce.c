/* dce.c — dead code elimination.
 *
 * requires: SSA.  preserves: CFG.
 * Removes instructions without side effects (IRF_PURE) whose value is
 * never used, repeating until nothing changes, so chains of dead values
 * go at once.  Dead phi cycles (phis used only by each other) stay.
 * Dead vector *elements* (wrregions whose written elements nobody reads)
 * are not tracked yet. */
#include "opt/opt.h"

bool opt_dce(Func *f)
{
	bool any = false;
	for (bool changed = true; changed;) {
		changed = false;
		ir_count_uses(f);
		for (uint32_t bi = 0; bi < f->nblocks; bi++) {
			Inst *next;
			for (Inst *i = f->blocks[bi]->first; i; i = next) {
				next = i->next;
				if (i->nuse || !(ir_ops[i->op].flags & IRF_PURE))
					continue;
				for (uint32_t k = 0; k < i->nops; k++)
					i->ops[k]->nuse--;
				ir_remove(i);
				changed = any = true;
			}
		}
	}
	return any;
}
