#!/usr/bin/env bash
# Session 37 call 6: f32 long columns with fewer lanes in registers and more staged by the
# block's runs (TESSEL_REG_LANES, a lab switch: 32 as committed, 16, 8), one binary,
# alternating (two rounds).
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
F='BM_Copy|BM_SoftmaxAxis/4/'
for r in 1 2; do
  timeout 50 ./dist/gpu_bench --benchmark_filter="$F" > $L/lanes32_$r.log 2>&1; save
  for n in 16 8; do
    TESSEL_REG_LANES=$n timeout 50 ./dist/gpu_bench --benchmark_filter="$F" > $L/lanes${n}_$r.log 2>&1; save
  done
done
for f in lanes32_1 lanes16_1 lanes8_1 lanes32_2 lanes16_2 lanes8_2; do echo "== $f"; grep -E "SoftmaxAxis" $L/$f.log | awk '{print $1, $(NF-4), $(NF-3)}'; done
