#!/bin/sh
# The examples (examples/*.c with a .cm beside them): each is compiled
# against $BUILD/libcmetal.a, run on the CPU device (and on $CMETAL_DEVICE
# when set, as tests/rt does), and must exit 0 after checking its result
# against its C reference.  Usage: tests/examples/run.sh [BUILD]
BUILD=${1:-build}
CC=${CC:-cc}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=$ROOT/$BUILD/libcmetal.a
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
case $BUILD in *asan*) SAN="-fsanitize=address,undefined" ;; *) SAN= ;; esac
devices=cpu
[ -n "${CMETAL_DEVICE:-}" ] && [ "$CMETAL_DEVICE" != cpu ] && devices="cpu $CMETAL_DEVICE"
for c in "$ROOT"/examples/*.c; do
	name=$(basename "$c" .c)
	[ -e "$ROOT/examples/$name.cm" ] || continue
	# the C references round each operation, as the kernels do
	if ! $CC -std=c11 -O1 -g -ffp-contract=off $SAN -I"$ROOT/include" -I"$ROOT/examples" \
		-o "$T/$name" "$c" "$LIB" -lpthread -ldl -lm 2>"$T/err"; then
		echo "FAIL examples/$name: does not compile"
		sed 's/^/    /' "$T/err" | head -n 10
		continue
	fi
	for d in $devices; do
		if CMETAL_CACHE_DIR="$T/cache" "$T/$name" "$d" "$ROOT/examples" >"$T/out" 2>&1; then
			echo "ok examples/$name ($d): $(head -n 1 "$T/out")"
		else
			echo "FAIL examples/$name ($d)"
			sed 's/^/    /' "$T/out" | head -n 10
		fi
	done
done
