#!/bin/sh
# Runs every test suite (tests/*/run.sh) against the build directory given
# as $1 (default: build).  Each suite prints one line per test, "ok NAME"
# or "FAIL NAME" followed by indented details; this script shows the
# failures as they come, one progress line per suite when it ends
# ("[suite] NAME: N ok, N FAIL (S s)"), and at the end "N passed, N failed".
# Exit status is non-zero on any failure.
#
# TEST_JOBS=N runs up to N suites at once (default 1, one after another):
# for a many-core machine such as the GPU machine, where the suites that
# launch kernels spend most of their time waiting on the driver.  The
# failures and progress lines then come at the end, in suite order; each
# suite's line also goes to stderr as "[done] ..." when it ends, so a run
# cut by a time limit still shows the suites that finished.
#
# TEST_SUITES="exec gpu ..." runs only the suites named (default: all).
BUILD=${1:-build}
export BUILD
cd "$(dirname "$0")/.." || exit 1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
jobs=${TEST_JOBS:-1}

# one_suite SUITE: its output into $dir/NAME.out, its progress line into
# $dir/NAME.line (and to stderr, as "[done] ...")
one_suite='
	name=${1#tests/}; name=${name%/run.sh}; t0=$(date +%s)
	"$1" "$BUILD" >"$dir/$name.out" 2>&1
	echo "[suite] $name: $(grep -c "^ok " "$dir/$name.out") ok, $(grep -c "^FAIL " "$dir/$name.out") FAIL ($(( $(date +%s) - t0 )) s)" >"$dir/$name.line"
	sed "s/^\[suite\]/[done]/" "$dir/$name.line" >&2'

suites=$(for s in tests/*/run.sh; do [ -x "$s" ] && echo "$s"; done)
if [ -n "${TEST_SUITES:-}" ]; then
	for n in $TEST_SUITES; do
		[ -x "tests/$n/run.sh" ] || { echo "tests/run.sh: no suite tests/$n" >&2; exit 2; }
	done
	suites=$(for n in $TEST_SUITES; do echo "tests/$n/run.sh"; done)
fi
if [ "$jobs" -le 1 ]; then
	for suite in $suites; do
		name=${suite#tests/}
		name=${name%/run.sh}
		t0=$(date +%s)
		"$suite" "$BUILD" 2>&1 | tee "$dir/$name.out" | grep -v '^ok ' || true
		echo "[suite] $name: $(grep -c '^ok ' "$dir/$name.out") ok," \
		     "$(grep -c '^FAIL ' "$dir/$name.out") FAIL ($(( $(date +%s) - t0 )) s)"
	done
else
	export dir
	echo "$suites" | xargs -P "$jobs" -n 1 sh -c "$one_suite" sh
	for line in "$dir"/*.line; do
		name=$(basename "$line" .line)
		grep -v '^ok ' "$dir/$name.out" || true
		cat "$line"
	done
fi
cat "$dir"/*.out >"$dir/all"
pass=$(grep -c '^ok ' "$dir/all")
fail=$(grep -c '^FAIL ' "$dir/all")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
