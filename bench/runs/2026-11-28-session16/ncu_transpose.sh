#!/bin/sh
# Session 16: where the transpose rows' time goes (ncu, 8192^2): CM's
# transpose and transpose_paper, the SIMT port and cuBLAS geam, first
# timed launch of each, clocks left alone.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
make -C bench -s -j16 cuda >/dev/null 2>&1 || echo "cuda build failed"
cd bench
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__warps_eligible.avg.per_cycle_active,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,sm__maximum_warps_per_active_cycle_pct
export BENCH_REPS=3
ncu --clock-control none -k regex:'^transpose' -c 20 --metrics $M build/cmbench -d cuda -s full -w transpose -z 8192^2 > $O/ncu-cm.txt 2>&1
ncu --clock-control none -k regex:'transpose|geam' -c 40 --metrics $M build/cudabench -m all -s full -w transpose > $O/ncu-simt.txt 2>&1
tail -c 300 $O/ncu-simt.txt
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
