#!/usr/bin/env bash
# Session 35 call 1: short-column bf16 lab; norm-pairs (67b85c4) A/B against main 92ce88f on
# BM_SoftmaxAxis, alternating; norm-pairs gpu_test; fuzz diff on main.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $L/device.txt
timeout 80 ./dist/lab/short_columns_bf16_lab > $L/lab.log 2>&1; save
F='BM_Copy|BM_SoftmaxAxis/'
for i in 1 2; do
  timeout 55 ./dist/gpu_bench --benchmark_filter="$F" > $L/main_$i.log 2>&1; save
  timeout 55 ./dist/np/gpu_bench --benchmark_filter="$F" > $L/np_$i.log 2>&1; save
done
timeout 120 ./dist/np/gpu_test > $L/np_gpu_test.log 2>&1; save
timeout 100 ./dist/fuzz diff --first=75000000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $L/fuzz_diff.log 2>&1; save
