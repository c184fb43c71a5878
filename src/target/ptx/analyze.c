/* analyze.c — `cmetal --occupancy` and `cmetal --analyze`: reports on the
 * PTX text the back end wrote, read back from its metadata lines
 * ("//@cmetal kernel NAME slm S ... shuffles N [scratch B]"), its ptxas
 * header ("// ptxas: R registers per lane, ...") and its instructions.
 *
 * --analyze adds, per kernel, a static instruction mix and a throughput
 * estimate (docs/analyzer.md says how and how far to trust it):
 *   - shuffles by CM source line (from .loc: the driver compiles with -g);
 *   - the whole body, each instruction counted once, and every loop
 *     (natural loops of the CFG, loops.c), per iteration, the blocks of
 *     loops nested in it apart;
 *   - classes: issue (every instruction but moves from registers, which
 *     ptxas allocates away, and adds it contracts into an FMA), shfl,
 *     shared (ld/st/atom on .shared, bytes per lane), global (ld/st/atom/red
 *     on .global or generic addresses, bytes per lane), sfu (ex2, lg2, sin,
 *     cos, rsqrt, rcp/sqrt .approx), control (bra, bar, ret, exit);
 *   - SM cycles per CM thread (a warp) for each resource at the SM's
 *     throughput (OccArch-independent rates of sm_80..sm_90 from the CUDA
 *     programming guide's arithmetic throughput table; DRAM bytes per SM
 *     cycle of one product per architecture), and for latency: the cycles
 *     one CM thread alone takes (latency.c) over the CM threads an SM runs
 *     at once (the occupancy at the launch's group size, no more than the
 *     launch spreads over the SMs: --analyze-grid); the largest is the
 *     bound;
 *   - for a loop whose branch waits on a global atomic's result (a spin on
 *     other threads' flags): the chain of polls the launch needs at least.
 * PTX is not SASS: ptxas adds and removes instructions, so the counts are
 * a guide before running, not a measurement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/ptx/occupancy.h"

typedef struct {
	char name[128];
	uint32_t slm, scratch, shuffles, barrier;
	uint32_t lanes;       /* per CM thread: 32, or W when packed ("lanes W") */
	bool split;           /* its groups may run as several CTAs ("split 1") */
	int regs, shared, local, spill_st, spill_ld;   /* -1: no ptxas report */
	const char *body, *end;                        /* the .entry's text */
	const char *exit;     /* its exit label; what follows is out of line */
} PtxKernel;

enum { C_ISSUE, C_SHFL, C_SHARED, C_GLOBAL, C_SFU, C_CONTROL, C_N };
typedef struct {
	uint32_t n[C_N];          /* instructions per class */
	uint32_t shared_bytes;    /* per lane */
	uint32_t global_bytes;    /* per lane */
} Mix;

/* ---- reading the PTX back ---- */

static bool line_is(const char *l, const char *prefix)
{
	return !strncmp(l, prefix, strlen(prefix));
}

/* The metadata and ptxas lines of every kernel; bodies found later. */
static int read_kernels(const char *ptx, PtxKernel *ks, int max)
{
	int n = 0;
	for (const char *l = ptx; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		PtxKernel *k = &ks[n];
		if (line_is(l, "//@cmetal kernel ") && n < max) {
			memset(k, 0, sizeof *k);
			k->regs = k->shared = k->local = k->spill_st = k->spill_ld = -1;
			if (sscanf(l, "//@cmetal kernel %127s slm %u barrier %u", k->name, &k->slm,
			           &k->barrier) != 3)
				continue;
			const char *q = strstr(l, " shuffles ");
			const char *s = strstr(l, " scratch ");
			const char *w = strstr(l, " lanes ");
			const char *eol = strchr(l, '\n');
			k->lanes = w && (!eol || w < eol) ? (uint32_t)atoi(w + 7) : 32;
			if (!k->lanes || k->lanes > 32)
				k->lanes = 32;
			if (q && (!eol || q < eol))
				k->shuffles = (uint32_t)atoi(q + 10);
			if (s && (!eol || s < eol))
				k->scratch = (uint32_t)atoi(s + 9);
			const char *sp = strstr(l, " split 1");
			k->split = sp && (!eol || sp < eol);
			n++;
		}
	}
	return n;
}

/* The ptxas header above kernel k's .entry and its body. */
static void find_body(const char *ptx, PtxKernel *k)
{
	char want[160];
	snprintf(want, sizeof want, ".entry %s(", k->name);
	const char *e = strstr(ptx, want);
	if (!e)
		return;
	const char *h = e;   /* the header lines just above */
	for (int back = 0; back < 4 && h > ptx; back++) {
		h--;
		while (h > ptx && h[-1] != '\n')
			h--;
		sscanf(h, "// ptxas: %d registers per lane, %d bytes shared, %d bytes local, "
		       "%d bytes spill stores, %d bytes spill loads", &k->regs, &k->shared,
		       &k->local, &k->spill_st, &k->spill_ld);
	}
	k->body = e;
	const char *end = strstr(e, "\n}");
	k->end = end ? end : e + strlen(e);
	/* the back end places cold paths (2D reads and writes that cross an
	 * edge, ...) after the exit label and branches back from them: they are
	 * not part of the common path, and their branches back are not loops */
	snprintf(want, sizeof want, "\n$L_%s_exit:", k->name);
	const char *x = strstr(e, want);
	k->exit = x && x < k->end ? x : k->end;
}

/* Bytes per lane of a memory instruction: the vector count times the
 * type's size ("ld.global.v4.f32" -> 16). */
static uint32_t access_bytes(const char *op)
{
	uint32_t vec = strstr(op, ".v4") ? 4 : strstr(op, ".v2") ? 2 : 1;
	const char *t = strrchr(op, '.');
	int bits = t ? atoi(t + 2) : 32;
	return vec * (uint32_t)(bits > 0 ? bits / 8 : 4);
}

/* One instruction (its opcode, e.g. "ld.global.nc.u32") into m. */
static void classify(const char *op, Mix *m)
{
	static const char *sfu[] = {"ex2", "lg2", "sin.", "cos.", "rsqrt", "rcp.approx",
	                            "sqrt.approx", "tanh"};
	m->n[C_ISSUE]++;
	bool mem = line_is(op, "ld.") || line_is(op, "st.") || line_is(op, "atom.") ||
	           line_is(op, "red.");
	if (line_is(op, "shfl."))
		m->n[C_SHFL]++;
	else if (mem && strstr(op, ".shared")) {
		m->n[C_SHARED]++;
		m->shared_bytes += access_bytes(op);
	} else if (mem && !strstr(op, ".param") && !strstr(op, ".local") && !strstr(op, ".const")) {
		m->n[C_GLOBAL]++;
		m->global_bytes += access_bytes(op);
	} else if (line_is(op, "bra") || line_is(op, "bar") || line_is(op, "ret") ||
	           line_is(op, "exit"))
		m->n[C_CONTROL]++;
	else
		for (size_t i = 0; i < sizeof sfu / sizeof sfu[0]; i++)
			if (line_is(op, sfu[i]))
				m->n[C_SFU]++;
}

/* The opcode of an instruction line (predicate skipped) into op; false
 * for labels, directives, comments and braces. */
static bool opcode(const char *l, const char *eol, char *op, size_t cap)
{
	while (l < eol && (*l == ' ' || *l == '\t'))
		l++;
	if (l >= eol || *l == '/' || *l == '.' || *l == '{' || *l == '}' || *l == '$' ||
	    (memchr(l, ':', (size_t)(eol - l)) && !memchr(l, ' ', (size_t)(eol - l))))
		return false;
	if (*l == '@') {
		while (l < eol && *l != ' ' && *l != '\t')
			l++;
		while (l < eol && (*l == ' ' || *l == '\t'))
			l++;
	}
	size_t n = strcspn(l, " \t;\n");
	if (!n || n >= cap)
		return false;
	memcpy(op, l, n);
	op[n] = 0;
	return true;
}

/* Whether line [l, eol) with opcode op is a move from a register (or a
 * pack or unpack of register pairs): the back end writes many (a region
 * read in place, a value copied into the registers a phi or a wrregion
 * will hold) and ptxas allocates them away; moves from special registers
 * (%tid, %laneid, ...) stay. */
static bool free_move(const char *op, const char *l, const char *eol)
{
	static const char *special[] = {"%tid", "%ntid", "%ctaid", "%nctaid", "%laneid",
	                                "%warpid", "%nwarpid", "%smid", "%nsmid", "%clock",
	                                "%globaltimer", "%lanemask", "%dynamic_smem",
	                                "%cluster", "%is_explicit_cluster", "%total_smem"};
	if (!line_is(op, "mov."))
		return false;
	const char *c = memchr(l, ',', (size_t)(eol - l));
	if (!c)
		return false;
	while (++c < eol && (*c == ' ' || *c == '\t'))
		;
	if (c >= eol || (*c != '%' && *c != '{'))
		return false;
	for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
		if (line_is(c, special[i]))
			return false;
	return true;
}

/* Whether [l, eol) is the label of a block of kernel k ("$L_K_bN:"). */
static bool block_label(const PtxKernel *k, const char *l, const char *eol)
{
	size_t n = strlen(k->name);
	return eol - l > (ptrdiff_t)(n + 5) && line_is(l, "$L_") && !strncmp(l + 3, k->name, n) &&
	       line_is(l + 3 + n, "_b") && eol[-1] == ':';
}

/* Whether block label [l, eol) has a twin "..._v:": the block is in a loop
 * that the back end also emitted without bounds checks (vloop.c), the
 * copy that runs when the loop stays inside its buffers; the estimate
 * counts that one. */
static bool checked_twin(const PtxKernel *k, const char *l, const char *eol)
{
	char pat[160];
	if (!block_label(k, l, eol) || eol - l > 150)
		return false;
	snprintf(pat, sizeof pat, "\n%.*s_v:", (int)(eol - l - 1), l);
	const char *t = strstr(k->body, pat);
	return t && t < k->end;
}

/* Adds the mix of the instructions in [from, to) of kernel k to m, but for
 * the blocks that have an unchecked twin; each also issued on lat (if
 * any). */
static void mix_add(const PtxKernel *k, const char *from, const char *to, Mix *m, PtxLat *lat)
{
	bool skip = false;
	for (const char *l = from; l && l < to;) {
		const char *eol = strchr(l, '\n');
		if (!eol || eol > to)
			eol = to;
		if (block_label(k, l, eol))
			skip = checked_twin(k, l, eol);
		if (lat && *l == '$')
			ptx_lat_block(lat);   /* a label: a basic block starts */
		char op[64];
		if (!skip && opcode(l, eol, op, sizeof op)) {
			bool move = free_move(op, l, eol);
			bool fused = lat && ptx_lat_step(lat, op, l, eol, move);
			if (!move && !fused)
				classify(op, m);
		}
		l = eol + 1;
	}
}

/* ---- shuffles by source line (the report compiles with -g: .loc) ---- */

typedef struct { uint32_t file, line, n; } LineCount;

static int by_count(const void *a, const void *b)
{
	const LineCount *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return x->file != y->file ? (x->file < y->file ? -1 : 1) : (x->line > y->line) - (x->line < y->line);
}

/* The base name of file id f of the module's ".file f \"name\"" lines. */
static void file_name(const char *ptx, uint32_t f, char *name, size_t cap)
{
	char pat[32];
	snprintf(pat, sizeof pat, "\n.file %u \"", f);
	const char *q = strstr(ptx, pat);
	snprintf(name, cap, "?");
	if (!q)
		return;
	q += strlen(pat);
	size_t n = strcspn(q, "\"\n");
	const char *slash = q;
	for (const char *c = q; c < q + n; c++)
		if (*c == '/')
			slash = c + 1;
	snprintf(name, cap, "%.*s", (int)(q + n - slash), slash);
}

static void shuffle_lines(const char *ptx, const PtxKernel *k, Buf *out)
{
	LineCount lc[256];
	uint32_t n = 0, file = 0, line = 0;
	for (const char *l = k->body; l && l < k->end;) {
		const char *eol = strchr(l, '\n');
		if (!eol)
			break;
		const char *t = l + strspn(l, " \t");
		char op[64];
		if (!strncmp(t, ".loc ", 5))
			sscanf(t + 5, "%u %u", &file, &line);
		else if (opcode(l, eol, op, sizeof op) && line_is(op, "shfl.")) {
			uint32_t i = 0;
			while (i < n && (lc[i].file != file || lc[i].line != line))
				i++;
			if (i == n && n < 256)
				lc[n++] = (LineCount){file, line, 0};
			if (i < n)
				lc[i].n++;
		}
		l = eol + 1;
	}
	if (!n)
		return;
	qsort(lc, n, sizeof lc[0], by_count);
	buf_puts(out, "  shuffles by source line:");
	for (uint32_t i = 0; i < n && i < 8; i++) {
		char name[128];
		file_name(ptx, lc[i].file, name, sizeof name);
		buf_printf(out, "%s %s:%u %u", i ? "," : "", name, lc[i].line, lc[i].n);
	}
	buf_puts(out, n > 8 ? ", ...\n" : "\n");
}

/* ---- the report ---- */

static void kernel_summary(const OccArch *a, const PtxKernel *k, Buf *out)
{
	buf_printf(out, "kernel %s (%s)\n", k->name, a->name);
	if (k->regs < 0)
		buf_puts(out, "  registers: unknown (ptxas not run): the table ignores registers\n");
	else
		buf_printf(out, "  registers: %d per lane; spills: %d bytes stored, %d loaded; "
		           "local memory: %d bytes per lane\n", k->regs, k->spill_st, k->spill_ld,
		           k->local);
	buf_printf(out, "  shared memory: %u bytes per group (SLM)", k->shared > 0 ?
	           (uint32_t)k->shared : k->slm);
	if (k->scratch)
		buf_printf(out, " + %u bytes per CM thread (layout scratch)", k->scratch);
	buf_printf(out, "; static shuffles: %u\n", k->shuffles);
}

/* The group sizes of the table (1D) that the CUDA runtime runs as smaller
 * CTAs, and those CTAs' CM threads (occ_split; docs/runtime.md "Split
 * groups"). */
static void split_line(const OccArch *a, const PtxKernel *k, const OccKernel *ok, Buf *out)
{
	if (!k->split)
		return;
	bool any = false;
	for (uint32_t g = 2; g <= 32; g++) {
		uint32_t th[3] = {g, 1, 1}, sp[2];
		uint32_t cta = occ_split(a, ok, k->lanes, 32, th, NULL, sp);
		if (cta == g)
			continue;
		buf_printf(out, "%s %u -> %u", any ? "," : "  group launches split (groups of G "
		           "CM threads -> CTAs of C):", g, cta);
		any = true;
	}
	buf_puts(out, any ? "\n" : "  group launches: not split (no group size gains a quarter "
	         "more resident warps)\n");
}

static void occupancy(const OccArch *a, const PtxKernel *k, Buf *out)
{
	OccKernel ok = {k->regs > 0 ? (uint32_t)k->regs : 0,
	                k->shared > 0 ? (uint32_t)k->shared : k->slm, k->scratch};
	occ_table(a, &ok, out);
	uint32_t best = occ_best_warps(a, &ok, 32);
	if (k->slm || k->barrier)
		buf_puts(out, "  thread-space launches: one CM thread per CTA (SLM or barriers make "
		         "each thread its own group)\n");
	else if (best)
		buf_printf(out, "  thread-space launches on %s: %u CM thread%s per CTA\n", a->name,
		           best, best > 1 ? "s" : "");
	split_line(a, k, &ok, out);
}

/* What --analyze assumes of the launch, for the latency terms. */
typedef struct {
	double resident;          /* CM threads resident per SM at once (W) */
	double threads;           /* CM threads in all; 0: unknown */
	uint32_t lanes;           /* lanes per CM thread (32 unless packed) */
} Hiding;

/* Cycles per CM thread of each resource, the bound and what limits it;
 * alone: the cycles one CM thread takes by itself (latency.c), which W
 * resident CM threads per SM overlap. */
static void estimate(const OccArch *a, const char *what, const Mix *m, double alone,
                     const Hiding *h, Buf *out)
{
	static const char *cls[] = {"issue", "shfl", "shared", "global", "sfu", "control"};
	buf_printf(out, "  %s:", what);
	for (int c = 0; c < C_N; c++)
		buf_printf(out, " %s %u", cls[c], m->n[c]);
	buf_printf(out, "; bytes per lane: shared %u, global %u\n", m->shared_bytes,
	           m->global_bytes);
	/* SM cycles one warp takes of each pipe at the SM's rates; DRAM at the
	 * product's bytes per SM cycle, no cache hits; latency: the SM runs W
	 * CM threads at once, each alone takes alone */
	const PtxMachine *p = ptx_machine(a->cc);
	double dram_per_clk = p->dram / (p->sms * p->clock);
	double cyc[7] = {m->n[C_ISSUE] / p->issue, m->n[C_SHFL] / p->shfl,
	                 m->shared_bytes * 32 / p->shared_bytes, m->global_bytes * 32 / dram_per_clk,
	                 m->global_bytes * 32 / p->l2_bytes, m->n[C_SFU] * 32 / p->sfu_lanes,
	                 alone / h->resident};
	static const char *res[] = {"issue slots", "shuffle pipe", "shared memory", "DRAM bytes",
	                            "L2 bytes", "SFU", "latency"};
	int worst = 0;
	for (int r = 1; r < 7; r++)
		if (cyc[r] > cyc[worst])
			worst = r;
	buf_printf(out, "    latency: %.0f cycles for one CM thread alone, / %.3g resident per SM\n",
	           alone, h->resident);
	buf_printf(out, "    SM cycles per CM thread: issue %.1f, shuffle %.1f, shared %.1f, "
	           "DRAM %.1f, L2 %.1f, SFU %.1f, latency %.1f -> %.1f, bound by %s\n", cyc[0],
	           cyc[1], cyc[2], cyc[3], cyc[4], cyc[5], cyc[6], cyc[worst], res[worst]);
}

/* A spin loop passes values between CM threads: a thread's poll (one trip,
 * alone cycles) sees at most the flags of as many threads as it has lanes,
 * so the results cross the launch no faster than lanes threads a poll. */
static void chain(const Hiding *h, double alone, Buf *out)
{
	buf_printf(out, "    spin: a branch waits on a global atomic's result (other CM threads' "
	           "flags); a chain of %.0f cycles a poll, %u threads a poll", alone, h->lanes);
	if (h->threads > 0)
		buf_printf(out, ": %.0f SM cycles for %.0f threads", h->threads / h->lanes * alone,
		           h->threads);
	buf_putc(out, '\n');
}

/* The CM threads an SM holds at once for launch l (occupancy at its group
 * size, or at a thread-space launch's; no more than the launch spreads over
 * the SMs). */
static Hiding hiding(const OccArch *a, const PtxKernel *k, const PtxLaunch *l)
{
	OccKernel ok = {k->regs > 0 ? (uint32_t)k->regs : 0,
	                k->shared > 0 ? (uint32_t)k->shared : k->slm, k->scratch};
	uint32_t per_warp = 32 / k->lanes;   /* CM threads a warp holds (packing) */
	uint32_t group = l && l->group ? l->group : k->slm || k->barrier ? 1 :
	                 occ_best_warps(a, &ok, 32) * per_warp;
	OccResult r;
	occ_compute(a, &ok, (group + per_warp - 1) / per_warp, &r);
	Hiding h = {r.active_warps * per_warp, l ? l->threads : 0, k->lanes};
	/* a launch smaller than the machine: its threads spread over the SMs
	 * (fewer than one an SM when fewer than the SMs: the time is then one
	 * thread's, N x alone / W / SMs = alone) */
	double spread = h.threads / ptx_machine(a->cc)->sms;
	if (h.threads > 0 && spread < h.resident)
		h.resident = spread;
	if (h.resident <= 0)
		h.resident = 1;   /* nothing fits: one at a time */
	return h;
}

/* The cycles one CM thread alone takes through the body [from, to), each
 * instruction once (latency.c), and its mix into m. */
static double body_alone(const OccArch *a, const PtxKernel *k, const char *from,
                         const char *to, Mix *m)
{
	PtxLat *lat = ptx_lat_new(ptx_machine(a->cc));
	memset(m, 0, sizeof *m);
	mix_add(k, from, to, m, lat);
	double t = ptx_lat_now(lat);
	ptx_lat_free(lat);
	return t;
}

/* Loop i's own blocks (not those of loops nested in it) in reverse
 * postorder, the order they run in; returns how many. */
static int own_blocks(const PtxCfg *g, int i, int *own)
{
	int n = 0;
	for (int b = 0; b < g->nb; b++)
		if (g->b[b].loop == i && g->b[b].rpo >= 0)
			own[n++] = b;
	for (int x = 1; x < n; x++)   /* insertion sort */
		for (int y = x; y > 0 && g->b[own[y - 1]].rpo > g->b[own[y]].rpo; y--) {
			int t = own[y];
			own[y] = own[y - 1], own[y - 1] = t;
		}
	return n;
}

/* The cycles one CM thread alone takes through an iteration of loop i of
 * g (its own blocks: nested loops apart), a second trip after a first
 * (latency.c); its mix into m; spin: whether a branch in it waits on
 * other threads. */
static double loop_alone(const OccArch *a, const PtxKernel *k, const PtxCfg *g, int i, Mix *m,
                         bool *spin)
{
	int *own = malloc(sizeof(int) * (size_t)g->nb), n = own_blocks(g, i, own);
	PtxLat *lat = ptx_lat_new(ptx_machine(a->cc));
	Mix again;
	double first = 0;
	memset(m, 0, sizeof *m);
	for (int trip = 0; trip < 2; trip++) {
		first = ptx_lat_now(lat);
		for (int x = 0; x < n; x++)
			mix_add(k, g->b[own[x]].from, g->b[own[x]].to, trip ? &again : m, lat);
	}
	double t = ptx_lat_now(lat) - first;
	*spin = ptx_lat_spin(lat);
	ptx_lat_free(lat);
	free(own);
	return t;
}

/* Whether loop i's header is the checked copy of a versioned loop. */
static bool checked_loop(const PtxKernel *k, const PtxCfg *g, int i)
{
	const PtxBlock *h = &g->b[g->l[i].header];
	const char *eol = strchr(h->from, '\n');
	return h->label[0] && eol && checked_twin(k, h->from, eol);
}

/* The estimate of each loop of the body [from, exit), per iteration. */
static void loops(const OccArch *a, const PtxKernel *k, const char *from, const Hiding *h,
                  Buf *out)
{
	PtxCfg g;
	if (!ptx_cfg(from, k->exit, &g)) {
		buf_puts(out, "  loops: too many blocks to analyze\n");
		ptx_cfg_free(&g);
		return;
	}
	int shown = 0;
	for (int i = 0; i < g.nl; i++) {
		if (checked_loop(k, &g, i))
			continue;
		bool inner = false, spin;
		for (int j = 0; j < g.nl; j++)
			inner |= g.l[j].parent == i;
		Mix m;
		double t = loop_alone(a, k, &g, i, &m, &spin);
		char what[160];
		snprintf(what, sizeof what, "loop %s (depth %d), per iteration%s",
		         g.b[g.l[i].header].label, g.l[i].depth + 1, inner ? ", inner loops apart" : "");
		estimate(a, what, &m, t, h, out);
		if (spin)
			chain(h, t, out);
		shown++;
	}
	if (!shown)
		buf_puts(out, "  no loops\n");
	ptx_cfg_free(&g);
}

static void analyze(const char *ptx, const OccArch *a, const PtxKernel *k, const PtxLaunch *l,
                    Buf *out)
{
	if (!k->body)
		return;
	shuffle_lines(ptx, k, out);
	Hiding h = hiding(a, k, l);
	Mix m;
	char b0[160];   /* the body proper starts at block 0, after the prologue's
	                   loads of the launch block and surface descriptors */
	snprintf(b0, sizeof b0, "\n$L_%s_b0:", k->name);
	const char *from = strstr(k->body, b0);
	if (!from || from >= k->exit)
		from = k->body;
	double t = body_alone(a, k, from, k->exit, &m);
	buf_printf(out, "  instruction mix (PTX, static); %.3g CM threads resident per SM%s:\n",
	           h.resident, h.threads > 0 ? " (the launch)" : "");
	estimate(a, "kernel body up to its exit, each instruction once", &m, t, &h, out);
	loops(a, k, from, &h, out);
}

bool ptx_report(const char *ptx, bool full, const PtxLaunch *launch, Buf *out, Buf *err)
{
	char march[16] = "";
	const char *t = strstr(ptx, "\n.target ");
	if (t)
		sscanf(t + 9, "%15s", march);
	const OccArch *a = occ_arch(march);
	if (!a) {
		buf_printf(err, "no occupancy limits for the PTX target '%s'\n", march);
		return false;
	}
	PtxKernel ks[64];
	int n = read_kernels(ptx, ks, 64);
	for (int i = 0; i < n; i++) {
		find_body(ptx, &ks[i]);
		if (i)
			buf_putc(out, '\n');
		kernel_summary(a, &ks[i], out);
		occupancy(a, &ks[i], out);
		if (full)
			analyze(ptx, a, &ks[i], launch, out);
	}
	return true;
}
