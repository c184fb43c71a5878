#!/bin/sh
# Session 21, final tree: the vendor libraries, the SIMT ports and the CM
# kernels (bench/gpu.sh vendor, simt, cm), full sizes, on one machine in
# one call; then the A/B lists named in $2 (ab.sh), if any.
# $1: output directory.
set -u
O=$1
H=$(cd "$(dirname "$0")" && pwd)
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
BENCH_TIMEOUT=200 bench/gpu.sh $O vendor full > $O/gpu.log 2>&1
BENCH_TIMEOUT=150 bench/gpu.sh $O simt full >> $O/gpu.log 2>&1
BENCH_TIMEOUT=230 bench/gpu.sh $O cm full >> $O/gpu.log 2>&1
tail -3 $O/gpu.log; grep -c ",yes" $O/gpu-cm.csv; grep -v "^#" $O/gpu-cm.csv | grep -v ",yes" | head
if [ -n "${2:-}" ]; then
	mkdir -p $O/ab && sh "$H/ab.sh" $O/ab "$2" > $O/ab/summary.txt 2>&1
	grep ",cm" $O/ab/ab.txt | cut -d, -f1-2,4-5,8
	# one file back for the A/B (a call returns at most 8)
	tar -C $O -czf /tmp/ab.tar.gz ab && rm -rf $O/ab && mv /tmp/ab.tar.gz $O/
fi
