#!/usr/bin/env bash
# Builds the column softmax lab (bench/labs/column_softmax_lab.cu) into dist/lab/ around the
# kernel tessel generates today for softmax(x, 0) of 16384 x 8192 f32 (`inspect
# column_softmax --repro`). Then, on the GPU machine: dist/lab/column_lab. Run it after
# tools/gpu_bundle.sh, which empties dist/.
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build -c opt //tools:inspect
repro=$(mktemp -d)
bazel-bin/tools/inspect column_softmax --repro="$repro" >/dev/null
mkdir -p dist/lab
gen=$(ls "$repro"/N_*.cu)
sed -n '1,/^extern "C" __global__/p' "$gen" | sed '$d' > dist/lab/column_base.cuh
sed -n '/^extern "C" __global__/,/^#include <algorithm>/p' "$gen" | sed '$d' > dist/lab/column_generated.cuh
sed -n '/^__global__ void repro_fill_f32/,/^}/p' "$gen" >> dist/lab/column_generated.cuh
cp bench/labs/column_softmax_lab.cu dist/lab/column_lab.cu
cp bench/labs/lab_timing.cuh dist/lab/
# The generated launch: grid, block and dynamic shared memory from the repro's own line.
launch=$(grep -o '<<<dim3([0-9]*, 1, 1), [0-9]*, [0-9]*>>>' "$gen" | head -1)
grid=$(echo "$launch" | sed 's/<<<dim3(\([0-9]*\),.*/\1/')
block=$(echo "$launch" | sed 's/.*), \([0-9]*\), [0-9]*>>>/\1/')
shared=$(echo "$launch" | sed 's/.*, \([0-9]*\)>>>/\1/')
/usr/local/cuda/bin/nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Xptxas -v \
  -DGENERATED=$(basename "$gen" .cu) -DGEN_GRID=$grid -DGEN_BLOCK=$block -DGEN_SHARED=$shared \
  dist/lab/column_lab.cu -o dist/lab/column_lab 2>&1 |
  grep -E "registers|spill|error" | grep -v "0 bytes spill" || true
rm -rf "$repro"
# The short-column lab: columns of 256, no generated kernel (its scheme by hand).
/usr/local/cuda/bin/nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -DLAB_SHORT \
  -DGENERATED=$(basename "$gen" .cu) -DGEN_GRID=1 -DGEN_BLOCK=1 -DGEN_SHARED=0 \
  dist/lab/column_lab.cu -o dist/lab/column_lab_short
