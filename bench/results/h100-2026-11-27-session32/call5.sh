#!/usr/bin/env bash
# Session 32 call 5: short columns 64 a block (256 bytes of each row, 1024 threads) against
# 32 (512 threads), TESSEL_WIDE_COLUMNS set or not in one binary, alternating; the column
# normalization test with the wide blocks.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
F='BM_Copy|BM_SoftmaxAxis/[123]/'
for i in 1 2; do
  timeout 60 ./dist/gpu_bench --benchmark_filter="$F" > $L/axis_narrow_$i.log 2>&1; save
  TESSEL_WIDE_COLUMNS=1 timeout 60 ./dist/gpu_bench --benchmark_filter="$F" > $L/axis_wide_$i.log 2>&1; save
done
TESSEL_WIDE_COLUMNS=1 timeout 60 ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/gpu_test_wide.log 2>&1; save
