//! Finds libbcast and tells cargo how to link it.
//!
//! Order: `BCAST_BUILD_DIR` (a CMake build directory, an explicit request that
//! wins over whatever is installed), then an installed bcast found by
//! pkg-config, then the in-tree sources built with CMake into OUT_DIR.
//! Static linking: feature `static` or `BCAST_STATIC=1`.
//!
//! Besides the link lines, this exports `DEP_BCAST_INCLUDE` (for dependents'
//! build scripts) and `BCAST_SYS_INCLUDE_DIRS` (a `;`-separated list, for this
//! crate's header test).

use std::env;
use std::path::{Path, PathBuf};

fn main() {
    for var in ["BCAST_BUILD_DIR", "BCAST_STATIC", "BCAST_NO_PKG_CONFIG", "PKG_CONFIG_PATH"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let static_link = env::var_os("CARGO_FEATURE_STATIC").is_some()
        || env::var("BCAST_STATIC").map(|v| v == "1").unwrap_or(false);

    let include_dirs = if let Some(dir) = env::var_os("BCAST_BUILD_DIR") {
        from_build_dir(&absolute(Path::new(&dir)), static_link)
    } else if let Some(dirs) = from_pkg_config(static_link) {
        dirs
    } else {
        from_cmake(static_link)
    };

    let joined: Vec<String> = include_dirs.iter().map(|p| p.display().to_string()).collect();
    println!("cargo:include={}", joined.join(";"));
    println!("cargo:rustc-env=BCAST_SYS_INCLUDE_DIRS={}", joined.join(";"));
    println!("cargo:rustc-env=BCAST_SYS_STATIC={}", u8::from(static_link));
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        env::current_dir().expect("current dir").join(p)
    }
}

/// The repository root this crate lives in (`bindings/rust/bcast-sys/../../..`).
fn repo_root() -> PathBuf {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    manifest.join("../../..")
}

/// The source directory a CMake build directory was configured from, read from
/// its cache so that a build of another checkout gets that checkout's header.
fn cmake_source_dir(build: &Path) -> Option<PathBuf> {
    let cache = std::fs::read_to_string(build.join("CMakeCache.txt")).ok()?;
    cache
        .lines()
        .find_map(|l| l.strip_prefix("bcast_SOURCE_DIR:STATIC="))
        .map(PathBuf::from)
}

fn from_build_dir(build: &Path, static_link: bool) -> Vec<PathBuf> {
    let lib = if static_link { "libbcast.a" } else { "libbcast.so" };
    if !build.join(lib).exists() {
        panic!(
            "BCAST_BUILD_DIR={} holds no {lib}; build bcast there first \
             (cmake -S . -B <dir> && cmake --build <dir>)",
            build.display()
        );
    }
    // Re-link whenever the library is rebuilt.
    println!("cargo:rerun-if-changed={}", build.join(lib).display());
    println!("cargo:rustc-link-search=native={}", build.display());
    emit_libs(static_link);
    let src = cmake_source_dir(build).unwrap_or_else(repo_root);
    vec![src.join("include"), build.join("include")]
}

fn from_pkg_config(static_link: bool) -> Option<Vec<PathBuf>> {
    if env::var_os("BCAST_NO_PKG_CONFIG").is_some() {
        return None;
    }
    // The link lines are ours to write (static bcast, shared system libraries),
    // so pkg-config only reports paths here.
    let lib = pkg_config::Config::new()
        .cargo_metadata(false)
        .statik(static_link)
        .probe("bcast")
        .ok()?;
    for path in &lib.link_paths {
        println!("cargo:rustc-link-search=native={}", path.display());
    }
    emit_libs(static_link);
    Some(lib.include_paths)
}

fn from_cmake(static_link: bool) -> Vec<PathBuf> {
    let root = repo_root();
    for sub in ["CMakeLists.txt", "include", "src", "cmake"] {
        println!("cargo:rerun-if-changed={}", root.join(sub).display());
    }
    let dst = cmake::Config::new(&root)
        .define("BCAST_BUILD_TESTS", "OFF")
        .define("BCAST_BUILD_TOOLS", "OFF")
        .define("BCAST_BUILD_BENCH", "OFF")
        .define("BCAST_BUILD_DOCS", "OFF")
        .define("BCAST_BUILD_EXAMPLES", "OFF")
        .define("CMAKE_INSTALL_LIBDIR", "lib")
        .profile("Release")
        .build();
    // A search path inside OUT_DIR is also put on the dynamic-library path by
    // `cargo run` and `cargo test`, so the shared library is found there.
    println!("cargo:rustc-link-search=native={}", dst.join("lib").display());
    emit_libs(static_link);
    vec![dst.join("include")]
}

fn emit_libs(static_link: bool) {
    if static_link {
        println!("cargo:rustc-link-lib=static=bcast");
        // What libbcast.a leaves unresolved (bcast.pc's Requires/Libs.private).
        for lib in ["hwy", "gomp", "stdc++", "m"] {
            println!("cargo:rustc-link-lib=dylib={lib}");
        }
    } else {
        println!("cargo:rustc-link-lib=dylib=bcast");
    }
}
