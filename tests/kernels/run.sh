#!/bin/sh
# The positive kernel corpus: realistic CM kernels that must match their
# .ast dump (see tests/golden.sh), then the coverage check (coverage.sh):
# every builtin form, CM member and listed construct is used somewhere.
"$(dirname "$0")/../golden.sh" "$1" tests/kernels
sh "$(dirname "$0")/coverage.sh"
