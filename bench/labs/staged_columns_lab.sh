#!/usr/bin/env bash
# Builds the staged-columns lab (bench/labs/staged_columns_lab.cu) into dist/lab/ around the
# kernels tessel generates today for the bf16 softmax over the leading and the middle axis of
# [256, 512, 512] (gpu_bench's BM_SoftmaxAxis/5 and /6, dumped through the driver that runs
# no kernels). Then, on the GPU machine: dist/lab/staged_columns_lab. Run it after
# tools/gpu_bundle.sh, which empties dist/.
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build -c opt //bench:gpu_bench //tools/fake_cuda:libcuda.so.1
dump=$(mktemp -d)
for which in 5 6; do
  env LD_LIBRARY_PATH="$PWD/bazel-bin/tools/fake_cuda:/usr/local/cuda/lib64" \
    TESSEL_DUMP="$dump/$which" TESSEL_CACHE_DIR="$dump/cache" bazel-bin/bench/gpu_bench \
    --benchmark_filter="BM_SoftmaxAxis/$which/" --benchmark_min_time=0.001 >/dev/null 2>&1
done
lead=$(ls "$dump"/5/N_*.cu) mid=$(ls "$dump"/6/N_*.cu)
mkdir -p dist/lab
{
  sed -n '1,/^extern "C" __global__/p' "$lead" | sed '$d'
  sed -n '/^extern "C" __global__/,$p' "$lead"
  sed -n '/^extern "C" __global__/,$p' "$mid"
} > dist/lab/generated.cuh
# The generated launch from the kernel's own lines: columns a block, threads, and the shared
# tile's bytes (lanes a thread x threads x 2), 0 where it stages nothing.
launch() {
  local width threads staged
  width=$(grep -o 'columns of [0-9]*: [0-9]* a block' "$2" | grep -o '[0-9]* a block' | grep -o '[0-9]*')
  threads=$(grep -o '__launch_bounds__([0-9]*' "$2" | grep -o '[0-9]*$')
  staged=$(grep -o 'of [0-9]* in a shared tile' "$2" | grep -o '[0-9]*' || true)
  echo "-DGEN_$1_WIDTH=$width -DGEN_$1_BLOCK=$threads -DGEN_$1_SHARED=$(( ${staged:-0} * threads * 2 ))"
}
# shellcheck disable=SC2046
/usr/local/cuda/bin/nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Xptxas -v \
  -Idist/lab -Ibench/labs -DGENERATED_LEAD="$(basename "$lead" .cu)" \
  -DGENERATED_MID="$(basename "$mid" .cu)" $(launch LEAD "$lead") $(launch MID "$mid") \
  bench/labs/staged_columns_lab.cu \
  -o dist/lab/staged_columns_lab 2>&1 | grep -E "registers|spill|error" | grep -v "0 bytes spill" || true
rm -rf "$dump"
