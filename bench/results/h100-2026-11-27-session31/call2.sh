#!/usr/bin/env bash
# Session 31 call 2: the split decode's combine rewritten (shares' loads at once, 16 warps a
# block) against ad215ad's binary, alternating; the attention tests and sanitizers over the
# split path; the cross-entropy lab (bench/labs/cross_entropy_lab.cu); fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
F='BM_Attention/(1/32/8/1/16384|16/32/8/1/8192|16/32/8/16/8192)/'
for i in 1 2; do
  timeout 60 ./dist/main/attention_bench --benchmark_filter="$F" > $L/decode_main_$i.log 2>&1; save
  timeout 60 ./dist/attention_bench --benchmark_filter="$F" > $L/decode_new_$i.log 2>&1; save
done
timeout 150 ./dist/attention_test > $L/attention_test.log 2>&1; save
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool ./dist/attention_test --gtest_filter='*FewHeadsSplitTheKeys*' > $L/$tool.log 2>&1; save
done
timeout 60 ./dist/lab/ce_lab > $L/ce_lab.log 2>&1; save
timeout 80 ncu --clock-control none --metrics gpu__time_duration.sum,sm__cycles_active.avg,dram__throughput.avg.pct_of_peak_sustained_elapsed --kernel-name regex:F_ --launch-skip 20 --launch-count 4 ./dist/attention_bench --benchmark_filter='BM_Attention/1/32/8/1/16384/' --benchmark_min_time=0.05 > $L/ncu_decode.log 2>&1; save
timeout 70 ./dist/fuzz diff --first=72800000 --count=60000 --jobs=16 --timeout=300 --time_limit=60 > $L/fuzz_diff.log 2>&1; save
