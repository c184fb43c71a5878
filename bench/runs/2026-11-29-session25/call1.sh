#!/bin/sh
# Session 25, call 1: sgemm (gemm.cm) 4096^3, two interleaved rounds:
# the compiler of 858f58e (base.tar.gz, untracked, carried) against HEAD's
# (SLM block accesses proven inside by value ranges, range.c) on the
# unchanged kernel (-DBASYNC=0: B staged through registers); the kernel's
# new default BASYNC=1 (B staged by cm_slm_copy_async), with KT = 32
# (-DBR=4) and with -fno-slm-ranges; then 8192^3 and cuBLAS at both
# sizes; the GPU exec tests of the changed paths.
O=$1
R=$(pwd)
tar -C /tmp -xzf bench/runs/2026-11-29-session25/base.tar.gz
( make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) &
( cd /tmp/base && make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) &
( cd bench && make -s -j8 BUILD=build-gpu cuda >/dev/null 2>&1 ) &
wait
ls -la bench/build/cmbench /tmp/base/bench/build/cmbench bench/build-gpu/cudabench > $O/info.txt 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv >> $O/info.txt 2>&1; date -u >> $O/info.txt
CMETAL_DEVICE=cuda timeout 150 sh tests/exec/run.sh build sgemm_slm sgemm_slm_regs slm_copy hgemm_wg \
	hgemm_wgs2 dgemm_dpas > $O/exec.txt 2>&1
echo "exec rc=$? $(date -u +%H:%M:%S)" >> $O/exec.txt
cat $O/exec.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
one() {	# one TREE NAME SIZE DEFS...
	t=$1 name=$2 z=$3
	shift 3
	( cd $t/bench && CMB_IMPLS=cm CMBENCH_OPTS="$D $*" CMETAL_LOG=1 timeout 90 \
		build/cmbench -d cuda -s full -w sgemm -z $z 2>>$O/log-$name.txt |
		grep -v "^#\|^workload" | sed "s/^/$name /" >> $O/ab.txt )
}
for round in 1 2; do
	one /tmp/base sg-base 4096^3
	one $R sg-r0 4096^3 -DBASYNC=0
	one $R sg-a1 4096^3
	one $R sg-a1k32 4096^3 -DBR=4
	one $R sg-a1nr 4096^3 -fno-slm-ranges
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
one /tmp/base sg-base 8192^3
one $R sg-a1 8192^3
( cd bench && timeout 120 build-gpu/cudabench -m vendor -w sgemm -s full > $O/vendor.txt 2>&1 )
echo "vendor rc=$? $(date -u +%H:%M:%S)" >> $O/info.txt
cut -d, -f1-2,4-5,8 $O/ab.txt
grep -v "^#" $O/vendor.txt | cut -d, -f1-2,4-5,8
grep -h "registers\|note" $O/log-*.txt | cut -c1-200 | sort | uniq -c | head
