#!/bin/sh
# Session 25, call 6: sgemm 4096^3 with its thread index masked to the
# group (-DTMASK: cm_local_id(0) & (NW - 1), which range.c bounds, so the
# B rows' SLM stores are proven inside: 1,454 -> 1,409 SASS a k step)
# against the kernel as it is, two interleaved rounds; exec sgemm_slm.
O=$1
( make -j16 >/dev/null 2>&1 && make -C bench cm -j16 >/dev/null 2>&1 ) || echo "build failed"
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
one() {	# one NAME DEFS...
	name=$1
	shift
	( cd bench && CMB_IMPLS=cm CMBENCH_OPTS="$D $*" timeout 40 build/cmbench -d cuda -s full -w sgemm \
		-z 4096^3 2>>$O/log-$name.txt | grep -v "^#\|^workload" | sed "s/^/$name /" >> $O/ab.txt )
}
for round in 1 2; do
	one sg
	one sg-tmask -DTMASK
done
CMETAL_DEVICE=cuda CMETAL_EXEC_OPTIONS=-DTMASK timeout 30 sh tests/exec/run.sh build sgemm_slm > $O/exec.txt 2>&1
cat $O/exec.txt; cut -d, -f1-2,4-5,8 $O/ab.txt
