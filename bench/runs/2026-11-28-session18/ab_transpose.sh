#!/bin/sh
# Session 18: the CM transpose with 16-row tiles (2,112 bytes of SLM a
# thread, 64 warps an SM) against the 32-row version (4,224 bytes, 48
# warps) and cuBLAS geam, at 4096^2 and 8192^2, two interleaved rounds on
# one machine.  Candidates are CMB_TRANSPOSE_GROUP=X:Y[:ROWS] (transpose.c
# builds the kernel with -DTPG=X*Y -DROWS=ROWS on the default options):
#   default  4:2, 16 rows (the committed kernel)
#   4:2:32   the 32-row kernel of before (same source, ROWS 32)
#   2:4 1:8 8:1 4:4   other group shapes, 16 rows
# geam (and the SIMT port) come from cudabench -m all, same minute.  Then
# one ncu pass over the default kernel at 8192^2 (achieved occupancy and
# the limits), if ncu is there.  Usage: ab_transpose.sh OUTDIR (about 2.5
# minutes on an H100 with nothing built).
set -u
O=$1
mkdir -p "$O"
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
[ -x bench/build/cudabench ] || make -C bench -s -j16 cuda >/dev/null 2>&1 ||
	echo "cuda build failed (no geam rows)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/info.txt" 2>&1
date -u >> "$O/info.txt"
export BENCH_REPS=30
cm() {	# cm TAG [CMB_TRANSPOSE_GROUP]
	env ${2:+CMB_TRANSPOSE_GROUP=$2} timeout 60 bench/build/cmbench -d cuda -s full -w transpose 2>&1 |
		grep -v "^# [dhn]" | sed "s/^/$1 /" >> "$O/ab.txt"
}
for round in 1 2; do
	[ -x bench/build/cudabench ] &&
		timeout 60 bench/build/cudabench -m all -s full -w transpose 2>&1 |
		grep -v "^#" | sed "s/^/vendor /" >> "$O/ab.txt"
	cm default
	cm 4:2:32 4:2:32
	for g in 2:4 1:8 8:1 4:4; do
		cm "$g" "$g"
	done
done
date -u >> "$O/info.txt"
# ms per tag, impl and size (both rounds) and geam's median over this ms
awk -F, '$1 ~ /^[^ ]+ transpose$/ {
	split($1, w, " "); k = w[1] " " $4 " " $2
	if (!(k in t)) order[++n] = k
	t[k] = t[k] " " $5
	if ($4 == "cublas-geam") g[$2] = g[$2] " " $5
	if ($8 != "yes") bad[k] = 1
}
function med(s,  a, m, i, j, x) {
	m = split(s, a, " ")
	for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
	printf "%-28s %-10s %-32s %s\n", "tag impl size", "median ms", "runs", "geam/this"
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, p, " ")
		r = (k in bad) ? "FAIL" : (p[3] in g) ? sprintf("%.3fx", med(g[p[3]]) / med(t[k])) : "-"
		printf "%-28s %-10.4f %-32s %s\n", k, med(t[k]), t[k], r
	}
}' "$O/ab.txt" | tee "$O/summary.txt"
if command -v ncu >/dev/null 2>&1; then
	M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__registers_per_thread,launch__shared_mem_per_block_static,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
	BENCH_REPS=2 timeout 60 ncu --clock-control none -k regex:'^transpose$' -c 1 --metrics $M \
		bench/build/cmbench -d cuda -s full -w transpose -z 8192^2 > "$O/ncu-default.txt" 2>&1
	grep -E "transpose \(|^ +[a-z_]+__" "$O/ncu-default.txt"
fi
