#!/usr/bin/env bash
# Session 55 call 1: f62bfa6, c902e4a, 2491974 on a GPU for the first time (the K-as-rows
# GEMM's refusals, SlicesTheMostK, the fuzz generator's weight gradients): the GPU suites,
# fuzz diff 80500000..; the long-rows ring lab (persistent clusters streaming parts into a
# shared-memory ring) against the generated long-row softmax.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/logs/gpu.txt; cat $OUT/logs/gpu.txt
timeout 60 ./dist/lab/long_rows_ring_lab > $OUT/logs/ring1.txt 2>&1; echo "ring lab rc=$?"; cat $OUT/logs/ring1.txt; save
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
for t in loop_test gemm_test gpu_test fuzz_regression_test stream_test attention_test scan_sort_test; do
  s=$(date +%s); timeout 150 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/$t.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED" $OUT/logs/$t.txt | head -5; save
done
TESSEL_CACHE_DIR=/tmp/tf timeout 85 ./dist/fuzz diff --first=80500000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt
save
timeout 30 ./dist/lab/long_rows_ring_lab > $OUT/logs/ring2.txt 2>&1; echo "ring lab again rc=$?"; cat $OUT/logs/ring2.txt; save
