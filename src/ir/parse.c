/* parse.c — reads the CMIR text form that print.c writes (see print.c for
 * the syntax), so passes and back ends can be tested from IR text alone.
 *
 *   module := { "file" INT STRING | kernel }
 *   kernel := "kernel" "@" NAME "(" [param {"," param}] ")" {kattr} [loc]
 *             "{" {block} "}"
 *   param  := NAME ":" KIND TYPE [SURFKIND] [STRING]
 *   kattr  := "slm" INT | "globals" INT | "simd" INT | "barrier" | "wait"
 *   block  := LABEL ":" {inst} jump
 *   inst   := ["%" INT ":" TYPE "="] OPNAME {"." SUFFIX} [item {"," item}] [loc]
 *             [";" NAME]      (-g: the CM variable)
 *   item   := VALUE | "<" INT ";" INT "," INT ">" "," INT ["+" VALUE]
 *           | "#" INT | "ch" CHANNELS | "mask" VALUE | STRING
 *           | "[" LABEL VALUE "]" | constant | TIDNAME
 *   jump   := ("br" LABEL | "cbr" VALUE "," LABEL "," LABEL | "ret") [loc]
 *   loc    := "!" INT ":" INT ":" INT
 *
 * Values and labels may be used before they are defined (loops, phis): a
 * first use allocates the object and the definition fills it in.  The
 * first syntax error is reported with its position in the .ir file and
 * parsing stops.  The result is not verified: callers run ir_verify. */
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "rt/cmk_abi.h"

typedef enum { K_EOF, K_IDENT, K_VAL, K_NUM, K_STR, K_PUNCT } Kind;

typedef struct {
	Kind kind;
	const char *s;        /* start in the text */
	size_t n;             /* length */
	Loc loc;
	uint32_t val;         /* K_VAL: the number after % */
	char c;               /* K_PUNCT */
} Tok;

typedef struct {
	Arena *a;
	const char *p;        /* next character */
	uint32_t file, line;
	const char *bol;      /* beginning of the current line */
	Tok t;                /* current token */
	jmp_buf fail;
	Module *m;
	Func *f;
	Inst **vals;          /* by %id, for the current kernel */
	uint32_t nvals;
	Block **blks;         /* by label number */
	uint32_t nblks;
	Block **order;        /* blocks in definition order */
	uint32_t norder;
	uint32_t filemap[64]; /* text file number -> src id */
} P;

NORETURN static void fail(P *p, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void fail(P *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vat(DIAG_ERROR, p->t.loc, p->t.n ? (int)p->t.n : 1, fmt, ap);
	va_end(ap);
	longjmp(p->fail, 1);
}

/* ---- lexer --------------------------------------------------------------- */

static bool is_id(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '$';
}

static void skip_space(P *p)
{
	for (;;) {
		if (*p->p == '\n') {
			p->line++;
			p->bol = ++p->p;
		} else if (isspace((unsigned char)*p->p)) {
			p->p++;
		} else if (p->p[0] == '/' && p->p[1] == '/') {   /* comment */
			while (*p->p && *p->p != '\n')
				p->p++;
		} else {
			return;
		}
	}
}

static void next(P *p)
{
	skip_space(p);
	Tok *t = &p->t;
	memset(t, 0, sizeof *t);
	t->s = p->p;
	t->loc = (Loc){p->file, p->line, (uint32_t)(p->p - p->bol) + 1};
	const char *s = p->p;
	if (!*s) {
		t->kind = K_EOF;
		return;
	}
	if (*s == '%' && isdigit((unsigned char)s[1])) {
		t->kind = K_VAL;
		char *e;
		t->val = (uint32_t)strtoul(s + 1, &e, 10);
		p->p = e;
	} else if (isdigit((unsigned char)*s) ||
	           (*s == '-' && isdigit((unsigned char)s[1]))) {
		t->kind = K_NUM;
		const char *e = s + 1;
		while (isalnum((unsigned char)*e) || *e == '.' ||
		       ((*e == '+' || *e == '-') && (e[-1] == 'e' || e[-1] == 'E') &&
		        !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))))
			e++;
		p->p = e;
	} else if (isalpha((unsigned char)*s) || *s == '_') {
		t->kind = K_IDENT;
		const char *e = s;
		while (is_id((unsigned char)*e))
			e++;
		p->p = e;
	} else if (*s == '"') {
		t->kind = K_STR;
		const char *e = s + 1;
		while (*e && *e != '"' && *e != '\n')
			e += e[0] == '\\' && e[1] ? 2 : 1;
		if (*e != '"') {
			t->n = (size_t)(e - s);
			fail(p, "unterminated string");
		}
		p->p = e + 1;
	} else {
		t->kind = K_PUNCT;
		t->c = *s;
		p->p = s + 1;
	}
	t->n = (size_t)(p->p - s);
}

static bool is_punct(P *p, char c)
{
	return p->t.kind == K_PUNCT && p->t.c == c;
}

static bool is_word(P *p, const char *w)
{
	return p->t.kind == K_IDENT && strlen(w) == p->t.n && !memcmp(p->t.s, w, p->t.n);
}

static void expect(P *p, char c)
{
	if (!is_punct(p, c))
		fail(p, "expected '%c'", c);
	next(p);
}

static bool accept(P *p, char c)
{
	if (!is_punct(p, c))
		return false;
	next(p);
	return true;
}

static const char *ident(P *p)
{
	if (p->t.kind != K_IDENT)
		fail(p, "expected a name");
	const char *s = intern(p->t.s, p->t.n);
	next(p);
	return s;
}

static int64_t integer(P *p)
{
	if (p->t.kind != K_NUM)
		fail(p, "expected an integer");
	char *e;
	int64_t v = p->t.s[0] == '-' ? strtoll(p->t.s, &e, 0)
	                             : (int64_t)strtoull(p->t.s, &e, 0);
	if (e != p->t.s + p->t.n)
		fail(p, "bad integer");
	next(p);
	return v;
}

static const char *string(P *p)
{
	if (p->t.kind != K_STR)
		fail(p, "expected a string");
	Buf b = {0};
	for (const char *s = p->t.s + 1; *s != '"'; s++) {
		if (*s != '\\') {
			buf_putc(&b, *s);
			continue;
		}
		s++;
		if (*s == 'n')
			buf_putc(&b, '\n');
		else if (*s == 't')
			buf_putc(&b, '\t');
		else if (*s == 'x') {
			char h[3] = {s[1], s[1] ? s[2] : 0, 0};
			buf_putc(&b, (char)strtol(h, NULL, 16));
			s += 2;
		} else
			buf_putc(&b, *s);
	}
	const char *r = intern(b.data ? b.data : "", b.len);
	buf_free(&b);
	next(p);
	return r;
}

/* ---- names, types, values ------------------------------------------------ */

static IrType type(P *p)
{
	if (p->t.kind != K_IDENT)
		fail(p, "expected a type");
	const char *s = p->t.s;
	size_t n = p->t.n;
	uint32_t count = 1;
	if (s[0] == 'v' && n > 1 && isdigit((unsigned char)s[1])) {
		char *e;
		count = (uint32_t)strtoul(s + 1, &e, 10);
		n -= (size_t)(e - s);
		s = e;
		if (!count)
			fail(p, "vector type with 0 elements");
	}
	for (int e = E_I1; e < E_COUNT_; e++)
		if (strlen(ir_elem_name[e]) == n && !memcmp(ir_elem_name[e], s, n)) {
			next(p);
			return ir_type((Elem)e, count);
		}
	fail(p, "unknown type '%.*s'", (int)p->t.n, p->t.s);
}

static void *grow_table(P *p, void *tab, uint32_t *n, uint32_t need)
{
	if (need < *n)
		return tab;
	uint32_t nn = need * 2 + 16;
	void **t = NEWN(p->a, void *, nn);
	if (*n)
		memcpy(t, tab, sizeof(void *) * *n);
	*n = nn;
	return t;
}

/* The value %id: made blank (op = O_COUNT_) on first use. */
static Inst *value_ref(P *p, uint32_t id)
{
	p->vals = grow_table(p, p->vals, &p->nvals, id);
	if (!p->vals[id]) {
		Inst *i = NEW(p->a, Inst);
		i->op = O_COUNT_;
		i->id = id;
		i->loc = p->t.loc;
		p->vals[id] = i;
	}
	return p->vals[id];
}

static Inst *value(P *p)
{
	if (p->t.kind != K_VAL)
		fail(p, "expected a value (%%N)");
	Inst *i = value_ref(p, p->t.val);
	next(p);
	return i;
}

static Block *label_ref(P *p, const Tok *t)
{
	char *e;
	if (t->kind != K_IDENT || t->s[0] != 'b' || !isdigit((unsigned char)t->s[1]))
		fail(p, "expected a block label (bN)");
	uint32_t id = (uint32_t)strtoul(t->s + 1, &e, 10);
	if (e != t->s + t->n)
		fail(p, "expected a block label (bN)");
	p->blks = grow_table(p, p->blks, &p->nblks, id);
	if (!p->blks[id]) {
		Block *b = ir_block_new(p->f);
		b->id = id;
		p->blks[id] = b;
	}
	return p->blks[id];
}

static Block *label(P *p)
{
	Block *b = label_ref(p, &p->t);
	next(p);
	return b;
}

static Loc loc_suffix(P *p)
{
	Loc l = {0};
	if (!accept(p, '!'))
		return l;
	int64_t f = integer(p);
	expect(p, ':');
	l.line = (uint32_t)integer(p);
	expect(p, ':');
	l.col = (uint32_t)integer(p);
	if (f < 0 || f >= 64 || (f && !p->filemap[f]))
		fail(p, "unknown file number %lld", (long long)f);
	l.file = p->filemap[f];
	return l;
}

/* ---- instructions -------------------------------------------------------- */

static IrScalar scalar(P *p, Elem e)
{
	IrScalar v = {0};
	bool neg = accept(p, '-');
	if (p->t.kind == K_IDENT && ir_is_float(e) && (is_word(p, "inf") || is_word(p, "nan"))) {
		v.f = is_word(p, "inf") ? INFINITY : NAN;
		next(p);
	} else if (p->t.kind != K_NUM) {
		fail(p, "expected a number");
	} else if (ir_is_float(e)) {
		char *end;
		v.f = strtod(p->t.s, &end);
		if (end != p->t.s + p->t.n)
			fail(p, "bad number");
		next(p);
	} else {
		v.i = integer(p);
	}
	if (neg && ir_is_float(e))
		v.f = -v.f;
	else if (neg)
		v.i = -v.i;
	return v;
}

static void const_items(P *p, Inst *i)
{
	if (!accept(p, '[')) {
		i->c.n = 1;
		i->c.v = NEW(p->a, IrScalar);
		i->c.v[0] = scalar(p, i->ty.elem);
		return;
	}
	i->c.n = i->ty.n;
	i->c.v = NEWN(p->a, IrScalar, i->ty.n);
	for (uint32_t k = 0; k < i->ty.n; k++) {
		if (k)
			expect(p, ',');
		i->c.v[k] = scalar(p, i->ty.elem);
	}
	expect(p, ']');
}

static const char *const space_names[] = {"", "surf", "svm", "slm"};

/* The opcode and its dotted suffixes, e.g. atomic.cmpxchg.slm.byte,
 * bload.svm.align4. */
static void opname(P *p, Inst *i)
{
	const char *s = p->t.s, *end = s + p->t.n;
	const char *dot = memchr(s, '.', p->t.n);
	size_t n = (size_t)((dot ? dot : end) - s);
	i->op = O_COUNT_;
	for (int o = 0; o < O_COUNT_; o++)
		if (strlen(ir_ops[o].name) == n && !memcmp(ir_ops[o].name, s, n))
			i->op = (Op)o;
	if (i->op == O_COUNT_)
		fail(p, "unknown instruction '%.*s'", (int)n, s);
	while (dot) {
		s = dot + 1;
		dot = memchr(s, '.', (size_t)(end - s));
		n = (size_t)((dot ? dot : end) - s);
		bool ok = false;
#define IS(w) (strlen(w) == n && !memcmp(w, s, n))
		for (int k = 1; k < 4 && !ok; k++)
			if (IS(space_names[k]))
				i->space = (uint8_t)k, ok = true;
		for (int k = 0; k < AT_COUNT_ && !ok && (i->op == Oatomic || i->op == Otatomic); k++)
			if (IS(ir_atomic_name[k]))
				i->aop = (uint8_t)k, ok = true;
		if (!ok && IS("sat"))
			i->sat = ok = true;
		if (!ok && IS("ieee") && (i->op == Odiv || i->op == Osqrt))
			i->ieee = ok = true;
		if (!ok && IS("byte"))
			i->bytes = ok = true;
		if (!ok && n == 6 && !memcmp(s, "align", 5) && strchr("1248", s[5]))
			i->align = (uint8_t)(s[5] - '0'), ok = true;
#undef IS
		if (!ok)
			fail(p, "unknown suffix '.%.*s'", (int)n, s);
	}
	next(p);
}

typedef struct {
	VEC(Inst *) pos;      /* positional operands */
	VEC(Block *) blk;     /* phi blocks */
	Inst *roff, *mask;
} Items;

static void tid_item(P *p, Inst *i)
{
	for (int k = 0; k < TID_COUNT_; k++)
		if (is_word(p, ir_tid_name[k])) {
			i->imm = k;
			next(p);
			return;
		}
	fail(p, "unknown thread id");
}

static void chmask_item(P *p, Inst *i)
{
	if (p->t.kind != K_IDENT)
		fail(p, "expected channels (rgba)");
	for (size_t k = 0; k < p->t.n; k++) {
		const char *c = strchr("rgba", p->t.s[k]);
		if (!c || !p->t.s[k])
			fail(p, "bad channel letters");
		i->chmask |= (uint8_t)(1u << (c - "rgba"));
	}
	next(p);
}

static void item(P *p, Inst *i, Items *it)
{
	if (p->t.kind == K_VAL) {
		vec_push(&it->pos, value(p));
	} else if (accept(p, '<')) {
		i->rg.vstride = (int32_t)integer(p);
		expect(p, ';');
		i->rg.width = (int32_t)integer(p);
		expect(p, ',');
		i->rg.hstride = (int32_t)integer(p);
		expect(p, '>');
		expect(p, ',');
		i->rg.offset = (int32_t)integer(p);
		if (accept(p, '+'))
			it->roff = value(p);
	} else if (accept(p, '#')) {
		i->imm = integer(p);
	} else if (is_word(p, "mask")) {
		next(p);
		it->mask = value(p);
	} else if (is_word(p, "ch")) {
		next(p);
		chmask_item(p, i);
	} else if (p->t.kind == K_STR) {
		i->str = string(p);
	} else if (i->op == Ophi && accept(p, '[')) {
		vec_push(&it->blk, label(p));
		vec_push(&it->pos, value(p));
		expect(p, ']');
	} else if (i->op == Otid) {
		tid_item(p, i);
	} else {
		fail(p, "unexpected operand");
	}
}

static bool item_starts(P *p, const Inst *i)
{
	switch (p->t.kind) {
	case K_VAL:   /* not the next line's result after `barrier`, `slmcommit` */
		return ir_ops[i->op].nops || (ir_ops[i->op].flags & IRF_VAR);
	case K_STR:
		return true;
	case K_PUNCT:
		return p->t.c == '<' || p->t.c == '#' || (p->t.c == '[' && i->op == Ophi);
	case K_IDENT:
		return is_word(p, "mask") || is_word(p, "ch") || i->op == Otid;
	default:
		return false;
	}
}

/* Operand order: fixed, runtime offset, the rest, mask (see ir.h). */
static void set_operands(P *p, Inst *i, Items *it)
{
	uint32_t fixed = (uint32_t)ir_ops[i->op].nops;
	uint32_t n = (uint32_t)it->pos.len + (it->roff != NULL) + (it->mask != NULL);
	i->nops = n;
	i->ops = NEWN(p->a, Inst *, n ? n : 1);
	uint32_t k = 0;
	for (int j = 0; j < it->pos.len; j++) {
		if ((uint32_t)j == fixed && it->roff)
			i->ops[k++] = it->roff;
		i->ops[k++] = it->pos.data[j];
	}
	if (it->roff && (uint32_t)it->pos.len <= fixed) {
		if ((uint32_t)it->pos.len < fixed)
			fail(p, "'%s' needs %u operands before the offset",
			     ir_ops[i->op].name, fixed);
		i->ops[k++] = it->roff;
	}
	if (it->mask)
		i->ops[k++] = it->mask;
	i->has_roff = it->roff != NULL;
	i->has_mask = it->mask != NULL;
	if (i->op == Ophi) {
		i->phiblk = NEWN(p->a, Block *, it->blk.len ? it->blk.len : 1);
		for (int j = 0; j < it->blk.len; j++)
			i->phiblk[j] = it->blk.data[j];
	}
}

static void inst(P *p, Block *b)
{
	Inst *i;
	if (p->t.kind == K_VAL) {
		i = value(p);
		if (i->op != O_COUNT_ || i->block)
			fail(p, "%%%u is defined twice", i->id);
		expect(p, ':');
		i->ty = type(p);
		expect(p, '=');
	} else {
		i = NEW(p->a, Inst);
		i->id = p->f->nextid++;   /* void: renumbered below */
	}
	Tok ot = p->t;
	opname(p, i);
	if (!!(ir_ops[i->op].flags & IRF_VOID) != (i->ty.elem == E_VOID)) {
		p->t = ot;
		fail(p, ir_ops[i->op].flags & IRF_VOID ? "'%s' has no result"
		                                       : "'%s' needs a result",
		     ir_ops[i->op].name);
	}
	Items it = {0};
	if (i->op == Oconst) {
		const_items(p, i);
	} else if (item_starts(p, i)) {
		item(p, i, &it);
		while (accept(p, ','))
			item(p, i, &it);
	}
	set_operands(p, i, &it);
	vec_free(&it.pos);
	vec_free(&it.blk);
	i->loc = loc_suffix(p);
	if (accept(p, ';'))           /* -g: `; name`, the CM variable */
		i->name = ident(p);
	ir_append(b, i);
}

static bool jump(P *p, Block *b)
{
	if (is_word(p, "br")) {
		next(p);
		b->jmp.kind = J_BR;
		b->jmp.to[0] = label(p);
	} else if (is_word(p, "cbr")) {
		next(p);
		b->jmp.kind = J_CBR;
		b->jmp.cond = value(p);
		expect(p, ',');
		b->jmp.to[0] = label(p);
		expect(p, ',');
		b->jmp.to[1] = label(p);
	} else if (is_word(p, "ret")) {
		next(p);
		b->jmp.kind = J_RET;
	} else {
		return false;
	}
	b->jmp.loc = loc_suffix(p);
	return true;
}

static void block(P *p)
{
	Tok lt = p->t;
	Block *b = label(p);
	for (uint32_t k = 0; k < p->norder; k++)
		if (p->order[k] == b) {
			p->t = lt;
			fail(p, "block b%u is defined twice", b->id);
		}
	p->order[p->norder++] = b;
	expect(p, ':');
	while (!jump(p, b)) {
		if (p->t.kind == K_EOF || is_punct(p, '}'))
			fail(p, "block b%u has no terminator", b->id);
		inst(p, b);
	}
}

/* ---- kernels ------------------------------------------------------------- */

static const char *const arg_kinds[] = {"", "scalar", "vector", "surface", "sampler", "svm"};
static const char *const surf_kinds[] = {"any", "buffer", "image1d", "image2d", "image3d"};

static int word_index(P *p, const char *const *names, int n)
{
	for (int k = 0; k < n; k++)
		if (*names[k] && is_word(p, names[k])) {
			next(p);
			return k;
		}
	return -1;
}

static void param(P *p)
{
	const char *name = ident(p);
	expect(p, ':');
	int kind = word_index(p, arg_kinds, 6);
	if (kind < 0)
		fail(p, "expected a parameter kind (scalar, vector, surface, sampler, svm)");
	IrParam *pa = ir_param_add(p->f, name, (uint32_t)kind, type(p));
	if (kind == CMK_ARG_SURFACE) {
		int s = word_index(p, surf_kinds, 5);
		pa->surf = s < 0 ? CMK_SURF_ANY : (uint32_t)s;
	}
	if (p->t.kind == K_STR)
		pa->type_attr = string(p);
}

static void kattrs(P *p, Func *f)
{
	for (;;) {
		if (is_word(p, "slm"))
			next(p), f->slm_size = (uint32_t)integer(p);
		else if (is_word(p, "globals"))
			next(p), f->globals_size = (uint32_t)integer(p);
		else if (is_word(p, "simd"))
			next(p), f->simd_width = (uint32_t)integer(p);
		else if (is_word(p, "barrier"))
			next(p), f->uses_barrier = true;
		else if (is_word(p, "wait"))
			next(p), f->uses_wait = true;
		else
			return;
	}
}

/* Every value used must be defined; void instructions get ids after the
 * largest defined one, so ids stay unique. */
static void finish_kernel(P *p, Func *f)
{
	uint32_t maxid = 0;
	for (uint32_t k = 0; k < p->nvals; k++) {
		Inst *i = p->vals[k];
		if (!i)
			continue;
		if (i->op == O_COUNT_) {
			p->t.loc = i->loc;
			p->t.n = 1;
			fail(p, "%%%u is used but never defined", k);
		}
		maxid = k + 1;
	}
	for (uint32_t k = 0; k < p->nblks; k++)
		if (p->blks[k]) {
			bool def = false;
			for (uint32_t j = 0; j < p->norder; j++)
				def |= p->order[j] == p->blks[k];
			if (!def)
				fail(p, "block b%u is used but never defined", k);
		}
	for (uint32_t k = 0; k < p->norder; k++)
		f->blocks[k] = p->order[k];
	f->nextid = maxid;
	uint32_t maxb = 0;
	for (uint32_t bi = 0; bi < f->nblocks; bi++) {
		if (f->blocks[bi]->id + 1 > maxb)
			maxb = f->blocks[bi]->id + 1;
		for (Inst *i = f->blocks[bi]->first; i; i = i->next)
			if (i->ty.elem == E_VOID)
				i->id = f->nextid++;
	}
	f->nextblk = maxb;
}

static void kernel(P *p)
{
	next(p);
	expect(p, '@');
	Loc at = p->t.loc;
	Func *f = ir_func_new(p->m, ident(p), at);
	p->f = f;
	p->vals = NULL, p->nvals = 0;
	p->blks = NULL, p->nblks = 0;
	p->norder = 0;
	expect(p, '(');
	if (!is_punct(p, ')')) {
		param(p);
		while (accept(p, ','))
			param(p);
	}
	expect(p, ')');
	kattrs(p, f);
	f->loc = loc_suffix(p);
	expect(p, '{');
	uint32_t cap = 0;
	while (!accept(p, '}')) {
		if (p->t.kind == K_EOF)
			fail(p, "expected '}' at the end of kernel @%s", f->name);
		p->order = grow_table(p, p->order, &cap, p->norder + 1);
		block(p);
	}
	if (!p->norder)
		fail(p, "kernel @%s has no blocks", f->name);
	finish_kernel(p, f);
}

static void file_decl(P *p)
{
	next(p);
	Tok nt = p->t;
	int64_t n = integer(p);
	if (n <= 0 || n >= 64) {
		p->t = nt;
		fail(p, "file numbers run from 1 to 63");
	}
	const char *name = string(p);
	p->filemap[n] = (uint32_t)src_add(name, "", 0);
}

Module *ir_parse(Arena *a, const char *path, const char *text)
{
	if (!text) {
		size_t len;
		char *t = read_file(path, &len);
		if (!t) {
			error_at((Loc){0}, "cannot read '%s'", path);
			return NULL;
		}
		text = arena_strndup(a, t, len);
		free(t);
	}
	P *p = NEW(a, P);
	p->a = a;
	p->p = p->bol = text;
	p->file = (uint32_t)src_add(path, text, strlen(text));
	p->line = 1;
	p->m = ir_module_new(a);
	if (setjmp(p->fail))
		return NULL;
	next(p);
	while (p->t.kind != K_EOF) {
		if (is_word(p, "file"))
			file_decl(p);
		else if (is_word(p, "kernel"))
			kernel(p);
		else
			fail(p, "expected 'kernel' or 'file'");
	}
	return p->m;
}
