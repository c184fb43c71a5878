#!/bin/sh
# Shared by the coverage checks (tests/exec/coverage.sh, tests/kernels/
# coverage.sh).  Usage: cover.sh NAME USED WHERE
# USED is a file of the tokens AST dumps carry (builtin=ID, member=NAME,
# simd=); prints "ok NAME: builtins|members" or "FAIL ..." listing every
# row of src/front/builtins.def (except the rejected, BF_UNSUP) and every
# member of CM_MEMBERS in src/front/front.h (except genx_select, which is
# rejected) that USED lacks.  WHERE says, for messages, what was searched.
# __cm_simdcf_any is consumed by SIMD control flow and shows as simd=N.
name=$1 used=$2 where=$3
grep -q '^simd=$' "$used" && echo builtin=SIMDCF_ANY >>"$used"

missing=$(grep '^BUILTIN(' src/front/builtins.def | grep -v 'BF_UNSUP' |
	sed 's/^BUILTIN(\([A-Z0-9_]*\), "\([^"]*\)".*/\1 \2/' |
	while read -r id bname; do
		grep -qx "builtin=$id" "$used" || echo "$bname ($id)"
	done)
if [ -z "$missing" ]; then
	echo "ok $name: builtins"
else
	echo "FAIL $name: builtins: no $where uses these forms:"
	echo "$missing" | sed 's/^/    /'
fi

members=$(sed -n '/^#define CM_MEMBERS/,/^$/p' src/front/front.h |
	grep -o '"[a-z_]*"' | tr -d '"' | grep -v '^genx_select$')
missing=$(for m in $members; do grep -qx "member=$m" "$used" || echo "$m"; done)
if [ -z "$members" ]; then
	echo "FAIL $name: members: CM_MEMBERS not found in src/front/front.h"
elif [ -z "$missing" ]; then
	echo "ok $name: members"
else
	echo "FAIL $name: members: no $where uses:"
	echo "$missing" | sed 's/^/    /'
fi
