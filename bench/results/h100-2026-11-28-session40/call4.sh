#!/usr/bin/env bash
# Session 40 call 4 (8ba745d): fuzz diff, gpu_test, loop_test, fuzz_regression_test, gpu_bench's softmax axes.
cd "$(dirname "$0")/.."
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
(timeout 100 ./dist/fuzz diff --first=76800000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
TESSEL_CACHE_DIR=/tmp/tc2 timeout 200 ./dist/gpu_test > $OUT/logs/gpu_test.txt 2>&1; tail -1 $OUT/logs/gpu_test.txt
TESSEL_CACHE_DIR=/tmp/tc3 timeout 100 ./dist/loop_test > $OUT/logs/loop_test.txt 2>&1; tail -1 $OUT/logs/loop_test.txt
TESSEL_CACHE_DIR=/tmp/tc4 timeout 150 ./dist/fuzz_regression_test > $OUT/logs/fuzz_regression_test.txt 2>&1; tail -1 $OUT/logs/fuzz_regression_test.txt
save
TESSEL_CACHE_DIR=/tmp/tb timeout 100 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_SoftmaxAxis/[5-7]|BM_SixtyFourUpdates/1' --benchmark_min_time=0.3 > $OUT/logs/gpu_bench.txt 2>&1
grep -E '^BM_' $OUT/logs/gpu_bench.txt | awk '{print $1, $2, $7, $8, $NF}'
save
