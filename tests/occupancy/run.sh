#!/bin/sh
# Occupancy suite.  Usage: tests/occupancy/run.sh BUILD
#  - test_occ.c: the calculator (src/target/ptx/occupancy.c) against cases
#    computed by hand;
#  - goldens of `cmetal --occupancy` and `cmetal --analyze` on loop.cm:
#    NAME.sm86.occ and NAME.noptxas.analyze with CMETAL_NO_PTXAS=1 (no
#    registers: the same everywhere), NAME.analyze with ptxas's registers
#    (skipped, with a message, where ptxas is not on PATH); edge.cm's
#    NAME.noptxas.analyze: out-of-line edge paths are neither body nor loops;
#    spin.cm's NAME.noptxas.analyze with --analyze-grid: the launch's CM
#    threads per SM and a spin loop's chain; nest.cm's: nested loops, each
#    per iteration without the other's blocks.  UPDATE=1 rewrites the goldens.
# Prints "ok occupancy/NAME" or "FAIL occupancy/NAME".
BUILD=${1:-build}
CC=${CC:-cc}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=$ROOT/tests/occupancy
CMETAL=$ROOT/$BUILD/cmetal
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
case $BUILD in *asan*) SAN="-fsanitize=address,undefined" ;; *) SAN= ;; esac
if $CC -std=c11 -D_GNU_SOURCE -O1 -g $SAN -I"$ROOT/include" -I"$ROOT/src" -o "$T/test_occ" \
	"$DIR/test_occ.c" "$ROOT/$BUILD/libcmetal-internal.a" -lpthread -ldl -lm 2>"$T/err"; then
	"$T/test_occ" || true
else
	echo "FAIL occupancy/unit: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
fi

# golden NAME EXPECTED ENV... -- OPTIONS...
golden() {
	name=$1 want=$2
	shift 2
	env "$@" >"$T/out" 2>&1
	if [ -n "$UPDATE" ]; then
		cp "$T/out" "$want"
		echo "ok occupancy/$name (updated)"
	elif cmp -s "$T/out" "$want"; then
		echo "ok occupancy/$name"
	else
		echo "FAIL occupancy/$name: output differs from $(basename "$want")"
		diff "$want" "$T/out" | head -n 20 | sed 's/^/    /'
	fi
}
golden occ_sm86 "$DIR/loop.sm86.occ" CMETAL_NO_PTXAS=1 "$CMETAL" --occupancy -march=sm_86 \
	"$DIR/loop.cm"
golden analyze_noptxas "$DIR/loop.noptxas.analyze" CMETAL_NO_PTXAS=1 "$CMETAL" --analyze \
	"$DIR/loop.cm"
golden analyze_edge "$DIR/edge.noptxas.analyze" CMETAL_NO_PTXAS=1 "$CMETAL" --analyze \
	"$DIR/edge.cm"
golden analyze_nest "$DIR/nest.noptxas.analyze" CMETAL_NO_PTXAS=1 "$CMETAL" --analyze \
	"$DIR/nest.cm"
golden analyze_grid "$DIR/spin.noptxas.analyze" CMETAL_NO_PTXAS=1 "$CMETAL" \
	--analyze-grid=4096,4 "$DIR/spin.cm"
if command -v ptxas >/dev/null 2>&1; then
	golden analyze_ptxas "$DIR/loop.analyze" "$CMETAL" --analyze -march=sm_80 "$DIR/loop.cm"
else
	echo "ok occupancy/analyze_ptxas (skipped: ptxas not on PATH)"
fi

# bad input: a clear error, status 1
if "$CMETAL" --occupancy "$DIR/nonexistent.cm" >"$T/out" 2>&1; then
	echo "FAIL occupancy/missing_file: exit status 0"
elif grep -q "nonexistent.cm" "$T/out"; then
	echo "ok occupancy/missing_file"
else
	echo "FAIL occupancy/missing_file: no message naming the file"; sed 's/^/    /' "$T/out"
fi
exit 0
