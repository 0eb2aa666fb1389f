#!/usr/bin/env bash
# Session 47 call 1: the committed (gated) merge in the attention kernel. attention_test
# (SplitMergedEitherWay, the replay with 6 shares), compute-sanitizer over the split tests,
# attention_bench decode rows O (1aa721e) / A (HEAD) two rounds, the GPU duty, issue 15's QKV rows.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/logs/smi.txt
s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 90 ./dist/attention_test > $OUT/logs/attention_test.txt 2>&1; echo "attention_test rc=$? $(( $(date +%s) - s )) s"
grep -E "FAILED|^\[  PASSED" $OUT/logs/attention_test.txt | head -5; save
for tool in memcheck racecheck synccheck; do
  s=$(date +%s)
  TESSEL_CACHE_DIR=/tmp/tc timeout 90 compute-sanitizer --tool $tool ./dist/attention_test --gtest_filter='*FewHeadsSplitTheKeys*:*ReplayedLaunchesStartAgain*:*SplitMergedEitherWay*' > $OUT/logs/san_$tool.txt 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s )) s: $(tail -1 $OUT/logs/san_$tool.txt)"; grep -E "^\[  PASSED|FAILED" $OUT/logs/san_$tool.txt | head -3
  save
done
F='BM_Attention/(1/32/8/1/16384|1/32/8/1/65536|4/32/8/1/16384|16/32/8/1/8192|1/1/1/1/65536)/'
for r in 1 2; do for v in O A; do
  bin=./dist; [ $v == O ] && bin=./dist/ab/O
  TESSEL_CACHE_DIR=/tmp/tc timeout 40 $bin/attention_bench --benchmark_filter="$F" > $OUT/logs/attn_${v}$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/attn_${v}$r.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,3,7,8
  save
done; done
for t in gpu_test gemm_test fuzz_regression_test loop_test; do
  s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 80 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s"
  grep -E "FAILED|^\[  PASSED" $OUT/logs/$t.txt | head -5; save
done
(TESSEL_CACHE_DIR=/tmp/tf timeout 75 ./dist/fuzz diff --first=78400000 --count=60000 --jobs=16 --timeout=300 --time_limit=62 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
TESSEL_CACHE_DIR=/tmp/tc timeout 40 ./dist/gemm_group_bench --benchmark_filter='BM_Qkv/(1024|8192)/' > $OUT/logs/qkv.txt 2>&1
grep -E "^BM_" $OUT/logs/qkv.txt | sed "s/min_time:0.300\/manual_time//" | tr -s " "
save
