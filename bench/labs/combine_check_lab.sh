#!/usr/bin/env bash
# Builds bench/labs/combine_check_lab.cu into dist/lab/combine/: `o` against the committed
# codegen/device headers, `n` with bench/labs/combine_online.patch applied to a copy of them,
# each checking and timing the shapes of the lab's main. Then, on the GPU machine:
# dist/lab/combine/o; dist/lab/combine/n. Run it after tools/gpu_bundle.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
for v in o n; do
  mkdir -p "$work/$v/tessel"
  cp codegen/device/{attention_sm80,ptx,attention_split}.cuh "$work/$v/tessel/"
done
sed -n '/^--- a\//,$p' bench/labs/combine_online.patch |
  (cd "$work/n" && patch -s -p3 tessel/attention_split.cuh)
mkdir -p dist/lab/combine
for v in o n; do
  /usr/local/cuda/bin/nvcc -O3 --fmad=false -std=c++20 -gencode arch=compute_90a,code=sm_90a \
    -diag-suppress 177,550 -Ibench/labs -I"$work/$v" -DLAB_TAG="\"$v\"" \
    bench/labs/combine_check_lab.cu -o "dist/lab/combine/$v" &
done
wait
rm -rf "$work"
