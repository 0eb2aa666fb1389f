#!/usr/bin/env bash
# Session 33 call 2: value ranges (1b8a721): indices known in range go unchecked and realize
# does not wait. The index tests, scans/sorts/scatters, the fuzz regressions; cross-entropy
# (gather form) and the embedding against main 5d2e682 (dist/main), alternating; fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $L/gpu.txt 2>&1
timeout 60 ./dist/gpu_test --gtest_filter='*Indices*:*Gather*:*Scatter*:*OnlineSums*:*OneHot*' > $L/gpu_test_index.log 2>&1; save
timeout 90 ./dist/scan_sort_test > $L/scan_sort_test.log 2>&1; save
timeout 90 ./dist/fuzz_regression_test > $L/fuzz_regression_test.log 2>&1; save
F='BM_Copy|BM_CrossEntropy/[12]/|BM_Embedding/1/'
for i in 1 2; do
  timeout 60 ./dist/main/gpu_bench --benchmark_filter="$F" > $L/index_main_$i.log 2>&1; save
  timeout 60 ./dist/gpu_bench --benchmark_filter="$F" > $L/index_new_$i.log 2>&1; save
done
timeout 140 ./dist/fuzz diff --first=73600000 --count=60000 --jobs=16 --timeout=300 --time_limit=115 > $L/fuzz_diff.log 2>&1; save
TESSEL_CLUSTERS=0 timeout 75 ./dist/fuzz diff --staged_row=128 --first=73700000 --count=60000 --jobs=16 --timeout=300 --time_limit=50 > $L/fuzz_diff_staged.log 2>&1; save
