#!/usr/bin/env bash
# bcast against PyTorch, NumPy and this machine's bandwidth ceiling, in one run:
#
#   bash scripts/bench.sh [--markdown FILE] [--runs N] [--cases name,name]
#   bash scripts/bench.sh matrix [--quick] [--threads 1,all] [--markdown FILE]
#   bash scripts/bench.sh unary [--quick] [--threads 1,all] [--ops exp,neg] [--markdown FILE]
#   bash scripts/bench.sh reduce [--quick] [--threads 1,all] [--ops sum,amax] [--markdown FILE]
#
# The second form runs bench/matrix.py: every op x every dtype of the op
# table against PyTorch 2.x and NumPy 2.x from the venv of scripts/venv.sh
# (created once: the PyTorch wheel is about 5 GB), same-shape and
# row-broadcast, 1 thread and all cores, and a size sweep. The third runs
# bench/unary_matrix.py the same way: every unary op x every dtype, input
# contiguous and transposed, against the same venv's PyTorch and NumPy. The
# fourth runs bench/reduce_matrix.py: every reduction x every dtype x the
# reduced dims and layouts, against the same PyTorch and NumPy and a
# read-only stream of the same bytes.
#
# Installs Debian's PyTorch (python3-torch, libtorch-dev) if it is missing,
# builds the drivers in build-bench/ (BCAST_BENCH_BUILD_DIR to change),
# then prints the tables of bench/compare.py. Speed is reported, never
# asserted: the exit status is 0 unless something could not run at all.
# The Google Benchmark suite is separate: build-bench/bench/bcast_bench.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BCAST_BENCH_BUILD_DIR:-$root/build-bench}
jobs=${BCAST_BENCH_JOBS:-2}
if [ "${1:-}" = matrix ] || [ "${1:-}" = unary ] || [ "${1:-}" = reduce ]; then
  script=matrix.py; [ "$1" = unary ] && script=unary_matrix.py
  [ "$1" = reduce ] && script=reduce_matrix.py
  shift
  python=$(bash "$root/scripts/venv.sh")
  bash "$root/scripts/setup.sh"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBCAST_BUILD_TESTS=OFF \
    -DBCAST_BUILD_DOCS=OFF -DBCAST_BUILD_EXAMPLES=OFF -DBCAST_BUILD_TOOLS=OFF >/dev/null
  cmake --build "$build" -j "$jobs" --target bcast_shared >/dev/null
  exec "$python" "$root/bench/$script" --lib "$build/libbcast.so" "$@"
fi
# Debian's python has Debian's numpy and torch; a venv's might have neither.
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
if command -v dpkg-query >/dev/null; then
  need=()
  for p in python3-torch libtorch-dev python3-numpy libbenchmark-dev; do
    have_pkg "$p" || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    echo "bench.sh: installing ${need[*]} (PyTorch is large: a few minutes)" >&2
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    if ! { $SUDO apt-get update -qq &&
           DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null; }; then
      echo "bench.sh: could not install ${need[*]}; the table will say n/a where they are missing" >&2
    fi
  fi
fi

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DBCAST_BUILD_BENCH=ON -DBCAST_BUILD_TESTS=OFF -DBCAST_BUILD_DOCS=OFF \
    -DBCAST_BUILD_EXAMPLES=OFF -DBCAST_BUILD_TOOLS=OFF >/dev/null
else
  cmake "$build" >/dev/null  # picks up libtorch-dev if it came since
fi
echo "bench.sh: building in $build (-j$jobs)" >&2
cmake --build "$build" -j "$jobs" --target bcast_compare_driver >/dev/null
aten=()
if cmake --build "$build" -j "$jobs" --target bcast_aten_latency >/dev/null 2>&1; then
  aten=(--aten "$build/bench/bcast_aten_latency")
else
  echo "bench.sh: no ATen from C++ (libtorch-dev missing?); small-op latency compares with Python" >&2
fi

exec "$python" "$root/bench/compare.py" --driver "$build/bench/bcast_compare_driver" "${aten[@]}" "$@"
