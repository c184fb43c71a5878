#!/bin/sh
# Session 23, call 1 (main + branch sgemm3: vloop.c's outer-loop versions,
# runtime gather offsets, range-bounded SLM offsets): cuBLAS sgemm, hgemm
# and dgemm rows, ncu of hgemm_wgp2 (8192^3, one launch: issue, stalls,
# tensor pipe, SLM), then two interleaved rounds of sgemm 4096^3 with
# each of the branch's parts off, and of the hgemm_wg kernels
# (bench/ab.sh).
O=$1
H=$(cd "$(dirname "$0")" && pwd)
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
( cd bench && make -s -j8 BUILD=build-gpu cuda >/dev/null 2>&1 )
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/vendor.csv 2>&1
date -u >> $O/vendor.csv
timeout 60 bench/build-gpu/cudabench -m vendor -w hgemm,sgemm,dgemm -s full >> $O/vendor.csv 2>&1
echo "vendor rc=$?" >> $O/vendor.csv
make -C bench cm -j16 >/dev/null 2>&1 || echo "bench cm failed"
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section Occupancy --section SourceCounters"
( cd bench && CMB_IMPLS=cm-wgp2 BENCH_REPS=1 timeout 220 ncu --clock-control none -k regex:'^hgemm_wgp2' -c 1 $S build/cmbench -d cuda -s full -w hgemm -z 8192^3 > $O/ncu-wgp2.txt 2>&1 )
echo "ncu rc=$? $(date -u +%H:%M:%S)" >> $O/vendor.csv
AB_TIMEOUT=150 timeout 280 sh bench/ab.sh $O $H "sg hg" > $O/ab-out.txt 2>&1
echo "ab rc=$? $(date -u +%H:%M:%S)" >> $O/ab-out.txt
grep -v "^#\|^==PROF" $O/ncu-wgp2.txt | head -150
