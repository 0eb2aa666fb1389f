#!/usr/bin/env bash
# Session 37 call 7: gpu_test at 96a7965 (tiles only for one output, no 8-byte values, the
# input read in place, sm_90); compute-sanitizer memcheck over the column normalizations.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call7.tgz -C $OUT logs; }
timeout 150 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
timeout 60 compute-sanitizer --tool memcheck ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/memcheck.log 2>&1; save
tail -3 $L/gpu_test.log; grep -h "ERROR SUMMARY" $L/memcheck.log
