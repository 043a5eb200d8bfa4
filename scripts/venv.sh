#!/usr/bin/env bash
# Creates, once, the Python environment that benchmarks and the PyTorch
# differential test compare against: PyTorch 2.x and NumPy 2.x from PyPI (the
# Linux wheel pulls the CUDA packages, about 5 GB; everything runs on CPU).
# It lives outside the checkout so that clones and CI runs on one machine
# share it; BCAST_VENV moves it. Prints the interpreter's path.
set -euo pipefail
venv=${BCAST_VENV:-$HOME/.cache/bcast/venv-torch}
py="$venv/bin/python"
if ! "$py" -c 'import torch, numpy, sys; sys.exit(not (torch.__version__ >= "2" and numpy.__version__ >= "2"))' \
    2>/dev/null; then
  if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
  fi
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv" >&2
  "$py" -m pip install -q --disable-pip-version-check 'torch>=2' 'numpy>=2' >&2
fi
echo "$py"
