#!/usr/bin/env bash
# Session 56 call 1: 0e1eabc..a491714 on a GPU (the held kernel's single store sweep, HeldRows'
# later cases): gpu_test's HeldRows on main and on dist/lab2 (bench/labs/held_tail.patch plus
# the lab's TESSEL_HELD_ROW_BYTES / TESSEL_HELD_THREADS), then gpu_test, loop_test; fuzz diff
# --staged_row=64 (the generator's held step, 5999a7a) and plain fuzz diff from 80800000.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
t() {  # name timeout binary args...
  local n=$1 to=$2; shift 2; local s=$(date +%s)
  timeout $to "$@" > $OUT/logs/$n.txt 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/$n.txt | head -3 | tr '\n' ' ')"
  grep -E "^\[  FAILED|Failure" -A6 $OUT/logs/$n.txt | head -30; save
}
export TESSEL_CACHE_DIR=/tmp/tc
t held_main 90 ./dist/gpu_test --gtest_filter='*HeldRows*:*Normalizations*:*ClusterRows*'
TESSEL_CACHE_DIR=/tmp/tl t held_tail 90 ./dist/lab2/gpu_test --gtest_filter='*HeldRows*:*Normalizations*:*ClusterRows*'
TESSEL_HELD_ROW_BYTES=204800 TESSEL_HELD_THREADS=512 TESSEL_CACHE_DIR=/tmp/tb t held_big 90 ./dist/lab2/gpu_test --gtest_filter='*HeldRows*:*Normalizations*:*ClusterRows*'
t gpu_test 180 ./dist/gpu_test
t loop_test 150 ./dist/loop_test
TESSEL_CACHE_DIR=/tmp/tf timeout 85 ./dist/fuzz diff --staged_row=64 --first=80800000 --count=60000 --jobs=16 --timeout=300 --time_limit=65 > $OUT/logs/fuzz_staged.txt 2>&1; tail -2 $OUT/logs/fuzz_staged.txt; save
TESSEL_CACHE_DIR=/tmp/tf2 timeout 85 ./dist/fuzz diff --first=80900000 --count=60000 --jobs=16 --timeout=300 --time_limit=65 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt
save
