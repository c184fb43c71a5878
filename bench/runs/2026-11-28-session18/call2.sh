#!/bin/sh
# Session 18, device call 2: radix and transpose A/Bs (ab_radix.sh,
# ab_transpose.sh), each under a time cap.  $1: output directory.
O=$1
H=bench/runs/2026-11-28-session18
mkdir -p $O/radix $O/transpose
timeout 280 sh $H/ab_radix.sh $O/radix > $O/radix/log.txt 2>&1
timeout 280 sh $H/ab_transpose.sh $O/transpose > $O/transpose/log.txt 2>&1
tail -n 40 $O/radix/log.txt; tail -n 40 $O/transpose/log.txt
