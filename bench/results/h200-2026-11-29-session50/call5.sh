#!/usr/bin/env bash
# Session 50 call 5: the large experts (8 GEMMs of 512..4096 rows x 2048 x 1408) on tiles of
# 128 x 128 (dist/ab with TESSEL_LAB_BN128: 1177 tiles, 8.9 waves, no columns wasted) against
# main's 128 x 256 (642 tiles, 4.9 waves, the last tile column half past N), alternating,
# three rounds; PyTorch's torch._grouped_mm in the same call; fuzz diff 79000000..
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
Q='BM_(CopyBandwidth|Experts/1/)'
for r in 1 2 3; do
  for v in main ab; do
    if [ $v = main ]; then b=./dist/gemm_group_bench; e=""; else b=./dist/ab/gemm_group_bench; e="TESSEL_LAB_BN128=1"; fi
    env $e TESSEL_CACHE_DIR=/tmp/tc timeout 60 $b --benchmark_filter="$Q" > $OUT/logs/experts_$v$r.txt 2>&1
    echo "== $v $r"; grep -E "^BM_" $OUT/logs/experts_$v$r.txt | tr -s " " | cut -d" " -f1,2,6-
  done
done; save
(cd dist && timeout 150 python3 gemm_group_baseline.py > $OUT/logs/torch.txt 2>&1); grep -i expert $OUT/logs/torch.txt; save
(TESSEL_CACHE_DIR=/tmp/tf timeout 85 ./dist/fuzz diff --first=79000000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
