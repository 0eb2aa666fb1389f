#!/usr/bin/env bash
# Session 28 call 2: operands copied by the GEMM kernel itself (branch kernel-copies, then
# uncommitted) - gemm tests, the unaligned and TF32 benchmarks against main's binary
# alternating, kernel durations, sanitizers over the new test; streamed rows at 8 blocks an SM
# (branch ce-bounds) against main.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
timeout 100 ./dist/gemm_test --gtest_filter='*Unaligned*:*KernelsCopy*:*Tf32*:*FewRows*' > $L/gemm_test.log 2>&1; save
G='BM_Cublas/4096/4096/4096/0/|BM_Tessel/(4097/4095/409[56]|4096/4096/4096)/0/|BM_F32/4096/4096/4096/[02]/'
for r in 1 2; do
  timeout 40 ./dist/gemm_bench_main --benchmark_filter="$G" > $L/gemm_main_$r.log 2>&1; save
  timeout 40 ./dist/gemm_bench --benchmark_filter="$G" > $L/gemm_new_$r.log 2>&1; save
done
NCU="ncu --clock-control none --metrics gpu__time_duration.sum --kernel-name regex:^G_"
timeout 50 $NCU --launch-count 6 ./dist/gemm_bench --benchmark_filter='BM_Tessel/4097/4095/4096/0/' --benchmark_min_time=0.01 > $L/ncu_new_4096.txt 2>&1; save
timeout 50 $NCU --launch-count 6 ./dist/gemm_bench --benchmark_filter='BM_Tessel/4097/4095/4095/0/' --benchmark_min_time=0.01 > $L/ncu_new_4095.txt 2>&1; save
timeout 60 compute-sanitizer --tool racecheck ./dist/gemm_test --gtest_filter='*KernelsCopy*' > $L/racecheck.log 2>&1; save
timeout 60 compute-sanitizer --tool memcheck ./dist/gemm_test --gtest_filter='*KernelsCopy*:*Unaligned*' > $L/memcheck.log 2>&1; save
F='BM_Copy|BM_CrossEntropy/1|BM_Argmax/1'
for r in 1; do
  timeout 35 ./dist/gpu_bench --benchmark_filter="$F" --benchmark_min_time=0.3 > $L/xent_main_$r.log 2>&1; save
  timeout 30 ./dist/gpu_bench_ce --benchmark_filter="$F" --benchmark_min_time=0.3 > $L/xent_ce_$r.log 2>&1; save
done
