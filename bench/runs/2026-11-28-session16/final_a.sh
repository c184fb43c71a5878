#!/bin/sh
# Session 16, final tree, H100: the vendor libraries and the SIMT ports
# (bench/gpu.sh vendor, then simt), full sizes.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
bench/gpu.sh $O vendor full > $O/gpu-a.log 2>&1
bench/gpu.sh $O simt full >> $O/gpu-a.log 2>&1
tail -5 $O/gpu-a.log; ls $O
