#!/usr/bin/env bash
# Session 45 call 5 (run inline): SwiGLU at M = 64, B (dist) then A (dist/ab/A), each process
# with the kernel cache call 4 left on the machine.
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64; mkdir -p $OUT/logs; for v in B A; do bin=./dist; [ $v = A ] && bin=./dist/ab/A; TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/g$v timeout 30 $bin/gemm_group_bench --benchmark_filter='BM_(CopyBandwidth|SwiGlu/64/)' > $OUT/logs/sw_$v.txt 2>&1; grep -E "^BM_SwiGlu" $OUT/logs/sw_$v.txt | sed "s/min_time:0.300\/manual_time//;s/^/$v /" | tr -s " " | cut -c1-170; done
