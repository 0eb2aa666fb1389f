#!/usr/bin/env bash
# Session 53 call 6: the session's last source commit (94448fe) on a GPU: gpu_test,
# stream_test, loop_test, fuzz_regression_test, and TESSEL_TEST_STREAM=true (now a switch);
# fuzz diff 80000000..
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
for t in gpu_test stream_test loop_test fuzz_regression_test; do
  s=$(date +%s); timeout 60 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/$t.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED" $OUT/logs/$t.txt | head -5; save
done
s=$(date +%s); TESSEL_TEST_STREAM=true timeout 60 ./dist/gpu_test > $OUT/logs/gpu_test_stream.txt 2>&1; echo "gpu_test on a stream rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/gpu_test_stream.txt | head -3 | tr '\n' ' ')"
save
TESSEL_CACHE_DIR=/tmp/tf timeout 70 ./dist/fuzz diff --first=80000000 --count=60000 --jobs=16 --timeout=300 --time_limit=55 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt
save
