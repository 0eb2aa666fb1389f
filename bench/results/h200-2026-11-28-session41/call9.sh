#!/usr/bin/env bash
# Session 41 call 9 (c8dbae6): the failing seed, fuzz_regression_test, fuzz diff, gpu_test.
cd "$(dirname "$0")/.."
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call9.tgz -C $OUT logs; }
timeout 30 ./dist/fuzz run --mode=diff --seed=77218775 > $OUT/logs/seed.txt 2>&1; tail -1 $OUT/logs/seed.txt
TESSEL_CACHE_DIR=/tmp/tr timeout 60 ./dist/fuzz_regression_test > $OUT/logs/fuzz_regression_test.txt 2>&1; tail -1 $OUT/logs/fuzz_regression_test.txt
save
(timeout 75 ./dist/fuzz diff --first=77300000 --count=60000 --jobs=16 --timeout=300 --time_limit=60 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
TESSEL_CACHE_DIR=/tmp/tc2 timeout 100 ./dist/gpu_test > $OUT/logs/gpu_test.txt 2>&1; tail -1 $OUT/logs/gpu_test.txt
save
