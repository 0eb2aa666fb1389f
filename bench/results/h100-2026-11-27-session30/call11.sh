#!/usr/bin/env bash
# Session 30 call 11, at 4190ea5 (the session's code): the GPU and GEMM tests whole, the fuzz
# regressions, the row and column normalizations' benchmarks, the fuzzer's diff mode.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call11.tgz -C $OUT logs; }
timeout 120 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
timeout 200 ./dist/gemm_test > $L/gemm_test.log 2>&1; save
timeout 120 ./dist/fuzz_regression_test > $L/fuzz_regression_test.log 2>&1; save
timeout 60 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_Softmax/(bf16|f32)/1/|BM_LayerNorm/1/|BM_SoftmaxAxis/4/|BM_LongSoftmax/1/' > $L/bench_rows.log 2>&1; save
timeout 40 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_CrossEntropy' > $L/bench_ce.log 2>&1; save
timeout 80 ./dist/fuzz diff --first=72400000 --count=60000 --jobs=16 --timeout=300 --time_limit=60 > $L/fuzz_diff.log 2>&1; save
