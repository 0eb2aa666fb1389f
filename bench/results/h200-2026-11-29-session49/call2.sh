#!/usr/bin/env bash
# Session 49 call 2: the combine launch spread over blocks of COMBINE_ROWS rows (N = dist/,
# working tree) against main b1769c2 (B = dist/ab/B): attention_test, the three sanitizers over
# the split tests, attention_bench decode rows B/N alternating two rounds and N's 8-head rows
# with the combine launch forced, Nsight Compute's per-kernel times of multi-query decode;
# rank1_tma_lab with the unswizzled map first.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 80 ./dist/attention_test > $OUT/logs/attention_test.txt 2>&1; echo "attention_test rc=$? $(( $(date +%s) - s )) s"
grep -E "FAILED|^\[  PASSED|Failure" $OUT/logs/attention_test.txt | head -8; save
timeout 30 ./dist/lab/rank1_tma_lab > $OUT/logs/rank1.txt 2>&1; echo "rank1 rc=$?"; tail -20 $OUT/logs/rank1.txt; save
A='BM_Attention/(1/32/1/1/16384|1/32/1/1/131072|16/32/1/1/8192|1/1/1/1/65536|1/32/8/1/16384|1/64/8/1/16384)/'
for r in 1 2; do for v in B N; do
  bin=./dist; [ $v == B ] && bin=./dist/ab/B
  TESSEL_CACHE_DIR=/tmp/tc timeout 50 $bin/attention_bench --benchmark_filter="$A" > $OUT/logs/attn_$v$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/attn_$v$r.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,3,7,8
  save
done
TESSEL_SPLIT_MERGE=launch TESSEL_CACHE_DIR=/tmp/tc timeout 30 ./dist/attention_bench --benchmark_filter='BM_Attention/(1/64/8/1/16384|1/32/8/1/16384)/' > $OUT/logs/attnL_N$r.txt 2>&1
grep -E "^BM_" $OUT/logs/attnL_N$r.txt | sed "s/^/Nlaunch /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,3,7,8
done
for row in 1/32/1/1/16384 1/32/1/1/131072 16/32/1/1/8192; do
  TESSEL_CACHE_DIR=/tmp/tc timeout 40 ncu --clock-control none --launch-skip 6 --launch-count 4 --metrics gpu__time_duration.sum ./dist/attention_bench --benchmark_filter="BM_Attention/$row/" --benchmark_min_time=0.01 > $OUT/logs/ncu_${row//\//_}.txt 2>&1
  echo "ncu N $row"; grep -E "^  [A-Za-z_].*\(|gpu__time_duration" $OUT/logs/ncu_${row//\//_}.txt | cut -c1-90 | tr -s " "
done
save
for tool in memcheck racecheck synccheck; do
  TESSEL_CACHE_DIR=/tmp/tc timeout 60 compute-sanitizer --tool $tool ./dist/attention_test --gtest_filter='*FewHeadsSplitTheKeys*:*SplitMergedEitherWay*' > $OUT/logs/san_$tool.txt 2>&1
  echo "$tool rc=$?: $(tail -1 $OUT/logs/san_$tool.txt)"; grep -E "^\[  PASSED|FAILED" $OUT/logs/san_$tool.txt | head -3
  save
done
