#!/bin/sh
# run_all.sh — the whole GPU job in one call (for the GPU machine, under
# 10 minutes): builds cmetal, runs `make test` with CMETAL_DEVICE=cuda (so
# tests/exec runs every kernel on the GPU, and tests/gpu runs its GPU smoke
# test), runs the microbenchmarks (tests/gpu/bench.c, every part, with the
# group-size sweep of issue 11; every line of its output goes into the
# summary), counts SHFL in the SASS of the strided-select kernel, and
# prints a summary with the device, the driver version and the date.  It also runs the execution tests once
# per PTX layout mode (-fptx-layout=auto, canonical) and with warp
# packing off (-fno-warp-packing) with one seed and compares the bytes of
# every output with the default run's.  Everything goes under $OUT (default
# build-gpu/out): summary.txt, and run_all.tar.gz holding build.log,
# test.log, exec-MODE.log, digest-MODE.txt, bench.txt, strided.ptx,
# strided.sass (two files: the device machine returns at most 8 from its
# $OUT, and a run that left 15 lost its test.log and summary).  Needs gcc,
# make and the driver; ptxas/cuobjdump optional.
# Usage: tests/gpu/run_all.sh     (from anywhere)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
B=build-gpu
OUT=${OUT:-$ROOT/$B/out}
mkdir -p "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"
S=$OUT/summary.txt
: >"$S"
say() { echo "$*" | tee -a "$S"; }

say "== cmetal GPU run: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
say "commit: $(git rev-parse --short HEAD 2>/dev/null) $(git status --porcelain 2>/dev/null | wc -l) changed files"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null |
	sed 's/^/gpu: /' | tee -a "$S"

# 1. build
t0=$(date +%s)
if ! make -j16 BUILD=$B >"$OUT/build.log" 2>&1; then
	say "BUILD FAILED (last lines of build.log):"
	tail -n 40 "$OUT/build.log" | tee -a "$S"
	exit 1
fi
say "build: ok in $(( $(date +%s) - t0 ))s"

# 2. the tests, execution tests on the GPU
t0=$(date +%s)
# The suites that launch kernels on the device by default: the whole
# `make test` no longer fits the call's 10 minutes, and the others run
# the same on any machine (CI runs them); GPU_SUITES=all for every one.
suites=${GPU_SUITES:-bench cmrt examples exec gpu python rt}
[ "$suites" = all ] && suites=
CMETAL_DEVICE=cuda TEST_JOBS=8 TEST_SUITES=$suites timeout 330 make test BUILD=$B >"$OUT/test.log" 2>&1
rc=$?
say "make test (CMETAL_DEVICE=cuda, suites: ${suites:-all}): rc=$rc in $(( $(date +%s) - t0 ))s: $(grep -E '^[0-9]+ passed' "$OUT/test.log" | tail -n 1)"
[ $rc -eq 124 ] && say "  (timed out after 330s)"
grep -E '^ok (rt/)?gpu/' "$OUT/test.log" | sed 's/^/  /' | head -n 8 | tee -a "$S" >/dev/null
grep -A3 '^FAIL' "$OUT/test.log" | head -n 120 | sed 's/^/  /' | tee -a "$S"

# 2b. the execution tests again, with each PTX layout mode and with warp
# packing on (the default) and off, one seed: all must pass, and every
# output of every run must be the same bytes.  $EXEC_MODES picks a subset
# (e.g. EXEC_MODES="auto nopack" for packing alone).
t0=$(date +%s)
# The hgemm_wg.cm tests run in the default mode only: their module takes
# the driver minutes to JIT in every other, past the mode's 150 s.
SLOW="hgemm_wg hgemm_wga hgemm_wga_s3 hgemm_wga2 hgemm_wgp hgemm_wgp2 hgemm_wgs2 hgemm_wgs2_epi"
for mode in ${EXEC_MODES:-auto canonical nopack}; do
	case $mode in nopack) opt=-fno-warp-packing ;; *) opt=-fptx-layout=$mode ;; esac
	skip=$SLOW
	[ "$mode" = auto ] && skip=
	CMETAL_SEED=20261125 CMETAL_DEVICE=cuda CMETAL_EXEC_OPTIONS=$opt CMETAL_EXEC_SKIP="$skip" \
		CMETAL_EXEC_DIGEST="$OUT/digest-$mode.txt" timeout 150 \
		sh tests/exec/run.sh $B >"$OUT/exec-$mode.log" 2>&1
	say "exec $opt: $(grep -c '^ok' "$OUT/exec-$mode.log") ok," \
	    "$(grep -c '^FAIL' "$OUT/exec-$mode.log") failed, $(wc -l <"$OUT/digest-$mode.txt") outputs"
	grep -A3 '^FAIL' "$OUT/exec-$mode.log" | head -n 40 | sed 's/^/  /' | tee -a "$S"
	[ "$mode" = auto ] && continue
	grep -v -E "^($(echo $SLOW | tr ' ' '|')) " "$OUT/digest-auto.txt" >"$OUT/digest-auto-$mode.txt"
	if cmp -s "$OUT/digest-auto-$mode.txt" "$OUT/digest-$mode.txt"; then
		say "exec auto/$mode: identical outputs ($(( $(date +%s) - t0 ))s)"
	else
		say "exec auto/$mode: OUTPUTS DIFFER:"
		diff "$OUT/digest-auto-$mode.txt" "$OUT/digest-$mode.txt" | head -n 20 | tee -a "$S"
	fi
done

# 3. microbenchmarks (the group-size sweep, part 7, about 10-15 s of
# them; BENCH_ONLY=sweep, slm or pack in the environment runs one part)
if cc -std=c11 -D_GNU_SOURCE -O2 -Iinclude -Isrc -o "$B/gpu_bench" tests/gpu/bench.c \
	"$B/libcmetal-internal.a" -lpthread -ldl -lm 2>"$OUT/bench_build.log"; then
	timeout 150 "$B/gpu_bench" tests/gpu "$OUT" >"$OUT/bench.txt" 2>&1
	say "bench: rc=$?"
	sed 's/^/  /' "$OUT/bench.txt" | tee -a "$S"
else
	say "bench: does not compile"; sed 's/^/  /' "$OUT/bench_build.log" | head -n 20 | tee -a "$S"
fi

# 4. shuffles in the SASS of the strided select
if [ -f "$OUT/strided.ptx" ] && command -v ptxas >/dev/null && command -v cuobjdump >/dev/null; then
	arch=$(sed -n 's/^\.target \(sm_[0-9a-z]*\).*/\1/p' "$OUT/strided.ptx" | head -n 1)
	if ptxas -arch="${arch:-sm_90}" -o "$OUT/strided.cubin" "$OUT/strided.ptx" 2>>"$OUT/bench.txt"; then
		cuobjdump -sass "$OUT/strided.cubin" >"$OUT/strided.sass" 2>&1
		say "strided_shfl_in_sass: $(grep -c 'SHFL' "$OUT/strided.sass")"
	fi
fi
say "== done: $(date -u '+%H:%M:%S UTC')"

# 5. everything but the summary into one archive beside it (written
# outside $OUT first: tar fails on an archive growing in the folder it reads)
tgz=$(mktemp "${TMPDIR:-/tmp}/run_all.XXXXXX")
if (cd "$OUT" && tar czf "$tgz" --exclude=./summary.txt .) && mv "$tgz" "$OUT/run_all.tar.gz"; then
	find "$OUT" -mindepth 1 -maxdepth 1 ! -name summary.txt ! -name run_all.tar.gz \
		-exec rm -rf {} +
else
	rm -f "$tgz"
	say "packing failed: the files stay as they are"
fi
