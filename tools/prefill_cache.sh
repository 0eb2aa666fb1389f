#!/usr/bin/env bash
# Compiles here the kernels that GPU commands will ask for, into dist/kernel_cache.tar.xz:
# NVRTC needs no GPU, and the driver that runs no kernels (dist/fake_cuda, an sm_90 device of
# 132 SMs) stands in, so each command plans and compiles what it would on the H100 or H200
# (its results are wrong and its checks fail: only the compiles count). On the GPU machine,
# `dist/run.sh` and call scripts unpack it into TESSEL_CACHE_DIR first (prefilled_cache
# in dist/prefill.sh, which tools/gpu_bundle.sh writes), so that device time goes to the
# measurement, not to NVRTC. The cache's key holds the source, the headers, the target and
# NVRTC's version, never the driver's, so a stale or foreign entry is only a miss.
#   tools/gpu_bundle.sh
#   tools/prefill_cache.sh 'dist/gemm_test' \
#       'TESSEL_DYNAMIC=0 dist/gemm_group_bench --benchmark_filter=BM_Qkv/64/'
# Each argument is a command line run from the repository root (env assignments first), two
# at a time; a command that runs past PREFILL_TIMEOUT_S (default 900) is stopped, keeping what
# it compiled.
#   On the GPU machine: source dist/prefill.sh; prefilled_cache /tmp/cache-a
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x dist/fake_cuda/libcuda.so.1 ] || { echo "run tools/gpu_bundle.sh first" >&2; exit 1; }
work=$(mktemp -d)
mkdir -p "$work/cache"
i=0
for command in "$@"; do
  (env LD_LIBRARY_PATH="$PWD/dist/fake_cuda:$PWD/dist:/usr/local/cuda/lib64" \
     TESSEL_CACHE_DIR="$work/cache" timeout "${PREFILL_TIMEOUT_S:-900}" bash -c "$command" \
     > "$work/log$i.txt" 2>&1 || true) &
  i=$((i + 1))
  if [ $((i % 2)) -eq 0 ]; then wait; fi
done
wait
# xz, not gzip: its window spans the near-identical cubins.
tar -cJf dist/kernel_cache.tar.xz -C "$work" cache
echo "$(ls "$work/cache" | wc -l) kernels, $(du -h dist/kernel_cache.tar.xz | cut -f1) in dist/kernel_cache.tar.xz"
rm -rf "$work"
