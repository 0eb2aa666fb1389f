#!/usr/bin/env bash
# Session 53 call 1: 768f40b (assigned values are outputs) and 99ef1fc (printing through slices)
# on a GPU: the GPU suites, fuzz diff 79700000..; loop_bench new (dist/) against 61bdacf's
# realize (dist/old/) alternating; BM_SwiGluMlp (the whole MLP) at 64 / 1024 / 8192 and
# torch.compile on the same.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for t in gpu_test loop_test stream_test fuzz_regression_test interop_test scan_sort_test gemm_test attention_test; do
  s=$(date +%s); timeout 100 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/$t.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED" $OUT/logs/$t.txt | head -5; save
done
TESSEL_CACHE_DIR=/tmp/tf timeout 85 ./dist/fuzz diff --first=79700000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt
save
for v in new1 old1 new2 old2; do
  d=./dist; [ ${v:0:3} = old ] && d=./dist/old
  timeout 60 $d/loop_bench --benchmark_filter='BM_MlpBlockAtBatch|BM_BatchSizes|BM_TrainingLoop' > $OUT/logs/loop_$v.txt 2>&1
  echo "loop $v:"; grep -E '^BM_' $OUT/logs/loop_$v.txt
  save
done
for m in 64 1024 8192; do
  TESSEL_DYNAMIC=0 timeout 40 ./dist/gemm_group_bench --benchmark_filter="BM_SwiGluMlp/$m/" > $OUT/logs/mlp_$m.txt 2>&1
  grep -E '^BM_' $OUT/logs/mlp_$m.txt; save
done
cd dist && timeout 120 python3 gemm_group_baseline.py swiglu_mlp swiglu > $OUT/logs/torch.txt 2>&1; cat $OUT/logs/torch.txt | tail -12
cd .. && save
