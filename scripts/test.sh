#!/usr/bin/env bash
# Runs every test of bcast: installs what is missing, builds, then the C/C++
# suite (ctest) and each binding's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# PyTorch 2.x for the differential test against it (a venv outside the
# checkout, created once: the wheel is about 5 GB, 2-3 minutes).
# BCAST_SKIP_TORCH=1 leaves it out (e.g. offline); the test is then not registered.
torch_python=""
if [ "${BCAST_SKIP_TORCH:-0}" != 1 ]; then torch_python=$(bash scripts/venv.sh); fi
build=${BCAST_BUILD_DIR:-build}
# Every part on, whatever an earlier configure of the same directory (the
# README's install recipe turns them off) left in its cache.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBCAST_TORCH_PYTHON="$torch_python" \
  -DBCAST_BUILD_TESTS=ON -DBCAST_BUILD_TOOLS=ON -DBCAST_BUILD_BENCH=ON -DBCAST_BUILD_EXAMPLES=ON
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
for t in bindings/rust/test.sh bindings/go/test.sh scripts/sanitize.sh; do
  if [ -f "$t" ]; then BCAST_BUILD_DIR="$PWD/$build" bash "$t"; fi
done
