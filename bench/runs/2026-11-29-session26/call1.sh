#!/bin/sh
# Session 26, call 1: dgemm_async (hgemm.cm: dgemm_slm's product with the
# tiles staged by cm_slm_copy_async, B transposed by 8-byte copies) at
# 4096^3 in its shapes (AST stages of AKS k steps of 4), against
# dgemm_slm and cuBLAS; the compiler of 8ca6f5f (base.tar.gz, untracked,
# carried: with this tree's bench/cm) against this tree's (opt/blocks.c
# merges a block with a successor that is not next in the layout) on
# dgemm_async, dgemm_slm and sgemm, unchanged kernels; two interleaved
# rounds; then the GPU exec tests of the new paths.
O=$1
R=$(pwd)
tar -C /tmp -xzf bench/runs/2026-11-29-session26/base.tar.gz
( make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) &
( cd /tmp/base && make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) &
( cd bench && make -s -j8 BUILD=build-gpu cuda >/dev/null 2>&1 ) &
wait
ls -la bench/build/cmbench /tmp/base/bench/build/cmbench bench/build-gpu/cudabench > $O/info.txt 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv >> $O/info.txt 2>&1; date -u >> $O/info.txt
CMETAL_DEVICE=cuda timeout 120 sh tests/exec/run.sh build dgemm_async dgemm_async_shapes dgemm_slm \
	slm_copy slm_copy8 slm_copy4 sgemm_slm hgemm_wga > $O/exec.txt 2>&1
echo "exec rc=$? $(date -u +%H:%M:%S)" >> $O/exec.txt
cat $O/exec.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
one() {	# one TREE NAME WORKLOAD IMPLS SIZE DEFS...
	t=$1 name=$2 w=$3 impls=$4 z=$5
	shift 5
	( cd $t/bench && CMB_IMPLS=$impls CMBENCH_OPTS="$D $*" CMETAL_LOG=1 timeout 100 \
		build/cmbench -d cuda -s full -w $w -z $z 2>>$O/log-$name.txt |
		grep -v "^#\|^workload" | sed "s/^/$name /" >> $O/ab.txt )
}
for round in 1 2; do
	one $R da dgemm cm-async:cm-slm 4096^3
	one /tmp/base da-base dgemm cm-async:cm-slm 4096^3
	one $R da-s2k4 dgemm cm-async 4096^3 -DAST=2 -DAKS=4
	one $R da-s4k4 dgemm cm-async 4096^3 -DAST=4 -DAKS=4
	one $R da-s8k2 dgemm cm-async 4096^3 -DAST=8 -DAKS=2
	one $R da-s4k1 dgemm cm-async 4096^3 -DAST=4 -DAKS=1
	one $R sg sgemm cm 4096^3
	one /tmp/base sg-base sgemm cm 4096^3
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
( cd bench && timeout 60 build-gpu/cudabench -m vendor -w dgemm,sgemm -s full -z 4096^3 > $O/vendor.txt 2>&1 )
echo "vendor rc=$? $(date -u +%H:%M:%S)" >> $O/info.txt
cat $O/info.txt
cut -d, -f1-2,4-5,8 $O/ab.txt
grep -v "^#" $O/vendor.txt | cut -d, -f1-2,4-5,8
grep -h "registers\|note\|spill" $O/log-*.txt | cut -c1-200 | sort | uniq -c | head -20
