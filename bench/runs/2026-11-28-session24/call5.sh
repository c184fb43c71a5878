#!/bin/sh
# Session 24, call 5: dgemm 4096^3 (hgemm.cm's dgemm_dpas and dgemm_slm,
# unchanged kernels) with and without media spans (-fno-media-spans: its
# k-loop path went 114 -> 118 SASS with them), two interleaved rounds.
O=$1
( make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) || echo "build failed"
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
one() {	# one NAME DEFS...
	name=$1
	shift
	( cd bench && CMB_IMPLS=cm-dpas:cm-slm CMBENCH_OPTS="$D $*" timeout 60 \
		build/cmbench -d cuda -s full -w dgemm -z 4096^3 2>>$O/log-$name.txt |
		grep -v "^#\|^workload" | sed "s/^/$name /" >> $O/ab.txt )
}
for round in 1 2; do
	one dg
	one dg-ns -fno-media-spans
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
cut -d, -f1-2,4-5,8 $O/ab.txt
