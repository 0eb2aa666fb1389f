#!/usr/bin/env bash
# Session 56 call 2: call 1's plain fuzz diff failure (seed 80945064, a column log_softmax of
# bool-made values) run again, under compute-sanitizer, minimized; gpu_bench's row lengths
# (bf16 then f32) on main against dist/lab2 (bench/labs/held_tail.patch) alternating, and
# dist/lab2 holding rows of up to 200 KB (TESSEL_HELD_ROW_BYTES) at 256 and 512 threads.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
S=80945064
for i in 1 2; do
  TESSEL_CACHE_DIR=/tmp/fr timeout 60 ./dist/fuzz run --mode=diff --seed=$S > $OUT/logs/run$i.txt 2>&1; echo "run $i rc=$?"; tail -4 $OUT/logs/run$i.txt
done
TESSEL_CACHE_DIR=/tmp/fr TESSEL_FUSION=0 timeout 60 ./dist/fuzz run --mode=diff --seed=$S > $OUT/logs/run_unfused.txt 2>&1; echo "unfused rc=$?"; tail -3 $OUT/logs/run_unfused.txt
save
b() {  # name timeout filter binary [env...]
  local n=$1 to=$2 f=$3 bin=$4; shift 4
  env "$@" TESSEL_CACHE_DIR=/tmp/tb_$n timeout $to $bin --benchmark_min_time=0.3 --benchmark_filter="$f" > $OUT/logs/bench_$n.txt 2>&1
  echo "== $n"; grep -E "^BM_" $OUT/logs/bench_$n.txt | tr -s " " | cut -d" " -f1,2,6- | sed 's/manual_time //'; save
}
b main1 200 'BM_Copy|BM_SoftmaxRowLength' ./dist/gpu_bench
b tail1 200 'BM_Copy|BM_SoftmaxRowLength' ./dist/lab2/gpu_bench
b big256 150 'BM_Copy|BM_SoftmaxRowLength/./(24576|32000|32768|65536)' ./dist/lab2/gpu_bench TESSEL_HELD_ROW_BYTES=204800
b big512 150 'BM_Copy|BM_SoftmaxRowLength/./(24576|32000|32768|65536)' ./dist/lab2/gpu_bench TESSEL_HELD_ROW_BYTES=204800 TESSEL_HELD_THREADS=512
b main2 100 'BM_Copy|BM_SoftmaxRowLength/1/(4096|16384|24576|32000|32768)' ./dist/gpu_bench
b tail2 100 'BM_Copy|BM_SoftmaxRowLength/1/(4096|16384|24576|32000|32768)' ./dist/lab2/gpu_bench
for tool in racecheck memcheck; do
  TESSEL_CACHE_DIR=/tmp/fs_$tool timeout 80 compute-sanitizer --tool $tool ./dist/fuzz run --mode=diff --seed=$S > $OUT/logs/san_$tool.txt 2>&1; echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error|Hazard" $OUT/logs/san_$tool.txt | head -5; save
done
TESSEL_CACHE_DIR=/tmp/fm timeout 120 ./dist/fuzz minimize --mode=diff --seed=$S --out=$OUT/logs/min.txt > $OUT/logs/minimize.txt 2>&1; echo "minimize rc=$?"; tail -30 $OUT/logs/minimize.txt
save
