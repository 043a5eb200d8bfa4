#!/usr/bin/env bash
# The README's code, taken from README.md as written and built as a newcomer
# would, against the build installed into a scratch prefix:
#   readme_snippets.sh recipe <source dir> <build dir> <work dir>
#     the Install section's Debian 12 configure line, into a scratch build
#     directory: it must configure only the libraries and the `bcast` tool
#     (no tests, examples, benchmarks or docs, nothing said about libtorch);
#   readme_snippets.sh c      <source dir> <build dir> <work dir>
#     the C example, the block of `cc` lines under "Using it from C" run as
#     a script (each program must print the example's result; the -rpath one
#     with nothing on the loader path), and the CMake project;
#   readme_snippets.sh rust   <source dir> <build dir> <work dir>
#     a cargo project of the README's [dependencies] and main.rs;
#   readme_snippets.sh go     <source dir> <build dir> <work dir>
#     a Go module of the README's go.mod and main.go; without bcast for
#     pkg-config, the message go build prints is quoted in
#     bindings/go/README.md with its fix.
# Only "/path/to/bcast" is replaced (by the source directory). A program's
# expected output is the README's own: the comment on its print line.
# Exit 77 (ctest: skipped) when cargo or go is missing and
# BCAST_REQUIRE_<TOOL> is not 1.
set -euo pipefail
what=$1
src=$(cd "$2" && pwd)
build=$(cd "$3" && pwd)
work=$4
readme=$src/README.md

fail() { echo "FAIL: $*" >&2; exit 1; }
skip_or_fail() {  # tool, require-variable
  if [ "${!2:-0}" = 1 ]; then fail "$1 not found"; fi
  echo "$1 not found: SKIPPED ($2=1 makes this an error)"; exit 77
}

# The one fenced block of README.md whose info string is $1 (with $1 = "after:
# <text>", the block right after the line holding <text>).
block() {
  python3 - "$readme" "$1" <<'EOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read().splitlines()
want = sys.argv[2]
blocks, i = [], 0
while i < len(text):
    m = re.match(r"^```(\S*)\s*$", text[i])
    if m:
        j = text.index("```", i + 1)
        prev = next((t for t in reversed(text[:i]) if t.strip()), "")
        blocks.append((m.group(1), prev, "\n".join(text[i + 1:j]) + "\n"))
        i = j + 1
    else:
        i += 1
if want.startswith("after:"):
    found = [b for lang, prev, b in blocks if want[6:].strip() in prev]
else:
    found = [b for lang, prev, b in blocks if lang == want]
if len(found) != 1:
    sys.exit(f"README.md has {len(found)} blocks '{want}', expected exactly 1")
sys.stdout.write(found[0])
EOF
}
# The text after "// " on the line of $1 holding $2: what the README says
# the program prints.
expected_output() { grep -F -- "$2" <<<"$1" | sed -n 's|.*// *||p' | head -1; }
check_output() {  # output, expected substring, what
  [ -n "$2" ] || fail "$3: no expected output found in README.md"
  grep -qF -- "$2" <<<"$1" || fail "$3: printed '$1', README.md says '$2'"
  echo "$3: $1"
}

rm -rf "$work"
mkdir -p "$work/empty"
prefix=$work/prefix
install_prefix() {
  cmake --install "$build" --prefix "$prefix" >"$work/install.log"
  pcdir=$(dirname "$(find "$prefix" -name bcast.pc | head -1)")
  libdir=$(dirname "$(find "$prefix" -name 'libbcast.so' | head -1)")
  # Only the prefix is visible to pkg-config, as for a user without libhwy-dev.
  export PKG_CONFIG_PATH=$pcdir PKG_CONFIG_LIBDIR=$work/empty
}

case $what in
recipe)
  # The `cmake -S` line and its backslash-continued lines.
  cmd=$(block "after:**Debian 12**" | awk '/^cmake -S/ { on = 1 } on { print } on && !/\\$/ { exit }')
  [ -n "$cmd" ] || fail "no 'cmake -S' line in the Debian 12 block"
  echo "README: $cmd"
  # As written, but into a scratch directory instead of the source's build/.
  cmd=${cmd//-B build/-B $work/recipe-build}
  (cd "$src" && eval "$cmd") >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log" >&2; fail "the README's configure line failed"; }
  if grep -Ei 'libtorch|aten|gtest|googletest|benchmark' "$work/configure.log"; then
    fail "configuring the install recipe speaks of test or benchmark dependencies (above)"
  fi
  targets=$(cmake --build "$work/recipe-build" --target help)
  for t in bcast_shared bcast_static bcast_cli; do
    grep -qw "$t" <<<"$targets" || fail "the install recipe does not build $t"
  done
  # Target names only (the help also lists outputs by their paths, which
  # may contain anything).
  extra=$(sed -n 's/^\([^/: ]*\): .*/\1/p' <<<"$targets" |
          grep -Eo '^(test_|bench_|bcast_bench|example_|packaging_|docs)[A-Za-z0-9_]*' | sort -u || true)
  [ -z "$extra" ] || fail "the install recipe builds more than the library and the tool: $(echo $extra)"
  echo "install recipe: configures only the libraries and the bcast tool"
  ;;

c)
  install_prefix
  p=$work/c
  mkdir -p "$p"
  block c >"$p/broadcast_add.c"
  want=$(sed -n 's/.*has shape \(\[.*\]\).*/\1/p' "$p/broadcast_add.c")
  cd "$p"
  script=$(block "after:tests/packaging/readme_snippets.sh builds and runs this block")
  echo "$script" >build.sh
  bash -euo pipefail build.sh || fail "the README's cc lines failed"
  for exe in $(sed -n 's/.*-o \([^ ]*\).*/\1/p' build.sh); do
    [ -x "$exe" ] || fail "the README's cc lines made no $exe"
    case $exe in
      *rpath*|*static*) out=$(env -u LD_LIBRARY_PATH "./$exe") ;;
      *) out=$(LD_LIBRARY_PATH=$libdir "./$exe") ;;
    esac
    check_output "$out" "$want" "cc ... -o $exe"
  done
  grep -q -- '-Wl,-rpath' build.sh || fail "the README's cc lines lack the -Wl,-rpath one"

  # The CMake project, with the prefix on CMAKE_PREFIX_PATH.
  mkdir -p "$work/cmake"
  cp broadcast_add.c "$work/cmake/"
  block cmake >"$work/cmake/CMakeLists.txt"
  cmake -S "$work/cmake" -B "$work/cmake/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/cmake.log" 2>&1 &&
    cmake --build "$work/cmake/build" >>"$work/cmake.log" 2>&1 ||
    { cat "$work/cmake.log" >&2; fail "the README's CMake project"; }
  check_output "$(LD_LIBRARY_PATH=$libdir "$work/cmake/build/app")" "$want" "CMake project"
  ;;

rust)
  command -v cargo >/dev/null || skip_or_fail cargo BCAST_REQUIRE_RUST
  install_prefix
  export CARGO_TERM_COLOR=never CARGO_TARGET_DIR=$build/tests/packaging/readme-rust-target
  if [ -z "${CARGO_NET_OFFLINE:-}" ] && ! (cd "$src/bindings/rust" && cargo fetch --locked --quiet) 2>/dev/null; then
    export CARGO_NET_OFFLINE=true
  fi
  p=$work/rust
  mkdir -p "$p/src"
  deps=$(block toml)
  cat >"$p/Cargo.toml" <<EOF
[package]
name = "hello-readme"
version = "0.1.0"
edition = "2021"

${deps//\/path\/to\/bcast/$src}
[workspace]
EOF
  block rust >"$p/src/main.rs"
  cp "$src/bindings/rust/Cargo.lock" "$p/Cargo.lock"
  cd "$p"
  cargo build --release >"$work/cargo.log" 2>&1 || { tail -40 "$work/cargo.log" >&2; fail "cargo build"; }
  want=$(expected_output "$(cat src/main.rs)" "println!")
  check_output "$(LD_LIBRARY_PATH=$libdir "$CARGO_TARGET_DIR/release/hello-readme")" "$want" "cargo run"
  ;;

go)
  if [ -n "${GO:-}" ]; then go=$GO
  elif command -v go >/dev/null; then go=$(command -v go)
  elif [ -x /usr/local/go/bin/go ]; then go=/usr/local/go/bin/go
  else skip_or_fail go BCAST_REQUIRE_GO; fi
  install_prefix
  # No GOFLAGS=-mod=mod: go.mod must be complete as written.
  export CGO_ENABLED=1 GOTOOLCHAIN=local GOPROXY=off GOFLAGS=
  if [ -z "${HOME:-}" ] && [ -z "${GOCACHE:-}" ]; then
    export GOCACHE="$build/go-cache" GOPATH="$build/go-path"
  fi
  p=$work/go
  mkdir -p "$p"
  mod=$(block go.mod)
  echo "${mod//\/path\/to\/bcast/$src}" >"$p/go.mod"
  block go >"$p/main.go"
  cd "$p"
  "$go" build -o hello . 2>"$work/go.log" || { cat "$work/go.log" >&2; fail "go build with the README's go.mod"; }
  want=$(expected_output "$(cat main.go)" "fmt.Println")
  check_output "$(LD_LIBRARY_PATH=$libdir ./hello)" "$want" "go build"

  # Without bcast for pkg-config, cgo prints pkg-config's message, which
  # bindings/go/README.md must quote (a user searching for it finds the fix).
  # (CGO_CFLAGS of its own: the go tool would take the package from its
  # cache without running pkg-config again.)
  if PKG_CONFIG_PATH= CGO_CFLAGS="-O2 -g -DBCAST_NO_PKG_CONFIG_CHECK" \
     "$go" build -o hello-nobcast . >"$work/nobcast.log" 2>&1; then
    fail "go build succeeded without bcast for pkg-config"
  fi
  line=$(grep -m1 '^Package bcast was not found' "$work/nobcast.log") ||
    { cat "$work/nobcast.log" >&2; fail "go build without bcast: no pkg-config message"; }
  grep -qxF "$line" "$src/bindings/go/README.md" ||
    fail "bindings/go/README.md does not quote pkg-config's '$line'"
  grep -qF "PKG_CONFIG_PATH=<prefix>/lib/pkgconfig" "$src/bindings/go/README.md" ||
    fail "bindings/go/README.md does not say how to set PKG_CONFIG_PATH"
  echo "go build without bcast: pkg-config's message, which bindings/go/README.md explains"
  ;;

*)
  fail "unknown snippet kind '$what' (recipe, c, rust or go)"
  ;;
esac
echo "README $what snippets: ok"
