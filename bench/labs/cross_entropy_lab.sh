#!/usr/bin/env bash
# Builds the cross-entropy lab (bench/labs/cross_entropy_lab.cu) into dist/lab/ around the
# streaming reduction tessel generates today for BM_CrossEntropy/1 (dumped with the driver
# that runs no kernels). Then, on the GPU machine: dist/lab/ce_lab. Run it after
# tools/gpu_bundle.sh, which empties dist/.
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build -c opt //bench:gpu_bench //tools/fake_cuda:libcuda.so.1
dump=$(mktemp -d)
# The dump is written as the kernels compile; the timing loop then never ends without a GPU.
timeout 60 env LD_LIBRARY_PATH=$PWD/bazel-bin/tools/fake_cuda:/usr/local/cuda/lib64 TESSEL_DUMP="$dump" \
  TESSEL_CACHE_DIR="$dump/cache" bazel-bin/bench/gpu_bench --benchmark_filter='BM_CrossEntropy/1/' \
  --benchmark_min_time=0.001 >/dev/null 2>&1 || true
mkdir -p dist/lab
gen=$(ls "$dump"/R_cast_*.cu)
sed -n '1,/^extern "C" __global__/p' "$gen" | sed '$d' > dist/lab/ce_base.cuh
sed -n '/^extern "C" __global__/,$p' "$gen" > dist/lab/ce_generated.cuh
entry=$(grep -o 'R_cast_[a-z_0-9]*_stage1' "$gen" | head -1)
cp bench/labs/cross_entropy_lab.cu dist/lab/ce_lab.cu
cp bench/labs/lab_timing.cuh dist/lab/
mkdir -p dist/lab/tessel && cp codegen/device/*.cuh dist/lab/tessel/
/usr/local/cuda/bin/nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a --fmad=false -Xptxas -v \
  -Idist/lab -DGENERATED="$entry" dist/lab/ce_lab.cu -o dist/lab/ce_lab 2>&1 |
  grep -E "registers|spill|error" | grep -v "0 bytes spill" || true
rm -rf "$dump"
