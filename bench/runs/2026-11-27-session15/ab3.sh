#!/bin/sh
# Session 15, third call: the paper spmv (cm-paper) after vloop.c began to
# cover gathers at constant offsets, against the session's start
# (build-base) and against -fno-loop-versions, interleaved.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
make -C bench cm BUILD=build-base CMETAL_LIB=../build-base/libcmetal.a -j16 >/dev/null 2>&1 ||
	{ echo "bench base failed"; exit 1; }
cd bench
export BENCH_REPS=15
BASE="-O2 -fno-bounds-check -ffp-contract=fast"
for r in 1 2 3; do
	timeout 60 build/cmbench -d cuda -s full -w spmv > $O/new$r.csv 2>&1
	timeout 60 build-base/cmbench -d cuda -s full -w spmv > $O/base$r.csv 2>&1
	CMBENCH_OPTS="$BASE -fno-loop-versions" timeout 60 build/cmbench -d cuda -s full -w spmv > $O/novl$r.csv 2>&1
	echo "round $r done $(date -u +%H:%M:%S)"
done
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
