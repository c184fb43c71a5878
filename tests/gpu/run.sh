#!/bin/sh
# CUDA device tests that run anywhere: test_cuda.c against this machine
# ("host": without a driver opening cuda must fail clearly and auto must
# give the CPU; with a GPU a CM kernel runs), then against the fake driver
# fake_cuda.c built as libcuda.so.1 ("fake": the whole device without a
# GPU); then test_tasks.c (tasks of several entries against the fake
# driver); then bench.c (run_all.sh's microbenchmarks) on the fake driver,
# and its group-size sweep in the simulator; then sim.sh (tests/exec on
# the fake driver, whose simulator runs the PTX cmetal generated); then
# cluster.c (groups of 33..256 CM threads) on the CPU device, and on CUDA
# too when CMETAL_DEVICE=cuda.
# Prints "ok NAME" / "FAIL NAME" lines.  run_all.sh (not run here) is the
# full GPU job.
BUILD=${1:-build}
CC=${CC:-cc}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=$ROOT/$BUILD/libcmetal-internal.a   # test_cuda.c calls the device's functions
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [ ! -f "$LIB" ]; then
	echo "FAIL gpu/build: $LIB not found"
	exit 0
fi
case $BUILD in *asan*) SAN="-fsanitize=address,undefined" ;; *) SAN= ;; esac
mkdir -p "$T/fake"
if ! $CC -std=c11 -O2 -g -ffp-contract=off -shared -fPIC -I"$ROOT/src" -o "$T/fake/libcuda.so.1" \
	"$ROOT/tests/gpu/fake_cuda.c" "$ROOT"/tests/gpu/ptxsim*.c -lm 2>"$T/err"; then
	echo "FAIL gpu/fake_driver: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
	exit 0
fi
if ! $CC -std=c11 -D_GNU_SOURCE -O1 -g $SAN -I"$ROOT/include" -I"$ROOT/src" -o "$T/test_cuda" \
	"$ROOT/tests/gpu/test_cuda.c" "$LIB" -lpthread -ldl -lm 2>"$T/err"; then
	echo "FAIL gpu/test_cuda: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
	exit 0
fi
for mode in host fake; do
	if [ $mode = fake ]; then
		LD_LIBRARY_PATH="$T/fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
			"$T/test_cuda" $mode "$T" >"$T/out" 2>&1
	else
		"$T/test_cuda" $mode "$T" >"$T/out" 2>&1
	fi
	rc=$?
	cat "$T/out"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$T/out"; then
		echo "FAIL gpu/test_cuda_$mode: exited with status $rc"
	fi
done
# tasks of several entries (one synchronization a task) on the fake driver
if $CC -std=c11 -D_GNU_SOURCE -O1 -g $SAN -I"$ROOT/include" -I"$ROOT/src" -o "$T/test_tasks" \
	"$ROOT/tests/gpu/test_tasks.c" "$LIB" -lpthread -ldl -lm 2>"$T/err"; then
	mkdir -p "$T/tasks"
	CMETAL_CACHE_DIR="$T/tasks/cache" LD_LIBRARY_PATH="$T/fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$T/test_tasks" "$T/tasks" >"$T/out" 2>&1
	rc=$?
	cat "$T/out"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$T/out"; then
		echo "FAIL gpu/test_tasks: exited with status $rc"
	fi
else
	echo "FAIL gpu/test_tasks: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
fi
# run_all.sh's microbenchmarks look inside runtime objects: run them
# against the fake driver (1 MB, a sweep of 100 CM threads, its simulator
# off: they time launches, and their checks print NO and FAIL lines that
# are not looked at) so that they keep up with the runtime; then the
# group-size sweep (BENCH_ONLY=sweep) at a test size in the simulator,
# where every setting's output is checked (its timings mean nothing there)
if $CC -std=c11 -D_GNU_SOURCE -O1 -g $SAN -I"$ROOT/include" -I"$ROOT/src" -o "$T/gpu_bench" \
	"$ROOT/tests/gpu/bench.c" "$LIB" -lpthread -ldl -lm 2>"$T/err"; then
	if BENCH_MB=1 BENCH_SWEEP_N=100 BENCH_SWEEP_REPS=1 FAKE_CUDA_NO_SIM=1 \
		LD_LIBRARY_PATH="$T/fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$T/gpu_bench" "$ROOT/tests/gpu" "$T" >"$T/out" 2>&1; then
		echo "ok gpu/bench_fake"
	else
		echo "FAIL gpu/bench_fake: exited with status $?"; tail -n 5 "$T/out" | sed 's/^/    /'
	fi
	BENCH_ONLY=sweep BENCH_SWEEP_N=100 BENCH_SWEEP_ITERS=3 BENCH_SWEEP_REPS=1 \
		LD_LIBRARY_PATH="$T/fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$T/gpu_bench" "$ROOT/tests/gpu" >"$T/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q '^FAIL' "$T/out" &&
		grep -q '^sweep_summary: 4 swept .*, 0 failed; refused (SLM or a barrier): slm_tile slm_stencil;' "$T/out"; then
		echo "ok gpu/bench_sweep_sim ($(grep -c '^sweep_[a-z0-9]*: n ' "$T/out") kernels, auto and G = 1..32, outputs checked)"
	else
		echo "FAIL gpu/bench_sweep_sim: exited with status $rc"
		{ grep '^FAIL\|^sweep_summary\|^error' "$T/out" | head -n 10; tail -n 3 "$T/out"; } | sed 's/^/    /'
	fi
else
	echo "FAIL gpu/bench_fake: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
fi
# the execution tests' real PTX, run by the fake driver's simulator
"$ROOT/tests/gpu/sim.sh" "$BUILD" "$T/fake"
if ! $CC -std=c11 -D_GNU_SOURCE -O1 -g $SAN -I"$ROOT/include" -o "$T/cluster" \
	"$ROOT/tests/gpu/cluster.c" "$LIB" -lpthread -ldl -lm 2>"$T/err"; then
	echo "FAIL gpu/cluster: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
	exit 0
fi
for dev in cpu ${CMETAL_DEVICE:+$CMETAL_DEVICE}; do
	case $dev in cpu|cuda*) ;; *) continue ;; esac
	[ "$dev" = cpu ] || echo "(cluster on $dev)"
	CMETAL_CACHE_DIR="$T/cache" "$T/cluster" "$dev" || true
done
exit 0
