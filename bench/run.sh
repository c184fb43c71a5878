#!/bin/sh
# run.sh — run the benchmarks and write a report (RESULTS.md, results.csv,
# charts/*.png) from their CSVs and the recorded runs of bench/runs/.
#   bench/run.sh [DEVICE=cpu|gpu] [WORKLOAD=linear,spmv,...] [SIZE=small|full]
#                [UPDATE=1] [ROUNDS=n]
#   (also `make bench DEVICE=... WORKLOAD=... SIZE=... [UPDATE=1]`)
# By default nothing tracked is touched: the new CSVs and the report go to
# build/bench/ (build/bench/runs/ starts as a copy of bench/runs/*.csv).
# UPDATE=1 records the run: CSVs into bench/runs/, the report into bench/.
# DEVICE=cpu (default): the plain C baseline (impl c, 1 thread) and the SIMT
#   OpenCL baselines on the default OpenCL device (PoCL here), CSVs
#   cpu-c.csv and cpu-ocl.csv (and cpu-cm.csv, the CM kernels), run in
#   turn ROUNDS times (default 3), each row the median of its rounds
#   (rounds.py).  SIZE=small is the CI size (about a minute a round on 2
#   cores); SIZE=full are the reported sizes.
# DEVICE=gpu: for a shell on the GPU machine itself: bench/gpu.sh into
#   the runs directory (see gpu.sh for running it from elsewhere).
# The report is then regenerated from every CSV of the runs directory.
set -eu
DEVICE=${DEVICE:-cpu} WORKLOAD=${WORKLOAD:-all} SIZE=${SIZE:-small} UPDATE=${UPDATE:-}
ROUNDS=${ROUNDS:-3}
for a in "$@"; do
	case $a in
	DEVICE=*|WORKLOAD=*|SIZE=*|UPDATE=*|ROUNDS=*) eval "${a%%=*}=\${a#*=}" ;;
	*) echo "usage: $0 [DEVICE=cpu|gpu] [WORKLOAD=list] [SIZE=small|full] [UPDATE=1] [ROUNDS=n]" >&2; exit 2 ;;
	esac
done
cd "$(dirname "$0")"
if [ "$UPDATE" = 1 ]; then
	report=. runs=runs
else
	report=../build/bench runs=../build/bench/runs
	mkdir -p "$runs"
	cp runs/*.csv "$runs"/
fi
mkdir -p "$runs"

# What a fresh Debian machine needs: PoCL, the OpenCL loader and headers,
# gnuplot for the charts.
need=""
[ -f /usr/include/CL/cl.h ] || need="$need ocl-icd-opencl-dev opencl-headers"
ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 || need="$need pocl-opencl-icd"
command -v gnuplot >/dev/null 2>&1 || need="$need gnuplot-nox"
if [ -n "$need" ] && [ "$DEVICE" = cpu ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "run.sh: installing$need"
		apt-get install -y $need >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && apt-get install -y $need >/dev/null; }
	else
		echo "run.sh: missing$need (install as root)" >&2
	fi
fi

case $DEVICE in
cpu)
	make -s -j2
	# ROUNDS rounds of the three harnesses in turn, each CSV row the
	# median of its rounds (rounds.py says why)
	tmp=$(mktemp -d)
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		echo "run.sh: round $r of $ROUNDS: plain C, OpenCL SIMT baselines, CM kernels"
		./build/cbench -w "$WORKLOAD" -s "$SIZE" > "$tmp/c.$r.csv"
		./build/oclbench -w "$WORKLOAD" -s "$SIZE" -k simt > "$tmp/ocl.$r.csv"
		if [ -x build/cmbench ]; then	# CM kernels (bench/cm), once they exist
			./build/cmbench -d cpu -w "$WORKLOAD" -s "$SIZE" > "$tmp/cm.$r.csv"
		fi
		r=$((r + 1))
	done
	for h in c ocl cm; do
		[ -f "$tmp/$h.1.csv" ] || continue
		echo "run.sh: -> $runs/cpu-$h.csv"
		python3 rounds.py "$tmp/$h".*.csv > "$runs/cpu-$h.csv"
	done
	rm -rf "$tmp"
	grep -h '^# FAIL' "$runs"/cpu-*.csv || true
	;;
gpu)
	./gpu.sh "$runs" all "$SIZE"
	;;
*)
	echo "run.sh: DEVICE must be cpu or gpu" >&2; exit 2 ;;
esac
python3 report.py -o "$report" "$runs"
[ "$UPDATE" = 1 ] || echo "run.sh: bench/ is unchanged (UPDATE=1 records this run there)"
