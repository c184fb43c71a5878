#!/bin/sh
# The libraries as users link them: the shared library's SONAME and
# symlinks.  Prints "ok lib/NAME" or "FAIL lib/NAME".
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/$BUILD
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# libcmetal.so -> libcmetal.so.MAJOR -> libcmetal.so.MAJOR.MINOR.PATCH,
# and the SONAME is libcmetal.so.MAJOR
h=$ROOT/include/cmetal.h
v=$(sed -n 's/^#define CMETAL_VERSION_STRING "\(.*\)"$/\1/p' "$h")
major=${v%%.*}
so=$(readelf -d "$B/libcmetal.so.$v" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
if [ "$so" = "libcmetal.so.$major" ] && [ "$(readlink "$B/libcmetal.so")" = "libcmetal.so.$major" ] &&
   [ "$(readlink "$B/libcmetal.so.$major")" = "libcmetal.so.$v" ]; then
	echo "ok lib/soname"
else
	echo "FAIL lib/soname: SONAME '$so', libcmetal.so -> '$(readlink "$B/libcmetal.so")'," \
	     "libcmetal.so.$major -> '$(readlink "$B/libcmetal.so.$major")' (version $v)"
fi
exit 0
