#!/bin/sh
# Lowering golden tests: CM source -> CMIR at -O0 (see tests/golden.sh).
exec "$(dirname "$0")/../golden.sh" "$1" tests/lower
