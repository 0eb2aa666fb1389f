#!/usr/bin/env bash
# Session 30 call 7: call 6's benchmark again, one filter a process: softmax over columns of
# 16384 f32 and the long rows, ed4df01's binary and the shared lanes' (16 + 48) alternating;
# 8bff2e6's once.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call7.tgz -C $OUT logs; }
B='BM_Copy|BM_SoftmaxAxis/4/|BM_LongSoftmax/1/'
timeout 40 ./dist/main/gpu_bench_8bff2e6 --benchmark_filter="$B" > $L/bench_8bff2e6.log 2>&1; save
for r in 1 2; do
  timeout 40 ./dist/main/gpu_bench --benchmark_filter="$B" > $L/bench_ed4df01_$r.log 2>&1; save
  timeout 40 ./dist/gpu_bench --benchmark_filter="$B" > $L/bench_new_$r.log 2>&1; save
done
