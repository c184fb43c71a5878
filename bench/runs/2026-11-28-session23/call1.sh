#!/bin/sh
# Session 23, call 1 (main + branch sgemm3: vloop.c's outer-loop versions,
# runtime gather offsets, range-bounded SLM offsets): cuBLAS sgemm, hgemm
# and dgemm rows, ncu of hgemm_wgp2 (8192^3, one launch: issue, stalls,
# tensor pipe, SLM), then two interleaved rounds of sgemm 4096^3 with
# each of the branch's parts off, and of the hgemm_wg kernels
# (bench/ab.sh).
O=$1
H=$(cd "$(dirname "$0")" && pwd)
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
( cd bench && make -s -j8 BUILD=build-gpu cuda >/dev/null 2>&1 )
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/vendor.csv 2>&1
date -u >> $O/vendor.csv
timeout 60 bench/build-gpu/cudabench -m vendor -w hgemm,sgemm,dgemm -s full >> $O/vendor.csv 2>&1
echo "vendor rc=$?" >> $O/vendor.csv
M=gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__t_sector_hit_rate.pct,lts__t_bytes.sum.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active
for s in long_scoreboard short_scoreboard barrier mio_throttle math_pipe_throttle wait not_selected dispatch_stall lg_throttle no_instruction selected branch_resolving tex_throttle drain membar sleeping misc; do
	M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
( cd bench && CMB_IMPLS=cm-wgp2 BENCH_REPS=1 timeout 220 ncu --clock-control none -k regex:'^hgemm_wgp2' -c 1 --metrics $M build/cmbench -d cuda -s full -w hgemm -z 8192^3 > $O/ncu-wgp2.txt 2>&1 )
echo "ncu rc=$? $(date -u +%H:%M:%S)" >> $O/vendor.csv
AB_TIMEOUT=150 timeout 280 sh bench/ab.sh $O $H "sg hg" > $O/ab-out.txt 2>&1
echo "ab rc=$? $(date -u +%H:%M:%S)" >> $O/ab-out.txt
grep -E "^  [a-z_]+|    [a-z]" $O/ncu-wgp2.txt | tail -40
