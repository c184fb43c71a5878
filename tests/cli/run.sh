#!/bin/sh
# Command-line tests of build/cmetal: options, exit statuses (clang's: 0
# success, 1 any error), outputs.  Each case prints "ok cli/NAME" or
# "FAIL cli/NAME" with the command's output.
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CMETAL=$ROOT/$BUILD/cmetal
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 0

# expect NAME STATUS PATTERN CMD...: CMD exits with STATUS and its stdout
# and stderr together match the grep -E PATTERN ("" for any output).
expect() {
	name=$1 want=$2 pat=$3
	shift 3
	"$@" >"$T/out" 2>&1
	rc=$?
	if [ $rc -ne "$want" ]; then
		echo "FAIL cli/$name: status $rc, expected $want"; sed 's/^/    /' "$T/out" | head -n 20
	elif [ -n "$pat" ] && ! grep -Eq -- "$pat" "$T/out"; then
		echo "FAIL cli/$name: output does not match /$pat/"; sed 's/^/    /' "$T/out" | head -n 20
	else
		echo "ok cli/$name"
	fi
}

# the version: clang's layout, the header's version
hv=$(sed -n 's/^#define CMETAL_VERSION_STRING "\(.*\)"$/\1/p' "$ROOT/include/cmetal.h")
expect version 0 "^cmetal version $hv\$" "$CMETAL" --version
expect version_installed_dir 0 "^InstalledDir: $ROOT/$BUILD\$" "$CMETAL" --version

# every option --help names is accepted (with a value where it takes one)
cat >k.cm <<'CM'
extern "C" _GENX_MAIN_ void twice(SurfaceIndex buf) {
  vector<int, 8> v; read(buf, 0, v); v *= 2; write(buf, 0, v);
}
CM
bad=
for opt in $("$CMETAL" --help | awk '/^  -/ { sub(/^  /, ""); sub(/  .*/, ""); n = split($0, w, ", ");
                                          for (i = 1; i <= n; i++) { split(w[i], x, " "); print x[1] } }'); do
	case $opt in
	-o|-MF|-MT) set -- "$opt" "$T/opt.out" ;;
	-t) set -- -t c ;;
	-D|-U) set -- "$opt" X ;;
	-I) set -- -I . ;;
	-d) set -- -d fold ;;
	-march=ARCH) set -- -march=sm_80 ;;
	-ferror-limit=N) set -- -ferror-limit=5 ;;
	-fptx-layout=MODE) set -- -fptx-layout=canonical ;;
	-ffp-contract=MODE) set -- -ffp-contract=fast ;;
	--analyze-grid=N*) set -- --analyze-grid=64,2 ;;
	-W...) set -- -Wfoo ;;
	*) set -- "$opt" ;;
	esac
	"$CMETAL" "$@" -S k.cm -o "$T/opt.out" </dev/null >"$T/o" 2>&1
	grep -q 'unknown option\|missing argument' "$T/o" && bad="$bad $*"
done
if [ -z "$bad" ]; then echo "ok cli/help_options_exist"; else echo "FAIL cli/help_options_exist: rejected:$bad"; fi
expect help_passes 0 '^  dce ' "$CMETAL" --help-passes

# clang's exit statuses: 1 for every error, usage errors included
printf 'void f() { int x = ; }\n' >bad.cm
expect status_unknown_option 1 "unknown option '-bogus'" "$CMETAL" -bogus k.cm
expect status_no_input 1 "no input files" "$CMETAL" -S
expect status_missing_value 1 "missing argument to '-o'" "$CMETAL" k.cm -o
expect status_missing_file 1 "" "$CMETAL" -fsyntax-only nothere.cm
expect status_compile_error 1 "error" "$CMETAL" -fsyntax-only bad.cm
expect status_unknown_target 1 "unknown target 'gpu'" "$CMETAL" -t gpu k.cm
expect status_unknown_pass 1 "unknown pass 'nope'" "$CMETAL" -S -t ir -d nope k.cm

# -Wall and friends are accepted; -Wno-error undoes -Werror
expect warning_flags 0 "" "$CMETAL" -Wall -Wextra -Wno-unused -Wshadow -Werror -Wno-error -fsyntax-only k.cm

# binaries: -t c (or cpu) makes a kernel library the CPU device loads
case $BUILD in *asan*) SAN="-fsanitize=address,undefined" ;; *tsan*) SAN="-fsanitize=thread" ;; *) SAN= ;; esac
if ! ${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 $SAN -I"$ROOT/include" -o load "$ROOT/tests/cli/load.c" \
	"$ROOT/$BUILD/libcmetal.a" -lpthread -ldl -lm >"$T/out" 2>&1; then
	echo "FAIL cli/load: does not compile"; sed 's/^/    /' "$T/out" | head -n 20
fi
export CMETAL_CACHE_DIR="$T/cache"
expect c_binary_default_name 0 "" "$CMETAL" -c -t c k.cm
expect c_binary_loads 0 "^doubled$" ./load cpu k.so
expect cpu_binary_named 0 "" "$CMETAL" -t cpu k.cm -o named.so
# the floating-point contract reaches the C compiler (docs/floating-point.md)
expect fp_contract_default 0 " -ffp-contract=off " "$CMETAL" -v -c -t c k.cm -o fp.so
expect fp_contract_fast 0 " -ffp-contract=fast " "$CMETAL" -v -c -t c -ffast-math k.cm -o fp.so
expect cpu_binary_loads 0 "^doubled$" ./load cpu named.so
expect c_binary_stdout 0 "" sh -c "'$CMETAL' -c -t c k.cm -o - >piped.so"
expect c_binary_stdout_loads 0 "^doubled$" ./load cpu ./piped.so
expect c_binary_bad_cc 1 "the C compiler failed" env CC=false "$CMETAL" -c -t c k.cm -o nocc.so

# the PTX target's binary: a container with the PTX and, with ptxas, the
# cubin; the CUDA device loads it (here through the fake driver of
# tests/gpu, which runs nothing but says whether it got a cubin)
mkdir -p fake
${CC:-cc} -std=c11 -O1 -shared -fPIC -ffp-contract=off -I"$ROOT/src" -o fake/libcuda.so.1 "$ROOT/tests/gpu/fake_cuda.c" \
	"$ROOT"/tests/gpu/ptxsim*.c -lm
expect ptx_binary_default 0 "" "$CMETAL" k.cm
if head -n 1 k.cmbin | grep -q '^//@cmetal binary 1$'; then
	echo "ok cli/ptx_binary_container"
else
	echo "FAIL cli/ptx_binary_container: k.cmbin does not start with the container's line"
fi
nopath=/usr/bin:/bin
[ -x /usr/bin/ptxas ] && nopath=/nonexistent
expect ptx_binary_without_ptxas 0 "" env -u PTXAS PATH="$nopath" "$CMETAL" -c -t ptx k.cm -o noptxas.cmbin
if grep -aq '^cubin ' noptxas.cmbin; then
	echo "FAIL cli/ptx_binary_without_ptxas_has_no_cubin"
else
	echo "ok cli/ptx_binary_without_ptxas_has_no_cubin"
fi
expect ptx_binary_loads_ptx 0 "^ptx loaded$" env LD_LIBRARY_PATH="$T/fake" ./load cuda noptxas.cmbin
if command -v ptxas >/dev/null 2>&1 || [ -n "${PTXAS:-}" ]; then
	expect ptx_binary_has_cubin 0 "^cubin sm_86 " sh -c "'$CMETAL' -c -march=sm_86 k.cm -o k86.cmbin && grep -a '^cubin ' k86.cmbin"
	expect ptx_binary_loads_cubin 0 "^cubin loaded$" env LD_LIBRARY_PATH="$T/fake" ./load cuda k86.cmbin
	expect ptx_binary_cubin_fallback 0 "does not load its cubin.*JIT-compiling its PTX" \
		env LD_LIBRARY_PATH="$T/fake" FAKE_CUDA_NO_CUBIN=1 ./load cuda k86.cmbin
	expect ptx_binary_bad_ptxas 1 "ptxas failed" env PTXAS=false "$CMETAL" -c k.cm -o bad.cmbin
else
	echo "ok cli/ptx_binary_has_cubin (skipped: no ptxas)"
fi
expect cpu_refuses_gpu_binary 1 "is a program for the CUDA device" ./load cpu k.cmbin
expect cuda_refuses_cpu_binary 1 "neither PTX nor a cmetal binary" env LD_LIBRARY_PATH="$T/fake" ./load cuda k.so
head -c 300 k.cmbin >cut.cmbin
expect cuda_refuses_damaged_binary 1 "damaged cmetal binary" env LD_LIBRARY_PATH="$T/fake" ./load cuda cut.cmbin

# '-' reads standard input
"$CMETAL" -S -t ir k.cm -o - | sed 's/"k.cm"/"<stdin>"/' >file.ir
expect stdin_text 0 "" sh -c "'$CMETAL' -S -t ir - <k.cm | cmp - file.ir"
expect stdin_binary 0 "" sh -c "'$CMETAL' -c -t c - <k.cm && test -f a.so"
expect stdin_binary_loads 0 "^doubled$" ./load cpu ./a.so
expect stdin_error_names_stdin 1 "^<stdin>:1:" sh -c "'$CMETAL' -fsyntax-only - <bad.cm"

# dependencies: -M prints the rule, -MD writes NAME.d beside the output,
# -MF and -MT choose the file and the target
mkdir -p inc objs
printf '#define TWO 2\n' >inc/two.h
printf '#include "two.h"\n' >d.cm
cat k.cm >>d.cm
expect deps_M 0 "" sh -c "'$CMETAL' -M -I inc d.cm >d.rule && printf 'd.cmbin: d.cm \\\\\\n  inc/two.h\\n' | cmp - d.rule"
expect deps_MD 0 "" sh -c "'$CMETAL' -MD -I inc -c -t c d.cm -o objs/d.so && test -f objs/d.so &&
	printf 'objs/d.so: d.cm \\\\\\n  inc/two.h\\n' | cmp - objs/d.d"
expect deps_MF_MT 0 "" sh -c "'$CMETAL' -MD -MF deps.mk -MT mytarget -I inc -S -t ir d.cm -o d.ir &&
	printf 'mytarget: d.cm \\\\\\n  inc/two.h\\n' | cmp - deps.mk"
expect deps_missing_include 1 "two.h" "$CMETAL" -M d.cm

# -v: the version and the commands run
expect verbose 0 "^cmetal version .*|^ .*-shared -fPIC" "$CMETAL" -v -c -t c k.cm -o v.so
expect verbose_shows_cc 0 "-shared -fPIC -o 'v2.so'" "$CMETAL" -v -c -t c k.cm -o v2.so

# several inputs: each is checked or compiled on its own
cp k.cm k2.cm
expect several_check 0 "" "$CMETAL" -fsyntax-only k.cm k2.cm
expect several_binaries 0 "" sh -c "rm -f k.so k2.so; '$CMETAL' -c -t c k.cm k2.cm && test -f k.so && test -f k2.so"
expect several_one_bad 1 "bad.cm" sh -c "rm -f k2.so; '$CMETAL' -c -t c bad.cm k2.cm; rc=\$?; test -f k2.so && exit \$rc"
expect several_with_o 1 "cannot specify -o when generating multiple output files" \
	"$CMETAL" -c -t c k.cm k2.cm -o x.so
expect several_text_stdout 0 "" sh -c "'$CMETAL' -S -t ir k.cm k2.cm -o - | grep -c '^kernel @twice' | grep -qx 2"
expect stdin_twice 1 "more than once" "$CMETAL" -fsyntax-only - -

# -march: the PTX architectures the back end knows, and a clear error for others
for a in sm_80 sm_86 sm_87 sm_89 sm_90 sm_90a sm_100 sm_100a sm_100f sm_103 sm_103a sm_103f \
	sm_110 sm_110a sm_110f sm_120 sm_120a sm_120f sm_121 sm_121a sm_121f; do
	expect "march_$a" 0 "" sh -c "'$CMETAL' -S -march=$a k.cm -o - | grep -q '^\\.target $a\$'"
done
# each with a PTX version ptxas accepts for it (when ptxas is there)
if command -v ptxas >/dev/null 2>&1; then
	for a in sm_100 sm_103a sm_110f sm_120 sm_121a; do
		expect "march_ptxas_$a" 0 "" sh -c "'$CMETAL' -S -march=$a k.cm -o k-$a.ptx && ptxas -arch=$a k-$a.ptx -o k-$a.cubin"
	done
fi
expect march_101 1 "unknown PTX architecture 'sm_101'" "$CMETAL" -S -march=sm_101 k.cm -o -
expect march_unknown 1 "unknown PTX architecture 'sm_75'" "$CMETAL" -S -march=sm_75 k.cm -o -
expect march_garbage 1 "unknown PTX architecture 'sm_x'" "$CMETAL" -S -march=sm_x k.cm -o -
# cm_wgmma (cmetal): sm_90's PTX becomes sm_90a; other targets and clusters are errors
cat >wg.cm <<'CM'
extern "C" _GENX_MAIN_ void wg(SurfaceIndex o) {
  cm_slm_init(4096); matrix<float, 16, 8> acc = 0;
  acc = cm_wgmma<CM_PRECISION_HF, CM_PRECISION_HF, 8>(acc, 0, 2048); write(o, 0, acc.row(0));
}
CM
expect wgmma_sm90a 0 "" sh -c "'$CMETAL' -S wg.cm -o - | grep -q '^\.target sm_90a\$'"
expect wgmma_sm80 1 "cm_wgmma needs an sm_90 GPU .*this build targets sm_80" \
	"$CMETAL" -S -march=sm_80 wg.cm -o -
expect wgmma_sm100 1 "this build targets sm_100" "$CMETAL" -S -march=sm_100 wg.cm -o -
expect wgmma_cluster 1 "cm_wgmma cannot run in groups of more than 32" \
	"$CMETAL" -S -fcluster-slm wg.cm -o -
exit 0
