#!/bin/bash
# Usage: tools/emu/run.sh [HEADER] [quick|mini]   (no arg: all 16 configs, ~4 min on 2 cores)
#   HEADER defaults to this checkout's codegen/device/attention_sm80.cuh (read only: a patched copy is built).
# A CPU emulation of the attention kernel (emu.h: ldmatrix, mma.sync, shuffles, cp.async and barriers over
# 128 real threads a block) against a double-precision reference: checks the kernel without a GPU.
# Builds with -fsanitize=address,undefined (EMU_TSAN=1: -fsanitize=thread) and runs all configs twice: cp.async at issue and
# cp.async deferred to wait_group.
set -euo pipefail
cd "$(dirname "$0")"
HEADER=${1:-$(cd ../.. && pwd)/codegen/device/attention_sm80.cuh}
ARG=${2:-}
gen=${EMU_BUILD:-/tmp}/emu_gen; mkdir -p "$gen/tessel"
# The only source change: extern __shared__ -> this block's heap buffer.
sed 's/^\( *\)extern __shared__ __align__(16) unsigned char tessel_attention_raw\[\];/\1unsigned char* tessel_attention_raw = emu_shared_base();/' \
  "$HEADER" > "$gen/tessel/attention_sm80.cuh"
grep -q "tessel_attention_raw = emu_shared_base();" "$gen/tessel/attention_sm80.cuh" || { echo "extern __shared__ line not found"; exit 1; }
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
[ "${EMU_TSAN:-0}" = 1 ] && SAN="-fsanitize=thread"  # data races (e.g. a missing __syncthreads)
g++ -std=c++20 -O1 -g -fno-omit-frame-pointer $SAN \
  -Wall -Wno-unknown-pragmas -Wno-unused-variable -pthread -I "$gen" -I . -I stub attention_harness.cc -o "${EMU_BUILD:-/tmp}/emu_attention"
export TSAN_OPTIONS=halt_on_error=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
rc=0
EMU_CP_ASYNC=issue "${EMU_BUILD:-/tmp}/emu_attention" $ARG || rc=1
EMU_CP_ASYNC=deferred "${EMU_BUILD:-/tmp}/emu_attention" $ARG || rc=1
exit $rc
