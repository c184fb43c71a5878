#!/bin/sh
# The Python package's tests (python/tests, pytest) against $BUILD's
# libcmetal.so, on $CMETAL_DEVICE (default cpu).  Each pytest test becomes an
# "ok python/FILE::TEST" or "FAIL python/FILE::TEST" line (pytest's report
# of failures follows, indented); skipped tests print "skip ..." lines.  Skipped with a message only where there is no python3; NumPy
# and pytest missing is a failure (.ci/run installs them).
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v python3 >/dev/null 2>&1; then
	echo "skip python/pytest: no python3 on this machine"
	exit 0
fi
# an ASan/UBSan build of the library needs the sanitizer runtime in the
# process, which a plain python3 does not have (make test-asan)
if nm -D "$ROOT/$BUILD/libcmetal.so" 2>/dev/null | grep -q '__asan_init'; then
	echo "skip python/pytest: $BUILD/libcmetal.so is an ASan build, which python3 cannot load"
	exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if ! python3 -c 'import numpy, pytest' 2>"$T/err"; then
	echo "FAIL python/pytest: numpy and pytest are needed (python3 -m pip install numpy pytest)"
	sed 's/^/    /' "$T/err" | tail -n 3
	exit 0
fi
(cd "$ROOT" && CMETAL_LIBRARY="$ROOT/$BUILD/libcmetal.so" CMETAL_CACHE_DIR="$T/cache" \
	PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}" \
	python3 -m pytest -v -rs -p no:cacheprovider python/tests) >"$T/out" 2>&1
rc=$?
sed -n 's|^python/tests/\([^ ]*\) PASSED.*|ok python/\1|p
s|^python/tests/\([^ ]*\) FAILED.*|FAIL python/\1|p
s|^python/tests/\([^ ]*\) ERROR.*|FAIL python/\1|p
s|^SKIPPED \[[0-9]*\] python/tests/\(.*\)|skip python/\1|p' "$T/out"
if [ $rc -ne 0 ]; then
	grep -q '^python/tests/.* \(FAILED\|ERROR\)' "$T/out" || echo "FAIL python/pytest: exit $rc"
	sed -n '/^=* \(FAILURES\|ERRORS\) =*$/,$p' "$T/out" | sed 's/^/    /' | tail -n 80
	grep -q '^python/tests/' "$T/out" || sed 's/^/    /' "$T/out" | tail -n 30
fi
exit 0
