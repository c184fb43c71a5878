# source list of src/opt (explicit, in pipeline order)
OPT_SRC += src/opt/passes.c src/opt/blocks.c src/opt/fold.c src/opt/branch.c src/opt/region.c src/opt/sr.c src/opt/cse.c src/opt/licm.c src/opt/early.c src/opt/dce.c
