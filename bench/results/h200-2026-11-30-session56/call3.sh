#!/usr/bin/env bash
# Session 56 call 3: fuzz seed 80945064 (a column normalization of bool-made values) and its
# minimized program on CPU and CUDA, printing the differing columns with their inputs
# (scratch binary dbg); gpu_test's HeldRows with rows held up to 200 KB (new); gpu_bench's
# row lengths, bf16 and f32, new (held sweeps in whole steps + 200 KB rows) against old
# (2f78a01, the benchmark's dtype argument only).
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
TESSEL_CACHE_DIR=/tmp/d1 timeout 60 ./dist/dbg dist/min.txt > $OUT/logs/dbg_min.txt 2>&1; echo "dbg min rc=$?"; head -60 $OUT/logs/dbg_min.txt
TESSEL_CACHE_DIR=/tmp/d2 timeout 60 ./dist/dbg dist/orig.txt > $OUT/logs/dbg_orig.txt 2>&1; echo "dbg orig rc=$?"; grep -v "^  \[" $OUT/logs/dbg_orig.txt | tail -5
save
s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 120 ./dist/gpu_test --gtest_filter='*HeldRows*' > $OUT/logs/held.txt 2>&1; echo "held rc=$? $(( $(date +%s) - s )) s"; grep -E "^\[  PASSED|^\[  FAILED|Failure" -A5 $OUT/logs/held.txt | head -20; save
b() {  # name timeout filter binary
  env TESSEL_CACHE_DIR=/tmp/tb_$1 timeout $2 $4 --benchmark_min_time=0.3 --benchmark_filter="$3" > $OUT/logs/bench_$1.txt 2>&1
  echo "== $1"; grep -E "^BM_" $OUT/logs/bench_$1.txt | tr -s " " | cut -d" " -f1,2,6- | sed 's/manual_time //'; save
}
b new 240 'BM_Copy|BM_SoftmaxRowLength' ./dist/gpu_bench
b old 150 'BM_Copy|BM_SoftmaxRowLength/1/.*/32|BM_SoftmaxRowLength/1/(32000|65536)/16' ./dist/old/gpu_bench
