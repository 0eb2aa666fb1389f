#!/usr/bin/env bash
# Session 36 call 6 (35af965): gpu_test (new transpose and one-hot cases); compute-sanitizer
# memcheck and racecheck over the transposes; fuzz diff fused and --unfused; the bf16
# transposes once more with the committed build.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
timeout 120 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
for tool in memcheck racecheck; do
  timeout 70 compute-sanitizer --tool $tool ./dist/gpu_test --gtest_filter='*Transposes*' > $L/$tool.log 2>&1; save
done
timeout 60 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_Transpose/(6|8|9|10)/' > $L/transpose.log 2>&1; save
timeout 100 ./dist/fuzz diff --first=75500000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $L/fuzz_diff.log 2>&1; save
timeout 100 ./dist/fuzz diff --unfused --staged_row=128 --first=75600000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $L/fuzz_diff_unfused.log 2>&1; save
