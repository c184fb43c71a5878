#!/bin/sh
# Session 26, call 3: the compiler of 8ca6f5f (base.tar.gz, untracked,
# carried, with this tree's bench/cm) against this tree's (opt/blocks.c
# joins a block with its only-predecessor successor wherever it is laid
# out) on the other kernels whose SASS it changed (sm_90: hgemm_slm64
# 10,298 -> 7,713, hgemm_wgs2's family, scan_tiles 2,057 -> 1,994,
# bitonic_merge 821 -> 929 with a shorter main path), unchanged kernels,
# two interleaved rounds (hgemm one); then where dgemm_async64 spends its
# time (ncu: warp states, per-instruction stall samples).
O=$1
R=$(pwd)
tar -C /tmp -xzf bench/runs/2026-11-29-session26/base.tar.gz
( make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) &
( cd /tmp/base && make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) &
wait
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
one() {	# one TREE NAME WORKLOAD IMPLS SIZES
	t=$1 name=$2 w=$3 impls=$4 z=$5
	( cd $t/bench && CMB_IMPLS=$impls CMBENCH_OPTS="$D" CMETAL_LOG=1 timeout 150 \
		build/cmbench -d cuda -s full -w $w -z $z 2>>$O/log-$name.txt |
		grep -v "^#\|^workload" | sed "s/^/$name /" >> $O/ab.txt )
}
for round in 1 2; do
	one $R sc scan-i32 cm 2^24,2^28
	one /tmp/base sc-base scan-i32 cm 2^24,2^28
	one $R bi bitonic cm 2^26
	one /tmp/base bi-base bitonic cm 2^26
	if [ $round = 1 ]; then
		one $R hg hgemm cm-slm64:cm-wgs2:cm-wga2 8192^3
		one /tmp/base hg-base hgemm cm-slm64:cm-wgs2:cm-wga2 8192^3
	fi
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
( cd bench && CMB_IMPLS=cm-async64 BENCH_REPS=1 CMBENCH_OPTS="$D" timeout 100 ncu --clock-control none \
	-k regex:'^dgemm_async64$' -c 1 --section WarpStateStats --section SchedulerStats \
	--section SourceCounters --section MemoryWorkloadAnalysis --page source --print-source sass --csv \
	build/cmbench -d cuda -s full -w dgemm -z 4096^3 > $O/src-da64.csv 2>&1; gzip $O/src-da64.csv )
( cd bench && CMB_IMPLS=cm-async64 BENCH_REPS=1 CMBENCH_OPTS="$D" timeout 100 ncu --clock-control none \
	-k regex:'^dgemm_async64$' -c 1 --section WarpStateStats --section SchedulerStats \
	--section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
	build/cmbench -d cuda -s full -w dgemm -z 4096^3 > $O/ncu-da64.txt 2>&1 )
echo "ncu rc=$? $(date -u +%H:%M:%S)" >> $O/info.txt
cat $O/info.txt
cut -d, -f1-2,4-5,8 $O/ab.txt
grep -E "Duration|Issue Slots Busy|No Eligible|Active Warps Per Scheduler|Eligible Warps|Warp Cycles Per Issued|Stall|Mem Pipes Busy|Shared|L2|Pipe" $O/ncu-da64.txt | head -40
