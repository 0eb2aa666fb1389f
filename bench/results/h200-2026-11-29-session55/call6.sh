#!/usr/bin/env bash
# Session 55 call 6: bf16 softmax over rows of each length (gpu_bench BM_SoftmaxRowLength, new,
# with the copy), and the long-rows lab's rows held in shared memory at the same lengths.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_CACHE_DIR=/tmp/tc
mkdir -p $OUT/logs
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
timeout 120 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_SoftmaxRowLength|BM_LongSoftmax/1' > $OUT/logs/rowlen.txt 2>&1
grep -E "^BM_" $OUT/logs/rowlen.txt | tr -s " " | cut -d" " -f1,2,6-; save
timeout 60 ./dist/lab/long_rows_ring_lab > $OUT/logs/held.txt 2>&1; echo "lab rc=$?"; cat $OUT/logs/held.txt; save
