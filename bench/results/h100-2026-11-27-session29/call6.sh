#!/usr/bin/env bash
# Session 29 call 6 (experiment, branch exp-f32-scores): attention D = 128 with the scores
# scaled in f32 without their 16-bit rounding (TESSEL_EXP_F32_SCORES=1) against as built, one
# binary alternating.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
A='BM_Attention/8/16/16/4096/4096/128/0/'
for r in 1 2; do
  timeout 30 ./dist/attention_bench --benchmark_filter="$A" > $L/as_built_$r.log 2>&1; save
  TESSEL_EXP_F32_SCORES=1 timeout 30 ./dist/attention_bench --benchmark_filter="$A" > $L/f32_scores_$r.log 2>&1; save
done
