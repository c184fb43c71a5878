/* latency.c — how many cycles one CM thread (a warp) alone takes through a
 * span of PTX: --analyze's latency term (docs/analyzer.md, "Latency").
 *
 * A scoreboard of one warp as ptxas schedules it and an SM runs it: the
 * span's basic blocks run one after another; inside a block an instruction
 * issues as soon as its source registers are ready (a register is ready
 * when the instruction that wrote it issued plus that instruction's
 * latency), as ptxas's list scheduling hoists loads above the arithmetic
 * that does not need them, and the block lasts at least one cycle per
 * instruction (one issue a cycle).  Labels, branches, barriers and fences
 * end a block (ptxas moves nothing across them); a fence also waits for
 * every memory operation issued before it.  Branches are not followed (the
 * span is taken straight through, as the instruction mix counts it) and
 * moves from register to register cost nothing (ptxas allocates them
 * away: the destination is ready when the source is).  So loads issued
 * before their first use overlap (their bytes are in flight together) and
 * a chain of dependent instructions adds up its latencies.
 *
 * A loop is run twice, the second trip starting from the registers the
 * first left: its length is the cycles per iteration, with the values one
 * trip carries into the next (an accumulator, a carry) on the path.  Trips
 * do not overlap (ptxas does not pipeline loops).
 *
 * It also notes a spin: a conditional branch whose predicate comes from a
 * global atomic's result in the same span (a thread waiting for others to
 * publish a flag). */
#include <stdlib.h>
#include <string.h>

#include "target/ptx/occupancy.h"

/* The machine: one product per architecture, its SMs, SM clock and DRAM
 * bandwidth (its datasheet; the H100's clock and DRAM bandwidth
 * measured: a 1 GB cudaMemcpy device to device moves 2986 GB/s counting
 * bytes read and written, bench/runs/gpu-h100-vendor.csv, 2026-11-27,
 * where the datasheet says 3.35 TB/s), the SM's
 * throughputs (CUDA programming guide, arithmetic instruction throughput:
 * four schedulers, 32 shuffle lanes, 128 shared bytes and 16 SFU lanes a
 * cycle), the L2's bandwidth per SM cycle and the latencies of one warp's
 * instructions, measured on an H100 SXM by tools/latency_bench.cu: L2
 * reads of an 8 MB set from every SM, L1 bypassed, 5.6 TB/s (21.4 bytes
 * per SM cycle); one warp alone, dependent chains: FFMA 4.1, shfl 26.0,
 * ld.shared 29.0, a global load from DRAM 685..697, an atomic with its
 * result 338..521 in the near and far L2 halves, a fence with nothing
 * outstanding 630.  The H100's L2 rate and latencies serve every
 * architecture. */
static const PtxMachine machines[] = {
	/* cc product     SMs clock  DRAM   issue shfl shared L2  sfu  alu xbar shr dram atom fence */
	{80, "A100 SXM", 108, 1.41e9, 1555e9, 4, 1, 128, 21.4, 16, 4, 26, 29, 690, 430, 630},
	{86, "RTX 3090", 82, 1.695e9, 936e9, 4, 1, 128, 21.4, 16, 4, 26, 29, 690, 430, 630},
	{87, "Orin", 16, 1.3e9, 204e9, 4, 1, 128, 21.4, 16, 4, 26, 29, 690, 430, 630},
	{89, "RTX 4090", 128, 2.52e9, 1008e9, 4, 1, 128, 21.4, 16, 4, 26, 29, 690, 430, 630},
	{90, "H100 SXM", 132, 1.98e9, 2990e9, 4, 1, 128, 21.4, 16, 4, 26, 29, 690, 430, 630},
};

const PtxMachine *ptx_machine(int cc)
{
	size_t n = sizeof machines / sizeof machines[0];
	for (size_t i = 0; i < n; i++)
		if (machines[i].cc == cc)
			return &machines[i];
	return &machines[n - 1];
}

enum { NREG = 1 << 15 };   /* register slots (a kernel has a few thousand) */

typedef struct {
	char name[32];
	double ready;             /* cycle its value is ready */
	bool spin;                /* derived from a global atomic's result */
	bool mul;                 /* a contractible floating-point product */
} Reg;

struct PtxLat {
	const PtxMachine *m;      /* the latencies */
	Reg *reg;
	double start;             /* the current block's first cycle */
	double end;               /* when its instructions so far have issued */
	uint32_t count;           /* its instructions so far */
	double mem;               /* when the memory operations issued so far complete */
	bool spin;                /* a branch on an atomic's result was seen */
};

PtxLat *ptx_lat_new(const PtxMachine *m)
{
	PtxLat *s = calloc(1, sizeof *s);
	if (!s || !(s->reg = calloc(NREG, sizeof *s->reg)))
		die("out of memory");
	s->m = m;
	return s;
}

void ptx_lat_free(PtxLat *s)
{
	if (s)
		free(s->reg);
	free(s);
}

double ptx_lat_now(const PtxLat *s)
{
	return s->end;
}

void ptx_lat_block(PtxLat *s)
{
	s->start = s->end;
	s->count = 0;
}

bool ptx_lat_spin(const PtxLat *s)
{
	return s->spin;
}

/* The slot of register [p, p + n), created when want. */
static Reg *reg_at(PtxLat *s, const char *p, size_t n, bool want)
{
	if (n >= sizeof s->reg[0].name)
		return NULL;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 16777619u;
	for (uint32_t i = 0; i < NREG; i++) {
		Reg *r = &s->reg[(h + i) & (NREG - 1)];
		if (!r->name[0]) {
			if (!want)
				return NULL;
			memcpy(r->name, p, n);
			return r;
		}
		if (!strncmp(r->name, p, n) && !r->name[n])
			return r;
	}
	return NULL;
}

static bool reg_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.';
}

/* Each register named in [p, end), as (name, length). */
static const char *next_reg(const char *p, const char *end, size_t *n)
{
	while (p < end && *p != '%')
		p++;
	if (p >= end)
		return NULL;
	const char *q = p + 1;
	while (q < end && reg_char(*q))
		q++;
	*n = (size_t)(q - p);
	return p;
}

/* The end of the first operand of [p, end) (a comma outside braces). */
static const char *first_operand_end(const char *p, const char *end)
{
	int depth = 0;
	for (; p < end; p++) {
		if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
		else if (*p == ',' && !depth)
			return p;
	}
	return end;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Whether op writes no register (its first operand is a source too). */
static bool no_dest(const char *op)
{
	static const char *ops[] = {"st.", "red.", "bra", "bar", "fence", "membar", "ret", "exit",
	                            "prefetch", "trap", "cp.async.wait", "cp.async.commit"};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (starts(op, ops[i]))
			return true;
	return false;
}

static bool global_space(const char *op)
{
	return !strstr(op, ".shared") && !strstr(op, ".param") && !strstr(op, ".local") &&
	       !strstr(op, ".const");
}

/* The latency of op's result on m (or, for a memory operation without
 * one, how long it stays outstanding). */
static double op_latency(const PtxMachine *m, const char *op)
{
	static const char *xbar[] = {"shfl.", "vote.", "redux.", "match.", "ex2", "lg2", "sin.",
	                             "cos.", "rsqrt", "rcp.approx", "sqrt.approx", "tanh"};
	bool ld = starts(op, "ld.") || starts(op, "ldu."), st = starts(op, "st.");
	bool atom = starts(op, "atom.") || starts(op, "red.");
	if (ld || st || atom) {
		if (strstr(op, ".shared") || strstr(op, ".local"))
			return m->shared;
		if (strstr(op, ".param") || strstr(op, ".const"))
			return m->alu;
		return atom ? m->atomic : m->global;
	}
	for (size_t i = 0; i < sizeof xbar / sizeof xbar[0]; i++)
		if (starts(op, xbar[i]))
			return m->xbar;
	return m->alu;
}

/* Whether op is a floating-point multiply or add without a rounding
 * modifier: ptxas contracts such a pair into one FMA (its default
 * --fmad=true), so the add takes no issue slot of its own. */
static bool contractible(const char *op, const char *what)
{
	return starts(op, what) && !strstr(op, ".rn") && !strstr(op, ".rz") && !strstr(op, ".rm") &&
	       !strstr(op, ".rp") && !strstr(op, ".sat") && (strstr(op, ".f32") || strstr(op, ".f64"));
}

/* An instruction line's operands: its guard predicate, its destinations
 * [ops, src) (empty for stores, branches, fences) and sources [src, end). */
typedef struct {
	const char *guard, *gend, *ops, *src, *end;
} Parts;

static Parts parts(const char *op, const char *l, const char *eol)
{
	Parts i = {NULL, NULL, l + strspn(l, " \t"), NULL, NULL};
	if (*i.ops == '@') {
		i.guard = i.ops;
		i.gend = i.ops + strcspn(i.ops, " \t");
		i.ops = i.gend + strspn(i.gend, " \t");
	}
	i.ops += strlen(op);
	i.end = memchr(i.ops, ';', (size_t)(eol - i.ops));
	if (!i.end)
		i.end = eol;
	i.src = no_dest(op) ? i.ops : first_operand_end(i.ops, i.end);
	return i;
}

/* The cycle registers [p, end) are all ready (at least from); spin: one
 * derives from a global atomic; mul: one is a contractible product. */
static double ready_at(PtxLat *s, const char *p, const char *end, double from, bool *spin,
                       bool *mul)
{
	size_t n;
	for (const char *r = p ? next_reg(p, end, &n) : NULL; r; r = next_reg(r + n, end, &n)) {
		Reg *g = reg_at(s, r, n, false);
		if (!g)
			continue;   /* never written in the span: ready at its start */
		if (g->ready > from)
			from = g->ready;
		*spin |= g->spin;
		*mul |= g->mul;
	}
	return from;
}

/* Takes one issue slot at cycle ready in the current block; a fence or a
 * branch ends the block (ptxas moves nothing across it). */
static void issue(PtxLat *s, const char *op, double ready, double done)
{
	bool fence = starts(op, "fence") || starts(op, "membar");
	s->count++;
	if (ready + 1 > s->end)
		s->end = ready + 1;
	if (s->start + s->count > s->end)
		s->end = s->start + s->count;
	if (fence)
		s->end = done;
	if (fence || starts(op, "bra") || starts(op, "bar"))
		ptx_lat_block(s);
}

/* Issues instruction line [l, eol) with opcode op in the current block; a
 * free move (a register copy) takes no slot and passes its source's
 * readiness on.  True when the instruction is an add that ptxas fuses
 * with the product it adds (no slot of its own either). */
bool ptx_lat_step(PtxLat *s, const char *op, const char *l, const char *eol, bool free_move)
{
	Parts i = parts(op, l, eol);
	bool spin = false, mul = false;
	double ready = ready_at(s, i.guard, i.gend, s->start, &spin, &mul);
	if (spin && starts(op, "bra"))
		s->spin = true;   /* a branch on what other threads published */
	ready = ready_at(s, i.src, i.end, ready, &spin, &mul);
	bool fused = mul && (contractible(op, "add.") || contractible(op, "sub."));
	bool fence = starts(op, "fence") || starts(op, "membar");
	if ((fence || starts(op, "bar")) && s->end > ready)
		ready = s->end;   /* after everything before it in the block */
	double done = ready + (free_move ? 0 : op_latency(s->m, op));
	if (fence)   /* its own round trip, overlapping what it waits for */
		done = ready + s->m->fence > s->mem ? ready + s->m->fence : s->mem;
	bool mem = starts(op, "ld.") || starts(op, "st.") || starts(op, "atom.") ||
	           starts(op, "red.");
	if (mem && global_space(op) && done > s->mem)
		s->mem = done;
	if (starts(op, "atom.") && global_space(op))
		spin = true;   /* its result is what other threads published */
	size_t n;
	for (const char *r = next_reg(i.ops, i.src, &n); r; r = next_reg(r + n, i.src, &n)) {
		Reg *g = reg_at(s, r, n, true);
		if (g)
			g->ready = done, g->spin = spin, g->mul = contractible(op, "mul.");
	}
	if (!free_move && !fused)
		issue(s, op, ready, done);
	return fused;
}
