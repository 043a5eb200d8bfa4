#!/usr/bin/env bash
# The README's demo: installs what is missing, builds into build/, then runs
# every example of PyTorch's broadcasting notes through the library and
# explains why (5,2,4,1) and (3,1,1) do not broadcast.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja
cmake --build build
build/bcast demo
echo
# explain exits 1 for shapes that do not broadcast, which is the point here.
status=0
build/bcast explain 5,2,4,1 3,1,1 || status=$?
[ "$status" -eq 1 ]
