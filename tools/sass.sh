#!/usr/bin/env bash
# The SASS of a generated kernel without a GPU: compiles a kernel's complete source (a
# TESSEL_DUMP .cu, or `fuzz explain --source` from "// tessel device prelude" on) with nvcc as
# the runtime compiles (--fmad=false), then disassembles it with nvdisasm, which PyPI's
# nvidia-cuda-nvdisasm supplies where the toolkit has none (installed on first use into
# ~/.local/share/tessel/nvdisasm). Prints instruction counts by opcode; --list the listing.
#   tools/sass.sh KERNEL.cu [--arch=sm_90a] [--list]
set -euo pipefail
src=${1:?usage: tools/sass.sh KERNEL.cu [--arch=sm_90a] [--list]}
shift
arch=sm_90a list=0
for a in "$@"; do
  case $a in
    --arch=*) arch=${a#--arch=} ;;
    --list) list=1 ;;
    *) echo "unknown argument $a" >&2; exit 2 ;;
  esac
done
nvdisasm=$(command -v nvdisasm || true)
if [ -z "$nvdisasm" ]; then
  dir="${HOME:?}/.local/share/tessel/nvdisasm"
  nvdisasm="$dir/nvidia/cu13/bin/nvdisasm"
  [ -x "$nvdisasm" ] || PIP_USER=0 python3 -m pip install --quiet --target "$dir" nvidia-cuda-nvdisasm
fi
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$nvcc" -O3 --fmad=false -cubin -arch="$arch" -w "$src" -o "$out/k.cubin"
"$nvdisasm" -c "$out/k.cubin" > "$out/k.sass"
if [ $list = 1 ]; then cat "$out/k.sass"; exit 0; fi
echo "$(grep -cE '^\s+/\*[0-9a-f]+\*/' "$out/k.sass") instructions"
grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_]+' "$out/k.sass" | awk '{print $NF}' |
  sort | uniq -c | sort -rn
