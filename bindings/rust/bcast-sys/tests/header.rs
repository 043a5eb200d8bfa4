//! Checks the hand-written declarations against `include/bcast/bcast.h`:
//! every `BC_API` function with its exact parameter and return types, every
//! enum value and `#define`, and the sizes and layout the C compiler gives the
//! enums, the structs (`bc_error_detail`, `bc_iter_spec`, ...) and the
//! callback types.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use bcast_sys::*;

const RUST_SOURCE: &str = include_str!("../src/lib.rs");

fn include_dirs() -> Vec<PathBuf> {
    env!("BCAST_SYS_INCLUDE_DIRS")
        .split(';')
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .collect()
}

fn header_text() -> String {
    header_text_of("bcast/bcast.h")
}

fn header_text_of(name: &str) -> String {
    for dir in include_dirs() {
        let p = dir.join(name);
        if let Ok(s) = std::fs::read_to_string(&p) {
            return s;
        }
    }
    panic!("{name} not found in {:?}", include_dirs());
}

fn strip_c_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("/*") {
            let end = r.find("*/").expect("unterminated comment");
            rest = &r[end + 2..];
            out.push(' ');
        } else if let Some(r) = rest.strip_prefix("//") {
            rest = r.find('\n').map_or("", |e| &r[e..]);
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// A C type as tokens (identifiers and `*`) joined by one space, e.g.
/// `const int64_t * const *`.
fn c_tokens(s: &str) -> String {
    let spaced = s.replace('*', " * ");
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[derive(Debug, PartialEq, Eq)]
struct Signature {
    ret: String,
    params: Vec<(String, String)>, // (type, name)
}

/// `BC_API <ret> <name>(<params>);` declarations of the header, by name, in order.
fn header_functions() -> Vec<(String, Signature)> {
    functions_of(&header_text())
}

fn functions_of(header: &str) -> Vec<(String, Signature)> {
    let text = strip_c_comments(header);
    let mut out = Vec::new();
    for piece in text.split("BC_API").skip(1) {
        let decl = &piece[..piece.find(';').expect("declaration without ';'")];
        let open = decl.find('(').unwrap();
        let close = decl.rfind(')').unwrap();
        let head = c_tokens(&decl[..open]);
        let (ret, name) = head.rsplit_once(' ').unwrap();
        let args = decl[open + 1..close].trim();
        let params = if args == "void" || args.is_empty() {
            Vec::new()
        } else {
            args.split(',')
                .map(|p| {
                    let t = c_tokens(p);
                    let (ty, name) = t.rsplit_once(' ').unwrap();
                    (ty.to_string(), name.to_string())
                })
                .collect()
        };
        out.push((
            name.to_string(),
            Signature {
                ret: ret.to_string(),
                params,
            },
        ));
    }
    out
}

/// Rust type (as written in src/lib.rs) to the C spelling `c_tokens` gives.
fn rust_to_c(ty: &str) -> String {
    let ty = ty.trim();
    if let Some(inner) = ty.strip_prefix("*const ") {
        let c = rust_to_c(inner);
        return if c.ends_with('*') {
            format!("{c} const *")
        } else {
            format!("const {c} *")
        };
    }
    if let Some(inner) = ty.strip_prefix("*mut ") {
        return format!("{} *", rust_to_c(inner));
    }
    match ty {
        "i64" => "int64_t",
        "i32" => "int32_t",
        "usize" => "size_t",
        "f64" => "double",
        "c_int" => "int",
        "c_char" => "char",
        "c_void" => "void",
        other => other, // bc_* typedefs keep their names
    }
    .to_string()
}

/// `pub fn` declarations of the `functions!` block of src/lib.rs whose names
/// are `names`.
fn rust_functions_named(names: &str) -> Vec<(String, Signature)> {
    let start = RUST_SOURCE
        .find(&format!("names: {names},"))
        .expect("functions! block");
    let len = RUST_SOURCE[start..].find("\n}\n").expect("end of block");
    let block = &RUST_SOURCE[start..start + len];
    let mut out = Vec::new();
    for line in block.lines().map(str::trim) {
        let Some(decl) = line.strip_prefix("pub fn ") else {
            continue;
        };
        let open = decl.find('(').unwrap();
        let close = decl.rfind(')').unwrap();
        let name = decl[..open].trim().to_string();
        let params = decl[open + 1..close]
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| {
                let (n, t) = p.split_once(':').unwrap();
                // `self` and `fn` are Rust keywords: declared as `self_`, `fn_`.
                (rust_to_c(t), n.trim().trim_end_matches('_').to_string())
            })
            .collect();
        let tail = decl[close + 1..].trim().trim_end_matches(';').trim();
        let ret = match tail.strip_prefix("->") {
            Some(r) => rust_to_c(r),
            None => "void".to_string(),
        };
        out.push((name, Signature { ret, params }));
    }
    out
}

#[test]
fn every_header_function_is_declared_with_its_signature() {
    let header = header_functions();
    assert!(
        header.len() >= 60,
        "parsed only {} BC_API declarations",
        header.len()
    );
    assert_declared(&header, "FUNCTION_NAMES", FUNCTION_NAMES);
}

/// The `functions!` block whose names are `names` (its const, `declared`)
/// declares exactly `header`'s functions, in order, with their signatures.
fn assert_declared(header: &[(String, Signature)], names: &str, declared: &[&str]) {
    let rust = rust_functions_named(names);
    let header_names: Vec<&str> = header.iter().map(|(n, _)| n.as_str()).collect();
    let rust_names: Vec<&str> = rust.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        rust_names, header_names,
        "declared functions differ from the header's"
    );
    assert_eq!(declared, header_names.as_slice());
    for ((name, h), (_, r)) in header.iter().zip(&rust) {
        assert_eq!(r, h, "signature of {name}");
    }
}

#[test]
fn every_dlpack_function_is_declared_with_its_signature() {
    let header = functions_of(&header_text_of("bcast/dlpack.h"));
    assert_eq!(header.len(), 8, "BC_API declarations of dlpack.h");
    assert_declared(&header, "DLPACK_FUNCTION_NAMES", DLPACK_FUNCTION_NAMES);
    for (a, n) in dlpack_function_addresses()
        .iter()
        .zip(DLPACK_FUNCTION_NAMES)
    {
        assert!(!a.is_null(), "{n}");
    }
}

/// The header promises a `bc_ctx_x(bc_ctx* ctx, ...)` for every fallible
/// `bc_x(...)`; the declarations above follow the header, so this checks both.
#[test]
fn every_fallible_function_has_a_context_form() {
    let header = header_functions();
    let by_name: BTreeMap<&str, &Signature> = header.iter().map(|(n, s)| (n.as_str(), s)).collect();
    // Settings of the default context (bc_ctx_set_option covers them), the
    // process-wide SIMD cap, the thread's error (bc_ctx_last_error_detail
    // takes a const context), an iterator's calls after bc_ctx_iter_new
    // (they report on the context the iterator was made on), and building
    // an expression (its builders and parser record failures in the
    // thread's slot; only evaluation has settings to take from a context).
    let exempt = [
        "bc_last_error_detail",
        "bc_set_simd_cap",
        "bc_set_num_threads",
        "bc_set_broadcast_policy",
        "bc_iter_output",
        "bc_iter_run",
        "bc_iter_run_chunk",
        "bc_iter_reset",
        "bc_expr_new",
        "bc_expr_input",
        "bc_expr_number",
        "bc_expr_call",
        "bc_expr_parse",
    ];
    let mut pairs = 0;
    for (name, sig) in &header {
        if sig.ret != "bc_status" || name.starts_with("bc_ctx_") || exempt.contains(&name.as_str())
        {
            continue;
        }
        let ctx_name = format!("bc_ctx_{}", &name["bc_".len()..]);
        let ctx_sig = by_name
            .get(ctx_name.as_str())
            .unwrap_or_else(|| panic!("{name} has no {ctx_name}"));
        let mut params = vec![("bc_ctx *".to_string(), "ctx".to_string())];
        params.extend(sig.params.iter().cloned());
        assert_eq!(
            **ctx_sig,
            Signature {
                ret: sig.ret.clone(),
                params
            },
            "{ctx_name} against {name}"
        );
        assert!(
            FUNCTION_NAMES.contains(&ctx_name.as_str()),
            "{ctx_name} not declared"
        );
        pairs += 1;
    }
    assert_eq!(pairs, 65, "fallible functions with a context form");
}

#[test]
fn every_function_links() {
    let addrs = function_addresses();
    assert_eq!(addrs.len(), FUNCTION_NAMES.len());
    for (a, n) in addrs.iter().zip(FUNCTION_NAMES) {
        assert!(!a.is_null(), "{n}");
    }
}

/// `NAME = value` enumerators and `#define NAME value` integer macros of the header.
fn header_constants() -> BTreeMap<String, i64> {
    let text = strip_c_comments(&header_text());
    let mut out = BTreeMap::new();
    for line in text.lines().map(str::trim) {
        let (name, value) = if let Some(d) = line.strip_prefix("#define ") {
            match d.split_once(' ') {
                Some((n, v)) => (n.trim(), v.trim()),
                None => continue,
            }
        } else if let Some((n, v)) = line.split_once('=') {
            (n.trim(), v.trim().trim_end_matches(','))
        } else {
            continue;
        };
        // An unsigned literal (`1u`, the `given` bits) has the value of its digits.
        let value = value.trim_end_matches(['u', 'U']);
        if let (true, Ok(v)) = (name.starts_with("BC_"), value.parse::<i64>()) {
            out.insert(name.to_string(), v);
        }
    }
    out
}

fn rust_constants() -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for line in RUST_SOURCE.lines().map(str::trim) {
        let Some(decl) = line.strip_prefix("pub const BC_") else {
            continue;
        };
        let (name, rest) = decl.split_once(':').unwrap();
        let value = rest.split_once('=').unwrap().1.trim().trim_end_matches(';');
        out.insert(format!("BC_{name}"), value.parse().unwrap());
    }
    out
}

#[test]
fn every_constant_matches() {
    let header = header_constants();
    assert!(header.len() >= 50, "parsed only {} constants", header.len());
    let rust = rust_constants();
    let keys: std::collections::BTreeSet<&String> = rust.keys().chain(header.keys()).collect();
    let diff: Vec<String> = keys
        .into_iter()
        .filter(|k| rust.get(*k) != header.get(*k))
        .map(|k| format!("{k}: crate {:?}, header {:?}", rust.get(k), header.get(k)))
        .collect();
    assert!(diff.is_empty(), "constants differ:\n{}", diff.join("\n"));
    // The values the crate actually compiled with, not just its text.
    assert_eq!(BC_POLICY_ERROR, 2);
    assert_eq!(BC_SHIFT_RIGHT as usize + 1, BC_OP_COUNT);
    assert_eq!(BC_LOGICAL_NOT as usize + 1, BC_UNARY_OP_COUNT);
    assert_eq!(BC_LOGSUMEXP as usize + 1, BC_REDUCE_OP_COUNT);
    assert_eq!((BC_REDUCE_DTYPE, BC_REDUCE_CORRECTION), (1, 2));
    assert_eq!(BC_FLOAT64, 9);
    assert_eq!(BC_ERR_POLICY, 11);
    assert_eq!(
        (BC_ITER_MAX_OPERANDS, BC_ITER_SERIAL, BC_ITER_DIRECT_OUTPUT),
        (4, 1, 2)
    );
}

/// Compiles a C program against the header and returns what it prints, or
/// None (with a note) when no C compiler can be run here.
fn c_probe(body: &str) -> Option<String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bcast_sys_probe");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("probe.c");
    let exe = dir.join("probe");
    let program = format!(
        "#include <stddef.h>\n#include <stdio.h>\n#include \"bcast/bcast.h\"\nint main(void) {{\n{body}\nreturn 0;\n}}\n"
    );
    std::fs::write(&src, program).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let mut cmd = Command::new(&cc);
    cmd.arg("-std=c99").arg("-o").arg(&exe).arg(&src);
    for d in include_dirs() {
        cmd.arg("-I").arg(d);
    }
    let status = match cmd.status() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("note: no C compiler ({cc}: {e}); layout check skipped");
            return None;
        }
    };
    assert!(status.success(), "compiling the layout probe failed");
    let out = Command::new(&exe).output().unwrap();
    assert!(out.status.success());
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn layout_matches_the_c_compiler() {
    let Some(out) = c_probe(
        r#"
        printf("bc_status %zu %d\n", sizeof(bc_status), (bc_status)-1 > 0);
        printf("bc_dtype %zu %d\n", sizeof(bc_dtype), (bc_dtype)-1 > 0);
        printf("bc_op %zu %d\n", sizeof(bc_op), (bc_op)-1 > 0);
        printf("bc_policy %zu %d\n", sizeof(bc_policy), (bc_policy)-1 > 0);
        printf("bc_error_detail %zu %zu\n", sizeof(bc_error_detail), _Alignof(bc_error_detail));
        printf("code %zu\n", offsetof(bc_error_detail, code));
        printf("dim %zu\n", offsetof(bc_error_detail, dim));
        printf("size_a %zu\n", offsetof(bc_error_detail, size_a));
        printf("size_b %zu\n", offsetof(bc_error_detail, size_b));
        printf("bc_deleter %zu\n", sizeof(bc_deleter));
        printf("bc_warning_fn %zu\n", sizeof(bc_warning_fn));
        printf("bc_scalar_kind %zu %d\n", sizeof(bc_scalar_kind), (bc_scalar_kind)-1 > 0);
        printf("bc_scalar %zu %zu\n", sizeof(bc_scalar), _Alignof(bc_scalar));
        printf("v %zu %zu\n", offsetof(bc_scalar, v), sizeof(((bc_scalar*)0)->v));
        printf("bc_option %zu %d\n", sizeof(bc_option), (bc_option)-1 > 0);
        printf("bc_chunk_fn %zu\n", sizeof(bc_chunk_fn));
        printf("bc_scheduler %zu %zu\n", sizeof(bc_scheduler), _Alignof(bc_scheduler));
        printf("num_threads %zu\n", offsetof(bc_scheduler, num_threads));
        printf("run %zu\n", offsetof(bc_scheduler, run));
        printf("user %zu\n", offsetof(bc_scheduler, user));
        printf("bc_unary_op %zu %d\n", sizeof(bc_unary_op), (bc_unary_op)-1 > 0);
        printf("bc_unary_params %zu %zu\n", sizeof(bc_unary_params), _Alignof(bc_unary_params));
        printf("value %zu %zu\n", offsetof(bc_unary_params, value), sizeof(((bc_unary_params*)0)->value));
        printf("given %zu %zu\n", offsetof(bc_unary_params, given), sizeof(((bc_unary_params*)0)->given));
        printf("bc_reduce_op %zu %d\n", sizeof(bc_reduce_op), (bc_reduce_op)-1 > 0);
        printf("bc_reduce_params %zu %zu\n", sizeof(bc_reduce_params), _Alignof(bc_reduce_params));
        printf("dtype %zu %zu\n", offsetof(bc_reduce_params, dtype), sizeof(((bc_reduce_params*)0)->dtype));
        printf("correction %zu\n", offsetof(bc_reduce_params, correction));
        printf("given %zu %zu\n", offsetof(bc_reduce_params, given), sizeof(((bc_reduce_params*)0)->given));
        printf("bc_loop2d_fn %zu\n", sizeof(bc_loop2d_fn));
        printf("bc_iter_spec %zu %zu\n", sizeof(bc_iter_spec), _Alignof(bc_iter_spec));
        printf("inputs %zu\n", offsetof(bc_iter_spec, inputs));
        printf("nin %zu %zu\n", offsetof(bc_iter_spec, nin), sizeof(((bc_iter_spec*)0)->nin));
        printf("out %zu\n", offsetof(bc_iter_spec, out));
        printf("out_dtype %zu %zu\n", offsetof(bc_iter_spec, out_dtype), sizeof(((bc_iter_spec*)0)->out_dtype));
        printf("loop_dtypes %zu\n", offsetof(bc_iter_spec, loop_dtypes));
        printf("flags %zu %zu\n", offsetof(bc_iter_spec, flags), sizeof(((bc_iter_spec*)0)->flags));
        "#,
    ) else {
        return;
    };
    let unsigned = u8::from(bc_enum_repr::MIN == 0);
    let enum_line =
        |name: &str| format!("{name} {} {unsigned}", std::mem::size_of::<bc_enum_repr>());
    let expected = [
        enum_line("bc_status"),
        enum_line("bc_dtype"),
        enum_line("bc_op"),
        enum_line("bc_policy"),
        format!(
            "bc_error_detail {} {}",
            std::mem::size_of::<bc_error_detail>(),
            std::mem::align_of::<bc_error_detail>()
        ),
        format!("code {}", std::mem::offset_of!(bc_error_detail, code)),
        format!("dim {}", std::mem::offset_of!(bc_error_detail, dim)),
        format!("size_a {}", std::mem::offset_of!(bc_error_detail, size_a)),
        format!("size_b {}", std::mem::offset_of!(bc_error_detail, size_b)),
        format!("bc_deleter {}", std::mem::size_of::<bc_deleter>()),
        format!("bc_warning_fn {}", std::mem::size_of::<bc_warning_fn>()),
        enum_line("bc_scalar_kind"),
        format!(
            "bc_scalar {} {}",
            std::mem::size_of::<bc_scalar>(),
            std::mem::align_of::<bc_scalar>()
        ),
        format!(
            "v {} {}",
            std::mem::offset_of!(bc_scalar, v),
            std::mem::size_of::<bc_scalar_value>()
        ),
        enum_line("bc_option"),
        format!("bc_chunk_fn {}", std::mem::size_of::<bc_chunk_fn>()),
        format!(
            "bc_scheduler {} {}",
            std::mem::size_of::<bc_scheduler>(),
            std::mem::align_of::<bc_scheduler>()
        ),
        format!(
            "num_threads {}",
            std::mem::offset_of!(bc_scheduler, num_threads)
        ),
        format!("run {}", std::mem::offset_of!(bc_scheduler, run)),
        format!("user {}", std::mem::offset_of!(bc_scheduler, user)),
        enum_line("bc_unary_op"),
        format!(
            "bc_unary_params {} {}",
            std::mem::size_of::<bc_unary_params>(),
            std::mem::align_of::<bc_unary_params>()
        ),
        format!(
            "value {} {}",
            std::mem::offset_of!(bc_unary_params, value),
            std::mem::size_of::<[f64; 3]>()
        ),
        format!(
            "given {} {}",
            std::mem::offset_of!(bc_unary_params, given),
            std::mem::size_of::<core::ffi::c_uint>()
        ),
        enum_line("bc_reduce_op"),
        format!(
            "bc_reduce_params {} {}",
            std::mem::size_of::<bc_reduce_params>(),
            std::mem::align_of::<bc_reduce_params>()
        ),
        format!(
            "dtype {} {}",
            std::mem::offset_of!(bc_reduce_params, dtype),
            std::mem::size_of::<bc_dtype>()
        ),
        format!(
            "correction {}",
            std::mem::offset_of!(bc_reduce_params, correction)
        ),
        format!(
            "given {} {}",
            std::mem::offset_of!(bc_reduce_params, given),
            std::mem::size_of::<core::ffi::c_uint>()
        ),
        format!("bc_loop2d_fn {}", std::mem::size_of::<bc_loop2d_fn>()),
        format!(
            "bc_iter_spec {} {}",
            std::mem::size_of::<bc_iter_spec>(),
            std::mem::align_of::<bc_iter_spec>()
        ),
        format!("inputs {}", std::mem::offset_of!(bc_iter_spec, inputs)),
        format!(
            "nin {} {}",
            std::mem::offset_of!(bc_iter_spec, nin),
            std::mem::size_of::<usize>()
        ),
        format!("out {}", std::mem::offset_of!(bc_iter_spec, out)),
        format!(
            "out_dtype {} {}",
            std::mem::offset_of!(bc_iter_spec, out_dtype),
            std::mem::size_of::<bc_dtype>()
        ),
        format!(
            "loop_dtypes {}",
            std::mem::offset_of!(bc_iter_spec, loop_dtypes)
        ),
        format!(
            "flags {} {}",
            std::mem::offset_of!(bc_iter_spec, flags),
            std::mem::size_of::<core::ffi::c_uint>()
        ),
    ];
    let got: Vec<&str> = out.lines().collect();
    assert_eq!(got, expected);
}

#[test]
fn runtime_version_matches_the_header() {
    let h = header_constants();
    // version.h is generated by CMake next to the library being linked.
    let dirs = include_dirs();
    let version_h = dirs
        .iter()
        .find_map(|d| std::fs::read_to_string(d.join("bcast/version.h")).ok())
        .expect("bcast/version.h");
    let num = |name: &str| -> i32 {
        version_h
            .lines()
            .find_map(|l| l.strip_prefix(&format!("#define {name} ")))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    let expected =
        num("BC_VERSION_MAJOR") * 10000 + num("BC_VERSION_MINOR") * 100 + num("BC_VERSION_PATCH");
    // SAFETY: bc_version takes nothing and only returns an integer.
    assert_eq!(unsafe { bc_version() }, expected);
    assert!(h.contains_key("BC_MAX_DIMS"));
}

#[test]
fn linked_the_way_build_rs_says() {
    // SAFETY: a plain getter; calling it makes sure the library is mapped.
    assert!(unsafe { bc_version() } > 0);
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        eprintln!("note: no /proc/self/maps; link check skipped");
        return;
    };
    let shared = maps.lines().any(|l| l.contains("/libbcast.so"));
    assert_eq!(
        shared, !LINKED_STATICALLY,
        "libbcast.so mapped: {shared}, static build: {LINKED_STATICALLY}"
    );
}
