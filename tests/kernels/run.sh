#!/bin/sh
# The positive kernel corpus: realistic CM kernels that must compile
# cleanly (no golden) or match their .ast dump (see tests/golden.sh).
exec "$(dirname "$0")/../golden.sh" "$1" tests/kernels
