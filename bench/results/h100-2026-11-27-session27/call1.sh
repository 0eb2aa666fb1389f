#!/usr/bin/env bash
# Session 27 call 1: row-staging (branch) against main's staging (the gemm filter ended in
# "/0$" and matched no benchmark: rerun in call 2), unaligned tests; Nsight Compute on the
# column softmax, cross-entropy and q/k/v M=64 kernels; memory-bound baselines; fuzz.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
timeout 100 ./dist/gemm_test --gtest_filter='*Unaligned*:*Staged*:*Odd*' > $L/gemm_test.log 2>&1; save
timeout 90 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_SoftmaxAxis|BM_LongSoftmax|BM_CrossEntropy/1|BM_Softmax' --benchmark_min_time=0.3 > $L/gpu_bench.log 2>&1; save
NCU="ncu --clock-control none --launch-skip 2 --launch-count 1"
timeout 120 $NCU --set full --kernel-name regex:'^N_' ./dist/gpu_bench --benchmark_filter='BM_SoftmaxAxis/4' --benchmark_min_time=0.01 > $L/ncu_colsoftmax.txt 2>&1; save
timeout 90 ncu --clock-control none --launch-skip 2 --launch-count 2 --set full ./dist/gpu_bench --benchmark_filter='BM_CrossEntropy/1' --benchmark_min_time=0.01 > $L/ncu_xent.txt 2>&1; save
timeout 90 $NCU --set full --kernel-name regex:'^G_' ./dist/gemm_group_bench --benchmark_filter='BM_Qkv/64/2' --benchmark_min_time=0.01 > $L/ncu_qkv64.txt 2>&1; save
timeout 75 ./dist/fuzz diff --first=66000000 --count=60000 --jobs=16 --timeout=300 --time_limit=60 > $L/fuzz.log 2>&1; save
