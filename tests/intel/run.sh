#!/bin/sh
# Intel's CM example programs, built unmodified against cmetal and run.
#
#   sh tests/intel/run.sh CHECKOUT [PROGRAM...]
#
# CHECKOUT is a clone of intel/cm-compiler (its test/open_examples is used)
# or a directory laid out like test/open_examples.  Each program's kernel
# (NAME_genx.cpp) is compiled with `cmetal -c` into the NAME_genx.isa its
# host loads (-t c for the CPU device, -t ptx for a CUDA device), its host
# is compiled with g++ against include/cm_rt.h (the include path is the
# only change: cmetal's include/ and the examples' own directory, which
# holds common/, as Intel's build has it) and run in a scratch copy of its
# directory on $CMETAL_DEVICE (default cpu).  A program passes when it
# exits with 0, prints PASSED and does not print FAILED.  Prints
# "ok intel/NAME" or "FAIL intel/NAME: STAGE" with the last lines of the
# output.  Where the checkout lacks a program's data files (linear_walker's
# images, SparseMatrixMul's matrix) or holds them only as Git LFS
# pointers, tests/intel/mkdata.c writes substitutes into the scratch copy
# and a line says so.  Not part of `make test` (not executable, so tests/run.sh skips
# it): Intel's code is not in this tree.
#
# Environment: BUILD (default build), CC (default cc), CXX (default g++), CMETAL_DEVICE,
# INTEL_TIMEOUT (seconds per program run, default 900), KEEP=1 keeps the
# scratch directory and says where.
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
	echo "usage: sh tests/intel/run.sh CHECKOUT [PROGRAM...]" >&2
	exit 2
fi
SRC=$1
shift
[ -d "$SRC/test/open_examples" ] && SRC=$SRC/test/open_examples
SRC=$(cd "$SRC" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
CC=${CC:-cc}
CXX=${CXX:-g++}
DEV=${CMETAL_DEVICE:-cpu}
TMO=${INTEL_TIMEOUT:-900}
CMETAL=$ROOT/$BUILD/cmetal
LIB=$ROOT/$BUILD/libcmetal.a
case $DEV in cuda*) TARGET=ptx ;; *) TARGET=c ;; esac
for f in "$CMETAL" "$LIB"; do
	[ -f "$f" ] || { echo "FAIL intel/build: $f not found (make first)"; exit 1; }
done
T=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "(scratch: $T)"; else trap 'rm -rf "$T"' EXIT; fi

# program directory, host source, kernel stem, arguments (as Intel's
# CMakeLists.txt runs them)
PROGRAMS='hello_world hello_world hello_world -
BitonicSortK BitonicSortK BitonicSortK -
PrefixSum Prefix Prefix 16
radix radix radix -
linear_walker linear_walker linear_walker -
histogram_256 histogram histogram -
matrix_transpose matrix_transpose matrix_transpose -
Sgemm Sgemm Sgemm -
SparseMatrixMul SparseMatrixMul SparseMatrixMul Webbase_csr.dat 100'

wanted() {
	[ $# -eq 1 ] && return 0
	n=$1
	shift
	for w; do [ "$w" = "$n" ] && return 0; done
	return 1
}

# A data file the checkout lacks, or holds only as a Git LFS pointer.
absent() {
	[ ! -s "$1" ] || head -c 64 "$1" | grep -q '^version https://git-lfs'
}

# Substitute inputs for program $1 in $W where the checkout has none.
substitute() {
	case $1 in
	linear_walker)
		absent "$W/linear_in.bmp" || absent "$W/linear_gold_hw.bmp" || return 0
		what="linear_in.bmp and linear_gold_hw.bmp (640x480)"
		set -- image linear_in.bmp linear_gold_hw.bmp 640 480 ;;
	SparseMatrixMul)
		absent "$W/Webbase_csr.dat" || return 0
		what="Webbase_csr.dat (1000005 rows)"
		set -- csr Webbase_csr.dat 1000005 6 ;;
	*) return 0 ;;
	esac
	if [ ! -x "$T/mkdata" ] &&
		! $CC -std=c11 -O2 -o "$T/mkdata" "$ROOT/tests/intel/mkdata.c" >"$W/.data.log" 2>&1; then
		return 1
	fi
	echo "(intel/$dir: substitute $what, written by tests/intel/mkdata.c)"
	(cd "$W" && "$T/mkdata" "$@") >>"$W/.data.log" 2>&1
}

fail() {
	echo "FAIL intel/$1@$DEV: $2"
	[ -f "$3" ] && tail -n 15 "$3" | sed 's/^/    /'
}

# the examples' common/ and each program go to the scratch directory, so
# that "../common/x.h" and outputs stay out of the checkout
cp -R "$SRC/common" "$T/common" 2>/dev/null || mkdir -p "$T/common"
if [ ! -f "$T/common/isa_helpers.h" ]; then
	echo "(common/isa_helpers.h not in the checkout: using cmetal's include/isa_helpers.h)"
	printf '#include "%s/include/isa_helpers.h"\n' "$ROOT" >"$T/common/isa_helpers.h"
fi
echo "$PROGRAMS" | while read -r dir host kern args; do
	wanted "$dir" "$@" || continue
	if [ ! -d "$SRC/$dir" ]; then
		fail "$dir" "no directory $SRC/$dir"
		continue
	fi
	W=$T/$dir
	cp -R "$SRC/$dir" "$W"
	if ! substitute "$dir"; then
		fail "$dir" "no substitute data (tests/intel/mkdata.c)" "$W/.data.log"
		continue
	fi
	if ! (cd "$W" && "$CMETAL" -c -t "$TARGET" -o "${kern}_genx.isa" "${kern}_genx.cpp") \
		>"$W/.kernel.log" 2>&1; then
		fail "$dir" "kernel does not compile (cmetal -t $TARGET)" "$W/.kernel.log"
		continue
	fi
	if ! (cd "$W" && $CXX -std=c++11 -O2 -w -DLINUX -I"$ROOT/include" -I"$T" -o host \
		"$host.cpp" "$LIB" -lpthread -ldl -lm) >"$W/.host.log" 2>&1; then
		fail "$dir" "host does not compile" "$W/.host.log"
		continue
	fi
	[ "$args" = - ] && args=
	# shellcheck disable=SC2086
	(cd "$W" && CMETAL_DEVICE=$DEV timeout "$TMO" ./host $args) >"$W/.run.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$dir" "exited with status $rc" "$W/.run.log"
	elif ! grep -q PASSED "$W/.run.log" || grep -q FAILED "$W/.run.log"; then
		fail "$dir" "its check did not print PASSED" "$W/.run.log"
	else
		echo "ok intel/$dir@$DEV"
	fi
done
