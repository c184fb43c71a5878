#!/bin/sh
# benchab.sh ROUNDS: cmbench spmv small, base and new alternating (order flipped each round), plus oclbench; prints csv rows tagged
R=$1
for r in $(seq $R); do
  if [ $((r % 2)) = 1 ]; then order="base new ocl"; else order="ocl new base"; fi
  for v in $order; do
    case $v in
      base) /tmp/base/bench/build/cmbench -d cpu -w spmv -s small 2>/dev/null | grep ",cm," | sed "s/^/base,/";;
      new) /work/wt-cpu/bench/build/cmbench -d cpu -w spmv -s small 2>/dev/null | grep ",cm," | sed "s/^/new,/";;
      ocl) cd /work/wt-cpu/bench && ./build/oclbench -w spmv -s small -k simt 2>/dev/null | grep "^spmv" | sed "s/^/ocl,/";;
    esac
  done
done
