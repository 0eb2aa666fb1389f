#!/usr/bin/env bash
# Session 45 call 4: attention_test at B (the trigger only where there are more work tiles than
# blocks); SwiGLU at 64 and 16 rows and q/k/v at 16 rows, A against B; fuzz diff at B.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
TESSEL_CACHE_DIR=/tmp/ta timeout 90 ./dist/attention_test > $OUT/logs/attention_test.txt 2>&1; echo attn rc=$?; grep -E "FAILED|^\[  PASSED" $OUT/logs/attention_test.txt | head
save
G='BM_(CopyBandwidth|Qkv/16/|SwiGlu/(64|16)/)'
for v in B A; do
  bin=./dist; [ $v = A ] && bin=./dist/ab/A
  TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/g$v timeout 45 $bin/gemm_group_bench --benchmark_filter="$G" > $OUT/logs/group_$v.txt 2>&1
  grep -E "^BM_(Qkv/16/2|SwiGlu)" $OUT/logs/group_$v.txt | sed "s/min_time:0.300\/manual_time//;s/^/$v /" | tr -s " " | cut -c1-170
  save
done
(TESSEL_CACHE_DIR=/tmp/tf timeout 55 ./dist/fuzz diff --first=78000000 --count=60000 --jobs=16 --timeout=300 --time_limit=44 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
