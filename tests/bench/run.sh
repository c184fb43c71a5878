#!/bin/sh
# Benchmark smoke run (small sizes): every implementation of the eight
# workloads computes on fresh inputs and is checked against the C reference
# (bench/ref): the plain C baseline, the OpenCL SIMT baselines when an
# OpenCL ICD is installed (PoCL in CI; .ci/run installs it), and the CM
# kernels through libcmetal on $CMETAL_DEVICE (default cpu).  One ok/FAIL
# line per implementation and workload.  Times are not judged here; the
# tables come from `make bench` (bench/run.sh) and bench/gpu.sh.
BUILD=${1:-build}
LIB=$(cd "$BUILD" && pwd)/libcmetal.a
B=build-test
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# a sanitized library (make test-asan) needs cmbench linked the same way
cmcc=${CC:-cc}
if nm "$LIB" 2>/dev/null | grep -q __asan_init; then
	cmcc="clang -fsanitize=address,undefined"
	B=build-test-asan
fi
targets="$B/cbench"
have_ocl=0
if [ -e /usr/include/CL/cl.h ] && ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
	have_ocl=1
	targets="$targets $B/oclbench"
fi
if ! { make -s -C bench BUILD=$B $targets &&
       make -s -C bench BUILD=$B CC="$cmcc" CMETAL_LIB="$LIB" $B/cmbench; } >"$out/build.log" 2>&1; then
	echo "FAIL bench/build"
	tail -n 20 "$out/build.log" | sed 's/^/    /'
	exit 0
fi
[ $have_ocl = 1 ] || echo "ok bench/ocl-simt (skipped: no OpenCL ICD or headers)"

export BENCH_REPS=1
(cd bench && ./$B/cbench -s small) >"$out/c.csv" 2>&1
[ $have_ocl = 1 ] && (cd bench && ./$B/oclbench -s small -k simt) >"$out/ocl.csv" 2>&1
(cd bench && ./$B/cmbench -s small -d "${CMETAL_DEVICE:-cpu}") >"$out/cm.csv" 2>&1

for f in "$out"/c.csv "$out"/ocl.csv "$out"/cm.csv; do
	[ -f "$f" ] || continue
	# checked, then the optional cpu_ms field (bench/README.md)
	rows=$(grep -c '^[a-z].*,\(yes\|ref\|FAIL\)\(,[0-9.]*\)\?$' "$f")
	if [ "$rows" -eq 0 ]; then
		echo "FAIL bench/$(basename "$f" .csv): no result rows"
		head -n 10 "$f" | sed 's/^/    /'
		continue
	fi
	awk -F, -v impl="$(basename "$f" .csv)" '
		/^# FAIL/ { why[++nw] = $0 }
		!/^#/ && $1 != "workload" && NF >= 8 {
			name = "bench/" impl "/" $1 "/" $2
			if ($8 == "yes" || $8 == "ref") print "ok " name
			else { print "FAIL " name; for (i = 1; i <= nw; i++) print "    " why[i] }
		}' "$f"
done

# The smoke run's table (median ms of BENCH_REPS=1 runs: a smoke figure,
# not a benchmark; `make bench` writes the real table to bench/RESULTS.md).
echo "    bench smoke table (ms): workload size: impl=time ..."
cat "$out"/*.csv 2>/dev/null | awk -F, '!/^#/ && $1 != "workload" && NF >= 8 {
	k = $1 " " $2; if (!(k in row)) order[++n] = k; row[k] = row[k] "  " $4 "=" $5 }
	END { for (i = 1; i <= n; i++) printf "    %-28s%s\n", order[i], row[order[i]] }'

# bench/rounds.py (make bench's rounds): each row the round of median time,
# whole; a row that failed its check in any round shows that round.
r=$out/rounds
mkdir -p "$r"
hdr='workload,size,device,impl,time_ms,throughput,unit,checked,cpu_ms'
printf '# device: d\n%s\nw,s,d,cm,3.0,30,GB/s,yes,6.0\nw,s,d,c,1.0,1,GB/s,ref,1.0\n' "$hdr" >"$r/1.csv"
printf '# device: d\n%s\nw,s,d,cm,1.0,90,GB/s,yes,1.5\nw,s,d,c,2.0,2,GB/s,ref,2.0\n' "$hdr" >"$r/2.csv"
printf '# device: d\n# FAIL w s c: wrong\n%s\nw,s,d,cm,2.0,45,GB/s,yes,4.0\nw,s,d,c,3.0,3,GB/s,FAIL,3.0\n' "$hdr" >"$r/3.csv"
want='w,s,d,cm,2.0,45,GB/s,yes,4.0
w,s,d,c,3.0,3,GB/s,FAIL,3.0'
if got=$(python3 "$(dirname "$0")/../../bench/rounds.py" "$r"/1.csv "$r"/2.csv "$r"/3.csv) &&
   [ "$(printf '%s\n' "$got" | grep -v '^#' | tail -n 2)" = "$want" ] &&
   printf '%s\n' "$got" | grep -q '^# FAIL w s c' && printf '%s\n' "$got" | grep -q "^$hdr\$"; then
	echo "ok bench/rounds"
else
	echo "FAIL bench/rounds"; printf '%s\n' "$got" | sed 's/^/    /'
fi
