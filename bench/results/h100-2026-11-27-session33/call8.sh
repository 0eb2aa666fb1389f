#!/usr/bin/env bash
# Session 33 call 8: transposes with 2-byte outputs on 64 x 64 tiles (branch bf16-tiles)
# against f4e6e58 (dist/main), alternating; the transpose tests.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call8.tgz -C $OUT logs; }
timeout 60 ./dist/gpu_test --gtest_filter='*Transposes*' > $L/gpu_test_transposes.log 2>&1; save
F='BM_Copy|BM_Transpose/([15-9]|10)/'
for i in 1 2; do
  timeout 70 ./dist/main/gpu_bench --benchmark_filter="$F" > $L/tr_main_$i.log 2>&1; save
  timeout 70 ./dist/gpu_bench --benchmark_filter="$F" > $L/tr_new_$i.log 2>&1; save
done
