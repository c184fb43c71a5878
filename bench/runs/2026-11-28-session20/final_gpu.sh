#!/bin/sh
# Session 20, final tree: the vendor libraries, the SIMT
# ports and the CM kernels (bench/gpu.sh vendor, simt, cm), full sizes,
# on one machine in one call.  $1: output directory.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
BENCH_TIMEOUT=200 bench/gpu.sh $O vendor full > $O/gpu.log 2>&1
BENCH_TIMEOUT=150 bench/gpu.sh $O simt full >> $O/gpu.log 2>&1
BENCH_TIMEOUT=230 bench/gpu.sh $O cm full >> $O/gpu.log 2>&1
tail -5 $O/gpu.log; ls $O; grep -c ",yes" $O/gpu-cm.csv; grep -v "^#" $O/gpu-cm.csv | grep -v ",yes" | head
