#!/bin/sh
# probe.sh — runs every finding of this directory again on a GPU machine,
# in the five modes of tests/gpu/diff.sh (difftest -g), and prints one
# line per finding:
#   fixed           the reduced kernel (NAME.min.cm) and the whole
#                   generated program (tests/diff/gen.py SEED) agree
#                   with the CPU in every mode
#   still differs   followed by difftest's report
# Usage, from the repository root after `make -j16`:
#   sh tests/diff/gpu-findings/probe.sh [BUILD]      (default build)
# Needs cc, python3 and the driver; about a minute on 16 cores.
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT" || exit 1
B=${1:-build}
D=tests/diff/gpu-findings
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if ! cc -std=c11 -D_GNU_SOURCE -O2 -Iinclude -o "$T/difftest" tests/diff/difftest.c \
	"$B/libcmetal.a" -lpthread -ldl -lm; then
	echo "probe: difftest does not build against $B/libcmetal.a (run make first)"
	exit 1
fi

# one finding: its reduced kernel and its whole program, one difftest run
probe() {
	name=$1
	seed=${name#*-}
	export CMETAL_CACHE_DIR="$T/cache-$name"
	python3 tests/diff/gen.py "$seed" -o "$T/$name.cm" || return
	if timeout 200 "$T/difftest" -g "$D/$name.min.cm" "$T/$name.cm" >"$T/$name.log" 2>&1; then
		echo "$name: fixed" >"$T/$name.res"
	else
		{ echo "$name: still differs"; grep -v '^ok ' "$T/$name.log" | cut -c1-400 |
			sed 's/^/    /'; } >"$T/$name.res"
	fi
}

n=0
for f in "$D"/*.min.cm; do
	probe "$(basename "$f" .min.cm)" &
	n=$((n + 1))
	[ $((n % 8)) -eq 0 ] && wait
done
wait
fixed=0
for f in "$D"/*.min.cm; do
	r=$T/$(basename "$f" .min.cm).res
	if [ -e "$r" ]; then cat "$r"; else echo "$(basename "$f" .min.cm): not run (gen.py failed)"; fi
	grep -q ': fixed$' "$r" 2>/dev/null && fixed=$((fixed + 1))
done
echo "probe: $fixed of $n findings fixed"
