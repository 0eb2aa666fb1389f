#!/usr/bin/env bash
# Builds gpu_bench, gpu_test and fuzz with the prepared patches applied, for A/B runs against
# main's binaries on the GPU machine: dist/v_<name>/ for each variant below (each a list of
# bench/labs/*.patch applied in order). Run after tools/gpu_bundle.sh (which empties dist/);
# the tree is left as it was. About 8 MB a variant: drop binaries the call does not run to
# keep dist/ under 64 MB.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -z "$(git status --porcelain --untracked-files=no)" ] || { echo "commit or set aside changes first" >&2; exit 1; }
variants=("store_once:store_once" "all:store_once held_pairs held_steps" "${@}")
for v in "${variants[@]}"; do
  name=${v%%:*}
  for p in ${v#*:}; do git apply "bench/labs/$p.patch"; done
  bazel build -c opt //bench:gpu_bench //tests/gpu:gpu_test //tools/fuzz:fuzz
  mkdir -p "dist/v_$name"
  cp -L bazel-bin/bench/gpu_bench bazel-bin/tests/gpu/gpu_test bazel-bin/tools/fuzz/fuzz "dist/v_$name/"
  strip "dist/v_$name"/*
  git checkout -q -- codegen tests/codegen/golden
  git clean -fdq tests/codegen/golden
done
bazel build -c opt //bench:gpu_bench //tests/gpu:gpu_test //tools/fuzz:fuzz  # main's again
du -sh dist
