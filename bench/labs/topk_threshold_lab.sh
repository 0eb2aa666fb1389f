#!/usr/bin/env bash
# Builds the top-k threshold lab (bench/labs/topk_threshold_lab.cu) into dist/lab/, next to
# the kernels tessel generates today for the same top-k (`inspect topk --repro`), which it
# times beside a sampled threshold, a streaming filter and a small selection. Then, on the
# GPU machine: dist/lab/topk_lab (prints times, fallback rows and mismatches). Run it after
# tools/gpu_bundle.sh, which empties dist/.
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build -c opt //tools:inspect
repro=$(mktemp -d)
bazel-bin/tools/inspect topk --repro="$repro" >/dev/null
mkdir -p dist/lab
sort=$(ls "$repro"/O_argsort_*.cu) gather=$(ls "$repro"/E_gather_*.cu)
sed -n '1,/^#include <algorithm>/p' "$sort" | sed '$d' > dist/lab/topk_base.cuh
sed -n '/^extern "C" __global__/,/^#include <algorithm>/p' "$gather" | sed '$d' > dist/lab/topk_gather.cuh
# The lab names the generated entry points by macros: point them at this build's names (the
# parts' kernel may follow threshold steps, which the lab leaves out: ws is zeroed, no line done).
part=$(grep -o 'O_argsort_[0-9a-f]*_[0-9]*part' "$sort" | head -1)
defs="-DTOPK_PART=$part -DTOPK_MERGE=$(basename "$sort" .cu) -DTOPK_GATHER=$(basename "$gather" .cu)"
cp bench/labs/topk_threshold_lab.cu dist/lab/topk_lab.cu
# The generated repro of the whole top-k times tessel's own kernel sequence.
cp "$sort" dist/lab/topk_repro.cu
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a \
  dist/lab/topk_repro.cu -o dist/lab/topk_repro
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a \
  $defs dist/lab/topk_lab.cu -o dist/lab/topk_lab
rm -rf "$repro"
