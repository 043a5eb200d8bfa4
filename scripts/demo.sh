#!/usr/bin/env bash
# The README's demo: installs what is missing, builds the library and the
# `bcast` tool only (into build-demo/, apart from the tests' build/), then
# runs every example of PyTorch's broadcasting notes through the library and
# explains why (5,2,4,1) and (3,1,1) do not broadcast.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=build-demo
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBCAST_BUILD_TESTS=OFF \
      -DBCAST_BUILD_EXAMPLES=OFF -DBCAST_BUILD_BENCH=OFF -DBCAST_BUILD_DOCS=OFF
cmake --build "$build" --target bcast_cli
"$build"/bcast demo
echo
# explain exits 1 for shapes that do not broadcast, which is the point here.
status=0
"$build"/bcast explain 5,2,4,1 3,1,1 || status=$?
[ "$status" -eq 1 ]
