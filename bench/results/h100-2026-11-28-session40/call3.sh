#!/usr/bin/env bash
# Session 40 call 3 (3442dda): fuzz diff --small_tiles, gpu_test, gpu_bench softmax over axes,
# main (608d0fd, dist/main) and 3442dda alternating.
cd "$(dirname "$0")/.."
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
(timeout 100 ./dist/fuzz diff --small_tiles --first=76700000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $OUT/logs/fuzz_small_tiles.txt 2>&1; tail -2 $OUT/logs/fuzz_small_tiles.txt)
save
TESSEL_CACHE_DIR=/tmp/tc2 timeout 200 ./dist/gpu_test > $OUT/logs/gpu_test.txt 2>&1; tail -2 $OUT/logs/gpu_test.txt
save
f='BM_Copy|BM_SoftmaxAxis/[1-7]'
for r in 1 2; do
  for b in main new; do
    bin=./dist/gpu_bench; [ $b = main ] && bin=./dist/main/gpu_bench
    TESSEL_CACHE_DIR=/tmp/tb_$b timeout 150 $bin --benchmark_filter="$f" --benchmark_min_time=0.3 > $OUT/logs/bench_${b}_$r.txt 2>&1
    echo "== $b round $r"; grep -E '^BM_' $OUT/logs/bench_${b}_$r.txt | awk '{print $1, $2, $7, $8}'
    save
  done
done
