#!/bin/sh
# Session 24, call 2: the compiler of c8e3947 + the cp.async fast path
# (HEAD) against the compiler before both (ff00615, base.tar.gz, an
# untracked archive carried for this call) on the unchanged hgemm_wgs2
# (8192^3), two interleaved rounds; -fno-fragment-media (HEAD less the
# epilogue change) and WG_EPI_BATCH=1 (a kernel knob); the GPU exec tests
# of the changed paths; ncu's per-instruction view of the new default.
O=$1
R=$(pwd)
tar -C /tmp -xzf bench/runs/2026-11-28-session24/base.tar.gz
( make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) &
( cd /tmp/base && make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) &
wait
ls -la bench/build/cmbench /tmp/base/bench/build/cmbench > $O/info.txt 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv >> $O/info.txt 2>&1; date -u >> $O/info.txt
CMETAL_DEVICE=cuda timeout 170 sh tests/exec/run.sh build hf_c_edge hf_media slm_copy hgemm_bt hgemm_slm \
	hgemm_wgs2 hgemm_wgs2_epi hgemm_wgp2 hgemm_wga > $O/exec.txt 2>&1
echo "exec rc=$? $(date -u +%H:%M:%S)" >> $O/exec.txt
cat $O/exec.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
one() {	# one TREE NAME DEFS...
	t=$1 name=$2
	shift 2
	( cd $t/bench && CMB_IMPLS=cm-wgs2 CMBENCH_OPTS="$D $*" CMETAL_LOG=1 timeout 120 \
		build/cmbench -d cuda -s full -w hgemm -z 8192^3 2>>$O/log-$name.txt |
		grep -v "^#\|^workload" | sed "s/^/$name /" >> $O/ab.txt )
}
for round in 1 2; do
	one $R hg
	one /tmp/base hg-base
	one $R hg-nfm -fno-fragment-media
	[ $round = 1 ] && one $R hg-eb -DWG_EPI_BATCH=1
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
cut -d, -f1-2,4-5,8 $O/ab.txt
grep -h "registers\|note" $O/log-*.txt | cut -c1-200 | sort | uniq -c | head
( cd bench && CMB_IMPLS=cm-wgs2 BENCH_REPS=1 CMBENCH_OPTS="$D" timeout 100 ncu --clock-control none -k regex:'^hgemm_wgs2' -c 1 --section WarpStateStats --section SourceCounters --page source --print-source sass --csv build/cmbench -d cuda -s full -w hgemm -z 8192^3 > $O/ncu-src.csv 2>&1; gzip $O/ncu-src.csv )
echo "ncu rc=$? $(date -u +%H:%M:%S)"
