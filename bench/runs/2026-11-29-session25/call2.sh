#!/bin/sh
# Session 25, call 2: where sgemm (gemm.cm, 4096^3, the compiler of call
# 1's HEAD) and dgemm_slm (hgemm.cm, 4096^3) spend their time: ncu's
# warp-state and scheduler sections for sgemm with B staged through
# registers (BASYNC=0, the default) and by cp.async (BASYNC=1, slower in
# call 1), per-instruction stall samples of sgemm and dgemm_slm.
O=$1
( make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) || echo "build failed"
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
S="--section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats"
prof() {	# prof NAME IMPL WORKLOAD KREGEX DEFS...
	name=$1 impl=$2 w=$3 k=$4
	shift 4
	( cd bench && CMB_IMPLS=$impl BENCH_REPS=1 CMBENCH_OPTS="$D $*" timeout 120 ncu --clock-control none \
		-k regex:"$k" -c 1 $S build/cmbench -d cuda -s full -w $w -z 4096^3 > $O/ncu-$name.txt 2>&1 )
	echo "$name rc=$? $(date -u +%H:%M:%S)" >> $O/info.txt
}
src() {	# src NAME IMPL WORKLOAD KREGEX DEFS...
	name=$1 impl=$2 w=$3 k=$4
	shift 4
	( cd bench && CMB_IMPLS=$impl BENCH_REPS=1 CMBENCH_OPTS="$D $*" timeout 120 ncu --clock-control none \
		-k regex:"$k" -c 1 --section WarpStateStats --section SourceCounters --page source \
		--print-source sass --csv build/cmbench -d cuda -s full -w $w -z 4096^3 > $O/src-$name.csv 2>&1
	  gzip $O/src-$name.csv )
	echo "src $name rc=$? $(date -u +%H:%M:%S)" >> $O/info.txt
}
prof sg0 cm sgemm '^sgemm$' -DBASYNC=0
prof sg1 cm sgemm '^sgemm$' -DBASYNC=1
prof dslm cm-slm dgemm '^dgemm_slm'
src sg0 cm sgemm '^sgemm$' -DBASYNC=0
src dslm cm-slm dgemm '^dgemm_slm'
cat $O/info.txt
for f in $O/ncu-*.txt; do echo "== $f"; grep -E "Duration|Issue Slots Busy|Issued Ipc|No Eligible|Active Warps Per Scheduler|Eligible Warps|Warp Cycles Per Issued|Stall|Registers Per|Achieved Occupancy|Mem Pipes Busy|L1/TEX Hit|Shared" $f | head -40; done
