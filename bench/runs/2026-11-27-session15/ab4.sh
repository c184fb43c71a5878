#!/bin/sh
# Session 15, fourth call: hgemm_slm ("cm-slm") after gmerge.c (each
# tile's two half gathers as one) beside hgemm_bt ("cm-bt") and cuBLAS.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
make -C bench -s -j16 cuda >/dev/null 2>&1 || echo "cuda build failed"
cd bench
export BENCH_REPS=15
for r in 1 2; do
	timeout 150 build/cmbench -d cuda -s full -w hgemm > $O/hgemm$r.csv 2>&1
	echo "round $r done $(date -u +%H:%M:%S)"
done
timeout 100 build/cudabench -m vendor -s full -w hgemm > $O/vendor.csv 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
