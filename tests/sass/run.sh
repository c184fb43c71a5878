#!/bin/sh
# SASS per unit of work of the bench kernels, no GPU needed.  Usage:
# tests/sass/run.sh BUILD.
#  - toy.sass: tools/sass_stats.py's regions on a hand-written kernel must
#    print toy.expected (needs no CUDA tools);
#  - tools/sass_bench.sh compiles every bench kernel variant with
#    BUILD/cmetal, assembles it with ptxas -arch=sm_90 and disassembles it
#    with nvdisasm (tools/get-nvdisasm.sh installs PyPI's
#    nvidia-cuda-nvdisasm into a cache when there is none);
#  - check.py compares SASS and SHFL per unit of work, registers and
#    divergent fallback code with table.txt (its header says what is
#    counted), one ok/FAIL line per row, then prints the current table.
# UPDATE=1 re-records table.txt and toy.expected.  Without ptxas the bench
# kernels are skipped, as tests/ptx skips ptxas; without nvdisasm they fail.
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=$ROOT/tests/sass
CMETAL=$(cd "$BUILD" 2>/dev/null && pwd)/cmetal
if ! command -v python3 >/dev/null 2>&1; then
	echo "FAIL sass/python3: not found (tools/sass_stats.py needs it)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(
	cd "$DIR" || exit 1
	python3 "$ROOT/tools/sass_stats.py" toy.sass
	python3 "$ROOT/tools/sass_stats.py" --loops toy.sass
	for r in all main loop:FFMA loop loop:ATOMS@2; do
		python3 "$ROOT/tools/sass_stats.py" --region $r toy.sass
	done
) > "$tmp/toy" 2>&1
[ "$UPDATE" = 1 ] && cp "$tmp/toy" "$DIR/toy.expected"
if cmp -s "$tmp/toy" "$DIR/toy.expected"; then
	echo "ok sass/toy.sass"
else
	echo "FAIL sass/toy.sass (tools/sass_stats.py regions)"
	diff "$DIR/toy.expected" "$tmp/toy" | head -n 20 | sed 's/^/    /'
fi

if ! command -v ptxas >/dev/null 2>&1; then
	echo "ok sass/bench (ptxas absent)"
	exit 0
fi
if ! nvd=$("$ROOT/tools/get-nvdisasm.sh" 2>"$tmp/err"); then
	echo "FAIL sass/nvdisasm: none found or installed (tools/get-nvdisasm.sh; NVDISASM=path names one)"
	sed 's/^/    /' "$tmp/err"
	exit 0
fi
mkdir "$tmp/out"
if ! NVDISASM=$nvd "$ROOT/tools/sass_bench.sh" -o "$tmp/out" "$CMETAL" >"$tmp/stats" 2>"$tmp/err"; then
	echo "FAIL sass/assemble: tools/sass_bench.sh -o DIR $CMETAL"
	head -n 20 "$tmp/err" | sed 's/^/    /'
	exit 0
fi
echo "ok sass/assemble ($(ptxas --version | sed -n 's/.*release \([0-9.]*\).*/ptxas \1/p'), $nvd)"
python3 "$DIR/check.py" "$tmp/out" "$DIR/table.txt" ||
	echo "FAIL sass/check: tests/sass/check.py exited with $?"
