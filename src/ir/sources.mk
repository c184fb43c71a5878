# source list of src/ir (explicit, in pipeline order); the lowering is
# every src/ir/lower*.c (lower.c, lower_expr.c, ...).
IR_SRC += src/ir/ir.c src/ir/print.c src/ir/parse.c src/ir/verify.c \
          $(sort $(wildcard src/ir/lower*.c))
