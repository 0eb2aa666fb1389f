#!/usr/bin/env bash
# Builds bench/labs/combine_check_lab.cu into dist/lab/combine/o against the committed
# codegen/device headers, and, given a patch of codegen/device/attention_split.cuh
# (`combine_check_lab.sh change.patch`), into dist/lab/combine/n against a copy with it
# applied: each checks and times the shapes of the lab's main. Then, on the GPU machine:
# dist/lab/combine/o (and n): each must print "all right". Run it after tools/gpu_bundle.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
versions=(o)
[ $# -gt 0 ] && versions+=(n)
for v in "${versions[@]}"; do
  mkdir -p "$work/$v/tessel"
  cp codegen/device/{attention_sm80,ptx,attention_split}.cuh "$work/$v/tessel/"
done
if [ $# -gt 0 ]; then
  sed -n '/^--- a\//,$p' "$1" | (cd "$work/n" && patch -s -p3 tessel/attention_split.cuh)
fi
mkdir -p dist/lab/combine
for v in "${versions[@]}"; do
  /usr/local/cuda/bin/nvcc -O3 --fmad=false -std=c++20 -gencode arch=compute_90a,code=sm_90a \
    -diag-suppress 177,550 -Ibench/labs -I"$work/$v" -DLAB_TAG="\"$v\"" \
    bench/labs/combine_check_lab.cu -o "dist/lab/combine/$v" &
done
wait
rm -rf "$work"
