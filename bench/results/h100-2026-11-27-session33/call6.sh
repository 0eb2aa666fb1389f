#!/usr/bin/env bash
# Session 33 call 6: bf16 long columns 64 a block (branch bf16-cols-64) against 32 a block
# (836af59, dist/p32) and d462a3d (dist/main), alternating; the column tests and racecheck.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
timeout 60 ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/gpu_test_columns.log 2>&1; save
F='BM_Copy|BM_SoftmaxAxis/[47]/'
for i in 1 2; do
  timeout 45 ./dist/main/gpu_bench --benchmark_filter="$F" > $L/cols_main_$i.log 2>&1; save
  timeout 45 ./dist/p32/gpu_bench --benchmark_filter="$F" > $L/cols_p32_$i.log 2>&1; save
  timeout 45 ./dist/gpu_bench --benchmark_filter="$F" > $L/cols_p64_$i.log 2>&1; save
done
timeout 120 compute-sanitizer --tool racecheck ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/racecheck_columns.log 2>&1; save
