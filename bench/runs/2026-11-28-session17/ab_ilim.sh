#!/bin/sh
# Session 17: compiler A/B on unchanged kernels: gathers, scatters and
# atomics of a surface parameter check their index against a limit
# computed once at the kernel's entry (blimit.c px_index_limit) instead
# of per instruction.  base = build-base/cmbench-base (the compiler of
# f97d072, same kernels); two interleaved rounds.  Result (ab-ilim.txt,
# H200 03:13-03:21 UTC): not kept, see mem.c limit32's comment.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
W=spmv,kmeans,scan-i32,scan-f32,histogram,bitonic
for round in 1 2; do
	build-base/cmbench-base -d cuda -s full -w $W 2>&1 | grep -v "^#" | sed "s/^/base /" >> $O/ab.txt
	bench/build/cmbench -d cuda -s full -w $W 2>&1 | grep -v "^#" | sed "s/^/new /" >> $O/ab.txt
done
date -u >> $O/info.txt
cat $O/ab.txt
