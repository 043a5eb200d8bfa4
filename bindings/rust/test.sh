#!/usr/bin/env bash
# Tests the Rust binding against a CMake build of bcast. scripts/test.sh runs
#   BCAST_BUILD_DIR=<abs build dir> bash bindings/rust/test.sh
# after the C build: cargo test (with the ndarray feature), the examples,
# rustfmt and clippy if they are installed, cargo doc without warnings (with
# and without ndarray), then the tests again linked statically (libbcast.a).
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v cargo >/dev/null 2>&1; then
  if [ "${BCAST_REQUIRE_RUST:-0}" = 1 ]; then
    echo "bindings/rust: cargo not found" >&2
    exit 1
  fi
  echo "bindings/rust: cargo not found; Rust tests SKIPPED (BCAST_REQUIRE_RUST=1 makes this an error)" >&2
  exit 0
fi

: "${BCAST_BUILD_DIR:?set BCAST_BUILD_DIR to the CMake build directory holding libbcast}"
BCAST_BUILD_DIR=$(cd "$BCAST_BUILD_DIR" && pwd)
export BCAST_BUILD_DIR
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
shared_path="$BCAST_BUILD_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# Crates come from crates.io at the versions in Cargo.lock; without a network,
# fall back to what the local cargo cache already holds.
if ! cargo fetch --locked --quiet 2>/dev/null; then
  echo "bindings/rust: crates.io unreachable; building offline from the cargo cache" >&2
  export CARGO_NET_OFFLINE=true
fi

echo "== bindings/rust: cargo test (shared libbcast from $BCAST_BUILD_DIR)"
LD_LIBRARY_PATH=$shared_path cargo test --locked --workspace --features bcast/ndarray

# cargo test only builds the examples; each checks its own results when run.
echo "== bindings/rust: examples"
for example in bcast/examples/*.rs; do
  LD_LIBRARY_PATH=$shared_path cargo run --locked --quiet -p bcast --features ndarray \
    --example "$(basename "$example" .rs)"
done

# rustfmt's default layout everywhere, the generated blocks included
# (tools/gen_ops.py writes them as rustfmt would).
if cargo fmt --version >/dev/null 2>&1; then
  echo "== bindings/rust: cargo fmt --check"
  cargo fmt --all --check
else
  echo "bindings/rust: rustfmt not installed; format check SKIPPED (rustup component add rustfmt)" >&2
fi

if cargo clippy --version >/dev/null 2>&1; then
  echo "== bindings/rust: cargo clippy"
  cargo clippy --locked --workspace --all-targets --features bcast/ndarray -- -D warnings
else
  echo "bindings/rust: clippy not installed; lint SKIPPED (rustup component add clippy)" >&2
fi

# The API docs build without a warning (a broken intra-doc link, say), with
# the default features and with docs.rs's (package.metadata.docs.rs).
echo "== bindings/rust: cargo doc"
RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps -p bcast -p bcast-sys
RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps -p bcast --features ndarray

# Static linking gets its own target dir so that neither build invalidates the
# other. The build dir stays off the library path; a test checks that
# libbcast.so is not mapped.
echo "== bindings/rust: cargo test, static libbcast.a"
BCAST_STATIC=1 cargo test --locked --workspace --tests --target-dir target/static
