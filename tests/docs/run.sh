#!/bin/sh
# Generated documentation is current: docs/builtins.md must be what
# tools/gen_builtins_md.sh makes from src/front/builtins.def now (run
# `make docs/builtins.md` after changing the table).  Usage: run.sh [BUILD]
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
if ! sh "$ROOT/tools/gen_builtins_md.sh" "$ROOT/src/front/builtins.def" > "$tmp"; then
	echo "FAIL docs/builtins.md: the generator failed"
elif ! cmp -s "$tmp" "$ROOT/docs/builtins.md"; then
	echo "FAIL docs/builtins.md: stale (make docs/builtins.md)"
	diff "$ROOT/docs/builtins.md" "$tmp" | head -n 10 | sed 's/^/    /'
else
	echo "ok docs/builtins.md"
fi
# every builtin name of the table appears in it
for n in $(sed -n 's/^BUILTIN([A-Z0-9_]*, "\([^"]*\)".*/\1/p' "$ROOT/src/front/builtins.def" | sort -u); do
	grep -qF "| \`$n\` |" "$ROOT/docs/builtins.md" || echo "FAIL docs/builtins.md: $n missing"
done
