#!/bin/sh
# CM execution tests: builds the harness and the per-family test files
# against $BUILD/libcmetal.a and runs every test on $CMETAL_DEVICE (default
# cpu), then again built with -fbounds-check ("exec-checked/NAME") and with
# -g ("exec-g/NAME").  Prints
# "ok exec/NAME" / "FAIL exec/NAME" lines.
BUILD=${1:-build}
[ $# -gt 0 ] && shift
CC=${CC:-cc}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=$ROOT/$BUILD/libcmetal.a
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [ ! -f "$LIB" ]; then
	echo "FAIL exec/build: $LIB not found"
	exit 0
fi
case $BUILD in *asan*) SAN="-fsanitize=address,undefined" ;; *tsan*) SAN="-fsanitize=thread" ;; *) SAN= ;; esac
if ! $CC -std=c11 -D_GNU_SOURCE -O1 -g -ffp-contract=off $SAN -I"$ROOT/include" -o "$T/exec" \
	"$ROOT"/tests/exec/*.c "$LIB" -lpthread -ldl -lm 2>"$T/err"; then
	echo "FAIL exec/harness: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
	exit 0
fi
cd "$ROOT" || exit 0
[ $# -eq 0 ] && sh tests/exec/coverage.sh "$BUILD"
# a harness that dies (a signal, status >= 128) leaves its remaining tests
# unreported: say so, as a failure
died() {	# died STATUS PREFIX
	[ "$1" -ge 128 ] && echo "FAIL $2/harness: died with status $1 after the tests above"
}
CMETAL_CACHE_DIR="$T/cache" CMETAL_EXEC_DIR="$ROOT/tests/exec" "$T/exec" "$@"
died $? exec
# again with -fbounds-check (builds follow CM's rules silently by default):
# the checking code paths must give the same results, and a test that goes
# out of range on purpose says -fno-bounds-check itself.  Not when the
# caller already chose options (CMETAL_EXEC_OPTIONS) or tests.
if [ $# -eq 0 ] && [ -z "${CMETAL_EXEC_OPTIONS:-}" ]; then
	{ CMETAL_EXEC_OPTIONS=-fbounds-check CMETAL_CACHE_DIR="$T/cache" \
		CMETAL_EXEC_DIR="$ROOT/tests/exec" "$T/exec"; echo $? > "$T/rc"; } |
		sed 's,^\(ok\|FAIL\) exec/,\1 exec-checked/,'
	died "$(cat "$T/rc")" exec-checked
	# and with -g, whose C differs (one C variable per CM variable where
	# lifetimes allow, nothing baled into a user's loop, cc -O0)
	{ CMETAL_EXEC_OPTIONS=-g CMETAL_CACHE_DIR="$T/cache" \
		CMETAL_EXEC_DIR="$ROOT/tests/exec" "$T/exec"; echo $? > "$T/rc"; } |
		sed 's,^\(ok\|FAIL\) exec/,\1 exec-g/,'
	died "$(cat "$T/rc")" exec-g
fi
exit 0
