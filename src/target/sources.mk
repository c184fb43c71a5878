# source list of src/target (explicit)
TARGET_SRC += src/target/compile.c src/target/ir/ir.c src/target/c/emit.c
