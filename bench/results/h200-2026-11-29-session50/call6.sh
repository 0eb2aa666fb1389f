#!/usr/bin/env bash
# Session 50 call 6: 950887d (a tie of waves goes to 128-wide tiles) as committed: gemm_test;
# the large experts, main against 5d8be47's binary (dist/old), alternating, two rounds, with
# PyTorch's torch._grouped_mm in the same call; fuzz diff 79100000..
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
s=$(date +%s); timeout 90 ./dist/gemm_test > $OUT/logs/gemm_test.txt 2>&1; echo "gemm_test rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/gemm_test.txt | head -3 | tr '\n' ' ')"; save
Q='BM_(CopyBandwidth|Experts/1/)'
for r in 1 2; do
  for v in main old; do
    if [ $v = main ]; then b=./dist/gemm_group_bench; else b=./dist/old/gemm_group_bench; fi
    timeout 60 $b --benchmark_filter="$Q" > $OUT/logs/experts_$v$r.txt 2>&1
    echo "== $v $r"; grep -E "^BM_" $OUT/logs/experts_$v$r.txt | tr -s " " | cut -d" " -f1,2,6-
  done
done; save
(cd dist && timeout 150 python3 gemm_group_baseline.py > $OUT/logs/torch.txt 2>&1); grep -i expert $OUT/logs/torch.txt; save
(TESSEL_CACHE_DIR=/tmp/tf timeout 85 ./dist/fuzz diff --first=79100000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
