#!/usr/bin/env bash
# Session 55 call 8: call 7's benchmarks were cut by their timeouts before the row lengths
# past 4096: gpu_bench's BM_SoftmaxRowLength, new (rows held in shared memory) then old
# (9a6a132's planner), once each; fuzz diff 80700000.. for 50 s.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call8.tgz -C $OUT logs; }
for v in new old; do
  d=./dist; [ $v = old ] && d=./dist/old
  TESSEL_CACHE_DIR=/tmp/tb_$v timeout 95 $d/gpu_bench --benchmark_filter='BM_Copy|BM_SoftmaxRowLength' > $OUT/logs/rows_$v.txt 2>&1
  echo "== $v"; grep -E "^BM_" $OUT/logs/rows_$v.txt | tr -s " " | cut -d" " -f1,2,6- | sed 's/manual_time //'; save
done
TESSEL_CACHE_DIR=/tmp/tf timeout 62 ./dist/fuzz diff --first=80700000 --count=60000 --jobs=16 --timeout=300 --time_limit=50 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt
save
