//! Finds libbcast and tells cargo how to link it.
//!
//! In order:
//! 1. `BCAST_BUILD_DIR`: a CMake build directory of bcast (the repository's
//!    own tests use it); an explicit request that wins over everything else.
//! 2. Feature `vendored`: builds bcast from the C++ sources shipped inside this
//!    crate (`bcast/`) with CMake and links `libbcast.a` (Highway inside).
//! 3. An installed bcast, found with pkg-config (`bcast.pc`). When it is not
//!    found the build stops and says what to install or set: it never falls
//!    back to building the sources on its own.
//!
//! Feature `static` (or `BCAST_STATIC=1`) links `libbcast.a` instead of
//! `libbcast.so` in 1 and 3. With GCC on Linux, a static link also takes
//! libstdc++ and libgomp from their archives, so that the program needs no
//! C++ or OpenMP runtime installed.
//!
//! Besides the link lines, this exports `DEP_BCAST_INCLUDE` (for dependents'
//! build scripts) and `BCAST_SYS_INCLUDE_DIRS` (a `;`-separated list, for this
//! crate's header test).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    for var in [
        "BCAST_BUILD_DIR",
        "BCAST_STATIC",
        "PKG_CONFIG_PATH",
        "PKG_CONFIG_LIBDIR",
        "CXX",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    // docs.rs builds documentation only, on a machine without bcast.
    if env::var_os("DOCS_RS").is_some() {
        println!("cargo:rustc-env=BCAST_SYS_INCLUDE_DIRS=");
        println!("cargo:rustc-env=BCAST_SYS_STATIC=0");
        return;
    }
    let vendored = cfg!(feature = "vendored");
    let static_link = vendored
        || env::var_os("CARGO_FEATURE_STATIC").is_some()
        || env::var("BCAST_STATIC").map(|v| v == "1").unwrap_or(false);

    let include_dirs = if let Some(dir) = env::var_os("BCAST_BUILD_DIR") {
        from_build_dir(&absolute(Path::new(&dir)), static_link)
    } else if vendored {
        from_vendored_sources()
    } else {
        from_pkg_config(static_link)
    };

    let joined: Vec<String> = include_dirs
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    println!("cargo:include={}", joined.join(";"));
    println!(
        "cargo:rustc-env=BCAST_SYS_INCLUDE_DIRS={}",
        joined.join(";")
    );
    println!("cargo:rustc-env=BCAST_SYS_STATIC={}", u8::from(static_link));
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        env::current_dir().expect("current dir").join(p)
    }
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
    let lib = if static_link {
        "libbcast.a"
    } else {
        "libbcast.so"
    };
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
    let src = cmake_source_dir(build)
        .expect("BCAST_BUILD_DIR has no CMakeCache.txt naming bcast's sources");
    vec![src.join("include"), build.join("include")]
}

fn from_pkg_config(static_link: bool) -> Vec<PathBuf> {
    // The link lines are ours to write (the archive by name, the runtimes as
    // this file decides), so pkg-config only reports paths here.
    let lib = match pkg_config::Config::new()
        .cargo_metadata(false)
        .statik(static_link)
        .probe("bcast")
    {
        Ok(lib) => lib,
        Err(e) => {
            // A message, not a panic: its backtrace would only bury the advice.
            eprintln!(
                "\n\nbcast-sys: the bcast C library was not found with pkg-config.\n\
                 \n  {e}\n\n\
                 Do one of these:\n\
                 - install bcast (from its repository: cmake -S . -B build && cmake --build build && \
                 sudo cmake --install build);\n\
                 - if it is installed under a custom prefix, point pkg-config at it:\n\
                 \x20   export PKG_CONFIG_PATH=<prefix>/lib/pkgconfig   (and LD_LIBRARY_PATH=<prefix>/lib \
                 to run the program, or link statically with the `static` feature);\n\
                 - or enable this crate's `vendored` feature (bcast = {{ features = [\"vendored\"] }}) to \
                 build bcast from the sources shipped in the crate and link it statically (needs CMake, \
                 a C++17 compiler with OpenMP, and Highway's headers: apt-get install libhwy-dev, or \
                 brew install highway).\n"
            );
            std::process::exit(1);
        }
    };
    for path in &lib.link_paths {
        println!("cargo:rustc-link-search=native={}", path.display());
        // Re-link when the installed archive changes.
        if static_link && path.join("libbcast.a").exists() {
            println!(
                "cargo:rerun-if-changed={}",
                path.join("libbcast.a").display()
            );
        }
    }
    emit_libs(static_link);
    lib.include_paths
}

#[cfg(feature = "vendored")]
/// Builds the C++ sources under `bcast/` (symbolic links to the repository's
/// CMakeLists.txt, cmake/, include/ and src/; real files in a packaged crate).
fn from_vendored_sources() -> Vec<PathBuf> {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let root = manifest.join("bcast");
    for sub in ["CMakeLists.txt", "cmake", "include", "src"] {
        println!("cargo:rerun-if-changed={}", root.join(sub).display());
    }
    let jobs = env::var("NUM_JOBS").unwrap_or_else(|_| "1".into());
    println!(
        "cargo:warning=bcast-sys: building the bcast C++ library from vendored sources \
         (CMake, {jobs} parallel jobs); this takes a few minutes"
    );
    let started = std::time::Instant::now();
    let mut config = cmake::Config::new(&root);
    config
        .define("BCAST_BUILD_SHARED", "OFF")
        .define("BCAST_BUILD_STATIC", "ON")
        .define("BCAST_BUILD_TESTS", "OFF")
        .define("BCAST_BUILD_TOOLS", "OFF")
        .define("BCAST_BUILD_BENCH", "OFF")
        .define("BCAST_BUILD_DOCS", "OFF")
        .define("BCAST_BUILD_EXAMPLES", "OFF")
        .define("CMAKE_INSTALL_LIBDIR", "lib")
        .profile("Release");
    if env::var_os("CMAKE_GENERATOR").is_none()
        && Command::new("ninja").arg("--version").output().is_ok()
    {
        config.generator("Ninja");
    }
    let dst = config.build();
    println!(
        "cargo:warning=bcast-sys: vendored bcast built in {:.0} s ({})",
        started.elapsed().as_secs_f64(),
        dst.join("lib/libbcast.a").display()
    );
    println!(
        "cargo:rustc-link-search=native={}",
        dst.join("lib").display()
    );
    emit_libs(true);
    vec![dst.join("include")]
}

#[cfg(not(feature = "vendored"))]
fn from_vendored_sources() -> Vec<PathBuf> {
    unreachable!("only with the vendored feature")
}

fn emit_libs(static_link: bool) {
    if !static_link {
        println!("cargo:rustc-link-lib=dylib=bcast");
        return;
    }
    // libbcast.a carries Highway; what it leaves unresolved is the C++ and
    // OpenMP runtimes (as bcast-static.pc says).
    println!("cargo:rustc-link-lib=static=bcast");
    let gnu_linux = env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    match gcc_runtime_dir().filter(|_| gnu_linux) {
        Some(dir) => {
            // From their archives, not bundled into this rlib: the final link
            // takes them once.
            println!("cargo:rustc-link-search=native={}", dir.display());
            println!("cargo:rustc-link-lib=static:-bundle=stdc++");
            println!("cargo:rustc-link-lib=static:-bundle=gomp");
        }
        None => {
            println!("cargo:rustc-link-lib=dylib=stdc++");
            println!("cargo:rustc-link-lib=dylib=gomp");
        }
    }
    println!("cargo:rustc-link-lib=dylib=m");
    println!("cargo:rustc-link-lib=dylib=pthread");
}

/// The directory of GCC's libstdc++.a and libgomp.a, when both are there.
fn gcc_runtime_dir() -> Option<PathBuf> {
    let cxx = env::var("CXX").unwrap_or_else(|_| "c++".into());
    let out = Command::new(cxx)
        .arg("-print-file-name=libstdc++.a")
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    let dir = path.parent()?.to_path_buf();
    (path.is_absolute() && path.exists() && dir.join("libgomp.a").exists()).then_some(dir)
}
