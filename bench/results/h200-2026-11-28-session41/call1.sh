#!/usr/bin/env bash
# Session 41 call 1 (f45b916 + a lab benchmark): fuzz diff, gpu_test, skinny GEMMs by tile count.
cd "$(dirname "$0")/.."
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/logs/device.txt
(timeout 100 ./dist/fuzz diff --first=77000000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
TESSEL_CACHE_DIR=/tmp/tc2 timeout 150 ./dist/gpu_test > $OUT/logs/gpu_test.txt 2>&1; tail -1 $OUT/logs/gpu_test.txt
save
TESSEL_CACHE_DIR=/tmp/tc3 timeout 300 ./dist/gemm_group_bench --benchmark_filter='BM_CopyBandwidth|BM_WeightStream/64/' > $OUT/logs/ws64.txt 2>&1; grep -E "WeightStream|Copy" $OUT/logs/ws64.txt
save
