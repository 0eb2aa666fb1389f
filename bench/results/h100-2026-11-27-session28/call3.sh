#!/usr/bin/env bash
# Session 28 call 3: the consumers copying the head of the operands before multiplying
# (TESSEL_COPY_HEAD percent of the units, an experiment's knob on branch kernel-copies),
# against main alternating; each irregularity alone; Nsight durations of main's staging and
# GEMM kernels.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
TESSEL_COPY_HEAD=50 timeout 60 ./dist/gemm_test --gtest_filter='*Unaligned*:*KernelsCopy*:*Tf32*' > $L/gemm_test_head50.log 2>&1; save
G='BM_Cublas/4096/4096/4096/0/|BM_Tessel/(4097/4095/409[56]|4096/4096/4096|4097/4096/4096|4096/4095/4096)/0/'
timeout 50 ./dist/gemm_bench_main --benchmark_filter="$G" > $L/gemm_main_1.log 2>&1; save
for h in 0 25 50 100; do
  TESSEL_COPY_HEAD=$h timeout 45 ./dist/gemm_bench --benchmark_filter="$G" > $L/gemm_head${h}_1.log 2>&1; save
done
timeout 40 ./dist/gemm_bench_main --benchmark_filter="$G" > $L/gemm_main_2.log 2>&1; save
for h in 100 50; do
  TESSEL_COPY_HEAD=$h timeout 35 ./dist/gemm_bench --benchmark_filter="$G" > $L/gemm_head${h}_2.log 2>&1; save
done
NCU="ncu --clock-control none --metrics gpu__time_duration.sum --kernel-name regex:^G_"
timeout 45 $NCU --launch-count 6 ./dist/gemm_bench_main --benchmark_filter='BM_Tessel/4097/4095/4096/0/' --benchmark_min_time=0.01 > $L/ncu_main_4096.txt 2>&1; save
timeout 45 $NCU --launch-count 10 ./dist/gemm_bench_main --benchmark_filter='BM_Tessel/(4097/4096/4096|4096/4095/4096)/0/' --benchmark_min_time=0.01 > $L/ncu_main_probes.txt 2>&1; save
