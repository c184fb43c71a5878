#!/bin/sh
# Runs every test suite (tests/*/run.sh) against the build directory given
# as $1 (default: build).  Each suite prints one line per test, "ok NAME"
# or "FAIL NAME" followed by indented details; this script counts them and
# prints "N passed, N failed".  Exit status is non-zero on any failure.
BUILD=${1:-build}
export BUILD
cd "$(dirname "$0")/.." || exit 1
log=$(mktemp)
for suite in tests/*/run.sh; do
	[ -x "$suite" ] || continue
	"$suite" "$BUILD" 2>&1 | tee -a "$log" | grep -v '^ok ' || true
done
pass=$(grep -c '^ok ' "$log")
fail=$(grep -c '^FAIL ' "$log")
rm -f "$log"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
