#!/usr/bin/env bash
# Session 33 call 4: every axis in f32 and bf16 (discovery): reductions, softmax, transposes.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
timeout 240 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_ReduceAxis|BM_SoftmaxAxis|BM_Transpose' > $L/axes.log 2>&1; save
