#!/bin/sh
# Command-line tests of build/cmetal: options, exit statuses (clang's: 0
# success, 1 any error), outputs.  Each case prints "ok cli/NAME" or
# "FAIL cli/NAME" with the command's output.
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CMETAL=$ROOT/$BUILD/cmetal
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 0

# expect NAME STATUS PATTERN CMD...: CMD exits with STATUS and its stdout
# and stderr together match the grep -E PATTERN ("" for any output).
expect() {
	name=$1 want=$2 pat=$3
	shift 3
	"$@" >"$T/out" 2>&1
	rc=$?
	if [ $rc -ne "$want" ]; then
		echo "FAIL cli/$name: status $rc, expected $want"; sed 's/^/    /' "$T/out" | head -n 20
	elif [ -n "$pat" ] && ! grep -Eq -- "$pat" "$T/out"; then
		echo "FAIL cli/$name: output does not match /$pat/"; sed 's/^/    /' "$T/out" | head -n 20
	else
		echo "ok cli/$name"
	fi
}

# the version: clang's layout, the header's version
hv=$(sed -n 's/^#define CMETAL_VERSION_STRING "\(.*\)"$/\1/p' "$ROOT/include/cmetal.h")
expect version 0 "^cmetal version $hv\$" "$CMETAL" --version
expect version_installed_dir 0 "^InstalledDir: $ROOT/$BUILD\$" "$CMETAL" --version
