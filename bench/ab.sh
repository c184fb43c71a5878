#!/bin/sh
# ab.sh OUT LISTDIR "LISTS": A/B runs of kernel knobs in one device call,
# two interleaved rounds (bench/cmbench, checked before timing).  The
# variants are the NAME WORKLOAD SIZES ENV DEFS lines of LISTDIR/ab-LIST.txt
# for each LIST (default: radix scan); DEFS may hold -D and compiler flags.
# Writes ab.txt (NAME then the CSV row), info.txt and logs.tar.gz into OUT.
# AB_TIMEOUT: seconds a run may take (default 120; hgemm_wg.cm's first
# run JIT-compiles for over a minute).  CMB_IMPLS in ENV picks a
# workload's variants (cm-wgp2:cm-wga2).  Run from the repository root
# (the session folders under bench/runs keep their lists and earlier
# sessions' own copies of this script).
set -u
O=$1
H=$(cd "${2:?usage: ab.sh OUT LISTDIR [LISTS]}" && pwd)
LISTS=${3:-radix scan}
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
	env $(echo "$env" | tr , ' ') CMBENCH_OPTS="$D $*" CMETAL_LOG=1 timeout "${AB_TIMEOUT:-120}" \
		build/cmbench -d cuda -s full -w "$w" -z "$z" 2>>$O/logs/$name.txt |
		grep -v "^#\|^workload" | sed "s/^/$name /" >> $O/ab.txt
}
for round in 1 2; do
	{
	for l in $LISTS; do cat "$H/ab-$l.txt"; done
	} | while read -r name w z env defs; do
		# shellcheck disable=SC2086
		one "$name" "$w" "$z" "$env" $defs
	done
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
grep ",cm" $O/ab.txt | cut -d, -f1-2,4-5,8
grep "registers\|note" $O/logs/*.txt | cut -c1-220 | sort | uniq -c | head -60
tar -C $O -czf $O/logs.tar.gz logs && rm -rf $O/logs
