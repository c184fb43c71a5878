#!/bin/sh
# Runs every test suite (tests/*/run.sh) against the build directory given
# as $1 (default: build).  Each suite prints one line per test, "ok NAME"
# or "FAIL NAME" followed by indented details; this script shows the
# failures as they come, one progress line per suite when it ends
# ("[suite] NAME: N ok, N FAIL (S s)"), and at the end "N passed, N failed".
# Exit status is non-zero on any failure.
BUILD=${1:-build}
export BUILD
cd "$(dirname "$0")/.." || exit 1
log=$(mktemp)
one=$(mktemp)
trap 'rm -f "$log" "$one"' EXIT
for suite in tests/*/run.sh; do
	[ -x "$suite" ] || continue
	name=${suite#tests/}
	name=${name%/run.sh}
	t0=$(date +%s)
	"$suite" "$BUILD" 2>&1 | tee "$one" | grep -v '^ok ' || true
	cat "$one" >>"$log"
	echo "[suite] $name: $(grep -c '^ok ' "$one") ok, $(grep -c '^FAIL ' "$one") FAIL" \
	     "($(( $(date +%s) - t0 )) s)"
done
pass=$(grep -c '^ok ' "$log")
fail=$(grep -c '^FAIL ' "$log")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
