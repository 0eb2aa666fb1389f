#!/usr/bin/env bash
# Session 34 call 2: the transposes of call 1 (its benchmark processes ran out of time before
# them): BM_Transpose against main 6c0204e (dist/main), alternating.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
F='BM_Copy|BM_Transpose'
for i in 1 2; do
  timeout 120 ./dist/main/gpu_bench --benchmark_filter="$F" > $L/ab_main_$i.log 2>&1; save
  timeout 120 ./dist/gpu_bench --benchmark_filter="$F" > $L/ab_new_$i.log 2>&1; save
done
