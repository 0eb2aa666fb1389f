#!/usr/bin/env bash
# Session 33 call 3 (cfc0339): memcheck over the unchecked gathers and scatters and over the
# column normalizations (64 columns a block, 71ddb58); the GPU test binaries in full.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
timeout 120 compute-sanitizer --tool memcheck --leak-check no ./dist/gpu_test --gtest_filter='*Gather*:*Indices*:*OneHot*' > $L/memcheck_index.log 2>&1; save
timeout 100 compute-sanitizer --tool memcheck --leak-check no ./dist/scan_sort_test --gtest_filter='*Scatter*' > $L/memcheck_scatter.log 2>&1; save
timeout 100 compute-sanitizer --tool memcheck --leak-check no ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/memcheck_columns.log 2>&1; save
timeout 60 compute-sanitizer --tool racecheck ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/racecheck_columns.log 2>&1; save
timeout 200 ./dist/scan_sort_test > $L/scan_sort_test.log 2>&1; save
for t in stream_test interop_test loop_test threads_test; do timeout 60 ./dist/$t > $L/$t.log 2>&1; save; done
