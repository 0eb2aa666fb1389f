#!/usr/bin/env bash
# Session 43 call 3: decode-shaped GEMMs over 65-128 rows (why M = 100 runs at 70% of cuBLASLt).
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
F='BM_ColdWeights/(64|65|80|96|100|112|120|127|128)/4096/4096/'
TESSEL_CACHE_DIR=/tmp/g1 timeout 150 ./dist/gemm_bench --benchmark_filter="$F" > $OUT/logs/dyn.txt 2>&1
grep -E "^BM_" $OUT/logs/dyn.txt | awk '{print $1, $2, $9, $10, $11}'
save
TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/g2 timeout 150 ./dist/gemm_bench --benchmark_filter="$F.*/1/" > $OUT/logs/static.txt 2>&1
grep -E "^BM_" $OUT/logs/static.txt | awk '{print "static", $1, $2, $9, $10, $11}'
save
# Nsight Compute: the dynamic kernels at 100 and 127 rows, the last launch of each benchmark.
for m in 100 127; do
  TESSEL_CACHE_DIR=/tmp/g3 timeout 100 ncu --clock-control none --kernel-name regex:'G_matmul_7f5dcd5e' --launch-skip 20 --launch-count 1 --section SpeedOfLight --section LaunchStats --section MemoryWorkloadAnalysis ./dist/gemm_bench --benchmark_filter="BM_ColdWeights/(64|$m)/4096/4096/1" --benchmark_min_time=0.01 > $OUT/logs/ncu_$m.txt 2>&1
  grep -E "G_|Duration|DRAM Through|Memory Through|Grid Size|Block Size|Registers Per|L2 Hit|Mem Busy|Max Bandwidth" $OUT/logs/ncu_$m.txt | head -20
  save
done
