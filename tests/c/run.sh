#!/bin/sh
# C back-end execution tests.  For every tests/c/NAME.ir: `cmetal -S -t c`
# writes C, which is built with NAME.c (a harness that includes it, fills a
# CmkThread, runs the kernel and checks the results against values written
# by hand) by cc with -O2 and with ASan/UBSan when CC_SAN is not "no".  A
# `// FLAGS:` line in NAME.ir adds cmetal options.  Also checks that the
# same input gives byte-identical C.
BUILD=$1
CMETAL=$(cd "$BUILD" && pwd)/cmetal
cd "$(dirname "$0")" || exit 1
CC=${CC:-cc}
tmp=$(mktemp -d)
for src in *.ir; do
	name=${src%.ir}
	flags=$(sed -n 's|^// FLAGS: *||p' "$src" | head -n 1)
	ok=1; why=
	if ! $CMETAL -S -t c $flags "$src" -o "$tmp/$name.gen.c" 2>"$tmp/err"; then
		ok=0; why="cmetal failed"
	elif ! $CMETAL -S -t c $flags "$src" -o "$tmp/again.c" 2>>"$tmp/err" ||
	     ! cmp -s "$tmp/$name.gen.c" "$tmp/again.c"; then
		ok=0; why="output is not deterministic"
	else
		for mode in "-O2 -march=native" "-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all"; do
			[ "$CC_SAN" = no ] && case $mode in *sanitize*) continue ;; esac
			if ! $CC -std=c11 -D_GNU_SOURCE $mode -w -I. -DKERNEL_C="\"$tmp/$name.gen.c\"" \
			     "$name.c" -o "$tmp/$name" -lm 2>"$tmp/err"; then
				ok=0; why="generated C does not build ($mode)"; break
			fi
			if ! ASAN_OPTIONS=detect_leaks=0 "$tmp/$name" >"$tmp/err" 2>&1; then
				ok=0; why="wrong results ($mode)"; break
			fi
		done
	fi
	if [ $ok = 1 ]; then
		echo "ok tests/c/$src"
	else
		echo "FAIL tests/c/$src: $why"
		head -n 20 "$tmp/err" | sed 's/^/    /'
	fi
done
rm -rf "$tmp"
