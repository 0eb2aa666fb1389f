#!/usr/bin/env bash
# Builds the bf16 permute lab (bench/labs/permute_order_lab.cu) into dist/lab/. Then, on the
# GPU machine: dist/lab/permute_order_lab. Run it after tools/gpu_bundle.sh, which empties
# dist/.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p dist/lab
/usr/local/cuda/bin/nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Xptxas -v \
  -Ibench/labs bench/labs/permute_order_lab.cu -o dist/lab/permute_order_lab 2>&1 |
  grep -E "registers|spill|error" | grep -v "0 bytes spill" || true
