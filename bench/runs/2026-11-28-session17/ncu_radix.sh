#!/bin/sh
# Session 17: where radix_pass's time goes (ncu, 2^26 keys, the four passes
# of one sort; then one pass with per-instruction stall samples), with the
# CM and CUB timings of the same machine.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
make -C bench -s -j16 cuda >/dev/null 2>&1 || echo "cuda build failed"
cd bench
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
build/cmbench -d cuda -s full -w bitonic 2>&1 | grep -E "radix|^#" > $O/times.csv
build/cudabench -m vendor -s full -w bitonic 2>&1 | grep -E "cub" >> $O/times.csv
cat $O/times.csv
M=gpu__time_duration.sum,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__warps_eligible.avg.per_cycle_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__t_sectors_srcunit_tex_op_atom.sum
for s in long_scoreboard short_scoreboard barrier mio_throttle math_pipe_throttle wait not_selected dispatch_stall lg_throttle no_instruction selected branch_resolving drain membar sleeping misc; do
	M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
export BENCH_REPS=1
ncu --clock-control none -k regex:'^radix' -c 6 --metrics $M build/cmbench -d cuda -s full -w bitonic -z 2^26 > $O/ncu-radix.txt 2>&1
grep -E "radix_|    [a-z]" $O/ncu-radix.txt | head -150
ncu --clock-control none -k regex:'^radix_pass' -s 1 -c 1 --section SourceCounters --section WarpStateStats -o $O/rp build/cmbench -d cuda -s full -w bitonic -z 2^26 > $O/ncu-src-log.txt 2>&1
ncu -i $O/rp.ncu-rep --page source --csv --print-source sass > $O/rp-sass.csv 2>&1
wc -l $O/rp-sass.csv; head -3 $O/rp-sass.csv
