#!/usr/bin/env bash
# Session 33 call 5: bf16 long columns staged a pair a copy (836af59) against d462a3d
# (dist/main, the same benchmark rows), alternating; the column tests under memcheck and
# racecheck (pairs read each other's copies after a __syncwarp); fuzz diff at 836af59.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
timeout 60 ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/gpu_test_columns.log 2>&1; save
F='BM_Copy|BM_SoftmaxAxis/[4567]/'
for i in 1 2; do
  timeout 60 ./dist/main/gpu_bench --benchmark_filter="$F" > $L/cols_main_$i.log 2>&1; save
  timeout 60 ./dist/gpu_bench --benchmark_filter="$F" > $L/cols_new_$i.log 2>&1; save
done
timeout 120 compute-sanitizer --tool racecheck ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/racecheck_columns.log 2>&1; save
timeout 120 compute-sanitizer --tool memcheck --leak-check no ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/memcheck_columns.log 2>&1; save
timeout 110 ./dist/fuzz diff --first=73800000 --count=60000 --jobs=16 --timeout=300 --time_limit=90 > $L/fuzz_diff.log 2>&1; save
