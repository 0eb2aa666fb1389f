#!/usr/bin/env bash
# Session 31 call 5: other streamed reductions against ad215ad's binary (one row of 2^28 f32
# in chunks, argmax), alternating; the fuzzer's diff mode at a6463ac.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
B='BM_Copy|BM_ThreeReductions/1/|BM_Argmax/1/'
for i in 1 2; do
  timeout 60 ./dist/main/gpu_bench --benchmark_filter="$B" > $L/red_main_$i.log 2>&1; save
  timeout 60 ./dist/gpu_bench --benchmark_filter="$B" > $L/red_new_$i.log 2>&1; save
done
timeout 320 ./dist/fuzz diff --first=73000000 --count=60000 --jobs=16 --timeout=300 --time_limit=300 > $L/fuzz_diff.log 2>&1; save
