#!/usr/bin/env bash
# Session 56 call 6: 8491732 on the GPU. gpu_test's HeldRows (inputs only the stores read
# held within 96 KB) and ColumnNormalizationOfFlags: skipped on the machine's NVRTC 13.0,
# forced there (TESSEL_TEST_KNOWN_MISCOMPILES=1: it must fail), and run with PyPI's NVRTC
# 13.5 (TESSEL_NVRTC: it must pass); the whole gpu_test and loop_test; fuzz diff
# --staged_row=64 and plain; gpu_bench's normalizations new against 2f78a01 (dist/old),
# alternating.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
t() {  # name timeout command...
  local n=$1 to=$2; shift 2; local s=$(date +%s)
  timeout $to "$@" > $OUT/logs/$n.txt 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED|^\[  SKIPPED' $OUT/logs/$n.txt | head -3 | tr '\n' ' ')"
  grep -E "^\[  FAILED|Failure|tessel: NVRTC" $OUT/logs/$n.txt | head -6; save
}
mkdir -p /tmp/n135 && xz -d -c dist/nvrtc135/libnvrtc.so.13.xz > /tmp/n135/libnvrtc.so.13 && xz -d -c dist/nvrtc135/libnvrtc-builtins.so.13.5.xz > /tmp/n135/libnvrtc-builtins.so.13.5
F='*HeldRows*:*ColumnNormalizationOfFlags*'
TESSEL_CACHE_DIR=/tmp/tc t held130 90 ./dist/gpu_test --gtest_filter="$F"
TESSEL_CACHE_DIR=/tmp/tc TESSEL_TEST_KNOWN_MISCOMPILES=1 t flags130 60 ./dist/gpu_test --gtest_filter='*ColumnNormalizationOfFlags*'
TESSEL_CACHE_DIR=/tmp/t135 TESSEL_NVRTC=/tmp/n135/libnvrtc.so.13 t held135 90 ./dist/gpu_test --gtest_filter="$F"
TESSEL_CACHE_DIR=/tmp/tc t gpu_test 180 ./dist/gpu_test
TESSEL_CACHE_DIR=/tmp/tc t loop_test 120 ./dist/loop_test
b() {  # name timeout filter binary
  TESSEL_CACHE_DIR=/tmp/tb_$1 timeout $2 $4 --benchmark_min_time=0.2 --benchmark_filter="$3" > $OUT/logs/bench_$1.txt 2>&1
  echo "== $1"; grep -E "^BM_" $OUT/logs/bench_$1.txt | tr -s " " | cut -d" " -f1,2,6- | sed 's/manual_time //'; save
}
B='BM_Copy|BM_Softmax/|BM_LayerNorm/1|BM_CrossEntropy/1|BM_LongSoftmax/1|BM_SoftmaxRowLength/1/(32000|65536)/16|BM_SoftmaxRowLength/1/(32768|65536)/32'
b new1 90 "$B" ./dist/gpu_bench
b old1 90 "$B" ./dist/old/gpu_bench
b new2 90 "$B" ./dist/gpu_bench
b old2 90 "$B" ./dist/old/gpu_bench
TESSEL_CACHE_DIR=/tmp/tf timeout 60 ./dist/fuzz diff --staged_row=64 --first=81100000 --count=60000 --jobs=16 --timeout=300 --time_limit=40 > $OUT/logs/fuzz_staged.txt 2>&1; tail -1 $OUT/logs/fuzz_staged.txt; grep -A3 "^FAIL" $OUT/logs/fuzz_staged.txt | head; save
TESSEL_CACHE_DIR=/tmp/tf2 timeout 60 ./dist/fuzz diff --first=81200000 --count=60000 --jobs=16 --timeout=300 --time_limit=40 > $OUT/logs/fuzz.txt 2>&1; tail -1 $OUT/logs/fuzz.txt; grep -A3 "^FAIL" $OUT/logs/fuzz.txt | head
save
