//! float32 `a + b` through `bcast::iter::zip_map_out` (a Rust closure on
//! bcast's iterator) against the C library's own add (`binary_out`), same
//! shapes and buffers, at 64K and 4M elements, same-shape and a row
//! broadcast. Medians of alternating runs; the ratio is C's time over the
//! closure's (issue 26's target: >= 0.9x). Not run by the tests:
//!     BCAST_BUILD_DIR=... cargo bench --bench iter_add

use std::time::Instant;

use bcast::{iter, BinaryOp, Tensor};

fn median_ns(mut f: impl FnMut(), reps: usize) -> f64 {
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_nanos() as f64
        })
        .collect();
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    t[t.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "bcast {} ({})",
        bcast::version_string(),
        bcast::simd_target()
    );
    for &(rows, cols, row_bcast) in &[
        (16usize, 4096usize, false),
        (1024, 4096, false),
        (1024, 4096, true),
    ] {
        let n = rows * cols;
        let a_data: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.5).collect();
        let b_len = if row_bcast { cols } else { n };
        let b_data: Vec<f32> = (0..b_len).map(|i| (i % 89) as f32 * 0.25).collect();
        let a = Tensor::from_slice(&a_data, &[rows, cols])?;
        let b = if row_bcast {
            Tensor::from_slice(&b_data, &[cols])?
        } else {
            Tensor::from_slice(&b_data, &[rows, cols])?
        };
        let mut out_c = Tensor::zeros(bcast::DType::Float32, &[rows, cols])?;
        let mut out_r = Tensor::zeros(bcast::DType::Float32, &[rows, cols])?;
        let reps = if n < 100_000 { 2001 } else { 51 };
        let (mut tc, mut tr) = (Vec::new(), Vec::new());
        for _ in 0..5 {
            tc.push(median_ns(
                || a.binary_out(BinaryOp::Add, &b, &mut out_c).unwrap(),
                reps,
            ));
            tr.push(median_ns(
                || {
                    iter::zip_map_out(&a, &b, &mut out_r, |x: &[f32], y: &[f32], o: &mut [f32]| {
                        for ((o, x), y) in o.iter_mut().zip(x).zip(y) {
                            *o = x + y;
                        }
                    })
                    .unwrap()
                },
                reps,
            ));
        }
        tc.sort_by(|a, b| a.partial_cmp(b).unwrap());
        tr.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let (c, r) = (tc[2], tr[2]);
        println!(
            "({rows}, {cols}) + {}: C add {:9.1} us, Rust closure {:9.1} us: {:.2}x",
            if row_bcast { "(4096,)" } else { "same" },
            c / 1e3,
            r / 1e3,
            c / r
        );
    }
    Ok(())
}
