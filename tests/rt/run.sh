#!/bin/sh
# Runtime tests: builds the hand-written ABI kernels (tests/rt/kernels/*.c)
# into shared libraries and the C test programs against $BUILD/libcmetal.a
# (those that include internal headers against libcmetal-internal.a, which
# exports every function), then runs them.  Each prints "ok NAME" / "FAIL NAME" lines.
BUILD=${1:-build}
CC=${CC:-cc}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=$ROOT/$BUILD/libcmetal.a
INTERNAL=$ROOT/$BUILD/libcmetal-internal.a
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [ ! -f "$LIB" ]; then
	echo "FAIL rt/build: $LIB not found"
	exit 0
fi
# the tests link with the same sanitizer flags as the library
case $BUILD in *asan*) SAN="-fsanitize=address,undefined" ;; *tsan*) SAN="-fsanitize=thread" ;; *) SAN= ;; esac
for k in "$ROOT"/tests/rt/kernels/*.c; do
	n=$(basename "$k" .c)
	if ! $CC -O1 -shared -fPIC -I"$ROOT/src/rt" -o "$T/$n.so" "$k" 2>"$T/err"; then
		echo "FAIL rt/kernel_$n: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
	fi
done
for t in "$ROOT"/tests/rt/test_*.c; do
	n=$(basename "$t" .c)
	lib=$LIB
	grep -q '^#include "\(rt\|util\|front\|ir\|opt\|target\)/' "$t" && lib=$INTERNAL
	if ! $CC -std=c11 -D_GNU_SOURCE -O1 -g $SAN -I"$ROOT/include" -I"$ROOT/src" -o "$T/$n" "$t" \
		"$lib" -lpthread -ldl -lm 2>"$T/err"; then
		echo "FAIL rt/$n: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
		continue
	fi
	(cd "$T" && CMETAL_CACHE_DIR="$T/cache" ./"$n" "$T" "$ROOT") >"$T/out" 2>&1
	rc=$?
	cat "$T/out"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$T/out"; then
		echo "FAIL rt/$n: exited with status $rc"
	fi
done
exit 0
