#!/usr/bin/env bash
# Installs NVRTC 13.5 or later from PyPI (nvidia-cuda-nvrtc) where tessel looks for it before
# the CUDA Toolkit's: $XDG_DATA_HOME/tessel/nvrtc, else ~/.local/share/tessel/nvrtc. The CUDA
# 13.0 toolkit's NVRTC miscompiles some kernels (README, "Two commands"). For CUDA 13 drivers
# (R580 or later: a 13.x NVRTC's cubins load on any of them); needs pip and PyPI.
set -euo pipefail
data="${XDG_DATA_HOME:-}"
# As tessel reads it: absolute paths only.
[[ "$data" == /* ]] || data="${HOME:?set HOME or XDG_DATA_HOME}/.local/share"
dir="$data/tessel/nvrtc"
if ! python3 -m pip --version >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-pip >/dev/null
fi
# (--target: not the user's site-packages, whatever pip's configuration says.)
PIP_USER=0 python3 -m pip install --quiet --upgrade --target "$dir" "nvidia-cuda-nvrtc>=13.5,<14"
lib="$dir/nvidia/cu13/lib/libnvrtc.so.13"
[ -f "$lib" ] || { echo "tessel: no $lib after the install (the wheel's layout changed?)" >&2; exit 1; }
echo "tessel: NVRTC installed at $lib"
