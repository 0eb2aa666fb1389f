#!/usr/bin/env bash
# Session 52 call 1: e33a9b2 on a GPU (the landed keep_a of e50ca6b and the device scoping of
# 75d8e4e/24bd9a5 never ran): gpu_test, gemm_test, fuzz_regression_test, loop_test,
# attention_test, stream_test, scan_sort_test; fuzz diff 79400000..
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for t in gemm_test gpu_test fuzz_regression_test loop_test attention_test stream_test scan_sort_test; do
  s=$(date +%s); timeout 100 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/$t.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED" $OUT/logs/$t.txt | head -5; save
done
TESSEL_CACHE_DIR=/tmp/tf timeout 85 ./dist/fuzz diff --first=79400000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt
save
