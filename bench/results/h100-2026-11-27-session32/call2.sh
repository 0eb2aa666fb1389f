#!/usr/bin/env bash
# Session 32 call 2: call 1 again after its fix (a CUDA graph's replays keep %gridid: the
# ticket counter now goes back to 0 after the last ticket) and with the combine merging a
# row's shares in parts (a warp a part); decode shares by ticket (TESSEL_ATTENTION_SHARE = key
# tiles a share; 0: main's fixed split), alternating processes; Nsight Compute; the tests.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
TESSEL_ATTENTION_SHARE=1 timeout 100 ./dist/attention_test --gtest_filter='*Tickets*:*FewHeads*:*Persistent*' > $L/attention_test_s1.log 2>&1; save
F='BM_Attention/[0-9]+/32/8/1/'
for i in 1 2; do
  for s in 0 1 2 4; do
    TESSEL_ATTENTION_SHARE=$s timeout 90 ./dist/attention_bench --benchmark_filter="$F" > $L/decode_s${s}_$i.log 2>&1; save
  done
done
for s in 0 1 2; do
  TESSEL_ATTENTION_SHARE=$s timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum,sm__cycles_active.avg,dram__throughput.avg.pct_of_peak_sustained_elapsed --kernel-name regex:F_ --launch-skip 20 --launch-count 4 ./dist/attention_bench --benchmark_filter='BM_Attention/1/32/8/1/16384/' --benchmark_min_time=0.05 > $L/ncu_s$s.log 2>&1; save
done
