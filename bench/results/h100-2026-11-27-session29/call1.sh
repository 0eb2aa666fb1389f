#!/usr/bin/env bash
# Session 29 call 1: K slices for the last round's tiles (branch tail-slices) - its GEMM tests,
# SwiGLU / q/k/v and the new GEMM rows against main's binaries alternating.
# (The group rows ran M = 64, 1024, 16 in one process and the tessel rows came last: the 45 s
# timeouts cut them; call 2 repeats them one row count a process.)
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
timeout 120 ./dist/gemm_test --gtest_filter='*TheLastRounds*:*KSlices*:*Dual*' > $L/gemm_test_slices.log 2>&1; save
G='BM_(SwiGlu/(64|1024|16)/[01]|Qkv/16/[02]|CopyBandwidth)/'
for r in 1 2; do
  timeout 45 ./dist/main/gemm_group_bench --benchmark_filter="$G" > $L/group_main_$r.log 2>&1; save
  timeout 45 ./dist/gemm_group_bench --benchmark_filter="$G" > $L/group_new_$r.log 2>&1; save
done
GB='BM_(Cublas|Tessel)/(1536/4096/4096|2560/4096/4096|16/4096/4096|32/4096/4096)/0/'
for r in 1 2; do
  timeout 40 ./dist/main/gemm_bench --benchmark_filter="$GB" > $L/gemm_main_$r.log 2>&1; save
  timeout 40 ./dist/gemm_bench --benchmark_filter="$GB" > $L/gemm_new_$r.log 2>&1; save
done
