#!/usr/bin/env bash
# Session 42 call 1 (8c990fa): GPU duty after the concat change; cold decode GEMM K-slice lab.
cd "$(dirname "$0")/.."
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/logs/gpu.txt
TESSEL_CACHE_DIR=/tmp/tr timeout 90 ./dist/fuzz_regression_test > $OUT/logs/fuzz_regression_test.txt 2>&1; tail -1 $OUT/logs/fuzz_regression_test.txt
for r in 1 2; do for v in base bn128_k4 bn256_k8; do for d in pdv pdw; do echo "$r $d $v: $(timeout 20 ./dist/lab/${d}_$v 2>&1 | tail -2 | tr '\n' ' ')"; done; done; done > $OUT/logs/lab.txt 2>&1; cat $OUT/logs/lab.txt
save
TESSEL_CACHE_DIR=/tmp/tg timeout 120 ./dist/gemm_bench --benchmark_filter='ColdWeights' > $OUT/logs/cold_bench.txt 2>&1; grep -E "Cold" $OUT/logs/cold_bench.txt | head
save
TESSEL_CACHE_DIR=/tmp/tc2 timeout 110 ./dist/gpu_test > $OUT/logs/gpu_test.txt 2>&1; tail -1 $OUT/logs/gpu_test.txt
save
TESSEL_CACHE_DIR=/tmp/tl timeout 60 ./dist/loop_test > $OUT/logs/loop_test.txt 2>&1; tail -1 $OUT/logs/loop_test.txt
save
(timeout 100 ./dist/fuzz diff --first=77400000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
