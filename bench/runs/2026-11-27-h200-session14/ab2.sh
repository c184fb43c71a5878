#!/bin/sh
# Session 14, second A/B call: radix_hist unrolled (SLM atomics allowed)
# against -fno-unroll-loops, and transpose's group shapes.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
make -C bench -s -j16 cuda >/dev/null 2>&1 || echo "cuda build failed"
cd bench
export BENCH_REPS=15
BASE="-O2 -fno-bounds-check -ffp-contract=fast"
for r in 1 2; do
	timeout 100 build/cmbench -d cuda -s full -w bitonic > $O/radix-on$r.csv 2>&1
	CMBENCH_OPTS="$BASE -fno-unroll-loops" timeout 100 build/cmbench -d cuda -s full -w bitonic > $O/radix-off$r.csv 2>&1
	for g in 4:2 1:1 2:1 4:1 8:1 2:2 8:2 4:4 16:1; do
		echo "# CMB_TRANSPOSE_GROUP=$g" >> $O/transpose$r.csv
		CMB_TRANSPOSE_GROUP=$g timeout 60 build/cmbench -d cuda -s full -w transpose 2>&1 | grep -v "^#" >> $O/transpose$r.csv
	done
	echo "round $r done $(date -u +%H:%M:%S)"
done
timeout 100 build/cudabench -m vendor -s full -w transpose,bitonic > $O/vendor.csv 2>&1
timeout 100 build/cudabench -m simt -s full -w transpose > $O/simt.csv 2>&1
date -u >> $O/vendor.csv
