#!/usr/bin/env bash
# Session 32 call 3: tickets counted by atomicAdd after one compare-and-swap (call 2's CAS
# loop serialized them); decode shares by ticket (TESSEL_ATTENTION_SHARE, 0: fixed split);
# causal attention (tickets without the zeroing launch) against main (0d8fa50), alternating.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
TESSEL_ATTENTION_SHARE=1 timeout 100 ./dist/attention_test --gtest_filter='*Tickets*:*FewHeads*:*Persistent*' > $L/attention_test_s1.log 2>&1; save
F='BM_Attention/[0-9]+/32/8/1/'
for i in 1 2; do
  for s in 0 1 2 4; do
    TESSEL_ATTENTION_SHARE=$s timeout 90 ./dist/attention_bench --benchmark_filter="$F" > $L/decode_s${s}_$i.log 2>&1; save
  done
done
C='BM_Attention/(8/16/16/4096/4096/128/1|1/16/16/8192/8192/128/1|4/32/8/4096/4096/128/1)/'
for i in 1 2; do
  timeout 90 ./dist/main/attention_bench --benchmark_filter="$C" > $L/causal_main_$i.log 2>&1; save
  timeout 90 ./dist/attention_bench --benchmark_filter="$C" > $L/causal_new_$i.log 2>&1; save
done
for s in 0 1 2; do
  TESSEL_ATTENTION_SHARE=$s timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum,sm__cycles_active.avg,dram__throughput.avg.pct_of_peak_sustained_elapsed --kernel-name regex:F_ --launch-skip 20 --launch-count 4 ./dist/attention_bench --benchmark_filter='BM_Attention/1/32/8/1/16384/' --benchmark_min_time=0.05 > $L/ncu_s$s.log 2>&1; save
done
