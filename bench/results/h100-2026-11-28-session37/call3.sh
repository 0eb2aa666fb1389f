#!/usr/bin/env bash
# Session 37 call 3: the tiled short columns (working tree on 94a9f8a) against main 94a9f8a:
# gpu_test's column normalizations, gpu_bench BM_SoftmaxAxis alternating main / change (two
# rounds), the tile's blocks an SM forced to 2 / 3; compute-sanitizer; fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.txt
timeout 150 ./dist/gpu_test --gtest_filter='*Column*' > $L/gpu_test_columns.log 2>&1; save
F='BM_CopyBandwidth|BM_SoftmaxAxis/'
for r in 1 2; do
  timeout 90 ./dist/main/gpu_bench --benchmark_filter="$F" > $L/main_$r.log 2>&1; save
  timeout 90 ./dist/gpu_bench --benchmark_filter="$F" > $L/change_$r.log 2>&1; save
done
for b in 2 3; do
  TESSEL_TILE_BLOCKS=$b timeout 60 ./dist/gpu_bench --benchmark_filter='BM_CopyBandwidth|BM_SoftmaxAxis/(5|6)/' > $L/blocks_$b.log 2>&1; save
done
for tool in memcheck racecheck; do
  timeout 80 compute-sanitizer --tool $tool ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/$tool.log 2>&1; save
done
grep -h "SoftmaxAxis\|CopyBand" $L/main_*.log $L/change_*.log $L/blocks_*.log | sed 's/ \+/ /g' | cut -c1-150
tail -3 $L/gpu_test_columns.log; grep -h "ERROR SUMMARY\|Race reported\|RACECHECK SUMMARY" $L/memcheck.log $L/racecheck.log
