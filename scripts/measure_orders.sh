#!/usr/bin/env bash
# The measurements behind the chapters of steps 07 and 08 that bench's default parts do not
# make, for any machine with a CUDA GPU:
#   scripts/measure_orders.sh [BUILD_DIR] [OUT_DIR]        (defaults: build, results)
# Writes
#   OUT_DIR/orders.csv  08-diagonal, all three block orders, beside memcpy and cuBLAS, at
#                       power-of-two (4096, 8192, 16384), other aligned (6144, 12288,
#                       6000 x 10000) and odd shapes (8193, 4099 x 8191, 4099 x 8192,
#                       4096 x 8191), float and double;
#   OUT_DIR/small.csv   06-float4, every variant of 07-swizzle and 08-diagonal at the
#                       L2-resident 1024 and 2048 (200 timed launches each), float and double.
set -euo pipefail
BUILD=${1:-build}
OUT=${2:-results}
B="$BUILD/steps"
mkdir -p "$OUT"
for dt in float double; do
  for shape in "4096 4096" "8192 8192" "16384 16384" "6144 6144" "12288 12288" "8193 8193" \
               "6000 10000" "4099 8191" "4099 8192" "4096 8191"; do
    read -r m n <<<"$shape"
    echo "08-diagonal $m x $n $dt" >&2
    "$B/08-diagonal/08-diagonal" --rows "$m" --cols "$n" --dtype "$dt" --variant all --format csv
  done
done >"$OUT/orders.csv"
for dt in float double; do
  for n in 1024 2048; do
    echo "06, 07, 08 at $n x $n $dt" >&2
    common=(--size "$n" --dtype "$dt" --format csv --reps 200 --warmup 20)
    "$B/06-float4/06-float4" "${common[@]}"
    "$B/07-swizzle/07-swizzle" "${common[@]}" --variant all --no-compare
    "$B/08-diagonal/08-diagonal" "${common[@]}" --variant all --no-compare
  done
done >"$OUT/small.csv"
echo "wrote $OUT/orders.csv and $OUT/small.csv" >&2
