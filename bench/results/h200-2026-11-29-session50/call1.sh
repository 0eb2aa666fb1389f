#!/usr/bin/env bash
# Session 50 call 1: 3e16827 / ca699c2 on a GPU for the first time (the combine's rows a block
# rounded down, NaN shares kept, one share-weight helper): the combine lab, attention_test,
# the three sanitizers over the split tests, attention_bench decode rows; the long-rows lab's
# five variants twice and gpu_bench's copy and long rows; gemm/gpu/loop/fuzz_regression tests.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
timeout 60 ./dist/lab/combine/o > $OUT/logs/combine_o.txt 2>&1; echo "combine lab rc=$?"; tail -2 $OUT/logs/combine_o.txt; save
s=$(date +%s); timeout 80 ./dist/attention_test > $OUT/logs/attention_test.txt 2>&1; echo "attention_test rc=$? $(( $(date +%s) - s )) s"
grep -E "FAILED|^\[  PASSED|Failure" $OUT/logs/attention_test.txt | head -8; save
for tool in memcheck racecheck synccheck; do
  s=$(date +%s); timeout 60 compute-sanitizer --tool $tool ./dist/attention_test --gtest_filter='*FewHeadsSplitTheKeys*:*SplitMergedEitherWay*:*NanShare*' > $OUT/logs/san_$tool.txt 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s )) s: $(tail -1 $OUT/logs/san_$tool.txt)"; grep -E "^\[  PASSED|FAILED" $OUT/logs/san_$tool.txt | head -3
  save
done
A='BM_Attention/(1/32/1/1/16384|1/32/1/1/131072|16/32/1/1/8192|1/1/1/1/65536|1/32/8/1/16384|1/64/8/1/16384|16/32/8/1/8192)/'
timeout 50 ./dist/attention_bench --benchmark_filter="$A" > $OUT/logs/attn.txt 2>&1
grep -E "^BM_" $OUT/logs/attn.txt | sed "s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,6,7; save
for v in base packed w512 local stream base packed w512 local stream; do echo "long_rows $v $(timeout 20 ./dist/lab/lr/$v 2>&1 | head -2 | tr '\n' ' ')"; done | tee $OUT/logs/long_rows.txt; save
timeout 60 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_Long' > $OUT/logs/gpu_bench.txt 2>&1
grep -E "^BM_" $OUT/logs/gpu_bench.txt | tr -s " " | cut -d" " -f1,2,6-; save
for t in gemm_test gpu_test fuzz_regression_test loop_test; do
  s=$(date +%s); timeout 90 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/$t.txt | head -3 | tr '\n' ' ')"; save
done
