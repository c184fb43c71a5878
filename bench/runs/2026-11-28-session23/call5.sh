#!/bin/sh
# Session 23, call 5: the suites that launch kernels (make test with
# CMETAL_DEVICE=cuda, as run_all.sh runs them; call4's run_all listed a
# suite that is not one, tests/intel, and ran none of them).
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
CMETAL_DEVICE=cuda TEST_JOBS=8 TEST_SUITES="bench cmrt examples exec gpu python rt" timeout 220 \
	make test > $O/test.log 2>&1
echo "make test rc=$? $(date -u +%H:%M:%S)" >> $O/info.txt
grep "^\[suite\]\|passed,\|^FAIL" $O/test.log | head -40
gzip $O/test.log
