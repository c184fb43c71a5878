#!/bin/sh
# Replays the fuzz corpus through the compiler: every input must be
# diagnosed or accepted, never crash (status >= 128) or hang (10 s).
BUILD=$1
CMETAL=$BUILD/cmetal
n=0; bad=0
for f in tests/fuzz/corpus/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	timeout 10 "$CMETAL" -fsyntax-only -ferror-limit=50 "$f" >/dev/null 2>&1
	rc=$?
	if [ $rc -ge 124 ]; then
		echo "FAIL fuzz-replay $f: status $rc"
		bad=$((bad + 1))
	fi
done
[ $bad -eq 0 ] && echo "ok fuzz-replay ($n inputs)"
