/* sema_stmt.c — statements, SIMD control flow checks, goto and labels.
 *
 * Statements are checked in a function's FnCtx (sema.h); each visited
 * statement gets a sequence number so that a goto can be checked against the
 * initialized declarations it would jump over (resolve_gotos, once the body
 * is done).
 *
 * SIMD control flow: an `if`/`do-while` whose condition is a call to
 * __cm_simdcf_any(mask) (what SIMD_IF_BEGIN and friends expand to) gets
 * simd = true, simd_width = the mask's element count, and cond = the mask
 * itself (the __cm_simdcf_any call is dropped).
 */
#include <stdlib.h>
#include <string.h>

#include "sema.h"

/* ----------------------------------------------------------- statements */

static void cond_expr(Sema *S, Node **cp, const char *what)
{
	Node *c = *cp = sema_rvalue(S, *cp);
	if (bad(c))
		return;
	if (ty_is_vm(c->ty)) {
		diag_at(DIAG_ERROR, c->loc, c->len > 0 ? c->len : 1,
		        "condition must be a scalar, not '%s'; use .any() or .all()", ty_str(c->ty));
		return;
	}
	*cp = sema_convert(S, c, ty_scalar(SK_BOOL), false, what);
}

/* The mask of a __cm_simdcf_any(mask) condition, or NULL. */
static Node *simd_mask(Node *cond)
{
	if (!cond || cond->kind != ND_CALL || !cond->lhs || cond->lhs->kind != ND_IDENT ||
	    !cond->args.len || !cond->lhs->name || !strstr(cond->lhs->name, "simdcf_any"))
		return NULL;
	return cond->args.data[0];
}

/* Checks a SIMD control-flow condition and enters its width.  Returns the
 * previous width, to be restored. */
static int simd_enter(Sema *S, Node *s, Node *mask)
{
	FnCtx *fx = S->fx;
	int old = fx->simd_width;
	mask = sema_rvalue(S, mask);
	s->cond = mask;
	s->simd = true;
	if (bad(mask))
		return old;
	if (!ty_is_vm(mask->ty) && old && ty_is_scalar(mask->ty)) {
		/* inside SIMD control flow a scalar condition is broadcast to the
		 * enclosing width (cm-language.md §5.2) */
		mask = sema_convert(S, mask, ty_vector(ty_scalar(SK_USHORT), old), false,
		                    "the SIMD condition");
		s->cond = mask;
		if (bad(mask))
			return old;
	}
	int w = ty_elems(mask->ty);
	if (!ty_is_vm(mask->ty)) {
		error_at(mask->loc, "SIMD control flow needs a vector or matrix condition, not '%s'",
		         ty_str(mask->ty));
		return old;
	}
	if (w < 2 || w > 32 || (w & (w - 1))) {
		error_at(mask->loc, "SIMD control flow width must be a power of two from 2 to 32, "
		         "but '%s' has %d elements", ty_str(mask->ty), w);
		return old;
	}
	if (old && w != old) {
		error_at(mask->loc, "nested SIMD control flow has width %d, but the enclosing "
		         "SIMD control flow has width %d", w, old);
		note_at(fx->simd_loc, "enclosing SIMD control flow is here");
		return old;
	}
	s->simd_width = w;
	fx->simd_width = w;
	if (!old)
		fx->simd_loc = s->loc;
	return old;
}

static bool no_scalar_cf(Sema *S, Node *s, const char *what)
{
	if (!S->fx->simd_width)
		return true;
	diag_at(DIAG_ERROR, s->loc, nlen(what),
	        "'%s' is not allowed inside SIMD control flow", what);
	note_at(S->fx->simd_loc, "SIMD control flow begins here");
	return false;
}

/* Inside SIMD control flow a statement writes 1 or simd-width elements. */
void sema_check_simd_width(Sema *S, Node *at, Type *t)
{
	int w = S->fx ? S->fx->simd_width : 0;
	if (!w || ty_is_error(t) || !ty_is_vm(t))
		return;
	if (t->n != 1 && t->n != w)
		error_at(at->loc, "statement of width %d ('%s') inside SIMD control flow of width %d",
		         t->n, ty_str(t), w);
}

static void expr_stmt(Sema *S, Node *s)
{
	Node *e = s->lhs = sema_expr(S, s->lhs);
	if (bad(e) || !S->fx->simd_width)
		return;
	switch (e->kind) {
	case ND_ASSIGN:
	case ND_UNARY:
	case ND_POSTFIX:
		sema_check_simd_width(S, e, e->lhs ? e->lhs->ty : e->ty);
		break;
	case ND_CALL:
	case ND_MEMBER_CALL:
		break;
	default:
		if (ty_is_vm(e->ty))
			error_at(e->loc, "inside SIMD control flow an expression statement needs a "
			         "destination (its width cannot be determined)");
	}
}

static void push_brk(Sema *S, int kind)
{
	Breakable b = {kind, S->fx->simd_width};
	vec_push(&S->fx->brk, b);
}

static void loop_body(Sema *S, Node *body, int kind)
{
	push_brk(S, kind);
	sema_stmt(S, body);
	S->fx->brk.len--;
}

static void stmt_if(Sema *S, Node *s)
{
	Node *mask = simd_mask(s->cond);
	if (mask) {
		int old = simd_enter(S, s, mask);
		sema_stmt(S, s->then);
		sema_stmt(S, s->els);
		S->fx->simd_width = old;
		return;
	}
	if (!no_scalar_cf(S, s, "if"))
		return;
	cond_expr(S, &s->cond, "condition");
	sema_stmt(S, s->then);
	sema_stmt(S, s->els);
}

static void stmt_do(Sema *S, Node *s)
{
	Node *mask = simd_mask(s->cond);
	if (mask) {
		int old = S->fx->simd_width;
		Node tmp = *s;
		int w = simd_enter(S, &tmp, mask);
		(void)w;
		s->simd = true;
		s->simd_width = tmp.simd_width;
		s->cond = tmp.cond;
		loop_body(S, s->body, BRK_SIMD_LOOP);
		S->fx->simd_width = old;
		return;
	}
	if (!no_scalar_cf(S, s, "do"))
		return;
	loop_body(S, s->body, BRK_LOOP);
	cond_expr(S, &s->cond, "condition");
}

static void stmt_for(Sema *S, Node *s)
{
	if (!no_scalar_cf(S, s, s->kind == ND_FOR ? "for" : "while"))
		return;
	Scope *sc = sema_push_scope(S);
	sc->block_end = NEW(S->a, int);   /* the init's names end with the loop */
	*sc->block_end = 1 << 30;
	if (s->init)
		sema_stmt(S, s->init);
	if (s->cond)
		cond_expr(S, &s->cond, "condition");
	if (s->inc)
		s->inc = sema_expr(S, s->inc);
	loop_body(S, s->body, BRK_LOOP);
	*sc->block_end = ++S->fx->seq;
	sema_pop_scope(S, false);
}

static void stmt_switch(Sema *S, Node *s)
{
	if (!no_scalar_cf(S, s, "switch"))
		return;
	Node *c = s->cond = sema_rvalue(S, s->cond);
	Switch sw = {0};
	if (!bad(c)) {
		if (!ty_is_integer(ty_base(c->ty)) && !bad(c))
			error_at(c->loc, "switch condition must be an integer scalar, not '%s'",
			         ty_str(c->ty));
		else if (ty_base(c->ty)->kind != TY_ENUM)
			s->cond = sema_convert(S, c, sema_common_elem(c->ty, c->ty), false, "switch");
	}
	sw.ty = bad(s->cond) ? NULL : ty_base(s->cond->ty);
	Switch *saved = S->fx->sw;
	S->fx->sw = &sw;
	push_brk(S, BRK_SWITCH);
	sema_stmt(S, s->body);
	S->fx->brk.len--;
	S->fx->sw = saved;
	vec_free(&sw.cases);
}

static void stmt_case(Sema *S, Node *s)
{
	Switch *sw = S->fx->sw;
	if (!sw) {
		error_at(s->loc, "'%s' statement not in switch statement",
		         s->kind == ND_CASE ? "case" : "default");
		sema_stmt(S, s->body);
		return;
	}
	if (s->kind == ND_DEFAULT) {
		if (sw->deflt) {
			error_at(s->loc, "multiple default labels in one switch");
			note_at(sw->deflt->loc, "previous default label is here");
		}
		sw->deflt = s;
	} else {
		int64_t v;
		if (sema_const_int(S, s->lhs, "case value", &v)) {
			if (sw->ty)
				s->lhs = sema_convert(S, s->lhs, sw->ty, false, "case value");
			s->cval = s->lhs->has_value ? s->lhs->cval : v;
			for (int i = 0; i < sw->cases.len; i++)
				if (sw->cases.data[i]->cval == s->cval) {
					error_at(s->lhs->loc, "duplicate case value %lld", (long long)s->cval);
					note_at(sw->cases.data[i]->lhs->loc, "previous case is here");
					break;
				}
			vec_push(&sw->cases, s);
		}
	}
	sema_stmt(S, s->body);
}

static void stmt_jump(Sema *S, Node *s)
{
	FnCtx *fx = S->fx;
	bool is_break = s->kind == ND_BREAK;
	const char *what = is_break ? "break" : "continue";
	for (int i = fx->brk.len - 1; i >= 0; i--) {
		Breakable *b = &fx->brk.data[i];
		if (!is_break && b->kind == BRK_SWITCH)
			continue;
		if (b->kind == BRK_SIMD_LOOP) {
			s->simd = true;
			s->simd_width = fx->simd_width;
		} else if (fx->simd_width && !b->simd_width) {
			error_at(s->loc, "'%s' cannot leave SIMD control flow (use SIMD_BREAK/SIMD_CONTINUE "
			         "in a SIMD do-while)", what);
		}
		return;
	}
	error_at(s->loc, is_break ? "'break' statement not in loop or switch statement"
	                          : "'continue' statement not in loop statement");
}

static void stmt_return(Sema *S, Node *s)
{
	FnCtx *fx = S->fx;
	if (!no_scalar_cf(S, s, "return"))
		return;
	if (s->lhs)
		s->lhs = sema_rvalue(S, s->lhs);
	if (s->lhs && bad(s->lhs))
		return;
	if (fx->ret_auto && !fx->ret) {
		fx->ret = s->lhs ? ty_base(s->lhs->ty) : ty_void();
		return;
	}
	Type *r = fx->ret;
	if (ty_is_error(r))
		return;
	if (r->kind == TY_VOID) {
		if (s->lhs && s->lhs->ty->kind != TY_VOID)
			error_at(s->lhs->loc, "void function '%s' should not return a value",
			         fx->sym->name);
		return;
	}
	if (!s->lhs) {
		error_at(s->loc, "non-void function '%s' should return a value of type '%s'",
		         fx->sym->name, ty_str(r));
		return;
	}
	s->lhs = sema_convert(S, s->lhs, r, false, "return value");
}

static void stmt_label(Sema *S, Node *s)
{
	FnCtx *fx = S->fx;
	Mark *old = map_get(&fx->labels, s->name);
	if (old) {
		diag_at(DIAG_ERROR, s->loc, nlen(s->name), "redefinition of label '%s'", s->name);
		note_at(old->node->loc, "previous definition is here");
	} else {
		Mark *m = NEW(S->a, Mark);
		m->node = s;
		m->seq = fx->seq;
		map_put(&fx->labels, s->name, m);
	}
	sema_stmt(S, s->body);
}

/* A goto may not jump into the scope of an initialized declaration. */
void sema_resolve_gotos(Sema *S)
{
	FnCtx *fx = S->fx;
	for (int i = 0; i < fx->gotos.len; i++) {
		Mark *g = &fx->gotos.data[i];
		Mark *l = map_get(&fx->labels, g->node->name);
		if (!l) {
			diag_at(DIAG_ERROR, g->node->loc, 4, "use of undeclared label '%s'", g->node->name);
			continue;
		}
		for (int j = 0; j < fx->decls.len; j++) {
			DeclMark *d = &fx->decls.data[j];
			int end = d->block_end ? *d->block_end : 1 << 30;
			bool label_in = d->seq < l->seq && l->seq < end;
			bool goto_in = d->seq < g->seq && g->seq < end;
			if (label_in && !goto_in) {
				diag_at(DIAG_ERROR, g->node->loc, 4,
				        "cannot jump from this goto statement to label '%s'", g->node->name);
				note_at(name_loc(d->decl), "jump bypasses the initialization of '%s'",
				        d->decl->name);
				break;
			}
		}
	}
}

void sema_stmt_static_assert(Sema *S, Node *s)
{
	Node *c = s->lhs = sema_rvalue(S, s->lhs);
	if (bad(c))
		return;
	if (!c->has_value || !ty_is_scalar(ty_base(c->ty))) {
		error_at(c->loc, "static_assert condition is not a constant expression");
		return;
	}
	if (ty_is_float(c->ty) ? c->cfval == 0 : c->cval == 0) {
		if (s->str)
			error_at(s->loc, "static assertion failed: %s", s->str);
		else
			error_at(s->loc, "static assertion failed");
	}
}

static void stmt_block(Sema *S, Node *s)
{
	Scope *sc = sema_push_scope(S);
	sc->block_end = NEW(S->a, int);
	*sc->block_end = 1 << 30;
	for (int i = 0; i < s->args.len; i++)
		sema_stmt(S, s->args.data[i]);
	*sc->block_end = ++S->fx->seq;
	sema_pop_scope(S, false);
}

static void local_decl(Sema *S, Node *d)
{
	switch (d->kind) {
	case ND_VAR_DECL: sema_var_decl(S, d, false); break;
	case ND_TYPEDEF: sema_typedef_decl(S, d); break;
	case ND_ENUM_DECL: sema_enum_decl(S, d); break;
	case ND_STRUCT_DECL: sema_struct_decl(S, d); break;
	case ND_STATIC_ASSERT: sema_stmt_static_assert(S, d); break;
	default: error_at(d->loc, "this declaration is not allowed inside a function");
	}
}

static void stmt_inner(Sema *S, Node *s)
{
	FnCtx *fx = S->fx;
	fx->seq++;
	if (!s->ty)
		s->ty = ty_void();
	switch (s->kind) {
	case ND_BLOCK: stmt_block(S, s); break;
	case ND_DECL_STMT:
		if (s->lhs)
			local_decl(S, s->lhs);
		for (int i = 0; i < s->args.len; i++)
			local_decl(S, s->args.data[i]);
		break;
	case ND_VAR_DECL:
	case ND_TYPEDEF:
	case ND_ENUM_DECL:
	case ND_STRUCT_DECL:
		local_decl(S, s);
		break;
	case ND_EXPR_STMT: expr_stmt(S, s); break;
	case ND_IF: stmt_if(S, s); break;
	case ND_FOR:
	case ND_WHILE: stmt_for(S, s); break;
	case ND_DO: stmt_do(S, s); break;
	case ND_SWITCH: stmt_switch(S, s); break;
	case ND_CASE:
	case ND_DEFAULT: stmt_case(S, s); break;
	case ND_BREAK:
	case ND_CONTINUE: stmt_jump(S, s); break;
	case ND_GOTO:
		if (no_scalar_cf(S, s, "goto")) {
			Mark m = {s, fx->seq};
			vec_push(&fx->gotos, m);
		}
		break;
	case ND_LABEL: stmt_label(S, s); break;
	case ND_RETURN: stmt_return(S, s); break;
	case ND_NULL_STMT: break;
	case ND_STATIC_ASSERT: sema_stmt_static_assert(S, s); break;
	case ND_ASM:
		error_at(s->loc, "inline assembly is not supported by cmetal (no vISA on PTX or x86)");
		break;
	default:
		s->ty = NULL;
		s = sema_expr(S, s);
		break;
	}
}

void sema_stmt(Sema *S, Node *s)
{
	if (!s)
		return;
	S->depth++;
	stmt_inner(S, s);
	S->depth--;
}
