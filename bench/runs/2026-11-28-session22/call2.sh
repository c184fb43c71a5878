#!/bin/sh
# Session 22, call 2: loop depths from natural loops (the new default)
# against -fno-exact-loop-depths, two interleaved rounds (bench/ab.sh,
# ab-loops.txt), after the execution tests on the GPU with the new default.
O=$1
H=$(cd "$(dirname "$0")" && pwd)
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
CMETAL_DEVICE=cuda timeout 200 sh tests/exec/run.sh build > $O/exec.log 2>&1
echo "exec rc=$? $(grep -c '^ok' $O/exec.log) ok, $(grep -c '^FAIL' $O/exec.log) FAIL $(date -u +%H:%M:%S)" > $O/exec-summary.txt
grep -A3 '^FAIL' $O/exec.log | head -40 >> $O/exec-summary.txt
gzip $O/exec.log
timeout 300 sh bench/ab.sh $O $H loops > $O/ab-out.txt 2>&1
echo "ab rc=$? $(date -u +%H:%M:%S)" >> $O/ab-out.txt
