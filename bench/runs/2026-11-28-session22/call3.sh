#!/bin/sh
# Session 22, call 3 (the tree with cm_slm_copy_async, the hgemm_wga/wgp
# kernels and vloop.c's outer-loop versioning): the exec suite on the GPU,
# cuBLAS hgemm and sgemm (cudabench -m vendor), then two interleaved
# rounds of the hgemm rows at 8192^3 and sgemm with and without
# -fno-outer-loop-versions, and bitonic 2^26 (bench/ab.sh, ab-final.txt).
O=$1
H=$(cd "$(dirname "$0")" && pwd)
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
( cd bench && make -s -j8 BUILD=build-gpu cuda >/dev/null 2>&1 ) &
CMETAL_DEVICE=cuda timeout 200 sh tests/exec/run.sh build > $O/exec.log 2>&1
echo "exec rc=$? $(grep -c '^ok' $O/exec.log) ok, $(grep -c '^FAIL' $O/exec.log) FAIL $(date -u +%H:%M:%S)" > $O/exec-summary.txt
grep -A3 '^FAIL' $O/exec.log | head -40 >> $O/exec-summary.txt
gzip $O/exec.log
wait
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/vendor.csv 2>&1
date -u >> $O/vendor.csv
timeout 60 bench/build-gpu/cudabench -m vendor -w hgemm,sgemm -s full >> $O/vendor.csv 2>&1
echo "vendor rc=$?" >> $O/vendor.csv
timeout 300 sh bench/ab.sh $O $H final > $O/ab-out.txt 2>&1
echo "ab rc=$? $(date -u +%H:%M:%S)" >> $O/ab-out.txt
