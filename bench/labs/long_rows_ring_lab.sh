#!/usr/bin/env bash
# Builds the long-rows ring lab (bench/labs/long_rows_ring_lab.cu) into dist/lab/ around the
# kernel tessel generates today for a bf16 softmax over 64 rows of 131072 (`tools/inspect
# long_rows_bf16`, dumped through the driver that runs no kernels). Then, on the GPU machine:
# dist/lab/long_rows_ring_lab. Run it after tools/gpu_bundle.sh, which empties dist/.
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build -c opt //tools:inspect //tools/fake_cuda:libcuda.so.1
dump=$(mktemp -d)
env LD_LIBRARY_PATH="$PWD/bazel-bin/tools/fake_cuda:/usr/local/cuda/lib64" \
  TESSEL_CACHE_DIR="$dump/cache" bazel-bin/tools/inspect long_rows_bf16 --repro="$dump/repro" >/dev/null
repro=$(ls "$dump"/repro/N_*.cu)
mkdir -p dist/lab
# The prelude and the kernel: everything before the repro's host part.
sed '/^#include <algorithm>$/,$d' "$repro" > dist/lab/generated.cuh
/usr/local/cuda/bin/nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Xptxas -v \
  -Idist/lab -Ibench/labs -DGENERATED="$(basename "$repro" .cu)" -diag-suppress 177,550 \
  bench/labs/long_rows_ring_lab.cu \
  -o dist/lab/long_rows_ring_lab 2>&1 | grep -E "registers|spill|error" | grep -v "0 bytes spill" || true
rm -rf "$dump"
