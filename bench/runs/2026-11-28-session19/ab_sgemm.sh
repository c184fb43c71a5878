#!/bin/sh
# Session 19: sgemm (bench/cm/gemm.cm, row cm of workload sgemm).
#   old      the kernel before this session (gemm_old.cm, built by this
#            compiler and loaded with CMB_LOAD_gemm)
#   ku1      the new kernel: lane l owns columns 4 l .. 4 l + 3, so a row
#            of B's SLM tile is one ld.shared.v4 a lane (bwide.c's SLM
#            wide loads), kk loop as before (KU=1)
#   ku1nw    the same with -fno-wide-loads (the compiler change alone)
#   ku2/ku4  the kk loop running 2 / 4 steps a trip (KU)
# CMBENCH_OPTS replaces the default options, which are kept; two
# interleaved rounds at 4096^3 and 8192^3, then cuBLAS on the same card.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
make -C bench -s -j16 cuda >/dev/null 2>&1 || echo "cuda build failed"
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
here=$(pwd)/bench/runs/2026-11-28-session19
build/cmetal -S -t ptx $D $here/gemm_old.cm -o $O/gemm_old.ptx || echo "old ptx failed"
CMETAL_DEVICE=cuda sh tests/exec/run.sh build slm_wide slm_pairs wide_loads > $O/exec.txt 2>&1
cd bench
for round in 1 2; do
	for s in old ku1 "ku1nw -fno-wide-loads" "ku2 -DKU=2" "ku4 -DKU=4"; do
		name=${s%% *}
		defs=$(echo "$s" | sed -n 's/^[a-z0-9]* //p')
		if [ $name = old ]; then
			CMB_LOAD_gemm=$O/gemm_old.ptx CMETAL_LOG=1 timeout 60 build/cmbench -d cuda -s full -w sgemm 2>$O/log-$name.txt |
				grep -v "^#" | sed "s/^/$name /" >> $O/ab.txt
		else
			CMBENCH_OPTS="$D $defs" CMETAL_LOG=1 timeout 60 build/cmbench -d cuda -s full -w sgemm 2>$O/log-$name.txt |
				grep -v "^#" | sed "s/^/$name /" >> $O/ab.txt
		fi
	done
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
timeout 60 build/cudabench -m vendor -s full -w sgemm 2>&1 | grep -v "^#" | sed "s/^/vendor /" >> $O/ab.txt
date -u >> $O/info.txt
rm -f $O/gemm_old.ptx
cut -d, -f1-8 $O/ab.txt
cat $O/exec.txt | tail -5
