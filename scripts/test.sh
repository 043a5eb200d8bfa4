#!/usr/bin/env bash
# Runs every test of bcast: installs what is missing, builds, then the C/C++
# suite (ctest) and each binding's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${BCAST_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
for t in bindings/rust/test.sh bindings/go/test.sh scripts/sanitize.sh; do
  if [ -f "$t" ]; then BCAST_BUILD_DIR="$PWD/$build" bash "$t"; fi
done
