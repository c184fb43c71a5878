#!/bin/sh
# Session 26, call 4: dgemm_async and dgemm_async64 with their groups
# walking down bands of ASW tile rows (hgemm.cm da_tile: A's and B's tiles
# of a wave shared through the L2) against the plain order (ASW = 0), two
# interleaved rounds at 4096^3, one at 8192^3; then ncu's warp states of
# dgemm_async64 (printed: call 3's files did not come back).
O=$1
( make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) || echo "build failed"
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
one() {	# one NAME SIZE DEFS...
	name=$1 z=$2
	shift 2
	( cd bench && CMB_IMPLS=cm-async:cm-async64 CMBENCH_OPTS="$D $*" CMETAL_LOG=1 timeout 100 \
		build/cmbench -d cuda -s full -w dgemm -z $z 2>>$O/log.txt |
		grep -v "^#\|^workload" | sed "s/^/$name /" >> $O/ab.txt )
}
for round in 1 2; do
	one sw0 4096^3
	one sw8 4096^3 -DASW=8
	one sw4 4096^3 -DASW=4
	one sw16 4096^3 -DASW=16
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
one sw0 8192^3
one sw8 8192^3 -DASW=8
one sw16 8192^3 -DASW=16
echo "timed $(date -u +%H:%M:%S)" >> $O/info.txt
( cd bench && CMB_IMPLS=cm-async64 BENCH_REPS=1 CMBENCH_OPTS="$D" timeout 100 ncu --clock-control none \
	-k regex:'^dgemm_async64$' -c 1 --section WarpStateStats --section SchedulerStats \
	--section MemoryWorkloadAnalysis --section SpeedOfLight --metrics \
	smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_dispatch_stall,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_warps_issue_stalled_sleeping,smsp__pcsamp_warps_issue_stalled_tex_throttle,smsp__pcsamp_warps_issue_stalled_drain,smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__pcsamp_warps_issue_stalled_branch_resolving,smsp__pcsamp_warps_issue_stalled_imc_miss \
	build/cmbench -d cuda -s full -w dgemm -z 4096^3 > $O/ncu.txt 2>&1 )
echo "ncu rc=$? $(date -u +%H:%M:%S)" >> $O/info.txt
cat $O/info.txt
cut -d, -f1-2,4-5,8 $O/ab.txt
grep -v "^==PROF==\|^#\|^dgemm\|^workload" $O/ncu.txt | grep -v "^ *$" | grep -iv "----" | cut -c1-150 | head -70
