# source list of src/ir (explicit, in pipeline order)
IR_SRC += src/ir/ir.c src/ir/print.c src/ir/parse.c src/ir/verify.c src/ir/lower.c
