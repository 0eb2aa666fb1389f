#!/usr/bin/env bash
# Session 31 call 1: where the time goes. Baselines at ad215ad (decode of one sequence with
# its keys split, cross-entropy over 32000 bf16 classes, softmax over the leading axis of
# [256, 512, 512] f32, 64 rows of 131072 bf16), then Nsight Compute on each one's kernels.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt 2>&1
timeout 60 ./dist/attention_bench --benchmark_filter='BM_Attention/(1/32/8/1/16384|16/32/8/1/8192)/' > $L/decode.log 2>&1; save
timeout 60 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_CrossEntropy/1/|BM_SoftmaxAxis/1|BM_LongSoftmax/1/' > $L/bench.log 2>&1; save
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,sm__cycles_active.avg
timeout 120 ncu --clock-control none --metrics $M --kernel-name regex:F_ --launch-skip 20 --launch-count 4 ./dist/attention_bench --benchmark_filter='BM_Attention/1/32/8/1/16384/' --benchmark_min_time=0.05 > $L/ncu_decode.log 2>&1; save
timeout 120 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --kernel-name regex:'F_.*bafcfc30$' --launch-skip 20 --launch-count 1 ./dist/attention_bench --benchmark_filter='BM_Attention/1/32/8/1/16384/' --benchmark_min_time=0.05 > $L/ncu_decode_sections.log 2>&1; save
timeout 120 ncu --clock-control none --metrics $M --kernel-name regex:R_ --launch-skip 20 --launch-count 4 ./dist/gpu_bench --benchmark_filter='BM_CrossEntropy/1/' --benchmark_min_time=0.05 > $L/ncu_ce.log 2>&1; save
timeout 120 ncu --clock-control none --section WarpStateStats --kernel-name regex:R_cast --launch-skip 20 --launch-count 1 ./dist/gpu_bench --benchmark_filter='BM_CrossEntropy/1/' --benchmark_min_time=0.05 > $L/ncu_ce_sections.log 2>&1; save
timeout 120 ncu --clock-control none --metrics $M --kernel-name regex:N_ --launch-skip 20 --launch-count 2 ./dist/gpu_bench --benchmark_filter='BM_SoftmaxAxis/1' --benchmark_min_time=0.05 > $L/ncu_axis.log 2>&1; save
timeout 120 ncu --clock-control none --metrics $M --kernel-name regex:N_ --launch-skip 20 --launch-count 2 ./dist/gpu_bench --benchmark_filter='BM_LongSoftmax/1/' --benchmark_min_time=0.05 > $L/ncu_long.log 2>&1; save
timeout 70 ./dist/fuzz diff --first=72700000 --count=60000 --jobs=16 --timeout=300 --time_limit=55 > $L/fuzz_diff.log 2>&1; save
