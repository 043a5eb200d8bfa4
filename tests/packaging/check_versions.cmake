# One version number for the C library, the Rust crates and the Go module's
# tags: the crates' version, and the version bcast asks of bcast-sys, must be
# CMake's project version.
#   cmake -DSOURCE_DIR=<repo> -DVERSION=<project version> -P check_versions.cmake
cmake_minimum_required(VERSION 3.16)
file(READ ${SOURCE_DIR}/bindings/rust/Cargo.toml workspace)
if(NOT workspace MATCHES "\nversion = \"([^\"]+)\"")
  message(FATAL_ERROR "no version in bindings/rust/Cargo.toml")
endif()
set(crates ${CMAKE_MATCH_1})
file(READ ${SOURCE_DIR}/bindings/rust/bcast/Cargo.toml bcast)
if(NOT bcast MATCHES "bcast-sys = {[^}]*version = \"=?([^\"]+)\"")
  message(FATAL_ERROR "bindings/rust/bcast/Cargo.toml: bcast-sys has no version requirement")
endif()
set(sys_req ${CMAKE_MATCH_1})
file(READ ${SOURCE_DIR}/bindings/go/go.mod gomod)
if(NOT gomod MATCHES "^module github.com/bcast-lib/bcast/bindings/go\n")
  message(FATAL_ERROR "bindings/go/go.mod: the module path must be github.com/bcast-lib/bcast/bindings/go (its directory)")
endif()
if(NOT crates STREQUAL VERSION OR NOT sys_req STREQUAL VERSION)
  message(FATAL_ERROR "versions differ: CMake ${VERSION}, crates ${crates}, bcast's bcast-sys requirement ${sys_req}")
endif()
message(STATUS "CMake, crates and bcast-sys requirement: ${VERSION}")
