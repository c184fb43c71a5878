#!/bin/sh
# sass_bench.sh — assembles every bench kernel variant that bench/cm builds
# (same -D and -f options, and -ffp-contract=fast as bench/cm/common.c builds them)
# and prints per-kernel SASS counts and registers:
#   tools/sass_bench.sh [-o DIR] CMETAL [cmetal flags...]
# -o DIR keeps, per variant, NAME.ptx, NAME.cubin, NAME.log (ptxas -v) and
# NAME.sass (nvdisasm -c) there: tests/sass reads them.
# Needs ptxas (CUDA toolkit) and nvdisasm (NVDISASM=path, else
# tools/get-nvdisasm.sh finds or installs PyPI's nvidia-cuda-nvdisasm).
# No GPU needed.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
keep=
if [ "${1:-}" = -o ]; then
	keep=${2:?-o needs a directory}
	shift 2
fi
cm=${1:?usage: sass_bench.sh [-o DIR] CMETAL [flags]}
shift
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	tmp=$(cd "$keep" && pwd)
else
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/cmetal-sass-XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
fi
nvd=${NVDISASM:-$("$here/tools/get-nvdisasm.sh")}

# variant NAME FILE.cm [options]: PTX, cubin, ptxas log and SASS text
variant() {
	name=$1 src=$2
	shift 2
	CMETAL_NO_PTXAS=1 "$cm" -S -t ptx "$@" "$src" -o "$tmp/$name.ptx"
	# sm_90a for a module with cm_wgmma (its .target)
	arch=$(sed -n 's/^\.target \(sm_[0-9a-z]*\).*/\1/p' "$tmp/$name.ptx" | head -n 1)
	ptxas -arch="${arch:-sm_90}" -v "$tmp/$name.ptx" -o "$tmp/$name.cubin" 2>"$tmp/$name.log" ||
		{ echo "ptxas failed on $name:" >&2; cat "$tmp/$name.log" >&2; return 1; }
	"$nvd" -c "$tmp/$name.cubin" >"$tmp/$name.sass"
}

# the variants, two at a time (CI machines have 2 cores)
b=$here/bench/cm
variants() {
	for f in bitonic gemm hgemm hgemm_wg histogram linear spmv transpose; do
		echo "$f $f.cm"
	done
	echo "radix radix.cm -fexact-loop-depths"
	echo "spmv_s2 spmv.cm -DSEG=2 -DWIDTH=64"
	echo "linear_swar linear.cm -DSWAR=1"
	echo "scan_u32 scan.cm -DT=uint -DT_INT"
	echo "scan_f32 scan.cm -DT=float"
	for d in 4 16; do for k in 16 64; do
		echo "kmeans_D${d}K$k kmeans.cm -DK=$k -DD=$d"
		echo "kmeansf_D${d}K$k kmeans.cm -DK=$k -DD=$d -DFIXED=1"
	done; done
}
names= pending= fail=0
variants > "$tmp/variants"
while read -r name src defs; do
	names="$names $name.sass"
	# shellcheck disable=SC2086
	variant "$name" "$b/$src" $defs -ffp-contract=fast "$@" </dev/null &
	this=$!
	[ -z "$pending" ] || wait "$pending" || fail=1
	pending=$this
done < "$tmp/variants"
wait "$pending" || fail=1
[ $fail = 0 ] || exit 1
rm -f "$tmp/variants"
# shellcheck disable=SC2086
cd "$tmp" && python3 "$here/tools/sass_stats.py" $names
