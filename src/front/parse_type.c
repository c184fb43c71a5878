/* parse_type.c — the parser's type and declaration specifiers (parse.h).
 *
 * decl_specs gathers storage classes, cv-qualifiers, __declspec, [[...]]
 * attributes and one type specifier: scalar keywords counted and combined
 * ("unsigned long long"), vector / matrix / vector_ref / matrix_ref,
 * SurfaceIndex and friends, auto, a (qualified) type name, or a struct or
 * enum specifier, whose definition is parsed here (fields through
 * ps_declaration) and whose tag is declared a type name.  type_name adds the
 * pointer and reference operators of an abstract declarator.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* Keyword counts of a scalar type being spelled ("unsigned long long"). */
typedef struct {
	int n, sign, unsig, shrt, lng, chr, intk;
	int other;            /* void bool float double half: the keyword */
	const Token *first;
} ScalarWords;

static void count_scalar(Parser *p, ScalarWords *w, const Token *t)
{
	if (!w->n++)
		w->first = t;
	switch (t->id) {
	case KW_SIGNED: w->sign++; break;
	case KW_UNSIGNED: w->unsig++; break;
	case KW_SHORT: w->shrt++; break;
	case KW_LONG: w->lng++; break;
	case KW_CHAR: w->chr++; break;
	case KW_INT: w->intk++; break;
	default:
		if (w->other)
			ps_perr(p, t, "cannot combine '%s' with '%s'", keyword_names[t->id],
			     keyword_names[w->other]);
		w->other = t->id;
	}
}

/* The scalar type the words spell; `long` is 64-bit like `long long`. */
static TypeSpec *scalar_spec(Parser *p, const ScalarWords *w)
{
	TypeSpec *ts = ps_ts_new(p, TS_SCALAR, w->first);
	bool u = w->unsig > 0;
	int ints = w->sign + w->unsig + w->shrt + w->lng + w->chr + w->intk;
	bool bad = (w->sign && w->unsig) || w->intk > 1 || w->chr > 1 || w->lng > 2 ||
	           (w->shrt && (w->lng || w->chr)) || (w->chr && (w->lng || w->intk));
	if (w->other) {
		static const ScalarKind sk[KW_COUNT_] = {
			[KW_BOOL] = SK_BOOL, [KW_FLOAT] = SK_FLOAT,
			[KW_DOUBLE] = SK_DOUBLE, [KW_HALF] = SK_HALF,
		};
		bad |= ints > 0;
		ts->kind = w->other == KW_VOID ? TS_VOID : TS_SCALAR;
		ts->sk = sk[w->other];
	} else if (w->chr) {
		ts->sk = u ? SK_UCHAR : SK_CHAR;
	} else if (w->shrt) {
		ts->sk = u ? SK_USHORT : SK_SHORT;
	} else if (w->lng) {
		ts->sk = u ? SK_ULONG : SK_LONG;
	} else {
		ts->sk = u ? SK_UINT : SK_INT;
	}
	if (bad)
		ps_perr(p, w->first, "invalid combination of type specifiers");
	return ts;
}

/* vm_type := ('vector' | 'vector_ref') '<' type_name ',' expr '>'
 *          | ('matrix' | 'matrix_ref') '<' type_name ',' expr ',' expr '>' */
static TypeSpec *parse_vm_type(Parser *p)
{
	Token *kw = next(p);
	const char *what = keyword_names[kw->id];
	TypeSpecKind k = kw->id == KW_VECTOR ? TS_VECTOR : kw->id == KW_MATRIX ? TS_MATRIX
	               : kw->id == KW_VECTOR_REF ? TS_VECTOR_REF : TS_MATRIX_REF;
	TypeSpec *ts = ps_ts_new(p, k, kw);
	int ndims = k == TS_MATRIX || k == TS_MATRIX_REF ? 2 : 1;
	if (!ps_expectf(p, P_LT, "after '%s'", what)) {
		ts->elem = ps_ts_new(p, TS_SCALAR, kw);
		ts->elem->sk = SK_INT;
		return ts;
	}
	bool save = p->no_gt;
	p->no_gt = false;
	ts->elem = ps_type_name(p);
	p->no_gt = true;
	for (int i = 0; i < ndims; i++) {
		if (!ps_expectf(p, P_COMMA, "in the template argument list of '%s'", what))
			break;
		ts->dims[i] = ps_cond(p);
	}
	p->no_gt = save;
	if (!ps_close_angle(p))
		ps_perr(p, peek(p), "expected '>' to close the template argument list of '%s', found %s",
		     what, ps_tok_desc(p, peek(p)));
	return ts;
}

/* attributes := ('[' '[' [attr (',' attr)*] ']' ']')*
 * attr := IDENT ['(' ... ')'];  returns the string of type("..."), if any. */
const char *ps_attrs(Parser *p)
{
	const char *type = NULL;
	while (ps_at_attr(p)) {
		Token *open = next(p);
		next(p);
		while (!at(p, P_RBRACKET) && !at_eof(p)) {
			Token *t = next(p);
			if (t->kind != TK_IDENT && t->kind != TK_KEYWORD) {
				ps_perr(p, t, "expected an attribute name, found %s", ps_tok_desc(p, t));
				break;
			}
			bool is_type = t->len == 4 && !memcmp(t->text, "type", 4);
			if (is_type && at(p, P_LPAREN) && peek_n(p, 1)->kind == TK_STRING) {
				Token *o = next(p);
				type = ps_string(p)->str;
				ps_expect_close(p, P_RPAREN, o, "the attribute");
			} else {
				diag_at(DIAG_WARNING, t->loc, t->len, "attribute '%.*s' ignored",
				        t->len, t->text);
				if (at(p, P_LPAREN)) {
					next(p);
					ps_skip_to_close(p, P_RPAREN);
				}
			}
			if (!accept(p, P_COMMA))
				break;
		}
		if (!accept(p, P_RBRACKET) || !accept(p, P_RBRACKET)) {
			ps_perr(p, peek(p), "expected ']]' to close the attribute, found %s",
			     ps_tok_desc(p, peek(p)));
			note_at(open->loc, "the '[[' is here");
			ps_skip_to_close(p, P_RBRACKET);
			accept(p, P_RBRACKET);
		}
	}
	return type;
}

/* The table of __declspec names: name, DS_ flag. */
#define DECLSPECS(X)                                                          \
	X("genx_main", DS_GENX_MAIN) X("genx", DS_GENX)                       \
	X("genx_volatile", DS_GENX_VOLATILE) X("genx_stackcall", DS_STACKCALL)\
	X("cm_float_control", DS_FLOAT_CONTROL) X("genx_SIMT", DS_SIMT)

static int declspec_flag(const Token *t)
{
#define X(s, f)                                                               \
	if (t->len == (int)sizeof(s) - 1 && !memcmp(t->text, s, sizeof(s) - 1)) \
		return f;
	DECLSPECS(X)
#undef X
	return 0;
}

/* declspec := '__declspec' '(' (IDENT ['(' assign_expr ')'] [','])* ')' */
static void parse_declspec(Parser *p, DeclSpec *ds)
{
	next(p);
	Token *open = peek(p);
	if (!ps_expect(p, P_LPAREN, "after '__declspec'"))
		return;
	while (peek(p)->kind == TK_IDENT || peek(p)->kind == TK_KEYWORD) {
		Token *t = next(p);
		int flag = declspec_flag(t);
		if (!flag)
			diag_at(DIAG_WARNING, t->loc, t->len, "unknown __declspec '%.*s' ignored",
			        t->len, t->text);
		ds->dspec |= flag;
		if (at(p, P_LPAREN)) {
			Node *e = ps_paren(p);
			if (flag)
				ds->ds_arg = e;
		}
		accept(p, P_COMMA);
	}
	ps_expect_close(p, P_RPAREN, open, "the __declspec");
}

/* struct_spec := ('struct' | 'class' | 'union') [IDENT] ['{' field_decl* '}'] */
static TypeSpec *parse_struct_spec(Parser *p)
{
	Token *kw = next(p);
	if (kw->id == KW_UNION)
		ps_perr(p, kw, "unions are not supported in CM");
	Token *nt = peek(p)->kind == TK_IDENT ? next(p) : NULL;
	const char *name = nt ? nt->text : NULL;
	ps_declare(p, name, NAME_TYPE);
	TypeSpec *ts = ps_ts_new(p, TS_NAMED, kw);
	ts->name = name;
	if (!at(p, P_LBRACE)) {
		if (!name)
			ps_perr(p, peek(p), "expected a name or '{' after '%s', found %s",
			     keyword_names[kw->id], ps_tok_desc(p, peek(p)));
		return ts;
	}
	Node *d = mk(p, ND_STRUCT_DECL, kw);
	d->name = name;
	d->name_loc = nt ? nt->loc : kw->loc;
	Token *open = next(p);
	while (!at(p, P_RBRACE) && !at_eof(p) && ps_check_limit(p)) {
		int start = p->pos;
		p->quiet = false;
		ps_declaration(p, &d->args, CTX_FIELD, 0);
		if (p->pos == start)
			next(p);
	}
	ps_expect_close(p, P_RBRACE, open, "the struct");
	ts->kind = TS_STRUCT_DEF;
	ts->def = d;
	return ts;
}

/* enumerator := IDENT ['=' cond_expr] */
static Node *parse_enumerator(Parser *p, bool scoped)
{
	Token *t = peek(p);
	if (t->kind != TK_IDENT) {
		ps_perr(p, t, "expected an enumerator name, found %s", ps_tok_desc(p, t));
		return NULL;
	}
	next(p);
	Node *e = mk(p, ND_ENUMERATOR, t);
	e->name = t->text;
	e->name_loc = t->loc;
	if (accept(p, P_ASSIGN))
		e->lhs = ps_cond(p);
	if (!scoped)
		ps_declare(p, e->name, NAME_VALUE);
	return e;
}

/* enum_spec := 'enum' ['class' | 'struct'] [IDENT] [':' type_name]
 *              ['{' [enumerator (',' enumerator)* [',']] '}'] */
static TypeSpec *parse_enum_spec(Parser *p)
{
	Token *kw = next(p);
	bool scoped = accept_kw(p, KW_CLASS) || accept_kw(p, KW_STRUCT);
	Token *nt = peek(p)->kind == TK_IDENT ? next(p) : NULL;
	const char *name = nt ? nt->text : NULL;
	ps_declare(p, name, NAME_TYPE);
	TypeSpec *ts = ps_ts_new(p, TS_NAMED, kw);
	ts->name = name;
	TypeSpec *under = accept(p, P_COLON) ? ps_type_name(p) : NULL;
	if (!at(p, P_LBRACE)) {
		if (!name)
			ps_perr(p, peek(p), "expected a name or '{' after 'enum', found %s",
			     ps_tok_desc(p, peek(p)));
		return ts;
	}
	Node *d = mk(p, ND_ENUM_DECL, kw);
	d->name = name;
	d->name_loc = nt ? nt->loc : kw->loc;
	d->enum_class = scoped;
	d->ts = under;
	Token *open = next(p);
	bool save = p->no_gt;
	p->no_gt = false;
	while (!at(p, P_RBRACE) && !at_eof(p)) {
		Node *e = parse_enumerator(p, scoped);
		if (!e)
			break;
		nl_push(p->a, &d->args, e);
		if (!accept(p, P_COMMA))
			break;
	}
	p->no_gt = save;
	ps_expect_close(p, P_RBRACE, open, "the enum");
	ts->kind = TS_ENUM_DEF;
	ts->def = d;
	return ts;
}

/* A keyword among the declaration specifiers; false if it is not one. */
static bool spec_keyword(Parser *p, DeclSpec *ds, ScalarWords *w, bool *is_const)
{
	Token *t = peek(p);
	switch (t->id) {
	case KW_CONST: *is_const = true; break;
	case KW_VOLATILE: case KW_REGISTER: case KW_RESTRICT: break;
	case KW_STATIC: ds->dspec |= DS_STATIC; break;
	case KW_INLINE: ds->dspec |= DS_INLINE; break;
	case KW_CONSTEXPR: ds->dspec |= DS_CONSTEXPR; break;
	case KW_TYPEDEF: ds->dspec |= DS_TYPEDEF; break;
	case KW_EXTERN:
		if (peek_n(p, 1)->kind == TK_STRING) {
			next(p);
			ds->dspec |= DS_EXTERN_C;
		} else {
			ds->dspec |= DS_EXTERN;
		}
		break;
	case KW_DECLSPEC:
		parse_declspec(p, ds);
		return true;
	default:
		if (ds->ts || (w->n && !ps_is_scalar_kw(t->id)))
			return false;
		if (ps_is_scalar_kw(t->id)) {
			count_scalar(p, w, t);
			break;
		}
		return false;
	}
	next(p);
	return true;
}

/* A type-specifier keyword that stands alone (vector<...>, struct, ...). */
static TypeSpec *type_keyword(Parser *p)
{
	Token *t = peek(p);
	switch (t->id) {
	case KW_VECTOR: case KW_MATRIX: case KW_VECTOR_REF: case KW_MATRIX_REF:
		return parse_vm_type(p);
	case KW_STRUCT: case KW_CLASS: case KW_UNION:
		return parse_struct_spec(p);
	case KW_ENUM:
		return parse_enum_spec(p);
	case KW_SURFACEINDEX: next(p); return ps_ts_new(p, TS_SURFACE, t);
	case KW_SAMPLERINDEX: next(p); return ps_ts_new(p, TS_SAMPLER, t);
	case KW_VMEINDEX: next(p); return ps_ts_new(p, TS_VME, t);
	case KW_AUTO: next(p); return ps_ts_new(p, TS_AUTO, t);
	case KW_TYPENAME: {
		next(p);
		TypeSpec *ts = ps_ts_new(p, TS_NAMED, peek(p));
		if (peek(p)->kind == TK_IDENT || at(p, P_SCOPE))
			ts->name = ps_take_qualname(p, NULL);
		else
			ps_perr(p, peek(p), "expected a type name after 'typename', found %s",
			     ps_tok_desc(p, peek(p)));
		return ts;
	}
	default:
		return NULL;
	}
}

/* decl_specs := (storage | cv | declspec | attributes | type_specifier)+
 * Storage classes, qualifiers and the type may come in any order
 * (`void inline f`, `const static int`). */
void ps_decl_specs(Parser *p, DeclSpec *ds)
{
	memset(ds, 0, sizeof *ds);
	ScalarWords w = {0};
	bool is_const = false;
	for (;;) {
		Token *t = peek(p);
		if (ps_at_attr(p)) {
			ps_attrs(p);
			continue;
		}
		if (t->kind == TK_KEYWORD) {
			if (spec_keyword(p, ds, &w, &is_const))
				continue;
			if (ds->ts || w.n)
				break;
			TypeSpec *ts = type_keyword(p);
			if (!ts)
				break;
			ds->ts = ts;
			continue;
		}
		if (!ds->ts && !w.n && (t->kind == TK_IDENT || tok_is(t, P_SCOPE)) &&
		    ps_starts_type_at(p, 0)) {
			ds->ts = ps_ts_new(p, TS_NAMED, t);
			ds->ts->name = ps_take_qualname(p, NULL);
			continue;
		}
		break;
	}
	if (w.n)
		ds->ts = scalar_spec(p, &w);
	if (ds->ts)
		ds->ts->is_const |= is_const;
}

/* ptr_ops := ('*' | '&' | '&&' | 'const' | '__restrict')* */
void ps_ptr_ops(Parser *p, TypeSpec *ts)
{
	for (;;) {
		if (accept(p, P_STAR))
			ts->is_pointer = true;
		else if (accept(p, P_AMP) || accept(p, P_ANDAND))
			ts->is_ref = true;
		else if (!accept_kw(p, KW_CONST) && !accept_kw(p, KW_RESTRICT))
			return;
	}
}

/* type_name := decl_specs ptr_ops */
TypeSpec *ps_type_name(Parser *p)
{
	if (!enter(p)) {
		leave(p);
		return ps_ts_new(p, TS_VOID, peek(p));
	}
	DeclSpec ds;
	ps_decl_specs(p, &ds);
	if (!ds.ts) {
		ps_perr(p, peek(p), "expected a type, found %s", ps_tok_desc(p, peek(p)));
		ds.ts = ps_ts_new(p, TS_SCALAR, peek(p));
		ds.ts->sk = SK_INT;
	}
	ps_ptr_ops(p, ds.ts);
	leave(p);
	return ds.ts;
}
