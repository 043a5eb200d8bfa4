#!/usr/bin/env bash
# Tests the Go binding against an in-tree build of libbcast:
#   BCAST_BUILD_DIR=<abs build dir> bash bindings/go/test.sh
# Runs gofmt, go vet, go test -race, the tests again under
# GOEXPERIMENT=cgocheck2, and (when libbcast.a exists) a statically linked run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${BCAST_BUILD_DIR:-$repo/build}
build=$(cd "$build" && pwd)

if [ -n "${GO:-}" ]; then go=$GO
elif command -v go >/dev/null 2>&1; then go=$(command -v go)
else go=/usr/local/go/bin/go; fi
if ! [ -x "$go" ] && ! command -v "$go" >/dev/null 2>&1; then
  echo "bindings/go: no Go toolchain (looked for go on PATH and $go); set GO=" >&2
  exit 1
fi
gofmt=$(dirname "$go")/gofmt

lib=$(find "$build" -maxdepth 3 -name 'libbcast.so' -print -quit)
if [ -z "$lib" ]; then
  echo "bindings/go: no libbcast.so under $build; build the C library first" >&2
  exit 1
fi
libdir=$(dirname "$lib")

# bcast.pc and bcast-static.pc for the build tree: the headers are split
# between the source include/ and the generated <build>/include/. What the
# archive leaves unresolved is taken from the build's own bcast-static.pc so
# that the two never drift apart.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
static_libs=""
if [ -f "$build/bcast-static.pc" ]; then
  static_libs=$(sed -n 's|^Libs: ${libdir}/libbcast\.a||p' "$build/bcast-static.pc")
fi
cat >"$tmp/bcast.pc" <<EOF
Name: bcast
Description: bcast (build tree)
Version: 0
Libs: -L$libdir -lbcast
Cflags: -I$repo/include -I$build/include
EOF
cat >"$tmp/bcast-static.pc" <<EOF
Name: bcast-static
Description: bcast, static (build tree)
Version: 0
Libs: $libdir/libbcast.a $static_libs
Cflags: -I$repo/include -I$build/include
EOF

export PKG_CONFIG_PATH="$tmp${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CGO_ENABLED=1 GOTOOLCHAIN=local GOFLAGS= GOPROXY=off
# glibc fills freed memory with this byte, so that a tensor freed while C
# still reads it (a missing runtime.KeepAlive) shows up as wrong values.
export MALLOC_PERTURB_=165
# Without a home the go tool has nowhere for its caches: keep them in the build.
if [ -z "${HOME:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ] && [ -z "${GOCACHE:-}" ]; then
  export GOCACHE="$build/go-cache" GOPATH="$build/go-path"
fi
# The test binary links a library the go tool does not track: never reuse
# cached test results.
count=-count=1

cd "$here"
echo "== gofmt"
unformatted=$("$gofmt" -l .)
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
echo "== go vet"
"$go" vet ./...
"$go" vet -tags bcast_static ./...
echo "== go test -race"
"$go" test -race $count ./...
echo "== go test (GOEXPERIMENT=cgocheck2)"
GOEXPERIMENT=cgocheck2 "$go" test $count ./...

if [ -f "$libdir/libbcast.a" ]; then
  echo "== go test -tags bcast_static"
  "$go" test -tags bcast_static -c -o "$tmp/static.test" .
  needed=$(readelf -d "$tmp/static.test")
  if grep -q 'NEEDED.*libbcast' <<<"$needed"; then
    echo "static test binary still needs libbcast.so" >&2
    exit 1
  fi
  if grep -Eq 'NEEDED.*(libhwy|libstdc\+\+|libgomp)' <<<"$needed" && [ -n "$static_libs" ] &&
     grep -q 'libstdc++.a' <<<"$static_libs"; then
    echo "static test binary still needs a shared runtime:" >&2
    grep NEEDED <<<"$needed" >&2
    exit 1
  fi
  (cd "$here" && env -u LD_LIBRARY_PATH "$tmp/static.test" -test.count=1 -test.short)
fi
echo "bindings/go: all tests passed"
