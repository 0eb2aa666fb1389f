#!/usr/bin/env bash
# Session 36 call 7 (63fe015 + the loop test): loop_test (transposes over batch sizes 1-100);
# the cross-entropy and embedding repros with indices in range (exact / fma / fast);
# fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call7.tgz -C $OUT logs; }
timeout 150 ./dist/loop_test > $L/loop_test.log 2>&1; save
timeout 120 bash dist/lab/fast_math/run.sh 2 > $L/fast_math.log 2>&1; save
timeout 150 ./dist/fuzz diff --first=75700000 --count=60000 --jobs=16 --timeout=300 --time_limit=130 > $L/fuzz_diff.log 2>&1; save
