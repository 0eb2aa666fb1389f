#!/usr/bin/env bash
# Session 28 call 5 (e75dbb2): sanitizers over the TF32 tests (B read into registers); loop and
# stream tests; the GEMM benchmarks (bf16 rows, TF32, kHigh, exact f32, batched); fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
for tool in racecheck memcheck synccheck; do
  timeout 50 compute-sanitizer --tool $tool ./dist/gemm_test --gtest_filter='*Tf32*' > $L/$tool.log 2>&1; save
done
timeout 60 ./dist/loop_test > $L/loop_test.log 2>&1; save
timeout 30 ./dist/stream_test > $L/stream_test.log 2>&1; save
timeout 170 ./dist/gemm_bench --benchmark_filter='BM_(Cublas|Tessel|F32|Batched)/' > $L/gemm_bench.log 2>&1; save
timeout 100 ./dist/fuzz diff --first=69000000 --count=60000 --jobs=16 --timeout=300 --time_limit=80 > $L/fuzz.log 2>&1; save
