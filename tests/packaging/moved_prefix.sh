#!/usr/bin/env bash
# The installed `bcast` tool runs from wherever its prefix is, with nothing on
# the loader path: installed into one scratch prefix, which is then moved, it
# must find libbcast.so through its RUNPATH ($ORIGIN/<bin to lib>).
#   moved_prefix.sh <build dir> <work dir>
set -euo pipefail
build=$(cd "$1" && pwd)
work=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/installed" >"$work/install.log"
mv "$work/installed" "$work/moved"
tool=$work/moved/bin/bcast
[ -x "$tool" ] || fail "no bin/bcast under the prefix"
lib=$(find "$work/moved" -name 'libbcast.so.*' -type f | head -1)
[ -n "$lib" ] || fail "no libbcast.so.* under the prefix"
rel=$(realpath --relative-to="$work/moved/bin" "$(dirname "$lib")")
runpath=$(readelf -d "$tool" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
[ "$runpath" = "\$ORIGIN/$rel" ] || fail "bin/bcast's RUNPATH is '$runpath', expected '\$ORIGIN/$rel'"
out=$(env -u LD_LIBRARY_PATH "$tool" --version 2>&1) || fail "the moved bin/bcast does not run: $out"
env -u LD_LIBRARY_PATH ldd "$tool" | grep -F "libbcast.so" | grep -qF "$work/moved/" ||
  fail "the moved bin/bcast loads libbcast from elsewhere: $(ldd "$tool" | grep libbcast)"
echo "moved prefix: bin/bcast (RUNPATH $runpath) runs: $out"
