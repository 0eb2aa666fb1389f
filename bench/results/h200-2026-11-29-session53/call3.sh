#!/usr/bin/env bash
# Session 53 call 3: 128-row tiles 256 wide where a round of them leaves at most 1/16 of the
# SMs idle (codegen/gemm_sm90_tiles.cc; dist/) against the same binaries without (dist/old/),
# alternating: BM_MlpBlockAtBatch/4096 (its second GEMM 4096 x 1024: 128 tiles), SwiGLU MLP at
# 1024, gemm_bench's 1024 x 4096 x 11008; gemm_test, gpu_test; fuzz diff 79800000..
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
for t in gemm_test gpu_test; do
  s=$(date +%s); timeout 100 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/$t.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED" $OUT/logs/$t.txt | head -5; save
done
TESSEL_CACHE_DIR=/tmp/tf timeout 85 ./dist/fuzz diff --first=79800000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt
save
for r in 1 2; do
  for v in new old; do
    d=./dist; [ $v = old ] && d=./dist/old
    timeout 40 $d/loop_bench --benchmark_filter='BM_MlpBlockAtBatch/4096/' > $OUT/logs/loop_$v$r.txt 2>&1
    echo "loop $v$r: $(grep -hE '^BM_' $OUT/logs/loop_$v$r.txt | grep -oE '^BM_[A-Za-z/0-9]+|TFLOP/s=[0-9.]+' | tr '\n' ' ')"
    timeout 40 $d/gemm_bench --benchmark_filter='BM_(Cublas|Tessel)/1024/4096/11008/0' > $OUT/logs/g_$v$r.txt 2>&1
    echo "gemm $v$r: $(grep -hE '^BM_' $OUT/logs/g_$v$r.txt | grep -oE '^BM_[A-Za-z]+|TFLOP/s=[0-9.]+|%cublas=[0-9.]+' | tr '\n' ' ')"
    TESSEL_DYNAMIC=0 timeout 40 $d/gemm_group_bench --benchmark_filter="BM_SwiGluMlp/1024/" > $OUT/logs/mlp_$v$r.txt 2>&1
    echo "mlp1024 $v$r: $(grep -hE '^BM_' $OUT/logs/mlp_$v$r.txt | grep -oE 'ms=[0-9.]+|x_baseline=[0-9.]+' | tr '\n' ' ')"
    save
  done
done
TESSEL_DYNAMIC=0 timeout 60 ./dist/gemm_group_bench --benchmark_filter="BM_SwiGluMlp/(64|8192)/" > $OUT/logs/mlp_rest.txt 2>&1
grep -hE '^BM_' $OUT/logs/mlp_rest.txt | grep -oE '^BM_[A-Za-z/0-9]+|ms=[0-9.]+|x_baseline=[0-9.]+|TFLOP/s=[0-9.]+' | tr '\n' ' '; echo
save
