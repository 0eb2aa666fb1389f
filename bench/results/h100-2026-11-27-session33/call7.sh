#!/usr/bin/env bash
# Session 33 call 7 (final code): gpu_test in full; memcheck over the column tests (bf16 pairs,
# 64 a block); fuzz diff with fresh seeds.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call7.tgz -C $OUT logs; }
timeout 120 compute-sanitizer --tool memcheck --leak-check no ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/memcheck_columns.log 2>&1; save
timeout 150 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
timeout 120 ./dist/fuzz diff --first=73900000 --count=60000 --jobs=16 --timeout=300 --time_limit=95 > $L/fuzz_diff.log 2>&1; save
