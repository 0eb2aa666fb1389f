#!/usr/bin/env bash
# Session 27 call 3: columns 64 bytes a block in clusters of 16 (col16, TESSEL_CLUSTERS=16)
# against e6ec28d's default; 4 vectors in flight a thread (if4) against 2 for streamed rows.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
F='BM_Copy|BM_SoftmaxAxis|BM_LongSoftmax/1'
for r in 1 2; do
  timeout 90 ./dist/gpu_bench --benchmark_filter="$F" --benchmark_min_time=0.3 2>&1 | grep -E "^BM_|rror" | sed "s/^/base /" >> $L/col.log
  TESSEL_CLUSTERS=16 timeout 90 ./dist/col16_gpu_bench --benchmark_filter="$F" --benchmark_min_time=0.3 2>&1 | grep -E "^BM_|rror" | sed "s/^/col16 /" >> $L/col.log
done; save
F='BM_Copy|BM_CrossEntropy/1|BM_CrossEntropy/2|BM_Argmax/1'
for r in 1 2; do
  timeout 90 ./dist/gpu_bench --benchmark_filter="$F" --benchmark_min_time=0.3 2>&1 | grep -E "^BM_|rror" | sed "s/^/base /" >> $L/if4.log
  timeout 90 ./dist/if4_gpu_bench --benchmark_filter="$F" --benchmark_min_time=0.3 2>&1 | grep -E "^BM_|rror" | sed "s/^/if4 /" >> $L/if4.log
done; save
TESSEL_CLUSTERS=16 timeout 60 ncu --clock-control none --launch-skip 2 --launch-count 1 --kernel-name regex:'^N_' --metrics breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_requests_srcunit_tex_op_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum ./dist/col16_gpu_bench --benchmark_filter='BM_SoftmaxAxis/4' --benchmark_min_time=0.01 > $L/ncu_col16.txt 2>&1; save
timeout 60 ncu --clock-control none --launch-skip 2 --launch-count 1 --kernel-name regex:'^R_cast' --section SpeedOfLight --section Occupancy --section WarpStateStats ./dist/if4_gpu_bench --benchmark_filter='BM_CrossEntropy/1' --benchmark_min_time=0.01 > $L/ncu_if4.txt 2>&1; save
