#!/bin/sh
# Session 25, call 4: the final compiler (HEAD) on the GPU: sgemm and
# dgemm, every CM variant and cuBLAS, 4096^3 and 8192^3 (for RESULTS.md),
# then the execution tests on the GPU (default pass).
O=$1
( make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) &
( cd bench && make -s -j8 BUILD=build-gpu cuda >/dev/null 2>&1 ) &
wait
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
( cd bench && timeout 200 build/cmbench -d cuda -s full -w sgemm,dgemm > $O/cm.csv 2>$O/cm.log )
echo "cm rc=$? $(date -u +%H:%M:%S)" >> $O/info.txt
( cd bench && timeout 100 build-gpu/cudabench -m vendor -w sgemm,dgemm -s full > $O/vendor.csv 2>&1 )
echo "vendor rc=$? $(date -u +%H:%M:%S)" >> $O/info.txt
CMETAL_DEVICE=cuda timeout 320 sh tests/exec/run.sh build > $O/exec.txt 2>&1
echo "exec rc=$? $(date -u +%H:%M:%S) $(grep -c '^ok' $O/exec.txt) ok $(grep -c '^FAIL' $O/exec.txt) FAIL" >> $O/info.txt
grep -A5 "^FAIL" $O/exec.txt | head -40
cat $O/info.txt
grep -v "^#" $O/cm.csv | cut -d, -f1-2,4-5,8
grep -v "^#" $O/vendor.csv | cut -d, -f1-2,4-5,8
