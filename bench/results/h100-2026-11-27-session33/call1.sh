#!/usr/bin/env bash
# Session 33 call 1: short columns 64 a block for 16-bit inputs (branch wide-columns-16bit,
# dist/wide) against main 5d2e682, alternating; the wide branch's column test (a bf16 shape of
# many short columns); main's full gpu_test.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $L/gpu.txt 2>&1
F='BM_Copy|BM_SoftmaxAxis/[1256]/'
for i in 1 2; do
  timeout 75 ./dist/gpu_bench --benchmark_filter="$F" > $L/axis_main_$i.log 2>&1; save
  timeout 75 ./dist/wide/gpu_bench --benchmark_filter="$F" > $L/axis_wide_$i.log 2>&1; save
done
timeout 60 ./dist/wide/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/gpu_test_wide.log 2>&1; save
timeout 250 ./dist/gpu_test > $L/gpu_test_main.log 2>&1; save
