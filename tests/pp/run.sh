#!/bin/sh
# Lexer and preprocessor golden tests (see tests/golden.sh for the modes).
exec "$(dirname "$0")/../golden.sh" "$1" tests/pp
