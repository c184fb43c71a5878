#!/bin/sh
# Session 23, call 3 (cm_wgmma_async / cm_wgmma_wait, hgemm_wgs2 with
# split roles and asynchronous wgmmas): the wgmma exec tests on the GPU
# (wgmma_async: a chain in flight over a loop's edge, the waits the PTX
# back end adds), ncu of hgemm_wgs2, then two interleaved rounds of
# hgemm_wgp2 against hgemm_wgs2, hgemm_wgs2 synchronous (WS_ASYNC=0) and
# with 3 stages (bench/ab.sh).
O=$1
H=$(cd "$(dirname "$0")" && pwd)
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || echo "bench cm failed"
CMETAL_DEVICE=cuda timeout 150 sh tests/exec/run.sh build wgmma_sw128 wgmma_async wgmma_pair \
	wgmma_n8 wgmma_n32 wgmma_n56 slm_copy hgemm_wg hgemm_wga hgemm_wgp2 hgemm_wgs2 > $O/exec.txt 2>&1
echo "exec rc=$? $(date -u +%H:%M:%S)" >> $O/exec.txt
cat $O/exec.txt
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy"
( cd bench && CMB_IMPLS=cm-wgs2 BENCH_REPS=1 timeout 200 ncu --clock-control none -k regex:'^hgemm_wgs2' -c 1 $S build/cmbench -d cuda -s full -w hgemm -z 8192^3 > $O/ncu-wgs2.txt 2>&1 )
echo "ncu rc=$? $(date -u +%H:%M:%S)" >> $O/exec.txt
AB_TIMEOUT=150 timeout 280 sh bench/ab.sh $O $H "async" > $O/ab-out.txt 2>&1
echo "ab rc=$? $(date -u +%H:%M:%S)" >> $O/ab-out.txt
cat $O/ab-out.txt | head -20
grep -E "Duration|Throughput|Busy|Hit Rate|stalled|Warp Cycles|Eligible|Issued" $O/ncu-wgs2.txt | head -30
