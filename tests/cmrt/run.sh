#!/bin/sh
# Intel-style CM hosts (host_*.cpp, over include/cm_rt.h) built with g++
# against $BUILD/libcmetal.a and run on the CPU device, and on
# $CMETAL_DEVICE too when that names a CUDA device.  Their kernels are the
# *_genx.cm files here, which cm::util::isa::loadFile finds in place of
# NAME_genx.isa.  Each host prints "ok NAME" / "FAIL NAME" lines.
BUILD=${1:-build}
CXX=${CXX:-g++}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=$ROOT/$BUILD/libcmetal.a
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if ! command -v "$CXX" >/dev/null 2>&1; then
	echo "(cmrt: skipped, no C++ compiler '$CXX')"
	exit 0
fi
if [ ! -f "$LIB" ]; then
	echo "FAIL cmrt/build: $LIB not found"
	exit 0
fi
case $BUILD in *asan*) SAN="-fsanitize=address,undefined" ;; *tsan*) SAN="-fsanitize=thread" ;; *) SAN= ;; esac
for h in "$ROOT"/tests/cmrt/host_*.cpp; do
	n=$(basename "$h" .cpp)
	if ! $CXX -std=c++11 -O1 -g -Wall -Wextra -Werror $SAN -I"$ROOT/include" -o "$T/$n" "$h" \
		"$LIB" -lpthread -ldl -lm 2>"$T/err"; then
		echo "FAIL cmrt/$n: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
		continue
	fi
	for dev in cpu ${CMETAL_DEVICE:+$CMETAL_DEVICE}; do
		case $dev in cpu|cuda*) ;; *) continue ;; esac
		CMETAL_DEVICE=$dev CMETAL_CACHE_DIR="$T/cache" "$T/$n" "$ROOT/tests/cmrt" >"$T/out" 2>&1
		rc=$?
		cat "$T/out"
		if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$T/out"; then
			echo "FAIL cmrt/$n@$dev: exited with status $rc"
		fi
		[ "$dev" = cpu ] && [ "${CMETAL_DEVICE:-cpu}" = cpu ] && break
	done
done
exit 0
