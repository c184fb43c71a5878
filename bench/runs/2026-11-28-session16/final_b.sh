#!/bin/sh
# Session 16, final tree, H100: the CM kernels (bench/gpu.sh cm), full
# sizes, medians of 15 after a checked run.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
bench/gpu.sh $O cm full > $O/gpu-b.log 2>&1
tail -3 $O/gpu-b.log; grep -c ",yes" $O/gpu-cm.csv; grep -v "^#" $O/gpu-cm.csv | grep -v ",yes" | head
