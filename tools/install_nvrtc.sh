#!/usr/bin/env bash
# Installs NVRTC 13.1 or later from PyPI (nvidia-cuda-nvrtc) where tessel looks for it before
# the CUDA Toolkit's: $XDG_DATA_HOME/tessel/nvrtc, else ~/.local/share/tessel/nvrtc. The CUDA
# 13.0 toolkit's NVRTC miscompiles some kernels (README, "Two commands"). Needs pip and PyPI.
set -euo pipefail
data="${XDG_DATA_HOME:-}"
[[ "$data" == /* ]] || data="$HOME/.local/share"  # as tessel reads it: absolute paths only
dir="$data/tessel/nvrtc"
if ! python3 -m pip --version >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-pip >/dev/null
fi
python3 -m pip install --quiet --upgrade --target "$dir" "nvidia-cuda-nvrtc>=13.1,<14"
echo "tessel: NVRTC installed at $dir/nvidia/cu13/lib/libnvrtc.so.13"
