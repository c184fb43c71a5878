#!/bin/sh
# Session 14, fourth A/B call: unrolling up to 8 iterations a trip (the
# default build) against a library built with -DUNROLL_MAX=4.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
make -j16 BUILD=build-u4 CFLAGS="-O2 -g -DUNROLL_MAX=4" >/dev/null 2>&1 || { echo "make u4 failed"; exit 1; }
make -C bench cm BUILD=build-u4 CMETAL_LIB=../build-u4/libcmetal.a -j16 >/dev/null 2>&1 || { echo "bench u4 failed"; exit 1; }
cd bench
export BENCH_REPS=15
W=scan-i32,scan-f32,histogram,bitonic
for r in 1 2; do
	timeout 100 build/cmbench -d cuda -s full -w $W > $O/u8-$r.csv 2>&1
	timeout 100 build-u4/cmbench -d cuda -s full -w $W > $O/u4-$r.csv 2>&1
	echo "round $r done $(date -u +%H:%M:%S)"
done
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
