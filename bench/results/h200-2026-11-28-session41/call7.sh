#!/usr/bin/env bash
# Session 41 call 7 (the commit: no L2 prefetch, at most 8 stages on 16-bit tiles of <= 64
# rows): gemm_test, fuzz diff, then gemm_bench and loop_bench against f45b916 (dist/ab/A).
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call7.tgz -C $OUT logs; }
TESSEL_CACHE_DIR=/tmp/t_gemm timeout 200 ./dist/gemm_test > $OUT/logs/gemm_test.txt 2>&1; tail -3 $OUT/logs/gemm_test.txt
save
(TESSEL_CACHE_DIR=/tmp/tc timeout 75 ./dist/fuzz diff --first=77100000 --count=60000 --jobs=16 --timeout=300 --time_limit=60 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
F='BM_(Cublas|Tessel)/(4096/4096/4096|16/4096/4096)/0/|BM_ColdWeights/64/4096/4096/'
for v in A C; do
  b=./dist; [ $v = A ] && b=./dist/ab/A
  TESSEL_CACHE_DIR=/tmp/g_$v timeout 120 $b/gemm_bench --benchmark_filter="$F" > $OUT/logs/gemm_$v.txt 2>&1
  echo "== gemm $v"; grep -E "^BM_" $OUT/logs/gemm_$v.txt | sed -E 's/ +/ /g' | cut -c1-160
  TESSEL_CACHE_DIR=/tmp/l_$v timeout 60 $b/loop_bench --benchmark_filter='BM_MlpBlockAtBatch/64/0' > $OUT/logs/loop_$v.txt 2>&1
  echo "== loop $v"; grep -E "^BM_" $OUT/logs/loop_$v.txt | sed -E 's/ +/ /g' | cut -c1-160
  save
done
