/* check.c — the checking mode of the PTX back end (-fbounds-check,
 * EmitOptions.bounds_check): every memory access whose bounds predicate
 * fails in an enabled lane records a fault in the launch's fault record
 * (rt/cuda_abi.h "Faults"), which the runtime turns into the CPU device's
 * report (the CM line, what the access was, the CM thread).
 *
 * requires: mem.c's per-lane bounds predicates; the launch block in
 * %launch.
 *
 * The access itself is made safe exactly as without checking (mem.c's
 * predicates are untouched); the checking mode only adds, per access, the
 * lanes that failed (one not + and per slot, px_fault_lane), one vote
 * of the CM thread's lanes and a branch to the cold section, where one lane
 * writes the record with a compare-and-swap loop that keeps the fault of
 * the lowest thread (and of a thread its first), as the CPU device does.
 * Without checking nothing here emits anything, so the default PTX is the
 * same as if this file did not exist.
 */
#include "rt/cuda_abi.h"
#include "target/ptx/ptx.h"

bool px_checking(const Px *p)
{
	return p->o->bounds_check;
}

void px_fault_lane(Px *p, const char **acc, const char *ok, const char *act)
{
	if (!px_checking(p) || !ok)
		return;
	const char *f = px_tmp(p, RC_PRED);
	px_ins(p, "not.pred %s, %s", f, ok);
	if (act)
		px_ins(p, "and.pred %s, %s, %s", f, f, act);
	if (!*acc)
		*acc = f;
	else
		px_ins(p, "or.pred %s, %s, %s", *acc, *acc, f);
}

/* The record of the fault: lane 0 of the CM thread replaces the record
 * while it is empty or a full record of a higher thread (rt/cuda_abi.h
 * "Faults"); lanes join again at the end. */
static void record(Px *p, int kind, uint32_t line)
{
	const char *a = px_tmp(p, RC_B64), *q = px_tmp(p, RC_PRED), *skip = px_label(p);
	px_ins(p, "ld.global.nc.u64 %s, [%%launch+%d]", a, CUDA_L_FAULT);
	px_ins(p, "setp.eq.u64 %s, %s, 0", q, a);
	px_ins(p, "setp.ne.or.u32 %s, %%lane, 0, %s", q, q);
	px_ins(p, "@%s bra %s", q, skip);
	const char *tid = px_linear_tid(p), *lo = px_tmp(p, RC_B32), *nw = px_tmp(p, RC_B64);
	uint32_t ln = line > CUDA_FAULT_LINE_MAX ? CUDA_FAULT_LINE_MAX : line;
	px_ins(p, "mov.u32 %s, %u", lo, CUDA_FAULT_FULL | (uint32_t)kind << 24 | ln);
	px_ins(p, "mov.b64 %s, {%s, %s}", nw, lo, tid);
	const char *old = px_tmp(p, RC_B64), *olo = px_tmp(p, RC_B32), *ohi = px_tmp(p, RC_B32);
	const char *got = px_tmp(p, RC_B64), *loop = px_label(p), *cas = px_label(p);
	px_ins(p, "ld.volatile.global.u64 %s, [%s]", old, a);
	buf_printf(&p->body, "%s:\n", loop);
	px_ins(p, "setp.eq.u64 %s, %s, 0", q, old);
	px_ins(p, "@%s bra %s", q, cas);
	/* kept: a line-only record (bit 31 clear), or a thread not above ours */
	px_ins(p, "mov.b64 {%s, %s}, %s", olo, ohi, old);
	px_ins(p, "setp.ge.s32 %s, %s, 0", q, olo);
	px_ins(p, "setp.le.or.u32 %s, %s, %s, %s", q, ohi, tid, q);
	px_ins(p, "@%s bra %s", q, skip);
	buf_printf(&p->body, "%s:\n", cas);
	px_ins(p, "atom.global.cas.b64 %s, [%s], %s, %s", got, a, old, nw);
	px_ins(p, "setp.ne.u64 %s, %s, %s", q, got, old);
	px_ins(p, "mov.b64 %s, %s", old, got);
	px_ins(p, "@%s bra %s", q, loop);
	buf_printf(&p->body, "%s:\n", skip);
}

void px_fault_end(Px *p, const char *acc, int kind, const Inst *i)
{
	if (!acc)
		return;
	const char *any = px_tmp(p, RC_PRED);
	px_vote(p, true, any, acc);
	if (p->in_cold) {   /* already out of line (a slow path): branch over */
		const char *past = px_label(p);
		px_ins(p, "@!%s bra%s %s", any, px_uni(p), past);
		px_comment(p, "fault: %s", ir_ops[i->op].name);
		record(p, kind, i->loc.line);
		buf_printf(&p->body, "%s:\n", past);
		return;
	}
	const char *cold = px_label(p), *back = px_label(p);
	px_ins(p, "@%s bra%s %s", any, px_uni(p), cold);
	buf_printf(&p->body, "%s:\n", back);
	px_cold_begin(p, cold);
	px_comment(p, "fault: %s", ir_ops[i->op].name);
	record(p, kind, i->loc.line);
	px_cold_end(p, back);
}
