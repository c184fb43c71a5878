#!/bin/sh
# Coverage of the execution tests.  Usage: coverage.sh BUILD (from the
# repository root; tests/exec/run.sh calls it).  Dumps the AST of every
# tests/exec/*.cm with `cmetal --emit=ast` and checks that together they use
#   - every row of src/front/builtins.def except the rejected ones
#     (BF_UNSUP): a row is one form of a builtin (read has many), and the
#     dump names it builtin=ID; __cm_simdcf_any is consumed by SIMD control
#     flow and shows as simd=N;
#   - every CM member of CM_MEMBERS in src/front/front.h (member=NAME),
#     except genx_select, which cmc and cmetal reject.
# So every builtin form and member the front end accepts runs somewhere
# against a C reference.  Prints "ok NAME" or "FAIL NAME" with what is
# missing.
BUILD=${1:-build}
CMETAL=$BUILD/cmetal
used=$(mktemp)
trap 'rm -f "$used"' EXIT
for src in tests/exec/*.cm; do
	# a `// FLAGS: ...` line gives the -D options a parameterized file needs
	flags=$(sed -n 's|^// FLAGS: *||p' "$src" | head -n 1)
	if ! "$CMETAL" --emit=ast $flags "$src" 2>/dev/null; then
		echo "FAIL exec/coverage: $src does not compile" >&2
	fi
done | grep -o 'builtin=[A-Z0-9_]*\|member=[a-z_]*\|simd=' | sort -u >"$used"
tests/cover.sh exec/coverage "$used" "tests/exec/*.cm"
