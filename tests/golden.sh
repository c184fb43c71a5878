#!/bin/sh
# Golden-file runner shared by the suites.  Usage: golden.sh BUILD DIR
# For each DIR/NAME.cm (or .ir) the expected file's extension picks the mode:
#   NAME.err   diagnostics of `cmetal -fsyntax-only` (stderr), exit status 1
#              unless the file holds only warnings
#   NAME.ast   `cmetal --emit=ast` (stdout)
#   NAME.pp    `cmetal -E` (stdout)
#   NAME.ir    `cmetal -S -t ir` (stdout)
#   NAME.c / NAME.ptx   `cmetal -S -t c|ptx` (stdout)
#              (for .ir/.c/.ptx: stdout and stderr; an expected file with
#              an error in it expects exit status 1, a compile that fails
#              after the front end and must not crash)
#   none       `cmetal -fsyntax-only` must succeed silently
# A line `// FLAGS: ...` in the source adds options.  With UPDATE=1 the
# expected files are rewritten from the actual output (review the diff!).
BUILD=$1
DIR=$2
CMETAL=$(cd "$BUILD" && pwd)/cmetal
cd "$DIR" || exit 1
for src in *.cm *.ir; do
	[ -e "$src" ] || continue
	name=${src%.*}
	case $src in *.ir) [ "$src" != "$name.ir" ] || [ -e "$name.cm" ] && continue ;; esac
	flags=$(sed -n 's|^// FLAGS: *||p' "$src" | head -n 1)
	mode=none
	for ext in err ast pp ir c ptx; do
		if [ -e "$name.$ext" ] && [ "$name.$ext" != "$src" ]; then mode=$ext; break; fi
	done
	out=$(mktemp)
	case $mode in
	err)  $CMETAL -fsyntax-only $flags "$src" >/dev/null 2>"$out"; rc=$? ;;
	ast)  $CMETAL --emit=ast $flags "$src" >"$out" 2>&1; rc=$? ;;
	pp)   $CMETAL -E $flags "$src" >"$out" 2>&1; rc=$? ;;
	ir|c|ptx) $CMETAL -S -t $mode $flags "$src" -o - >"$out" 2>&1; rc=$? ;;
	none) $CMETAL -fsyntax-only $flags "$src" >"$out" 2>&1; rc=$? ;;
	esac
	ok=1
	if [ $rc -ge 128 ] || [ $rc -eq 70 ]; then ok=0; why="crashed (status $rc)"; fi
	if [ $ok = 1 ]; then
		case $mode in
		none) if [ $rc -ne 0 ] || [ -s "$out" ]; then ok=0; why="expected a clean check, got status $rc"; fi ;;
		err)
			if grep -q ': error: ' "$name.err" && [ $rc -ne 1 ]; then ok=0; why="expected status 1, got $rc"; fi
			if ! grep -q ': error: ' "$name.err" && [ $rc -ne 0 ]; then ok=0; why="expected status 0, got $rc"; fi ;;
		*)
			want=0
			grep -q ': error: ' "$name.$mode" 2>/dev/null && want=1
			if [ $rc -ne $want ]; then ok=0; why="status $rc"; fi ;;
		esac
	fi
	if [ "$UPDATE" = 1 ] && [ $mode != none ] && [ $ok = 1 ] || { [ "$UPDATE" = 1 ] && [ $mode = err ]; }; then
		cp "$out" "$name.$mode"
	fi
	if [ $ok = 1 ] && [ $mode != none ] && ! cmp -s "$out" "$name.$mode"; then
		ok=0; why="output differs from $name.$mode"
	fi
	if [ $ok = 1 ]; then
		echo "ok $DIR/$src"
	else
		echo "FAIL $DIR/$src: $why"
		if [ $mode != none ] && [ -e "$name.$mode" ]; then
			diff "$name.$mode" "$out" | head -n 20 | sed 's/^/    /'
		else
			head -n 20 "$out" | sed 's/^/    /'
		fi
	fi
	rm -f "$out"
done
