#!/bin/sh
# A/B of ptx/unroll.c on the GPU: cmbench scan + spmv with and without
# -fno-unroll-loops, interleaved, then the SIMT ports and cuSPARSE.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
make -C bench -s -j16 cuda >/dev/null 2>&1 || echo "cuda build failed"
cd bench
export BENCH_REPS=15
W=${W:-scan-i32,scan-f32,spmv}
BASE="-O2 -fno-bounds-check -ffp-contract=fast"
for r in 1 2; do
	timeout 120 build/cmbench -d cuda -s full -w $W > $O/on$r.csv 2>&1
	CMBENCH_OPTS="$BASE -fno-unroll-loops" timeout 120 build/cmbench -d cuda -s full -w $W > $O/off$r.csv 2>&1
	echo "round $r done $(date -u +%H:%M:%S)"
done
timeout 120 build/cudabench -m simt -s full -w $W > $O/simt.csv 2>&1
timeout 120 build/cudabench -m vendor -s full -w spmv > $O/vendor.csv 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1
date -u >> $O/info.txt
