#!/bin/sh
# The execution tests (tests/exec) on the CUDA device without a GPU: the
# fake driver (fake_cuda.c) runs the PTX that cmetal generated in its
# simulator (ptxsim.h), and each test compares with its C reference as on
# a GPU.  Runs them as cmetal builds them by default ("sim/NAME"), with
# -fbounds-check ("sim-checked/NAME"), without warp packing
# ("sim-nopack/NAME") and with every value in the canonical layout
# ("sim-canonical/NAME"), all with one seed (the CPU device's exec suite
# varies its seeds), and compares the bytes of every output of every run
# with the default run's and with the CPU device's ("sim-same/VARIANT"):
# the layouts and the packing must not change a result, and the two
# devices must agree.  Prints "ok ..." / "FAIL ..." lines; a test listed
# below as unsupported in a variant prints "skip ..." with the reason
# instead of failing.  The variants run in two lanes at once (each is one
# simulator thread; SIM_JOBS=1: one after another), their lines printed in
# order at the end.  Run by tests/gpu/run.sh, which passes the directory
# of the fake libcuda.so.1 it built; alone:
#   tests/gpu/sim.sh [BUILD [FAKE_DIR]] [-- TEST...]
BUILD=${1:-build}
[ $# -gt 0 ] && shift
FAKE=
if [ $# -gt 0 ] && [ "$1" != -- ]; then
	FAKE=$1
	shift
fi
[ "${1:-}" = -- ] && shift
CC=${CC:-cc}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=$ROOT/$BUILD/libcmetal.a
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# variant:test: why it cannot run in the simulator
UNSUPPORTED='
sim-nopack:barrier_64: groups of 64 CM threads are cluster launches (rt/cuda_abi.h Clusters: DSMEM, cluster barriers), not simulated
sim-nopack:thread_ids_33: groups of 33 CM threads are cluster launches, not simulated
'

if [ ! -f "$LIB" ]; then
	echo "FAIL sim/build: $LIB not found"
	exit 0
fi
if [ -z "$FAKE" ]; then
	FAKE=$T/fake
	mkdir -p "$FAKE"
	if ! $CC -std=c11 -O2 -g -ffp-contract=off -shared -fPIC -I"$ROOT/src" \
		-o "$FAKE/libcuda.so.1" "$ROOT/tests/gpu/fake_cuda.c" "$ROOT"/tests/gpu/ptxsim*.c \
		-lm 2>"$T/err"; then
		echo "FAIL sim/fake_driver: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
		exit 0
	fi
fi
case $BUILD in *asan*) SAN="-fsanitize=address,undefined" ;; *) SAN= ;; esac
if ! $CC -std=c11 -D_GNU_SOURCE -O1 -g -ffp-contract=off $SAN -I"$ROOT/include" -o "$T/exec" \
	"$ROOT"/tests/exec/*.c "$LIB" -lpthread -ldl -lm 2>"$T/err"; then
	echo "FAIL sim/harness: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
	exit 0
fi

# run VARIANT OPTIONS [TEST...]: the harness's lines renamed to VARIANT/NAME
# (its files are its own: variants run at once)
run() {
	variant=$1
	options=$2
	shift 2
	err=$T/stderr-$variant
	[ -n "${PTXSIM_TRACE:-}" ] && err=/dev/stderr   # the trace, as it comes
	CMETAL_DEVICE=${DEVICE:-cuda} CMETAL_EXEC_OPTIONS=$options CMETAL_CACHE_DIR="$T/cache-$variant" \
		CMETAL_SEED=20261126 CMETAL_EXEC_DIGEST="$T/digest-$variant.txt" CMETAL_EXEC_SKIP="${SKIP:-}" \
		CMETAL_EXEC_DIR="$ROOT/tests/exec" LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$T/exec" "$@" >"$T/out-$variant" 2>"$err"
	rc=$?
	sed "s,^\(ok\|FAIL\) exec/,\1 $variant/," "$T/out-$variant" | while IFS= read -r line; do
		case $line in
		"FAIL $variant/"*)
			name=${line#FAIL $variant/}
			name=${name%% *}
			why=$(printf '%s\n' "$UNSUPPORTED" | grep "^$variant:$name:" | cut -d: -f3-)
			if [ -n "$why" ]; then
				echo "skip $variant/$name:$why"
				skipping=1
			else
				echo "$line"
				skipping=
			fi ;;
		" "*|"	"*) [ -n "${skipping:-}" ] || echo "$line" ;;
		*) skipping=; echo "$line" ;;
		esac
	done
	if [ $rc -ne 0 ]; then
		echo "FAIL $variant/harness: exited with status $rc"
		tail -n 5 "$T/stderr-$variant" | sed 's/^/    /'
	fi
}

# Tests that run in the default variant and on the CPU only: the kernels
# of bench/cm/hgemm_wg.cm take the simulator half a minute each in the
# default variant and minutes in the canonical one (2026-11-28: that
# variant took 500+ of the suite's 1,100 s), which CI's time cannot
# afford; the wgmma_* tests cover cm_wgmma in every variant.
SLOW='hgemm_wg hgemm_wga hgemm_wga_s3 hgemm_wga2 hgemm_wgp hgemm_wgp2 hgemm_wgs2 hgemm_wgs2_epi'
# and bench/cm/hgemm.cm's staged dgemm kernels at n = 256: 13-16 s each in
# the default variant (2026-11-29), far more in the others
SLOW="$SLOW dgemm_slm dgemm_async dgemm_async64 dgemm_async_shapes"

# variant:test: why its outputs may differ from the default run's (the
# tests themselves allow for it)
INEXACT='
sim-cpu:float_math: approximate builtins (cm_sin, cm_exp, ...): libm on the CPU, .approx on the GPU (docs/floating-point.md)
sim-cpu:float_forms: sin, cos, asin, acos, atan, tanh: approximate, libm on the CPU (docs/floating-point.md)
sim-cpu:sized_builtins: sin, cos, exp2, pow: approximate, libm on the CPU (docs/floating-point.md)
sim-cpu:hf_r8: cm_dpas adds its products in k order on the CPU, in the mma order on the GPU (docs/builtins.md)
sim-cpu:hf_slm: cm_dpas summation order (docs/builtins.md)
sim-cpu:bf_r8: cm_dpas summation order (docs/builtins.md)
sim-cpu:tf32_r4: cm_dpas summation order (docs/builtins.md)
sim-cpu:df_r1: cm_dpas summation order (docs/builtins.md)
sim-cpu:df_r8: cm_dpas summation order (docs/builtins.md)
sim-cpu:hgemm: cm_dpas summation order (docs/builtins.md)
sim-cpu:hgemm_bt: cm_dpas summation order (docs/builtins.md)
sim-cpu:hgemm_slm: cm_dpas summation order (docs/builtins.md)
sim-cpu:hf_pair: cm_dpas summation order (docs/builtins.md)
sim-cpu:tf32_pair: cm_dpas summation order (docs/builtins.md)
sim-cpu:df_pair: cm_dpas summation order (docs/builtins.md)
sim-cpu:hf_media: cm_dpas summation order (docs/builtins.md)
sim-cpu:hf_c_edge: cm_dpas summation order (docs/builtins.md)
sim-cpu:wgmma_n8: cm_wgmma adds its products in k order on the CPU, in the tensor core order on the GPU (docs/builtins.md)
sim-cpu:wgmma_n32: cm_wgmma summation order (docs/builtins.md)
sim-cpu:wgmma_n56: cm_wgmma summation order (docs/builtins.md)
sim-cpu:hgemm_wg: cm_wgmma summation order (docs/builtins.md)
sim-cpu:wgmma_pair: cm_wgmma summation order (docs/builtins.md)
sim-cpu:wgmma_sw128: cm_wgmma summation order (docs/builtins.md)
sim-cpu:wgmma_async: cm_wgmma summation order (docs/builtins.md)
'

# same VARIANT: its digest against the default run's, less the outputs of
# the tests it skips
same() {
	skipped=$(printf '%s\n%s\n' "$UNSUPPORTED" "$INEXACT" | grep "^$1:" | cut -d: -f2)
	[ "$1" = sim-cpu ] || skipped="$skipped $SLOW"
	for f in sim "$1"; do
		cp "$T/digest-$f.txt" "$T/cmp-$f.txt"
		for n in $skipped; do
			grep -v "^$n " "$T/cmp-$f.txt" >"$T/cmp.t"
			mv "$T/cmp.t" "$T/cmp-$f.txt"
		done
	done
	if [ ! -s "$T/cmp-sim.txt" ]; then
		echo "FAIL sim-same/$1: the default run recorded no output"
	elif cmp -s "$T/cmp-sim.txt" "$T/cmp-$1.txt"; then
		echo "ok sim-same/$1 ($(wc -l <"$T/cmp-sim.txt") outputs)"
	else
		echo "FAIL sim-same/$1: outputs differ from the default run's, in:" \
		     $(diff "$T/cmp-sim.txt" "$T/cmp-$1.txt" | sed -n 's/^[<>] \([^ ]*\) .*/\1/p' | sort -u)
	fi
}

# Two lanes of about equal time (on 2 cores, 2026-11-28: the default
# variant 108 s, checked 157, no packing 84, canonical and the CPU the
# rest), each variant's lines into $T/res-VARIANT.
lane1() {
	SKIP=$SLOW run sim-checked -fbounds-check "$@" >"$T/res-sim-checked"
	SKIP=$SLOW run sim-canonical -fptx-layout=canonical "$@" >"$T/res-sim-canonical"
}
lane2() {
	run sim "" "$@" >"$T/res-sim"
	SKIP=$SLOW run sim-nopack -fno-warp-packing "$@" >"$T/res-sim-nopack"
	DEVICE=cpu run sim-cpu "" "$@" >"$T/res-sim-cpu"
}
if [ "${SIM_JOBS:-2}" -gt 1 ]; then
	lane1 "$@" &
	lane2 "$@"
	wait
else
	lane1 "$@"
	lane2 "$@"
fi
cat "$T/res-sim" "$T/res-sim-checked" "$T/res-sim-nopack" "$T/res-sim-canonical"
grep -v '^ok ' "$T/res-sim-cpu"
for v in sim-canonical sim-nopack sim-cpu; do
	same $v
done
exit 0
