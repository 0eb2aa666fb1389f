#!/usr/bin/env bash
# Session 33 call 9: column reductions of 2-byte inputs, 16 elements a thread a step (branch
# bf16-colsum) against 42d6005 (dist/main), alternating; the column reduction tests.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call9.tgz -C $OUT logs; }
timeout 60 ./dist/gpu_test --gtest_filter='*Column*:*Reduc*' > $L/gpu_test_columns.log 2>&1; save
F='BM_Copy|BM_ReduceAxis/[1245]/'
for i in 1 2; do
  timeout 45 ./dist/main/gpu_bench --benchmark_filter="$F" > $L/cs_main_$i.log 2>&1; save
  timeout 45 ./dist/gpu_bench --benchmark_filter="$F" > $L/cs_new_$i.log 2>&1; save
done
