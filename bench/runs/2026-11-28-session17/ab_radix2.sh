#!/bin/sh
# Session 17: radix sort A/B 2 (cm-radix rows, all sizes): the tree before
# (build-base/cmbench-base) against early counts (the tile's aggregate
# published before the ranking) with look-back windows LB = 1, 2, 4, 8;
# two interleaved rounds; then ncu of radix_pass (LB = 2) at 2^26.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
run() { # label, then the command
	l=$1; shift
	"$@" -d cuda -s full -w bitonic 2>&1 | grep -E "cm-radix" | sed "s/^/$l /" >> $O/ab.txt
}
for round in 1 2; do
	run base build-base/cmbench-base
	for lb in 1 2 4 8; do
		CMBENCH_OPTS="$D -DLB=$lb" run early-lb$lb bench/build/cmbench
	done
done
cat $O/ab.txt
cd bench
M=gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
export CMBENCH_OPTS="$D -DLB=2"
BENCH_REPS=1 ncu --clock-control none -k regex:'^radix_pass' -c 2 --metrics $M build/cmbench -d cuda -s full -w bitonic -z 2^26 > $O/ncu-radix3.txt 2>&1
grep -E "^  radix|gpu__time|inst_exec|issue_active|warps_active" $O/ncu-radix3.txt
BENCH_REPS=1 ncu --clock-control none -k regex:'^radix_pass' -s 1 -c 1 --section SourceCounters --section WarpStateStats -o $O/rp3 build/cmbench -d cuda -s full -w bitonic -z 2^26 > /dev/null 2>&1
ncu -i $O/rp3.ncu-rep --page source --csv --print-source sass > $O/rp3-sass.csv 2>&1
rm -f $O/rp3.ncu-rep
