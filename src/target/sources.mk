# source list of src/target (explicit)
TARGET_SRC += src/target/compile.c src/target/ir/ir.c \
              src/target/c/emit.c src/target/c/ops.c src/target/c/mem.c \
              src/target/c/prelude.c src/target/c/storage.c src/target/c/bale.c \
              src/target/c/direct.c

# cmk_abi.h as a C string for the C back end (pasted into generated code).
# This fragment is included before `all:`, so keep `all` the default goal.
.DEFAULT_GOAL := all
$(BUILD)/gen/cmk_abi.c: src/rt/cmk_abi.h src/target/c/embed_abi.sh
	@mkdir -p $(dir $@)
	sh src/target/c/embed_abi.sh src/rt/cmk_abi.h > $@
GEN_OBJ += $(BUILD)/gen/cmk_abi.o

# the PTX back end (target/ptx/, the PTX engineer's)
TARGET_SRC += src/target/ptx/emit.c src/target/ptx/alu.c src/target/ptx/region.c \
              src/target/ptx/mem.c src/target/ptx/warp.c src/target/ptx/vloop.c src/target/ptx/ptxas.c \
              src/target/ptx/cluster.c src/target/ptx/layout.c \
              src/target/ptx/assign.c src/target/ptx/range.c src/target/ptx/bgroup.c \
              src/target/ptx/slm.c src/target/ptx/dpas.c src/target/ptx/occupancy.c \
              src/target/ptx/analyze.c src/target/ptx/latency.c src/target/ptx/loops.c src/target/ptx/pack.c \
              src/target/ptx/check.c src/target/ptx/blimit.c src/target/ptx/bpair.c src/target/ptx/bwide.c src/target/ptx/mgroup.c \
              src/target/ptx/slmvec.c src/target/ptx/ldsm.c src/target/ptx/want.c src/target/ptx/dpair.c \
              src/target/ptx/divc.c src/target/ptx/phic.c src/target/ptx/aggregate.c src/target/ptx/unroll.c src/target/ptx/gmerge.c src/target/ptx/ifconv.c \
              src/target/ptx/runs.c src/target/ptx/variant.c \
              src/target/ptx/cpasync.c src/target/ptx/wgmma.c
