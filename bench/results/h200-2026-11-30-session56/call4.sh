#!/usr/bin/env bash
# Session 56 call 4: fuzz seed 80945064's minimized kernel (dumped source) in a harness
# against a host reference, 200 random inputs: nvcc -O3, ptxas -O0, bool arrays as bytes.
cd "$(dirname "$0")/.."
for v in o3 o0 u8; do timeout 60 ./dist/fz/h_$v; done
