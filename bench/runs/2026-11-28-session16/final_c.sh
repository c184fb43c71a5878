#!/bin/sh
# Session 16, final tree, H100: the CM kernels with every value in the
# canonical PTX layout (-fptx-layout=canonical: one element per lane
# register, the back end's model before per-value layouts), the "before"
# of the layout work measured by today's compiler on the same machine.
set -u
O=$1
make -j16 >/dev/null 2>&1 || { echo "make failed"; exit 1; }
make -C bench cm -j16 >/dev/null 2>&1 || { echo "bench cm failed"; exit 1; }
cd bench
CMBENCH_OPTS="-O2 -fno-bounds-check -ffp-contract=fast -fptx-layout=canonical" \
	timeout 560 build/cmbench -d cuda -s full > $O/gpu-cm-canonical.csv 2> $O/canon.err
tail -3 $O/canon.err; grep -c ",yes" $O/gpu-cm-canonical.csv
