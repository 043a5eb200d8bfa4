#!/usr/bin/env bash
# What a user does, each in a fresh project in a temporary directory outside
# the repository, against bcast installed (cmake --install) into a scratch
# prefix:
#   fresh_projects.sh rust     <source dir> <build dir> <work dir>
#     a cargo project depending on `bcast`: the build-script error without
#     bcast, then pkg-config shared (run with LD_LIBRARY_PATH) and `static`
#     (run without it);
#   fresh_projects.sh vendored <source dir> <build dir> <work dir>
#     `cargo package` of both crates (bcast-sys must ship the C++ sources),
#     then a cargo project on the packaged crates with `vendored`: no
#     installed bcast at all; the binary must not need libbcast/libhwy/
#     libstdc++/libgomp;
#   fresh_projects.sh go       <source dir> <build dir> <work dir>
#     a Go module (replace => bindings/go): go build, and -tags bcast_static
#     run without the prefix on the loader path.
# Exit 77 (ctest: skipped) when cargo or go is missing and BCAST_REQUIRE_<TOOL>
# is not 1.
set -euo pipefail
what=$1
src=$(cd "$2" && pwd)
build=$(cd "$3" && pwd)
# The SONAME's number is the major version (CMake's, which packaging_versions
# checks the crates' against).
soversion=$(sed -n 's/^version = "\([0-9]*\)\..*"/\1/p' "$src/bindings/rust/Cargo.toml" | head -1)
work=$4

fail() { echo "FAIL: $*" >&2; exit 1; }
skip_or_fail() {  # tool, require-variable
  if [ "${!2:-0}" = 1 ]; then fail "$1 not found"; fi
  echo "$1 not found: SKIPPED ($2=1 makes this an error)"; exit 77
}

# Shared libraries a binary needs, one per line.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
# Fails unless every NEEDED entry of $1 is one of the allowed names ($2, a
# regex over the whole name).
only_needs() {
  local bad
  bad=$(needed "$1" | grep -Ev "^($2)$" || true)
  [ -z "$bad" ] || fail "$1 needs $(echo $bad) beyond the allowed $2"
  echo "$(basename "$1"): needs only $(needed "$1" | tr '\n' ' ')"
}
libc_only='libc\.so\.6|libm\.so\.6|libpthread\.so\.0|ld-linux[-a-z0-9_.]*\.so\.[0-9]'
size() { stat -c %s "$1"; }

rm -rf "$work"
mkdir -p "$work"
# The install a user makes, into a prefix of their own.
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
pcdir=$(dirname "$(find "$prefix" -name bcast.pc | head -1)")
libdir=$(dirname "$(find "$prefix" -name 'libbcast.so' | head -1)")
[ -f "$pcdir/bcast.pc" ] && [ -f "$pcdir/bcast-static.pc" ] || fail "no bcast.pc / bcast-static.pc under $prefix"

cargo_env() {
  export CARGO_TERM_COLOR=never CARGO_TARGET_DIR=$1
  # Without crates.io, build from what the cargo cache holds (the same crates
  # bindings/rust's own tests need).
  if [ -z "${CARGO_NET_OFFLINE:-}" ] && ! (cd "$src/bindings/rust" && cargo fetch --locked --quiet) 2>/dev/null; then
    export CARGO_NET_OFFLINE=true
  fi
}

main_rs='use bcast::Tensor;

fn main() -> Result<(), bcast::Error> {
    let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3, 1])?;
    let y = Tensor::from_slice(&[10.0f32, 20.0], &[2])?;
    let z = &x * &y + 1.0;
    println!("bcast {}: {:?} {:?}", bcast::version_string(), z.shape(), z.to_vec::<f32>()?);
    Ok(())
}'
rust_expected='[3, 2] [11.0, 21.0, 21.0, 41.0, 31.0, 61.0]'

check_output() {  # output, expected substring, what
  grep -qF -- "$2" <<<"$1" || fail "$3: unexpected output: $1"
  echo "$3: $1"
}

case $what in
rust)
  command -v cargo >/dev/null || skip_or_fail cargo BCAST_REQUIRE_RUST
  # Kept in the build tree between runs: only the Rust code is compiled here.
  cargo_env "$build/tests/packaging/fresh-rust-target"
  p=$work/hello-rust
  mkdir -p "$p/src"
  cat >"$p/Cargo.toml" <<EOF
[package]
name = "hello-bcast"
version = "0.1.0"
edition = "2021"

[dependencies]
bcast = { path = "$src/bindings/rust/bcast" }

[features]
static = ["bcast/static"]

[workspace]
EOF
  echo "$main_rs" >"$p/src/main.rs"
  cp "$src/bindings/rust/Cargo.lock" "$p/Cargo.lock"
  cd "$p"

  # No bcast for pkg-config: the build stops and says what to do.
  mkdir -p "$work/empty"
  if PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=$work/empty cargo build 2>"$work/nobcast.log"; then
    fail "cargo build succeeded without an installed bcast"
  fi
  for text in "bcast-sys: the bcast C library was not found with pkg-config" \
              "PKG_CONFIG_PATH=<prefix>/lib/pkgconfig" "vendored"; do
    grep -qF "$text" "$work/nobcast.log" || { cat "$work/nobcast.log" >&2; fail "build-script error lacks '$text'"; }
  done
  echo "without bcast: cargo build fails with the build script's instructions"

  # Only the prefix is visible to pkg-config, not the system's .pc files: a
  # user without libhwy-dev must be able to build.
  export PKG_CONFIG_PATH=$pcdir PKG_CONFIG_LIBDIR=$work/empty
  cargo build --release
  exe=$CARGO_TARGET_DIR/release/hello-bcast
  needed "$exe" | grep -qx "libbcast\.so\.$soversion" || fail "shared build does not need libbcast.so.$soversion"
  check_output "$(LD_LIBRARY_PATH=$libdir "$exe")" "$rust_expected" "cargo, shared, LD_LIBRARY_PATH=$libdir"
  if env -u LD_LIBRARY_PATH "$exe" >/dev/null 2>&1; then
    fail "the shared build ran without libbcast on the loader path: it did not use the prefix"
  fi

  cargo build --release --features static
  only_needs "$exe" "$libc_only|libgcc_s\.so\.1"
  check_output "$(env -u LD_LIBRARY_PATH "$exe")" "$rust_expected" "cargo, static ($(size "$exe") bytes)"
  ;;

vendored)
  command -v cargo >/dev/null || skip_or_fail cargo BCAST_REQUIRE_RUST
  cargo_env "$build/tests/packaging/fresh-vendored-target"
  # The packages as crates.io would get them.
  (cd "$src/bindings/rust" && cargo package --list -p bcast-sys --allow-dirty) >"$work/list.txt"
  for f in bcast/CMakeLists.txt bcast/cmake/bcast.pc.in bcast/include/bcast/bcast.h \
           bcast/src/op_table.def bcast/src/core/plan.cc bcast/src/kernels/rows-inl.h \
           bcast/src/hwy_runtime/targets.cc build.rs LICENSE README.md; do
    grep -qx "$f" "$work/list.txt" || fail "cargo package of bcast-sys lacks $f"
  done
  if grep -Eq '^bcast/(tests|tools|bench|docs)/' "$work/list.txt"; then fail "bcast-sys packages more than the library"; fi
  (cd "$src/bindings/rust" &&
   cargo package --no-verify --allow-dirty -p bcast-sys -p bcast --target-dir "$work/pkg-target") \
    >"$work/package.log" 2>&1 || { cat "$work/package.log" >&2; fail "cargo package"; }
  mkdir -p "$work/crates"
  for c in "$work"/pkg-target/package/*.crate; do tar -xzf "$c" -C "$work/crates"; done
  ver=$(sed -n 's/^version = "\(.*\)"/\1/p' "$src/bindings/rust/Cargo.toml" | head -1)
  grep -q '^\[dependencies.bcast-sys\]' "$work/crates/bcast-$ver/Cargo.toml" ||
    fail "packaged bcast does not depend on bcast-sys by version"
  p=$work/hello-vendored
  mkdir -p "$p/src"
  cat >"$p/Cargo.toml" <<EOF
[package]
name = "hello-vendored"
version = "0.1.0"
edition = "2021"

[dependencies]
bcast = { path = "$work/crates/bcast-$ver", features = ["vendored"] }

# The packaged bcast depends on bcast-sys $ver from crates.io: take the
# packaged one instead.
[patch.crates-io]
bcast-sys = { path = "$work/crates/bcast-sys-$ver" }

[workspace]
EOF
  echo "$main_rs" >"$p/src/main.rs"
  cp "$src/bindings/rust/Cargo.lock" "$p/Cargo.lock"
  cd "$p"
  # No installed bcast may be used: pkg-config finds nothing.
  mkdir -p "$work/empty"
  start=$(date +%s)
  PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=$work/empty cargo build --release -vv >"$work/build.log" 2>&1 ||
    { tail -50 "$work/build.log" >&2; fail "cargo build --features vendored"; }
  echo "vendored cargo build: $(( $(date +%s) - start )) s"
  grep -F 'warning: bcast-sys' "$work/build.log" | sed 's/^/  /' || true
  exe=$CARGO_TARGET_DIR/release/hello-vendored
  only_needs "$exe" "$libc_only|libgcc_s\.so\.1"
  check_output "$(env -u LD_LIBRARY_PATH "$exe")" "$rust_expected" "cargo, vendored ($(size "$exe") bytes)"
  ;;

go)
  if [ -n "${GO:-}" ]; then go=$GO
  elif command -v go >/dev/null; then go=$(command -v go)
  elif [ -x /usr/local/go/bin/go ]; then go=/usr/local/go/bin/go
  else skip_or_fail go BCAST_REQUIRE_GO; fi
  export CGO_ENABLED=1 GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=off
  if [ -z "${HOME:-}" ] && [ -z "${GOCACHE:-}" ]; then
    export GOCACHE="$build/go-cache" GOPATH="$build/go-path"
  fi
  p=$work/hello-go
  mkdir -p "$p"
  cat >"$p/go.mod" <<EOF
module example.com/hello

go 1.21

require github.com/bcast-lib/bcast/bindings/go v0.0.0

replace github.com/bcast-lib/bcast/bindings/go => $src/bindings/go
EOF
  cat >"$p/main.go" <<'EOF'
package main

import (
	"fmt"
	"log"

	bcast "github.com/bcast-lib/bcast/bindings/go"
)

func main() {
	x, err := bcast.FromFloat32s([]float32{1, 2, 3}, 3, 1)
	if err != nil {
		log.Fatal(err)
	}
	y, _ := bcast.FromFloat32s([]float32{10, 20}, 2)
	z, err := bcast.Add(x, y)
	if err != nil {
		log.Fatal(err)
	}
	v, _ := z.Float32s()
	fmt.Println("bcast", bcast.VersionString(), z.Shape(), v)
}
EOF
  cd "$p"
  expected='[3 2] [11 21 12 22 13 23]'
  # Only the prefix is visible to pkg-config (no libhwy.pc, as for a user
  # without libhwy-dev).
  mkdir -p "$work/empty"
  export PKG_CONFIG_PATH=$pcdir PKG_CONFIG_LIBDIR=$work/empty
  "$go" build -o hello .
  needed hello | grep -qx "libbcast\.so\.$soversion" || fail "go build does not need libbcast.so.$soversion"
  check_output "$(LD_LIBRARY_PATH=$libdir ./hello)" "$expected" "go build, LD_LIBRARY_PATH=$libdir"

  "$go" build -tags bcast_static -o hello-static .
  only_needs hello-static "$libc_only"
  check_output "$(env -u LD_LIBRARY_PATH ./hello-static)" "$expected" \
    "go build -tags bcast_static ($(size hello-static) bytes)"
  ;;
*)
  fail "unknown project kind '$what' (rust, vendored or go)"
  ;;
esac
echo "fresh $what project: ok"
