#!/usr/bin/env bash
# Session 46 call 1: the split decode's fixed time (bench/labs/decode_lab.py: the combine
# deleted, an L2 prefetch of the first K/V tile before the grid wait, three stages); the early
# trigger on memory-bound kernels (pdl_lab.py); issue 15's table with PyTorch; the GPU duty at
# 1aa721e (gpu_test, gemm_test, attention_test, fuzz_regression_test, loop_test, fuzz diff).
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs dist/lab && tar -xJf dist/lab.tar.xz -C dist/lab
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $OUT/logs/gpu.txt
for r in 1 2 3; do for v in base nocombine prefetch s3 s3_prefetch; do
  echo "== $v $(timeout 20 ./dist/lab/decode_$v | head -1)"; done; done > $OUT/logs/decode.txt 2>&1
timeout 20 ./dist/lab/decode_base_times > $OUT/logs/decode_times.txt 2>&1
cut -c1-90 $OUT/logs/decode.txt; cat $OUT/logs/decode_times.txt
for r in 1 2; do for k in long_rows_bf16_N_cast column_softmax_bf16_N_cast cross_entropy_eq_R_cast leading_softmax_bf16_N_cast; do
  for v in plain pdl pdl_late; do echo "== $k $v $(timeout 20 ./dist/lab/${k}_$v | head -1)"; done; done; done > $OUT/logs/pdl.txt 2>&1
cut -c1-120 $OUT/logs/pdl.txt
save
(TESSEL_CACHE_DIR=/tmp/tf timeout 75 ./dist/fuzz diff --first=78100000 --count=60000 --jobs=16 --timeout=300 --time_limit=62 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
for t in gemm_test gpu_test attention_test fuzz_regression_test loop_test; do
  s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 150 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s"
  grep -E "FAILED|^\[  PASSED" $OUT/logs/$t.txt | head -5; save
done
s=$(date +%s); TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/tc timeout 150 ./dist/gemm_group_bench > $OUT/logs/group.txt 2>&1; echo "group rc=$? $(( $(date +%s) - s )) s"
grep -E "^BM_" $OUT/logs/group.txt | sed "s/min_time:0.300\/manual_time//" | tr -s " " | cut -c1-200
save
(cd dist && timeout 120 python3 gemm_group_baseline.py > $OUT/logs/torch.txt 2>&1); cat $OUT/logs/torch.txt
save
