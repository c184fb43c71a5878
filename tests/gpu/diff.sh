#!/bin/sh
# diff.sh — the differential tester on a GPU machine: random well-defined
# CM kernels (tests/diff/gen.py) run in every mode and compared byte for
# byte against the CPU at -O2:
#   cpu -O2 (reference), cpu -O0,
#   cuda -O2 -fptx-layout=auto, cuda -O2 -fptx-layout=canonical,
#   cuda -O0 -fptx-layout=auto (difftest -g).
# Usage: tests/gpu/diff.sh [SECONDS [OUTDIR [FIRST_SEED]]]
#   SECONDS     time budget (default 480); seeds are taken in order from
#               FIRST_SEED (default 100000) until it is spent
#   OUTDIR      default $OUT/diff, or build-gpu/out/diff
# Builds cmetal with make (BUILD=build-gpu) and tests/diff/difftest.c.
# Every mismatch or failure keeps the kernel (NAME-SEED.cm), the driver's
# report (.txt) and a reduced kernel (.min.cm, tests/diff/reduce.py) under
# OUTDIR.  Prints and writes OUTDIR/summary.txt, whose last line is
#   diff: N programs compared in 5 modes, M mismatches, F failures in Ts
# Needs gcc, make, python3 and the driver; runs one worker per two cores.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
BUDGET=${1:-480}
OUTDIR=${2:-${OUT:+$OUT/diff}}
OUTDIR=${OUTDIR:-$ROOT/build-gpu/out/diff}
FIRST=${3:-100000}
B=build-gpu
mkdir -p "$OUTDIR"
S=$OUTDIR/summary.txt
: >"$S"
say() { echo "$*" | tee -a "$S"; }
export PATH="$PATH:/usr/local/cuda/bin"
start=$(date +%s)
say "== cmetal differential test: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
say "commit: $(git rev-parse --short HEAD 2>/dev/null)"
if ! make -j"$(nproc)" BUILD=$B >"$OUTDIR/build.log" 2>&1; then
	say "BUILD FAILED:"; tail -n 30 "$OUTDIR/build.log" | tee -a "$S"
	exit 1
fi
DT=$ROOT/$B/difftest
if ! cc -std=c11 -D_GNU_SOURCE -O2 -Iinclude -o "$DT" tests/diff/difftest.c \
	$B/libcmetal.a -lpthread -ldl -lm 2>>"$OUTDIR/build.log"; then
	say "difftest does not compile"; exit 1
fi
W=$(( $(nproc) / 2 ))
[ "$W" -ge 1 ] || W=1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# worker K: seeds FIRST+K, FIRST+K+W, ... until the budget is spent
worker() {
	k=$1
	s=$((FIRST + k))
	export CMETAL_CACHE_DIR="$WORK/cache$k"
	while [ $(( $(date +%s) - start )) -lt "$BUDGET" ]; do
		f=$WORK/k$s.cm
		python3 tests/diff/gen.py "$s" -o "$f" || { echo "$s gen"; s=$((s + W)); continue; }
		"$DT" -g "$f" >"$WORK/r$s.txt" 2>&1
		rc=$?
		echo "$s $rc"
		if [ $rc -ne 0 ]; then
			kind=$([ $rc -eq 1 ] && echo mismatch || echo fail)
			cp "$f" "$OUTDIR/$kind-$s.cm"
			cp "$WORK/r$s.txt" "$OUTDIR/$kind-$s.txt"
			# interesting: the same exit status; for a failure, not a
			# build failure (a line-reduced kernel that no longer
			# compiles fails as well: fail-100087 was reduced so)
			printf '#!/bin/sh\nl=$(mktemp)\n"%s" -g "$1" >"$l" 2>&1\nrc=$?\n! grep -q "build failed: CM_BUILD" "$l"\nb=$?\nrm -f "$l"\n[ $rc -eq %d ] && { [ $rc -ne 2 ] || [ $b -eq 0 ]; }\n' \
				"$DT" $rc >"$WORK/int$s.sh"
			chmod +x "$WORK/int$s.sh"
			timeout 600 python3 tests/diff/reduce.py "$f" "$OUTDIR/$kind-$s.min.cm" \
				-- "$WORK/int$s.sh" >/dev/null 2>&1
		fi
		rm -f "$f" "$WORK/r$s.txt"
		rm -rf "$CMETAL_CACHE_DIR"
		s=$((s + W))
	done
}
k=0
while [ $k -lt $W ]; do
	worker $k >"$WORK/log$k" &
	k=$((k + 1))
done
wait
cat "$WORK"/log* >"$OUTDIR/seeds.txt"
n=$(grep -c ' [012]$' "$OUTDIR/seeds.txt")
mm=$(grep -c ' 1$' "$OUTDIR/seeds.txt")
ff=$(grep -c ' 2$' "$OUTDIR/seeds.txt")
for f in "$OUTDIR"/mismatch-*.txt "$OUTDIR"/fail-*.txt; do
	[ -e "$f" ] || continue
	say "$(basename "$f" .txt): $(head -c 400 "$f" | head -n 3)"
done
say "diff: $n programs compared in 5 modes, $mm mismatches, $ff failures in $(( $(date +%s) - start ))s (seeds $FIRST.., results in $OUTDIR)"
