#!/usr/bin/env bash
# Session 49 call 5: the combine as committed (one pass of at most 16 rows a block, merged
# online): the combine lab, attention_test, the three sanitizers over the split tests,
# attention_bench decode rows once.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
timeout 60 ./dist/lab/combine/o > $OUT/logs/combine_o.txt 2>&1; echo "combine lab rc=$?"; tail -2 $OUT/logs/combine_o.txt; save
s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 60 ./dist/attention_test > $OUT/logs/attention_test.txt 2>&1; echo "attention_test rc=$? $(( $(date +%s) - s )) s"
grep -E "FAILED|^\[  PASSED|Failure" $OUT/logs/attention_test.txt | head -8; save
A='BM_Attention/(1/32/1/1/16384|1/32/1/1/131072|16/32/1/1/8192|1/1/1/1/65536|16/32/8/1/8192)/'
TESSEL_CACHE_DIR=/tmp/tc timeout 40 ./dist/attention_bench --benchmark_filter="$A" > $OUT/logs/attn.txt 2>&1
grep -E "^BM_" $OUT/logs/attn.txt | sed "s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,6,7; save
for tool in memcheck racecheck synccheck; do
  TESSEL_CACHE_DIR=/tmp/tc timeout 50 compute-sanitizer --tool $tool ./dist/attention_test --gtest_filter='*FewHeadsSplitTheKeys*:*SplitMergedEitherWay*' > $OUT/logs/san_$tool.txt 2>&1
  echo "$tool rc=$?: $(tail -1 $OUT/logs/san_$tool.txt)"; grep -E "^\[  PASSED|FAILED" $OUT/logs/san_$tool.txt | head -3
  save
done
