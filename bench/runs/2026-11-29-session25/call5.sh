#!/bin/sh
# Session 25, call 5: the rest of the GPU verification, two jobs at once:
# the execution tests' checking-mode pass (-fbounds-check) on the GPU, and
# the suites that launch kernels (bench cmrt examples python rt) with
# CMETAL_DEVICE=cuda, one after another.
O=$1
make -j16 >/dev/null 2>&1 || echo "build failed"
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
( CMETAL_DEVICE=cuda CMETAL_EXEC_OPTIONS=-fbounds-check timeout 330 sh tests/exec/run.sh build > $O/exec-checked.txt 2>&1
  echo "exec-checked rc=$? $(date -u +%H:%M:%S) $(grep -c '^ok' $O/exec-checked.txt) ok $(grep -c '^FAIL' $O/exec-checked.txt) FAIL" >> $O/info.txt ) &
( CMETAL_DEVICE=cuda TEST_SUITES="rt cmrt examples python bench" timeout 330 sh tests/run.sh build > $O/suites.txt 2>&1
  echo "suites rc=$? $(date -u +%H:%M:%S)" >> $O/info.txt ) &
wait
cat $O/info.txt
grep "^\[suite\]\|passed" $O/suites.txt
grep -A4 "^FAIL" $O/suites.txt $O/exec-checked.txt | head -40
