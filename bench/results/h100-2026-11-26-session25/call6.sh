#!/usr/bin/env bash
# Session 25 call 6: inputs without __restrict__ (no non-coherent loads above the grid
# dependency wait): the failing seed, tests, a fuzz run, memory-bound and GEMM epilogue rows.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
for i in 1 2; do timeout 30 ./dist/fuzz diff --first=58018840 --count=1 --jobs=1 2>&1 | tail -2 >> $L/seed.log; done; save
timeout 60 ./dist/gpu_test 2>&1 | tail -3 > $L/gpu_test.log; save
timeout 85 ./dist/fuzz diff --first=59000000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $L/fuzz.log 2>&1; save
timeout 50 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_PointwiseChain/1|BM_Softmax/.*/1|BM_LayerNorm/1|BM_CrossEntropy/1|BM_LongSoftmax/1' --benchmark_min_time=0.2 2>&1 | grep -E "^BM_" > $L/gpu_bench.log; save
timeout 60 ./dist/gemm_bench --benchmark_filter='BM_Cublas/8192/8192/8192/0|BM_Tessel/8192/8192/8192/(0|1|2)|BM_Tessel/4096/14336/4096/2|BM_Cublas/4096/14336/4096/0' --benchmark_min_time=0.2 2>&1 | grep -E "^BM_" > $L/gemm.log; save
