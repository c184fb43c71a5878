#!/bin/sh
# PTX back end suite.  Usage: tests/ptx/run.sh BUILD
#  - every tests/ptx/NAME.ir is compiled with `cmetal -S -t ptx` and the
#    result assembled with `ptxas -arch=sm_90` (sm_90a when its .target
#    says so: cm_wgmma) (when ptxas is on PATH);
#  - NAME.ptx (if present): the exact text, compiled with CMETAL_NO_PTXAS=1
#    so it does not depend on the ptxas version;
#  - NAME.expect (if present): every line of it must occur in the PTX, as
#    a fixed string (instructions that must be there, whatever registers
#    and moves surround them);
#  - NAME.cost (if present): the region cost comments ("// rdregion ...")
#    and the layout notes ("// layout: ...": a value's layout when not
#    canonical, each conversion and SLM copy with its cost) must match it
#    line for line;
#  - regs.txt records "NAME KERNEL REGS SPILL_STORES SPILL_LOADS" from the
#    ptxas header; a kernel fails when it starts spilling or its register
#    count grows by more than 20%.  UPDATE=1 rewrites regs.txt, .ptx, .cost;
#  - a line "// EXPECT-WARNING: TEXT" in NAME.ir: cmetal must warn so (with
#    ptxas: the spill report); a line "// OPTIONS: ..." gives the cmetal
#    options of every compilation of it (check_gather.ir: -fbounds-check);
#  - every CM kernel of tests/kernels/ and tests/exec/ goes through -t ptx and
#    ptxas, its registers and spills checked against regs.txt; ones the front
#    end or lowering cannot compile yet are reported as skipped.  An exec
#    kernel compiled with -D options (atomics.cm) is listed in exec_options;
#  - cluster mode (-fcluster-slm, rt/cuda_abi.h "Clusters"): the exec
#    kernels with barriers, SLM and SLM atomics through ptxas, their text
#    holding the cluster barrier, mapa and DSMEM accesses, and the ordinary
#    PTX of the same file none of it.
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CMETAL=$(cd "$ROOT/$BUILD" 2>/dev/null && pwd)/cmetal
# march PTX: the architecture its .target names (sm_90, or sm_90a for a
# module with cm_wgmma), for ptxas
march() {
	sed -n 's/^\.target \(sm_[0-9a-z]*\).*/\1/p' "$1" | head -n 1
}

DIR=$ROOT/tests/ptx
REGS=$DIR/regs.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
have_ptxas=0
command -v ptxas >/dev/null 2>&1 && have_ptxas=1

# check_regs NAME FILE: compares the ptxas headers of FILE with regs.txt
check_regs() {
	sed -n 's|^// kernel \([A-Za-z0-9_]*\):.*|\1|p' "$2" > "$tmp/kernels"
	sed -n 's|^// ptxas: \([0-9]*\) registers per lane, .* \([0-9]*\) bytes spill stores, \([0-9]*\) bytes spill loads|\1 \2 \3|p' "$2" > "$tmp/nums"
	paste -d' ' "$tmp/kernels" "$tmp/nums" | while read -r k r ss sl; do
		[ -n "$r" ] || continue
		echo "$1 $k $r $ss $sl" >> "$tmp/newregs"
		old=$(awk -v n="$1" -v k="$k" '$1 == n && $2 == k { print $3, $4, $5 }' "$REGS" 2>/dev/null)
		[ -n "$old" ] || continue
		set -- "$1" $old
		if [ "$ss" -gt 0 ] && [ "$3" -eq 0 ]; then echo "kernel $k starts spilling ($ss bytes)"; fi
		if [ $((r * 100)) -gt $(($2 * 120)) ]; then echo "kernel $k: $r registers, recorded $2 (+20% allowed)"; fi
	done
}

: > "$tmp/newregs"
# the suite's own kernels, then the IR tests of the other suites (valid ones)
for src in "$DIR"/*.ir "$ROOT"/tests/c/*.ir "$ROOT"/tests/ir/*.ir; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .ir)
	case $src in
	"$DIR"/*) ;;
	*/bad_*) continue ;;
	*) name=$(basename "$(dirname "$src")")_$name ;;
	esac
	out="$tmp/$name.ptx"
	why=
	opts=$(sed -n 's|^// OPTIONS: *||p' "$src")
	# shellcheck disable=SC2086
	if ! "$CMETAL" -S -t ptx $opts "$src" -o "$out" 2> "$tmp/cerr"; then
		why="cmetal failed: $(head -n 5 "$tmp/cerr")"
	elif [ $have_ptxas = 1 ] && ! ptxas -arch="$(march "$out")" "$out" -o "$tmp/x.cubin" 2> "$tmp/err"; then
		why="ptxas: $(head -n 5 "$tmp/err")"
	fi
	if [ -z "$why" ] && [ $have_ptxas = 1 ]; then
		why=$(check_regs "$name" "$out")
		want=$(sed -n 's|^// EXPECT-WARNING: *||p' "$src")
		if [ -n "$want" ] && ! grep -qF "$want" "$tmp/cerr"; then
			why="expected the warning '$want'"
		fi
	fi
	if [ -z "$why" ] && [ -e "$DIR/$name.cost" -o "$UPDATE" = 1 ]; then
		grep -E '^	// (rdregion|wrregion|iselect|bitcast|rsum|rprod|rmin|rmax|layout|loop b)' "$out" > "$tmp/cost"
		case $src in "$DIR"/*)
			if [ "$UPDATE" = 1 ] && [ -s "$tmp/cost" ]; then cp "$tmp/cost" "$DIR/$name.cost"; fi ;;
		esac
		if [ -e "$DIR/$name.cost" ] && ! cmp -s "$tmp/cost" "$DIR/$name.cost"; then
			why="region costs differ: $(diff "$DIR/$name.cost" "$tmp/cost" | head -n 10)"
		fi
	fi
	if [ -z "$why" ] && [ -e "$DIR/$name.expect" ]; then
		while IFS= read -r line; do
			grep -qF -- "$line" "$out" || { why="missing in the PTX: $line"; break; }
		done < "$DIR/$name.expect"
	fi
	if [ -z "$why" ] && [ -e "$DIR/$name.ptx" ]; then
		# shellcheck disable=SC2086
		CMETAL_NO_PTXAS=1 "$CMETAL" -S -t ptx $opts "$src" -o "$tmp/g.ptx" 2>/dev/null
		[ "$UPDATE" = 1 ] && cp "$tmp/g.ptx" "$DIR/$name.ptx"
		if ! cmp -s "$tmp/g.ptx" "$DIR/$name.ptx"; then
			why="output differs from $name.ptx: $(diff "$DIR/$name.ptx" "$tmp/g.ptx" | head -n 10)"
		fi
	fi
	if [ -z "$why" ]; then
		[ $have_ptxas = 1 ] && echo "ok tests/ptx/$name.ir" || echo "ok tests/ptx/$name.ir (ptxas absent)"
	else
		echo "FAIL tests/ptx/$name.ir ($src)"
		echo "$why" | sed 's/^/    /'
	fi
done

# The floating-point contract (docs/floating-point.md): the float
# instructions of fp.ir by default (fp.fpops) and with -ffast-math
# (fp.fast.fpops), which must assemble too; the default has no .ftz and
# no fma but the one the IR asks for, -ffast-math has .ftz.
fp_ops() {
	grep -E '^	[a-z]+(\.[a-z0-9]+)*\.f32 ' "$1" | grep -vE '^	(ld|st|mov|selp|cvt)\.' |
		sed 's/ .*//'
}
for mode in default fast; do
	gold=$DIR/fp.fpops opt=
	[ $mode = fast ] && gold=$DIR/fp.fast.fpops opt=-ffast-math
	why=
	# shellcheck disable=SC2086
	if ! CMETAL_NO_PTXAS=1 "$CMETAL" -S -t ptx $opt "$DIR/fp.ir" -o "$tmp/fp.ptx" 2>"$tmp/err"; then
		why="cmetal failed: $(head -n 5 "$tmp/err")"
	elif [ $have_ptxas = 1 ] && ! ptxas -arch="$(march "$tmp/fp.ptx")" "$tmp/fp.ptx" -o "$tmp/x.cubin" 2>"$tmp/err"; then
		why="ptxas: $(head -n 5 "$tmp/err")"
	else
		fp_ops "$tmp/fp.ptx" > "$tmp/fpops"
		[ "$UPDATE" = 1 ] && cp "$tmp/fpops" "$gold"
		if ! cmp -s "$tmp/fpops" "$gold"; then
			why="float instructions differ from $(basename "$gold"): $(diff "$gold" "$tmp/fpops" | head -n 10)"
		elif [ $mode = default ] && grep -q '\.ftz' "$tmp/fp.ptx"; then
			why="default PTX has .ftz: $(grep -m 3 '\.ftz' "$tmp/fp.ptx")"
		elif [ $mode = default ] && [ "$(grep -c '^	fma' "$tmp/fp.ptx")" != 1 ]; then
			why="default PTX: an fma other than the IR's mad (a contraction)"
		elif [ $mode = fast ] && ! grep -q '\.ftz' "$tmp/fp.ptx"; then
			why="-ffast-math PTX has no .ftz"
		fi
	fi
	if [ -z "$why" ]; then echo "ok tests/ptx/fp.ir ($mode)"; else
		echo "FAIL tests/ptx/fp.ir ($mode)"; echo "$why" | sed 's/^/    /'; fi
done

# cm_kernel SRC LABEL KEY [OPTIONS...]: one CM file through the whole
# compiler, ptxas and the register record (KEY names it in regs.txt)
cm_kernel() {
	src=$1 label=$2 key=$3
	shift 3
	out="$tmp/$key.ptx"
	"$CMETAL" -S -t ptx "$@" "$src" -o "$out" 2> "$tmp/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		# upstream failures (the IR target fails too) are skipped
		if "$CMETAL" -S -t ir "$@" "$src" -o /dev/null 2>/dev/null; then
			echo "FAIL $label (ptx)"
			head -n 5 "$tmp/err" | sed 's/^/    /'
		else
			echo "ok $label (ptx: skipped, fails before the back end: $(grep -m1 -o 'error: .*' "$tmp/err" | cut -c1-60))"
		fi
		return
	fi
	why=
	if [ $have_ptxas = 1 ]; then
		ptxas -arch="$(march "$out")" "$out" -o "$tmp/x.cubin" 2> "$tmp/err" || why="ptxas: $(head -n 5 "$tmp/err")"
		[ -n "$why" ] || why=$(check_regs "$key" "$out")
	fi
	if [ -z "$why" ]; then echo "ok $label (ptx)"; else
		echo "FAIL $label (ptx)"; echo "$why" | sed 's/^/    /'; fi
}

# -D options of exec kernels that need them: "NAME|OPTIONS" lines, several
# per file for several variants
exec_options() {
	case $1 in
	atomics) printf '%s\n' "add|-DOP=ATOMIC_ADD -DT=uint -DNSRC=1" \
		"cmpxchg|-DOP=ATOMIC_CMPXCHG -DT=uint -DNSRC=2" \
		"minsint|-DOP=ATOMIC_MINSINT -DT=int -DNSRC=1" \
		"fmax|-DOP=ATOMIC_FMAX -DT=float -DNSRC=1" \
		"fcmpwr|-DOP=ATOMIC_FCMPWR -DT=float -DNSRC=2" ;;
	*) echo "|" ;;
	esac
}

# CM kernels through the whole compiler
for src in "$ROOT"/tests/kernels/*.cm; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .cm)
	cm_kernel "$src" "tests/kernels/$name.cm" "k_$name"
done
for src in "$ROOT"/tests/exec/*.cm; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .cm)
	exec_options "$name" > "$tmp/variants"
	while IFS='|' read -r v opts; do
		# shellcheck disable=SC2086
		cm_kernel "$src" "tests/exec/$name.cm${v:+ [$v]}" "e_$name${v:+_$v}" $opts
	done < "$tmp/variants"
done

# the "// ptxas:" header of each kernel of a multi-kernel module is that
# kernel's own report (it once took the next kernel's register count)
if [ $have_ptxas = 1 ]; then
	"$CMETAL" -S -t ptx "$ROOT/tests/exec/arith.cm" -o "$tmp/multi.ptx" 2>/dev/null
	sed -n 's|^// kernel \([A-Za-z0-9_]*\):.*|\1|p; s|^// ptxas: \([0-9]*\) registers.*|\1|p' \
		"$tmp/multi.ptx" | paste - - | sort > "$tmp/hdr"
	ptxas -arch=sm_90 -v "$tmp/multi.ptx" -o "$tmp/x.cubin" 2>&1 |
		sed -n "s/.*Compiling entry function '\([A-Za-z0-9_]*\)'.*/\1/p; s/.*Used \([0-9]*\) registers.*/\1/p" |
		paste - - | sort > "$tmp/direct"
	if [ "$(wc -l < "$tmp/hdr")" -ge 2 ] && cmp -s "$tmp/hdr" "$tmp/direct"; then
		echo "ok tests/exec/arith.cm [ptxas header per kernel]"
	else
		echo "FAIL tests/exec/arith.cm [ptxas header per kernel]"
		diff "$tmp/direct" "$tmp/hdr" | head -n 10 | sed 's/^/    /'
	fi
fi

# cluster mode: every needed piece is there, and absent from ordinary PTX
for name in sync memory; do
	src=$ROOT/tests/exec/$name.cm
	cm_kernel "$src" "tests/exec/$name.cm [cluster]" "e_${name}_cluster" -fcluster-slm
	out="$tmp/e_${name}_cluster.ptx"
	why=
	for want in '//@cmetal cluster 1' '%cluster_ctarank' 'barrier.cluster.wait' \
		'mapa.shared::cluster.u32' 'shared::cluster.u32 ['; do
		grep -qF "$want" "$out" 2>/dev/null || why="$why no '$want';"
	done
	if [ $name = sync ]; then
		grep -qF 'barrier.cluster.arrive.release' "$out" || why="$why no release arrive;"
	else
		grep -qF 'atom.shared::cluster' "$out" || why="$why no SLM atomic in DSMEM;"
	fi
	if CMETAL_NO_PTXAS=1 "$CMETAL" -S -t ptx "$src" -o "$tmp/plain.ptx" 2>/dev/null &&
		grep -q 'cluster' "$tmp/plain.ptx"; then
		why="$why the ordinary PTX has cluster code;"
	fi
	if [ -z "$why" ]; then echo "ok tests/exec/$name.cm [cluster text]"; else
		echo "FAIL tests/exec/$name.cm [cluster text]"; echo "    $why"; fi
done

# the checking mode (-fbounds-check, rt/cuda_abi.h "Faults"): every exec
# kernel assembles with its fault records (and in cluster mode), and the
# ordinary PTX of the same file has none of them
for src in "$ROOT"/tests/exec/*.cm; do
	name=$(basename "$src" .cm)
	why=
	opts=$(exec_options "$name" | head -n 1 | cut -d'|' -f2)
	for mode in "" -fcluster-slm; do
		# shellcheck disable=SC2086
		CMETAL_NO_PTXAS=1 "$CMETAL" -S -t ptx -fbounds-check $mode $opts "$src" \
			-o "$tmp/chk.ptx" 2>/dev/null || continue
		if [ $have_ptxas = 1 ] && ! ptxas -arch="$(march "$tmp/chk.ptx")" "$tmp/chk.ptx" -o "$tmp/x.cubin" 2>"$tmp/err"; then
			why="$why ptxas ($mode): $(head -n 3 "$tmp/err");"
		fi
	done
	# shellcheck disable=SC2086
	if CMETAL_NO_PTXAS=1 "$CMETAL" -S -t ptx $opts "$src" -o "$tmp/plain.ptx" 2>/dev/null &&
		grep -q '// fault: ' "$tmp/plain.ptx"; then
		why="$why the ordinary PTX records faults;"
	fi
	if [ -z "$why" ]; then echo "ok tests/exec/$name.cm [checking mode]"; else
		echo "FAIL tests/exec/$name.cm [checking mode]"; echo "    $why"; fi
done

if [ "$UPDATE" = 1 ] && [ -s "$tmp/newregs" ]; then
	cp "$tmp/newregs" "$REGS"
fi
