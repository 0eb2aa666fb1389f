#!/usr/bin/env bash
# Builds the rank-1 tensor map lab (bench/labs/rank1_tma_lab.cu) into dist/lab/. Then, on the
# GPU machine: dist/lab/rank1_tma_lab. Run it after tools/gpu_bundle.sh, which empties dist/.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p dist/lab
log=$(/usr/local/cuda/bin/nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Xptxas -v \
  -Ibench/labs bench/labs/rank1_tma_lab.cu -o dist/lab/rank1_tma_lab \
  -L/usr/local/cuda/lib64/stubs -lcuda 2>&1) || { echo "$log"; exit 1; }
echo "$log" | grep -E "registers|spill|warning" | grep -v "0 bytes spill" || true
