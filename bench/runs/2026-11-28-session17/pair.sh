#!/bin/sh
# pair.sh ROUNDS "CMD A" "CMD B": alternates (A B, then B A), field 9 (median) of each; prints medians and the median of B/A per round
R=$1; A=$2; B=$3
for r in $(seq $R); do
  if [ $((r % 2)) = 1 ]; then a=$(sh -c "$A" | awk '{print $8}'); b=$(sh -c "$B" | awk '{print $8}');
  else b=$(sh -c "$B" | awk '{print $8}'); a=$(sh -c "$A" | awk '{print $8}'); fi
  echo "$a $b"
done | python3 /tmp/sp/stats.py
