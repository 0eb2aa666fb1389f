#!/usr/bin/env bash
# Session 46 call 6: the first K/V tile's L2 prefetch before the grid wait. attention_bench's
# BM_Attention rows, O (1aa721e: the combine launch), A (the merge in the attention kernel,
# call 5's new2), B (A with the prefetch), two rounds; then at B attention_test, gemm_test,
# gpu_test, fuzz diff.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
for r in 1 2; do for v in O A B; do
  bin=./dist; [ $v != B ] && bin=./dist/ab/$v
  TESSEL_CACHE_DIR=/tmp/tc timeout 60 $bin/attention_bench --benchmark_filter=BM_Attention/ > $OUT/logs/attn_${v}$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/attn_${v}$r.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,3,7,8 
  save
done; done
for t in attention_test gemm_test gpu_test; do
  s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 100 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s"
  grep -E "FAILED|^\[  PASSED" $OUT/logs/$t.txt | head -5; save
done
(TESSEL_CACHE_DIR=/tmp/tf timeout 75 ./dist/fuzz diff --first=78300000 --count=60000 --jobs=16 --timeout=300 --time_limit=62 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
