#!/bin/sh
# Session 14, third A/B call: ptx/ifconv.c (-fno-speculate-reads), spmv
# and k-means, interleaved.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
make -C bench -s -j16 cuda >/dev/null 2>&1 || echo "cuda build failed"
cd bench
export BENCH_REPS=15
BASE="-O2 -fno-bounds-check -ffp-contract=fast"
for r in 1 2; do
	timeout 100 build/cmbench -d cuda -s full -w spmv > $O/spec-on$r.csv 2>&1
	CMBENCH_OPTS="$BASE -fno-speculate-reads" timeout 100 build/cmbench -d cuda -s full -w spmv > $O/spec-off$r.csv 2>&1
	echo "round $r done $(date -u +%H:%M:%S)"
done
timeout 100 build/cmbench -d cuda -s full -w kmeans -z 2^22-D4-K16-iter,2^22-D16-K64-iter > $O/km-on.csv 2>&1
CMBENCH_OPTS="$BASE -fno-speculate-reads" timeout 100 build/cmbench -d cuda -s full -w kmeans -z 2^22-D4-K16-iter,2^22-D16-K64-iter > $O/km-off.csv 2>&1
timeout 100 build/cudabench -m simt -s full -w spmv > $O/simt.csv 2>&1
timeout 100 build/cudabench -m vendor -s full -w spmv > $O/vendor.csv 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
