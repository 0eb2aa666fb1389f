#!/usr/bin/env bash
# Session 44 call 1 (5425aa7 = 63c0619's code): GPU duty for the 64-row static tiles at 65-127 rows
# (36342ea, 4fc2f08, 63c0619), which ran on the GPU only in gemm_bench.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
(while sleep 60; do save; done) &
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/logs/gpu.txt; cat $OUT/logs/gpu.txt
TESSEL_CACHE_DIR=/tmp/tg timeout 170 ./dist/gemm_test > $OUT/logs/gemm_test.txt 2>&1; echo gemm rc=$?; grep -E "FAILED|^\[  PASSED" $OUT/logs/gemm_test.txt | head
save
TESSEL_CACHE_DIR=/tmp/tr timeout 60 ./dist/fuzz_regression_test > $OUT/logs/fuzz_regression_test.txt 2>&1; tail -1 $OUT/logs/fuzz_regression_test.txt
save
TESSEL_CACHE_DIR=/tmp/tc2 timeout 110 ./dist/gpu_test > $OUT/logs/gpu_test.txt 2>&1; echo gpu rc=$?; grep -E "FAILED|^\[  PASSED" $OUT/logs/gpu_test.txt | head
save
TESSEL_CACHE_DIR=/tmp/tl timeout 70 ./dist/loop_test > $OUT/logs/loop_test.txt 2>&1; grep -E "FAILED|^\[  PASSED" $OUT/logs/loop_test.txt | head
save
(TESSEL_CACHE_DIR=/tmp/tf timeout 100 ./dist/fuzz diff --first=77700000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
