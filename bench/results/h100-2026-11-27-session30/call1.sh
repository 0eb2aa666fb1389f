#!/usr/bin/env bash
# Session 30 call 1: the column softmax lab (its first variants); branch dual-n256's GEMM
# tests (dual, K slices, few rows); SwiGLU at M = 1024 and 8192, main's binary and the
# branch's alternating, one row count a process. (dist/dual/ held the branch's binaries.)
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt 2>&1
timeout 60 ./dist/lab/column_lab > $L/column_lab.log 2>&1; save
timeout 150 ./dist/dual/gemm_test --gtest_filter='*Dual*:*KSlices*:*TheLastRounds*:*FewRow*:*Swiglu*:*SwiGlu*' > $L/dual_gemm_test.log 2>&1; save
for r in 1 2; do
  for m in 1024 8192; do
    timeout 35 ./dist/gemm_group_bench --benchmark_filter="BM_SwiGlu/$m/" > $L/swiglu${m}_main_$r.log 2>&1; save
    timeout 35 ./dist/dual/gemm_group_bench --benchmark_filter="BM_SwiGlu/$m/" > $L/swiglu${m}_dual_$r.log 2>&1; save
  done
done
