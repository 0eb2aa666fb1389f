#!/usr/bin/env bash
# Session 28 call 1 (main 8ebfd83): streamed rows at 8 blocks an SM (ce-bounds) against main,
# alternating (the filter also matched BM_SoftmaxAxis, so only main's first run reached the
# cross-entropy: rerun in call 2); kernel durations of the staged GEMMs under Nsight Compute
# (the unaligned run's 12 launches all went to the aligned 4096^3: rerun in call 3).
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
F='BM_Copy|BM_CrossEntropy/1|BM_Argmax/1|BM_Softmax|BM_LayerNorm/1'
for r in 1 2; do
  timeout $([ $r = 1 ] && echo 85 || echo 55) ./dist/gpu_bench --benchmark_filter="$F" --benchmark_min_time=0.3 > $L/main_$r.log 2>&1; save
  timeout 55 ./dist/gpu_bench_ce --benchmark_filter="$F" --benchmark_min_time=0.3 > $L/ce_$r.log 2>&1; save
done
NCU="ncu --clock-control none --metrics gpu__time_duration.sum"
timeout 90 $NCU --launch-skip 0 --launch-count 12 ./dist/gemm_bench --benchmark_filter='BM_Tessel/(4097/4095/409[56]|4096/4096/4096)/0/' --benchmark_min_time=0.01 > $L/ncu_unaligned.txt 2>&1; save
timeout 90 $NCU --launch-skip 0 --launch-count 12 ./dist/gemm_bench --benchmark_filter='BM_F32/4096/4096/4096/[24]/' --benchmark_min_time=0.01 > $L/ncu_tf32.txt 2>&1; save
timeout 60 ./dist/gemm_bench --benchmark_filter='BM_Cublas/4096/4096/4096/0/|BM_Tessel/(4097/4095/409[56]|4096/4096/4096)/0/|BM_F32/4096/4096/4096/[02]/' > $L/gemm.log 2>&1; save
