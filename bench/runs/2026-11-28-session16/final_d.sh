#!/bin/sh
# Session 16, last call, H100: (1) hgemm with B fragments gathered from
# SLM as one ld.shared.v2 per lane (mem.c gather_run, dpas.c kperm for
# gathered operands) against the library before it (build-base, carried),
# the kernel unchanged, interleaved, two rounds; (2) run_all.sh on the
# final tree.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
make -C bench cm BUILD=build-base CMETAL_LIB=../build-base/libcmetal.a -j16 >/dev/null 2>&1 ||
	{ echo "bench base failed"; exit 1; }
cd bench
export BENCH_REPS=9
for r in 1 2; do
	timeout 60 build/cmbench -d cuda -s full -w hgemm > $O/new$r.csv 2>&1
	timeout 60 build-base/cmbench -d cuda -s full -w hgemm > $O/base$r.csv 2>&1
done
cd ..
grep -h "cm-slm\|cm-bt" $O/new1.csv $O/base1.csv $O/new2.csv $O/base2.csv | cut -d, -f4,5,8
mkdir -p $O/ra
OUT=$O/ra timeout 400 sh tests/gpu/run_all.sh > $O/run_all.log 2>&1
sed -n 1,12p $O/run_all.log
rm -f $O/ra/*.cubin $O/ra/*.ptx $O/ra/*.sass $O/ra/exec-*.log $O/ra/test.log
