#!/bin/sh
# Session 24, call 4 (the session's final compiler): hgemm_wgs2 8192^3
# with its epilogue tile by tile (WG_EPI_BATCH=0, the default) or batched,
# each with and without media spans (-fno-media-spans), two interleaved
# rounds; then the exec suite on the GPU (every kernel, default layout,
# and the -fbounds-check pass).
O=$1
( make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) || echo "build failed"
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
one() {	# one NAME DEFS...
	name=$1
	shift
	( cd bench && CMB_IMPLS=cm-wgs2 CMBENCH_OPTS="$D $*" CMETAL_LOG=1 timeout 100 \
		build/cmbench -d cuda -s full -w hgemm -z 8192^3 2>>$O/log-$name.txt |
		grep -v "^#\|^workload" | sed "s/^/$name /" >> $O/ab.txt )
}
for round in 1 2; do
	one hg0
	one hg1 -DWG_EPI_BATCH=1
	one hg1-ns -fno-media-spans -DWG_EPI_BATCH=1
	one hg0-ns -fno-media-spans
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
cut -d, -f1-2,4-5,8 $O/ab.txt
grep -h "registers\|note" $O/log-*.txt | cut -c1-300 | sort | uniq -c | head -8
CMETAL_DEVICE=cuda timeout 290 sh tests/exec/run.sh build > $O/exec.txt 2>&1
echo "exec rc=$? $(date -u +%H:%M:%S)" >> $O/exec.txt
grep -c "^ok" $O/exec.txt; grep -v "^ok" $O/exec.txt | head -30
