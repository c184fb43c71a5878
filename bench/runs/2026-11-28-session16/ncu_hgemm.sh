#!/bin/sh
# Session 16: where hgemm_slm's time goes (ncu, 8192^3, PF=2, one launch).
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
cd bench
M=gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__warps_eligible.avg.per_cycle_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed
for s in long_scoreboard short_scoreboard barrier mio_throttle math_pipe_throttle wait not_selected dispatch_stall lg_throttle no_instruction selected imc_miss branch_resolving tex_throttle drain membar sleeping misc; do
	M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
export BENCH_REPS=1
ncu --clock-control none -k regex:'^hgemm_slm' -c 1 --metrics $M build/cmbench -d cuda -s full -w hgemm > $O/ncu-hgemm.txt 2>&1
grep -E "hgemm_slm|    [a-z]" $O/ncu-hgemm.txt | tail -40
