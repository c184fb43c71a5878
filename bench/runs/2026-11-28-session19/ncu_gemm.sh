#!/bin/sh
# Session 19: where sgemm's (KU=1) and dgemm_slm's time goes (ncu, 4096^3,
# one launch each): issue activity, stall reasons, SLM wavefronts and
# bank conflicts.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
cd bench
M=gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__warps_eligible.avg.per_cycle_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed
for s in long_scoreboard short_scoreboard barrier mio_throttle math_pipe_throttle wait not_selected dispatch_stall lg_throttle no_instruction selected branch_resolving tex_throttle drain membar sleeping misc; do
	M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
export BENCH_REPS=1
timeout 120 ncu --clock-control none -k regex:'^sgemm$' -c 1 --metrics $M build/cmbench -d cuda -s full -w sgemm > $O/ncu-sgemm.txt 2>&1
timeout 120 ncu --clock-control none -k regex:'^dgemm_slm$' -c 1 --metrics $M build/cmbench -d cuda -s full -w dgemm > $O/ncu-dgemm.txt 2>&1
grep -E "^  [a-z_]+|    [a-z]" $O/ncu-sgemm.txt | tail -40
grep -E "^  [a-z_]+|    [a-z]" $O/ncu-dgemm.txt | tail -40
