#!/usr/bin/env bash
# Session 49 call 4: the spread combine with each part's shares merged online in one round
# (bench/labs/combine_online.patch on a924526: N2 = dist/ab/N2) against a924526 (B = dist/):
# attention_test and the three sanitizers over the split tests (N2), attention_bench decode
# rows B/N2 alternating two rounds, Nsight Compute's per-kernel times (N2).
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 80 ./dist/ab/N2/attention_test > $OUT/logs/attention_test.txt 2>&1; echo "attention_test N2 rc=$? $(( $(date +%s) - s )) s"
grep -E "FAILED|^\[  PASSED|Failure" $OUT/logs/attention_test.txt | head -8; save
A='BM_Attention/(1/32/1/1/16384|1/32/1/1/131072|16/32/1/1/8192|1/1/1/1/65536|1/64/8/1/16384)/'
for r in 1 2; do for v in B N2; do
  bin=./dist; [ $v == N2 ] && bin=./dist/ab/N2
  TESSEL_CACHE_DIR=/tmp/tc timeout 50 $bin/attention_bench --benchmark_filter="$A" > $OUT/logs/attn_$v$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/attn_$v$r.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,3,7,8
  save
done; done
for row in 1/32/1/1/16384 1/32/1/1/131072 16/32/1/1/8192; do
  TESSEL_CACHE_DIR=/tmp/tc timeout 40 ncu --clock-control none --launch-skip 6 --launch-count 4 --metrics gpu__time_duration.sum ./dist/ab/N2/attention_bench --benchmark_filter="BM_Attention/$row/" --benchmark_min_time=0.01 > $OUT/logs/ncu_${row//\//_}.txt 2>&1
  echo "ncu N2 $row"; grep -E "^  [A-Za-z_].*\(|gpu__time_duration" $OUT/logs/ncu_${row//\//_}.txt | cut -c1-90 | tr -s " "
done
save
for tool in memcheck racecheck synccheck; do
  TESSEL_CACHE_DIR=/tmp/tc timeout 60 compute-sanitizer --tool $tool ./dist/ab/N2/attention_test --gtest_filter='*FewHeadsSplitTheKeys*:*SplitMergedEitherWay*' > $OUT/logs/san_$tool.txt 2>&1
  echo "$tool rc=$?: $(tail -1 $OUT/logs/san_$tool.txt)"; grep -E "^\[  PASSED|FAILED" $OUT/logs/san_$tool.txt | head -3
  save
done
