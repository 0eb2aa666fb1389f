#!/usr/bin/env bash
# Session 27 call 2: stream-trim (streamed rows: invariants hoisted, 32-bit one-hot compares,
# 16-bit loads from words) against main's gpu_bench; row-staging's gemm_bench against main's
# (unaligned rows); GPU tests; ncu of the new cross-entropy and the L2 breakdown of the column softmax; fuzz.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
timeout 150 ./dist/gpu_test > $L/gpu_test.log 2>&1; grep -E "^\[  (PASSED|FAILED)" $L/gpu_test.log; save
timeout 60 ./dist/rs_gemm_test --gtest_filter='*Unaligned*' > $L/rs_gemm_test.log 2>&1; tail -1 $L/rs_gemm_test.log; save
F='BM_Copy|BM_CrossEntropy/1|BM_Argmax/1|BM_Softmax/bf16/1|BM_LayerNorm/1|BM_LongSoftmax/1|BM_Embedding/1|BM_ReduceAxis|BM_SoftmaxAxis/4'
for b in gpu_bench prev_gpu_bench gpu_bench prev_gpu_bench; do
  timeout 60 ./dist/$b --benchmark_filter="$F" --benchmark_min_time=0.3 2>&1 | grep -E "^BM_" | sed "s/^/$b /" >> $L/gpu_bench.log
done; save
for b in rs_gemm_bench prev_gemm_bench rs_gemm_bench prev_gemm_bench; do
  for row in 4096/4096/4096 4097/4095/4096 4097/4095/4095; do
    timeout 25 ./dist/$b --benchmark_filter="BM_Tessel/$row/0/" --benchmark_min_time=0.3 2>&1 | grep -E "^BM_" | sed "s/^/$b /" >> $L/gemm.log
  done
done; save
timeout 60 ncu --clock-control none --launch-skip 2 --launch-count 1 --kernel-name regex:'^R_cast' --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats ./dist/gpu_bench --benchmark_filter='BM_CrossEntropy/1' --benchmark_min_time=0.01 > $L/ncu_xent.txt 2>&1; save
timeout 60 ncu --clock-control none --launch-skip 2 --launch-count 1 --kernel-name regex:'^N_' --metrics breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum ./dist/gpu_bench --benchmark_filter='BM_SoftmaxAxis/4' --benchmark_min_time=0.01 > $L/ncu_col_l2.txt 2>&1; save
timeout 75 ./dist/fuzz diff --first=67000000 --count=60000 --jobs=16 --timeout=300 --time_limit=60 > $L/fuzz.log 2>&1; tail -1 $L/fuzz.log; save
awk '{for(i=1;i<=NF;i++) if ($i ~ /^%copy|^GB/) printf "%s ", $i; print $1, $2}' $L/gpu_bench.log
awk '{for(i=1;i<=NF;i++) if ($i ~ /^TFLOP/) printf "%s ", $i; print $1, $2}' $L/gemm.log
grep -E "Duration|DRAM Through|Issue Slots|Registers Per|Achieved Occ|Compute \(SM\)" $L/ncu_xent.txt
grep -E "lts__|dram__|gpu__time" $L/ncu_col_l2.txt
