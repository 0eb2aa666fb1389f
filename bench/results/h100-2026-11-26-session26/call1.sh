#!/usr/bin/env bash
# Session 26 call 1: stream-K for few-tile GEMMs: tests, then new vs previous binary on the
# decode-batch rows, and a fuzz run.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
timeout 150 ./dist/gemm_test --gtest_filter='*StreamK*:*FewRows*:*Sibling*:*Dual*:*Grouped*:*Repeated*' > $L/gemm_test.log 2>&1; tail -5 $L/gemm_test.log; save
timeout 60 ./dist/loop_test --gtest_filter='*StreamK*:*Sibling*:*BatchSizes*' > $L/loop_test.log 2>&1; tail -3 $L/loop_test.log; save
for b in prev_gemm_group_bench gemm_group_bench prev_gemm_group_bench gemm_group_bench; do
  for m in 64 16; do
    timeout 40 ./dist/$b --benchmark_filter="BM_CopyBandwidth|BM_Qkv/$m/|BM_SwiGlu/$m/" --benchmark_min_time=0.3 2>&1 | grep -E "^BM_(Q|S)" | sed "s/^/$b /" >> $L/groups.log
  done
done; save
for b in prev_gemm_bench gemm_bench; do
  timeout 60 ./dist/$b --benchmark_filter='BM_(Cublas|Tessel)/(16|1|32)/4096/4096/0|BM_(Cublas|Tessel)/16/8192/8192/0|BM_Tessel/4096/4096/4096/0' --benchmark_min_time=0.3 2>&1 | grep -E "^BM_" | sed "s/^/$b /" >> $L/gemm.log
done; save
timeout 100 ./dist/fuzz diff --first=61000000 --count=60000 --jobs=16 --timeout=300 --time_limit=80 > $L/fuzz.log 2>&1; tail -3 $L/fuzz.log; save
cat $L/groups.log $L/gemm.log | cut -c1-200
