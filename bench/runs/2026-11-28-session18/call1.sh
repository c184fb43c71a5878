#!/bin/sh
# Session 18, device call 1: ldmatrix A/B and dgemm_slm (ab_ldsm.sh,
# ab_dgemm.sh), each under a time cap.  $1: output directory.
O=$1
H=bench/runs/2026-11-28-session18
mkdir -p $O/ldsm $O/dgemm
timeout 200 sh $H/ab_ldsm.sh $O/ldsm > $O/ldsm/log.txt 2>&1
timeout 300 sh $H/ab_dgemm.sh $O/dgemm > $O/dgemm/log.txt 2>&1
tail -n 60 $O/ldsm/log.txt; tail -n 40 $O/dgemm/log.txt
