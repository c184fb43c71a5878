# src/front, in pipeline order.  Owners keep their files compiling.
FRONT_SRC += src/front/lex.c src/front/pp.c src/front/pp_expr.c \
             src/front/ast.c src/front/parse.c src/front/parse_expr.c src/front/parse_type.c src/front/parse_decl.c src/front/parse_stmt.c \
             src/front/type.c src/front/sema.c src/front/sema_decl.c src/front/sema_template.c src/front/sema_stmt.c src/front/sema_expr.c \
             src/front/sema_cm.c src/front/sema_builtin.c src/front/dump.c \
             src/front/front.c

# The built-in headers include/cm/*.h, embedded as C by tools/embed.sh
# (rule in the Makefile).
CM_HEADERS := include/cm/cm.h include/cm/cmtl.h
GEN_OBJ += $(BUILD)/gen/cm_headers.o
