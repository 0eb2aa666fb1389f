#!/usr/bin/env bash
# Session 52 call 3: ea2a2f9 on a GPU (f64 to f16/bf16 rounds once in kernels: gpu_test's
# WideDTypes; the prelude changed, so every kernel compiles anew): the GPU tests, fuzz diff
# 79500000..; then SwiGLU at 1024 / 8192, landed keep_a (policies made once per producer,
# dist/) against v1 (made at every load, as session 51's h1), alternating, two rounds.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
for t in gpu_test gemm_test fuzz_regression_test loop_test attention_test stream_test scan_sort_test interop_test; do
  s=$(date +%s); timeout 100 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/$t.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED" $OUT/logs/$t.txt | head -5; save
done
TESSEL_CACHE_DIR=/tmp/tf timeout 85 ./dist/fuzz diff --first=79500000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt
save
Q='BM_SwiGlu/(1024|8192)/1/'
for v in main1 v11 main2 v12; do
  d=./dist; [ ${v:0:2} = v1 ] && d=./dist/v1
  s=$(date +%s); TESSEL_DYNAMIC=0 timeout 90 $d/gemm_group_bench --benchmark_filter="$Q" > $OUT/logs/group_$v.txt 2>&1
  echo "== $v ($(( $(date +%s) - s )) s)"; grep -hE "^BM_" $OUT/logs/group_$v.txt | tr -s " " | cut -d" " -f1,2,6-8 | sed 's/min_time:0.300\/manual_time//' | cut -c1-120
  save
done
# v2: SwiGLU's dual GEMM at M = 64 on 86 tiles of 64 x 128 (one round on 86 SMs, 4 stages)
# instead of 172 of 64 x 64 (1.3 rounds), against main, alternating, two rounds.
Q='BM_(CopyBandwidth|SwiGlu/64/[01]/)'
for v in main1 v21 main2 v22; do
  d=./dist; [ ${v:0:2} = v2 ] && d=./dist/v2
  s=$(date +%s); TESSEL_DYNAMIC=0 timeout 60 $d/gemm_group_bench --benchmark_filter="$Q" > $OUT/logs/m64_$v.txt 2>&1
  echo "== m64 $v ($(( $(date +%s) - s )) s)"; grep -hE "^BM_" $OUT/logs/m64_$v.txt | tr -s " " | cut -d" " -f1,2,6-8 | sed 's/min_time:0.300\/manual_time//' | cut -c1-120
  save
done
