/* warp.c — the interpreter of warp.h.
 *
 * Every instruction runs on all 32 lanes (the emitter's moves are never
 * predicated).  A register holds 32 lanes of up to 64 bits and has a
 * class from its name's prefix; each operand is checked against the width
 * its instruction's type gives it, as ptxas would.  Reading a register
 * nobody wrote is an error, so a move that reads the destination before
 * writing it is caught.  shfl.sync follows the PTX ISA's pseudocode: the
 * lane operand's low 5 bits, c = segment mask << 8 | clamp, and a lane
 * whose source is out of range reads its own value.
 */
#include "warp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NHASH 4096
#define MAXTAB 256
#define MAXOPS 6

typedef struct {
	char name[32];
	uint32_t gen;         /* defined when == Warp.gen */
	uint8_t bits;         /* 1, 16, 32 or 64 */
	uint64_t v[32];
} Reg;

typedef struct {
	char name[64];
	uint8_t b[32];
} Table;

struct Warp {
	Reg *reg;             /* NHASH slots, open addressing */
	uint32_t gen;
	Table tab[MAXTAB];
	uint32_t ntab;
	char err[512];
	const char *line;     /* the line being run, for errors */
	size_t linelen;
};

Warp *warp_new(void)
{
	Warp *w = calloc(1, sizeof *w);
	w->reg = calloc(NHASH, sizeof *w->reg);
	w->gen = 1;
	return w;
}

void warp_free(Warp *w)
{
	free(w->reg);
	free(w);
}

void warp_reset(Warp *w)
{
	w->gen++;
	w->ntab = 0;
	w->err[0] = 0;
}

const char *warp_error(const Warp *w)
{
	return w->err;
}

static bool fail(Warp *w, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (w->line)
		snprintf(w->err, sizeof w->err, "%s: \"%.*s\"", msg, (int)w->linelen, w->line);
	else
		snprintf(w->err, sizeof w->err, "%s", msg);
	return false;
}

/* Register width by name prefix; 0: not a register name we know. */
static int reg_bits(const char *name)
{
	if (!strcmp(name, "%lane"))
		return 32;
	if (!strncmp(name, "%rd", 3) || !strncmp(name, "%fd", 3))
		return 64;
	if (!strncmp(name, "%r", 2) || !strncmp(name, "%f", 2))
		return 32;
	if (!strncmp(name, "%h", 2))
		return 16;
	if (!strncmp(name, "%p", 2))
		return 1;
	return 0;
}

/* The slot of name (new when absent); NULL when the table is full. */
static Reg *slot(Warp *w, const char *name)
{
	uint32_t h = 2166136261u;
	for (const char *c = name; *c; c++)
		h = (h ^ (uint8_t)*c) * 16777619u;
	for (uint32_t k = 0; k < NHASH; k++) {
		Reg *r = &w->reg[(h + k) % NHASH];
		if (r->gen != w->gen) {
			snprintf(r->name, sizeof r->name, "%s", name);
			r->bits = (uint8_t)reg_bits(name);
			return r;
		}
		if (!strcmp(r->name, name))
			return r;
	}
	return NULL;
}

static uint64_t mask_of(int bits)
{
	return bits == 64 ? ~0ull : (1ull << bits) - 1;
}

void warp_set(Warp *w, const char *name, const uint64_t v[32])
{
	Reg *r = slot(w, name);
	if (!r || !r->bits) {
		fprintf(stderr, "warp_set: bad register %s\n", name);
		abort();
	}
	r->gen = w->gen;
	for (int l = 0; l < 32; l++)
		r->v[l] = v[l] & mask_of(r->bits);
}

bool warp_get(Warp *w, const char *name, uint64_t v[32])
{
	Reg *r = slot(w, name);
	if (!r || r->gen != w->gen)
		return false;
	memcpy(v, r->v, sizeof r->v);
	return true;
}

/* ---- lane tables -------------------------------------------------------------- */

bool warp_tables(Warp *w, const char *text)
{
	w->line = NULL;
	for (const char *s = text; s && *s;) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		const char *pre = ".global .align 4 .b8 ";
		if (strncmp(s, pre, strlen(pre)))
			return fail(w, "unknown global line: %.*s", (int)len, s);
		if (w->ntab == MAXTAB)
			return fail(w, "too many lane tables");
		Table *t = &w->tab[w->ntab++];
		const char *n = s + strlen(pre), *br = strchr(n, '[');
		if (!br || br - n >= (long)sizeof t->name || strncmp(br, "[32] = {", 8))
			return fail(w, "bad lane table: %.*s", (int)len, s);
		memcpy(t->name, n, (size_t)(br - n));
		t->name[br - n] = 0;
		const char *c = br + 8;
		for (int k = 0; k < 32; k++) {
			char *end;
			long v = strtol(c, &end, 10);
			if (end == c || v < 0 || v > 255 || *end != (k < 31 ? ',' : '}'))
				return fail(w, "bad lane table value %d: %.*s", k, (int)len, s);
			t->b[k] = (uint8_t)v;
			c = end + (k < 31 ? 2 : 1);
		}
		if (strcmp(c, ";") && strncmp(c, ";\n", 2))
			return fail(w, "bad lane table end: %.*s", (int)len, s);
		s = e ? e + 1 : NULL;
	}
	return true;
}

/* Addresses: table k starts at (k + 1) << 16. */
static uint64_t tab_addr(uint32_t k)
{
	return (uint64_t)(k + 1) << 16;
}

/* ---- operands -------------------------------------------------------------------- */

typedef struct {
	char text[64];
	bool reg;             /* else an immediate (or a symbol, or {a, b}) */
	Reg *r;
	uint64_t imm;
} Opnd;

static bool parse_imm(const char *s, uint64_t *v)
{
	char *end;
	if ((s[0] == '0' && (s[1] == 'f' || s[1] == 'd')) && s[2]) {
		*v = strtoull(s + 2, &end, 16);
		return !*end && strlen(s + 2) == (s[1] == 'f' ? 8u : 16u);
	}
	if (s[0] == '-')
		*v = (uint64_t)strtoll(s, &end, 0);
	else
		*v = strtoull(s, &end, 0);
	return end != s && !*end;
}

/* Reads operand o as a source of width bits (a register must be defined
 * and have that width; an immediate is truncated to it). */
static bool src(Warp *w, Opnd *o, int bits)
{
	if (o->text[0] != '%') {
		if (!parse_imm(o->text, &o->imm))
			return fail(w, "operand %s is not an immediate or register", o->text);
		o->imm &= mask_of(bits);
		o->reg = false;
		return true;
	}
	Reg *r = slot(w, o->text);
	if (!r || !r->bits)
		return fail(w, "unknown register %s", o->text);
	if (r->gen != w->gen)
		return fail(w, "read of undefined register %s", o->text);
	if (r->bits != bits)
		return fail(w, "%s is %d bits, the instruction reads %d", o->text, r->bits, bits);
	o->reg = true;
	o->r = r;
	return true;
}

static uint64_t val(const Opnd *o, int lane)
{
	return o->reg ? o->r->v[lane] : o->imm;
}

/* Register o as a destination of width bits. */
static Reg *dst(Warp *w, const Opnd *o, int bits)
{
	Reg *r = o->text[0] == '%' && strcmp(o->text, "%lane") ? slot(w, o->text) : NULL;
	if (!r || !r->bits) {
		fail(w, "destination %s is not a register", o->text);
		return NULL;
	}
	if (r->bits != bits) {
		fail(w, "destination %s is %d bits, the instruction writes %d", o->text, r->bits, bits);
		return NULL;
	}
	return r;
}

static void put(Warp *w, Reg *r, const uint64_t v[32])
{
	r->gen = w->gen;
	for (int l = 0; l < 32; l++)
		r->v[l] = v[l] & mask_of(r->bits);
}

/* ---- instructions ----------------------------------------------------------------- */

typedef enum {
	K_MOV, K_MOVSPLIT, K_MOVJOIN, K_MOVSYM, K_SHFL, K_SELP, K_SETP, K_PRED, K_ALU, K_MAD,
	K_CVT, K_LD, K_UN
} Kind;

/* The instruction forms px_emit_plan and divc.c write; nothing else runs. */
static const struct Form {
	const char *op;
	Kind kind;
	int bits;             /* operand width (K_CVT: destination) */
	int sbits;            /* K_CVT: source width */
	int nops;
} forms[] = {
	{"mov.pred", K_MOV, 1, 0, 2},
	{"mov.b16", K_MOV, 16, 0, 2},
	{"mov.b32", K_MOV, 32, 0, 2},
	{"mov.b64", K_MOV, 64, 0, 2},
	{"mov.u64", K_MOVSYM, 64, 0, 2},
	{"shfl.sync.up.b32", K_SHFL, 32, 0, 5},
	{"shfl.sync.down.b32", K_SHFL, 32, 0, 5},
	{"shfl.sync.bfly.b32", K_SHFL, 32, 0, 5},
	{"shfl.sync.idx.b32", K_SHFL, 32, 0, 5},
	{"selp.b16", K_SELP, 16, 0, 4},
	{"selp.b32", K_SELP, 32, 0, 4},
	{"selp.u32", K_SELP, 32, 0, 4},
	{"selp.b64", K_SELP, 64, 0, 4},
	{"setp.lt.u32", K_SETP, 32, 0, 3},
	{"setp.ge.u32", K_SETP, 32, 0, 3},
	{"setp.ne.u32", K_SETP, 32, 0, 3},
	{"setp.eq.u32", K_SETP, 32, 0, 3},
	{"setp.lt.s32", K_SETP, 32, 0, 3},
	{"setp.ge.s32", K_SETP, 32, 0, 3},
	{"setp.ne.s32", K_SETP, 32, 0, 3},
	{"setp.eq.s32", K_SETP, 32, 0, 3},
	{"and.pred", K_PRED, 1, 0, 3},
	{"or.pred", K_PRED, 1, 0, 3},
	{"not.pred", K_PRED, 1, 0, 2},
	{"shr.b32", K_ALU, 32, 0, 3},
	{"shr.u32", K_ALU, 32, 0, 3},
	{"shr.s32", K_ALU, 32, 0, 3},
	{"mul.hi.u32", K_ALU, 32, 0, 3},
	{"neg.s32", K_UN, 32, 0, 2},
	{"not.b32", K_UN, 32, 0, 2},
	{"abs.s32", K_UN, 32, 0, 2},
	{"and.b32", K_ALU, 32, 0, 3},
	{"xor.b32", K_ALU, 32, 0, 3},
	{"add.s32", K_ALU, 32, 0, 3},
	{"add.u32", K_ALU, 32, 0, 3},
	{"sub.s32", K_ALU, 32, 0, 3},
	{"sub.u32", K_ALU, 32, 0, 3},
	{"mul.lo.s32", K_ALU, 32, 0, 3},
	{"mul.lo.u32", K_ALU, 32, 0, 3},
	{"div.u32", K_ALU, 32, 0, 3},
	{"div.s32", K_ALU, 32, 0, 3},
	{"rem.u32", K_ALU, 32, 0, 3},
	{"rem.s32", K_ALU, 32, 0, 3},
	{"add.u64", K_ALU, 64, 0, 3},
	{"mad.lo.s32", K_MAD, 32, 0, 4},
	{"mad.lo.u32", K_MAD, 32, 0, 4},
	{"cvt.u64.u32", K_CVT, 64, 32, 2},
	{"cvt.u32.u16", K_CVT, 32, 16, 2},
	{"cvt.u16.u32", K_CVT, 16, 32, 2},
	{"ld.global.nc.u8", K_LD, 32, 64, 2},
};

/* One lane of a two-operand integer instruction. */
static bool alu(Warp *w, const char *op, uint64_t a, uint64_t b, uint64_t *d)
{
	int32_t sa = (int32_t)(uint32_t)a, sb = (int32_t)(uint32_t)b;
	uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
	if (!strcmp(op, "shr.b32") || !strcmp(op, "shr.u32"))
		*d = ub >= 32 ? 0 : ua >> ub;
	else if (!strcmp(op, "shr.s32"))
		*d = (uint32_t)(sa >> (ub >= 32 ? 31 : ub));
	else if (!strcmp(op, "mul.hi.u32"))
		*d = (uint32_t)(((uint64_t)ua * ub) >> 32);
	else if (!strcmp(op, "and.b32"))
		*d = ua & ub;
	else if (!strcmp(op, "xor.b32"))
		*d = ua ^ ub;
	else if (!strncmp(op, "add.", 4) && op[5] == '6')
		*d = a + b;
	else if (!strncmp(op, "add.", 4))
		*d = ua + ub;
	else if (!strncmp(op, "sub.", 4))
		*d = ua - ub;
	else if (!strncmp(op, "mul.lo.", 7))
		*d = ua * ub;
	else if (!ub)
		return fail(w, "division by zero");
	else if (!strcmp(op, "div.u32"))
		*d = ua / ub;
	else if (!strcmp(op, "rem.u32"))
		*d = ua % ub;
	else if (sa == INT32_MIN && sb == -1)
		return fail(w, "signed division overflow");
	else if (!strcmp(op, "div.s32"))
		*d = (uint32_t)(sa / sb);
	else
		*d = (uint32_t)(sa % sb);
	return true;
}

static bool setp(const char *op, uint64_t a, uint64_t b)
{
	bool sgn = op[8] == 's';
	int64_t x = sgn ? (int32_t)(uint32_t)a : (int64_t)(uint32_t)a;
	int64_t y = sgn ? (int32_t)(uint32_t)b : (int64_t)(uint32_t)b;
	const char *c = op + 5;
	if (!strncmp(c, "lt", 2))
		return x < y;
	if (!strncmp(c, "ge", 2))
		return x >= y;
	if (!strncmp(c, "ne", 2))
		return x != y;
	return x == y;
}

/* The source lane of lane l in shfl mode m with lane operand b and
 * c = segmask << 8 | clamp (PTX ISA, shfl.sync). */
static int shfl_lane(char m, int l, uint32_t b, uint32_t c)
{
	int bval = (int)(b & 31), cval = (int)(c & 31), seg = (int)((c >> 8) & 31);
	int maxl = (l & seg) | (cval & ~seg), minl = l & seg, j;
	bool ok;
	switch (m) {
	case 'u': j = l - bval; ok = j >= maxl; break;
	case 'd': j = l + bval; ok = j <= maxl; break;
	case 'b': j = l ^ bval; ok = j <= maxl; break;
	default: j = minl | (bval & ~seg); ok = j <= maxl; break;
	}
	return ok ? j : l;
}

/* "{a, b}": the two register names. */
static bool pair(Warp *w, const char *s, Opnd *a, Opnd *b)
{
	char x[64], y[64];
	if (sscanf(s, "{%63[^,], %63[^}]}", x, y) != 2)
		return fail(w, "expected {lo, hi}, got %s", s);
	snprintf(a->text, sizeof a->text, "%s", x);
	snprintf(b->text, sizeof b->text, "%s", y);
	return true;
}

static bool exec(Warp *w, const struct Form *f, Opnd *o)
{
	uint64_t v[32];
	Opnd lo, hi;
	Reg *d;
	Kind k = f->kind;
	if (k == K_MOV && o[0].text[0] == '{')
		k = K_MOVSPLIT;
	else if (k == K_MOV && o[1].text[0] == '{')
		k = K_MOVJOIN;
	if ((k == K_MOVSPLIT || k == K_MOVJOIN) && f->bits != 64)
		return fail(w, "a {lo, hi} operand outside mov.b64");
	switch (k) {
	case K_MOV:
		if (!src(w, &o[1], f->bits) || !(d = dst(w, &o[0], f->bits)))
			return false;
		if (f->bits == 1 && !o[1].reg && o[1].imm > 1)
			return fail(w, "predicate immediate %s", o[1].text);
		for (int l = 0; l < 32; l++)
			v[l] = val(&o[1], l);
		put(w, d, v);
		return true;
	case K_MOVSPLIT: {
		if (!pair(w, o[0].text, &lo, &hi) || !src(w, &o[1], 64))
			return false;
		Reg *dl = dst(w, &lo, 32), *dh = dl ? dst(w, &hi, 32) : NULL;
		if (!dh)
			return false;
		uint64_t u[32];
		for (int l = 0; l < 32; l++)
			v[l] = val(&o[1], l), u[l] = v[l] >> 32;
		put(w, dl, v);
		put(w, dh, u);
		return true;
	}
	case K_MOVJOIN:
		if (!pair(w, o[1].text, &lo, &hi) || !src(w, &lo, 32) || !src(w, &hi, 32) ||
		    !lo.reg || !hi.reg || !(d = dst(w, &o[0], 64)))
			return false;
		for (int l = 0; l < 32; l++)
			v[l] = val(&lo, l) | val(&hi, l) << 32;
		put(w, d, v);
		return true;
	case K_MOVSYM:
		if (!(d = dst(w, &o[0], 64)))
			return false;
		for (uint32_t t = 0; t < w->ntab; t++)
			if (!strcmp(w->tab[t].name, o[1].text)) {
				for (int l = 0; l < 32; l++)
					v[l] = tab_addr(t);
				put(w, d, v);
				return true;
			}
		return fail(w, "no lane table named %s", o[1].text);
	case K_SHFL:
		if (!src(w, &o[1], 32) || !src(w, &o[2], 32) || !src(w, &o[3], 32) ||
		    !src(w, &o[4], 32) || !(d = dst(w, &o[0], 32)))
			return false;
		if (!o[1].reg || o[3].reg || o[4].reg || o[4].imm != 0xffffffffu)
			return fail(w, "shfl wants a register source, an immediate c and mask -1");
		for (int l = 0; l < 32; l++)
			v[l] = val(&o[1], shfl_lane(f->op[10], l, (uint32_t)val(&o[2], l),
			                            (uint32_t)o[3].imm));
		put(w, d, v);
		return true;
	case K_SELP:
		if (!src(w, &o[1], f->bits) || !src(w, &o[2], f->bits) || !src(w, &o[3], 1) ||
		    !(d = dst(w, &o[0], f->bits)))
			return false;
		for (int l = 0; l < 32; l++)
			v[l] = val(&o[3], l) ? val(&o[1], l) : val(&o[2], l);
		put(w, d, v);
		return true;
	case K_SETP:
		if (!src(w, &o[1], 32) || !src(w, &o[2], 32) || !(d = dst(w, &o[0], 1)))
			return false;
		for (int l = 0; l < 32; l++)
			v[l] = setp(f->op, val(&o[1], l), val(&o[2], l));
		put(w, d, v);
		return true;
	case K_PRED:
		for (int k2 = 1; k2 < f->nops; k2++)
			if (!src(w, &o[k2], 1) || !o[k2].reg)
				return false;
		if (!(d = dst(w, &o[0], 1)))
			return false;
		for (int l = 0; l < 32; l++)
			v[l] = f->op[0] == 'n' ? !val(&o[1], l)
			     : f->op[0] == 'a' ? val(&o[1], l) & val(&o[2], l)
			     : val(&o[1], l) | val(&o[2], l);
		put(w, d, v);
		return true;
	case K_ALU:
		if (!src(w, &o[1], f->bits) || !src(w, &o[2], f->bits) || !(d = dst(w, &o[0], f->bits)))
			return false;
		for (int l = 0; l < 32; l++)
			if (!alu(w, f->op, val(&o[1], l), val(&o[2], l), &v[l]))
				return false;
		put(w, d, v);
		return true;
	case K_UN:
		if (!src(w, &o[1], 32) || !(d = dst(w, &o[0], 32)))
			return false;
		for (int l = 0; l < 32; l++) {
			uint32_t a = (uint32_t)val(&o[1], l);
			v[l] = f->op[0] == 'n' && f->op[1] == 'e' ? 0u - a : f->op[0] == 'n' ? ~a :
			       (int32_t)a < 0 ? 0u - a : a;
		}
		put(w, d, v);
		return true;
	case K_MAD:
		if (!src(w, &o[1], 32) || !src(w, &o[2], 32) || !src(w, &o[3], 32) ||
		    !(d = dst(w, &o[0], 32)))
			return false;
		for (int l = 0; l < 32; l++)
			v[l] = (uint32_t)val(&o[1], l) * (uint32_t)val(&o[2], l) + (uint32_t)val(&o[3], l);
		put(w, d, v);
		return true;
	case K_CVT:
		if (!src(w, &o[1], f->sbits) || !o[1].reg || !(d = dst(w, &o[0], f->bits)))
			return false;
		for (int l = 0; l < 32; l++)
			v[l] = val(&o[1], l) & mask_of(f->bits < f->sbits ? f->bits : f->sbits);
		put(w, d, v);
		return true;
	case K_LD: {
		size_t n = strlen(o[1].text);
		if (o[1].text[0] != '[' || o[1].text[n - 1] != ']')
			return fail(w, "ld wants [register], got %s", o[1].text);
		Opnd a = {{0}};
		memcpy(a.text, o[1].text + 1, n - 2);
		if (!src(w, &a, 64) || !a.reg || !(d = dst(w, &o[0], 32)))
			return false;
		for (int l = 0; l < 32; l++) {
			uint64_t x = val(&a, l), t = (x >> 16) - 1, off = x & 0xffff;
			if ((x >> 16) == 0 || t >= w->ntab || off >= 32)
				return fail(w, "lane %d loads address %#llx, outside every lane table", l,
				            (unsigned long long)x);
			v[l] = w->tab[t].b[off];
		}
		put(w, d, v);
		return true;
	}
	default:
		return fail(w, "bad form");
	}
}

/* Splits "op a, b, {c, d}, [e]" into op and operands (commas inside
 * braces do not split); runs it. */
static bool run_line(Warp *w, const char *s, size_t len)
{
	char buf[256], op[32];
	Opnd o[MAXOPS];
	if (len >= sizeof buf)
		return fail(w, "line too long");
	memcpy(buf, s, len);
	buf[len] = 0;
	if (len == 0 || buf[len - 1] != ';')
		return fail(w, "instruction without ';'");
	buf[--len] = 0;
	char *c = buf;
	size_t ol = strcspn(c, " ");
	if (ol >= sizeof op || !c[ol])
		return fail(w, "no operands");
	memcpy(op, c, ol);
	op[ol] = 0;
	c += ol + 1;
	int n = 0, depth = 0;
	char *start = c;
	for (;; c++) {
		if (*c == '{')
			depth++;
		else if (*c == '}')
			depth--;
		if ((*c == ',' && !depth) || !*c) {
			if (n == MAXOPS || c - start >= (long)sizeof o[n].text)
				return fail(w, "too many or too long operands");
			memset(&o[n], 0, sizeof o[n]);
			memcpy(o[n].text, start, (size_t)(c - start));
			n++;
			if (!*c)
				break;
			start = c + 1;
			while (*start == ' ')
				start++;
			c = start - 1;
		}
	}
	for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++)
		if (!strcmp(forms[k].op, op)) {
			if (n != forms[k].nops)
				return fail(w, "%s takes %d operands, got %d", op, forms[k].nops, n);
			return exec(w, &forms[k], o);
		}
	return fail(w, "instruction the interpreter does not model");
}

bool warp_run(Warp *w, const char *text)
{
	uint64_t lane[32];
	for (int l = 0; l < 32; l++)
		lane[l] = (uint64_t)l;
	warp_set(w, "%lane", lane);
	for (const char *s = text; *s;) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		const char *t = s;
		while (t < s + len && (*t == '\t' || *t == ' '))
			t++;
		w->line = t;
		w->linelen = (size_t)(s + len - t);
		if (w->linelen && strncmp(t, "//", 2) && !run_line(w, t, w->linelen))
			return false;
		if (!e)
			break;
		s = e + 1;
	}
	w->line = NULL;
	return true;
}
