#!/bin/sh
# Session 16, hgemm_slm's read-ahead: PF=2 (the tiles of step k + 32 read
# while step k multiplies) against PF=1 (k + 16, the kernel as it was),
# one compiler, interleaved, two rounds, 8192^3; cuBLAS beside.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
make -C bench -s -j16 cuda >/dev/null 2>&1 || echo "cuda build failed"
cd bench
export BENCH_REPS=15
B="-O2 -fno-bounds-check -ffp-contract=fast"
for r in 1 2; do
	CMBENCH_OPTS="$B -DPF=2" timeout 200 build/cmbench -d cuda -s full -w hgemm > $O/pf2-$r.csv 2>&1
	CMBENCH_OPTS="$B -DPF=1" timeout 200 build/cmbench -d cuda -s full -w hgemm > $O/pf1-$r.csv 2>&1
	echo "round $r done $(date -u +%H:%M:%S)"
done
timeout 60 build/cudabench -m vendor -s full -w hgemm > $O/vendor.csv 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
grep -h "hgemm" $O/*.csv | grep -v "^#" | cut -d, -f1-8
