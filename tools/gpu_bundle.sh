#!/usr/bin/env bash
# Builds the GPU test, benchmarks and demo, and packs them with the one shared library they
# need (Google Benchmark) into dist/ for the device machine (see shared/device.md), together
# with dist/run.sh, which runs them there and writes logs and JSON under $OUT.
#   tools/gpu_bundle.sh            then, on the GPU machine:
#   bash dist/run.sh [tests|repro|bench|ab|loops|gemm|groups|attention|profile|profile-kernel|sanitize|
#                     fuzz|fuzz-worker|fuzz-sanitize|all]
#   (ab: BENCH_FILTER's benchmarks as they are, then with AB_ENV, e.g. TESSEL_CUDA_GRAPHS=0;
#   gemm: the GEMM tests, the HGMMA check and the GEMM benchmarks, also of the mma.sync
#   kernel; groups: the GEMM groups' tests, swiglu demo and benchmarks (groups on and off)
#   next to PyTorch (tools/gemm_group_baseline.py); attention: the attention tests and
#   benchmarks, and PyTorch's SDPA on the same
#   shapes (tools/sdpa_baseline.py); profile: Nsight Compute on the fused 8192^3 GEMM, PROFILE_FILTER picks another
#   benchmark; profile-kernel: Nsight Compute on the kernel PROFILE_KERNEL (a regex) of the
#   benchmark PROFILE_FILTER of PROFILE_BINARY (default gpu_bench); sanitize: memcheck, racecheck and synccheck; fuzz: the
#   differential fuzzer in diff mode, FUZZ_COUNT programs from seed FUZZ_FIRST (default:
#   fresh) in FUZZ_JOBS processes; fuzz-worker: one worker process over FUZZ_COUNT programs
#   from FUZZ_FIRST, in order (a failure that needs its predecessors);
#   fuzz-sanitize: compute-sanitizer memcheck and racecheck over FUZZ_COUNT fuzz programs;
#   loops: the training-loop and batch-size benchmarks, and the cache growth over 10,000 graphs,
#   whose kernels `CACHE_PREFILL=1 tools/gpu_bundle.sh` compiles ahead, on this machine;
#   any command's kernels: tools/prefill_cache.sh after this script)
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(//tests/gpu:gpu_test //tests/gpu:gemm_test //tests/gpu:attention_test //tests/gpu:loop_test //tests/gpu:stream_test //tests/gpu:fuzz_regression_test //tests/gpu:interop_test //tests/gpu:scan_sort_test
  //tests/core:threads_test //bench:gpu_bench //bench:gemm_bench //bench:gemm_group_bench //bench:attention_bench //bench:compile_bench
  //bench:loop_bench //bench:cache_growth
  //examples:mlp //examples:lm //tools:inspect //tools/fuzz:fuzz //tools/fake_cuda:libcuda.so.1)
bazel build -c opt "${targets[@]}"
rm -rf dist
mkdir -p dist
for t in "${targets[@]}"; do
  path=${t#//}
  cp -L "bazel-bin/${path/://}" dist/
done
cp -L /usr/lib/x86_64-linux-gnu/libbenchmark.so.1debian dist/
# The driver that runs no kernels, apart: LD_LIBRARY_PATH=dist/fake_cuda times the host path
# without the real driver's cost (tools/fake_cuda/fake_cuda.cc).
mkdir -p dist/fake_cuda && mv dist/libcuda.so.1 dist/fake_cuda/
chmod u+w dist/*
strip dist/gpu_test dist/gemm_test dist/attention_test dist/loop_test dist/stream_test dist/fuzz_regression_test dist/interop_test dist/scan_sort_test dist/threads_test dist/gpu_bench \
  dist/gemm_bench dist/gemm_group_bench dist/attention_bench dist/compile_bench dist/loop_bench dist/cache_growth dist/mlp dist/lm dist/fuzz
cp -r tests/fuzz/regressions dist/regressions
cp tools/sdpa_baseline.py tools/gemm_group_baseline.py dist/
for example in softmax chain api; do dist/inspect "$example" --repro=dist/repro >/dev/null; done
if [ -n "${CACHE_PREFILL:-}" ]; then
  # CACHE_PREFILL=1: compile cache_growth's kernels here (NVRTC needs no GPU; the driver that
  # runs no kernels stands in), so that `run.sh loops` spends its device time on the
  # measurement, not on 10,000 compiles. The disk cache's key holds no driver version.
  prefill=$(mktemp -d)
  n=${CACHE_GRAPHS:-10000}; per=$(( (n + 1) / 2 ))
  for i in 0 1; do
    LD_LIBRARY_PATH=dist/fake_cuda TESSEL_CACHE_DIR="$prefill/cache" dist/cache_growth $((i * per)) $per >/dev/null &
  done
  wait
  # xz, not gzip: its window spans many of the near-identical cubins (333 MB: 51 MB gzip, 2 MB xz).
  tar -cJf dist/cache_growth_cache.tar.xz -C "$prefill" cache && rm -rf "$prefill"
fi
rm dist/inspect
cat > dist/prefill.sh <<'SH'
# prefilled_cache DIR: unpacks dist/kernel_cache.tar.xz (compiled ahead by
# tools/prefill_cache.sh), where there is one, into DIR.
prefilled_cache() {
  local here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  mkdir -p "$1"
  [ -f "$here/kernel_cache.tar.xz" ] && tar -xJf "$here/kernel_cache.tar.xz" -C "$1" --strip-components=1
  return 0
}
SH
cat > dist/run.sh <<'RUN'
#!/usr/bin/env bash
# Runs tessel's GPU tests and benchmarks; logs and JSON go to $OUT (default ./out).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-./out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$here${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TESSEL_CACHE_DIR="${TESSEL_CACHE_DIR:-/tmp/tessel-cache}"  # not under $out: thousands of files
source "$here/prefill.sh" && prefilled_cache "$TESSEL_CACHE_DIR"
export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:/usr/local/cuda/lib64"  # cuBLASLt, for gemm_bench
export TESSEL_FUZZ_REGRESSIONS="$here/regressions"
what=${1:-all}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
if [ "$what" = tests ] || [ "$what" = all ]; then
  "$here/gpu_test" --gtest_output="xml:$out/gpu_test.xml" 2>&1 | tee "$out/gpu_test.log" | tail -40
  "$here/gemm_test" --gtest_output="xml:$out/gemm_test.xml" 2>&1 | tee "$out/gemm_test.log" | tail -40
  for t in attention_test scan_sort_test loop_test stream_test fuzz_regression_test interop_test threads_test; do
    "$here/$t" 2>&1 | tee "$out/$t.log" | tail -4
  done
  # The same tests with a stream of their own current, and on a second device (a context of
  # its own on the same GPU where there is one GPU).
  TESSEL_TEST_STREAM=1 "$here/gpu_test" 2>&1 | tee "$out/gpu_test_stream.log" | tail -3
  TESSEL_VIRTUAL_DEVICES=2 TESSEL_TEST_DEVICE=1 "$here/gpu_test" 2>&1 | tee "$out/gpu_test_device1.log" | tail -3
  TESSEL_VIRTUAL_DEVICES=2 "$here/stream_test" 2>&1 | tee "$out/stream_test_devices.log" | tail -3
  # Persistent kernels with 3 blocks: every block walks several work tiles, as on big problems.
  for t in attention_test gemm_test; do
    TESSEL_PERSISTENT_BLOCKS=3 "$here/$t" 2>&1 | tee "$out/${t}_3_blocks.log" | tail -3
  done
  TESSEL_LOG=1 TESSEL_DUMP="$out/dump" "$here/mlp" 2>&1 | tee "$out/mlp.log" | tail -8
  ls "$out/dump" | tee "$out/dump.list"
  "$here/lm" cuda 2>&1 | tee "$out/lm.log" | tail -8
  "$here/lm" cuda swiglu 2>&1 | tee "$out/lm_swiglu.log" | tail -8  # sibling and dual GEMMs
fi
if { [ "$what" = repro ] || [ "$what" = all ]; } && command -v nvcc >/dev/null; then
  for f in "$here"/repro/*.cu; do  # repro export: plain nvcc builds and runs them
    nvcc -O3 --fmad=false -gencode arch=compute_90a,code=sm_90a "$f" -o "$out/$(basename "$f" .cu)" -lcuda && "$out/$(basename "$f" .cu)"
  done 2>&1 | tee "$out/repro.log"
fi
if [ "$what" = gemm ]; then
  "$here/gemm_test" --gtest_output="xml:$out/gemm_test.xml" 2>&1 | tee "$out/gemm_test.log" | tail -30
  # The portable mma.sync kernels, on Hopper: generate for sm_90 without the "a" features.
  TESSEL_ARCH=sm_90 "$here/gemm_test" 2>&1 | tee "$out/gemm_test_mma_sync.log" | tail -3
  # The Hopper kernel's SASS: HGMMA is the tensor-core path (HMMA would be mma.sync).
  TESSEL_DUMP="$out/gemm_dump" "$here/gemm_test" --gtest_filter='*Epilogues*:*OneOutput*' >/dev/null 2>&1
  for f in "$out"/gemm_dump/G_*.cubin; do
    cuobjdump --dump-sass "$f" > "${f%.cubin}.sass"
    echo "$(basename "$f"): $(grep -o 'HGMMA[.A-Z0-9x]*' "${f%.cubin}.sass" | sort | uniq -c | tr '\n' ' ')"
  done | tee "$out/hgmma.txt"
  "$here/gemm_bench" --benchmark_out="$out/gemm_bench.json" ${BENCH_ARGS:-} 2>&1 | tee "$out/gemm_bench.log" | grep -E "^BM_|Run on|rror"
  TESSEL_ARCH=sm_90 "$here/gemm_bench" --benchmark_filter='BM_Tessel/(8192/8192/8192|4096/4096/4096)/0' \
    --benchmark_out="$out/gemm_bench_mma_sync.json" 2>&1 | tee "$out/gemm_bench_mma_sync.log" | grep -E "^BM_"
fi
if [ "$what" = groups ]; then
  # GEMM groups (fusion/gemm_groups.cc) and few-row GEMMs: their GPU tests, the swiglu demo,
  # and the benchmarks with the groups on and off (TESSEL_GEMM_GROUPS) in one call, next to
  # PyTorch; then M = 16 alone (its own kernel, not the bucket kernel of a later row count).
  "$here/gemm_test" --gtest_filter='*Sibling*:*Dual*:*Grouped*:*FewRow*' 2>&1 | tee "$out/gemm_groups_test.log" | tail -8
  "$here/loop_test" --gtest_filter='*Sibling*' 2>&1 | tee "$out/loop_groups_test.log" | tail -3
  "$here/lm" cuda swiglu 2>&1 | tee "$out/lm_swiglu.log" | tail -8
  for g in 1 0; do
    TESSEL_GEMM_GROUPS=$g "$here/gemm_group_bench" --benchmark_filter="${BENCH_FILTER:-.}" \
      --benchmark_out="$out/gemm_group_bench_$g.json" 2>&1 | tee "$out/gemm_group_bench_$g.log" | grep -E "^BM_|rror"
  done
  "$here/gemm_group_bench" --benchmark_filter='BM_(CopyBandwidth|Qkv/16/|SwiGlu/16/)' \
    --benchmark_out="$out/gemm_group_bench_m16.json" 2>&1 | tee "$out/gemm_group_bench_m16.log" | grep -E "^BM_|rror"
  python3 "$here/gemm_group_baseline.py" 2>&1 | tee "$out/gemm_group_torch.log"
fi
if [ "$what" = attention ]; then
  "$here/attention_test" 2>&1 | tee "$out/attention_test.log" | tail -20
  TESSEL_ARCH=sm_90 "$here/attention_test" 2>&1 | tee "$out/attention_test_mma_sync.log" | tail -3
  "$here/attention_bench" --benchmark_out="$out/attention_bench.json" ${BENCH_ARGS:-} 2>&1 | tee "$out/attention_bench.log" | grep -E "^BM_|Run on|rror"
  python3 "$here/sdpa_baseline.py" 2>&1 | tee "$out/sdpa.log"
fi
if [ "$what" = fuzz-worker ]; then
  "$here/fuzz" worker --mode=diff --first="${FUZZ_FIRST:?}" --count="${FUZZ_COUNT:?}" 2>&1 | tee "$out/fuzz_worker.log" | grep -v '^@pass' | tail -40
  echo "worker: $(grep -c '^@pass' "$out/fuzz_worker.log") passed, $(grep -c '^@fail' "$out/fuzz_worker.log") failed"
fi
if [ "$what" = profile ]; then
  # Tensor-pipe use and warp stalls of one tessel GEMM kernel (the third launch: warm).
  ncu --clock-control none --kernel-name regex:'^G_' --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats "$here/gemm_bench" \
    --benchmark_filter="${PROFILE_FILTER:-BM_Tessel/8192/8192/8192/1}" \
    --benchmark_min_time=0.01 2>&1 | tee "$out/ncu.txt" | tail -60
fi
if [ "$what" = profile-kernel ]; then
  # One kernel of a memory-bound benchmark: PROFILE_FILTER picks the benchmark, PROFILE_KERNEL
  # a regex of the kernel's name (its third launch: warm), PROFILE_BINARY the benchmark binary
  # (gpu_bench unless given, e.g. gemm_group_bench), PROFILE_SECTIONS more sections (e.g.
  # "--section SourceCounters": the stall reasons of each instruction).
  ncu --clock-control none --kernel-name regex:"${PROFILE_KERNEL:-.}" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section Occupancy --section LaunchStats ${PROFILE_SECTIONS:-} \
    "$here/${PROFILE_BINARY:-gpu_bench}" \
    --benchmark_filter="${PROFILE_FILTER:-BM_CrossEntropy}" \
    --benchmark_min_time=0.01 2>&1 | tee "$out/ncu_kernel.txt" | tail -${PROFILE_TAIL:-120}
fi
if [ "$what" = sanitize ]; then
  for tool in memcheck racecheck synccheck; do
    compute-sanitizer --tool $tool "$here/gemm_test" --gtest_filter=${GEMM_FILTER:-*} 2>&1 | tee "$out/gemm_$tool.log" | tail -3
  done
  compute-sanitizer --tool memcheck --leak-check no "$here/gpu_test" 2>&1 | tee "$out/memcheck.log" | tail -3
  compute-sanitizer --tool racecheck "$here/gpu_test" 2>&1 | tee "$out/racecheck.log" | tail -3
fi
if [ "$what" = fuzz ]; then
  "$here/fuzz" diff --first="${FUZZ_FIRST:-0}" --count="${FUZZ_COUNT:-20000}" \
    --jobs="${FUZZ_JOBS:-0}" --timeout="${FUZZ_TIMEOUT:-300}" --time_limit="${FUZZ_TIME_LIMIT:-0}" 2>&1 | tee "$out/fuzz_diff.log" | tail -80
fi
if [ "$what" = fuzz-sanitize ]; then
  # One worker process per slice of seeds, each under compute-sanitizer (the tools follow no
  # children, so the workers run directly); one log per tool.
  n=${FUZZ_COUNT:-320} jobs=${FUZZ_JOBS:-16} first=${FUZZ_FIRST:-1}
  per=$(( (n + jobs - 1) / jobs ))
  for tool in ${FUZZ_TOOLS:-memcheck racecheck}; do
    for i in $(seq 0 $((jobs - 1))); do
      compute-sanitizer --tool "$tool" --print-limit 20 "$here/fuzz" worker --mode=diff \
        --first=$((first + i * per)) --count="$per" --twice=false > "$out/sanitize_$tool.$i" 2>&1 &
    done
    wait
    cat "$out"/sanitize_$tool.* > "$out/fuzz_$tool.log" && rm "$out"/sanitize_$tool.*
    echo "$tool: $(grep -c '^@pass' "$out/fuzz_$tool.log") passed, $(grep -c '^@fail' "$out/fuzz_$tool.log") failed;" \
      "$(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$out/fuzz_$tool.log" | sort | uniq -c | tr '\n' ' ')"
  done | tee "$out/fuzz_sanitize.txt"
fi
if [ "$what" = loops ]; then
  "$here/loop_bench" --benchmark_out="$out/loop_bench.json" ${BENCH_ARGS:-} 2>&1 | tee "$out/loop_bench.log" | grep -E "^BM_|Run on|rror"
  # CACHE_GRAPHS (10,000) distinct graphs: fill the disk cache in 16 processes, then one
  # process runs them all.
  n=${CACHE_GRAPHS:-10000}; per=$(( (n + 15) / 16 ))
  if [ -f "$here/cache_growth_cache.tar.xz" ]; then  # filled by gpu_bundle.sh CACHE_PREFILL=1
    mkdir -p "$TESSEL_CACHE_DIR" && tar -xJf "$here/cache_growth_cache.tar.xz" -C "$TESSEL_CACHE_DIR" --strip-components=1
  else
    for i in $(seq 0 15); do timeout ${CACHE_WARM_S:-300} "$here/cache_growth" $((i * per)) $per > /dev/null & done; wait
  fi
  timeout ${CACHE_RUN_S:-300} "$here/cache_growth" 0 "$n" 2>&1 | tee "$out/cache_growth.log"
fi
if [ "$what" = ab ]; then
  # The benchmarks BENCH_FILTER picks, as they are and with AB_ENV set (e.g.
  # AB_ENV=TESSEL_CUDA_GRAPHS=0), one after the other in the same call: an A/B on one machine.
  : "${AB_ENV:?set AB_ENV=NAME=VALUE}"
  for side in a b; do
    if [ $side = a ]; then run=(); else run=(env "$AB_ENV"); fi
    "${run[@]}" "$here/gpu_bench" --benchmark_filter="${BENCH_FILTER:-.}" \
      --benchmark_out="$out/ab_$side.json" 2>&1 | tee "$out/ab_$side.log" | grep -E "^BM_|rror"
  done
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  CUDA_CACHE_DISABLE=1 "$here/compile_bench" --benchmark_out="$out/compile_bench.json" 2>&1 | tee "$out/compile_bench.log" | grep -E "^BM_|Run on"
  "$here/gpu_bench" --benchmark_out="$out/gpu_bench.json" ${BENCH_ARGS:-} 2>&1 | tee "$out/gpu_bench.log" | grep -E "^BM_|Run on|rror"
fi
RUN
chmod +x dist/run.sh
du -sh dist
