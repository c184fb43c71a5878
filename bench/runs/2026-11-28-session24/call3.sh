#!/bin/sh
# Session 24, call 3: the compiler of 1a046f0 (the whole-element limit at
# the kernel's entry) against the one of call 2 (base.tar.gz: 1a046f0~1,
# carried untracked) on hgemm_wgs2 8192^3 as it was (WG_EPI_BATCH=0), and
# the batched epilogue (WG_EPI_BATCH=1, now the default) on 1a046f0's,
# two interleaved rounds; GPU exec tests of the kernel; ncu per-instruction
# view of the new default.
O=$1
R=$(pwd)
tar -C /tmp -xzf bench/runs/2026-11-28-session24/base.tar.gz
( make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) &
( cd /tmp/base && make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) &
wait
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
CMETAL_DEVICE=cuda timeout 120 sh tests/exec/run.sh build slm_copy hgemm_wgs2 hgemm_wgs2_epi hf_c_edge > $O/exec.txt 2>&1
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
	one $R hg0 -DWG_EPI_BATCH=0
	one /tmp/base hg0-prev -DWG_EPI_BATCH=0
	one $R hg1 -DWG_EPI_BATCH=1
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
cut -d, -f1-2,4-5,8 $O/ab.txt
( cd bench && CMB_IMPLS=cm-wgs2 BENCH_REPS=1 CMBENCH_OPTS="$D" timeout 100 ncu --clock-control none -k regex:'^hgemm_wgs2' -c 1 --section WarpStateStats --section SourceCounters --page source --print-source sass --csv build/cmbench -d cuda -s full -w hgemm -z 8192^3 > $O/ncu-src.csv 2>&1; gzip $O/ncu-src.csv )
echo "ncu rc=$? $(date -u +%H:%M:%S)"
