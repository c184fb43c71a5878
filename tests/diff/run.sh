#!/bin/sh
# Differential tester of the code generators, CI part.  Usage:
#   tests/diff/run.sh BUILD [FIRST_SEED NUM_SEEDS NUM_PTX]
# Generates NUM_SEEDS (default 24) random well-defined CM kernels with
# tests/diff/gen.py, seeds FIRST_SEED.. (default 1), and
#   - runs each on the CPU device built with -O0 and with -O2
#     (tests/diff/difftest.c) and compares every output byte for byte:
#     "ok diff/cpu/SEED" or "FAIL diff/cpu/SEED" with the first difference;
#   - compiles the first NUM_PTX (default: all) with `cmetal -S -t ptx` in
#     both layout modes (-fptx-layout=auto and canonical), assembles them
#     with `ptxas -arch=sm_90` when ptxas is on PATH, and runs them on the
#     CUDA device of the fake driver, whose PTX simulator executes them
#     (tests/gpu/ptxsim.h), at -O2 in both layouts and at -O0, against the
#     CPU at -O2, byte for byte: "ok diff/ptx/SEED".
# A failing program is reduced (tests/diff/reduce.py) into $DIFF_OUT
# (default build/diff-out) with its seed.  Two programs run at a time;
# the default seeds take about a minute on two cores.  tests/gpu/diff.sh
# is the GPU run (many more seeds, every mode).
BUILD=${1:-build}
FIRST=${2:-1}
NUM=${3:-24}
NPTX=${4:-$NUM}
CC=${CC:-cc}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$ROOT/tests/diff
LIB=$ROOT/$BUILD/libcmetal.a
CMETAL=$ROOT/$BUILD/cmetal
OUTDIR=${DIFF_OUT:-$ROOT/$BUILD/diff-out}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [ ! -f "$LIB" ]; then
	echo "FAIL diff/build: $LIB not found"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "FAIL diff/gen: python3 is not on PATH (tests/diff/gen.py needs it)"
	exit 0
fi
case $BUILD in *asan*) SAN="-fsanitize=address,undefined" ;; *) SAN= ;; esac
if ! $CC -std=c11 -D_GNU_SOURCE -O1 -g $SAN -I"$ROOT/include" -o "$T/difftest" \
	"$D/difftest.c" "$LIB" -lpthread -ldl -lm 2>"$T/err"; then
	echo "FAIL diff/difftest: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
	exit 0
fi
# the fake CUDA driver and its PTX simulator (tests/gpu/fake_cuda.c)
FAKE=$T/fake
mkdir -p "$FAKE"
if ! $CC -std=c11 -O2 -ffp-contract=off -shared -fPIC -I"$ROOT/src" -o "$FAKE/libcuda.so.1" \
	"$ROOT/tests/gpu/fake_cuda.c" "$ROOT"/tests/gpu/ptxsim*.c -lm 2>"$T/err"; then
	echo "FAIL diff/fake_driver: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
	exit 0
fi
export CMETAL_CACHE_DIR="$T/cache"
LAST=$((FIRST + NUM - 1))

# one seed: generate, run -O0 and -O2 on the CPU, reduce a mismatch
cpu_seed() {
	s=$1
	f=$T/k$s.cm
	if ! python3 "$D/gen.py" "$s" -o "$f" 2>"$T/gen$s.err"; then
		echo "FAIL diff/cpu/$s: gen.py failed"; sed 's/^/    /' "$T/gen$s.err" | tail -n 5
		return
	fi
	"$T/difftest" -m "cpu -O0" -m "cpu -O2" "$f" >"$T/out$s" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok diff/cpu/$s"
		return
	fi
	echo "FAIL diff/cpu/$s (seed $s: python3 tests/diff/gen.py $s)"
	grep -v '^ok ' "$T/out$s" | cut -c1-300 | head -n 12 | sed 's/^/    /'
	mkdir -p "$OUTDIR"
	cp "$f" "$OUTDIR/cpu-$s.cm"
	# interesting: the same exit status (1 mismatch, 2 failure)
	printf '#!/bin/sh\n"%s" -m "cpu -O0" -m "cpu -O2" "$1" >/dev/null 2>&1\n[ $? -eq %d ]\n' \
		"$T/difftest" $rc >"$T/int$s.sh"
	chmod +x "$T/int$s.sh"
	if [ -z "$DIFF_NO_REDUCE" ] && timeout 300 python3 "$D/reduce.py" "$f" "$OUTDIR/cpu-$s.min.cm" \
		-- "$T/int$s.sh" >/dev/null 2>&1; then
		echo "    reduced: $OUTDIR/cpu-$s.min.cm ($(wc -l <"$OUTDIR/cpu-$s.min.cm") lines)"
	fi
}

# the PTX back end without a GPU: both layouts through ptxas
ptx_seed() {
	s=$1
	f=$T/k$s.cm
	[ -e "$f" ] || python3 "$D/gen.py" "$s" -o "$f" 2>/dev/null
	why=
	for lay in auto canonical; do
		CMETAL_NO_PTXAS=1 timeout 120 "$CMETAL" -S -t ptx -fptx-layout=$lay "$f" \
			-o "$T/k$s.$lay.ptx" 2>"$T/p$s.err"
		rc=$?
		if [ $rc -ne 0 ]; then
			why="$why
-fptx-layout=$lay: cmetal exit status $rc: $(grep -m 2 -E 'error|internal' "$T/p$s.err" | cut -c1-200)"
		elif command -v ptxas >/dev/null 2>&1 &&
			! ptxas -arch=sm_90 "$T/k$s.$lay.ptx" -o "$T/k$s.$lay.cubin" 2>"$T/pa$s.err"; then
			why="$why
-fptx-layout=$lay: ptxas: $(head -c 300 "$T/pa$s.err")"
		fi
	done
	if [ -z "$why" ] && ! LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$T/difftest" -m "cpu -O2" -m "cuda -O2 -fptx-layout=auto" \
		-m "cuda -O2 -fptx-layout=canonical" -m "cuda -O0 -fptx-layout=auto" "$f" \
		>"$T/sim$s" 2>&1; then
		why="
simulated GPU: $(grep -v '^ok ' "$T/sim$s" | cut -c1-300 | head -n 8)"
	fi
	if [ -z "$why" ]; then
		echo "ok diff/ptx/$s"
	else
		echo "FAIL diff/ptx/$s (seed $s: python3 tests/diff/gen.py $s)"
		echo "$why" | sed '/^$/d; s/^/    /'
		mkdir -p "$OUTDIR"
		cp "$f" "$OUTDIR/ptx-$s.cm"
	fi
}

# two at a time: even and odd seeds
run_half() {
	s=$((FIRST + $1))
	while [ $s -le $LAST ]; do
		cpu_seed $s
		[ $((s - FIRST)) -lt "$NPTX" ] && ptx_seed $s
		s=$((s + 2))
	done
}
run_half 0 >"$T/half0" &
run_half 1 >"$T/half1"
wait
cat "$T/half0" "$T/half1"
exit 0
