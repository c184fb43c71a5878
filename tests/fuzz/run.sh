#!/bin/sh
# Replays the fuzz corpus through the compiler: every input must be
# diagnosed or accepted, never crash (status >= 128) or hang (10 s), in the
# front end (-fsyntax-only) and down to C and PTX text (fuzz_all's path).
# Pattern inputs (starting "@@", see fuzz_all.c) are for the fuzzer only.
BUILD=$1
CMETAL=$BUILD/cmetal
n=0; bad=0
for f in tests/fuzz/corpus/*; do
	[ -f "$f" ] || continue
	case $(head -c 2 "$f") in @@) continue ;; esac
	n=$((n + 1))
	for mode in "-fsyntax-only" "-S -t c -o /dev/null" "-S -t ptx -o /dev/null"; do
		CMETAL_NO_PTXAS=1 timeout 10 "$CMETAL" $mode -ferror-limit=50 "$f" >/dev/null 2>&1
		rc=$?
		if [ $rc -ge 124 ]; then
			echo "FAIL fuzz-replay $f ($mode): status $rc"
			bad=$((bad + 1))
		fi
	done
done
[ $bad -eq 0 ] && echo "ok fuzz-replay ($n inputs)"
