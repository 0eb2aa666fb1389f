#!/usr/bin/env bash
# Session 34 call 1: 16-bit column reductions a pair of columns a lane and 2-byte transposes
# with 64 x 32 / 32 x 64 tiles (9a6891a) against main 6c0204e (dist/main), alternating; their
# GPU tests, memcheck/racecheck; gpu_test in full (bd86db6, e6ee3a8 first GPU run); fuzz diff.
set -u
START=$SECONDS
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $L/gpu.txt 2>&1
timeout 90 ./dist/gpu_test --gtest_filter='*ColumnReductions*:*Transposes*' > $L/gpu_test_new.log 2>&1; save
F='BM_Copy|BM_ReduceAxis|BM_Transpose'
for i in 1 2; do
  timeout 75 ./dist/main/gpu_bench --benchmark_filter="$F" > $L/ab_main_$i.log 2>&1; save
  timeout 75 ./dist/gpu_bench --benchmark_filter="$F" > $L/ab_new_$i.log 2>&1; save
done
CS=/usr/local/cuda/bin/compute-sanitizer
timeout 60 $CS --tool memcheck ./dist/gpu_test --gtest_filter='*ColumnReductions*:*Transposes*' > $L/memcheck.log 2>&1; save
timeout 60 $CS --tool racecheck ./dist/gpu_test --gtest_filter='*ColumnReductions*:*Transposes*' > $L/racecheck.log 2>&1; save
timeout 150 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
LEFT=$((560 - (SECONDS - START)))
if [ $LEFT -gt 40 ]; then
  timeout $LEFT ./dist/fuzz diff --first=74000000 --count=60000 --jobs=16 --timeout=300 --time_limit=$((LEFT - 15)) > $L/fuzz_diff.log 2>&1; save
fi
echo "elapsed $((SECONDS - START))" > $L/elapsed.txt; save
