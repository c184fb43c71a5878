#!/bin/sh
# Session 20, one device call: A/B runs of kernel knobs, two interleaved
# rounds each (bench/cmbench, checked before timing).
#   sgemm  PIPE (gemm.cm: the kk loop reads step kk + 1's B row and the
#          first PA values of A before step kk's FMAs), at 4096^3, 8192^3;
#   spmv   webbase-1M's GPU shape (CMB_SPMV_SHAPE=SEG:WIDTH:LONGLEN);
#   dgemm_slm, linear: the knobs in ab-dgemm.txt / ab-linear.txt (NAME
#          ENV DEFS lines), when present.
# Writes ab.txt (NAME then the CSV row) and info.txt into $1.
set -u
O=$1
H=$(dirname "$0")
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
mkdir -p $O/logs
cd bench
# one NAME WORKLOAD SIZES ENV DEFS line: ENV is VAR=VALUE[,VAR=VALUE...] or -
one() {
	name=$1 w=$2 z=$3 env=$4
	shift 4
	[ "$env" = - ] && env=CMB_NONE=1
	# shellcheck disable=SC2046
	env $(echo "$env" | tr , ' ') CMBENCH_OPTS="$D $*" CMETAL_LOG=1 timeout 120 \
		build/cmbench -d cuda -s full -w "$w" -z "$z" 2>>$O/logs/$name.txt |
		grep -v "^#\|^workload" | sed "s/^/$name /" >> $O/ab.txt
}
for round in 1 2; do
	{
	cat <<'LIST'
sg-base sgemm 4096^3,8192^3 - -DPIPE=0
sg-p4 sgemm 4096^3,8192^3 - -DPIPE=1 -DPA=4
sg-p8 sgemm 4096^3,8192^3 - -DPIPE=1 -DPA=8
sg-p16 sgemm 4096^3,8192^3 - -DPIPE=1 -DPA=16
sp-def spmv webbase-1M -
sp-4-32-32 spmv webbase-1M CMB_SPMV_SHAPE=4:32:32
sp-4-128-32 spmv webbase-1M CMB_SPMV_SHAPE=4:128:32
sp-4-64-64 spmv webbase-1M CMB_SPMV_SHAPE=4:64:64
sp-4-64-16 spmv webbase-1M CMB_SPMV_SHAPE=4:64:16
sp-2-64-16 spmv webbase-1M CMB_SPMV_SHAPE=2:64:16
LIST
	[ -f $H/ab-dgemm.txt ] && cat $H/ab-dgemm.txt
	[ -f $H/ab-linear.txt ] && cat $H/ab-linear.txt
	} | while read -r name w z env defs; do
		# shellcheck disable=SC2086
		one "$name" "$w" "$z" "$env" $defs
	done
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
cut -d, -f1-6,8 $O/ab.txt
grep "registers\|note" $O/logs/*.txt | cut -c1-220 | sort | uniq -c | head -60
tar -C $O -czf $O/logs.tar.gz logs && rm -rf $O/logs
