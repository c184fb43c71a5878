#!/bin/sh
# CMIR tests.  For every tests/ir/NAME.ir:
#   round trip: printing the parsed file, parsing that and printing again
#               gives the same text (cmetal -S -t ir -O0);
#   NAME.out:   if present, `cmetal -S -t ir FLAGS NAME.ir` must print it,
#               FLAGS from a `// FLAGS: ...` line (e.g. -d fold);
#   NAME.err:   if present, the file must be rejected with these
#               diagnostics instead.
# UPDATE=1 rewrites NAME.out / NAME.err from the actual output.
BUILD=$1
CMETAL=$(cd "$BUILD" && pwd)/cmetal
cd "$(dirname "$0")" || exit 1
tmp=$(mktemp -d)
for src in *.ir; do
	name=${src%.ir}
	flags=$(sed -n 's|^// FLAGS: *||p' "$src" | head -n 1)
	if [ -e "$name.err" ]; then
		$CMETAL -S -t ir $flags "$src" -o - >/dev/null 2>"$tmp/err"; rc=$?
		[ "$UPDATE" = 1 ] && cp "$tmp/err" "$name.err"
		if [ $rc -eq 1 ] && cmp -s "$tmp/err" "$name.err"; then
			echo "ok tests/ir/$src"
		else
			echo "FAIL tests/ir/$src: expected the diagnostics in $name.err (status $rc)"
			diff "$name.err" "$tmp/err" | head -n 20 | sed 's/^/    /'
		fi
		continue
	fi
	ok=1; why=
	if ! $CMETAL -S -t ir -O0 "$src" -o "$tmp/a.ir" 2>"$tmp/err"; then
		ok=0; why="does not parse"
	elif ! $CMETAL -S -t ir -O0 "$tmp/a.ir" -o "$tmp/b.ir" 2>"$tmp/err"; then
		ok=0; why="printed form does not parse"
	elif ! cmp -s "$tmp/a.ir" "$tmp/b.ir"; then
		ok=0; why="round trip differs"; diff "$tmp/a.ir" "$tmp/b.ir" >"$tmp/err"
	elif [ -e "$name.out" ] || [ "$UPDATE" = 1 -a -n "$flags" ]; then
		if ! $CMETAL -S -t ir $flags "$src" -o "$tmp/out" 2>"$tmp/err"; then
			ok=0; why="cmetal $flags failed"
		else
			[ "$UPDATE" = 1 ] && cp "$tmp/out" "$name.out"
			if ! cmp -s "$tmp/out" "$name.out"; then
				ok=0; why="output differs from $name.out"
				diff "$name.out" "$tmp/out" >"$tmp/err"
			fi
		fi
	fi
	if [ $ok = 1 ]; then
		echo "ok tests/ir/$src"
	else
		echo "FAIL tests/ir/$src: $why"
		head -n 20 "$tmp/err" | sed 's/^/    /'
	fi
done
rm -rf "$tmp"
