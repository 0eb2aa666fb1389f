#!/usr/bin/env bash
# Session 47 call 4: the rows call 3's timeouts cut, O (f067f72) against C (bands of 16,
# whole waves for single GEMMs): gemm_bench 4096 x 14336, 1536 and 2560 x 4096 x 4096;
# SwiGLU at 1024 / 8192; then at C the GPU duty: gemm_test, gpu_test, fuzz_regression_test,
# loop_test, fuzz diff.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
G='BM_(Cublas|Tessel)/(4096/14336/4096|1536/4096/4096|2560/4096/4096)/0/'
Q='BM_(CopyBandwidth|SwiGlu/(1024|8192)/)'
for v in O C; do
  bin=./dist; [ $v != C ] && bin=./dist/ab/$v
  TESSEL_CACHE_DIR=/tmp/tc timeout 45 $bin/gemm_bench --benchmark_filter="$G" > $OUT/logs/gemm_$v.txt 2>&1
  grep -E "^BM_" $OUT/logs/gemm_$v.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,7-8
  TESSEL_CACHE_DIR=/tmp/tc timeout 45 $bin/gemm_group_bench --benchmark_filter="$Q" > $OUT/logs/group_$v.txt 2>&1
  grep -E "^BM_" $OUT/logs/group_$v.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | grep -oE "^$v \S+|ms=[0-9.]+|x_baseline=[0-9.]+" | paste -sd" " | sed "s/ $v /\n$v /g"
  save
done
for t in gemm_test gpu_test fuzz_regression_test loop_test; do
  s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 70 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s"
  grep -E "FAILED|^\[  PASSED" $OUT/logs/$t.txt | head -5; save
done
(TESSEL_CACHE_DIR=/tmp/tf timeout 70 ./dist/fuzz diff --first=78500000 --count=60000 --jobs=16 --timeout=300 --time_limit=55 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
