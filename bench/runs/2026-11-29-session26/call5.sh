#!/bin/sh
# Session 26, call 5: the GPU exec tests of this session's paths (the
# outer loops versioned block by block, the block joins, the 8- and
# 4-byte copies, dgemm_async); then sgemm (gemm.cm, unchanged) at 4096^3
# with the compiler of 3ea1168 (base.tar.gz, untracked, carried: before
# the sgemm-outer merge) against this tree's, two interleaved rounds.
O=$1
R=$(pwd)
tar -C /tmp -xzf bench/runs/2026-11-29-session26/base.tar.gz
( make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) &
( cd /tmp/base && make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) &
wait
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
CMETAL_DEVICE=cuda timeout 110 sh tests/exec/run.sh build vloop_outer vloop_gathers vloop_rows vloop_cols \
	vloop_tail vloop_ahead vloop_slm_rows vloop_slm_extracts sgemm_slm sgemm_slm_async dgemm_async \
	dgemm_async64 slm_copy8 slm_copy4 offset_wrap straddle_end block_groups lane_limits \
	unrolled_loops scan_tiles_tails histogram_tails > $O/exec.txt 2>&1
echo "exec rc=$? $(date -u +%H:%M:%S)" >> $O/exec.txt
cat $O/exec.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
one() {	# one TREE NAME
	t=$1 name=$2
	( cd $t/bench && CMB_IMPLS=cm:cm-paper CMBENCH_OPTS="$D" CMETAL_LOG=1 timeout 60 \
		build/cmbench -d cuda -s full -w sgemm -z 4096^3 2>>$O/log.txt |
		grep -v "^#\|^workload" | sed "s/^/$name /" >> $O/ab.txt )
}
for round in 1 2; do
	one $R sg
	one /tmp/base sg-base
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
cat $O/info.txt
cut -d, -f1-2,4-5,8 $O/ab.txt
