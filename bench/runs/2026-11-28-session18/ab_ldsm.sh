#!/bin/sh
# Session 18: compiler A/B on unchanged kernels: SLM gathers into mma
# fragments as ldmatrix (ptx/ldsm.c, the default) against one ld.shared
# per fragment register (-fno-ldmatrix), same compiler and kernels, two
# interleaved rounds of the hgemm workload (full sizes); then the exec
# tests of the tensor-core kernels on the GPU.  $1: output directory.
set -u
O=$1
D="-O2 -fno-bounds-check -ffp-contract=fast"
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/ldsm-info.txt 2>&1; date -u >> $O/ldsm-info.txt
for round in 1 2; do
	bench/build/cmbench -d cuda -s full -w hgemm 2>&1 | grep -v "^#" | sed "s/^/ldsm /" >> $O/ab-ldsm.txt
	CMBENCH_OPTS="$D -fno-ldmatrix" bench/build/cmbench -d cuda -s full -w hgemm 2>&1 | grep -v "^#" | sed "s/^/noldsm /" >> $O/ab-ldsm.txt
done
date -u >> $O/ldsm-info.txt
cc -std=c11 -D_GNU_SOURCE -O1 -g -Iinclude -o $O/exec tests/exec/*.c build/libcmetal.a -lpthread -ldl -lm 2>/dev/null
CMETAL_EXEC_DIR=$PWD/tests/exec CMETAL_DEVICE=cuda $O/exec hf_r8 hf_r3 hf_e16 bf_r8 tf32_r4 s8_r8 u8s8_r1 u8_r5 df_r8 df_r1 hf_pair tf32_pair s8_pair df_pair hf_slm hgemm hf_media hgemm_bt hgemm_slm dgemm_dpas > $O/exec-ldsm.txt 2>&1
rm -f $O/exec
cat $O/ab-ldsm.txt $O/exec-ldsm.txt
