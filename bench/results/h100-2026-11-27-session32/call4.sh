#!/usr/bin/env bash
# Session 32 call 4: the change as it stands (tickets over the launch's tag, no zeroing launch;
# the combine merging a row's shares in parts) against main 0d8fa50, alternating: decode and
# causal rows; the attention and GEMM tests (K slices count over the same tag); fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
timeout 120 ./dist/attention_test > $L/attention_test.log 2>&1; save
F='BM_Attention/([0-9]+/32/8/1/|1/1/1/1/)'
for i in 1 2; do
  timeout 90 ./dist/main/attention_bench --benchmark_filter="$F" > $L/decode_main_$i.log 2>&1; save
  timeout 90 ./dist/attention_bench --benchmark_filter="$F" > $L/decode_new_$i.log 2>&1; save
done
timeout 150 ./dist/gemm_test > $L/gemm_test.log 2>&1; save
timeout 130 ./dist/fuzz diff --first=73500000 --count=60000 --jobs=16 --timeout=300 --time_limit=110 > $L/fuzz_diff.log 2>&1; save
