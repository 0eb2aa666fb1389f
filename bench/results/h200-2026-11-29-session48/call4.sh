#!/usr/bin/env bash
# Session 48 call 4: the combine launch's shares merged by a cluster's blocks, the in-kernel
# merge gate at rows x D <= 1024, the GEMM's early trigger within two rounds (N) against
# 781625c (B): attention_test, sanitizers over the split tests, attention_bench decode rows B/N
# two rounds alternating (and N's 8-head rows with the combine launch forced), Nsight Compute's
# per-kernel times of the multi-query decode, SwiGLU at 1024/8192 B/N, gemm_test, fuzz diff.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 60 ./dist/attention_test > $OUT/logs/attention_test.txt 2>&1; echo "attention_test rc=$? $(( $(date +%s) - s )) s"
grep -E "FAILED|^\[  PASSED|Failure" $OUT/logs/attention_test.txt | head -8; save
for tool in memcheck racecheck synccheck; do
  TESSEL_CACHE_DIR=/tmp/tc timeout 60 compute-sanitizer --tool $tool ./dist/attention_test --gtest_filter='*FewHeadsSplitTheKeys*:*SplitMergedEitherWay*' > $OUT/logs/san_$tool.txt 2>&1
  echo "$tool rc=$?: $(tail -1 $OUT/logs/san_$tool.txt)"; grep -E "^\[  PASSED|FAILED" $OUT/logs/san_$tool.txt | head -3
  save
done
A4='BM_Attention/(1/32/8/1/16384|1/64/8/1/16384|1/32/1/1/16384|1/1/1/1/65536)/'
for r in 1 2; do for v in B N; do
  bin=./dist; [ $v == B ] && bin=./dist/ab/B
  TESSEL_CACHE_DIR=/tmp/tc timeout 40 $bin/attention_bench --benchmark_filter="$A4" > $OUT/logs/attn_$v$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/attn_$v$r.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,3,7,8
  save
done; done
TESSEL_SPLIT_MERGE=launch TESSEL_CACHE_DIR=/tmp/tc timeout 40 ./dist/attention_bench --benchmark_filter='BM_Attention/(1/32/8/1/16384|1/64/8/1/16384)/' > $OUT/logs/attn_Nlaunch.txt 2>&1
grep -E "^BM_" $OUT/logs/attn_Nlaunch.txt | sed "s/^/Nlaunch /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,3,7,8
TESSEL_CACHE_DIR=/tmp/tc timeout 60 ncu --clock-control none --launch-skip 6 --launch-count 4 --metrics gpu__time_duration.sum ./dist/attention_bench --benchmark_filter='BM_Attention/1/32/1/1/16384/' --benchmark_min_time=0.01 > $OUT/logs/ncu.txt 2>&1
grep -E "^  [A-Za-z_].*\(|gpu__time_duration" $OUT/logs/ncu.txt | cut -c1-110
save
for r in 1 2; do for v in B N; do
  bin=./dist; [ $v == B ] && bin=./dist/ab/B
  TESSEL_CACHE_DIR=/tmp/tc timeout 50 $bin/gemm_group_bench --benchmark_filter='BM_SwiGlu/(1024|8192)/' > $OUT/logs/swiglu_$v$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/swiglu_$v$r.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,7-9
  save
done; done
s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 70 ./dist/gemm_test > $OUT/logs/gemm_test.txt 2>&1; echo "gemm_test rc=$? $(( $(date +%s) - s )) s"
grep -E "FAILED|^\[  PASSED" $OUT/logs/gemm_test.txt | head -5; save
(TESSEL_CACHE_DIR=/tmp/tf timeout 50 ./dist/fuzz diff --first=78700000 --count=60000 --jobs=16 --timeout=300 --time_limit=38 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
