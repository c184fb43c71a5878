#!/bin/sh
# Session 22, call 1: the GPU test job on main as it stands (tests/gpu/run_all.sh:
# make test with CMETAL_DEVICE=cuda, the exec suite per layout mode, the
# microbenchmarks), then the hgemm and dgemm rows re-timed (two rounds,
# bench/ab.sh) since the bench wraps half matrices as 4-byte pixels.
O=$1
H=$(cd "$(dirname "$0")" && pwd)
mkdir -p $O/gpu
OUT=$O/gpu timeout 420 sh tests/gpu/run_all.sh > $O/run_all.txt 2>&1
echo "run_all rc=$? $(date -u +%H:%M:%S)" >> $O/run_all.txt
timeout 150 sh bench/ab.sh $O $H hg > $O/ab-out.txt 2>&1
echo "ab rc=$? $(date -u +%H:%M:%S)" >> $O/ab-out.txt
