UTIL_SRC += src/util/arena.c src/util/str.c src/util/map.c src/util/diag.c src/util/format.c
