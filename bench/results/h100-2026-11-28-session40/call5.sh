#!/usr/bin/env bash
# Session 40 call 5 (2d3d5a1): fuzz diff, launch_test on the real driver, gpu_test.
cd "$(dirname "$0")/.."
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
(timeout 75 ./dist/fuzz diff --first=76900000 --count=60000 --jobs=16 --timeout=300 --time_limit=60 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
TESSEL_CACHE_DIR=/tmp/tc4 timeout 60 ./dist/launch_test > $OUT/logs/launch_test.txt 2>&1; tail -1 $OUT/logs/launch_test.txt
save
TESSEL_CACHE_DIR=/tmp/tc2 timeout 120 ./dist/gpu_test > $OUT/logs/gpu_test.txt 2>&1; tail -1 $OUT/logs/gpu_test.txt
save
