#!/usr/bin/env bash
# Session 53 call 4: 655f187 (settings parsed one way, read before a plan runs; the disk
# cache's temporaries and shared limit) and bb15c7e on a GPU: the GPU suites, fuzz diff
# 79900000..; loop_bench's training loop new (dist/) against 61bdacf + 768f40b (dist/old/),
# alternating: the settings read at every realize cost no host time.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
for t in gpu_test loop_test stream_test fuzz_regression_test interop_test scan_sort_test gemm_test attention_test; do
  s=$(date +%s); timeout 100 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/$t.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED" $OUT/logs/$t.txt | head -5; save
done
TESSEL_CACHE_DIR=/tmp/tf timeout 85 ./dist/fuzz diff --first=79900000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt
save
for v in new1 old1 new2 old2; do
  d=./dist; [ ${v:0:3} = old ] && d=./dist/old
  timeout 40 $d/loop_bench --benchmark_filter='BM_TrainingLoop' > $OUT/logs/loop_$v.txt 2>&1
  echo "loop $v: $(grep -hE '^BM_' $OUT/logs/loop_$v.txt | grep -oE 'ms_per_step=[0-9.]+' | tr '\n' ' ')"
  save
done
