#!/bin/sh
# sass_bench.sh — assembles every bench kernel variant that bench/cm builds
# (same -D options) and prints per-kernel SASS counts and registers:
#   tools/sass_bench.sh CMETAL [cmetal flags...]
# Needs ptxas (CUDA toolkit) and nvdisasm (PATH, or NVDISASM=path; PyPI's
# nvidia-cuda-nvdisasm has one).  No GPU needed.
set -eu
cm=${1:?usage: sass_bench.sh CMETAL [flags]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cmetal-sass-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
nvd=${NVDISASM:-nvdisasm}
variant() {	# name file.cm defs...
	name=$1 src=$2
	shift 2
	CMETAL_NO_PTXAS=1 "$cm" -S -t ptx "$@" "$src" -o "$tmp/$name.ptx"
	ptxas -arch=sm_90 -v "$tmp/$name.ptx" -o "$tmp/$name.cubin" 2>"$tmp/$name.log"
	python3 "$here/tools/sass_stats.py" --nvdisasm "$nvd" "$tmp/$name.cubin" |
	sed 1d | while read -r k rest; do
		regs=$(awk -v k="$k" '/Compiling entry function/ { cur = ($0 ~ "'"'"'" k "'"'"'") }
			cur && /Used [0-9]+ registers/ { sub(/.*Used /, ""); print $1; exit }' "$tmp/$name.log")
		echo "$name:$k $rest ${regs:-?}"
	done
}
echo "kernel sass fallback shfl sel prmt ldg ldg_wide stg bra_div warpsync regs"
b=$here/bench/cm
for f in bitonic gemm histogram linear spmv transpose; do
	variant $f "$b/$f.cm" "$@"
done
variant scan_u32 "$b/scan.cm" -DT=uint "$@"
variant scan_f32 "$b/scan.cm" -DT=float "$@"
for d in 4 16; do for k in 16 64; do
	variant kmeans_D${d}K$k "$b/kmeans.cm" -DK=$k -DD=$d "$@"
done; done
