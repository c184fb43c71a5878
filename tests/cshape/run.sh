#!/bin/sh
# The shape of the C that the CPU device builds for every bench kernel
# (bench/cm), against table.txt: per kernel function, the lines of C, the
# `for` loops and the `if` statements; and that argument surfaces are
# looked up once per thread, not at every access.  A count more than 10% (and more than
# 2) away from the table fails, so a change that unrolls what was a loop,
# adds per-element branches or copies shows up (with first-build time: see
# docs/runtime.md).  Re-record after a deliberate change:
# `UPDATE=1 tests/cshape/run.sh build`, then read `git diff
# tests/cshape/table.txt` and say why in the commit.
BUILD=$1
CMETAL=$(cd "$BUILD" && pwd)/cmetal
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# VARIANT FILE OPTIONS: the bench's CPU builds (kmeans: its two largest D,
# K; scan: the int32 and fp32 builds in the CPU shape; spmv: the shapes
# of protein (the defaults) and webbase; gemm: CPU_SHAPE).
variants() {
	for f in bench/cm/*.cm; do
		v=${f##*/}; v=${v%.cm}
		case $v in
		kmeans) echo "kmeans-d4k16 $f -DD=4 -DK=16"; echo "kmeans-d16k64 $f -DD=16 -DK=64" ;;
		scan) echo "scan $f -DT=uint -DT_INT -DWARPS=1 -DPARTS=4"
		      echo "scan-f32 $f -DT=float -DWARPS=1 -DPARTS=4" ;;
		spmv) echo "spmv $f"; echo "spmv-s4w64 $f -DSEG=4 -DWIDTH=64" ;;
		gemm|hgemm) echo "$v $f -DCPU_SHAPE" ;;
		*) echo "$v $f" ;;
		esac
	done
}
# Counts per kernel function of one C file: "VARIANT:KERNEL LINES FOR IF".
shape() {
	awk -v var="$1" '
	/^CMK_KERNEL void cmk_k_[A-Za-z0-9_]*\(CmkThread \*t\)$/ {
		k = $3; sub(/^cmk_k_/, "", k); sub(/\(.*/, "", k); inside = 1; n = f = i = 0; next }
	inside && /^}$/ { print var ":" k, n, f, i; inside = 0; next }
	inside { n++; f += gsub(/for \(/, "&"); i += gsub(/(^|[^a-z_])if \(/, "&") }' "$2"
}
variants | while read -r v f opts; do
	if ! "$CMETAL" -S -t c $opts -o "$tmp/$v.c" "$f" 2>"$tmp/err"; then
		echo "FAIL $v"; sed 's/^/  /' "$tmp/err"; continue
	fi
	shape "$v" "$tmp/$v.c"
	# every surface of a bench kernel is an argument, looked up once at the
	# kernel's entry (CmkMem sN); a lookup per access reloads the table
	n=$(grep -c 'CmkMem m = cmk_surf(' "$tmp/$v.c")
	[ "$n" -eq 0 ] || echo "FAIL $v:surfaces $n surface lookups per access (want 0)"
done >"$tmp/now"
if [ -n "$UPDATE" ]; then
	{ sed -n '/^#/p' tests/cshape/table.txt; cat "$tmp/now"; } >"$tmp/new"
	cp "$tmp/new" tests/cshape/table.txt
fi
grep '^FAIL' "$tmp/now"
grep -v '^#' tests/cshape/table.txt | while read -r k n f i; do
	got=$(grep "^$k " "$tmp/now")
	if [ -z "$got" ]; then
		echo "FAIL $k"; echo "  no such kernel in the emitted C"; continue
	fi
	set -- $got
	bad=
	for pair in "lines $n $2" "loops $f $3" "ifs $i $4"; do
		set -- $pair
		d=$(( $3 > $2 ? $3 - $2 : $2 - $3 ))
		[ $d -gt 2 ] && [ $(( d * 10 )) -gt "$2" ] && bad="$bad $1 $2 -> $3;"
	done
	if [ -n "$bad" ]; then echo "FAIL $k"; echo " $bad"; else echo "ok $k"; fi
done
grep -v '^FAIL' "$tmp/now" | while read -r k rest; do
	grep -q "^$k " tests/cshape/table.txt || { echo "FAIL $k"; echo "  not in table.txt"; }
done
