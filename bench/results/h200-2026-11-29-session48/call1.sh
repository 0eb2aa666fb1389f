#!/usr/bin/env bash
# Session 48 call 1: the GPU duty on 781625c (gemm_test with the moved K-slice test, gpu_test
# split in three files, attention_test, fuzz_regression_test, loop_test, fuzz diff), then the
# decode rows the in-kernel merge's gate sends to the combine launch (fold 8, multi-query),
# default against TESSEL_SPLIT_MERGE=last, two rounds alternating.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/logs/smi.txt
for t in gemm_test gpu_test attention_test fuzz_regression_test loop_test; do
  s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 90 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s"
  grep -E "FAILED|^\[  PASSED" $OUT/logs/$t.txt | head -5; save
done
(TESSEL_CACHE_DIR=/tmp/tf timeout 75 ./dist/fuzz diff --first=78600000 --count=60000 --jobs=16 --timeout=300 --time_limit=62 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
A2='BM_(CopyBandwidth|Attention/(1/32/8/1/16384|1/64/8/1/16384|1/32/1/1/16384|1/1/1/1/65536)/)'
for r in 1 2; do for v in D L; do
  e=""; [ $v == L ] && e="TESSEL_SPLIT_MERGE=last"
  env $e TESSEL_CACHE_DIR=/tmp/tc timeout 60 ./dist/attention_bench --benchmark_filter="$A2" > $OUT/logs/attn_${v}$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/attn_${v}$r.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,3,7,8
  save
done; done
