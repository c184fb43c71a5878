#!/bin/sh
# Session 19: sgemm's tile and staging shapes (bench/cm/gemm.cm, with the
# SLM wide loads).  NAME SHAPE DEFS: CMB_SGEMM_SHAPE=NW:RT (gemm.c) and
# the same -D values; BR rows of B staged per thread (KT = BR * NW of k
# per step), KU kk steps a trip.  Two interleaved rounds at 4096^3 and
# 8192^3 (the other rows unchanged); CMETAL_LOG notes on registers.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
cd bench
for round in 1 2; do
	while read -r name shape defs; do
		CMB_SGEMM_SHAPE=$shape CMBENCH_OPTS="$D $defs" CMETAL_LOG=1 timeout 60 \
			build/cmbench -d cuda -s full -w sgemm 2>$O/log-$name.txt |
			grep ",cm," | sed "s/^/$name /" >> $O/ab.txt
	done <<'LIST'
br2ku1 8:16 -DBR=2 -DKU=1
br1ku1 8:16 -DBR=1 -DKU=1
br1ku2 8:16 -DBR=1 -DKU=2
r32w4b4 4:32 -DRT=32 -DRTSH=5 -DNW=4 -DBR=4 -DKU=1
r32w4b2 4:32 -DRT=32 -DRTSH=5 -DNW=4 -DBR=2 -DKU=1
r32w8b1 8:32 -DRT=32 -DRTSH=5 -DNW=8 -DBR=1 -DKU=1
r32w4b4k2 4:32 -DRT=32 -DRTSH=5 -DNW=4 -DBR=4 -DKU=2
r32w4b2k2 4:32 -DRT=32 -DRTSH=5 -DNW=4 -DBR=2 -DKU=2
LIST
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
cat $O/ab.txt | cut -d, -f1-6
grep -h "note" $O/log-*.txt | cut -c1-250 | sort -u
