#!/usr/bin/env bash
# Session 32 call 1: decode shares by ticket (TESSEL_ATTENTION_SHARE = key tiles a share; 0:
# the fixed split of main), alternating processes; Nsight Compute on the attention kernel and
# its combine; attention tests with shares by ticket; fuzz diff over streamed rows.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.txt
F='BM_Attention/[0-9]+/32/8/1/'
for i in 1 2; do
  for s in 0 1 2 4; do
    TESSEL_ATTENTION_SHARE=$s timeout 90 ./dist/attention_bench --benchmark_filter="$F" > $L/decode_s${s}_$i.log 2>&1; save
  done
done
for s in 0 1 2; do
  TESSEL_ATTENTION_SHARE=$s timeout 80 ncu --clock-control none --metrics gpu__time_duration.sum,sm__cycles_active.avg,dram__throughput.avg.pct_of_peak_sustained_elapsed --kernel-name regex:F_ --launch-skip 20 --launch-count 4 ./dist/attention_bench --benchmark_filter='BM_Attention/1/32/8/1/16384/' --benchmark_min_time=0.05 > $L/ncu_s$s.log 2>&1; save
done
TESSEL_ATTENTION_SHARE=1 timeout 120 ./dist/attention_test > $L/attention_test_s1.log 2>&1; save
