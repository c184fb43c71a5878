#!/bin/sh
# The execution tests (tests/exec) on the CUDA device without a GPU: the
# fake driver (fake_cuda.c) runs the PTX that cmetal generated in its
# simulator (ptxsim.h), and each test compares with its C reference as on
# a GPU.  Runs them as cmetal builds them by default ("sim/NAME"), with
# -fbounds-check ("sim-checked/NAME"), without warp packing
# ("sim-nopack/NAME") and with every value in the canonical layout
# ("sim-canonical/NAME").  Prints "ok ..." / "FAIL ..." lines; a test
# listed below as unsupported in a variant prints "skip ..." with the
# reason instead of failing.  Run by tests/gpu/run.sh, which passes the
# directory of the fake libcuda.so.1 it built; alone:
#   tests/gpu/sim.sh [BUILD [FAKE_DIR]] [-- TEST...]
BUILD=${1:-build}
[ $# -gt 0 ] && shift
FAKE=
if [ $# -gt 0 ] && [ "$1" != -- ]; then
	FAKE=$1
	shift
fi
[ "${1:-}" = -- ] && shift
CC=${CC:-cc}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=$ROOT/$BUILD/libcmetal.a
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# variant:test: why it cannot run in the simulator
UNSUPPORTED='
sim-nopack:barrier_64: groups of 64 CM threads are cluster launches (rt/cuda_abi.h Clusters: DSMEM, cluster barriers), not simulated
sim-nopack:thread_ids_33: groups of 33 CM threads are cluster launches, not simulated
'

if [ ! -f "$LIB" ]; then
	echo "FAIL sim/build: $LIB not found"
	exit 0
fi
if [ -z "$FAKE" ]; then
	FAKE=$T/fake
	mkdir -p "$FAKE"
	if ! $CC -std=c11 -O2 -g -ffp-contract=off -shared -fPIC -I"$ROOT/src" \
		-o "$FAKE/libcuda.so.1" "$ROOT/tests/gpu/fake_cuda.c" "$ROOT"/tests/gpu/ptxsim*.c \
		-lm 2>"$T/err"; then
		echo "FAIL sim/fake_driver: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
		exit 0
	fi
fi
case $BUILD in *asan*) SAN="-fsanitize=address,undefined" ;; *) SAN= ;; esac
if ! $CC -std=c11 -D_GNU_SOURCE -O1 -g -ffp-contract=off $SAN -I"$ROOT/include" -o "$T/exec" \
	"$ROOT"/tests/exec/*.c "$LIB" -lpthread -ldl -lm 2>"$T/err"; then
	echo "FAIL sim/harness: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
	exit 0
fi

# run VARIANT OPTIONS [TEST...]: the harness's lines renamed to VARIANT/NAME
run() {
	variant=$1
	options=$2
	shift 2
	err=$T/stderr
	[ -n "${PTXSIM_TRACE:-}" ] && err=/dev/stderr   # the trace, as it comes
	CMETAL_DEVICE=cuda CMETAL_EXEC_OPTIONS=$options CMETAL_CACHE_DIR="$T/cache" \
		CMETAL_EXEC_DIR="$ROOT/tests/exec" LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$T/exec" "$@" >"$T/out" 2>"$err"
	rc=$?
	sed "s,^\(ok\|FAIL\) exec/,\1 $variant/," "$T/out" | while IFS= read -r line; do
		case $line in
		"FAIL $variant/"*)
			name=${line#FAIL $variant/}
			name=${name%% *}
			why=$(printf '%s\n' "$UNSUPPORTED" | grep "^$variant:$name:" | cut -d: -f3-)
			if [ -n "$why" ]; then
				echo "skip $variant/$name:$why"
				skipping=1
			else
				echo "$line"
				skipping=
			fi ;;
		" "*|"	"*) [ -n "${skipping:-}" ] || echo "$line" ;;
		*) skipping=; echo "$line" ;;
		esac
	done
	if [ $rc -ne 0 ]; then
		echo "FAIL $variant/harness: exited with status $rc"
		tail -n 5 "$T/stderr" | sed 's/^/    /'
	fi
}

run sim "" "$@"
run sim-checked -fbounds-check "$@"
run sim-nopack -fno-warp-packing "$@"
run sim-canonical -fptx-layout=canonical "$@"
exit 0
