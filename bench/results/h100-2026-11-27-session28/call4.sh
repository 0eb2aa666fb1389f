#!/usr/bin/env bash
# Session 28 call 4: TF32 with B read into registers (B_REGS, working tree) - gemm tests,
# BM_F32 against main's binary alternating, kernel durations; the 16-bit GEMMs for regressions.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
timeout 150 ./dist/gemm_test > $L/gemm_test.log 2>&1; save
G='BM_F32/(4096|8192)/4096/4096/[024]/'
for r in 1 2; do
  timeout 45 ./dist/gemm_bench_main --benchmark_filter="$G" > $L/f32_main_$r.log 2>&1; save
  timeout 45 ./dist/gemm_bench --benchmark_filter="$G" > $L/f32_new_$r.log 2>&1; save
done
NCU="ncu --clock-control none --metrics gpu__time_duration.sum --kernel-name regex:^G_"
timeout 45 $NCU --launch-count 4 ./dist/gemm_bench --benchmark_filter='BM_F32/4096/4096/4096/2/' --benchmark_min_time=0.01 > $L/ncu_tf32_new.txt 2>&1; save
timeout 60 ./dist/gemm_bench --benchmark_filter='BM_(Cublas|Tessel)/(8192/8192/8192|4096/4096/4096|16/4096/4096)/0/' > $L/bf16_new.log 2>&1; save
