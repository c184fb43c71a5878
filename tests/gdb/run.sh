#!/bin/sh
# Debugging kernels on the CPU device (docs/runtime.md): host.c builds
# dbg.cm with -g through the C API; gdb, in batch mode, stops on a CM source
# line of the saved source (named in the build log) and prints CM variables
# by their C names (v<id>_<name>), which must hold the right values, and
# the CM source line itself.  Skipped, with a message, when gdb is absent.
BUILD=${1:-build}
CC=${CC:-cc}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=$ROOT/$BUILD/libcmetal.a
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if ! command -v gdb >/dev/null 2>&1; then
	echo "ok gdb/skipped: gdb is not installed (apt-get install gdb; .ci/run does)"
	exit 0
fi
case $BUILD in *asan*) SAN="-fsanitize=address,undefined" ;; *) SAN= ;; esac
if ! $CC -std=c11 -D_GNU_SOURCE -O1 -g $SAN -I"$ROOT/include" -o "$T/host" \
	"$ROOT/tests/gdb/host.c" "$LIB" -lpthread -ldl -lm 2>"$T/err"; then
	echo "FAIL gdb/build: does not compile"; sed 's/^/    /' "$T/err" | head -n 20
	exit 0
fi
export CMETAL_CACHE_DIR="$T/cache"
# the first run builds (and checks the result); its log names the source
if ! "$T/host" "$ROOT/tests/gdb/dbg.cm" >"$T/out" 2>&1; then
	echo "FAIL gdb/host: the -g build does not run"; sed 's/^/    /' "$T/out" | head -n 20
	exit 0
fi
src=$(sed -n 's/^note: -g: the source is saved as \(.*\) for the debugger$/\1/p' "$T/out")
if [ -z "$src" ] || ! cmp -s "$src" "$ROOT/tests/gdb/dbg.cm"; then
	echo "FAIL gdb/saved_source: no copy of the source named in the build log"
	sed 's/^/    /' "$T/out" | head -n 10
	exit 0
fi
echo "ok gdb/saved_source"
# stop at `v(0) = acc;` (line 9), after the loop: acc = 25, v = {7 x 8};
# then one line on, v(0) is 25
gdb -nx -q -batch -ex 'set debuginfod enabled off' -ex 'set breakpoint pending on' \
	-ex "break $(basename "$src"):9" -ex run -ex 'info locals' -ex next -ex 'info locals' \
	--args "$T/host" "$ROOT/tests/gdb/dbg.cm" >"$T/gdb" 2>&1 </dev/null
[ -n "$SHOW" ] && cat "$T/gdb"
show() { sed 's/^/    /' "$T/gdb" | tail -n 30; }
if ! grep -q "^9[[:space:]]*v(0) = acc;" "$T/gdb"; then
	echo "FAIL gdb/break_line: gdb did not stop at line 9 showing the CM source"; show
elif ! grep -q "^v[0-9]*_acc = 25$" "$T/gdb" || ! grep -q "^v[0-9]*_a = 3$" "$T/gdb"; then
	echo "FAIL gdb/print_scalar: acc (25) and a (3) not shown by their names"; show
elif ! grep -q "^v[0-9]*_v = {7, 7, 7, 7, 7, 7, 7, 7}$" "$T/gdb" ||
	! grep -q "^v[0-9]*_v = {25, 7, 7, 7, 7, 7, 7, 7}$" "$T/gdb"; then
	echo "FAIL gdb/print_vector: v not {7 x 8} at line 9 and {25, 7, ...} after it"; show
elif grep -q "optimized out" "$T/gdb"; then
	echo "FAIL gdb/optimized_out: a variable is optimized out under -g"; show
else
	echo "ok gdb/break_and_print"
fi
# the command line: cmetal -c -g names the source by its absolute path
(cd "$ROOT/tests/gdb" && "$ROOT/$BUILD/cmetal" -c -t c -g dbg.cm -o "$T/dbg.so") >"$T/cli" 2>&1
gdb -nx -q -batch -ex 'info line dbg.cm:9' "$T/dbg.so" >>"$T/cli" 2>&1 </dev/null
if grep -q "^Line 9 of \"$ROOT/tests/gdb/dbg.cm\"" "$T/cli"; then
	echo "ok gdb/cli_absolute_path"
else
	echo "FAIL gdb/cli_absolute_path: $T/dbg.so does not name $ROOT/tests/gdb/dbg.cm"
	sed 's/^/    /' "$T/cli" | head -n 10
fi
exit 0
