#!/bin/sh
# Session 19: linear (bench/cm/linear.cm) with 8 or 16 output rows a
# thread (ROWS; the host's CMB_LINEAR_ROWS), the right edge by a region
# at a runtime offset or by a shift and a merge (RMERGE), and a few group
# shapes (CMB_LINEAR_GROUP), two interleaved rounds at 1920x1080 and
# 7680x4320, then NPP and the SIMT port on the same card.  LIST=2 (the
# second call) runs the RMERGE variants (RMERGE's code was not kept:
# slower; its figures are in linear.cm's comment).
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
make -C bench -s -j16 cuda >/dev/null 2>&1 || echo "cuda build failed"
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/info.txt 2>&1; date -u >> $O/info.txt
D="-O2 -fno-bounds-check -ffp-contract=fast"
cd bench
for round in 1 2; do
	while read -r name rows group defs; do
		CMB_LINEAR_ROWS=$rows CMB_LINEAR_GROUP=$group CMBENCH_OPTS="$D -DROWS=$rows $defs" \
			timeout 60 build/cmbench -d cuda -s full -w linear 2>&1 |
			grep ",cm," | sed "s/^/$name /" >> $O/ab.txt
	done <<LIST
$(if [ "${LIST:-1}" = 1 ]; then cat <<'L1'
r8g8x4 8 8:4
r16g8x4 16 8:4
r16g8x2 16 8:2
r16g4x4 16 4:4
r16g16x2 16 16:2
L1
else cat <<'L2'
r8g8x4 8 8:4
r8m 8 8:4 -DRMERGE=1
r16mg8x4 16 8:4 -DRMERGE=1
r16mg8x2 16 8:2 -DRMERGE=1
r16mg16x2 16 16:2 -DRMERGE=1
L2
fi)
LIST
	echo "round $round done $(date -u +%H:%M:%S)" >> $O/info.txt
done
timeout 60 build/cudabench -m vendor -s full -w linear 2>&1 | grep -v "^#" | sed "s/^/vendor /" >> $O/ab.txt
timeout 60 build/cudabench -m simt -s full -w linear 2>&1 | grep -v "^#" | sed "s/^/simt /" >> $O/ab.txt
cut -d, -f1-6 $O/ab.txt
