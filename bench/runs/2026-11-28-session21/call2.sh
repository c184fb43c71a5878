#!/bin/sh
# Session 21, second device call: cm_wgmma and the media reads' narrow
# entries on the GPU (their exec tests, plain and -fbounds-check), then the
# whole exec suite on the GPU (the merged compiler changes: vloop's test
# folding, variant.c, SLM over 48 KB, assign.c's loop-exit conversions),
# then hgemm with hgemm_wg (ab-hgemm.txt) and scan at 2^24 with 21 runs a
# row, CM and CUB.  Writes into $1.
set -u
O=$1
H=$(cd "$(dirname "$0")" && pwd)
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm cuda -j16 >/dev/null 2>&1 || { echo "bench build failed"; exit 1; }
T="slm_big wgmma_n8 wgmma_n32 wgmma_n56 wgmma_pair hgemm_wg media_pixels"
# shellcheck disable=SC2086
CMETAL_DEVICE=cuda timeout 120 sh tests/exec/run.sh build $T > $O/exec-new.txt 2>&1
# shellcheck disable=SC2086
CMETAL_DEVICE=cuda CMETAL_EXEC_OPTIONS=-fbounds-check timeout 120 sh tests/exec/run.sh build $T \
	>> $O/exec-new.txt 2>&1
grep -c "^ok" $O/exec-new.txt; grep -A4 "^FAIL" $O/exec-new.txt | head -40
CMETAL_DEVICE=cuda timeout 240 sh tests/exec/run.sh build > $O/exec-all.txt 2>&1
echo "exec on cuda: $(grep -c '^ok' $O/exec-all.txt) ok, $(grep -c '^FAIL' $O/exec-all.txt) FAIL"
grep -A4 "^FAIL" $O/exec-all.txt | head -40
sh "$H/ab.sh" $O hgemm > $O/ab-summary.txt 2>&1
grep ",cm" $O/ab.txt | cut -d, -f1-2,4-5,8
cd bench
BENCH_REPS=21 build/cudabench -w scan-i32,scan-f32 -s full -m vendor 2>/dev/null | grep "2^24" > $O/scan21.csv
for r in 1 2; do
	BENCH_REPS=21 CMBENCH_OPTS="-O2 -fno-bounds-check -ffp-contract=fast" build/cmbench -d cuda \
		-s full -w scan-i32,scan-f32 -z 2^24 2>/dev/null | grep "2^24" >> $O/scan21.csv
done
cat $O/scan21.csv
