#!/usr/bin/env bash
# Session 36 call 1: the fast-math lab (exact / fma / fast of the slow axes' kernels), the
# bf16 {3,2,1,0} permute order lab, Nsight Compute source counters on long bf16 columns
# (BM_SoftmaxAxis/7), fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $L/smi.log 2>&1
timeout 200 bash dist/lab/fast_math/run.sh 2 > $L/fast_math.log 2>&1; save
timeout 60 ./dist/lab/permute_order_lab > $L/permute_order.log 2>&1; save
PROFILE_FILTER='BM_SoftmaxAxis/7/' PROFILE_KERNEL='^N_' PROFILE_SECTIONS="--section SourceCounters" PROFILE_TAIL=5 timeout 90 bash dist/run.sh profile-kernel > $L/ncu7.log 2>&1; cp $OUT/ncu_kernel.txt $L/ 2>/dev/null; save
timeout 120 ./dist/fuzz diff --first=75300000 --count=60000 --jobs=16 --timeout=300 --time_limit=100 > $L/fuzz_diff.log 2>&1; save
