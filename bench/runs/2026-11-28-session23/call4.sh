#!/bin/sh
# Session 23, call 4: the whole GPU job on the session's final compiler
# (tests/gpu/run_all.sh: the suites that launch kernels, on the GPU, and
# the exec tests per layout mode), then ncu's per-instruction view of
# hgemm_wgs2 (8192^3, one launch; its stall samples per SASS line, as CSV).
O=$1
OUT=$O timeout 420 sh tests/gpu/run_all.sh > $O/run_all-out.txt 2>&1
echo "run_all rc=$? $(date -u +%H:%M:%S)" >> $O/run_all-out.txt
tail -30 $O/summary.txt
make -C bench cm -j16 >/dev/null 2>&1 || echo "bench cm failed"
( cd bench && CMB_IMPLS=cm-wgs2 BENCH_REPS=1 timeout 150 ncu --clock-control none -k regex:'^hgemm_wgs2' -c 1 --section SourceCounters --section WarpStateStats --page source --print-source sass --csv build/cmbench -d cuda -s full -w hgemm -z 8192^3 > $O/ncu-src.csv 2>&1 )
echo "ncu rc=$? $(date -u +%H:%M:%S)"
gzip $O/ncu-src.csv
