//! Helpers shared by the integration tests: an independent, naive
//! broadcasting reference written in plain Rust.
#![allow(dead_code)]

use bcast::{Error, ErrorCode};

/// Broadcast shape by the rules, computed here (not by the library).
pub fn naive_shape(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return None;
        };
    }
    Some(out)
}

/// Row-major element offset in a tensor of `shape` for the index `idx` of a
/// (possibly larger) broadcast shape.
fn source_offset(shape: &[i64], idx: &[i64]) -> usize {
    let skip = idx.len() - shape.len();
    let mut off = 0i64;
    for (d, &size) in shape.iter().enumerate() {
        let i = if size == 1 { 0 } else { idx[skip + d] };
        off = off * size + i;
    }
    off as usize
}

/// Every index of `shape` in row-major order.
pub fn indices(shape: &[i64]) -> Vec<Vec<i64>> {
    let n: i64 = shape.iter().product();
    (0..n)
        .map(|mut flat| {
            let mut idx = vec![0; shape.len()];
            for d in (0..shape.len()).rev() {
                idx[d] = flat % shape[d];
                flat /= shape[d];
            }
            idx
        })
        .collect()
}

/// `f(a, b)` elementwise with broadcasting, in plain Rust.
pub fn naive_binary<A: Copy, B: Copy, R>(
    a: &[A],
    a_shape: &[i64],
    b: &[B],
    b_shape: &[i64],
    f: impl Fn(A, B) -> R,
) -> (Vec<i64>, Vec<R>) {
    let shape = naive_shape(a_shape, b_shape).expect("not broadcastable");
    let vals = indices(&shape)
        .iter()
        .map(|idx| {
            f(
                a[source_offset(a_shape, idx)],
                b[source_offset(b_shape, idx)],
            )
        })
        .collect();
    (shape, vals)
}

/// Deterministic pseudo-random values (an LCG), so tests need no crate.
pub fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0
        })
        .collect()
}

pub fn ivalues(n: usize, seed: u64) -> Vec<i32> {
    values(n, seed).iter().map(|v| (v * 4.0) as i32).collect()
}

pub fn numel(shape: &[i64]) -> usize {
    shape.iter().product::<i64>() as usize
}

#[track_caller]
pub fn assert_err(e: Error, code: ErrorCode, message: &str) {
    assert_eq!(e.code, code, "code of {:?}", e.message);
    assert_eq!(e.message, message);
}
