#!/bin/sh
# Session 25, call 3: the joined 2^32 wrap guard of block accesses (the
# default of HEAD: one predicate joined to each bounds compare, ptx/mem.c
# no_wrap_limit) against -fno-wrap-join (the setp + selp form), same
# compiler, unchanged kernels, every workload with a CM kernel (two
# interleaved rounds, bench/ab.sh); then the GPU exec tests of the wrap
# and SLM paths.
O=$1
sh bench/ab.sh $O bench/runs/2026-11-29-session25 wrap
CMETAL_DEVICE=cuda timeout 150 sh tests/exec/run.sh build offset_wrap straddle_end shifted_block_reads \
	block_groups lane_limits slm_pairs slm_wide pipelined_wide vloop_rows vloop_tail vloop_slm_rows \
	sgemm_slm sgemm_slm_async wgmma_async > $O/exec.txt 2>&1
echo "exec rc=$? $(date -u +%H:%M:%S)" >> $O/exec.txt
cat $O/exec.txt $O/info.txt
cut -d, -f1-2,4-5,8 $O/ab.txt
