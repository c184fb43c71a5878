/* dump.c — the tree as text, for `cmetal --emit=ast` and golden tests.
 *
 * One node per line, indented two spaces per level:
 *     ROLE: KIND details [: type] [flags]
 * ROLE names the field a child hangs from (lhs, rhs, cond, init, arg, ...);
 * items of a list that is the node's whole content (block statements, unit
 * declarations, initializer items) have none.  Details are the operator,
 * names, literal values and the written type of declarations and casts;
 * after sema also the type, lvalue, implicit conversions, the CM member,
 * builtin id, folded template arguments (cargs), call kind, SIMD width,
 * symbol ids (#N) and template instances.  Locations are left out except
 * the line:col of declared names, so goldens survive unrelated edits.
 * Output is deterministic: the same tree always prints the same text.
 */
#include <stdio.h>
#include <string.h>

#include "front.h"

static const char *const builtin_ids[] = {
	"",
#define BUILTIN(id, ...) #id,
#include "front/builtins.def"
#undef BUILTIN
};

static const char *const cast_kinds[] = {"c", "func", "static", "reinterpret", "const"};
static const char *const call_kinds[] = {"", "func", "builtin", "element", "ctor"};

#define DSPEC_NAMES(X)                                                        \
	X(DS_STATIC, "static") X(DS_EXTERN, "extern")                         \
	X(DS_EXTERN_C, "extern_c") X(DS_INLINE, "inline")                     \
	X(DS_CONSTEXPR, "constexpr") X(DS_TYPEDEF, "typedef")                 \
	X(DS_GENX_MAIN, "genx_main") X(DS_GENX, "genx")                       \
	X(DS_GENX_VOLATILE, "genx_volatile") X(DS_STACKCALL, "genx_stackcall")\
	X(DS_FLOAT_CONTROL, "cm_float_control") X(DS_SIMT, "genx_SIMT")

static void put_expr(Buf *b, const Node *e);
static void put_ts(Buf *b, const TypeSpec *ts);

/* A C string literal with escapes. */
static void put_quoted(Buf *b, const char *s, int n)
{
	buf_putc(b, '"');
	for (int i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			buf_printf(b, "\\%c", c);
		else if (c == '\n')
			buf_puts(b, "\\n");
		else if (c == '\t')
			buf_puts(b, "\\t");
		else if (c < 32 || c >= 127)
			buf_printf(b, "\\x%02x", c);
		else
			buf_putc(b, (char)c);
	}
	buf_putc(b, '"');
}

static void put_targs(Buf *b, const TemplArg *ta, int n)
{
	buf_putc(b, '<');
	for (int i = 0; i < n; i++) {
		if (i)
			buf_puts(b, ", ");
		if (ta[i].ts)
			put_ts(b, ta[i].ts);
		else
			put_expr(b, ta[i].expr);
	}
	buf_putc(b, '>');
}

static void put_list(Buf *b, const NodeList *l)
{
	for (int i = 0; i < l->len; i++) {
		if (i)
			buf_puts(b, ", ");
		put_expr(b, l->data[i]);
	}
}

/* An expression in compact source form, for sizes and template arguments
 * inside a type ("vector<uint, N*2>"); nested operators get parentheses. */
static void put_expr(Buf *b, const Node *e)
{
	if (!e) {
		buf_puts(b, "?");
		return;
	}
	switch (e->kind) {
	case ND_INT_LIT: buf_printf(b, "%llu", (unsigned long long)e->ival); break;
	case ND_FLOAT_LIT: buf_printf(b, "%.17g", e->fval); break;
	case ND_BOOL_LIT: buf_puts(b, e->ival ? "true" : "false"); break;
	case ND_STR_LIT: put_quoted(b, e->str, e->str_len); break;
	case ND_NULLPTR: buf_puts(b, "nullptr"); break;
	case ND_IDENT: buf_puts(b, e->name); break;
	case ND_UNARY:
		buf_puts(b, punct_names[e->op]);
		put_expr(b, e->lhs);
		break;
	case ND_BINARY:
		buf_putc(b, '(');
		put_expr(b, e->lhs);
		buf_printf(b, " %s ", punct_names[e->op]);
		put_expr(b, e->rhs);
		buf_putc(b, ')');
		break;
	case ND_COND:
		buf_putc(b, '(');
		put_expr(b, e->cond);
		buf_puts(b, " ? ");
		put_expr(b, e->then);
		buf_puts(b, " : ");
		put_expr(b, e->els);
		buf_putc(b, ')');
		break;
	case ND_CALL:
		put_expr(b, e->lhs);
		if (e->has_targs)
			put_targs(b, e->targs, e->ntargs);
		buf_putc(b, '(');
		put_list(b, &e->args);
		buf_putc(b, ')');
		break;
	case ND_MEMBER:
	case ND_MEMBER_CALL:
		put_expr(b, e->lhs);
		buf_printf(b, ".%s", e->name);
		if (e->has_targs)
			put_targs(b, e->targs, e->ntargs);
		if (e->kind == ND_MEMBER_CALL) {
			buf_putc(b, '(');
			put_list(b, &e->args);
			buf_putc(b, ')');
		}
		break;
	case ND_CAST:
		buf_putc(b, '(');
		put_ts(b, e->ts);
		buf_putc(b, ')');
		put_list(b, &e->args);
		break;
	case ND_SIZEOF:
		buf_puts(b, "sizeof(");
		if (e->ts)
			put_ts(b, e->ts);
		else
			put_expr(b, e->lhs);
		buf_putc(b, ')');
		break;
	default:
		buf_printf(b, "<%s>", node_kind_names[e->kind]);
		break;
	}
}

/* A type as written: "const vector<uchar, 8>&". */
static void put_ts(Buf *b, const TypeSpec *ts)
{
	if (!ts) {
		buf_puts(b, "?");
		return;
	}
	if (ts->is_const)
		buf_puts(b, "const ");
	switch (ts->kind) {
	case TS_SCALAR: buf_puts(b, scalar_name(ts->sk)); break;
	case TS_VOID: buf_puts(b, "void"); break;
	case TS_NAMED: buf_puts(b, ts->name ? ts->name : "?"); break;
	case TS_VECTOR: case TS_VECTOR_REF: case TS_MATRIX: case TS_MATRIX_REF:
		buf_puts(b, ts->kind == TS_VECTOR ? "vector" : ts->kind == TS_VECTOR_REF
		         ? "vector_ref" : ts->kind == TS_MATRIX ? "matrix" : "matrix_ref");
		buf_putc(b, '<');
		put_ts(b, ts->elem);
		for (int i = 0; i < 2 && ts->dims[i]; i++) {
			buf_puts(b, ", ");
			put_expr(b, ts->dims[i]);
		}
		buf_putc(b, '>');
		break;
	case TS_SURFACE: buf_puts(b, "SurfaceIndex"); break;
	case TS_SAMPLER: buf_puts(b, "SamplerIndex"); break;
	case TS_VME: buf_puts(b, "VmeIndex"); break;
	case TS_AUTO: buf_puts(b, "auto"); break;
	case TS_STRUCT_DEF: buf_printf(b, "struct %s{...}", ts->name ? ts->name : ""); break;
	case TS_ENUM_DEF: buf_printf(b, "enum %s{...}", ts->name ? ts->name : ""); break;
	default: buf_puts(b, "?"); break;
	}
	if (ts->is_pointer)
		buf_putc(b, '*');
	if (ts->is_ref)
		buf_putc(b, '&');
}

static void put_dspec(Buf *b, int ds)
{
#define X(f, s)                                                               \
	if (ds & (f))                                                         \
		buf_puts(b, " " s);
	DSPEC_NAMES(X)
#undef X
}

static void put_decl_name(Buf *b, const Node *n)
{
	buf_printf(b, " %s @%u:%u", n->name ? n->name : "<anon>", n->name_loc.line,
	           n->name_loc.col);
}

static void put_tparams(Buf *b, const Node *n)
{
	buf_puts(b, " <");
	for (int i = 0; i < n->ntparams; i++) {
		const TemplParam *tp = &n->tparams[i];
		if (i)
			buf_puts(b, ", ");
		if (tp->is_type)
			buf_puts(b, "typename");
		else
			put_ts(b, tp->ts);
		if (tp->name)
			buf_printf(b, " %s", tp->name);
		if (tp->def && tp->def->ts) {
			buf_puts(b, " = ");
			put_ts(b, tp->def->ts);
		} else if (tp->def) {
			buf_puts(b, " = ");
			put_expr(b, tp->def->expr);
		}
	}
	buf_putc(b, '>');
}

/* The syntactic details of one node (what the parser recorded). */
static void put_syntax(Buf *b, const Node *n)
{
	switch (n->kind) {
	case ND_INT_LIT:
		buf_printf(b, " %llu %s", (unsigned long long)n->ival, scalar_name(n->lit));
		break;
	case ND_FLOAT_LIT:
		buf_printf(b, " %.17g %s", n->fval, scalar_name(n->lit));
		break;
	case ND_BOOL_LIT: buf_puts(b, n->ival ? " true" : " false"); break;
	case ND_STR_LIT: buf_putc(b, ' '); put_quoted(b, n->str, n->str_len); break;
	case ND_IDENT: case ND_GOTO: case ND_LABEL: case ND_USING_NS:
		buf_printf(b, " %s", n->name ? n->name : "?");
		break;
	case ND_UNARY: case ND_POSTFIX: case ND_BINARY: case ND_ASSIGN:
		buf_printf(b, " '%s'", punct_names[n->op]);
		break;
	case ND_MEMBER: case ND_MEMBER_CALL:
		buf_printf(b, " %s%s%s", n->op == P_ARROW ? "->" : ".",
		           n->template_kw ? "template " : "", n->name);
		break;
	case ND_CAST:
		if (n->implicit)
			break;
		buf_printf(b, " %s", n->op >= 0 && n->op <= CAST_CONST ? cast_kinds[n->op] : "?");
		if (n->ts) {
			buf_putc(b, ' ');
			put_ts(b, n->ts);
		}
		break;
	case ND_SIZEOF:
		if (n->ts) {
			buf_putc(b, ' ');
			put_ts(b, n->ts);
		}
		break;
	case ND_STATIC_ASSERT:
		if (n->str) {
			buf_putc(b, ' ');
			put_quoted(b, n->str, n->str_len);
		}
		break;
	case ND_VAR_DECL: case ND_TYPEDEF: case ND_FUNC:
		put_decl_name(b, n);
		buf_putc(b, ' ');
		put_ts(b, n->ts);
		put_dspec(b, n->dspec);
		if (n->attr_type) {
			buf_puts(b, " [[type(");
			put_quoted(b, n->attr_type, (int)strlen(n->attr_type));
			buf_puts(b, ")]]");
		}
		break;
	case ND_STRUCT_DECL: case ND_ENUMERATOR: case ND_NAMESPACE:
		put_decl_name(b, n);
		break;
	case ND_ENUM_DECL:
		put_decl_name(b, n);
		if (n->enum_class)
			buf_puts(b, " class");
		if (n->ts) {
			buf_puts(b, " : ");
			put_ts(b, n->ts);
		}
		break;
	case ND_TEMPLATE:
		put_tparams(b, n);
		break;
	default:
		break;
	}
	if (n->has_targs)
		put_targs(b, n->targs, n->ntargs);
	if (node_class(n->kind) == NODE_FULL && n->unroll >= 0)
		buf_printf(b, " unroll=%d", n->unroll);
}

/* What sema added; nothing before sema has run. */
static void put_sema_op(Buf *b, const Node *n);

static void put_sema(Buf *b, const Node *n)
{
	bool stmt = n->kind >= ND_BLOCK && n->kind != ND_VAR_DECL && n->kind != ND_FUNC;
	if (n->ty && !stmt)
		buf_printf(b, " : %s", ty_str(n->ty));
	if (n->lvalue)
		buf_puts(b, " lvalue");
	if (n->implicit)
		buf_puts(b, " implicit");
	if (n->sat)
		buf_puts(b, " sat");
	if (n->sym)
		buf_printf(b, " #%d", n->sym->id);
	if (node_class(n->kind) != NODE_BASIC)
		put_sema_op(b, n);
	if (n->simd)
		buf_printf(b, " simd=%d", n->simd_width);
	if (n->has_value) {
		if (n->ty && ty_is_float(n->ty))
			buf_printf(b, " value=%.17g", n->cfval);
		else
			buf_printf(b, " value=%lld", (long long)n->cval);
	}
	if (n->kind == ND_ENUMERATOR && n->sym)
		buf_printf(b, " =%llu", (unsigned long long)n->ival);
	if (node_class(n->kind) == NODE_FULL && n->inst_of)
		buf_printf(b, " instance-of %s", n->inst_of->name ? n->inst_of->name : "?");
}

/* put_sema's part for operators, calls and casts. */
static void put_sema_op(Buf *b, const Node *n)
{
	if (n->call_kind != CALL_UNRESOLVED && n->call_kind <= CALL_CTOR)
		buf_printf(b, " call=%s", call_kinds[n->call_kind]);
	if (n->builtin > 0 && n->builtin < BI_COUNT_) {
		buf_printf(b, " builtin=%s", builtin_ids[n->builtin]);
		if (n->kind == ND_CALL && n->op == 1)
			buf_puts(b, " SAT");   /* the saturation flag, folded into op */
	}
	if (n->member > MB_NONE_ && n->member < MB_COUNT_)
		buf_printf(b, " member=%s", member_names[n->member]);
	if (n->ncargs > 0) {
		buf_puts(b, " cargs=[");
		for (int i = 0; i < n->ncargs && i < 4; i++)
			buf_printf(b, i ? ",%d" : "%d", n->cargs[i]);
		buf_putc(b, ']');
	}
	if (n->targ_type)
		buf_printf(b, " targ=%s", ty_str(n->targ_type));
}

static void dump_node(Buf *b, const Node *n, int depth, const char *role);

static void dump_list(Buf *b, const NodeList *l, int depth, const char *role)
{
	for (int i = 0; i < l->len; i++) {
		if (l->data[i]) {
			dump_node(b, l->data[i], depth, role);
			continue;
		}
		for (int k = 0; k < depth; k++)   /* an omitted array size */
			buf_puts(b, "  ");
		buf_printf(b, "%s%s(none)\n", role ? role : "", role ? ": " : "");
	}
}

/* Lists that are a node's whole content print without a role. */
static bool is_container(NodeKind k)
{
	return k == ND_UNIT || k == ND_BLOCK || k == ND_NAMESPACE || k == ND_INIT_LIST ||
	       k == ND_STRUCT_DECL || k == ND_ENUM_DECL || k == ND_DECL_STMT;
}

/* The children in a fixed order; a leaf or operator node has no child in
 * the fields only NODE_FULL nodes have. */
static void dump_children(Buf *b, const Node *n, int d)
{
	bool full = node_class(n->kind) == NODE_FULL;
	if (node_class(n->kind) != NODE_BASIC && n->ts && n->ts->def)
		dump_node(b, n->ts->def, d, "def");
	if (full) {
		dump_node(b, n->ds_arg, d, "declspec");
		if (n->kind == ND_FOR)
			dump_node(b, n->init, d, "init");
		dump_node(b, n->cond, d, "cond");
	}
	dump_node(b, n->lhs, d, n->kind == ND_CASE ? "value" : "lhs");
	dump_node(b, n->rhs, d, "rhs");
	if (full) {
		dump_node(b, n->then, d, "then");
		dump_node(b, n->els, d, "else");
		if (n->kind != ND_FOR)
			dump_node(b, n->init, d, "init");
		dump_node(b, n->inc, d, "inc");
		dump_list(b, &n->params, d, "param");
		dump_list(b, &n->args2, d, "dim");
	}
	if (node_class(n->kind) == NODE_BASIC ||
	    (n->kind == ND_CAST && n->args.len == 1 && n->args.data[0] == n->lhs))
		return;   /* no list; sema's cast: lhs is args[0] */
	dump_list(b, &n->args, d, is_container(n->kind) ? NULL
	          : n->kind == ND_VAR_DECL ? "ctor-arg" : "arg");
	if (full)
		dump_node(b, n->body, d, "body");
}

static void dump_node(Buf *b, const Node *n, int depth, const char *role)
{
	if (!n)
		return;
	for (int i = 0; i < depth; i++)
		buf_puts(b, "  ");
	if (role)
		buf_printf(b, "%s: ", role);
	buf_puts(b, n->kind < ND_COUNT_ ? node_kind_names[n->kind] : "?");
	put_syntax(b, n);
	put_sema(b, n);
	buf_putc(b, '\n');
	dump_children(b, n, depth + 1);
}

/* Declarations from the built-in headers (files named "<cm/cm.h>", ...)
 * are the same in every dump; they are left out. */
static bool from_builtin_header(const Node *n)
{
	const SrcFile *f = src_get(n->loc.file);
	return f && f->name && f->name[0] == '<';
}

void ast_dump(const Node *unit, Buf *out)
{
	if (!unit)
		return;
	if (unit->kind != ND_UNIT) {
		dump_node(out, unit, 0, NULL);
		return;
	}
	buf_puts(out, "UNIT\n");
	for (int i = 0; i < unit->args.len; i++)
		if (!from_builtin_header(unit->args.data[i]))
			dump_node(out, unit->args.data[i], 1, NULL);
}
