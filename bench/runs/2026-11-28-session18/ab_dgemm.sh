#!/bin/sh
# Session 18: dgemm_slm (bench/cm/hgemm.cm, row cm-slm of workload dgemm)
# against cm-dpas and cuBLAS (cudabench -m vendor, the same card), and
# its staging parameters: DKS k steps of 4 per SLM buffer (one barrier
# per 4 DKS of k) and DPF buffers read ahead.  The settings that fit 128
# registers (a group of 16 warps):
#   default  DKS=2 DPF=1 (8 of k ahead, the fewest SASS per cm_dpas)
#   k4pf2    DKS=1 DPF=2 (8 of k ahead, a barrier per 4 of k)
#   k4pf1    DKS=1 DPF=1 (4 of k ahead)
# CMBENCH_OPTS replaces bench/cm/common.c's default options, which are
# kept ("-O2 -fno-bounds-check -ffp-contract=fast"); it applies to every
# row, so the other rows are the same in all runs.  -s full runs 4096^3
# and 8192^3 (a few seconds a run, each capped at 45 s); two interleaved
# rounds.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
make -C bench -s -j16 cuda >/dev/null 2>&1 || echo "cuda build failed"
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
cd bench
D="-O2 -fno-bounds-check -ffp-contract=fast"
for round in 1 2; do
	for s in default "k4pf2 -DDKS=1 -DDPF=2" "k4pf1 -DDKS=1 -DDPF=1"; do
		name=${s%% *}
		defs=$(echo "$s" | sed -n 's/^[a-z0-9]* //p')
		CMBENCH_OPTS="$D $defs" timeout 45 build/cmbench -d cuda -s full -w dgemm 2>&1 |
			grep -v "^#" | sed "s/^/$name /" >> $O/ab.txt
	done
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
timeout 60 build/cudabench -m vendor -s full -w dgemm 2>&1 | grep -v "^#" | sed "s/^/vendor /" >> $O/ab.txt
date -u >> $O/info.txt
cut -d, -f1-8 $O/ab.txt
