#!/bin/sh
# Layout algebra tests: builds tests/layout/*.c (the unit tests and the
# warp interpreter of the emitted PTX) against $BUILD/libcmetal-internal.a
# (they call the back end's functions) and runs
# them; no GPU.  Prints "ok layout/NAME" / "FAIL layout/NAME" lines.
BUILD=${1:-build}
CC=${CC:-cc}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=$ROOT/$BUILD/libcmetal-internal.a
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [ ! -f "$LIB" ]; then
	echo "FAIL layout/build: $LIB not found"
	exit 0
fi
case $BUILD in *asan*) SAN="-fsanitize=address,undefined" ;; *) SAN= ;; esac
if ! $CC -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers $SAN \
	-I"$ROOT/include" -I"$ROOT/src" -o "$T/test_layout" "$ROOT"/tests/layout/*.c \
	"$LIB" -lpthread -ldl -lm 2>"$T/err"; then
	echo "FAIL layout/build: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
	exit 0
fi
"$T/test_layout" >"$T/out" 2>&1
rc=$?
cat "$T/out"
if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$T/out"; then
	echo "FAIL layout/run: exited with status $rc"
	tail -n 5 "$T/out" | sed 's/^/    /'
fi
exit 0
