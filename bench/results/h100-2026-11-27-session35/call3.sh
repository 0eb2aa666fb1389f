#!/usr/bin/env bash
# Session 35 call 3: column normalizations' part slots combined by lanes (shuffles) against
# the slot loop (TESSEL_LAB_SLOTS=1), alternating; gpu_test; fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
F='BM_Copy|BM_SoftmaxAxis/'
for i in 1 2; do
  TESSEL_LAB_SLOTS=1 timeout 75 ./dist/gpu_bench --benchmark_filter="$F" > $L/loop_$i.log 2>&1; save
  timeout 75 ./dist/gpu_bench --benchmark_filter="$F" > $L/lanes_$i.log 2>&1; save
done
timeout 110 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
timeout 100 ./dist/fuzz diff --first=75100000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $L/fuzz_diff.log 2>&1; save
