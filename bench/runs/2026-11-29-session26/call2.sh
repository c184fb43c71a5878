#!/bin/sh
# Session 26, call 2: dgemm_async (4 x 4 threads, 32 x 32 of C each) and
# dgemm_async64 (4 x 2 threads, 64 x 32 each) at 4096^3 in their shapes
# (AST stages of AKS k steps of 4; the default now AST = 2, AKS = 4), two
# interleaved rounds, then the best at 8192^3 and cuBLAS (sgemm, dgemm) in
# the same call; then the GPU exec tests of the new kernel.
O=$1
( make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) &
( cd bench && make -s -j8 BUILD=build-gpu cuda >/dev/null 2>&1 ) &
wait
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
CMETAL_DEVICE=cuda timeout 100 sh tests/exec/run.sh build dgemm_async dgemm_async64 dgemm_async_shapes \
	> $O/exec.txt 2>&1
echo "exec rc=$? $(date -u +%H:%M:%S)" >> $O/exec.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
one() {	# one NAME WORKLOAD IMPLS SIZE DEFS...
	name=$1 w=$2 impls=$3 z=$4
	shift 4
	( cd bench && CMB_IMPLS=$impls CMBENCH_OPTS="$D $*" CMETAL_LOG=1 timeout 100 \
		build/cmbench -d cuda -s full -w $w -z $z 2>>$O/log-$name.txt |
		grep -v "^#\|^workload" | sed "s/^/$name /" >> $O/ab.txt )
}
for round in 1 2; do
	one d24 dgemm cm-async:cm-async64 4096^3
	one d28 dgemm cm-async:cm-async64 4096^3 -DAKS=8
	one d44 dgemm cm-async:cm-async64 4096^3 -DAST=4
	one d42 dgemm cm-async64 4096^3 -DAST=4 -DAKS=2
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
one d24 dgemm cm-async:cm-async64:cm-slm 8192^3
( cd bench && timeout 120 build-gpu/cudabench -m vendor -w dgemm,sgemm -s full > $O/vendor.txt 2>&1 )
echo "vendor rc=$? $(date -u +%H:%M:%S)" >> $O/info.txt
cat $O/exec.txt $O/info.txt
cut -d, -f1-2,4-5,8 $O/ab.txt
grep -v "^#" $O/vendor.txt | cut -d, -f1-2,4-5,8
grep -h "registers\|note\|spill" $O/log-*.txt | cut -c1-200 | sort | uniq -c | head -20
