#!/bin/sh
# Session 18: hgemm_slm64 (bench/cm/hgemm.cm, row cm-slm64 of workload
# hgemm: 64 x 64 of C per CM thread, groups of 4 x 2 threads) against
# hgemm_slm (cm-slm, 32 x 32 a thread) and hgemm_bt on the same card, and
# its two staging schedules:
#   top    the default, HTOP=1: a k loop trip of two steps makes all its
#          media reads at its top (one hoisted group a matrix; the step
#          after next is read one step before it is stored)
#   pf2    -DHTOP=0: hgemm_slm's schedule, each step reads the step two
#          ahead (HPF=2; every read branches on the shared box test)
#   pf1    -DHTOP=0 -DHPF=1: reads one step ahead
# SASS per cm_dpas in the k loop (tests/sass, sm_90): top 2.06, pf2 3.23,
# pf1 3.22; hgemm_slm 6.28.  Registers: 248, 246, 234 (no spills).
# CMBENCH_OPTS replaces bench/cm/common.c's default options, which are
# kept ("-O2 -fno-bounds-check -ffp-contract=fast"); it applies to every
# row, so the other rows are the same in all runs.  -s full is 8192^3
# only (the naive cm row takes ~250 ms a run); two interleaved rounds,
# each run capped at 60 s, and no run starts after 170 s so that the whole
# script ends within 4 minutes.  Then the exec tests of the two SLM GEMMs
# on the GPU.  $1: output directory.
set -u
O=$1
D="-O2 -fno-bounds-check -ffp-contract=fast"
start=$(date +%s)
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/hg64-info.txt 2>&1
date -u >> $O/hg64-info.txt
for round in 1 2; do
	for s in top "pf2 -DHTOP=0" "pf1 -DHTOP=0 -DHPF=1"; do
		if [ $(( $(date +%s) - start )) -gt 170 ]; then
			echo "skipped round $round $s: out of time" >> $O/hg64-info.txt
			continue
		fi
		name=${s%% *}
		defs=$(echo "$s" | sed -n 's/^[a-z0-9]* //p')
		CMBENCH_OPTS="$D $defs" timeout 60 bench/build/cmbench -d cuda -s full -w hgemm 2>&1 |
			grep -v "^#" | sed "s/^/$name /" >> $O/ab-hg64.txt
	done
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/hg64-info.txt
done
if [ $(( $(date +%s) - start )) -le 190 ]; then
	cc -std=c11 -D_GNU_SOURCE -O1 -g -Iinclude -o $O/exec tests/exec/*.c build/libcmetal.a \
		-lpthread -ldl -lm 2>/dev/null &&
		CMETAL_EXEC_DIR=$PWD/tests/exec CMETAL_DEVICE=cuda timeout 30 $O/exec hgemm_slm \
			hgemm_slm64 > $O/exec-hg64.txt 2>&1
	rm -f $O/exec
fi
date -u >> $O/hg64-info.txt
cut -d, -f1-8 $O/ab-hg64.txt
cat $O/exec-hg64.txt 2>/dev/null
