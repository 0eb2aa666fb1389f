#!/usr/bin/env bash
# Session 36 call 4: transposed kernels with pairs of positions a thread along the input's rows
# and without bounds checks where tiles fit: gpu_test; BM_Transpose main / new / new without
# pairs (TESSEL_LAB_TLANES=0) / new with pairs for f32 too (TESSEL_LAB_TLANES=f32), alternating;
# fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
timeout 110 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
F='BM_Copy|BM_Transpose/'
for i in 1 2; do
  timeout 50 ./dist/main/gpu_bench --benchmark_filter="$F" > $L/main_$i.log 2>&1; save
  timeout 50 ./dist/gpu_bench --benchmark_filter="$F" > $L/new_$i.log 2>&1; save
  TESSEL_LAB_TLANES=0 timeout 50 ./dist/gpu_bench --benchmark_filter="$F" > $L/nolanes_$i.log 2>&1; save
  TESSEL_LAB_TLANES=f32 timeout 50 ./dist/gpu_bench --benchmark_filter="$F" > $L/f32lanes_$i.log 2>&1; save
done
timeout 70 ./dist/fuzz diff --first=75400000 --count=60000 --jobs=16 --timeout=300 --time_limit=60 > $L/fuzz_diff.log 2>&1; save
