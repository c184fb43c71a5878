#!/bin/sh
# Session 18: radix sort A/B (cm-radix rows of workload bitonic, 2^20, 2^24,
# 2^26; whole-sort ms), two interleaved rounds, then the mean per candidate
# and size.  base: main's radix.cm before this session (radix-main.cm here,
# built to PTX with the default options and loaded through CMB_LOAD_radix;
# the host side is this tree's radix.c, whose kernels' arguments are
# unchanged).  Candidates, all this tree's radix.cm with -D macros:
#   new      the defaults: look-back after the SLM scatter (LBAT=2), ranks
#            two to a register (RK16=1): 64 registers, 4 groups an SM;
#            look-back loop with uint masks (LBV=2), LB=4
#   new-lb2, new-lb8   the same with 2 or 8 tiles a round trip
#   new-late the same without early counts (EARLY=0): the tile's aggregate
#            goes out after the ranking; 6.5% fewer SASS on the main path
#   lbv1     the new placement with session 17's look-back loop body
#   l2r0     LBAT=2, ranks 32-bit: 80 registers, 3 groups an SM
#   l1r1     look-back before the ranking (LBAT=1): 80 registers
# Usage, from the repository root: sh ab_radix.sh OUTDIR (~2-3 min on H200;
# a second round is skipped when the first took over 150 s).
set -u
O=${1:?usage: ab_radix.sh OUTDIR}
H=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$O"
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv > "$O/info.txt" 2>&1; date -u >> "$O/info.txt"
D="-O2 -fno-bounds-check -ffp-contract=fast"
build/cmetal -S -t ptx $D -DROWS=16 "$H/radix-main.cm" -o "$O/radix-base.ptx" ||
	{ echo "base PTX failed"; exit 1; }
: > "$O/ab.txt"
start=$(date +%s)
run() { # label, then -D options (label base: main's kernel)
	l=$1
	shift
	if [ "$l" = base ]; then
		CMB_LOAD_radix="$O/radix-base.ptx" bench/build/cmbench -d cuda -s full -w bitonic 2>&1
	else
		CMBENCH_OPTS="$D $*" bench/build/cmbench -d cuda -s full -w bitonic 2>&1
	fi | grep -E "cm-radix" | sed "s/^/$l,/" >> "$O/ab.txt"
}
for round in 1 2; do
	if [ $(($(date +%s) - start)) -gt 150 ]; then
		echo "# round $round skipped: time"
		break
	fi
	run base
	run new
	run new-lb2 -DLB=2
	run new-lb8 -DLB=8
	run new-late -DEARLY=0
	run lbv1 -DLBV=1
	run l2r0 -DRK16=0
	run l1r1 -DLBAT=1
done
cat "$O/ab.txt"
echo "# mean whole-sort ms per size and candidate (BAD: a row not checked yes)"
awk -F, '{ k = $3 " " $1; s[k] += $6; n[k]++; if ($9 != "yes") bad[k] = 1 }
	END { for (k in s) printf "%-16s %8.4f ms  %d runs%s\n", k, s[k] / n[k], n[k], bad[k] ? " BAD" : "" }' \
	"$O/ab.txt" | sort -k1,1 -k3,3n
echo "# $(($(date +%s) - start)) s"
