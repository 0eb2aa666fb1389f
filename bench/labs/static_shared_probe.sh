#!/usr/bin/env bash
# Builds bench/labs/static_shared_probe.cu into dist/lab/ and prints its cubin's shared
# sections; then, on the GPU machine: dist/lab/static_shared_probe.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p dist/lab
nvcc=/usr/local/cuda/bin/nvcc
$nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a bench/labs/static_shared_probe.cu \
  -lcuda -o dist/lab/static_shared_probe
$nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -cubin bench/labs/static_shared_probe.cu \
  -o dist/lab/static_shared_probe.cubin
readelf -SW dist/lab/static_shared_probe.cubin | grep -E "nv.shared" | tee dist/lab/static_shared_sections.txt
