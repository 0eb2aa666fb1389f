#!/usr/bin/env bash
# Session 43 call 1 (c236a8e): GPU duty for the undo-assign and batch-bucket GEMM builds together.
cd "$(dirname "$0")/.."
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/logs/gpu.txt; cat $OUT/logs/gpu.txt
TESSEL_CACHE_DIR=/tmp/tr timeout 90 ./dist/fuzz_regression_test > $OUT/logs/fuzz_regression_test.txt 2>&1; tail -1 $OUT/logs/fuzz_regression_test.txt
save
TESSEL_CACHE_DIR=/tmp/tc2 timeout 110 ./dist/gpu_test > $OUT/logs/gpu_test.txt 2>&1; tail -1 $OUT/logs/gpu_test.txt
save
TESSEL_CACHE_DIR=/tmp/tl timeout 70 ./dist/loop_test > $OUT/logs/loop_test.txt 2>&1; tail -1 $OUT/logs/loop_test.txt
save
TESSEL_CACHE_DIR=/tmp/ts timeout 60 ./dist/stream_test > $OUT/logs/stream_test.txt 2>&1; tail -1 $OUT/logs/stream_test.txt
save
(timeout 100 ./dist/fuzz diff --first=77600000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
