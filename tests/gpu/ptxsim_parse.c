/* ptxsim_parse.c — reads the PTX text of a module into kernels of decoded
 * instructions (ptxsim.h).
 *
 * The input is cmetal's own output, one statement a line: module
 * directives (.version, .target, .global tables, .extern .shared), then
 * each ".entry NAME(" with its .param list, a body of .reg declarations
 * (with <N> ranges), labels, ".loc" lines and instructions with "@p"
 * guards.  Lines are counted from 1 so that messages can name them.  A
 * statement it does not know is not an error here: it is recorded (the
 * kernel's or the module's `why`) and fails the launches that would need
 * it, so a module whose other kernels it knows still runs those.
 */
#include "ptxsim.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A string-to-int hash map, open addressing; keys are not owned. */
typedef struct {
	const char **keys;
	int *vals;
	size_t cap, n;
} Map;

static size_t hash(const char *s, size_t len)
{
	size_t h = 5381;
	for (size_t i = 0; i < len; i++)
		h = h * 33 + (unsigned char)s[i];
	return h;
}

static void map_put(Map *m, const char *k, int v);

static void map_grow(Map *m)
{
	Map old = *m;
	m->cap = old.cap ? old.cap * 2 : 256;
	m->n = 0;
	m->keys = calloc(m->cap, sizeof *m->keys);
	m->vals = calloc(m->cap, sizeof *m->vals);
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i])
			map_put(m, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
}

static void map_put(Map *m, const char *k, int v)
{
	if (2 * (m->n + 1) > m->cap)
		map_grow(m);
	size_t i = hash(k, strlen(k)) & (m->cap - 1);
	while (m->keys[i] && strcmp(m->keys[i], k))
		i = (i + 1) & (m->cap - 1);
	m->n += !m->keys[i];
	m->keys[i] = k;
	m->vals[i] = v;
}

/* The value of the key of len bytes at k, or -1. */
static int map_get(const Map *m, const char *k, size_t len)
{
	if (!m->cap)
		return -1;
	size_t i = hash(k, len) & (m->cap - 1);
	for (; m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (strlen(m->keys[i]) == len && !memcmp(m->keys[i], k, len))
			return m->vals[i];
	return -1;
}

static void map_free(Map *m)
{
	free(m->keys);
	free(m->vals);
	*m = (Map){0};
}

/* The parser's state: the module, the kernel being read, its maps. */
typedef struct {
	PsModule *m;
	Map syms;
	PsKernel *k;              /* NULL at module scope */
	Map regs, labels;
	int capins, capregs;
	struct { int ins, opnd; char *name; } *fix;  /* branch targets */
	int nfix, capfix;
	int line;
} P;

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

static const char *skipws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Records the first thing of the current kernel (or the module) that the
 * simulator cannot run. */
static void unsupported(P *p, const char *why)
{
	const char **w = p->k ? &p->k->why : &p->m->why;
	int *l = p->k ? &p->k->whyline : &p->m->whyline;
	if (!*w) {
		*w = why;
		*l = p->line;
	}
}

int ps_find_sym(const PsModule *m, const char *name)
{
	for (int i = 0; i < m->nsyms; i++)
		if (!strcmp(m->syms[i].name, name))
			return i;
	return -1;
}

static int add_sym(P *p, const char *name, size_t len, int space, uint64_t addr, uint64_t size)
{
	PsModule *m = p->m;
	m->syms = realloc(m->syms, (m->nsyms + 1) * sizeof *m->syms);
	m->syms[m->nsyms] = (PsSym){dupn(name, len), (uint8_t)space, addr, size, false};
	map_put(&p->syms, m->syms[m->nsyms].name, m->nsyms);
	return m->nsyms++;
}

/* ---- types and modifiers ---- */

/* ".u32" -> {TK_U, 32}; {TK_NONE} when s is no type name. */
static PsType type_of(const char *s, size_t n)
{
	static const struct { const char *name; PsType t; } types[] = {
		{"pred", {TK_PRED, 1}}, {"b8", {TK_B, 8}}, {"b16", {TK_B, 16}},
		{"b32", {TK_B, 32}}, {"b64", {TK_B, 64}}, {"u8", {TK_U, 8}},
		{"u16", {TK_U, 16}}, {"u32", {TK_U, 32}}, {"u64", {TK_U, 64}},
		{"s8", {TK_S, 8}}, {"s16", {TK_S, 16}}, {"s32", {TK_S, 32}},
		{"s64", {TK_S, 64}}, {"f16", {TK_F, 16}}, {"f32", {TK_F, 32}},
		{"f64", {TK_F, 64}}, {"bf16", {TK_BF16, 16}}, {"tf32", {TK_TF32, 32}},
	};
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strlen(types[i].name) == n && !memcmp(types[i].name, s, n))
			return types[i].t;
	return (PsType){TK_NONE, 0};
}

/* Modifiers other than types: which field of PsIns they set, and how. */
enum { MF_CMP, MF_BOP, MF_AOP, MF_RND, MF_MODE, MF_SPACE, MF_VEC, MF_FLAG, MF_IGNORE };
static const struct { const char *name; uint8_t field; uint16_t val; } mods[] = {
	{"eq", MF_CMP, CMP_EQ}, {"ne", MF_CMP, CMP_NE}, {"lt", MF_CMP, CMP_LT},
	{"le", MF_CMP, CMP_LE}, {"gt", MF_CMP, CMP_GT}, {"ge", MF_CMP, CMP_GE},
	{"lo", MF_CMP, CMP_LO}, {"ls", MF_CMP, CMP_LS}, {"hi", MF_CMP, CMP_HI},
	{"hs", MF_CMP, CMP_HS}, {"equ", MF_CMP, CMP_EQU}, {"neu", MF_CMP, CMP_NEU},
	{"ltu", MF_CMP, CMP_LTU}, {"leu", MF_CMP, CMP_LEU}, {"gtu", MF_CMP, CMP_GTU},
	{"geu", MF_CMP, CMP_GEU}, {"num", MF_CMP, CMP_NUM}, {"nan", MF_CMP, CMP_NAN},
	{"and", MF_BOP, BOP_AND}, {"or", MF_BOP, BOP_OR}, {"xor", MF_BOP, BOP_XOR},
	{"add", MF_AOP, AOP_ADD}, {"min", MF_AOP, AOP_MIN}, {"max", MF_AOP, AOP_MAX},
	{"inc", MF_AOP, AOP_INC}, {"dec", MF_AOP, AOP_DEC}, {"cas", MF_AOP, AOP_CAS},
	{"exch", MF_AOP, AOP_EXCH},
	{"rn", MF_RND, RND_RN}, {"rz", MF_RND, RND_RZ}, {"rm", MF_RND, RND_RM},
	{"rp", MF_RND, RND_RP}, {"rni", MF_RND, RND_RNI}, {"rzi", MF_RND, RND_RZI},
	{"rmi", MF_RND, RND_RMI}, {"rpi", MF_RND, RND_RPI},
	{"up", MF_MODE, MODE_UP}, {"down", MF_MODE, MODE_DOWN}, {"bfly", MF_MODE, MODE_BFLY},
	{"idx", MF_MODE, MODE_IDX}, {"any", MF_MODE, MODE_ANY}, {"all", MF_MODE, MODE_ALL},
	{"uni", MF_MODE, MODE_UNI}, {"ballot", MF_MODE, MODE_BALLOT},
	{"arrive", MF_MODE, MODE_ARRIVE}, {"warp", MF_MODE, MODE_WARP},
	{"global", MF_SPACE, SP_GLOBAL}, {"shared", MF_SPACE, SP_SHARED},
	{"param", MF_SPACE, SP_PARAM}, {"local", MF_SPACE, SP_LOCAL},
	{"const", MF_SPACE, SP_CONST},
	{"v2", MF_VEC, 2}, {"v4", MF_VEC, 4},
	{"x1", MF_VEC, 1}, {"x2", MF_VEC, 2}, {"x4", MF_VEC, 4},   /* ldmatrix: matrices */
	{"sat", MF_FLAG, F_SAT}, {"ftz", MF_FLAG, F_FTZ}, {"wide", MF_FLAG, F_WIDE},
	{"approx", MF_FLAG, F_APPROX}, {"wrap", MF_FLAG, F_WRAP}, {"clamp", MF_FLAG, F_CLAMP},
	{"l", MF_FLAG, F_LEFT}, {"r", MF_FLAG, F_RIGHT}, {"shiftamt", MF_FLAG, F_SHIFTAMT},
	{"sync", MF_FLAG, F_SYNC},
	{"full", MF_IGNORE, 0}, {"nc", MF_IGNORE, 0}, {"aligned", MF_IGNORE, 0},
	{"cta", MF_IGNORE, 0}, {"gpu", MF_IGNORE, 0}, {"sys", MF_IGNORE, 0},
	{"relaxed", MF_IGNORE, 0}, {"acquire", MF_IGNORE, 0}, {"release", MF_IGNORE, 0},
	{"acq_rel", MF_IGNORE, 0}, {"sc", MF_IGNORE, 0}, {"volatile", MF_IGNORE, 0},
	{"row", MF_IGNORE, 0}, {"col", MF_IGNORE, 0},
	{"proxy", MF_IGNORE, 0}, {"async", MF_IGNORE, 0}, {"shared::cta", MF_IGNORE, 0},
};

/* Applies modifier s (n bytes) to in; false when it is unknown. */
static bool modifier(PsIns *in, const char *s, size_t n)
{
	PsType t = type_of(s, n);
	if (t.k != TK_NONE) {
		if (in->nty < 4)
			in->ty[in->nty++] = t;
		return true;
	}
	int m, nn, k;
	if (n > 1 && s[0] == 'm' && sscanf(s, "m%dn%dk%d", &m, &nn, &k) == 3) {
		in->shape[0] = (int16_t)m, in->shape[1] = (int16_t)nn, in->shape[2] = (int16_t)k;
		return true;
	}
	if (in->op == OP_wgmma) {   /* wgmma.fence, .mma_async, .commit_group, .wait_group */
		static const char *const wg[] = {"fence", "mma_async", "commit_group", "wait_group"};
		for (int i = 0; i < 4; i++)
			if (strlen(wg[i]) == n && !memcmp(wg[i], s, n)) {
				in->wg = (uint8_t)(WG_FENCE + i);
				return true;
			}
	}
	if (in->op == OP_cp) {   /* cp.async{.cg,.ca}, .commit_group, .wait_group */
		if (n == 2 && (!memcmp(s, "cg", 2) || !memcmp(s, "ca", 2)))
			return true;
		if (n == 12 && !memcmp(s, "commit_group", 12)) {
			in->wg = WG_COMMIT;
			return true;
		}
		if (n == 10 && !memcmp(s, "wait_group", 10)) {
			in->wg = WG_WAIT;
			return true;
		}
	}
	int used = 0;
	if (in->op == OP_ldmatrix && sscanf(s, "m%dn%d%n", &m, &nn, &used) == 2 &&
	    (size_t)used == n) {
		in->shape[0] = (int16_t)m, in->shape[1] = (int16_t)nn;
		return true;
	}
	if (n == 2 && !memcmp(s, "lo", 2) && in->op != OP_setp) {
		in->flags |= F_LO;
		return true;
	}
	if (n == 2 && !memcmp(s, "hi", 2) && in->op != OP_setp) {
		in->flags |= F_HI;
		return true;
	}
	if (n == 3 && !memcmp(s, "uni", 3) && in->op == OP_bra) {
		in->flags |= F_UNI;
		return true;
	}
	for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++) {
		if (strlen(mods[i].name) != n || memcmp(mods[i].name, s, n))
			continue;
		uint16_t v = mods[i].val;
		switch (mods[i].field) {
		case MF_CMP: in->cmp = (uint8_t)v; break;
		case MF_BOP:
			if (in->op == OP_atom || in->op == OP_red || in->op == OP_redux)
				in->aop = v == BOP_AND ? AOP_AND : v == BOP_OR ? AOP_OR : AOP_XOR;
			else
				in->bop = (uint8_t)v;
			break;
		case MF_AOP: in->aop = (uint8_t)v; break;
		case MF_RND: in->rnd = (uint8_t)v; break;
		case MF_MODE: in->mode = (uint8_t)v; break;
		case MF_SPACE: in->space = (uint8_t)v; break;
		case MF_VEC: in->vec = (uint8_t)v; break;
		case MF_FLAG: in->flags |= v; break;
		}
		return true;
	}
	return false;
}

static const char *const opnames[] = {
#define PS_OP_NAME_(n) #n,
	PS_OPS(PS_OP_NAME_)
#undef PS_OP_NAME_
};

/* Decodes "ld.global.nc.u32" into in; false with *why set when a part of
 * it is unknown. */
static bool opcode(PsIns *in, const char *s, size_t n, const char **why)
{
	size_t b = strcspn(s, ".");
	if (b > n)
		b = n;
	in->op = OP_BAD;
	for (int i = 0; i < OP_COUNT_; i++)
		if (strlen(opnames[i]) == b && !memcmp(opnames[i], s, b))
			in->op = (uint16_t)i;
	if (in->op == OP_BAD) {
		*why = "unknown instruction";
		return false;
	}
	for (size_t i = b; i < n; ) {
		size_t j = i + 1;
		while (j < n && s[j] != '.')
			j++;
		if (!modifier(in, s + i + 1, j - i - 1)) {
			*why = "unknown modifier";
			return false;
		}
		i = j;
	}
	return true;
}

/* ---- operands ---- */

static const char *const srnames[] = {
#define PS_SREG_NAME_(n) #n,
	PS_SREGS(PS_SREG_NAME_)
#undef PS_SREG_NAME_
};

/* The special register named s (without '%', '.' written '_'), or -1. */
static int sreg(const char *s, size_t n)
{
	char buf[32];
	if (n >= sizeof buf)
		return -1;
	for (size_t i = 0; i < n; i++)
		buf[i] = s[i] == '.' ? '_' : s[i];
	buf[n] = 0;
	for (int i = 0; i < SR_COUNT_; i++)
		if (!strcmp(srnames[i], buf))
			return i;
	return -1;
}

/* A number: decimal, 0x hex, 0f (f32 bits), 0d (f64 bits) or a decimal
 * fraction (stored as f64 bits). */
static bool number(const char *s, size_t n, PsOpnd *o)
{
	char buf[64];
	if (!n || n >= sizeof buf)
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *end;
	o->kind = OK_IMM;
	if ((buf[0] == '0') && (buf[1] == 'f' || buf[1] == 'F' || buf[1] == 'd' || buf[1] == 'D')) {
		o->fimm = buf[1] == 'f' || buf[1] == 'F' ? 1 : 2;
		o->imm = (int64_t)strtoull(buf + 2, &end, 16);
		return !*end;
	}
	if (strpbrk(buf, ".eE") && !strstr(buf, "0x")) {
		double d = strtod(buf, &end);
		memcpy(&o->imm, &d, 8);
		o->fimm = 2;
		return !*end;
	}
	if (buf[0] == '-')
		o->imm = strtoll(buf, &end, 0);
	else
		o->imm = (int64_t)strtoull(buf, &end, 0);
	if (*end == 'U' || *end == 'u')
		end++;
	return !*end;
}

static int reg_of(P *p, const char *s, size_t n)
{
	return map_get(&p->regs, s, n);
}

/* One register or sink of a vector list; false if unknown. */
static bool vec_elem(P *p, const char *s, size_t n, int *r)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 1 && *s == '_') {
		*r = -1;
		return true;
	}
	*r = reg_of(p, s, n);
	return *r >= 0;
}

/* "{a, b}" or "a|b" (two destinations) into a vector operand. */
static bool vector(P *p, const char *s, size_t n, char sep, PsOpnd *o)
{
	o->kind = OK_VEC;
	o->nvec = 0;
	while (n) {
		size_t e = 0;
		while (e < n && s[e] != sep)
			e++;
		if (o->nvec == 4 || !vec_elem(p, s, e, &o->vec[o->nvec++]))
			return false;
		if (e == n)
			break;
		s += e + 1, n -= e + 1;
	}
	return true;
}

/* "[%r+8]", "[sym]", "[sym+4]", "[%r+-4]", "[1234]". */
static bool address(P *p, const char *s, size_t n, PsOpnd *o)
{
	o->kind = OK_MEM;
	o->reg = o->sym = -1;
	o->imm = 0;
	size_t e = 0;
	while (e < n && s[e] != '+' && s[e] != ' ')
		e++;
	if (*s == '%') {
		if ((o->reg = reg_of(p, s, e)) < 0)
			return false;
	} else if (isalpha((unsigned char)*s) || *s == '_' || *s == '$') {
		if ((o->sym = map_get(&p->syms, s, e)) < 0)
			return false;
	} else {
		PsOpnd num = {0};
		if (!number(s, e, &num))
			return false;
		o->imm = num.imm;
		return true;
	}
	s += e, n -= e;
	while (n && (*s == ' ' || *s == '+'))
		s++, n--;
	if (!n)
		return true;
	PsOpnd num = {0};
	if (!number(s, n, &num))
		return false;
	o->imm = num.imm;
	return true;
}

/* One operand of in; false with *why set. */
static bool operand(P *p, PsIns *in, const char *s, size_t n, PsOpnd *o, const char **why)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	*why = "unknown operand";
	o->reg = o->sym = -1;
	if (!n)
		return false;
	if (*s == '{')
		return n > 1 && s[n - 1] == '}' && vector(p, s + 1, n - 2, ',', o);
	if (*s == '[')
		return n > 1 && s[n - 1] == ']' && address(p, s + 1, n - 2, o);
	if (memchr(s, '|', n))
		return vector(p, s, n, '|', o);
	if (*s == '!') {
		o->neg = 1;
		s++, n--;
	}
	if (*s == '%') {
		if ((o->reg = reg_of(p, s, n)) >= 0) {
			o->kind = OK_REG;
			return true;
		}
		o->kind = OK_SREG;
		o->sym = sreg(s + 1, n - 1);
		*why = "unknown register";
		return o->sym >= 0;
	}
	if (n == 1 && *s == '_') {
		o->kind = OK_SINK;
		return true;
	}
	if (isdigit((unsigned char)*s) || *s == '-')
		return number(s, n, o);
	if (in->op == OP_bra) {
		o->kind = OK_LABEL;
		p->fix = realloc(p->fix, (p->nfix + 1) * sizeof *p->fix);
		p->fix[p->nfix].ins = p->k->nins;
		p->fix[p->nfix].opnd = (int)(o - in->o);
		p->fix[p->nfix++].name = dupn(s, n);
		return true;
	}
	o->kind = OK_SYM;
	o->sym = map_get(&p->syms, s, n);
	*why = "unknown symbol";
	return o->sym >= 0;
}

/* Splits s (up to ';') on top-level commas into in's operands. */
static bool operands(P *p, PsIns *in, const char *s, const char **why)
{
	int depth = 0;
	const char *start = s;
	for (;; s++) {
		if (*s == '{' || *s == '[')
			depth++;
		else if (*s == '}' || *s == ']')
			depth--;
		else if ((*s == ',' && !depth) || *s == ';' || !*s) {
			if (s == start && (*s == ';' || !*s) && in->n == 0)
				return true;
			if (in->n == PS_MAXOPND) {
				*why = "too many operands";
				return false;
			}
			if (!operand(p, in, start, (size_t)(s - start), &in->o[in->n++], why))
				return false;
			if (*s != ',')
				return true;
			start = s + 1;
		}
	}
}

/* ---- statements ---- */

static PsIns *new_ins(P *p)
{
	PsKernel *k = p->k;
	if (k->nins == p->capins) {
		p->capins = p->capins ? 2 * p->capins : 256;
		k->ins = realloc(k->ins, p->capins * sizeof *k->ins);
	}
	PsIns *in = &k->ins[k->nins];
	memset(in, 0, sizeof *in);
	in->guard = -1;
	in->line = p->line;
	return in;
}

/* wgmma.mma_async's accumulator list "{%f0, .., %fN}, " (up to 128
 * registers, more than an operand holds) into in->wreg; *s moves past it. */
static bool wgmma_regs(P *p, PsIns *in, const char **s, const char **why)
{
	const char *t = *s, *e = strchr(t, '}');
	*why = "a wgmma without its {accumulator} list";
	if (*t != '{' || !e)
		return false;
	in->wreg = malloc(128 * sizeof *in->wreg);
	for (t++; t < e && in->nwreg < 128;) {
		t = skipws(t);
		size_t n = strcspn(t, ",} \t");
		if ((in->wreg[in->nwreg++] = reg_of(p, t, n)) < 0) {
			*why = "an unknown register in a wgmma's accumulator list";
			return false;
		}
		t = skipws(t + n);
		if (*t == ',')
			t++;
	}
	t = skipws(e + 1);
	if (*t != ',')
		return false;
	*s = skipws(t + 1);
	return true;
}

/* One instruction line (s at its first character, '@' or the opcode). */
static void instruction(P *p, const char *s)
{
	PsIns *in = new_ins(p);
	const char *why = NULL;
	const char *semi = strchr(s, ';');
	in->text = dupn(s, semi ? (size_t)(semi - s + 1) : strlen(s));
	if (*s == '@') {
		s++;
		in->gneg = *s == '!';
		s += in->gneg;
		size_t n = strcspn(s, " \t");
		in->guard = reg_of(p, s, n);
		s = skipws(s + n);
		if (in->guard < 0)
			why = "unknown guard predicate";
	}
	size_t n = strcspn(s, " \t;");
	bool ok = !why && opcode(in, s, n, &why);
	s = skipws(s + n);
	if (ok && in->op == OP_wgmma && in->wg == WG_MMA)
		ok = wgmma_regs(p, in, &s, &why);
	ok = ok && operands(p, in, s, &why);
	if (!ok) {
		in->op = OP_BAD;
		in->why = why;
	}
	p->k->nins++;
}

/* ".reg .b32 %r<4>, %x;" */
static void reg_decl(P *p, const char *s)
{
	s = skipws(s + 4);
	if (*s != '.')
		return unsupported(p, "a .reg declaration without a type");
	size_t tn = strcspn(s + 1, " \t");
	PsType t = type_of(s + 1, tn);
	if (t.k == TK_NONE || t.k == TK_BF16 || t.k == TK_TF32)
		return unsupported(p, "a .reg declaration of an unknown type");
	if (t.k == TK_F && t.bits == 16)
		t = (PsType){TK_B, 16};
	s = skipws(s + 1 + tn);
	while (*s && *s != ';') {
		size_t n = strcspn(s, ",;< \t");
		int count = -1;
		if (s[n] == '<')
			count = atoi(s + n + 1);
		PsKernel *k = p->k;
		for (int i = 0; i < (count < 0 ? 1 : count); i++) {
			char name[128];
			if (count < 0)
				snprintf(name, sizeof name, "%.*s", (int)n, s);
			else
				snprintf(name, sizeof name, "%.*s%d", (int)n, s, i);
			if (k->nregs == p->capregs) {
				p->capregs = p->capregs ? 2 * p->capregs : 256;
				k->regs = realloc(k->regs, p->capregs * sizeof *k->regs);
			}
			k->regs[k->nregs] = (PsReg){dupn(name, strlen(name)), t};
			map_put(&p->regs, k->regs[k->nregs].name, k->nregs);
			k->nregs++;
		}
		s += n;
		s += strcspn(s, ",;");
		if (*s == ',')
			s = skipws(s + 1);
	}
}

/* The value list of a .global initializer into the bytes at b. */
static void init_values(const char *s, PsType t, uint8_t *b, uint64_t size)
{
	unsigned w = t.bits / 8;
	uint64_t off = 0;
	s = strchr(s, '=');
	for (s = s ? s + 1 : ""; *s && *s != ';' && off + w <= size; ) {
		s = skipws(s);
		if (*s == '{' || *s == ',') {
			s++;
			continue;
		}
		if (*s == '}')
			break;
		size_t n = strcspn(s, ",}; \t");
		PsOpnd o = {0};
		if (number(s, n, &o)) {
			uint64_t v = (uint64_t)o.imm;
			if (t.k == TK_F)
				v = ps_imm_bits(t, &o);
			memcpy(b + off, &v, w);  /* little-endian host */
		}
		off += w;
		s += n;
	}
}

/* ".global .align 4 .b8 name[32] = {...};", ".shared ...", ".extern
 * .shared ... name[];", ".const ..." and ".param ..." (from an entry's
 * parameter list: index is its position). */
static void var_decl(P *p, const char *s, int index)
{
	int space = SP_NONE;
	bool dynamic = false;
	PsType t = {TK_NONE, 0};
	uint64_t align = 1;
	while (*s == '.') {
		size_t n = strcspn(s + 1, " \t[;=");
		PsType tt = type_of(s + 1, n);
		if (tt.k != TK_NONE)
			t = tt;
		else if (!strncmp(s, ".global", 7) || !strncmp(s, ".const", 6))
			space = SP_GLOBAL;
		else if (!strncmp(s, ".shared", 7))
			space = SP_SHARED;
		else if (!strncmp(s, ".param", 6))
			space = SP_PARAM;
		else if (!strncmp(s, ".extern", 7))
			dynamic = true;
		else if (!strncmp(s, ".align", 6))
			align = strtoull(skipws(s + 6), (char **)&s, 10), s--;
		s = skipws(s + 1 + strcspn(s + 1, " \t"));
	}
	size_t n = strcspn(s, " \t[;=,)");
	const char *name = s;
	uint64_t count = 1;
	if (name[n] == '[')
		count = name[n + 1] == ']' ? 0 : strtoull(name + n + 1, NULL, 10);
	uint64_t size = count * (t.bits ? (t.bits + 7) / 8 : 1);
	if (t.k == TK_PRED || !n)
		return unsupported(p, "a variable of an unknown type");
	if (space == SP_PARAM) {
		int i = add_sym(p, name, n, SP_PARAM, (uint64_t)index, size);
		PsKernel *k = p->k;
		k->params = realloc(k->params, (k->nparams + 1) * sizeof *k->params);
		k->params[k->nparams++] = i;
	} else if (space == SP_SHARED) {
		PsModule *m = p->m;
		uint64_t off = (m->shared_static + align - 1) / align * align;
		/* a dynamic one's address is its alignment until all are known */
		int i = add_sym(p, name, n, SP_SHARED, dynamic ? align : off, size);
		m->syms[i].dynamic = dynamic;
		if (!dynamic)
			m->shared_static = off + size;
	} else if (space == SP_GLOBAL) {
		uint8_t *b = calloc(1, size ? size : 1);
		init_values(s + n, t, b, size);
		add_sym(p, name, n, SP_GLOBAL, (uint64_t)(uintptr_t)b, size);
		ps_region((uint64_t)(uintptr_t)b, size, true);
	} else {
		unsupported(p, "a variable of an unknown state space");
	}
}

/* Resolves the branch targets of the kernel just read. */
static void fix_labels(P *p)
{
	for (int i = 0; i < p->nfix; i++) {
		size_t n = strlen(p->fix[i].name);
		int at = map_get(&p->labels, p->fix[i].name, n);
		PsIns *in = &p->k->ins[p->fix[i].ins];
		if (at < 0) {
			in->op = OP_BAD;
			in->why = "branch to an unknown label";
		}
		in->o[p->fix[i].opnd].sym = at;
		free(p->fix[i].name);
	}
	p->nfix = 0;
}

/* A line of a kernel's body; returns false at its closing brace. */
static bool body_line(P *p, const char *s, int *depth)
{
	if (*s == '{') {
		++*depth;
		return true;
	}
	if (*s == '}')
		return --*depth > 0;
	if (!strncmp(s, ".reg", 4))
		reg_decl(p, s);
	else if (!strncmp(s, ".shared", 7))
		var_decl(p, s, 0);
	else if (!strncmp(s, ".local", 6))
		unsupported(p, ".local memory");
	else if (*s == '.')
		;  /* .loc, .pragma, .maxntid, ... */
	else if (s[strcspn(s, " \t:;")] == ':') {
		size_t n = strcspn(s, ":");
		char *name = dupn(s, n);
		map_put(&p->labels, name, p->k->nins);
	} else
		instruction(p, s);
	return true;
}

/* ".visible .entry NAME(" and the parameter lines up to ")". */
static void entry(P *p, const char *s, char **lines, int *li, int nlines)
{
	PsModule *m = p->m;
	s = strstr(s, ".entry") + 6;
	s = skipws(s);
	size_t n = strcspn(s, "( \t");
	m->ks = realloc(m->ks, (m->nks + 1) * sizeof *m->ks);
	p->k = &m->ks[m->nks++];
	memset(p->k, 0, sizeof *p->k);
	p->k->name = dupn(s, n);
	p->capins = p->capregs = 0;
	map_free(&p->regs);
	map_free(&p->labels);
	s += n;
	for (;;) {
		const char *q;
		while ((q = strstr(s, ".param"))) {
			var_decl(p, q, p->k->nparams);
			s = q + 6;
		}
		if (strchr(s, ')') || *li + 1 >= nlines)
			break;
		s = lines[++*li];
		p->line = *li + 1;
	}
}

static char *strip_comment(char *s)
{
	char *c = strstr(s, "//");
	if (c)
		*c = 0;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return (char *)skipws(s);
}

PsModule *ps_load(const char *ptx)
{
	P p = {0};
	p.m = calloc(1, sizeof *p.m);
	char *text = dupn(ptx, strlen(ptx));
	int nlines = 0, cap = 1024;
	char **lines = malloc(cap * sizeof *lines);
	for (char *s = text; s; ) {
		if (nlines == cap)
			lines = realloc(lines, (cap *= 2) * sizeof *lines);
		lines[nlines++] = s;
		char *nl = strchr(s, '\n');
		if (nl)
			*nl++ = 0;
		s = nl;
	}
	int depth = 0;
	for (int i = 0; i < nlines; i++) {
		p.line = i + 1;
		char *s = strip_comment(lines[i]);
		if (!*s)
			continue;
		if (p.k && depth > 0) {
			if (!body_line(&p, s, &depth))
				fix_labels(&p);
		} else if (strstr(s, ".entry")) {
			entry(&p, s, lines, &i, nlines);
			p.line = i + 1;
		} else if (p.k && *s == '{') {
			depth = 1;
		} else if (!strncmp(s, ".version", 8) || !strncmp(s, ".target", 7) ||
		           !strncmp(s, ".address_size", 13) || !strncmp(s, ".file", 5) ||
		           !strncmp(s, ".pragma", 7)) {
			continue;
		} else if (!strncmp(s, ".global", 7) || !strncmp(s, ".shared", 7) ||
		           !strncmp(s, ".extern", 7) || !strncmp(s, ".const", 6)) {
			PsKernel *k = p.k;
			p.k = NULL;
			var_decl(&p, s, 0);
			p.k = k;
		} else if (!p.k || *s != '.') {
			PsKernel *k = p.k;
			p.k = NULL;
			unsupported(&p, "a module-scope statement it does not know");
			p.k = k;
		}
	}
	for (int i = 0; i < p.m->nsyms; i++)   /* dynamic shared memory: after all */
		if (p.m->syms[i].dynamic) {
			uint64_t a = p.m->syms[i].addr > 16 ? p.m->syms[i].addr : 16;
			p.m->syms[i].addr = (p.m->shared_static + a - 1) / a * a;
		}
	map_free(&p.syms);
	map_free(&p.regs);
	map_free(&p.labels);
	free(p.fix);
	free(lines);
	free(text);
	return p.m;
}

bool ps_has_kernel(const PsModule *m, const char *name)
{
	for (int i = 0; i < m->nks; i++)
		if (!strcmp(m->ks[i].name, name))
			return true;
	return false;
}
