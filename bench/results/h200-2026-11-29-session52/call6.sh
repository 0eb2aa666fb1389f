#!/usr/bin/env bash
# Session 52 call 6: the experts of 1..16 rows alone (their kernel the same in both
# binaries), then after the experts of 1..50, new (dist/) / ea2a2f9 (dist/old/) alternating.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
for f in 'BM_Experts/2/1/' 'BM_Experts/[02]/1/'; do
  for v in new1 old1 new2 old2; do
    d=./dist; [ ${v:0:3} = old ] && d=./dist/old
    TESSEL_DYNAMIC=0 timeout 25 $d/gemm_group_bench --benchmark_filter="$f" > $OUT/logs/e_$v.txt 2>&1
    echo "$f $v: $(grep -hE '^BM_' $OUT/logs/e_$v.txt | grep -oE '^BM_Experts/[0-9]|ms=[0-9.]+' | tr '\n' ' ')"
  done
  save
done
