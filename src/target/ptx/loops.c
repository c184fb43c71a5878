/* loops.c — the natural loops of a span of PTX text (a kernel's body, for
 * --analyze): its basic blocks and their branches, their dominators, and
 * for each back edge (a branch to a block that dominates it) the loop it
 * closes, as compilers find them (Cooper, Harvey and Kennedy's iterative
 * dominators; a natural loop is its header and every block that reaches
 * the back edge without passing the header).  The back end lays out blocks
 * in its own order, so a loop's blocks need not be contiguous, and a
 * forward jump placed before its target is no loop: the text alone cannot
 * tell.
 *
 * A block starts at a label line and runs to the next; it falls through
 * to the next block unless it ends in a branch without a guard (or ret,
 * exit).  Branches to labels outside the span (out-of-line paths placed
 * after the kernel's exit label) are not followed. */
#include <stdlib.h>
#include <string.h>

#include "target/ptx/occupancy.h"

enum { MAX_BLOCKS = 4096 };

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The end of line l (its '\n' or to). */
static const char *line_end(const char *l, const char *to)
{
	const char *e = memchr(l, '\n', (size_t)(to - l));
	return e ? e : to;
}

static bool is_label(const char *l, const char *eol)
{
	return *l == '$' && eol > l + 1 && eol[-1] == ':';
}

static int find_block(const PtxCfg *g, const char *name, size_t n)
{
	for (int i = 0; i < g->nb; i++)
		if (strlen(g->b[i].label) == n && !strncmp(g->b[i].label, name, n))
			return i;
	return -1;
}

/* Splits [from, to) into blocks at its labels (text before the first
 * label is block 0 too, unnamed). */
static bool split(PtxCfg *g, const char *from, const char *to)
{
	for (const char *l = from; l < to;) {
		const char *eol = line_end(l, to);
		if (l == from || is_label(l, eol)) {
			if (g->nb == MAX_BLOCKS)
				return false;
			PtxBlock *b = &g->b[g->nb++];
			memset(b, 0, sizeof *b);
			b->from = l;
			if (is_label(l, eol) && eol - l - 1 < (ptrdiff_t)sizeof b->label)
				memcpy(b->label, l, (size_t)(eol - l - 1));
			b->loop = -1;
		}
		g->b[g->nb - 1].to = eol < to ? eol + 1 : to;
		l = eol < to ? eol + 1 : to;
	}
	return g->nb > 0;
}

/* The successors of block i: its branches' targets in the span, and the
 * next block unless its last instruction ends the path. */
static void successors(PtxCfg *g, int i)
{
	PtxBlock *b = &g->b[i];
	bool falls = true;
	for (const char *l = b->from; l < b->to;) {
		const char *eol = line_end(l, b->to), *p = l + strspn(l, " \t");
		bool guarded = *p == '@';
		if (guarded)
			p += strcspn(p, " \t"), p += strspn(p, " \t");
		if (p < eol && *p != '/' && *p != '$' && *p != '.' && *p != '\n')
			falls = true;   /* an instruction: the path goes on past it */
		if (starts(p, "bra")) {
			const char *t = memchr(p, '$', (size_t)(eol - p));
			int s = t ? find_block(g, t, strcspn(t, "; \t\n")) : -1;
			if (s >= 0 && b->nsucc < (int)(sizeof b->succ / sizeof b->succ[0]))
				b->succ[b->nsucc++] = s;
			falls = guarded;
		} else if ((starts(p, "ret") || starts(p, "exit")) && !guarded)
			falls = false;
		l = eol < b->to ? eol + 1 : b->to;
	}
	if (falls && i + 1 < g->nb && b->nsucc < (int)(sizeof b->succ / sizeof b->succ[0]))
		b->succ[b->nsucc++] = i + 1;
}

/* Reverse postorder from block 0 into order (returns its length); rpo[i]:
 * block i's place, -1 when unreachable. */
static int reverse_postorder(const PtxCfg *g, int *order, int *rpo)
{
	int *stack = malloc(sizeof(int) * (size_t)g->nb), *next = calloc((size_t)g->nb, sizeof(int));
	int sp = 0, n = g->nb;
	bool *seen = calloc((size_t)g->nb, sizeof(bool));
	for (int i = 0; i < g->nb; i++)
		rpo[i] = -1;
	stack[sp++] = 0;
	seen[0] = true;
	while (sp) {
		int b = stack[sp - 1];
		if (next[b] < g->b[b].nsucc) {
			int s = g->b[b].succ[next[b]++];
			if (!seen[s])
				seen[s] = true, stack[sp++] = s;
			continue;
		}
		sp--;
		order[--n] = b;   /* postorder, filled from the back */
	}
	int len = g->nb - n;
	memmove(order, order + n, sizeof(int) * (size_t)len);
	for (int i = 0; i < len; i++)
		rpo[order[i]] = i;
	free(stack), free(next), free(seen);
	return len;
}

static int intersect(const int *idom, const int *rpo, int a, int b)
{
	while (a != b) {
		while (rpo[a] > rpo[b])
			a = idom[a];
		while (rpo[b] > rpo[a])
			b = idom[b];
	}
	return a;
}

/* Immediate dominators (Cooper, Harvey, Kennedy: "A Simple, Fast
 * Dominance Algorithm"), -1 for unreachable blocks. */
static void dominators(const PtxCfg *g, const int *order, int len, const int *rpo, int *idom)
{
	for (int i = 0; i < g->nb; i++)
		idom[i] = -1;
	idom[0] = 0;
	for (bool changed = true; changed;) {
		changed = false;
		for (int k = 1; k < len; k++) {
			int b = order[k], nd = -1;
			for (int p = 0; p < g->nb; p++)   /* predecessors: blocks that branch to b */
				for (int s = 0; s < g->b[p].nsucc; s++)
					if (g->b[p].succ[s] == b && idom[p] >= 0)
						nd = nd < 0 ? p : intersect(idom, rpo, p, nd);
			if (nd >= 0 && idom[b] != nd)
				idom[b] = nd, changed = true;
		}
	}
}

static bool dominates(const int *idom, int h, int b)
{
	for (; b >= 0; b = idom[b]) {
		if (b == h)
			return true;
		if (idom[b] == b)
			return false;
	}
	return false;
}

/* Marks in body the natural loop of back edge u -> h. */
static void natural_loop(const PtxCfg *g, int h, int u, bool *body)
{
	int *stack = malloc(sizeof(int) * (size_t)g->nb), sp = 0;
	body[h] = true;
	if (!body[u])
		body[u] = true, stack[sp++] = u;
	while (sp) {
		int b = stack[--sp];
		for (int p = 0; p < g->nb; p++)
			for (int s = 0; s < g->b[p].nsucc; s++)
				if (g->b[p].succ[s] == b && !body[p])
					body[p] = true, stack[sp++] = p;
	}
	free(stack);
}

/* The loops of g, one per header, each block marked with the innermost
 * loop holding it (the smallest); in[i * nb + b]: block b is in loop i. */
static void find_loops(PtxCfg *g, const int *idom, bool *in)
{
	for (int h = 0; h < g->nb && g->nl < PTX_MAX_LOOPS; h++) {
		bool *body = in + (size_t)g->nl * (size_t)g->nb, loop = false;
		for (int u = 0; u < g->nb; u++)
			for (int s = 0; s < g->b[u].nsucc; s++)
				if (g->b[u].succ[s] == h && idom[u] >= 0 && dominates(idom, h, u))
					natural_loop(g, h, u, body), loop = true;
		if (!loop)
			continue;
		PtxLoop *l = &g->l[g->nl];
		l->header = h;
		for (int b = 0; b < g->nb; b++)
			l->blocks += body[b];
		for (int b = 0; b < g->nb; b++)
			if (body[b] && (g->b[b].loop < 0 || g->l[g->b[b].loop].blocks > l->blocks))
				g->b[b].loop = g->nl;
		g->nl++;
	}
	/* depth: the other loops holding its header; parent: the smallest */
	for (int i = 0; i < g->nl; i++) {
		g->l[i].parent = -1;
		for (int j = 0; j < g->nl; j++)
			if (j != i && in[(size_t)j * (size_t)g->nb + (size_t)g->l[i].header]) {
				g->l[i].depth++;
				if (g->l[i].parent < 0 || g->l[j].blocks < g->l[g->l[i].parent].blocks)
					g->l[i].parent = j;
			}
	}
}

bool ptx_cfg(const char *from, const char *to, PtxCfg *g)
{
	memset(g, 0, sizeof *g);
	g->b = calloc(MAX_BLOCKS, sizeof *g->b);
	g->l = calloc(PTX_MAX_LOOPS, sizeof *g->l);
	if (!g->b || !g->l)
		die("out of memory");
	if (!split(g, from, to))
		return false;
	for (int i = 0; i < g->nb; i++)
		successors(g, i);
	int *order = malloc(sizeof(int) * (size_t)g->nb), *rpo = malloc(sizeof(int) * (size_t)g->nb);
	int *idom = malloc(sizeof(int) * (size_t)g->nb);
	int len = reverse_postorder(g, order, rpo);
	dominators(g, order, len, rpo, idom);
	bool *in = calloc((size_t)PTX_MAX_LOOPS * (size_t)g->nb, sizeof(bool));
	find_loops(g, idom, in);
	free(in);
	for (int i = 0; i < g->nb; i++)
		g->b[i].rpo = rpo[i];
	free(order), free(rpo), free(idom);
	return true;
}

void ptx_cfg_free(PtxCfg *g)
{
	free(g->b);
	free(g->l);
	memset(g, 0, sizeof *g);
}
