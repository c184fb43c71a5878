#!/bin/sh
# Session 15, first A/B call: SLM accesses and runtime-offset extracts in
# versioned loops (ptx/vloop.c) against the library of the session's start
# (3bc63b6, built on the CPU machine and carried as build-base/libcmetal.a).
# The kernels are unchanged; every row is checked before it is timed.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
make -C bench cm BUILD=build-base CMETAL_LIB=../build-base/libcmetal.a -j16 >/dev/null 2>&1 ||
	{ echo "bench base failed"; exit 1; }
make -C bench -s -j16 cuda >/dev/null 2>&1 || echo "cuda build failed"
cd bench
export BENCH_REPS=15
W=sgemm,kmeans
for r in 1 2; do
	timeout 120 build/cmbench -d cuda -s full -w $W > $O/new$r.csv 2>&1
	timeout 120 build-base/cmbench -d cuda -s full -w $W > $O/base$r.csv 2>&1
	echo "round $r done $(date -u +%H:%M:%S)"
done
timeout 100 build/cudabench -m simt -s full -w $W > $O/simt.csv 2>&1
timeout 60 build/cudabench -m vendor -s full -w sgemm > $O/vendor.csv 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
