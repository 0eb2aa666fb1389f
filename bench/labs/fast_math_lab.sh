#!/usr/bin/env bash
# Whether the kernels still short of copy are held by their instructions: each listed example's
# kernels (tools/examples.cc) as repros (codegen/repro.cc), built three ways: as the runtime
# compiles them (--fmad=false), with multiplies and adds contracted (--fmad=true), and with
# --use_fast_math (exp, division and square root approximate, denormals flushed), and as the
# runtime compiles them with every expf(t) written as one multiply and ex2.approx (`ex2`: the
# form the streamed rows' online sums take, tessel_exp_shifted). Where a kernel runs faster
# with fewer instructions, its instruction count is what holds it.
# Here, after tools/gpu_bundle.sh (which empties dist/): the repros into dist/lab/fast_math/.
# Then, on the GPU machine (its nvcc builds them, 16 at a time):
#   bash dist/lab/fast_math/run.sh [rounds]
# which prints each kernel's time and checksum a variant, the variants alternating.
set -euo pipefail
cd "$(dirname "$0")/../.."
examples=${EXAMPLES:-"softmax layer_norm column_softmax column_softmax_bf16 leading_softmax_bf16
  middle_softmax_bf16 long_rows_bf16 argmax cross_entropy"}
out=dist/lab/fast_math
bazel build -c opt //tools:inspect
rm -rf "$out" && mkdir -p "$out/src"
for e in $examples; do bazel-bin/tools/inspect "$e" --repro="$out/src" >/dev/null; done
mkdir -p "$out/src_ex2"
for src in "$out"/src/*.cu; do
  sed 's/\bexpf(\([^()]*\))/tessel_exp2_ftz((\1) * 1.4426950408889634f)/g' "$src" >"$out/src_ex2/$(basename "$src")"
done
cat >"$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# Builds each repro three ways, then runs them a variant at a time, alternating, for `rounds`
# rounds (default 2).
here=$(cd "$(dirname "$0")" && pwd)
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
variants=("exact --fmad=false" "fma --fmad=true" "fast --use_fast_math" "ex2 --fmad=false")
for src in "$here"/src/*.cu; do
  for v in "${variants[@]}"; do
    from=$src
    [ "${v%% *}" = ex2 ] && from=$here/src_ex2/$(basename "$src")
    "$nvcc" -O3 ${v#* } -gencode arch=compute_90a,code=sm_90a -diag-suppress 177,550 "$from" \
      -o "$here/$(basename "$src" .cu).${v%% *}" -lcuda &
    while [ "$(jobs -r | wc -l)" -ge 16 ]; do wait -n; done
  done
done
wait
for round in $(seq 1 "${1:-2}"); do
  for src in "$here"/src/*.cu; do
    k=$(basename "$src" .cu)
    for v in "${variants[@]}"; do
      printf '%s %-6s %s\n' "$round" "${v%% *}" "$("$here/$k.${v%% *}" | tr '\n' ' ')"
    done
  done
done
RUN
chmod +x "$out/run.sh"
du -sh "$out"
