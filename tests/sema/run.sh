#!/bin/sh
# Sema golden tests: NAME.cm + NAME.err (exact diagnostics) or NAME.ast.
exec "$(dirname "$0")/../golden.sh" "$1" tests/sema
